/*
 * Fixed broadcast trees for multi-cluster grids and the tree description carried with the data
 * (seed 002, Gupta & Vadhiyar, §2.1, §2.5, §3; spec adaptive-bcast-grid.md sections 11.4, 12).
 *
 * - MPICH-G2-style tree (spec section 12): one message per remote site (root -> lowest rank of
 *   each other site), then one per remote cluster inside a site (site entry -> lowest rank of
 *   each other cluster of the site), then a binomial tree inside every cluster. Built from the
 *   declared site/cluster labels only, so every rank builds the same tree without a message.
 *   Cost in the model of section 5 with sequential sends: the root's sends to the S-1 other
 *   sites, then the C_s-1 other clusters, then lg(k) binomial levels of its cluster of k ranks.
 * - Earliest-arrival tree ("mateescu-approx", spec section 12): greedy on the full node-level
 *   matrices, O(n^3) with the plain scan used here (n <= a few hundred in practice). Like
 *   Mateescu's trees it ignores shared WAN paths and tends to put several edges on one path.
 * - Preorder description (spec section 11.4): (rank, number of children) pairs of a subtree,
 *   each child's subtree a contiguous slice, so a node forwards to child k exactly its slice.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "grid_tree.h"

/* CSR from edges listed in send order (children of one parent keep their relative order). */
static void from_edges(ac_grid_tree_t *t, int root, int ne, const int *ep, const int *ec) {
    int n = t->n;
    t->root = root;
    for (int v = 0; v <= n; v++)
        t->first[v] = 0;
    for (int v = 0; v < n; v++)
        t->parent[v] = -1;
    for (int e = 0; e < ne; e++) {
        t->first[ep[e] + 1]++;
        t->parent[ec[e]] = ep[e];
    }
    for (int v = 0; v < n; v++)
        t->first[v + 1] += t->first[v];
    int *fill = malloc(((size_t)n + 1) * sizeof *fill);
    if (!fill) return;
    memcpy(fill, t->first, ((size_t)n + 1) * sizeof *fill);
    for (int e = 0; e < ne; e++)
        t->child[fill[ep[e]]++] = ec[e];
    free(fill);
}

void ac_grid_g2_tree(int n, int root, const int *site, const int *cluster, ac_grid_tree_t *t) {
    int *ep = malloc((size_t)(n > 1 ? n : 1) * sizeof *ep);
    int *ec = malloc((size_t)(n > 1 ? n : 1) * sizeof *ec);
    int *entry = malloc((size_t)n * sizeof *entry); /* entry node of each cluster / site label */
    int *sentry = malloc((size_t)n * sizeof *sentry);
    int *mem = malloc((size_t)n * sizeof *mem);
    if (!ep || !ec || !entry || !sentry || !mem) goto fn_exit;
    int ne = 0;
    for (int i = 0; i < n; i++)
        entry[i] = sentry[i] = -1;
    /* Entries: the root for its own site and cluster, else the lowest rank. */
    sentry[site[root]] = root;
    entry[cluster[root]] = root;
    for (int r = 0; r < n; r++) {
        if (sentry[site[r]] < 0) sentry[site[r]] = r;
        if (entry[cluster[r]] < 0) entry[cluster[r]] = r;
    }
    /* 1. root -> the entry of every other site, in order of the sites' lowest ranks. */
    for (int r = 0; r < n; r++)
        if (sentry[site[r]] == r && r != root && site[r] != site[root]) {
            ep[ne] = root;
            ec[ne++] = r;
        }
    /* 2. every site entry -> the entry of every other cluster of its site (the cluster holding
     * the site entry is entered by it). Sites in order of their lowest ranks. */
    for (int s0 = 0; s0 < n; s0++) {
        int s = site[s0];
        if (s0 != sentry[s]) continue; /* visit each site once, from its entry */
        for (int r = 0; r < n; r++)
            if (site[r] == s && entry[cluster[r]] == r && cluster[r] != cluster[s0]) {
                ep[ne] = s0;
                ec[ne++] = r;
            }
    }
    /* 3. binomial inside each cluster from its entry: members in rank order, virtual index
     * vi = (i - i_entry) mod k; vi receives from vi minus its lowest set bit and sends to
     * vi + 2^j for every 2^j below that bit (all 2^j < k at vi = 0), largest first. */
    for (int r0 = 0; r0 < n; r0++) {
        if (entry[cluster[r0]] != r0) continue;
        int k = 0, ie = 0;
        for (int r = 0; r < n; r++)
            if (cluster[r] == cluster[r0]) {
                if (r == r0) ie = k;
                mem[k++] = r;
            }
        for (int vi = 0; vi < k; vi++) {
            int low = vi ? (vi & -vi) : 1;
            if (!vi)
                while (low < k)
                    low <<= 1;
            for (int j = low >> 1; j >= 1; j >>= 1)
                if (vi + j < k) {
                    ep[ne] = mem[(vi + ie) % k];
                    ec[ne++] = mem[(vi + j + ie) % k];
                }
        }
    }
    from_edges(t, root, ne, ep, ec);
fn_exit:
    free(ep);
    free(ec);
    free(entry);
    free(sentry);
    free(mem);
}

