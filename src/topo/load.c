/*
 * AUTOCOLL_TOPOLOGY: loading at MPI_Init, the per-communicator view, cached schedules.
 *
 * Source: seed 000 (Faraj 2006) §3.1, §3.2.3 (schedules and token sets computed once and
 * reused); spec star-stage-ethernet.md sections 3.1-3.4. Header: load.h.
 *
 * Design choices:
 *  - The file is read by world rank 0 only and broadcast (as the tuning table is), so all ranks
 *    parse the same bytes and agree on whether the topology is usable: the restriction
 *    TOPOLOGY_FILE then holds on every rank of a communicator or on none, and a forced
 *    topology algorithm falls back identically everywhere.
 *  - A sub-communicator needs no communication: its ranks are translated to world ranks
 *    locally and the same deterministic derivation runs on every rank.
 *  - Everything expensive (AAPC schedule O(p^2), token sets, LR3) is built lazily on the first
 *    call that needs it, on every rank of the call at the same point, and freed with the
 *    context.
 * Cost: loading O(file); attaching O(topology size) per communicator.
 */
#include "load.h"

#include <stdlib.h>
#include <string.h>

enum { AC_TOPO_MAX_FILE = 64 << 20 };

static ac_topo_t *world_topo;

const ac_topo_t *ac_topo_world(void) {
    return world_topo;
}

/* Up to 20 lines of the parser's messages on the log (rank 0). */
static void report_errors(const char *errs) {
    int n = 0;
    for (const char *l = errs; l && *l && n < 20; n++) {
        size_t k = strcspn(l, "\n");
        ac_log("AUTOCOLL_TOPOLOGY: %.*s", (int)k, l);
        l += k + (l[k] == '\n');
    }
}

void ac_topo_setup(int collective) {
    const char *path = ac_g.set.topology;
    char why[300] = "";
    size_t len = 0;
    int report = ac_g.world_rank == 0;
    if (!path[0] || world_topo) return;
    char *buf = ac_file_read_world(path, AC_TOPO_MAX_FILE, collective, &len, why, sizeof why);
    const char *tail = "; the topology algorithms are not applicable";
    if (!buf) {
        if (report) ac_log("AUTOCOLL_TOPOLOGY=%s: %s%s", path, why, tail);
        return;
    }
    char *errs = NULL;
    ac_topo_t *t = NULL;
    int nerr = ac_topo_parse(buf, len, path, &t, &errs);
    free(buf);
    if (nerr) {
        if (report) {
            report_errors(errs);
            ac_log("AUTOCOLL_TOPOLOGY=%s: %d error%s%s", path, nerr, nerr == 1 ? "" : "s", tail);
        }
        free(errs);
        return;
    }
    free(errs);
    int world = 1;
    PMPI_Comm_size(MPI_COMM_WORLD, &world);
    if (t->nranks != world) {
        if (report)
            ac_log("AUTOCOLL_TOPOLOGY=%s: the file places %d rank%s, the job has %d%s", path,
                   t->nranks, t->nranks == 1 ? "" : "s", world, tail);
        ac_topo_free(t);
        return;
    }
    world_topo = t;
    if (report && ac_g.set.verbose >= 1)
        ac_log("AUTOCOLL_TOPOLOGY=%s: %d switches, %d machines, %d ranks", path, t->nsw, t->nmach,
               t->nranks);
}

void ac_topo_teardown(void) {
    ac_topo_free(world_topo);
    world_topo = NULL;
}

ac_topo_t *ac_topo_subset(const ac_topo_t *t, const int *world_of, int n, char **errs) {
    if (errs) *errs = NULL;
    for (int i = 0; i < n; i++)
        if (world_of[i] < 0 || world_of[i] >= t->nranks) {
            if (errs) {
                *errs = malloc(128);
                if (*errs)
                    snprintf(*errs, 128, "rank %d of the communicator is not in the topology", i);
            }
            return NULL;
        }
    char *full = ac_topo_format(t);
    if (!full) return NULL;
    /* the records without the rank lines, then the ranks of the subset */
    size_t cap = strlen(full) + (size_t)n * (AC_TOPO_MAX_ID + 24) + 1, used = 0;
    char *txt = malloc(cap);
    if (!txt) {
        free(full);
        return NULL;
    }
    for (const char *l = full; *l;) {
        size_t k = strcspn(l, "\n");
        if (strncmp(l, "rank ", 5) != 0) {
            memcpy(txt + used, l, k);
            used += k;
            txt[used++] = '\n';
        }
        l += k + (l[k] == '\n');
    }
    free(full);
    for (int i = 0; i < n; i++)
        used += (size_t)snprintf(txt + used, cap - used, "rank %d %s\n", i,
                                 t->mach_name[t->rank_mach[world_of[i]]]);
    ac_topo_t *sub = NULL;
    ac_topo_parse(txt, used, "(communicator)", &sub, errs);
    free(txt);
    return sub;
}

