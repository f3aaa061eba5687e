/*
 * Contention-free logical rings LR1, LR2, LR3 and the Algorithm-4 broadcast chain.
 *
 * Source: seed 000 (Faraj 2006) §3.3.2 and §3.4.2; spec star-stage-ethernet.md sections 3.4, 3.5.
 *
 * LR1: preorder DFS over the switches from the tree root, children in increasing id; each switch
 * contributes its directly attached ranks in increasing order. O(nv).
 * LR2: emitted by one walk: at every switch, machine m_0, then the array of sub-switch 0, m_1,
 * the array of sub-switch 1, ..., then the remaining machines (Algorithm 2 for inner switches and
 * for the root alike). Every hop m_k -> A_k.first and A_k.last -> m_{k+1} crosses two switches.
 * O(nv).
 * LR3: A.opt[i][j] = smallest max path of a contention-free array of A's ranks starting at
 * height i and ending at height j (Lemma 8: each subtree consecutive). The source enumerates the
 * n!/(n-k)! orders of the children of a switch (machines interchangeable); here the same minimum
 * is found by a dynamic program over (set of sub-switches used, number of machines used), whose
 * state is the min-max matrix of the arrays reaching it: appending a child is monotone in that
 * matrix, so keeping only the elementwise minimum per state is exact. Cost per switch
 * O(2^k (n-k+1) (k+1) H^4) instead of O(n^k n H^4). Heights and values are capped by
 * U = LR1's max path (an upper bound of the optimum: every internal hop x + y + 1 <= U), so
 * H = U. The ring is rebuilt top-down by re-running a switch's program with back pointers.
 * Recursion depth is the tree height.
 */
#include "rings.h"

#include <stdlib.h>
#include <string.h>

enum { INF = 1 << 28, LR3_MAXK = 14 };

int ac_ring_maxpath(const ac_topo_t *t, const int *ring, int n) {
    int best = 0;
    if (n < 2) return 0;
    for (int i = 0; i < n; i++) {
        int h = ac_topo_hops(t, ring[i], ring[(i + 1) % n]);
        if (h > best) best = h;
    }
    return best;
}

int ac_ring_contention_free(const ac_topo_t *t, const int *ring, int n) {
    if (n < 2) return 1;
    char *used = calloc(2 * (size_t)t->nv, 1);
    int *path = malloc((2 * (size_t)ac_topo_height(t) + 2) * sizeof *path);
    int ok = used && path;
    for (int i = 0; ok && i < n; i++) {
        int np = ac_topo_path(t, ring[i], ring[(i + 1) % n], path);
        for (int e = 0; e < np; e++) {
            if (used[path[e]]) ok = 0;
            used[path[e]] = 1;
        }
    }
    free(used), free(path);
    return ok;
}

/* Preorder of the switches from `start`, walking the tree as undirected (children in increasing
 * id, then the parent). Writes switch vertices to sw; returns their number. */
static int switch_dfs(const ac_topo_t *t, int start, int *sw, int *stack, char *seen) {
    int n = 0, top = 0;
    stack[top++] = start;
    while (top) {
        int v = stack[--top];
        if (seen[v]) continue;
        seen[v] = 1;
        sw[n++] = v;
        /* push in reverse so the smallest id is visited first; the parent last */
        if (t->parent[v] >= 0 && !seen[t->parent[v]]) stack[top++] = t->parent[v];
        for (int c = t->cstart[v + 1] - 1; c >= t->cstart[v]; c--)
            if (ac_topo_is_switch(t, t->child[c]) && !seen[t->child[c]]) stack[top++] = t->child[c];
    }
    return n;
}

static int chain_from(const ac_topo_t *t, int start, int first, int *ring) {
    int *sw = malloc((size_t)t->nv * sizeof *sw),
        *stack = malloc(2 * (size_t)t->nv * sizeof *stack);
    char *seen = calloc((size_t)t->nv, 1);
    if (!sw || !stack || !seen) {
        free(sw), free(stack), free(seen);
        return -1;
    }
    int ns = switch_dfs(t, start, sw, stack, seen), n = 0;
    if (first >= 0) ring[n++] = first;
    for (int k = 0; k < ns; k++) {
        int v = sw[k];
        for (int c = t->cstart[v]; c < t->cstart[v + 1]; c++)
            if (!ac_topo_is_switch(t, t->child[c]) && t->child[c] != first) ring[n++] = t->child[c];
    }
    free(sw), free(stack), free(seen);
    return 0;
}

