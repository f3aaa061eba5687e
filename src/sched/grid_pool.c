/*
 * Bandwidth pools and clusteredSA (seed 002, Gupta & Vadhiyar, §2.4, Table 1, Fig. 4; spec
 * adaptive-bcast-grid.md sections 7 and 9).
 *
 * Pools: greedy sequential complete linkage. Nodes are taken in ascending ID; each joins the
 * earliest-created pool whose weakest link to it, min_u Bsym[v][u], is largest among the pools
 * where it reaches the threshold pct% x max Bsym (diagonal included), or starts a new pool.
 * The comparison is made as 100 x link >= pct x max, so that exact table values (20 Mbps at
 * 20%) are not lost to rounding. O(k^2) for k nodes.
 *
 * clusteredSA: a node set of at most pool_max (16) nodes is one driverSA call. Larger sets are
 * split by each pool percentage (duplicate partitions and all-singleton partitions dropped; if
 * some partition has only pools <= pool_max, only those are kept), driverSA builds each pool's
 * tree, clusteredSA recurses over the pool roots, the upper tree is grafted onto the pool
 * trees and the result is evaluated with the full model; the cheapest partition wins. A timed
 * budget is divided evenly over the driverSA calls counted by a dry run of the recursion
 * (pool root = broadcast root if present, else the lowest ID). Pools of one node need no
 * search and are not counted. Sub-problems work on copies of the restricted matrices, node
 * sets kept in ascending ID order so that local index order equals ID order.
 *
 * Declared groups (opts.groups, autocoll's extension, not in the source): at recursion depth d
 * a set that spans two or more groups of level d is split by those groups only, whatever its
 * size. grid_adaptive passes level 0 = declared clusters, level 1 = sites: each cluster's tree
 * is searched, then the cluster roots of each site, then the site roots, so each cluster and
 * each site is entered by one edge (the shape family of the G2 tree, with entries, order and
 * upper tree chosen by SA on the measured matrices). Why: a bandwidth pool of one site holds
 * two clusters joined at LAN speed, SA inside it puts several edges across their uplinks, and
 * trees over all sites put parallel edges on one WAN link; these contend, and the
 * contention-free model sees none of it (measured on grid64: docs/reports/grid.md).
 */
#include "grid_tree.h"
#include "grid_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double bsym(const double *B, int n, int u, int v) {
    double a = B[(size_t)u * n + v], b = B[(size_t)v * n + u];
    return a < b ? a : b;
}

int ac_grid_pools(const double *B, int n, const int *set, int k, int pct, int *pool_of) {
    double mx = 0;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            double x = bsym(B, n, set[i], set[j]);
            if (x > mx) mx = x;
        }
    double *link = malloc((size_t)(k > 0 ? k : 1) * sizeof(double));
    if (!link) return -1;
    int np = 0;
    for (int i = 0; i < k; i++) {
        for (int p = 0; p < np; p++)
            link[p] = INFINITY;
        for (int j = 0; j < i; j++) { /* weakest link of set[i] to each existing pool */
            double x = bsym(B, n, set[i], set[j]);
            if (x < link[pool_of[j]]) link[pool_of[j]] = x;
        }
        int best = -1;
        for (int p = 0; p < np; p++)
            if (100.0 * link[p] >= (double)pct * mx && (best < 0 || link[p] > link[best])) best = p;
        pool_of[i] = best >= 0 ? best : np++;
    }
    free(link);
    return np;
}

/* ------------------------------------------------------------------ partitions of a set */

typedef struct {
    int nps;      /* partitions kept */
    int *pool_of; /* nps x k */
    int np[AC_GRID_MAX_PCTS];
} parts_t;

/* Pool sets of section 9 for set[0..k-1], filtered. Returns -1 on out of memory. */
/* The partition of set[0..k-1] by group (numbered in order of first appearance) into po;
 * 1 when it has two or more groups and fewer than k (else 0: no reduction). */
