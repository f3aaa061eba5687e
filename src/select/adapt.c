/*
 * Adaptive selection inside the running application (STAR-MPI, seed 000 section 4.3, and
 * beyond it: model-based probe order, pruning and default; learned-table persistence).
 *
 * Key (agreement-safe, DESIGN.md). A call is mapped to a key from values every rank holds
 * identically: the communicator (one state per context), the collective, the selection size of
 * src/core/args.c, the root (rooted collectives), the operation (predefined operations by
 * their identity, user operations only by commutativity, since their handles may differ
 * between processes) and the in-place flag (non-rooted collectives; for rooted ones only the
 * root knows it). Sizes: the first AUTOCOLL_EXACT_SIZES distinct sizes of a collective on a
 * communicator get keys of their own, later sizes share their power-of-two class. alltoallv's
 * size differs per rank, so its key carries no size (one key per root/op-free call shape): the
 * engine learns the pattern the application actually uses on that communicator. Calls on one
 * communicator happen in the same order on every rank (MPI), so keys, call counts per key and
 * therefore decision points agree everywhere; timings are combined by one allreduce of exact
 * integer nanoseconds on the private communicator per decision.
 *
 * Call sites (STAR's per-site instances) are keyed only with AUTOCOLL_SITES=1, and then every
 * call first checks with one small allreduce that all ranks are at the same site (an
 * object-relative address, equal across processes even with address randomisation). Calls
 * whose sites differ between ranks (if (rank == root) MPI_Bcast(...) else MPI_Bcast(...)) use
 * the site-free key, so the refinement can never split ranks. The check costs one allreduce per
 * call, which is why it is off by default.
 *
 * Candidates: every applicable instance (or those named by AUTOCOLL_CANDIDATES_<COLL>), with
 * the MPI library's own algorithm among them. Each gets a predicted time from the cost models
 * (model.c) using alpha/beta measured once per communicator between two ranks of one node and
 * two node leaders; candidates predicted more than AUTOCOLL_PRUNE times slower than the best
 * prediction are dropped, the rest are probed in predicted order, so the best-predicted member
 * of each STAR group represents it. Instances without a model (native) are never pruned.
 *
 * Persistence: when a context is freed or at MPI_Finalize, its rank 0 keeps every settled key
 * as a rule; at MPI_Finalize world rank 0 gathers them and writes AUTOCOLL_TABLE_OUT, followed
 * by the rules of the table that was loaded, so a later run that loads it starts from what was
 * learned and does not probe where it answers.
 */
#include <errno.h>
#include "adapt.h"
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"
#include "star.h"
#include "table.h"

enum { AC_BUCKETS = 128, AC_MAX_KEYS = 1024, AC_MAX_EXACT = 64, AC_ALL_INST = 512 };

typedef struct {
    int coll, root, op, inplace, exact;
    size_t size;
    unsigned long long site;
} ac_key_t;

typedef struct ac_entry {
    struct ac_entry *next;
    ac_key_t key;
    int n, considered;
    ac_inst_t cand[AC_STAR_MAX];
    double pred[AC_STAR_MAX];
    ac_star_t star;
    double book_measure, book_monitor; /* engine time, seconds (local) */
    long settled_at;                   /* call count at the first choice */
} ac_entry_t;

typedef struct ac_adapt {
    struct ac_adapt *next_live;
    ac_entry_t *bucket[AC_BUCKETS];
    size_t exact[AUTOCOLL_NCOLL][AC_MAX_EXACT];
    int nexact[AUTOCOLL_NCOLL];
    int nkeys;
    int have_net;
    ac_net_t net;
    int p, nodes, ppn, rank;
    long id;
} ac_adapt_t;

static ac_adapt_t *live;   /* every adaptive state of this process (under ac_lock) */
static char *pending;      /* learned rules of freed contexts, one per line */
static size_t pending_len; /* (under ac_lock) */

/* ---------------------------------------------------------------- keys */

static int reduces(int coll) {
    return coll == AUTOCOLL_REDUCE || coll == AUTOCOLL_ALLREDUCE ||
           coll == AUTOCOLL_REDUCE_SCATTER || coll == AUTOCOLL_REDUCE_SCATTER_BLOCK;
}