static void prog_free(ac_topo_prog_t *g) {
    free(g->to), free(g->from), free(g->wstart), free(g->wsrc), free(g->wseq), free(g->sstart),
        free(g->sdst), free(g->dto), free(g->dfrom), free(g->dself);
    memset(g, 0, sizeof *g);
    g->nphases = -1;
}

void ac_topo_comm_free(void *p) {
    ac_topo_comm_t *tc = p;
    if (!tc) return;
    if (tc->aapc_state == 1) ac_aapc_free(&tc->aapc);
    for (int k = 0; k < tc->ntoksets; k++) {
        free(tc->toksets[k].tok);
        prog_free(&tc->toksets[k].prog);
    }
    free(tc->ring);
    for (int r = 0; tc->bt_child && r < tc->t->nranks; r++)
        free(tc->bt_child[r]);
    free(tc->bt_child);
    ac_topo_free(tc->t);
    free(tc);
}

void ac_topo_attach(ac_ctx_t *ctx) {
    if (!world_topo || ctx->topo) return;
    int n = ctx->size, *world_of = malloc((size_t)n * sizeof *world_of);
    ac_topo_comm_t *tc = calloc(1, sizeof *tc);
    int ok = world_of && tc && ac_comm_ranks(ctx->comm, n, MPI_COMM_WORLD, world_of) == MPI_SUCCESS;
    for (int i = 0; ok && i < n; i++)
        ok = world_of[i] != MPI_UNDEFINED;
    if (ok) {
        tc->t = ac_topo_subset(world_topo, world_of, n, NULL);
        ok = tc->t != NULL;
    }
    free(world_of);
    if (!ok) {
        ac_topo_comm_free(tc);
        return;
    }
    ctx->topo = tc;
    ctx->topo_free = ac_topo_comm_free;
}

const ac_aapc_t *ac_topo_aapc(ac_topo_comm_t *tc) {
    if (tc->aapc_state == 0) tc->aapc_state = ac_aapc_build(tc->t, &tc->aapc) == 0 ? 1 : -1;
    return tc->aapc_state == 1 ? &tc->aapc : NULL;
}

static int no_tokens(ac_ts_t ts) {
    return ac_ts_token_kind(ts) == 0;
}

/* The cache entry of scheme ts (made on first use), NULL when the schedule cannot be built. */
static ac_topo_tokset_t *entry_of(ac_topo_comm_t *tc, ac_ts_t ts) {
    for (int k = 0; k < tc->ntoksets; k++)
        if (tc->toksets[k].ts.scheme == ts.scheme && tc->toksets[k].ts.bs == ts.bs)
            return &tc->toksets[k];
    if (!ac_topo_aapc(tc) || tc->ntoksets == (int)(sizeof tc->toksets / sizeof tc->toksets[0]))
        return NULL;
    ac_topo_tokset_t *e = &tc->toksets[tc->ntoksets++];
    memset(e, 0, sizeof *e);
    e->ts = ts;
    e->ntok = -2;
    e->prog.nphases = -1;
    return e;
}

/* Token sets of tc are reduced (and programs cut from them), else derived per rank. */
static int reduced(const ac_topo_comm_t *tc) {
    return tc->t->nranks <= (tc->reduce_max_p > 0 ? tc->reduce_max_p : AC_AAPC_TOKEN_MAX_P);
}

int ac_topo_tokens(ac_topo_comm_t *tc, ac_ts_t ts, const ac_token_t **tok, int *ntok) {
    ac_topo_tokset_t *e = entry_of(tc, ts);
    if (!e) return -1;
    if (e->ntok == -2) {
        e->ntok = 0;
        if (!no_tokens(ts) &&
            ac_aapc_tokens_opt(tc->t, &tc->aapc, ts, reduced(tc), &e->tok, &e->ntok) != 0) {
            free(e->tok);
            e->tok = NULL;
            e->ntok = -1; /* remembered: not retried at every call */
        }
    }
    *tok = e->tok;
    *ntok = e->ntok;
    return e->ntok >= 0 ? 0 : -1;
}