int ac_ring_lr1(const ac_topo_t *t, int *ring) {
    return chain_from(t, t->root, -1, ring);
}

int ac_bcast_chain(const ac_topo_t *t, int root, int *order) {
    if (root < 0 || root >= t->nranks) return -1;
    return chain_from(t, t->parent[root], root, order);
}

/* ------------------------------------------------------------------ LR2 */
static int n_rank_children(const ac_topo_t *t, int v) {
    int n = 0;
    for (int c = t->cstart[v]; c < t->cstart[v + 1]; c++)
        n += !ac_topo_is_switch(t, t->child[c]);
    return n;
}

int ac_ring_lr2_possible(const ac_topo_t *t) {
    for (int v = t->nranks; v < t->nv; v++) {
        int j = n_rank_children(t, v);
        int i = (t->cstart[v + 1] - t->cstart[v]) - j + (t->parent[v] >= 0);
        if (j < i) return 0;
    }
    return 1;
}

int ac_ring_lr2(const ac_topo_t *t, int *ring) {
    if (!ac_ring_lr2_possible(t)) return -1;
    /* Children lists hold the ranks first (smaller ids), then the sub-switches; a frame walks
     * machine k then sub-switch k. */
    int *sv = malloc((size_t)t->nv * sizeof *sv), *sk = malloc((size_t)t->nv * sizeof *sk);
    if (!sv || !sk) {
        free(sv), free(sk);
        return -1;
    }
    int top = 0, n = 0;
    sv[top] = t->root, sk[top++] = 0;
    while (top) {
        int v = sv[top - 1], k = sk[top - 1];
        int j = n_rank_children(t, v), nsub = (t->cstart[v + 1] - t->cstart[v]) - j;
        const int *ch = t->child + t->cstart[v];
        /* step 2k: machine k; step 2k+1: sub-switch k (while k < nsub); then the rest */
        if (k >= 2 * j) {
            top--;
            continue;
        }
        sk[top - 1] = k + 1;
        if (k % 2 == 0) {
            ring[n++] = ch[k / 2];
            if (k / 2 >= nsub) { /* no sub-switch left: emit the remaining machines */
                for (int m = k / 2 + 1; m < j; m++)
                    ring[n++] = ch[m];
                top--;
            }
        } else {
            sv[top] = ch[j + k / 2], sk[top++] = 0;
        }
    }
    free(sv), free(sk);
    return n == t->nranks ? 0 : -1;
}

/* ------------------------------------------------------------------ LR3 */
typedef struct {
    const ac_topo_t *t;
    int H;     /* heights 0..H */
    int *opt;  /* [nv][(H+1)^2] */
    int *ring; /* output */
    int nout;
} lr3_t;

#define OPT(c, v) ((c)->opt + (size_t)(v) * (size_t)((c)->H + 1) * ((c)->H + 1))

typedef struct {
    short c, x, y; /* appended child (index in the switch's children, -1 none), heights */
} back_t;

/* Concatenation S' = S . T in the min-max algebra: S'[i][j] = min max(S[i][x], T[y][j], x+y+1). */
static void concat(int H, const int *S, const int *T, int *R, back_t *RB, short c, int U) {
    int W = H + 1;
    for (int e = 0; e < W * W; e++)
        R[e] = INF;
    for (int i = 0; i <= H; i++)
        for (int x = 0; x <= H; x++) {
            int a = S[i * W + x];
            if (a >= INF) continue;
            for (int y = 0; y <= H && x + y + 1 <= U; y++)
                for (int j = 0; j <= H; j++) {
                    int b = T[y * W + j];
                    if (b >= INF) continue;
                    int v = a > b ? a : b;
                    if (x + y + 1 > v) v = x + y + 1;
                    if (v < R[i * W + j]) {
                        R[i * W + j] = v;
                        if (RB) RB[i * W + j] = (back_t){c, (short)x, (short)y};
                    }
                }
        }
}