static int groups_split(const int *grp, const int *set, int k, int *po, int *np_out) {
    int np = 0;
    for (int v = 0; v < k; v++) {
        po[v] = -1;
        for (int u = 0; u < v && po[v] < 0; u++)
            if (grp[set[u]] == grp[set[v]]) po[v] = po[u];
        if (po[v] < 0) po[v] = np++;
    }
    *np_out = np;
    return np > 1 && np < k;
}

/* A set is split by the declared groups of its depth when it spans two or more of them. */
static int grouped(const ac_grid_opts_t *opt, const int *set, int k, int depth) {
    if (depth >= opt->ngroups || k < 2) return 0;
    for (int v = 1; v < k; v++)
        if (opt->groups[depth][set[v]] != opt->groups[depth][set[0]]) return 1;
    return 0;
}

static int partitions(const double *B, int n, const ac_grid_opts_t *opt, const int *set, int k,
                      int depth, parts_t *ps) {
    int npc = opt->npcts < AC_GRID_MAX_PCTS ? opt->npcts : AC_GRID_MAX_PCTS;
    ps->nps = 0;
    ps->pool_of = malloc((size_t)(npc > 0 ? npc : 1) * (size_t)k * sizeof(int));
    int *size = malloc((size_t)k * sizeof(int));
    if (!ps->pool_of || !size) {
        free(ps->pool_of);
        free(size);
        return -1;
    }
    int small[AC_GRID_MAX_PCTS], anysmall = 0;
    if (depth < opt->ngroups && groups_split(opt->groups[depth], set, k, ps->pool_of, ps->np)) {
        ps->nps = 1;
        free(size);
        return 0;
    }
    for (int i = 0; i < npc; i++) {
        int *po = ps->pool_of + (size_t)ps->nps * k;
        int np = ac_grid_pools(B, n, set, k, opt->pcts[i], po);
        if (np < 0 || np == k) continue; /* no reduction: the recursion would not end */
        int dup = 0;
        for (int j = 0; j < ps->nps && !dup; j++)
            dup = !memcmp(ps->pool_of + (size_t)j * k, po, (size_t)k * sizeof(int));
        if (dup) continue;
        memset(size, 0, (size_t)k * sizeof(int));
        int mx = 0;
        for (int v = 0; v < k; v++)
            if (++size[po[v]] > mx) mx = size[po[v]];
        small[ps->nps] = mx <= opt->pool_max;
        anysmall |= small[ps->nps];
        ps->np[ps->nps++] = np;
    }
    if (anysmall) { /* keep only the partitions whose pools all fit */
        int w = 0;
        for (int j = 0; j < ps->nps; j++) {
            if (!small[j]) continue;
            if (w != j)
                memmove(ps->pool_of + (size_t)w * k, ps->pool_of + (size_t)j * k,
                        (size_t)k * sizeof(int));
            ps->np[w++] = ps->np[j];
        }
        ps->nps = w;
    }
    free(size);
    return 0;
}

/* Members of pool p (ascending) into out; returns the count. */
static int members(const int *set, const int *po, int k, int p, int *out) {
    int c = 0;
    for (int i = 0; i < k; i++)
        if (po[i] == p) out[c++] = set[i];
    return c;
}

static int in_set(const int *set, int k, int v) {
    for (int i = 0; i < k; i++)
        if (set[i] == v) return i;
    return -1;
}

/* ------------------------------------------------------------------ dry run */

static long dry(const ac_grid_model_t *M, const ac_grid_opts_t *opt, const int *set, int k,
                int root, int depth) {
    if (k <= opt->pool_max && !grouped(opt, set, k, depth)) return k > 1;
    parts_t ps;
    if (partitions(M->B, M->n, opt, set, k, depth, &ps)) return 1;
    long total = 0;
    if (ps.nps == 0) total = 1;
    int *mem = malloc((size_t)k * sizeof(int)), *R = malloc((size_t)k * sizeof(int));
    for (int j = 0; j < ps.nps && mem && R; j++) {
        const int *po = ps.pool_of + (size_t)j * k;
        for (int p = 0; p < ps.np[j]; p++) {
            int c = members(set, po, k, p, mem);
            total += c > 1;
            R[p] = in_set(mem, c, root) >= 0 ? root : mem[0];
        }
        if (ps.np[j] > 1) {
            /* pool roots in ascending ID order */
            for (int a = 1; a < ps.np[j]; a++)
                for (int b = a; b > 0 && R[b - 1] > R[b]; b--) {
                    int x = R[b];
                    R[b] = R[b - 1];
                    R[b - 1] = x;
                }
            total += dry(M, opt, R, ps.np[j], root, depth + 1);
        }
    }
    free(mem);
    free(R);
    free(ps.pool_of);
    return total;
}

