/*
 * Contention-free AAPC schedule and synchronisation tokens on a switch tree.
 *
 * Source: seed 000 (Faraj 2006) §3.2.2 and §3.2.3; spec star-stage-ethernet.md sections 3.2,
 * 3.3, Appendix A.
 *
 * Schedule. Root: the first switch all of whose branches hold <= |M|/2 ranks (spec 3.2 note:
 * equivalent to the bottleneck walk of §3.2.2.1; the link to its largest branch is a bottleneck).
 * Subtrees t_0..t_{k-1} sorted by size, ties by smallest rank; machines of a subtree in
 * increasing rank. Groups t_i -> t_j occupy the windows W(i,j) of the extended ring schedule and
 * are filled by the six steps of Figure 3.5 exactly as spec 3.2 lists them (rotate pattern for
 * t_0 -> t_j, receivers aligned to rho_j(p) = (p - L) mod |M_j|, Table 3.3 mapping for
 * t_i -> t_0, local messages of t_0 in phases [0, |M_0|(|M_0|-1)), local messages of t_i inside
 * W(i,i-1), broadcast pattern elsewhere).
 * Cost: O(|M|^2) time and memory (one entry per message) plus O(|M| depth) for the subtrees;
 * L = |M_0|(|M| - |M_0|) <= |M|^2/4 phases.
 *
 * Tokens. Messages are numbered in phase order, so every DAG edge goes from a smaller to a
 * larger index. The users of one directed link form a chain in phase order (one per phase, the
 * phases being contention free); all contention edges are pairs of one chain. Before the
 * reduction the edges are filtered by blocks (spec 3.3: intra-block edges are deleted first for
 * the partial schemes; only intra-block edges are kept when barriers separate the blocks). The
 * filtered DAG has the same transitive closure as the candidate set: consecutive chain members
 * (all edges or intra-block), or all pairs of two consecutive non-empty blocks of a chain
 * (inter-block). The exact transitive reduction then keeps an edge x -> y iff y is not yet
 * reachable from x through x's earlier successors (successors in increasing index, reachability
 * sets as bitsets built from the last message backwards). Edges whose ordering the waiting rank
 * already knows by program order ("free": sender-based src(m1) = src(m2) or dst(m1) = src(m2);
 * receiver-based dst(m1) = src(m2)) take part in the reduction but emit no token.
 */
#include "aapc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ root, load */
int ac_aapc_root(const ac_topo_t *t) {
    int P = t->nranks;
    if (P < 2) return -1;
    for (int v = P; v < t->nv; v++) {
        int big = P - t->nleaves[v];
        for (int c = t->cstart[v]; c < t->cstart[v + 1]; c++)
            if (t->nleaves[t->child[c]] > big) big = t->nleaves[t->child[c]];
        if (2 * big <= P) return v;
    }
    return -1; /* unreachable: such a switch always exists */
}

int64_t ac_aapc_load(const ac_topo_t *t) {
    int64_t best = 0, P = t->nranks;
    for (int v = 0; v < t->nv; v++)
        if (t->parent[v] >= 0) {
            int64_t x = t->nleaves[v], l = x * (P - x);
            if (l > best) best = l;
        }
    return best;
}

int64_t ac_aapc_group_start(const int *m, int k, int i, int j) {
    int64_t sum = 0, tot = 0;
    for (int l = 0; l < k; l++)
        tot += m[l];
    int64_t L = (int64_t)m[0] * (tot - m[0]);
    if (j > i) {
        for (int l = i + 1; l < j; l++)
            sum += m[l];
        return (int64_t)m[i] * sum;
    }
    for (int l = j + 1; l <= i; l++)
        sum += m[l];
    return L - (int64_t)m[j] * sum;
}

static int64_t gcd64(int64_t a, int64_t b) {
    while (b) {
        int64_t r = a % b;
        a = b, b = r;
    }
    return a;
}

void ac_aapc_rotate(int mi, int mj, int64_t q, int *snd, int *rcv) {
    int64_t lcm = (int64_t)mi / gcd64(mi, mj) * mj;
    int64_t r = q / lcm;
    *snd = (int)((q + r) % mi);
    *rcv = (int)(q % mj);
}