/* Runs the order program of switch v. With back != NULL keeps every state's matrix and back
 * pointers (for the rebuild). Returns the final state's matrix index in *mat (caller frees), or
 * -1 on no memory, -2 if too many sub-switches. */
static int switch_program(lr3_t *c, int v, int **mats_out, back_t **backs_out, int *nm_out,
                          int *ks_out) {
    const ac_topo_t *t = c->t;
    int H = c->H, W = H + 1, U = H;
    const int *ch = t->child + t->cstart[v];
    int deg = t->cstart[v + 1] - t->cstart[v], nm = n_rank_children(t, v), k = deg - nm;
    if (k > LR3_MAXK) return -2;
    size_t nstate = ((size_t)1 << k) * (size_t)(nm + 1), msz = (size_t)W * W;
    int *mats = malloc(nstate * msz * sizeof *mats), *tmp = malloc(msz * sizeof *tmp);
    back_t *backs = malloc(nstate * msz * sizeof *backs), *tb = malloc(msz * sizeof *tb);
    int *mach = malloc(msz * sizeof *mach);
    if (!mats || !tmp || !backs || !tb || !mach) {
        free(mats), free(tmp), free(backs), free(tb), free(mach);
        return -1;
    }
    for (size_t e = 0; e < nstate * msz; e++)
        mats[e] = INF;
    for (size_t e = 0; e < msz; e++)
        mach[e] = INF;
    mach[0] = 0;
#define ST(mask, cnt) ((size_t)(mask) * (size_t)(nm + 1) + (size_t)(cnt))
    /* first child */
    if (nm) {
        memcpy(mats + ST(0, 1) * msz, mach, msz * sizeof *mach);
        for (size_t e = 0; e < msz; e++)
            backs[ST(0, 1) * msz + e] = (back_t){(short)k, -1, -1};
    }
    for (int s = 0; s < k; s++) {
        memcpy(mats + ST(1u << s, 0) * msz, OPT(c, ch[nm + s]), msz * sizeof *mats);
        for (size_t e = 0; e < msz; e++)
            backs[ST(1u << s, 0) * msz + e] = (back_t){(short)s, -1, -1};
    }
    for (size_t mask = 0; mask < ((size_t)1 << k); mask++)
        for (int cnt = 0; cnt <= nm; cnt++) {
            const int *S = mats + ST(mask, cnt) * msz;
            int any = 0;
            for (size_t e = 0; e < msz && !any; e++)
                any = S[e] < INF;
            if (!any) continue;
            for (int s = 0; s <= k; s++) { /* s == k: append a machine */
                size_t nmask = mask, ncnt = (size_t)cnt;
                const int *T;
                if (s < k) {
                    if (mask >> s & 1) continue;
                    nmask = mask | ((size_t)1 << s);
                    T = OPT(c, ch[nm + s]);
                } else {
                    if (cnt == nm) continue;
                    ncnt++;
                    T = mach;
                }
                concat(H, S, T, tmp, tb, (short)s, U);
                int *D = mats + ST(nmask, ncnt) * msz;
                back_t *DB = backs + ST(nmask, ncnt) * msz;
                for (size_t e = 0; e < msz; e++)
                    if (tmp[e] < D[e]) D[e] = tmp[e], DB[e] = tb[e];
            }
        }
#undef ST
    free(tmp), free(tb), free(mach);
    *mats_out = mats, *backs_out = backs, *nm_out = nm, *ks_out = k;
    return 0;
}

static int lr3_opt(lr3_t *c, int v) {
    int *mats, nm, k;
    back_t *backs;
    int rc = switch_program(c, v, &mats, &backs, &nm, &k);
    if (rc) return rc;
    int W = c->H + 1;
    size_t msz = (size_t)W * W, fin = (((size_t)1 << k) - 1) * (size_t)(nm + 1) + (size_t)nm;
    const int *S = mats + fin * msz;
    int *A = OPT(c, v);
    for (size_t e = 0; e < msz; e++)
        A[e] = INF;
    for (int i = 1; i <= c->H; i++)
        for (int j = 1; j <= c->H; j++)
            A[i * W + j] = S[(i - 1) * W + (j - 1)];
    free(mats), free(backs);
    return 0;
}