static int op_id(MPI_Op op, int commutative) {
    const MPI_Op pre[] = {MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
                          MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
                          MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
    for (int i = 0; i < (int)(sizeof pre / sizeof pre[0]); i++)
        if (op == pre[i]) return i;
    return 100 + commutative;
}

/* A call site as an offset in its object plus a hash of the object's name. */
static unsigned long long site_id(void *site) {
    Dl_info info;
    unsigned long long h = 1469598103934665603ULL, off = (unsigned long long)(size_t)site;
    if (site && dladdr(site, &info) && info.dli_fbase) {
        off = (unsigned long long)((char *)site - (char *)info.dli_fbase);
        const char *name = info.dli_fname ? strrchr(info.dli_fname, '/') : NULL;
        name = name ? name + 1 : info.dli_fname ? info.dli_fname : "";
        for (; *name; name++)
            h = (h ^ (unsigned char)*name) * 1099511628211ULL;
    }
    return ((h ^ off) * 1099511628211ULL) >> 2; /* fits a positive long long */
}

static void make_key(ac_adapt_t *ad, const ac_args_t *a, ac_key_t *k) {
    memset(k, 0, sizeof *k);
    k->coll = a->coll;
    k->root = ac_coll_rooted(a->coll) ? a->root : -1;
    k->op = reduces(a->coll) ? op_id(a->op, a->commutative) : -1;
    k->inplace = ac_coll_rooted(a->coll) ? 0 : a->inplace;
    if (a->bytes_local) return; /* alltoallv: no size */
    int c = a->coll, nx = ad->nexact[c];
    for (int i = 0; i < nx; i++)
        if (ad->exact[c][i] == a->bytes) {
            k->exact = 1;
            k->size = a->bytes;
            return;
        }
    if (nx < ac_g.set.exact_sizes && nx < AC_MAX_EXACT) {
        ad->exact[c][ad->nexact[c]++] = a->bytes;
        k->exact = 1;
        k->size = a->bytes;
        return;
    }
    k->size = ac_size_class(a->bytes);
}

static unsigned key_hash(const ac_key_t *k) {
    unsigned long long h = (unsigned long long)k->coll * 31 + (unsigned)(k->root + 1);
    h = h * 31 + (unsigned)(k->op + 1);
    h = h * 31 + (unsigned)k->inplace * 2 + (unsigned)k->exact;
    h = h * 1099511628211ULL + k->size;
    h = h * 1099511628211ULL + k->site;
    return (unsigned)(h ^ (h >> 29)) % AC_BUCKETS;
}

static int key_eq(const ac_key_t *x, const ac_key_t *y) {
    return x->coll == y->coll && x->root == y->root && x->op == y->op && x->inplace == y->inplace &&
           x->exact == y->exact && x->size == y->size && x->site == y->site;
}

/* ---------------------------------------------------------------- network parameters */

enum { AC_TAG_NET = 7400 };

/* Ping-pong between ranks x and y; x gets alpha (one way, small messages) and beta. */
static void pingpong(MPI_Comm comm, int me, int x, int y, double *alpha, double *beta) {
    enum { SMALL = 8, LARGE = 65536, NS = 20, NL = 4 };
    static char fallback[LARGE];
    if (me != x && me != y) return;
    char *buf = malloc(LARGE);
    char *b = buf ? buf : fallback;
    int peer = me == x ? y : x;
    double ts = 0, tl = 0;
    for (int pass = 0; pass < 2; pass++) {
        int len = pass ? LARGE : SMALL, reps = pass ? NL : NS;
        double best = INFINITY;
        for (int i = 0; i <= reps; i++) { /* first round trip: warm-up */
            double t0 = PMPI_Wtime();
            if (me == x) {
                PMPI_Send(b, len, MPI_BYTE, peer, AC_TAG_NET, comm);
                PMPI_Recv(b, len, MPI_BYTE, peer, AC_TAG_NET, comm, MPI_STATUS_IGNORE);
            } else {
                PMPI_Recv(b, len, MPI_BYTE, peer, AC_TAG_NET, comm, MPI_STATUS_IGNORE);
                PMPI_Send(b, len, MPI_BYTE, peer, AC_TAG_NET, comm);
            }
            double t = (PMPI_Wtime() - t0) / 2;
            if (i > 0 && t < best) best = t;
        }
        *(pass ? &tl : &ts) = best;
    }
    free(buf);
    if (me == x) {
        *alpha = ts > 0 ? ts : 1e-7;
        *beta = tl > ts ? (tl - ts) / (LARGE - SMALL) : 1e-11;
    }
}

/* Collective over the context's communicator, the first time a model is needed. */
static void measure_net(ac_adapt_t *ad, ac_ctx_t *ctx) {
    ac_net_t n;
    ac_net_default(&n);
    int me = ctx->rank, intra = -1, inter = -1;
    for (int r = 1; r < ctx->size; r++) {
        if (intra < 0 && ctx->node_of[r] == ctx->node_of[0]) intra = r;
        if (inter < 0 && ctx->node_of[r] != ctx->node_of[0]) inter = r;
    }
    double v[5] = {n.a_intra, n.b_intra, n.a_inter, n.b_inter, n.gamma};
    if (intra > 0) pingpong(ctx->comm, me, 0, intra, &v[0], &v[1]);
    if (inter > 0) pingpong(ctx->comm, me, 0, inter, &v[2], &v[3]);
    if (intra < 0 && inter > 0) v[0] = v[2], v[1] = v[3];
    if (inter < 0 && intra > 0) v[2] = v[0], v[3] = v[1];
    if (me == 0) {
        enum { N = 8192 };
        double *x = malloc(2 * N * sizeof *x);
        if (x) {
            for (int i = 0; i < 2 * N; i++)
                x[i] = i;
            double best = INFINITY;
            for (int k = 0; k < 3; k++) {
                double t0 = PMPI_Wtime();
                PMPI_Reduce_local(x, x + N, N, MPI_DOUBLE, MPI_SUM);
                double t = PMPI_Wtime() - t0;
                if (t < best) best = t;
            }
            v[4] = best / (N * sizeof(double));
            free(x);
        }
    }
    PMPI_Bcast(v, 5, MPI_DOUBLE, 0, ctx->comm);
    n.a_intra = v[0], n.b_intra = v[1], n.a_inter = v[2], n.b_inter = v[3], n.gamma = v[4];
    ad->net = n;
    ad->have_net = 1;
    if (ac_g.set.verbose >= 1 && me == 0)
        ac_log("comm %ld: alpha/beta intra-node %.2f us, %.3f ns/B; inter-node %.2f us, %.3f "
               "ns/B; gamma %.3f ns/B",
               ctx->id, 1e6 * v[0], 1e9 * v[1], 1e6 * v[2], 1e9 * v[3], 1e9 * v[4]);
}

static ac_adapt_t *adapt_of(ac_ctx_t *ctx) {
    if (ctx->adapt) return ctx->adapt;
    ac_adapt_t *ad = calloc(1, sizeof *ad);
    /* Every rank must agree on whether the engine runs on this communicator. */
    int ok = ad != NULL, all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (!all) {
        free(ad);
        return NULL;
    }
    ad->p = ctx->size;
    ad->nodes = ctx->nnodes;
    ad->ppn = (ctx->size + ctx->nnodes - 1) / ctx->nnodes;
    ad->rank = ctx->rank;
    ad->id = ctx->id;
    measure_net(ad, ctx);
    ac_lock();
    ad->next_live = live;
    live = ad;
    ac_unlock();
    ctx->adapt = ad;
    return ad;
}

/* ---------------------------------------------------------------- candidates */

static int listed(const char *list, const ac_inst_t *in) {
    if (!list[0]) return 1;
    char name[256];
    ac_inst_format(in, name, sizeof name);
    size_t an = strlen(in->alg->name);
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if ((n == an && !strncmp(p, in->alg->name, n)) ||
            (n == strlen(name) && !strncmp(p, name, n)))
            return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

static double predict(const ac_adapt_t *ad, const ac_args_t *a, const ac_inst_t *in) {
    ac_mcase_t c = {ad->p, ad->nodes, ad->ppn, (double)a->bytes, a->commutative};
    return ac_model_predict(in, &c, &ad->net);
}

typedef struct {
    ac_inst_t in;
    double pred, order;
    int reg; /* registry position, for ties */
} ac_cand_t;

static int cand_cmp(const void *x, const void *y) {
    const ac_cand_t *a = x, *b = y;
    if (a->order != b->order) return a->order < b->order ? -1 : 1;
    return a->reg - b->reg;
}

/* Every applicable (and listed) instance with its prediction, pruned and sorted. */
static int candidates(const ac_adapt_t *ad, const ac_ctx_t *ctx, const ac_args_t *a, ac_cand_t *out,
                      int *considered) {
    int n = 0, c = a->coll;
    double best = INFINITY;
    for (int k = 0; k < ac_alg_count(c); k++) {
        const ac_alg_t *alg = ac_alg_get(c, k);
        if (!ac_alg_applicable(alg, a, ctx, NULL)) continue;
        for (int i = 0; i < ac_inst_count(alg) && n < AC_ALL_INST; i++) {
            ac_inst_nth(alg, i, &out[n].in);
            if (!listed(ac_g.set.cand[c], &out[n].in)) continue;
            out[n].pred = predict(ad, a, &out[n].in);
            out[n].reg = n;
            if (out[n].pred >= 0 && out[n].pred < best) best = out[n].pred;
            n++;
        }
    }
    *considered = n;
    int kept = 0;
    for (int i = 0; i < n; i++) {
        double pr = out[i].pred;
        if (pr >= 0 && ac_g.set.prune > 0 && isfinite(best) && pr > ac_g.set.prune * best) continue;
        out[kept] = out[i];
        /* No model: probe it as early as the best prediction. */
        out[kept].order = pr >= 0 ? pr : (isfinite(best) ? best : 0);
        kept++;
    }
    qsort(out, (size_t)kept, sizeof *out, cand_cmp);
    return kept;
}

static ac_entry_t *entry_new(ac_adapt_t *ad, const ac_ctx_t *ctx, const ac_args_t *a,
                             const ac_key_t *k) {
    ac_cand_t *all = malloc(AC_ALL_INST * sizeof *all);
    ac_entry_t *e = calloc(1, sizeof *e);
    int ok = all && e;
    if (ok) {
        int considered, n = candidates(ad, ctx, a, all, &considered);
        if (n > AC_STAR_MAX) n = AC_STAR_MAX;
        int group[AC_STAR_MAX];
        for (int i = 0; i < n; i++) {
            e->cand[i] = all[i].in;
            e->pred[i] = all[i].pred;
            group[i] = i;
            for (int j = 0; j < i; j++)
                if (!strcmp(all[j].in.alg->group, all[i].in.alg->group)) {
                    group[i] = group[j];
                    break;
                }
        }
        e->n = n;
        e->considered = considered;
        e->key = *k;
        /* Rooted collectives do not synchronise: ranks leave at very different times and the
         * mean over ranks hides the root (reduce, gather) or the last leaf (bcast, scatter);
         * their calls are scored by the rank that finishes last. */
        /* auto = max: completion time (docs/adaptive.md, "Statistic") */
        int stat_max = ac_g.set.stat != 1;
        ac_star_cfg_t cfg = {ac_g.set.iter, ac_g.set.eps,      ac_g.set.delta_max,
                             stat_max,      ac_g.set.grouping, ac_g.set.margin};
        ok = n > 0 && ac_star_init(&e->star, &cfg, ad->p, n, group) == 0;
    }
    free(all);
    if (!ok) {
        if (e) ac_star_free(&e->star);
        free(e);
        return NULL;
    }
    unsigned h = key_hash(k);
    e->next = ad->bucket[h];
    ad->bucket[h] = e;
    ad->nkeys++;
    return e;
}

static ac_entry_t *entry_find(ac_adapt_t *ad, const ac_key_t *k) {
    for (ac_entry_t *e = ad->bucket[key_hash(k)]; e; e = e->next)
        if (key_eq(&e->key, k)) return e;
    return NULL;
}

/* ---------------------------------------------------------------- selection */

int ac_adapt_select(ac_ctx_t *ctx, const ac_args_t *a, ac_inst_t *out, ac_ticket_t *tk) {
    double t0 = PMPI_Wtime();
    tk->entry = NULL;
    ac_adapt_t *ad = adapt_of(ctx);
    if (!ad) return MPI_ERR_NO_MEM;
    ac_key_t k;
    make_key(ad, a, &k);
    if (ac_g.set.sites) {
        long long s[2];
        s[0] = (long long)site_id(a->site);
        s[1] = -s[0];
        PMPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_LONG_LONG, MPI_MAX, ctx->comm);
        if (s[0] == -s[1]) k.site = (unsigned long long)s[0];
    }
    ac_entry_t *e = entry_find(ad, &k);
    if (!e) {
        /* The candidate list is computed identically everywhere, but memory can fail on one
         * rank only: agree before using the new key. */
        int ok = 0, all = 0;
        if (ad->nkeys < AC_MAX_KEYS) {
            e = entry_new(ad, ctx, a, &k);
            ok = e != NULL;
        }
        PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, ctx->comm);
        if (!all) {
            if (e) { /* created here but not everywhere: forget it again */
                ad->bucket[key_hash(&k)] = e->next;
                ad->nkeys--;
                ac_star_free(&e->star);
                free(e);
            }
            return MPI_ERR_NO_MEM;
        }
    }
    tk->entry = e;
    tk->cand = ac_star_next(&e->star);
    tk->probe = e->star.stage == AC_STAR_MEASURE;
    *out = e->cand[tk->cand];
    double t = PMPI_Wtime() - t0;
    *(tk->probe ? &e->book_measure : &e->book_monitor) += t;
    return MPI_SUCCESS;
}

