/*
 * Adaptive selection inside the running application (STAR-MPI, seed 000 section 4.3, and
 * beyond it: model-based probe order, pruning and default; learned-table persistence). This
 * file is the engine: keys, their entries, selection and recording, the summary.
 *
 * Key (agreement-safe, DESIGN.md). A call is mapped to a key from values every rank holds
 * identically: the communicator (one state per context), the collective, the selection size of
 * src/core/coll.c, the root (rooted collectives), the operation (predefined operations by
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
 * Candidates (candidates.c): every applicable instance, ordered and pruned by the cost models
 * with alpha/beta measured once per communicator (netmeasure.c), grouped as STAR groups. Per
 * key, star.c runs the Measure-Select / Monitor-Adapt state machine; by default
 * (AUTOCOLL_LEARN=race) its measurement races the candidates from the MPI library's algorithm
 * under a no-regret budget (docs/adaptive.md, "Learning cost").
 *
 * Persistence (learned.c): when a context is freed or at MPI_Finalize, its rank 0 hands every
 * settled key over as a rule; at MPI_Finalize world rank 0 gathers them and writes
 * AUTOCOLL_TABLE_OUT, followed by the rules of the table that was loaded, so a later run that
 * loads it starts from what was learned and does not probe where it answers.
 */
#include "adapt.h"
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "candidates.h"
#include "learned.h"
#include "netmeasure.h"
#include "star.h"
#include "../trace/trace.h"

enum { AC_BUCKETS = 128, AC_MAX_KEYS = 1024, AC_MAX_EXACT = 64 };

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
    int agreed;                        /* 1: its creation took a reduction (key_create) */
    /* Transfer proposed by entry_new (agreed by ac_adapt_select before it is applied). */
    int t_start, t_mode; /* candidate to start on (-1: none); 1 neighbour, 2 confirm, 3 shape,
                            4 shape with the neighbour's order */
    unsigned t_hash;     /* of the proposal, for the agreement check */
    double t_hint[AC_STAR_MAX];
    int t_prune[AC_STAR_MAX];
    size_t t_from; /* the neighbour's size (mode 1, 2) */
    /* A decision under way (AUTOCOLL_DEFER, ac_adapt_record): the reduction's request, its
     * send buffer (in the entry: a nonblocking reduction matches no blocking one, so the
     * choice between them may not depend on an allocation that can fail on one rank), and
     * what the summary needs from the call that closed the batch. */
    MPI_Request d_req;
    long long d_send[4 * AC_STAR_MAX];
    int d_was, d_stage, d_probe;
} ac_entry_t;

typedef struct ac_adapt {
    struct ac_adapt *next_live;
    ac_entry_t *bucket[AC_BUCKETS];
    size_t exact[AUTOCOLL_NCOLL][AC_MAX_EXACT];
    int nexact[AUTOCOLL_NCOLL];
    int nkeys;
    ac_cand_env_t env; /* shape and network, for predictions */
    int rank;
    long id;
    ac_entry_t *pool; /* zeroed entries for new keys (key_create), linked by next */
    int npool, grow;  /* entries in the pool (alike on every rank); the next refill's */
    int shapes;       /* some rank had a shape record of this communicator's shape when the
                         engine met it: new keys may start from the shape store, and agree */
} ac_adapt_t;

static ac_adapt_t *live; /* every adaptive state of this process (under ac_lock) */

/* ---------------------------------------------------------------- keys */

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
    /* Reproducible mode: an order-sensitive call has candidates of its own. */
    k->op = ac_coll_reduces(a->coll) ? op_id(a->op, a->commutative) + 1000 * a->fixed_order : -1;
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

/* ---------------------------------------------------------------- entries */

enum { AC_POOL_FIRST = 8, AC_POOL_MAX = 16 }; /* entries of the first refill, of any refill */

static void pool_empty(ac_adapt_t *ad) {
    while (ad->pool) {
        ac_entry_t *x = ad->pool;
        ad->pool = x->next;
        free(x);
    }
    ad->npool = 0;
}

/* Refills the empty pool with ad->grow zeroed entries (each refill twice the last, at most
 * AC_POOL_MAX); 0 when out of memory (the pool stays empty). Local: the caller agrees. */
static int pool_fill(ac_adapt_t *ad) {
    int k = ad->grow < AC_POOL_FIRST ? AC_POOL_FIRST : ad->grow;
    for (int i = 0; i < k; i++) {
        ac_entry_t *e = calloc(1, sizeof *e);
        if (!e) {
            pool_empty(ad);
            return 0;
        }
        e->next = ad->pool;
        ad->pool = e;
        ad->npool++;
    }
    ad->grow = 2 * k > AC_POOL_MAX ? AC_POOL_MAX : 2 * k;
    return 1;
}

