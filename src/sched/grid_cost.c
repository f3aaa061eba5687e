/*
 * Cost model of network-aware broadcast trees (seed 002, Gupta & Vadhiyar, §2.2; spec
 * adaptive-bcast-grid.md sections 5.1-5.3 and 8.1), plus the PRNG and tree helpers shared by
 * the searches.
 *
 * Model: store-and-forward, a parent sends to its children one after the other. For parent v
 * with children c_1..c_k in send order, C_j = sum_{i<=j} (o[v] + m / B[v][c_i]) and the child
 * has the message at R(c_j) = R(v) + C_j + L[v][c_j]. The order is not free: children are
 * sorted by decreasing tail q(c) = L[v][c] + D(c) (ties: lower ID first), where D(v), the time
 * from R(v) until v's subtree is done, is computed bottom-up as max_j (C_j + q(c_j)). This is
 * Jackson's rule, optimal for one sender, so cost(T) = D(root) depends on the shape only.
 * Complexity: O(n log n) per evaluation (one BFS, a merge sort of each child list, one
 * top-down pass); the evaluator keeps its workspace, so an evaluation allocates nothing.
 *
 * PRNG: splitmix64 (one 64-bit word of state), so a seed gives the same trees on every
 * platform; uniform integers by rejection, doubles from the top 53 bits.
 */
#include "grid_tree.h"
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ PRNG */

void ac_grid_rng_seed(ac_grid_rng_t *r, uint64_t seed) {
    r->s = seed;
}