static void key_text(const ac_entry_t *e, char *buf, size_t len) {
    const ac_key_t *k = &e->key;
    int n = snprintf(buf, len, "%s", ac_coll_name(k->coll));
    if (k->coll == AUTOCOLL_ALLTOALLV)
        n += snprintf(buf + n, len - (size_t)n, " (any size)");
    else if (k->exact)
        n += snprintf(buf + n, len - (size_t)n, " %zu B", k->size);
    else
        n +=
            snprintf(buf + n, len - (size_t)n, " [%zu, %zu) B", k->size, k->size ? 2 * k->size : 1);
    if (k->root >= 0) n += snprintf(buf + n, len - (size_t)n, " root %d", k->root);
    if (k->inplace) n += snprintf(buf + n, len - (size_t)n, " in-place");
    if (k->site) snprintf(buf + n, len - (size_t)n, " site %llx", k->site);
}

void ac_adapt_record(ac_ctx_t *ctx, const ac_args_t *a, ac_ticket_t *tk, double seconds) {
    ac_entry_t *e = tk->entry;
    if (!e) return;
    double t0 = PMPI_Wtime();
    int was = e->star.cur, stage = e->star.stage;
    if (ac_star_record(&e->star, seconds)) {
        int len;
        long long *b = ac_star_buffer(&e->star, &len);
        PMPI_Allreduce(MPI_IN_PLACE, b, len, MPI_LONG_LONG,
                       ac_star_op_max(&e->star) ? MPI_MAX : MPI_SUM, ctx->comm);
        ac_star_decide(&e->star);
        int cur = e->star.cur;
        if (!e->settled_at && e->star.stage == AC_STAR_MONITOR) e->settled_at = e->star.calls;
        if (ac_g.set.verbose >= 1 && ctx->rank == 0 && e->star.stage == AC_STAR_MONITOR &&
            (stage == AC_STAR_MEASURE || cur != was)) {
            char key[160], name[128], alt[128] = "-";
            key_text(e, key, sizeof key);
            ac_inst_format(&e->cand[cur], name, sizeof name);
            int r = ac_star_runner_up(&e->star, cur);
            if (r >= 0) ac_inst_format(&e->cand[r], alt, sizeof alt);
            ac_log("comm %ld (p=%d) %s -> %s (adaptive%s, %.2f us; runner-up %s %.2f us)", ctx->id,
                   ctx->size, key, name, stage == AC_STAR_MEASURE ? "" : ", switched",
                   1e6 * e->star.score[cur], alt, r >= 0 ? 1e6 * e->star.score[r] : 0.0);
        }
    }
    (void)a;
    *(tk->probe ? &e->book_measure : &e->book_monitor) += PMPI_Wtime() - t0;
}