/* Emits the ranks of switch v's array starting at height i, ending at j (v's frame). */
static int lr3_build(lr3_t *c, int v, int i, int j) {
    const ac_topo_t *t = c->t;
    if (!ac_topo_is_switch(t, v)) {
        c->ring[c->nout++] = v;
        return 0;
    }
    int *mats, nm, k;
    back_t *backs;
    int rc = switch_program(c, v, &mats, &backs, &nm, &k);
    if (rc) return rc;
    int W = c->H + 1, deg = nm + k;
    const int *ch = t->child + t->cstart[v];
    size_t msz = (size_t)W * W;
    /* walk back from the final state: the sequence comes out reversed */
    int *seq = malloc(((size_t)deg + 1) * sizeof *seq),
        *si = malloc(((size_t)deg + 1) * sizeof *si);
    int *sj = malloc(((size_t)deg + 1) * sizeof *sj);
    if (!seq || !si || !sj) {
        free(mats), free(backs), free(seq), free(si), free(sj);
        return -1;
    }
    size_t mask = ((size_t)1 << k) - 1;
    int cnt = nm, x = i - 1, y = j - 1, n = 0, mi = 0;
    for (;;) {
        size_t st = mask * (size_t)(nm + 1) + (size_t)cnt;
        back_t b = backs[st * msz + (size_t)(x * W + y)];
        int child = b.c < k ? ch[nm + b.c] : ch[mi++];
        if (b.x < 0) { /* first child: its own (x, y) */
            seq[n] = child, si[n] = x, sj[n++] = y;
            break;
        }
        seq[n] = child, si[n] = b.y, sj[n++] = y; /* appended child runs from b.y to y */
        if (b.c < k)
            mask &= ~((size_t)1 << b.c);
        else
            cnt--;
        y = b.x;
    }
    free(mats), free(backs);
    for (int a = n - 1; a >= 0 && !rc; a--)
        rc = lr3_build(c, seq[a], si[a], sj[a]);
    free(seq), free(si), free(sj);
    return rc;
}

int ac_ring_lr3(const ac_topo_t *t, int *ring) {
    int P = t->nranks;
    if (ac_ring_lr1(t, ring)) return -1;
    if (P < 2) return 0;
    int U = ac_ring_maxpath(t, ring, P); /* LR1 is contention free: an upper bound */
    lr3_t c = {t, U, NULL, ring, 0};
    size_t msz = (size_t)(U + 1) * (U + 1);
    c.opt = malloc((size_t)t->nv * msz * sizeof *c.opt);
    int *order = malloc((size_t)t->nv * sizeof *order);
    int rc = -1;
    if (!c.opt || !order) goto out;
    /* children before parents: vertices by decreasing depth */
    int n = 0, H = ac_topo_height(t);
    for (int d = H; d >= 0; d--)
        for (int v = 0; v < t->nv; v++)
            if (t->depth[v] == d) order[n++] = v;
    for (int k = 0; k < n; k++) {
        int v = order[k];
        if (!ac_topo_is_switch(t, v)) {
            int *A = OPT(&c, v);
            for (size_t e = 0; e < msz; e++)
                A[e] = INF;
            A[0] = 0;
        } else if ((rc = lr3_opt(&c, v)) != 0)
            goto out;
    }
    const int *R = OPT(&c, t->root);
    int best = INF, bi = -1, bj = -1;
    for (int i = 1; i <= U; i++)
        for (int j = 1; j <= U; j++) {
            int v = R[i * (U + 1) + j];
            if (i + j - 1 > v) v = i + j - 1;
            if (v < best) best = v, bi = i, bj = j;
        }
    rc = -1;
    if (bi < 0) goto out; /* cannot happen: LR1 is a witness */
    if ((rc = lr3_build(&c, t->root, bi, bj)) != 0) goto out;
    rc = c.nout == P ? best : -1;
out:
    free(c.opt), free(order);
    if (rc < 0) ac_ring_lr1(t, ring);
    return rc;
}