/* An entry back to the pool (a key that could not be created). */
static void pool_put(ac_adapt_t *ad, ac_entry_t *e) {
    ac_star_free(&e->star);
    memset(e, 0, sizeof *e);
    e->next = ad->pool;
    ad->pool = e;
    ad->npool++;
}

static void adapt_free(ac_adapt_t *ad) {
    if (!ad) return;
    pool_empty(ad);
    free(ad);
}

static int shape_known(const ac_adapt_t *ad);

static ac_adapt_t *adapt_of(ac_ctx_t *ctx) {
    if (ctx->sel) return ctx->sel;
    ac_adapt_t *ad = calloc(1, sizeof *ad);
    if (ad) {
        ad->env.p = ctx->size;
        ad->env.nodes = ctx->nnodes;
        ad->env.ppn = (ctx->size + ctx->nnodes - 1) / ctx->nnodes;
    }
    /* Every rank must agree on whether the engine runs on this communicator, which includes
     * the memory its first keys take (the pool), and on whether its new keys may look at the
     * shape store. */
    ac_net_t known;
    int v[3] = {ad && pool_fill(ad), ad ? -shape_known(ad) : 0,
                ctx->rank ? 1 : ac_net_lookup(ctx, ac_g.set.learn, &known)};
    PMPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INT, MPI_MIN, ctx->comm);
    if (!v[0]) {
        adapt_free(ad);
        return NULL;
    }
    ad->shapes = -v[1];
    ad->rank = ctx->rank;
    ad->id = ctx->id;
    /* rank 0's figures of an earlier communicator of this shape, if it has some (v[2]) */
    ac_net_measure(ctx, &ad->env.net, ac_g.set.learn, v[2] ? &known : NULL);
    ac_lock();
    ad->next_live = live;
    live = ad;
    ac_unlock();
    ctx->sel = ad;
    return ad;
}

static void key_text(const ac_entry_t *e, char *buf, size_t len);
static void decision_finish(ac_adapt_t *ad, ac_entry_t *e);

/* ---------------------------------------------------------------- transfer between keys */

/* What settled keys chose, by communicator shape (this process's view; a new key uses it only
 * when every rank of its communicator proposes the same start, ac_adapt_select). */
enum { AC_SHAPES = 256 };
typedef struct {
    int coll, root, op, inplace, p, nodes, ppn;
    size_t size;
    char name[128];
} ac_shape_rec_t;
static ac_shape_rec_t shapes[AC_SHAPES];
static int nshapes, shape_next;

static int shape_match(const ac_shape_rec_t *r, const ac_adapt_t *ad, const ac_key_t *k) {
    return r->coll == k->coll && r->root == k->root && r->op == k->op && r->inplace == k->inplace &&
           r->p == ad->env.p && r->nodes == ad->env.nodes && r->ppn == ad->env.ppn &&
           r->size == k->size;
}

/* This process has a record of a communicator of ad's shape (any collective and size). */
static int shape_known(const ac_adapt_t *ad) {
    int found = 0;
    ac_lock();
    for (int i = 0; i < nshapes && !found; i++)
        found = shapes[i].p == ad->env.p && shapes[i].nodes == ad->env.nodes &&
                shapes[i].ppn == ad->env.ppn;
    ac_unlock();
    return found;
}

/* A key settled: remember its choice for communicators of the same shape. */
static void shape_put(const ac_adapt_t *ad, const ac_entry_t *e) {
    if (e->key.site || !e->key.exact) return;
    char name[128];
    ac_inst_format(&e->cand[e->star.cur], name, sizeof name);
    ac_lock();
    int i = 0;
    while (i < nshapes && !shape_match(&shapes[i], ad, &e->key))
        i++;
    if (i == nshapes) {
        if (nshapes < AC_SHAPES)
            nshapes++;
        else
            i = shape_next, shape_next = (shape_next + 1) % AC_SHAPES;
    }
    ac_shape_rec_t *r = &shapes[i];
    *r = (ac_shape_rec_t){e->key.coll,    e->key.root, e->key.op,
                          e->key.inplace, ad->env.p,   ad->env.nodes,
                          ad->env.ppn,    e->key.size, ""};
    snprintf(r->name, sizeof r->name, "%s", name);
    ac_unlock();
}

static int cand_index(const ac_entry_t *e, const char *name) {
    char buf[128];
    for (int i = 0; i < e->n; i++) {
        ac_inst_format(&e->cand[i], buf, sizeof buf);
        if (!strcmp(buf, name)) return i;
    }
    return -1;
}

static int same_family(const ac_key_t *x, const ac_key_t *y) {
    return x->coll == y->coll && x->root == y->root && x->op == y->op && x->inplace == y->inplace &&
           x->site == y->site && x->coll != AUTOCOLL_ALLTOALLV;
}