void ac_aapc_free(ac_aapc_t *s) {
    free(s->sub_start), free(s->sub_rank), free(s->pstart), free(s->msg);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------------ schedule */
typedef struct {
    int src, dst;
    int64_t phase;
} raw_t;

int ac_aapc_build(const ac_topo_t *t, ac_aapc_t *s) {
    int P = t->nranks, rc = -1;
    memset(s, 0, sizeof *s);
    s->nranks = P;
    if (P > 32768) return -1;
    int64_t N = (int64_t)P * (P - 1);
    int *branch = NULL, *order = NULL, *m = NULL, *bid = NULL, *snd0 = NULL, *rcv0 = NULL;
    raw_t *raw = NULL;
    unsigned char *placed = NULL;
    s->pstart = calloc(1, sizeof *s->pstart);
    if (!s->pstart) goto out;
    if (P < 2) return 0;
    int root = s->root = ac_aapc_root(t);
    /* Branch of every rank: the root's child on its path, or the parent side (-1). */
    branch = malloc((size_t)P * sizeof *branch);
    bid = malloc((size_t)t->nv * sizeof *bid);
    if (!branch || !bid) goto out;
    for (int v = 0; v < t->nv; v++)
        bid[v] = -2;
    int nb = 0;
    for (int c = t->cstart[root]; c < t->cstart[root + 1]; c++)
        bid[t->child[c]] = nb++;
    int up = t->parent[root] >= 0 ? nb++ : -1;
    for (int r = 0; r < P; r++) {
        int x = r;
        while (x != root && bid[x] == -2 && t->parent[x] >= 0)
            x = t->parent[x];
        branch[r] = (x != root && bid[x] != -2) ? bid[x] : up;
    }
    /* Sizes and smallest rank per branch (ranks are visited increasingly). */
    m = calloc((size_t)nb, sizeof *m);
    int *minr = malloc((size_t)nb * sizeof *minr);
    order = malloc((size_t)nb * sizeof *order);
    if (!m || !minr || !order) {
        free(minr);
        goto out;
    }
    for (int b = 0; b < nb; b++)
        minr[b] = -1, order[b] = b;
    for (int r = 0; r < P; r++) {
        if (minr[branch[r]] < 0) minr[branch[r]] = r;
        m[branch[r]]++;
    }
    /* drop empty branches (cannot happen after pruning), sort by size desc, smallest rank */
    int k = 0;
    for (int b = 0; b < nb; b++)
        if (m[b]) order[k++] = b;
    for (int a = 1; a < k; a++)
        for (int b = a; b > 0; b--) {
            int x = order[b - 1], y = order[b];
            if (m[x] > m[y] || (m[x] == m[y] && minr[x] < minr[y])) break;
            order[b - 1] = y, order[b] = x;
        }
    s->k = k;
    s->sub_start = malloc(((size_t)k + 1) * sizeof *s->sub_start);
    s->sub_rank = malloc((size_t)P * sizeof *s->sub_rank);
    int *pos_of = malloc((size_t)nb * sizeof *pos_of);
    if (!s->sub_start || !s->sub_rank || !pos_of) {
        free(minr), free(pos_of);
        goto out;
    }
    s->sub_start[0] = 0;
    for (int i = 0; i < k; i++)
        s->sub_start[i + 1] = s->sub_start[i] + m[order[i]];
    for (int i = 0; i < k; i++)
        pos_of[order[i]] = s->sub_start[i];
    for (int r = 0; r < P; r++)
        s->sub_rank[pos_of[branch[r]]++] = r;
    free(minr), free(pos_of);
    int *Ms = malloc((size_t)k * sizeof *Ms);
    if (!Ms) goto out;
    for (int i = 0; i < k; i++)
        Ms[i] = m[order[i]];
    memcpy(m, Ms, (size_t)k * sizeof *m);
    free(Ms);
#define MM(i, j) s->sub_rank[s->sub_start[i] + (j)]

    int64_t L = (int64_t)m[0] * (P - m[0]);
    s->nphases = (int)L;
    raw = malloc((size_t)N * sizeof *raw);
    snd0 = malloc((size_t)L * sizeof *snd0);
    rcv0 = malloc((size_t)L * sizeof *rcv0);
    int maxm = m[0];
    placed = calloc((size_t)maxm * maxm, 1);
    if (!raw || !snd0 || !rcv0 || !placed) goto out;
    int64_t n = 0;
#define RHO(j, p) ((int)((((p)-L) % m[j] + m[j]) % m[j]))
#define PUT(a, b, ph) (raw[n].src = (a), raw[n].dst = (b), raw[n].phase = (ph), n++)
    /* Step 1: t_0 -> t_j by rotate pattern, receivers aligned to rho_j. */
    for (int j = 1; j < k; j++) {
        int64_t st = ac_aapc_group_start(m, k, 0, j);
        for (int64_t q = 0; q < (int64_t)m[0] * m[j]; q++) {
            int a, b;
            ac_aapc_rotate(m[0], m[j], q, &a, &b);
            int64_t p = st + q;
            snd0[p] = a;
            PUT(MM(0, a), MM(j, RHO(j, p)), p);
        }
    }
    /* Step 2: t_i -> t_0, receiver from Table 3.3, sender by broadcast pattern. */
    for (int i = 1; i < k; i++) {
        int64_t st = ac_aapc_group_start(m, k, i, 0);
        for (int64_t q = 0; q < (int64_t)m[i] * m[0]; q++) {
            int64_t p = st + q;
            int rho = (int)((p / m[0]) % m[0]);
            int b = (snd0[p] + rho + 1) % m[0];
            rcv0[p] = b;
            PUT(MM(i, q / m[0]), MM(0, b), p);
        }
    }
    /* Step 3: local messages of t_0 (Appendix A: last phase |M_0|(|M_0|-1) - 1). */
    for (int64_t p = 0; p < (int64_t)m[0] * (m[0] - 1); p++)
        PUT(MM(0, rcv0[p]), MM(0, snd0[p]), p);
    /* Step 4: t_i -> t_j, i > j >= 1, broadcast pattern (receiver = rho_j(p)). */
    for (int i = 2; i < k; i++)
        for (int j = 1; j < i; j++) {
            int64_t st = ac_aapc_group_start(m, k, i, j);
            for (int64_t q = 0; q < (int64_t)m[i] * m[j]; q++)
                PUT(MM(i, q / m[j]), MM(j, q % m[j]), st + q);
        }
    /* Step 5: local messages of t_i, i >= 1, inside W(i, i-1). */
    for (int i = 1; i < k; i++) {
        if (m[i] < 2) continue;
        memset(placed, 0, (size_t)m[i] * m[i]);
        int64_t st = ac_aapc_group_start(m, k, i, i - 1), got = 0;
        for (int64_t q = 0; q < (int64_t)m[i] * m[i - 1]; q++) {
            int64_t p = st + q;
            int a = (int)(q / m[i - 1]), b = RHO(i, p);
            if (b == a || placed[b * m[i] + a]) continue;
            placed[b * m[i] + a] = 1;
            got++;
            PUT(MM(i, b), MM(i, a), p);
        }
        if (got != (int64_t)m[i] * (m[i] - 1)) goto out; /* Lemma 5/6 violated: cannot happen */
    }
    /* Step 6: t_i -> t_j, 1 <= i < j, broadcast pattern. */
    for (int i = 1; i < k; i++)
        for (int j = i + 1; j < k; j++) {
            int64_t st = ac_aapc_group_start(m, k, i, j);
            for (int64_t q = 0; q < (int64_t)m[i] * m[j]; q++)
                PUT(MM(i, q / m[j]), MM(j, q % m[j]), st + q);
        }
#undef PUT
#undef RHO
#undef MM
    if (n != N) goto out;
    /* Stable counting sort by phase. */
    free(s->pstart);
    s->pstart = calloc((size_t)L + 2, sizeof *s->pstart);
    s->msg = malloc((size_t)N * sizeof *s->msg);
    if (!s->pstart || !s->msg) goto out;
    for (int64_t x = 0; x < N; x++)
        s->pstart[raw[x].phase + 1]++;
    for (int64_t p = 0; p < L; p++)
        s->pstart[p + 1] += s->pstart[p];
    {
        int *fill = malloc(((size_t)L + 1) * sizeof *fill);
        if (!fill) goto out;
        memcpy(fill, s->pstart, ((size_t)L + 1) * sizeof *fill);
        for (int64_t x = 0; x < N; x++)
            s->msg[fill[raw[x].phase]++] = (ac_pair_t){raw[x].src, raw[x].dst};
        free(fill);
    }
    rc = 0;
out:
    free(branch), free(order), free(m), free(bid), free(snd0), free(rcv0), free(raw), free(placed);
    if (rc) ac_aapc_free(s);
    return rc;
}

/* ------------------------------------------------------------------ schemes */
static const struct {
    const char *name;
    int has_bs;
} TS_NAMES[AC_TS_NSCHEMES] = {
    [AC_TS_NOSYNC] = {"ts_nosync", 0},         [AC_TS_DUMMY] = {"ts_dummy", 0},
    [AC_TS_SENDER] = {"ts_sender", 0},         [AC_TS_SENDER_PART] = {"ts_sender_part", 1},
    [AC_TS_RECEIVER] = {"ts_receiver", 0},     [AC_TS_RECEIVER_PART] = {"ts_receiver_part", 1},
    [AC_TS_BARRIER] = {"ts_barrier", 0},       [AC_TS_BAR_NONE] = {"ts_bar_none", 1},
    [AC_TS_BAR_SENDER] = {"ts_bar_sender", 1}, [AC_TS_BAR_RECEIVER] = {"ts_bar_receiver", 1},
};

int ac_ts_parse(const char *name, ac_ts_t *out) {
    if (!name) return -1;
    const char *colon = strchr(name, ':');
    size_t len = colon ? (size_t)(colon - name) : strlen(name);
    for (int i = 0; i < AC_TS_NSCHEMES; i++) {
        if (strlen(TS_NAMES[i].name) != len || strncmp(TS_NAMES[i].name, name, len)) continue;
        int bs = 0;
        if (TS_NAMES[i].has_bs) {
            if (!colon) return -1;
            if (!strcmp(colon, ":bs=2"))
                bs = 2;
            else if (!strcmp(colon, ":bs=4"))
                bs = 4;
            else if (!strcmp(colon, ":bs=8"))
                bs = 8;
            else if (!strcmp(colon, ":bs=16"))
                bs = 16;
            else
                return -1;
        } else if (colon)
            return -1;
        out->scheme = (ac_ts_scheme_t)i;
        out->bs = bs;
        return 0;
    }
    return -1;
}

int ac_ts_name(ac_ts_t ts, char *buf, size_t n) {
    if (ts.scheme < 0 || ts.scheme >= AC_TS_NSCHEMES) return snprintf(buf, n, "?");
    if (TS_NAMES[ts.scheme].has_bs)
        return snprintf(buf, n, "%s:bs=%d", TS_NAMES[ts.scheme].name, ts.bs);
    return snprintf(buf, n, "%s", TS_NAMES[ts.scheme].name);
}

int ac_ts_token_kind(ac_ts_t ts) {
    switch (ts.scheme) {
    case AC_TS_SENDER:
    case AC_TS_SENDER_PART:
    case AC_TS_BAR_SENDER:
        return 1;
    case AC_TS_RECEIVER:
    case AC_TS_RECEIVER_PART:
    case AC_TS_BAR_RECEIVER:
        return 2;
    default:
        return 0;
    }
}

int ac_ts_barrier_after(ac_ts_t ts, int p, int nphases) {
    if (p < 0 || p >= nphases - 1) return 0;
    if (ts.scheme == AC_TS_BARRIER) return 1;
    if (ts.scheme == AC_TS_BAR_NONE || ts.scheme == AC_TS_BAR_SENDER ||
        ts.scheme == AC_TS_BAR_RECEIVER)
        return ts.bs > 0 && (p + 1) % ts.bs == 0;
    return 0;
}

/* ------------------------------------------------------------------ tokens */
typedef struct {
    int a, b;
} edge_t;

static int cmp_edge(const void *x, const void *y) {
    const edge_t *e = x, *f = y;
    if (e->a != f->a) return e->a < f->a ? -1 : 1;
    return (e->b > f->b) - (e->b < f->b);
}

static int cmp_token(const void *x, const void *y) {
    const ac_token_t *e = x, *f = y;
    if (e->m2 != f->m2) return e->m2 < f->m2 ? -1 : 1;
    return (e->m1 > f->m1) - (e->m1 < f->m1);
}

int ac_aapc_tokens(const ac_topo_t *t, const ac_aapc_t *s, ac_ts_t ts, ac_token_t **tok,
                   int *ntok) {
    return ac_aapc_tokens_opt(t, s, ts, s->nranks <= AC_AAPC_TOKEN_MAX_P, tok, ntok);
}

/* Keeps, of the group [g0, g1) of a link's chain, one message per token sender: the latest
 * (kind 1: per source, kind 2: per destination; its completion implies the earlier ones', the
 * executor finishing each phase before the next); of [g1, g2) one per waiter (its source): the
 * earliest (the waiter's later sends follow it). Writes the kept messages to a and b. */
static void group_ends(const ac_aapc_t *s, int kind, const int *chain, int g0, int g1, int g2,
                       int *a, int *na, int *b, int *nb) {
    *na = *nb = 0;
    for (int i = g1 - 1; i >= g0; i--) {
        const ac_pair_t *m = &s->msg[chain[i]];
        int who = kind == 1 ? m->src : m->dst, dup = 0;
        for (int j = 0; j < *na && !dup; j++) {
            const ac_pair_t *o = &s->msg[a[j]];
            dup = (kind == 1 ? o->src : o->dst) == who;
        }
        if (!dup) a[(*na)++] = chain[i];
    }
    for (int i = g1; i < g2; i++) {
        int who = s->msg[chain[i]].src, dup = 0;
        for (int j = 0; j < *nb && !dup; j++)
            dup = s->msg[b[j]].src == who;
        if (!dup) b[(*nb)++] = chain[i];
    }
}

/* The token of candidate edge x -> y (messages) concerns rank me (me < 0: every rank). */
static int concerns(const ac_aapc_t *s, int kind, int me, int x, int y) {
    if (me < 0) return 1;
    const ac_pair_t *m1 = &s->msg[x], *m2 = &s->msg[y];
    return (kind == 1 ? m1->src : m1->dst) == me || m2->src == me;
}

/* ac_aapc_tokens_opt, and with me >= 0 (reduce = 0 only) the tokens that me sends or awaits:
 * the candidate edges of other ranks are dropped as they are found. */
static int derive(const ac_topo_t *t, const ac_aapc_t *s, ac_ts_t ts, int reduce, int me,
                  ac_token_t **tok, int *ntok) {
    *tok = NULL;
    *ntok = 0;
    int kind = ac_ts_token_kind(ts);
    if (!kind) return 0;
    /* Block filter: 0 keep all, 1 inter-block only, 2 intra-block only. */
    int filt = 0, bs = 1;
    if (ts.scheme == AC_TS_SENDER_PART || ts.scheme == AC_TS_RECEIVER_PART) filt = 1, bs = ts.bs;
    if (ts.scheme == AC_TS_BAR_SENDER || ts.scheme == AC_TS_BAR_RECEIVER) filt = 2, bs = ts.bs;
    if (bs < 1) return -1;
    int64_t N = s->pstart[s->nphases];
    if (N == 0) return 0;
    if (reduce && s->nranks > AC_AAPC_TOKEN_MAX_P) return -2; /* N^2/8 bytes > 512 MiB */
    if (reduce && me >= 0) return -1;
    int rc = -1, ne = 2 * t->nv, H = ac_topo_height(t);
    int *ga = NULL, *gb = NULL; /* group ends (partial schemes without the reduction) */
    int *phase = malloc((size_t)N * sizeof *phase),
        *path = malloc((2 * (size_t)H + 2) * sizeof *path);
    int *cstart = calloc((size_t)ne + 1, sizeof *cstart), *chain = NULL, *fill = NULL;
    edge_t *cand = NULL;
    uint64_t *reach = NULL;
    ac_token_t *out = NULL;
    size_t ncand = 0, ccap = 0;
    if (!phase || !path || !cstart) goto done;
    for (int p = 0; p < s->nphases; p++)
        for (int x = s->pstart[p]; x < s->pstart[p + 1]; x++)
            phase[x] = p;
    /* chains: users of every directed link in message (= phase) order */
    for (int64_t x = 0; x < N; x++) {
        int np = ac_topo_path(t, s->msg[x].src, s->msg[x].dst, path);
        for (int e = 0; e < np; e++)
            cstart[path[e] + 1]++;
    }
    for (int e = 0; e < ne; e++)
        cstart[e + 1] += cstart[e];
    chain = malloc(((size_t)cstart[ne] + 1) * sizeof *chain);
    fill = malloc(((size_t)ne + 1) * sizeof *fill);
    if (!chain || !fill) goto done;
    memcpy(fill, cstart, (size_t)ne * sizeof *fill);
    for (int64_t x = 0; x < N; x++) {
        int np = ac_topo_path(t, s->msg[x].src, s->msg[x].dst, path);
        for (int e = 0; e < np; e++)
            chain[fill[path[e]]++] = (int)x;
    }
    /* candidate edges */
#define ADD(x, y)                                                                                  \
    do {                                                                                           \
        if (!concerns(s, kind, me, (x), (y))) break;                                               \
        if (ncand == ccap) {                                                                       \
            size_t nc_ = ccap ? 2 * ccap : 1024;                                                   \
            edge_t *p_ = realloc(cand, nc_ * sizeof *cand);                                        \
            if (!p_) goto done;                                                                    \
            cand = p_, ccap = nc_;                                                                 \
        }                                                                                          \
        cand[ncand++] = (edge_t){(x), (y)};                                                        \
    } while (0)
    for (int e = 0; e < ne; e++) {
        int lo = cstart[e], hi = cstart[e + 1];
        for (int c = lo; c + 1 < hi; c++)
            if (phase[chain[c]] == phase[chain[c + 1]]) goto done; /* phase with contention */
        if (filt == 0) {
            for (int c = lo; c + 1 < hi; c++)
                ADD(chain[c], chain[c + 1]);
        } else if (filt == 2) {
            for (int c = lo; c + 1 < hi; c++)
                if (phase[chain[c]] / bs == phase[chain[c + 1]] / bs) ADD(chain[c], chain[c + 1]);
        } else {
            /* blocks of the chain: [g0, g1) then [g1, g2) ... all pairs of adjacent groups */
            int g0 = lo;
            if (!reduce && !ga) {
                ga = malloc((size_t)(bs + 1) * sizeof *ga);
                gb = malloc((size_t)(bs + 1) * sizeof *gb);
                if (!ga || !gb) goto done;
            }
            while (g0 < hi) {
                int g1 = g0;
                while (g1 < hi && phase[chain[g1]] / bs == phase[chain[g0]] / bs)
                    g1++;
                int g2 = g1;
                while (g2 < hi && phase[chain[g2]] / bs == phase[chain[g1]] / bs)
                    g2++;
                if (reduce) {
                    for (int a = g0; a < g1; a++)
                        for (int b = g1; b < g2; b++)
                            ADD(chain[a], chain[b]);
                } else if (g1 < g2) { /* a group holds at most bs messages, one per phase */
                    int na, nb;
                    group_ends(s, kind, chain, g0, g1, g2, ga, &na, gb, &nb);
                    for (int a = 0; a < na; a++)
                        for (int b = 0; b < nb; b++)
                            ADD(ga[a], gb[b]);
                }
                g0 = g1;
            }
        }
    }
#undef ADD
    if (ncand) qsort(cand, ncand, sizeof *cand, cmp_edge);
    {
        size_t w = 0;
        for (size_t r = 0; r < ncand; r++)
            if (!w || cand[r].a != cand[w - 1].a || cand[r].b != cand[w - 1].b) cand[w++] = cand[r];
        ncand = w;
    }
    int nt = 0;
    if (!reduce) { /* every non-free candidate: O(sum of path lengths) memory */
        if (!(out = malloc((ncand + 1) * sizeof *out))) goto done;
        for (size_t c = 0; c < ncand; c++) {
            const ac_pair_t *m1 = &s->msg[cand[c].a], *m2 = &s->msg[cand[c].b];
            int free_edge =
                kind == 1 ? (m1->src == m2->src || m1->dst == m2->src) : (m1->dst == m2->src);
            if (!free_edge)
                out[nt++] =
                    (ac_token_t){cand[c].a, cand[c].b, kind == 1 ? m1->src : m1->dst, m2->src};
        }
        goto sorted;
    }
    /* transitive reduction from the last message backwards */
    size_t words = ((size_t)N + 63) / 64;
    reach = calloc((size_t)N * words, sizeof *reach);
    out = malloc((ncand + 1) * sizeof *out);
    if (!reach || !out) goto done;
    size_t hi = ncand;
    for (int64_t x = N - 1; x >= 0; x--) {
        size_t lo = hi;
        while (lo > 0 && cand[lo - 1].a == x)
            lo--;
        uint64_t *rx = reach + (size_t)x * words;
        for (size_t c = lo; c < hi; c++) { /* successors in increasing index */
            int y = cand[c].b;
            if (rx[y / 64] >> (y % 64) & 1) continue; /* implied by a longer path */
            const uint64_t *ry = reach + (size_t)y * words;
            for (size_t w = 0; w < words; w++)
                rx[w] |= ry[w];
            rx[y / 64] |= (uint64_t)1 << (y % 64);
            const ac_pair_t *m1 = &s->msg[x], *m2 = &s->msg[y];
            int free_edge =
                kind == 1 ? (m1->src == m2->src || m1->dst == m2->src) : (m1->dst == m2->src);
            if (!free_edge)
                out[nt++] = (ac_token_t){(int)x, y, kind == 1 ? m1->src : m1->dst, m2->src};
        }
        hi = lo;
    }
sorted:
    qsort(out, (size_t)nt, sizeof *out, cmp_token);
    *tok = out;
    *ntok = nt;
    out = NULL;
    rc = 0;
done:
    free(phase), free(path), free(cstart), free(chain), free(fill), free(cand), free(reach);
    free(out), free(ga), free(gb);
    return rc;
}

int ac_aapc_tokens_opt(const ac_topo_t *t, const ac_aapc_t *s, ac_ts_t ts, int reduce,
                       ac_token_t **tok, int *ntok) {
    return derive(t, s, ts, reduce, -1, tok, ntok);
}

int ac_aapc_tokens_rank(const ac_topo_t *t, const ac_aapc_t *s, ac_ts_t ts, int me,
                        ac_token_t **tok, int *ntok) {
    *tok = NULL;
    *ntok = 0;
    if (me < 0 || me >= s->nranks) return -1;
    return derive(t, s, ts, 0, me, tok, ntok);
}

/* ------------------------------------------------------------------ dummy scheme */
int ac_aapc_dummies(const ac_topo_t *t, const ac_aapc_t *s, int **dstart, ac_pair_t **dum) {
    int P = s->nranks, L = s->nphases;
    *dstart = calloc((size_t)L + 1, sizeof **dstart);
    *dum = malloc(((size_t)L * 2 * P + 1) * sizeof **dum);
    char *hs = malloc((size_t)P + 1), *hr = malloc((size_t)P + 1);
    if (!*dstart || !*dum || !hs || !hr) {
        free(*dstart), free(*dum), free(hs), free(hr);
        *dstart = NULL, *dum = NULL;
        return -1;
    }
    int n = 0;
    for (int p = 0; p < L; p++) {
        memset(hs, 0, (size_t)P), memset(hr, 0, (size_t)P);
        for (int x = s->pstart[p]; x < s->pstart[p + 1]; x++)
            hs[s->msg[x].src] = 1, hr[s->msg[x].dst] = 1;
        /* hr counts real receives and paired dummies only: a self dummy never blocks a later
         * pairing (hs[x] = 2 marks a rank left for a self dummy) */
        for (int x = 0; x < P; x++) {
            if (hs[x]) continue;
            int sw = t->parent[x], y = -1;
            for (int c = t->cstart[sw]; c < t->cstart[sw + 1]; c++) {
                int z = t->child[c];
                if (z < P && z != x && !hr[z]) {
                    y = z;
                    break;
                }
            }
            if (y < 0) {
                hs[x] = 2;
                continue;
            }
            (*dum)[n++] = (ac_pair_t){x, y};
            hs[x] = 1, hr[y] = 1;
        }
        for (int x = 0; x < P; x++)
            if (hs[x] == 2 || !hr[x]) (*dum)[n++] = (ac_pair_t){x, x}, hr[x] = 1;
        (*dstart)[p + 1] = n;
    }
    free(hs), free(hr);
    return 0;
}