int ac_adapt_model_best(ac_ctx_t *ctx, const ac_args_t *a, ac_inst_t *out) {
    ac_adapt_t *ad = adapt_of(ctx);
    if (!ad) return -1;
    ac_cand_t *all = malloc(AC_ALL_INST * sizeof *all);
    int considered, best = -1, n = all ? candidates(ad, ctx, a, all, &considered) : 0;
    for (int i = 0; i < n && best < 0; i++)
        if (all[i].pred >= 0) best = i;
    if (best >= 0) *out = all[best].in;
    free(all);
    return best >= 0 ? 0 : -1;
}

AC_EXPORT int autocoll_adaptive_info(MPI_Comm comm, int coll, unsigned long long bytes,
                                     autocoll_adaptive_info_t *info) {
    ac_ctx_t *ctx = ac_ctx_lookup(comm);
    if (!info || coll < 0 || coll >= AUTOCOLL_NCOLL || !ctx) return MPI_ERR_ARG;
    ac_adapt_t *ad = ctx->adapt;
    const ac_entry_t *found = NULL;
    for (int h = 0; ad && h < AC_BUCKETS; h++)
        for (const ac_entry_t *e = ad->bucket[h]; e; e = e->next) {
            const ac_key_t *k = &e->key;
            int hit =
                k->coll == coll && (coll == AUTOCOLL_ALLTOALLV || (k->exact && k->size == bytes) ||
                                    (!k->exact && k->size == ac_size_class((size_t)bytes)));
            /* Exact keys and site-free keys first. */
            if (hit && (!found || (k->exact > found->key.exact) ||
                        (k->exact == found->key.exact && found->key.site && !k->site)))
                found = e;
        }
    if (!found) return MPI_ERR_ARG;
    const ac_star_t *s = &found->star;
    memset(info, 0, sizeof *info);
    info->calls = s->calls;
    info->probe_calls = s->probe_calls;
    info->switches = s->switches;
    info->decisions = s->decisions;
    info->settled_at = found->settled_at;
    info->candidates = found->n;
    info->considered = found->considered;
    info->probe_time = s->probe_time;
    info->bookkeeping_time = found->book_measure;
    info->monitor_time = found->book_monitor;
    if (s->score[s->cur] >= 0) {
        ac_inst_format(&found->cand[s->cur], info->chosen, sizeof info->chosen);
        info->chosen_time = s->score[s->cur];
        int r = ac_star_runner_up(s, s->cur);
        if (r >= 0) {
            ac_inst_format(&found->cand[r], info->runner_up, sizeof info->runner_up);
            info->runner_up_time = s->score[r];
        }
    }
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- summary and persistence */

static void pending_add(const char *line) {
    size_t n = strlen(line);
    char *p = realloc(pending, pending_len + n + 2);
    if (!p) return;
    pending = p;
    memcpy(pending + pending_len, line, n);
    pending_len += n;
    pending[pending_len++] = '\n';
    pending[pending_len] = '\0';
}

/* Summary lines and learned rules of one state; frees its entries. Lock held by the caller. */
static void harvest(ac_adapt_t *ad) {
    for (int h = 0; h < AC_BUCKETS; h++) {
        ac_entry_t *e = ad->bucket[h];
        while (e) {
            ac_entry_t *next = e->next;
            const ac_star_t *s = &e->star;
            int cur = s->cur, r = ac_star_runner_up(s, cur);
            char name[128], alt[128] = "-", key[160];
            ac_inst_format(&e->cand[cur], name, sizeof name);
            if (r >= 0) ac_inst_format(&e->cand[r], alt, sizeof alt);
            if (ad->rank == 0 && ac_g.set.verbose >= 1) {
                key_text(e, key, sizeof key);
                if (s->score[cur] < 0) {
                    ac_log("adaptive comm %ld %s: calls %ld, all spent probing (%d candidates "
                           "of %d, %d pruned)",
                           ad->id, key, s->calls, e->n, e->considered, e->considered - e->n);
                } else {
                    /* STAR's overheads: probing worse algorithms (probe time above the chosen
                     * one's score), bookkeeping while measuring, bookkeeping while monitoring. */
                    double worse = s->probe_time - (double)s->probe_calls * s->score[cur];
                    ac_log("adaptive comm %ld %s: calls %ld, probing %ld (%d candidates of %d, "
                           "%d pruned), chose %s %.2f us, runner-up %s %.2f us, switches %ld, "
                           "overhead probing-worse %.3f ms, bookkeeping %.3f ms, monitoring "
                           "%.3f ms",
                           ad->id, key, s->calls, s->probe_calls, e->n, e->considered,
                           e->considered - e->n, name, 1e6 * s->score[cur], alt,
                           r >= 0 ? 1e6 * s->score[r] : 0.0, s->switches,
                           1e3 * (worse > 0 ? worse : 0), 1e3 * e->book_measure,
                           1e3 * e->book_monitor);
                }
            }
            if (ad->rank == 0 && e->n > 1 && s->stage == AC_STAR_MONITOR) {
                unsigned long long lo = e->key.size, hi = e->key.exact ? lo + 1 : (lo ? 2 * lo : 1);
                if (e->key.coll == AUTOCOLL_ALLTOALLV) lo = 0, hi = 0;
                char line[512];
                snprintf(line, sizeof line, "%d %d %d %d %llu %llu %s", e->key.coll, ad->p,
                         ad->nodes, ad->ppn, lo, hi, name);
                pending_add(line);
            }
            ac_star_free(&e->star);
            free(e);
            e = next;
        }
        ad->bucket[h] = NULL;
    }
}

void ac_adapt_ctx_free(ac_ctx_t *ctx) {
    ac_adapt_t *ad = ctx->adapt;
    if (!ad) return;
    ctx->adapt = NULL;
    ac_lock();
    for (ac_adapt_t **p = &live; *p; p = &(*p)->next_live)
        if (*p == ad) {
            *p = ad->next_live;
            break;
        }
    harvest(ad);
    ac_unlock();
    free(ad);
}

/* World rank 0 writes the gathered rules, then the loaded table's own rules. */
static void write_table(autocoll_table_t *t, const char *all) {
    int bad = 0;
    for (const char *p = all; *p;) {
        size_t n = strcspn(p, "\n");
        char line[600];
        int coll, pp, nodes, ppn, off = 0;
        unsigned long long lo, hi;
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        int dup = 0;
        if (sscanf(line, "%d %d %d %d %llu %llu %n", &coll, &pp, &nodes, &ppn, &lo, &hi, &off) ==
                6 &&
            off > 0) {
            /* Several communicators of one shape learn the same key: the first one is kept. */
            for (int i = 0; i < t->nrules && !dup; i++) {
                const ac_rule_t *r = &t->rules[i];
                dup = r->coll == coll && r->pmin == pp && r->nodes == nodes && r->ppn == ppn &&
                      r->lo == lo && r->hi == hi;
            }
        }
        if (off > 0 && !dup)
            bad += autocoll_table_add_rule(t, coll, pp, pp, nodes, ppn, lo, hi, line + off) !=
                   MPI_SUCCESS;
        p += n + (p[n] == '\n');
    }
    for (int i = 0; ac_sel.table && i < ac_sel.table->nrules; i++)
        if (ac_table_push(t, &ac_sel.table->rules[i]) != 0) break;
    errno = 0;
    if (autocoll_table_write(t, ac_g.set.table_out) != MPI_SUCCESS) {
        int e = errno;
        ac_log("AUTOCOLL_TABLE_OUT=%s: could not write the learned table: %s", ac_g.set.table_out,
               e ? strerror(e) : "unknown error");
    } else if (ac_g.set.verbose >= 1)
        ac_log("learned table written to %s (%d rules%s)", ac_g.set.table_out,
               autocoll_table_rule_count(t), bad ? ", some rules rejected" : "");
}

void ac_adapt_finalize(void) {
    ac_lock();
    while (live) {
        ac_adapt_t *ad = live;
        live = ad->next_live;
        harvest(ad);
        ad->next_live = NULL; /* still owned by its context */
    }
    char *mine = pending;
    int len = (int)pending_len;
    pending = NULL;
    pending_len = 0;
    ac_unlock();
    if (ac_g.set.table_out[0]) {
        int p, *lens = NULL, *displs = NULL, total = 0, ok = 1;
        /* Provenance is collective over the world (host names); rules are rank 0's business. */
        autocoll_table_t *t = autocoll_table_new();
        if (t) {
            ac_table_fill_provenance(t, MPI_COMM_WORLD, 0, 0, NULL);
            autocoll_table_set_info(t, "tool", "autocoll adaptive engine");
        }
        PMPI_Comm_size(MPI_COMM_WORLD, &p);
        if (ac_g.world_rank == 0) {
            lens = calloc((size_t)p, sizeof *lens);
            displs = calloc((size_t)p, sizeof *displs);
            ok = lens && displs;
        }
        PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
        char *all = NULL;
        if (ok) PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (ok && ac_g.world_rank == 0) {
            for (int r = 0; r < p; r++) {
                displs[r] = total;
                total += lens[r];
            }
            all = malloc((size_t)total + 1);
            if (!all) /* still takes part, receiving nothing */
                for (int r = 0; r < p; r++)
                    lens[r] = displs[r] = 0;
        }
        if (ok)
            PMPI_Gatherv(mine ? mine : "", len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0,
                         MPI_COMM_WORLD);
        if (all && t) {
            all[total] = '\0';
            write_table(t, all);
        }
        autocoll_table_free(t);
        free(all);
        free(lens);
        free(displs);
    }
    free(mine);
}