double ac_grid_greedy_tree(const ac_grid_model_t *M, int root, ac_grid_tree_t *t) {
    int n = M->n, ne = 0;
    double last = 0;
    double *fr = malloc((size_t)n * sizeof *fr);
    char *in = calloc((size_t)n, 1);
    int *ep = malloc((size_t)(n > 1 ? n : 1) * sizeof *ep);
    int *ec = malloc((size_t)(n > 1 ? n : 1) * sizeof *ec);
    if (!fr || !in || !ep || !ec) {
        last = INFINITY;
        goto fn_exit;
    }
    fr[root] = 0;
    in[root] = 1;
    for (int step = 1; step < n; step++) {
        int bu = -1, bv = -1;
        double best = INFINITY;
        for (int u = 0; u < n; u++) {
            if (!in[u]) continue;
            for (int v = 0; v < n; v++) {
                if (in[v]) continue;
                size_t uv = (size_t)u * (size_t)n + (size_t)v;
                double a = fr[u] + M->o[u] + M->L[uv] + M->m / M->B[uv];
                if (a < best) {
                    best = a;
                    bu = u;
                    bv = v;
                }
            }
        }
        if (bu < 0) { /* non-finite inputs: attach the rest under the root */
            for (int v = 0; v < n; v++)
                if (!in[v]) {
                    bu = root;
                    bv = v;
                    best = INFINITY;
                    break;
                }
        }
        size_t uv = (size_t)bu * (size_t)n + (size_t)bv;
        fr[bu] += M->o[bu] + M->m / M->B[uv];
        fr[bv] = best;
        in[bv] = 1;
        if (best > last) last = best;
        ep[ne] = bu;
        ec[ne++] = bv;
    }
    from_edges(t, root, ne, ep, ec);
fn_exit:
    free(fr);
    free(in);
    free(ep);
    free(ec);
    return last;
}

static int encode(const ac_grid_tree_t *t, int v, int32_t *out, int pos) {
    int k = t->first[v + 1] - t->first[v];
    out[2 * pos] = v;
    out[2 * pos + 1] = k;
    pos++;
    for (int j = t->first[v]; j < t->first[v + 1]; j++)
        pos = encode(t, t->child[j], out, pos);
    return pos;
}

int ac_grid_pre_encode(const ac_grid_tree_t *t, int v, int32_t *out) {
    return encode(t, v, out, 0);
}

int ac_grid_pre_split(const int32_t *pre, int npairs, int n, int me, int *crank, int *cfirst,
                      int *clen) {
    if (npairs < 1 || pre[0] != me || pre[1] < 0 || pre[1] >= n) return -1;
    int k = pre[1], pos = 1;
    for (int c = 0; c < k; c++) {
        if (pos >= npairs) return -1;
        int start = pos;
        long need = 1;
        while (need > 0) { /* one pair per node; each opens its own children */
            if (pos >= npairs) return -1;
            int r = pre[2 * pos], nc = pre[2 * pos + 1];
            if (r < 0 || r >= n || r == me || nc < 0 || nc >= n) return -1;
            need += nc - 1;
            pos++;
        }
        crank[c] = pre[2 * start];
        cfirst[c] = start;
        clen[c] = pos - start;
    }
    return pos == npairs ? k : -1;
}