/* Phase of message x (messages are numbered in phase order). */
static int phase_of(const ac_aapc_t *s, int x) {
    int lo = 0, hi = s->nphases - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (s->pstart[mid] <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* A token this rank awaits, keyed by the order its sender emits it: (sender, phase of m1,
 * index in the token list). */
typedef struct {
    int from, ph, k;
} tok_key_t;
static int tok_cmp(const void *x, const void *y) {
    const tok_key_t *a = x, *b = y;
    if (a->from != b->from) return a->from < b->from ? -1 : 1;
    if (a->ph != b->ph) return a->ph < b->ph ? -1 : 1;
    return a->k < b->k ? -1 : a->k > b->k;
}

/* The dummies of rank me (spec 3.3, Dummy): dto/dfrom per phase. 0, or -1 on no memory. */
static int dummy_program(ac_topo_comm_t *tc, ac_topo_prog_t *g, int me) {
    const ac_aapc_t *s = &tc->aapc;
    int L = s->nphases, *ds = NULL;
    ac_pair_t *dum = NULL;
    g->dto = malloc(((size_t)L + 1) * sizeof *g->dto);
    g->dfrom = malloc(((size_t)L + 1) * sizeof *g->dfrom);
    g->dself = malloc(((size_t)L + 1) * sizeof *g->dself);
    if (!g->dto || !g->dfrom || !g->dself || ac_aapc_dummies(tc->t, s, &ds, &dum) != 0) return -1;
    for (int p = 0; p < L; p++) {
        g->dto[p] = g->dfrom[p] = -1;
        g->dself[p] = 0;
        for (int k = ds[p]; k < ds[p + 1]; k++) {
            if (dum[k].src == me && dum[k].dst == me)
                g->dself[p] = 1;
            else if (dum[k].src == me)
                g->dto[p] = dum[k].dst;
            else if (dum[k].dst == me)
                g->dfrom[p] = dum[k].src;
        }
    }
    free(ds), free(dum);
    return 0;
}

/* Fills g, rank me's program, from tok[0..ntok): the whole token set or any subsequence of it
 * that holds every token me sends or awaits. 0, or -1 on no memory (g is then partly filled). */
static int build_program(ac_topo_comm_t *tc, ac_ts_t ts, const ac_token_t *tok, int ntok, int me,
                         ac_topo_prog_t *g) {
    const ac_aapc_t *s = &tc->aapc;
    int L = s->nphases, nw = 0, ns = 0;
    g->to = malloc(((size_t)L + 1) * sizeof *g->to);
    g->from = malloc(((size_t)L + 1) * sizeof *g->from);
    g->wstart = calloc((size_t)L + 2, sizeof *g->wstart);
    g->sstart = calloc((size_t)L + 2, sizeof *g->sstart);
    if (!g->to || !g->from || !g->wstart || !g->sstart) return -1;
    for (int p = 0; p < L; p++) {
        g->to[p] = g->from[p] = -1;
        for (int x = s->pstart[p]; x < s->pstart[p + 1]; x++) {
            if (s->msg[x].src == me) g->to[p] = s->msg[x].dst;
            if (s->msg[x].dst == me) g->from[p] = s->msg[x].src;
        }
    }
    for (int k = 0; k < ntok; k++) {
        if (tok[k].to == me) g->wstart[phase_of(s, tok[k].m2) + 1]++, nw++;
        if (tok[k].from == me) g->sstart[phase_of(s, tok[k].m1) + 1]++, ns++;
    }
    for (int p = 0; p < L; p++)
        g->wstart[p + 1] += g->wstart[p], g->sstart[p + 1] += g->sstart[p];
    g->wsrc = malloc(((size_t)nw + 1) * sizeof *g->wsrc);
    g->wseq = malloc(((size_t)nw + 1) * sizeof *g->wseq);
    g->sdst = malloc(((size_t)ns + 1) * sizeof *g->sdst);
    int *wf = malloc(((size_t)L + 1) * sizeof *wf), *sf = malloc(((size_t)L + 1) * sizeof *sf);
    /* sequence numbers: the sender emits its tokens in the order (phase of m1, index) */
    tok_key_t *awaited = malloc(((size_t)nw + 1) * sizeof *awaited);
    int *seqof = NULL, na = 0;
    if (!g->wsrc || !g->wseq || !g->sdst || !wf || !sf || !awaited ||
        !(seqof = malloc(((size_t)ntok + 1) * sizeof *seqof))) {
        free(wf), free(sf), free(awaited), free(seqof);
        return -1;
    }
    for (int k = 0; k < ntok; k++)
        if (tok[k].to == me) awaited[na++] = (tok_key_t){tok[k].from, phase_of(s, tok[k].m1), k};
    qsort(awaited, (size_t)na, sizeof *awaited, tok_cmp);
    for (int i = 0; i < na; i++)
        seqof[awaited[i].k] =
            i > 0 && awaited[i - 1].from == awaited[i].from ? seqof[awaited[i - 1].k] + 1 : 0;
    free(awaited);
    memcpy(wf, g->wstart, (size_t)L * sizeof *wf);
    memcpy(sf, g->sstart, (size_t)L * sizeof *sf);
    /* tokens are sorted by (m2, m1): each list is in message order */
    for (int k = 0; k < ntok; k++) {
        if (tok[k].to == me) {
            int w = wf[phase_of(s, tok[k].m2)]++;
            g->wsrc[w] = tok[k].from;
            g->wseq[w] = seqof[k];
        }
        if (tok[k].from == me) g->sdst[sf[phase_of(s, tok[k].m1)]++] = tok[k].to;
    }
    free(wf), free(sf), free(seqof);
    if (ts.scheme == AC_TS_DUMMY && dummy_program(tc, g, me) != 0) return -1;
    g->me = me;
    g->nphases = L;
    return 0;
}

/* Up to AC_AAPC_TOKEN_MAX_P ranks the program is cut from the communicator's reduced token set
 * (kept with it); above, from the tokens of this rank alone (ac_aapc_tokens_rank, unreduced),
 * which are dropped once the program is built: no rank holds the whole set. */
const ac_topo_prog_t *ac_topo_program(ac_topo_comm_t *tc, ac_ts_t ts, int me) {
    ac_topo_tokset_t *e = entry_of(tc, ts);
    if (!e) return NULL;
    ac_topo_prog_t *g = &e->prog;
    if (g->nphases != -1 && g->me == me) return g->nphases >= 0 ? g : NULL;
    prog_free(g);
    ac_token_t *own = NULL;
    const ac_token_t *tok = NULL;
    int ntok = 0, rc;
    if (no_tokens(ts) || reduced(tc)) {
        rc = ac_topo_tokens(tc, ts, &tok, &ntok);
    } else {
        rc = ac_aapc_tokens_rank(tc->t, &tc->aapc, ts, me, &own, &ntok);
        tok = own;
    }
    if (rc == 0) rc = build_program(tc, ts, tok, ntok, me, g);
    free(own);
    if (rc != 0) { /* remembered: not retried at every call */
        prog_free(g);
        g->me = me;
        g->nphases = -2;
        return NULL;
    }
    return g;
}

const int *ac_topo_ring(ac_topo_comm_t *tc) {
    if (tc->ring_state) return tc->ring_state == 1 ? tc->ring : NULL;
    int n = tc->t->nranks;
    tc->ring = malloc((size_t)n * sizeof *tc->ring);
    tc->ring_state = -1;
    if (!tc->ring) return NULL;
    int len = ac_ring_lr3(tc->t, tc->ring);
    if (len < 0 && ac_ring_lr2(tc->t, tc->ring) == 0) len = ac_ring_maxpath(tc->t, tc->ring, n);
    if (len < 0 && ac_ring_lr1(tc->t, tc->ring) == 0) len = ac_ring_maxpath(tc->t, tc->ring, n);
    if (len < 0) {
        free(tc->ring);
        tc->ring = NULL;
        return NULL;
    }
    tc->ring_len = len;
    tc->ring_state = 1;
    return tc->ring;
}

const int *ac_topo_bintree(ac_topo_comm_t *tc, int root) {
    int n = tc->t->nranks;
    if (root < 0 || root >= n) return NULL;
    if (!tc->bt_child && !(tc->bt_child = calloc((size_t)n, sizeof *tc->bt_child))) return NULL;
    if (tc->bt_child[root]) return tc->bt_child[root];
    int *c = malloc(2 * (size_t)n * sizeof *c), *c1 = malloc((size_t)n * sizeof *c1),
        *c2 = malloc((size_t)n * sizeof *c2);
    if (c && c1 && c2 && ac_bcast_bintree(tc->t, root, c1, c2) >= 0) {
        for (int r = 0; r < n; r++)
            c[2 * r] = c1[r], c[2 * r + 1] = c2[r];
        tc->bt_child[root] = c;
        c = NULL;
    }
    free(c), free(c1), free(c2);
    return tc->bt_child[root];
}

AC_EXPORT int autocoll_topology_applies(MPI_Comm comm) {
    ac_ctx_t *ctx;
    if (comm == MPI_COMM_NULL || !ac_g.initialized || ac_g.finalized) return 0;
    if (ac_ctx_get(comm, &ctx) != MPI_SUCCESS) return 0; /* collective on first use */
    return ac_topo_of(ctx) != NULL;
}