long ac_grid_clustered_calls(const ac_grid_model_t *M, const ac_grid_opts_t *opt, int root) {
    int *set = malloc((size_t)M->n * sizeof(int));
    if (!set) return 1;
    for (int v = 0; v < M->n; v++)
        set[v] = v;
    long c = dry(M, opt, set, M->n, root, 0);
    free(set);
    return c;
}

/* ------------------------------------------------------------------ clusteredSA */

/* Restricted model of set[0..k-1]: o|S, L|S, B|S in one allocation (freed by the caller). */
static double *submodel(const ac_grid_model_t *M, const int *set, int k, ac_grid_model_t *sub) {
    size_t kk = (size_t)k;
    double *buf = malloc((kk + 2 * kk * kk) * sizeof(double));
    if (!buf) return NULL;
    double *o = buf, *L = buf + kk, *B = buf + kk + kk * kk;
    for (int i = 0; i < k; i++) {
        o[i] = M->o[set[i]];
        for (int j = 0; j < k; j++) {
            L[(size_t)i * kk + j] = M->L[(size_t)set[i] * M->n + set[j]];
            B[(size_t)i * kk + j] = M->B[(size_t)set[i] * M->n + set[j]];
        }
    }
    sub->n = k;
    sub->m = M->m;
    sub->o = o;
    sub->L = L;
    sub->B = B;
    return buf;
}

/* driverSA on set[0..k-1] (root: a global ID in the set, or -1). par: k local parents. */
static double driver_on(ac_grid_search_t *s, const int *set, int k, int root, ac_grid_budget_t bud,
                        int *par) {
    if (k == 1) {
        par[0] = -1;
        return 0.0;
    }
    ac_grid_model_t sub;
    double *buf = submodel(&s->M, set, k, &sub);
    ac_grid_search_t *c = buf ? ac_grid_search_new(&sub, &s->opt) : NULL;
    double cost;
    if (!c) { /* out of memory: a star from the first node is still a tree */
        for (int i = 0; i < k; i++)
            par[i] = i == 0 ? -1 : 0;
        free(buf);
        return INFINITY;
    }
    if (s->opt.evals_per_node) { /* node-evaluations: k per evaluation of this sub-problem */
        if (bud.mode == AC_GRID_BUDGET_EVALS) bud.amount = floor(bud.amount / k);
        /* a cap stays a cap (at least 1 evaluation): 0 would mean none, and a stopped clock
         * would then never end the search */
        if (bud.mode == AC_GRID_BUDGET_TIME && bud.cap > 0) bud.cap = fmax(1.0, floor(bud.cap / k));
    }
    c->rng = s->rng; /* one random stream through the whole search */
    cost = ac_grid_driver_sa(c, root >= 0 ? in_set(set, k, root) : -1, bud, par);
    s->rng = c->rng;
    s->st.evals += c->st.evals;
    s->st.basic_runs += c->st.basic_runs;
    s->st.driver_calls += c->st.driver_calls;
    if (c->st.max_moves > s->st.max_moves) s->st.max_moves = c->st.max_moves;
    s->st.root_moved |= c->st.root_moved;
    ac_grid_search_free(c);
    free(buf);
    return cost;
}