uint64_t ac_grid_rng_next(ac_grid_rng_t *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double ac_grid_rng_unif(ac_grid_rng_t *r) {
    return (double)(ac_grid_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

int ac_grid_rng_below(ac_grid_rng_t *r, int k) {
    if (k <= 1) return 0;
    uint64_t lim = UINT64_MAX - UINT64_MAX % (uint64_t)k; /* reject the biased tail */
    uint64_t x;
    do {
        x = ac_grid_rng_next(r);
    } while (x >= lim);
    return (int)(x % (uint64_t)k);
}

/* ------------------------------------------------------------------ trees */

int ac_grid_tree_alloc(ac_grid_tree_t *t, int n) {
    memset(t, 0, sizeof *t);
    if (n < 1) return -1;
    t->n = n;
    t->root = -1;
    t->parent = malloc((size_t)n * sizeof(int));
    t->first = calloc((size_t)n + 1, sizeof(int));
    t->child = malloc((size_t)(n > 1 ? n - 1 : 1) * sizeof(int));
    if (!t->parent || !t->first || !t->child) {
        ac_grid_tree_free(t);
        return -1;
    }
    return 0;
}

void ac_grid_tree_free(ac_grid_tree_t *t) {
    free(t->parent);
    free(t->first);
    free(t->child);
    memset(t, 0, sizeof *t);
}

static int ferr(char *err, size_t len, const char *fmt, ...) {
    if (err && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int ac_grid_check_parent(int n, const int *parent, char *err, size_t errlen) {
    if (n < 1) return ferr(err, errlen, "empty tree");
    int root = -1;
    for (int v = 0; v < n; v++) {
        if (parent[v] == -1) {
            if (root >= 0) return ferr(err, errlen, "two roots (%d and %d)", root, v);
            root = v;
        } else if (parent[v] < 0 || parent[v] >= n || parent[v] == v) {
            return ferr(err, errlen, "node %d has invalid parent %d", v, parent[v]);
        }
    }
    if (root < 0) return ferr(err, errlen, "no root (a cycle)");
    /* Walk up from each node with a step bound: a walk longer than n steps is a cycle. The
     * colouring (0 unknown, 1 on the current walk, 2 reaches the root) keeps it O(n). */
    char *col = calloc((size_t)n, 1);
    if (!col) return ferr(err, errlen, "out of memory");
    col[root] = 2;
    int rc = root;
    for (int v = 0; v < n && rc >= 0; v++) {
        int u = v;
        while (col[u] == 0) {
            col[u] = 1;
            u = parent[u];
        }
        if (col[u] == 1) rc = ferr(err, errlen, "cycle through node %d (not reached from root)", u);
        for (u = v; col[u] == 1; u = parent[u])
            col[u] = 2;
    }
    free(col);
    return rc;
}

/* ------------------------------------------------------------------ evaluator */

struct ac_grid_eval {
    int n;
    int crit;
    int *first, *child, *fill, *bfs, *tmp;
    double *D, *R, *q;
};

ac_grid_eval_t *ac_grid_eval_new(int n) {
    if (n < 1) return NULL;
    ac_grid_eval_t *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->n = n;
    size_t z = (size_t)n;
    e->first = malloc((z + 1) * sizeof(int));
    e->child = malloc(z * sizeof(int));
    e->fill = malloc(z * sizeof(int));
    e->bfs = malloc(z * sizeof(int));
    e->tmp = malloc(z * sizeof(int));
    e->D = malloc(z * sizeof(double));
    e->R = malloc(z * sizeof(double));
    e->q = malloc(z * sizeof(double));
    if (!e->first || !e->child || !e->fill || !e->bfs || !e->tmp || !e->D || !e->R || !e->q) {
        ac_grid_eval_free(e);
        return NULL;
    }
    return e;
}

void ac_grid_eval_free(ac_grid_eval_t *e) {
    if (!e) return;
    free(e->first);
    free(e->child);
    free(e->fill);
    free(e->bfs);
    free(e->tmp);
    free(e->D);
    free(e->R);
    free(e->q);
    free(e);
}

/* a before b in send order: larger tail first, then lower ID. */
static int before(const double *q, int a, int b) {
    return q[a] > q[b] || (q[a] == q[b] && a < b);
}

/* Stable merge sort of x[0..k-1] by before(); tmp has k slots. */
static void sort_children(int *x, int k, int *tmp, const double *q) {
    if (k < 2) return;
    if (k <= 8) { /* insertion sort for the common short lists */
        for (int i = 1; i < k; i++) {
            int c = x[i], j = i - 1;
            while (j >= 0 && before(q, c, x[j])) {
                x[j + 1] = x[j];
                j--;
            }
            x[j + 1] = c;
        }
        return;
    }
    int h = k / 2;
    sort_children(x, h, tmp, q);
    sort_children(x + h, k - h, tmp, q);
    int i = 0, j = h, o = 0;
    while (i < h && j < k)
        tmp[o++] = before(q, x[j], x[i]) ? x[j++] : x[i++];
    while (i < h)
        tmp[o++] = x[i++];
    while (j < k)
        tmp[o++] = x[j++];
    memcpy(x, tmp, (size_t)k * sizeof(int));
}

double ac_grid_cost(ac_grid_eval_t *e, const ac_grid_model_t *M, const int *parent) {
    int n = M->n, root = -1;
    /* Child lists by counting (children in ascending ID before sorting). */
    memset(e->first, 0, ((size_t)n + 1) * sizeof(int));
    for (int v = 0; v < n; v++) {
        if (parent[v] < 0)
            root = v;
        else
            e->first[parent[v] + 1]++;
    }
    for (int v = 0; v < n; v++)
        e->first[v + 1] += e->first[v];
    memcpy(e->fill, e->first, (size_t)n * sizeof(int));
    for (int v = 0; v < n; v++)
        if (parent[v] >= 0) e->child[e->fill[parent[v]]++] = v;
    /* BFS order from the root: parents before children. */
    int nb = 0;
    e->bfs[nb++] = root;
    for (int i = 0; i < nb; i++) {
        int v = e->bfs[i];
        for (int j = e->first[v]; j < e->first[v + 1]; j++)
            e->bfs[nb++] = e->child[j];
    }
    /* Bottom-up: D(v) from the sorted tails of the children. */
    for (int i = nb - 1; i >= 0; i--) {
        int v = e->bfs[i];
        int a = e->first[v], k = e->first[v + 1] - a;
        for (int j = a; j < a + k; j++) {
            int c = e->child[j];
            e->q[c] = M->L[(size_t)v * n + c] + e->D[c];
        }
        sort_children(e->child + a, k, e->tmp, e->q);
        double C = 0, D = 0;
        for (int j = a; j < a + k; j++) {
            int c = e->child[j];
            C += M->o[v] + M->m / M->B[(size_t)v * n + c];
            if (C + e->q[c] > D) D = C + e->q[c];
        }
        e->D[v] = D;
    }
    /* Top-down: R(v); the critical leaf has the largest R (ties lowest ID). */
    e->R[root] = 0;
    int crit = -1;
    for (int i = 0; i < nb; i++) {
        int v = e->bfs[i];
        int a = e->first[v], b = e->first[v + 1];
        double C = 0;
        for (int j = a; j < b; j++) {
            int c = e->child[j];
            C += M->o[v] + M->m / M->B[(size_t)v * n + c];
            e->R[c] = e->R[v] + C + M->L[(size_t)v * n + c];
        }
        if (a == b && (crit < 0 || e->R[v] > e->R[crit] || (e->R[v] == e->R[crit] && v < crit)))
            crit = v;
    }
    e->crit = crit;
    return e->D[root];
}

const double *ac_grid_eval_R(const ac_grid_eval_t *e) {
    return e->R;
}
const double *ac_grid_eval_D(const ac_grid_eval_t *e) {
    return e->D;
}
int ac_grid_eval_critical_leaf(const ac_grid_eval_t *e) {
    return e->crit;
}

void ac_grid_eval_tree(const ac_grid_eval_t *e, const int *parent, ac_grid_tree_t *t) {
    int n = e->n;
    t->root = -1;
    for (int v = 0; v < n; v++) {
        t->parent[v] = parent[v];
        if (parent[v] < 0) t->root = v;
    }
    memcpy(t->first, e->first, ((size_t)n + 1) * sizeof(int));
    if (n > 1) memcpy(t->child, e->child, (size_t)(n - 1) * sizeof(int));
}

/* Random recursive tree: the other nodes in random order, each under a uniformly chosen node
 * already placed. O(n). */
void ac_grid_random_tree(ac_grid_rng_t *r, int n, int root, int *parent) {
    int *perm = malloc((size_t)n * sizeof(int));
    if (!perm) { /* cannot shuffle: a star is still a valid tree */
        for (int v = 0; v < n; v++)
            parent[v] = v == root ? -1 : root;
        return;
    }
    int k = 0;
    perm[k++] = root;
    for (int v = 0; v < n; v++)
        if (v != root) perm[k++] = v;
    for (int i = n - 1; i > 1; i--) { /* Fisher-Yates over perm[1..n-1] */
        int j = 1 + ac_grid_rng_below(r, i);
        int x = perm[i];
        perm[i] = perm[j];
        perm[j] = x;
    }
    parent[root] = -1;
    for (int i = 1; i < n; i++)
        parent[perm[i]] = perm[ac_grid_rng_below(r, i)];
    free(perm);
}