static double size_dist(size_t x, size_t y) {
    double r = log2((double)(x ? x : 1) / (double)(y ? y : 1));
    return r < 0 ? -r : r;
}

/* The proposal of a new key (docs/adaptive.md, "Transfer between keys"): the nearest
 * neighbouring sizes of the same collective (same root, operation, in-place flag, site) on this
 * communicator that have measured something give the start (the nearer one's current choice;
 * both settled on the same instance: that instance and nothing else but the MPI library's
 * algorithm) and the probe order (the nearer one's times; what it dropped comes last). What a
 * communicator of the same shape settled on at this very size overrides the start (not a
 * confirmation). Everything
 * read here is agreed on every rank of the communicator except the shape store, which
 * ac_adapt_select checks. */
static void transfer_propose(ac_adapt_t *ad, ac_entry_t *e, int native) {
    e->t_start = -1;
    e->t_mode = 0;
    if (e->n < 2 || !e->star.cfg.race || e->key.coll == AUTOCOLL_ALLTOALLV) return;
    const ac_entry_t *lo = NULL, *hi = NULL;
    for (int h = 0; h < AC_BUCKETS; h++)
        for (const ac_entry_t *o = ad->bucket[h]; o; o = o->next) {
            if (o == e || !same_family(&o->key, &e->key) || o->star.decisions == 0 || o->star.n < 2)
                continue;
            if (o->key.size < e->key.size && (!lo || o->key.size > lo->key.size)) lo = o;
            if (o->key.size > e->key.size && (!hi || o->key.size < hi->key.size)) hi = o;
        }
    char name[128], other[128];
    if (lo || hi) {
        const ac_entry_t *nb =
            !hi                                                                            ? lo
            : !lo                                                                          ? hi
            : size_dist(lo->key.size, e->key.size) <= size_dist(hi->key.size, e->key.size) ? lo
                                                                                           : hi;
        ac_inst_format(&nb->cand[nb->star.cur], name, sizeof name);
        int start = cand_index(e, name);
        if (start < 0) return;
        e->t_start = start;
        e->t_mode = 1;
        e->t_from = nb->key.size;
        for (int i = 0; i < e->n; i++) {
            ac_inst_format(&e->cand[i], other, sizeof other);
            int j = cand_index(nb, other);
            e->t_hint[i] = 1e30;
            e->t_prune[i] = 0;
            if (j < 0) continue;
            if (nb->star.nsamp[j] > 0) e->t_hint[i] = nb->star.score[j];
            if (!nb->star.alive[j]) e->t_prune[i] = 1;
        }
        if (lo && hi && lo->star.stage == AC_STAR_MONITOR && hi->star.stage == AC_STAR_MONITOR) {
            ac_inst_format(&lo->cand[lo->star.cur], name, sizeof name);
            ac_inst_format(&hi->cand[hi->star.cur], other, sizeof other);
            if (!strcmp(name, other)) {
                e->t_start = cand_index(e, name);
                e->t_mode = 2;
                for (int i = 0; i < e->n; i++)
                    e->t_prune[i] = i == native ? 1 : 2;
            }
        }
    }
    /* The same size settled on a communicator of the same shape: its choice is the start (the
     * neighbour, if any, still orders the probes). Only where the engine agrees such proposals
     * (ad->shapes, key_create). */
    if (ad->shapes && e->t_mode != 2 && e->key.exact && !e->key.site) {
        int start = -1;
        ac_lock();
        for (int i = 0; i < nshapes && start < 0; i++)
            if (shape_match(&shapes[i], ad, &e->key)) start = cand_index(e, shapes[i].name);
        ac_unlock();
        if (start >= 0) {
            if (e->t_mode == 0)
                for (int i = 0; i < e->n; i++)
                    e->t_hint[i] = 0, e->t_prune[i] = 0;
            e->t_mode = e->t_mode == 0 ? 3 : 4;
            e->t_start = start;
        }
    }
    if (e->t_start < 0) {
        e->t_mode = 0;
        return;
    }
    unsigned long long h = 1469598103934665603ULL ^ (unsigned)e->t_mode;
    for (int i = 0; i < e->n; i++) {
        long long q = e->t_hint[i] >= 1e29 ? -1 : (long long)(e->t_hint[i] * 1e9 + 0.5);
        h = (h ^ (unsigned long long)q) * 1099511628211ULL;
        h = (h ^ (unsigned)e->t_prune[i]) * 1099511628211ULL;
    }
    e->t_hash = (unsigned)((h ^ (h >> 32)) & 0x3fffffff);
}