/* Cost of a tree over set (local parents) with the restricted model; counted. */
static double cost_on(ac_grid_search_t *s, const int *set, int k, const int *par) {
    ac_grid_model_t sub;
    double *buf = submodel(&s->M, set, k, &sub);
    ac_grid_eval_t *e = buf ? ac_grid_eval_new(k) : NULL;
    double c = e ? ac_grid_cost(e, &sub, par) : INFINITY;
    s->st.evals++;
    ac_grid_eval_free(e);
    free(buf);
    return c;
}

static double csa(ac_grid_search_t *s, const int *set, int k, int root, ac_grid_budget_t bud,
                  int *par, int depth) {
    if (k <= s->opt.pool_max && !grouped(&s->opt, set, k, depth))
        return driver_on(s, set, k, root, bud, par);
    parts_t ps;
    if (partitions(s->M.B, s->M.n, &s->opt, set, k, depth, &ps))
        return driver_on(s, set, k, root, bud, par);
    if (ps.nps == 0) {
        free(ps.pool_of);
        return driver_on(s, set, k, root, bud, par);
    }
    double best = INFINITY;
    size_t z = (size_t)k;
    int *mem = malloc(z * sizeof(int)), *lp = malloc(z * sizeof(int)), *R = malloc(z * sizeof(int)),
        *up = malloc(z * sizeof(int)), *cand = malloc(z * sizeof(int)),
        *proot = malloc(z * sizeof(int));
    if (!mem || !lp || !R || !up || !cand || !proot) {
        best = driver_on(s, set, k, root, bud, par);
        goto fn_exit;
    }
    for (int j = 0; j < ps.nps; j++) {
        const int *po = ps.pool_of + (size_t)j * z;
        int np = ps.np[j];
        /* Pool trees, translated to local indices of set. */
        for (int p = 0; p < np; p++) {
            int c = members(set, po, k, p, mem);
            driver_on(s, mem, c, in_set(mem, c, root) >= 0 ? root : -1, bud, lp);
            for (int i = 0; i < c; i++) {
                int li = in_set(set, k, mem[i]);
                if (lp[i] < 0) {
                    cand[li] = -1;
                    proot[p] = mem[i];
                } else {
                    cand[li] = in_set(set, k, mem[lp[i]]);
                }
            }
        }
        double cost;
        if (np == 1) {
            cost = cost_on(s, set, k, cand);
        } else {
            for (int p = 0; p < np; p++)
                R[p] = proot[p];
            for (int a = 1; a < np; a++) /* ascending IDs */
                for (int b = a; b > 0 && R[b - 1] > R[b]; b--) {
                    int x = R[b];
                    R[b] = R[b - 1];
                    R[b - 1] = x;
                }
            csa(s, R, np, root, bud, up, depth + 1);
            for (int p = 0; p < np; p++) /* graft: pool roots take their upper-tree parent */
                cand[in_set(set, k, R[p])] = up[p] < 0 ? -1 : in_set(set, k, R[up[p]]);
            cost = cost_on(s, set, k, cand);
        }
        if (cost < best) {
            best = cost;
            memcpy(par, cand, z * sizeof(int));
        }
    }
fn_exit:
    free(mem);
    free(lp);
    free(R);
    free(up);
    free(cand);
    free(proot);
    free(ps.pool_of);
    return best;
}

double ac_grid_clustered_sa(ac_grid_search_t *s, int root, ac_grid_budget_t budget, int *parent) {
    int n = s->M.n;
    int *set = malloc((size_t)n * sizeof(int));
    if (!set) {
        for (int v = 0; v < n; v++)
            parent[v] = v == root ? -1 : root;
        return ac_grid_eval_count(s, parent);
    }
    for (int v = 0; v < n; v++)
        set[v] = v;
    ac_grid_budget_t per = budget;
    if (budget.mode != AC_GRID_BUDGET_NONE) {
        long calls = dry(&s->M, &s->opt, set, n, root, 0);
        per.amount = budget.amount / (double)(calls > 0 ? calls : 1);
        per.cap = budget.cap / (double)(calls > 0 ? calls : 1);
    }
    double c = csa(s, set, n, root, per, parent, 0);
    free(set);
    return c;
}