/* ------------------------------------------------------------------ Algorithm 5 */
int ac_bcast_bintree(const ac_topo_t *t, int root, int *child1, int *child2) {
    int P = t->nranks, ne = 2 * t->nv, rc = -1;
    size_t words = ((size_t)ne + 63) / 64;
    if (root < 0 || root >= P) return -1;
    for (int r = 0; r < P; r++)
        child1[r] = child2[r] = -1;
    if (P == 1) return 0;
    if ((double)P * P * (double)words * 8 > 256.0 * 1024 * 1024) return -2;
    int *m = malloc((size_t)P * sizeof *m), *best = malloc((size_t)P * P * sizeof *best);
    int *idx = malloc((size_t)P * P * sizeof *idx),
        *path = malloc(((size_t)2 * ac_topo_height(t) + 2) * sizeof *path);
    uint64_t *E = calloc((size_t)P * P * words, sizeof *E);
    int *st = malloc((4 * (size_t)P + 4) * sizeof *st);
    if (!m || !best || !idx || !path || !E || !st || ac_bcast_chain(t, root, m)) goto out;
#define EDG(i, j) (E + ((size_t)(i)*P + (size_t)(j)) * words)
#define ADDPATH(D, a, b)                                                                           \
    do {                                                                                           \
        int np_ = ac_topo_path(t, m[a], m[b], path);                                               \
        for (int e_ = 0; e_ < np_; e_++)                                                           \
            (D)[path[e_] / 64] |= (uint64_t)1 << (path[e_] % 64);                                  \
    } while (0)
    for (int i = 0; i < P; i++) {
        best[i * P + i] = 0;
        if (i + 1 < P) {
            best[i * P + i + 1] = 1;
            ADDPATH(EDG(i, i + 1), i, i + 1);
        }
        if (i + 2 < P) {
            best[i * P + i + 2] = 1, idx[i * P + i + 2] = i + 2;
            ADDPATH(EDG(i, i + 2), i, i + 1);
            ADDPATH(EDG(i, i + 2), i, i + 2);
        }
    }
    for (int len = 3; len < P; len++)
        for (int i = 0; i + len < P; i++) {
            int j = i + len, b = 1 << 28, bk = -1;
            for (int k = i + 2; k <= j; k++) {
                const uint64_t *L = EDG(i + 1, k - 1);
                int np = ac_topo_path(t, m[i], m[k], path), clash = 0;
                for (int e = 0; e < np && !clash; e++)
                    clash = L[path[e] / 64] >> (path[e] % 64) & 1;
                if (clash) continue;
                int h = best[(i + 1) * P + k - 1] > best[k * P + j] ? best[(i + 1) * P + k - 1]
                                                                    : best[k * P + j];
                if (h + 1 < b) b = h + 1, bk = k;
            }
            if (bk < 0) goto out; /* k = i+2 is always admissible: cannot happen */
            best[i * P + j] = b, idx[i * P + j] = bk;
            uint64_t *D = EDG(i, j);
            const uint64_t *A = EDG(i + 1, bk - 1), *B = EDG(bk, j);
            for (size_t w = 0; w < words; w++)
                D[w] = A[w] | B[w];
            ADDPATH(D, i, i + 1);
            ADDPATH(D, i, bk);
        }
#undef ADDPATH
#undef EDG
    /* rebuild: ranges [i, j] on an explicit stack */
    int top = 0;
    st[top++] = 0, st[top++] = P - 1;
    while (top) {
        int j = st[--top], i = st[--top];
        if (j <= i) continue;
        child1[m[i]] = m[i + 1];
        if (j == i + 1) continue;
        int k = idx[i * P + j];
        child2[m[i]] = m[k];
        st[top++] = i + 1, st[top++] = k - 1;
        st[top++] = k, st[top++] = j;
    }
    rc = best[P - 1];
out:
    free(m), free(best), free(idx), free(path), free(E), free(st);
    return rc;
}