/* 1 when x and y are one algorithm with the same parts, differing in numbers only (segment
 * sizes, radices): the instances whose model errors star.c calibrates together. A composite
 * with other parts is another algorithm (hier:inter=linear and hier:inter=binomial). */
static int same_algorithm(const ac_inst_t *x, const ac_inst_t *y) {
    if (x->alg != y->alg) return 0;
    for (int k = 0; k < x->alg->nparam; k++)
        if (x->alg->param[k].type == AC_PT_ALG && x->val[k].alg != y->val[k].alg) return 0;
    return 1;
}

/* A new key's entry, from the pool (which the caller filled), or NULL (nothing to choose
 * from, alike on every rank; or, classic learner only, out of memory) with the entry back in
 * the pool. */
static ac_entry_t *entry_new(ac_adapt_t *ad, const ac_ctx_t *ctx, const ac_args_t *a,
                             const ac_key_t *k) {
    ac_entry_t *e = ad->pool;
    if (!e) return NULL;
    ad->pool = e->next;
    ad->npool--;
    e->next = NULL;
    int group[AC_STAR_MAX], considered;
    int n = ac_cand_build(ctx, a, &ad->env, AC_STAR_MAX, e->cand, e->pred, group, &considered);
    e->n = n;
    e->considered = considered;
    e->key = *k;
    /* Rooted collectives do not synchronise: ranks leave at very different times and the
     * mean over ranks hides the root (reduce, gather) or the last leaf (bcast, scatter);
     * their calls are scored by the rank that finishes last. */
    /* auto = max: completion time (docs/adaptive.md, "Statistic") */
    int stat_max = ac_g.set.stat != 1;
    ac_star_cfg_t cfg = {.iter = ac_g.set.iter,
                         .eps = ac_g.set.eps,
                         .delta_max = ac_g.set.delta_max,
                         .stat_max = stat_max,
                         .grouping = ac_g.set.grouping,
                         .margin = ac_g.set.margin};
    if (ac_g.set.learn) {
        /* Racing and no-regret (docs/adaptive.md, "Learning cost"). The settings are rank 0's
         * on every rank (src/core/state.c) and the candidate list is built alike everywhere,
         * so every rank configures the same state machine. The best known choice is the MPI
         * library's own algorithm; when the models pruned it, the best prediction
         * (candidates come in predicted order). */
        cfg.race = 1;
        cfg.race_margin = ac_g.set.race_margin;
        cfg.explore = ac_g.set.explore;
        cfg.race_iter = ac_g.set.race_iter;
        cfg.incumbent = 0;
        /* A rooted collective leaves its ranks skewed: the first call of a candidate after
         * another one measures that skew, not the candidate; its first probe runs two calls
         * and is scored by the second (docs/adaptive.md, "Unbiased probes"). */
        cfg.clean_probe = ac_g.set.rooted_probe && ac_coll_rooted(a->coll);
        for (int i = 0; i < n; i++)
            if (!strcmp(e->cand[i].alg->name, "native")) {
                cfg.incumbent = i;
                break;
            }
    }
    if (n <= 0 || ac_star_init(&e->star, &cfg, ad->env.p, n, group) != 0) {
        pool_put(ad, e);
        return NULL;
    }
    if (cfg.race) { /* the models' predictions, calibrated by the probes per algorithm (star.c) */
        memcpy(e->star.pred, e->pred, (size_t)n * sizeof e->pred[0]);
        for (int i = 0; i < n; i++)
            for (int j = 0; j <= i; j++)
                if (same_algorithm(&e->cand[j], &e->cand[i])) {
                    e->star.fam[i] = j;
                    break;
                }
    }
    e->key = *k;
    if (ac_g.set.verbose >= 3 && ctx->rank == 0) {
        char key[160], b0[128], b1[128];
        key_text(e, key, sizeof key);
        ac_inst_format(&e->cand[0], b0, sizeof b0);
        ac_inst_format(&e->cand[n > 1 ? 1 : 0], b1, sizeof b1);
        ac_log("comm %ld %s: predicted %s %.2f us, %s %.2f us; start %.2f us", ctx->id, key, b0,
               1e6 * e->pred[0], b1, 1e6 * e->pred[n > 1 ? 1 : 0], 1e6 * e->pred[cfg.incumbent]);
    }
    if (cfg.race && ac_g.set.transfer)
        transfer_propose(ad, e, cfg.incumbent);
    else
        e->t_start = -1;
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

/* A new key, or NULL on every rank (docs/adaptive.md, "Reductions of a short run"). Its entry
 * comes from the communicator's pool, whose memory every rank agreed on when it was filled,
 * and its candidates are listed alike everywhere without allocating, so with the racing
 * learner its creation cannot fail on one rank only, and a transfer proposal made from this
 * communicator's own keys is agreed by construction: no communication. One reduction is made
 * only where something may differ between ranks: when the pool must be refilled (memory), on
 * a communicator whose keys may start from the shape store (this process's view), and in the
 * classic learner (whose state machine allocates as it goes). Every condition is alike on
 * every rank (the pool's count, ad->shapes, the settings). */
static ac_entry_t *key_create(ac_adapt_t *ad, const ac_ctx_t *ctx, const ac_args_t *a,
                              const ac_key_t *k) {
    if (ad->nkeys >= AC_MAX_KEYS) return NULL;
    int agree = !ac_g.set.learn || ad->shapes || ad->npool == 0, refilled = 0, grow = ad->grow;
    int ok = ad->npool > 0 || (refilled = pool_fill(ad));
    ac_entry_t *e = ok ? entry_new(ad, ctx, a, k) : NULL;
    int apply = e && e->t_start >= 0;
    if (agree) {
        /* With it, the transfer proposal: applied only when every rank proposes the same. */
        int ts = e ? e->t_start : -1, th = e ? (int)e->t_hash : 0;
        int v[5] = {e != NULL, ts, -ts, th, -th};
        PMPI_Allreduce(MPI_IN_PLACE, v, 5, MPI_INT, MPI_MIN, ctx->comm);
        if (e) e->agreed = 1;
        if (!v[0]) {
            if (e) { /* created here but not everywhere: forget it again */
                ad->bucket[key_hash(k)] = e->next;
                ad->nkeys--;
                pool_put(ad, e);
            }
            if (refilled) pool_empty(ad); /* here, but maybe not everywhere */
            ad->grow = grow;              /* so that the next refill is alike everywhere */
            return NULL;
        }
        apply = v[1] >= 0 && v[1] == -v[2] && v[3] == -v[4];
    }
    if (!e) return NULL; /* nothing to choose from, alike everywhere */
    if (apply &&
        ac_star_transfer(&e->star, e->t_start, e->t_mode == 3 ? NULL : e->t_hint,
                         e->t_mode == 3 ? NULL : e->t_prune) == 0 &&
        ac_g.set.verbose >= 2 && ctx->rank == 0) {
        char key[160], name[128];
        key_text(e, key, sizeof key);
        ac_inst_format(&e->cand[e->t_start], name, sizeof name);
        ac_log("comm %ld (p=%d) %s starts on %s (%s)", ctx->id, ctx->size, key, name,
               e->t_mode >= 3   ? "same shape"
               : e->t_mode == 2 ? "confirming both neighbouring sizes"
                                : "neighbouring size");
    }
    return e;
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
    if (!e && !(e = key_create(ad, ctx, a, &k))) return MPI_ERR_NO_MEM;
    decision_finish(ad, e);
    tk->entry = e;
    tk->cand = ac_star_next(&e->star);
    tk->probe = ac_star_probing(&e->star);
    tk->timed = ac_star_timed(&e->star);
    tk->settled = e->star.stage == AC_STAR_MONITOR && !k.site && !ac_g.set.sites;
    ac_inst_copy(out, &e->cand[tk->cand]);
    tk->t_made = PMPI_Wtime();
    *(tk->probe ? &e->book_measure : &e->book_monitor) += tk->t_made - t0;
    return MPI_SUCCESS;
}

/* A call whose inputs are those of a settled key's choice kept by the context (select.h): the
 * same key, so its entry is used without the lookup while it still monitors that choice. The
 * engine's bookkeeping on this path is a few loads and stores, not timed (book_monitor counts
 * the calls that took the full path). */
static int still_kept(const ac_entry_t *e, const ac_kept_t *k) {
    return e->star.stage == AC_STAR_MONITOR && !e->star.awaiting && e->star.cur == k->cand;
}

void *ac_adapt_star(void *entry) {
    return &((ac_entry_t *)entry)->star;
}

int ac_adapt_kept(ac_ctx_t *ctx, const ac_args_t *a, ac_choice_t *ch, ac_kept_t *k) {
    ac_entry_t *e = k->entry;
    if (!still_kept(e, k)) {
        k->entry = NULL;
        return ac_select_full(ctx, a, ch);
    }
    ac_inst_copy(&ch->inst, &e->cand[k->cand]);
    ch->src = AC_SRC_ADAPTIVE;
    ch->node_aware = k->node_aware;
    ch->forced_unusable = 0;
    ac_ticket_t *tk = &ch->tk;
    tk->cand = k->cand;
    tk->probe = 0;
    tk->settled = 1;
    tk->timed = ac_star_timed(&e->star);
    if (!tk->timed) { /* counted now; nothing to record after the call */
        ac_star_skip(&e->star);
        tk->entry = NULL;
        return MPI_SUCCESS;
    }
    tk->entry = e;
    tk->t_made = PMPI_Wtime();
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

/* ---------------------------------------------------------------- decisions */

/* The decision of a closed batch or monitoring period: the key's buffer reduced over the
 * ranks, then ac_star_decide. With AUTOCOLL_DEFER (the default) the reduction is started
 * nonblocking at the call that closed the batch and completed at the key's next call
 * (ac_adapt_select), or when the context is freed, or at MPI_Finalize: a blocking reduction
 * at that call is a barrier, where every rank waits for the latest one, and after a
 * collective that does not synchronise (a rooted one, a pipelined one) that wait is most of
 * what a decision costs (docs/adaptive.md, "Deferred decisions"). Agreement: the next call of
 * a key is the same invocation on every rank, so every rank decides at the same call; the
 * reductions are started in the order of the calls, the same on every rank, and whether one
 * is deferred depends on the setting and the buffer's length only (agreed: it follows from
 * the plan), so blocking and nonblocking reductions, which do not match, never meet. The
 * classic learner's longer buffers are reduced blocking. */
static void decided(ac_adapt_t *ad, ac_entry_t *e, int was, int stage) {
    ac_star_decide(&e->star);
    int cur = e->star.cur;
    if (!e->settled_at && e->star.stage == AC_STAR_MONITOR) {
        e->settled_at = e->star.calls;
        if (e->n > 1 && ac_g.set.transfer) shape_put(ad, e);
    }
    if (ac_g.set.verbose >= 1 && ad->rank == 0 && e->star.stage == AC_STAR_MONITOR &&
        (stage == AC_STAR_MEASURE || cur != was)) {
        char key[160], name[128], alt[128] = "-";
        key_text(e, key, sizeof key);
        ac_inst_format(&e->cand[cur], name, sizeof name);
        int r = ac_star_runner_up(&e->star, cur);
        if (r >= 0) ac_inst_format(&e->cand[r], alt, sizeof alt);
        ac_log("comm %ld (p=%d) %s -> %s (adaptive%s, %.2f us; runner-up %s %.2f us)", ad->id,
               ad->env.p, key, name, stage == AC_STAR_MEASURE ? "" : ", switched",
               1e6 * e->star.score[cur], alt, r >= 0 ? 1e6 * e->star.score[r] : 0.0);
    }
}

/* The deferred decision of e, if one is under way (a no-op otherwise). */
static void decision_finish(ac_adapt_t *ad, ac_entry_t *e) {
    if (!e->star.awaiting) return;
    double t0 = PMPI_Wtime();
    PMPI_Wait(&e->d_req, MPI_STATUS_IGNORE);
    decided(ad, e, e->d_was, e->d_stage);
    *(e->d_probe ? &e->book_measure : &e->book_monitor) += PMPI_Wtime() - t0;
}

static void decisions_finish(ac_adapt_t *ad) {
    for (int h = 0; h < AC_BUCKETS; h++)
        for (ac_entry_t *e = ad->bucket[h]; e; e = e->next)
            decision_finish(ad, e);
}

void ac_adapt_record(ac_ctx_t *ctx, const ac_args_t *a, ac_ticket_t *tk, double seconds) {
    ac_entry_t *e = tk->entry;
    if (!e) return;
    int was = e->star.cur, stage = e->star.stage;
    /* A plain sample costs a few instructions and no clock read; a decision is timed from the
     * call's end, which the caller read. */
    if (ac_star_record(&e->star, seconds)) {
        int len;
        long long *b = ac_star_buffer(&e->star, &len);
        MPI_Op op = ac_star_op_max(&e->star) ? MPI_MAX : MPI_SUM;
        if (ac_g.set.defer && len <= (int)(sizeof e->d_send / sizeof e->d_send[0])) {
            memcpy(e->d_send, b, (size_t)len * sizeof *b);
            e->d_req = MPI_REQUEST_NULL;
            PMPI_Iallreduce(e->d_send, b, len, MPI_LONG_LONG, op, ctx->comm, &e->d_req);
            e->d_was = was;
            e->d_stage = stage;
            e->d_probe = tk->probe;
        } else {
            PMPI_Allreduce(MPI_IN_PLACE, b, len, MPI_LONG_LONG, op, ctx->comm);
            decided(ctx->sel, e, was, stage);
        }
        *(tk->probe ? &e->book_measure : &e->book_monitor) += PMPI_Wtime() - tk->t_done;
    }
    (void)a;
}

int ac_adapt_model_best(ac_ctx_t *ctx, const ac_args_t *a, ac_inst_t *out) {
    ac_adapt_t *ad = adapt_of(ctx);
    if (!ad) return -1;
    return ac_cand_model_best(ctx, a, &ad->env, out);
}

AC_EXPORT int autocoll_adaptive_info(MPI_Comm comm, int coll, unsigned long long bytes,
                                     autocoll_adaptive_info_t *info) {
    ac_ctx_t *ctx = ac_ctx_lookup(comm);
    if (!info || coll < 0 || coll >= AUTOCOLL_NCOLL || !ctx) return MPI_ERR_ARG;
    ac_adapt_t *ad = ctx->sel;
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

/* Arrival patterns of the traced calls (ac_adapt_arrivals; issue 20, spec star-stage-ethernet.md
 * §6.1): every complete invocation of the run that the engine chose, given at MPI_Finalize
 * before the summary when collective tracing is on. arr_set: given (even if none). */
static ac_arr_callstat_t *arr;
static size_t narr;
static int arr_set;

void ac_adapt_arrivals(ac_arr_callstat_t *calls, size_t n) {
    ac_lock();
    free(arr);
    arr = calls;
    narr = n;
    arr_set = 1;
    ac_unlock();
}

/* 1 when invocation c is a call of key k of state ad: the same communicator (its rank 0 is this
 * process), collective, root, in-place flag and size (exact, or in the class and not one of the
 * exact sizes; alltoallv: any). The operation and the call site are not in the records: keys
 * that differ only by them share their calls. */
static int call_of_key(const ac_adapt_t *ad, const ac_key_t *k, const ac_arr_callstat_t *c) {
    if (c->leader != ac_g.world_rank || c->comm != (uint32_t)ad->id || c->kind != k->coll) return 0;
    if (ac_coll_rooted(k->coll) ? c->root != k->root
                                : ((c->flags & AC_TF_INPLACE) != 0) != (k->inplace != 0))
        return 0;
    if (k->coll == AUTOCOLL_ALLTOALLV) return 1;
    if (k->exact) return c->bytes == k->size;
    if (ac_size_class((size_t)c->bytes) != k->size) return 0;
    for (int i = 0; i < ad->nexact[k->coll]; i++)
        if (ad->exact[k->coll][i] == c->bytes) return 0;
    return 1;
}

/* ", arrival ..." of key e for its summary line: the means of the average- and worst-case
 * imbalance factors over the calls it measured in (probe calls) and over all its calls, the
 * largest worst-case factor and the mean worst-case imbalance time. O(calls). */
static void arrival_text(const ac_adapt_t *ad, const ac_entry_t *e, char *buf, size_t len) {
    if (!arr_set) {
        snprintf(buf, len, ", arrival not measured%s",
                 (ac_trace_mask & AC_TRACE_COLL)
                     ? " (traces not gathered: communicator freed beyond the retained states)"
                     : " (collective tracing off)");
        return;
    }
    double n[2] = {0, 0}, avg[2] = {0, 0}, worst[2] = {0, 0}, mx[2] = {0, 0}, imb[2] = {0, 0};
    for (size_t i = 0; i < narr; i++) {
        const ac_arr_callstat_t *c = &arr[i];
        if (!call_of_key(ad, &e->key, c)) continue;
        for (int m = c->src == AC_SRC_PROBE ? 0 : 1; m < 2; m++) {
            n[m]++;
            avg[m] += c->avg_factor;
            worst[m] += c->worst_factor;
            imb[m] += c->worst_imb;
            if (c->worst_factor > mx[m]) mx[m] = c->worst_factor;
        }
    }
    if (!n[1]) {
        snprintf(buf, len, ", arrival: no complete traced call");
        return;
    }
    int k = snprintf(buf, len, ", arrival");
    const char *what[2] = {"measuring", "all"};
    for (int m = 0; m < 2 && k >= 0 && (size_t)k < len; m++)
        if (n[m])
            k += snprintf(buf + k, len - (size_t)k,
                          " %s %.0f calls avg_factor %.2f worst_factor %.2f max %.2f "
                          "worst_imb %.2f us%s",
                          what[m], n[m], avg[m] / n[m], worst[m] / n[m], mx[m], 1e6 * imb[m] / n[m],
                          m == 0 ? ";" : "");
}

/* What harvest does: the summary lines (then frees the entries), the learned rules. */
enum { HV_LOG = 1, HV_LEARN = 2 };

/* Summary lines and learned rules of one state (parts: HV_*); the lines free its entries. Lock
 * held by the caller. */
static void harvest(ac_adapt_t *ad, int parts) {
    for (int h = 0; h < AC_BUCKETS; h++) {
        ac_entry_t *e = ad->bucket[h];
        while (e) {
            ac_entry_t *next = e->next;
            const ac_star_t *s = &e->star;
            int cur = s->cur, r = ac_star_runner_up(s, cur);
            char name[128], alt[128] = "-", key[160], at[320] = "";
            ac_inst_format(&e->cand[cur], name, sizeof name);
            if (r >= 0) ac_inst_format(&e->cand[r], alt, sizeof alt);
            if ((parts & HV_LOG) && ad->rank == 0 && ac_g.set.verbose >= 1) {
                key_text(e, key, sizeof key);
                arrival_text(ad, e, at, sizeof at);
                if (s->score[cur] < 0) {
                    ac_log("adaptive comm %ld %s: calls %ld, all spent probing (%d candidates "
                           "of %d, %d pruned), reductions %ld (key creation %d)%s",
                           ad->id, key, s->calls, e->n, e->considered, e->considered - e->n,
                           s->decisions + e->agreed, e->agreed, at);
                } else {
                    /* STAR's overheads: probing worse algorithms (probe time above the chosen
                     * one's score), bookkeeping while measuring, bookkeeping while monitoring. */
                    double worse = s->probe_time - (double)s->probe_calls * s->score[cur];
                    ac_log("adaptive comm %ld %s: calls %ld, probing %ld (%d candidates of %d, "
                           "%d pruned), chose %s %.2f us, runner-up %s %.2f us, switches %ld, "
                           "reductions %ld (key creation %d), "
                           "overhead probing-worse %.3f ms, bookkeeping %.3f ms, monitoring "
                           "%.3f ms%s",
                           ad->id, key, s->calls, s->probe_calls, e->n, e->considered,
                           e->considered - e->n, name, 1e6 * s->score[cur], alt,
                           r >= 0 ? 1e6 * s->score[r] : 0.0, s->switches, s->decisions + e->agreed,
                           e->agreed, 1e3 * (worse > 0 ? worse : 0), 1e3 * e->book_measure,
                           1e3 * e->book_monitor, at);
                }
            }
            if ((parts & HV_LEARN) && ac_g.set.table_out[0] && ad->rank == 0 && e->n > 1 &&
                s->stage == AC_STAR_MONITOR) {
                unsigned long long lo = e->key.size, hi = e->key.exact ? lo + 1 : (lo ? 2 * lo : 1);
                if (e->key.coll == AUTOCOLL_ALLTOALLV) lo = 0, hi = 0;
                ac_learned_add(e->key.coll, ad->env.p, ad->env.nodes, ad->env.ppn, lo, hi, name);
            }
            if (parts & HV_LOG) {
                ac_star_free(&e->star);
                free(e);
            }
            e = next;
        }
        if (parts & HV_LOG) ad->bucket[h] = NULL;
    }
}

/* States of communicators freed while collective tracing is on (AUTOCOLL_VERBOSE): their rules
 * are learned at the free, their summary lines wait for the arrival patterns gathered at
 * MPI_Finalize. At most AC_RETIRED of them (the others are summarised at once, "not measured"),
 * so memory stays bounded. Lock held. */
enum { AC_RETIRED = 256 };
static ac_adapt_t *retired;
static int nretired;

void ac_adapt_ctx_free(ac_ctx_t *ctx) {
    ac_adapt_t *ad = ctx->sel;
    if (!ad) return;
    if (!ac_g.finalized) decisions_finish(ad); /* at MPI_Finalize: ac_adapt_finalize did */
    ctx->sel = NULL;
    ac_lock();
    for (ac_adapt_t **p = &live; *p; p = &(*p)->next_live)
        if (*p == ad) {
            *p = ad->next_live;
            break;
        }
    if (ac_g.set.verbose >= 1 && (ac_trace_mask & AC_TRACE_COLL) && !arr_set &&
        nretired < AC_RETIRED) {
        harvest(ad, HV_LEARN);
        ad->next_live = retired;
        retired = ad;
        nretired++;
        ac_unlock();
        return;
    }
    harvest(ad, HV_LOG | HV_LEARN);
    ac_unlock();
    adapt_free(ad);
}

void ac_adapt_finalize(void) {
    /* Outside the lock (a decision may record a shape); no other thread calls MPI now. */
    for (ac_adapt_t *ad = live; ad; ad = ad->next_live)
        decisions_finish(ad);
    ac_lock();
    while (live) {
        ac_adapt_t *ad = live;
        live = ad->next_live;
        harvest(ad, HV_LOG | HV_LEARN);
        ad->next_live = NULL; /* still owned by its context */
    }
    while (retired) { /* freed communicators, in reverse order of their frees */
        ac_adapt_t *ad = retired;
        retired = ad->next_live;
        harvest(ad, HV_LOG);
        adapt_free(ad);
    }
    nretired = 0;
    free(arr);
    arr = NULL;
    narr = 0;
    arr_set = 0;
    ac_unlock();
    /* Collective over MPI_COMM_WORLD when AUTOCOLL_TABLE_OUT is set (the same everywhere). */
    ac_learned_write(ac_g.set.table_out, ac_sel.table);
}
