/*
 * Algorithm: the shared-link charge and the relay step of grid_adaptive's tree search, not an
 *   instance of its own (autocoll's extension of seed 002's search).
 * Cost: ac_grid_shared_cost is one evaluation of spec section 5, O(n log n), plus O(n) for the
 *   charge; ac_grid_relay_refine makes at most passes x (clusters - 1) x n evaluations.
 * Restrictions: those of grid_adaptive, AUTOCOLL_R_GRID (two or more clusters declared).
 * Reference: seed 002 (Gupta & Vadhiyar) §2.2-§2.4; spec adaptive-bcast-grid.md sections 5
 *   (cost model) and 9 (clusteredSA); docs/grid-bcast.md, "Relays".
 *
 * clusteredSA with declared groups searches the G2 family: every cluster and every site is
 * entered by one edge, so only the root sends out of the root's site, one message after the
 * other. When a cluster's uplink is loaded (grid64-loaded: C3 at 1.85 MB/s) the root then
 * either spends its own time on the slow edge or the cluster waits for another site; a second
 * node of the root's site could feed it while the root serves the other sites. Such a tree has
 * two edges leaving one site at once, which share the site's WAN link: the contention-free
 * model of section 5 sees none of that and would take relays even where the shared link is
 * the bottleneck (on the unloaded grid every WAN edge runs at the site link's speed).
 *
 * Shared-link charge: for each site s, cap_out(s) is the largest bandwidth measured from a
 * node of s to a node outside it, cap_in(s) the largest into s. In a tree, a sender x of s with
 * children outside s has rate r(x) = its fastest such edge (its own sends follow each other, so
 * they never share the link with each other). If k >= 2 distinct senders leave s, each of
 * their edges x->y runs at most at
 *     max(cap_out(s) - sum_{x' != x} r(x'), cap_out(s) / k)
 * (the others take what their own bottleneck lets them take, at least a fair share is left),
 * and the same for k >= 2 distinct senders into a site t with cap_in(t) and the rates of each
 * sender's edges into t. The section 5 cost is then taken on these bandwidths. The charge
 * assumes that the senders overlap for the whole of their sends (an upper bound on the
 * slowdown); a tree of the G2 family (one sender out of, one edge into every site) is costed
 * exactly as by ac_grid_cost, so nothing changes for the trees clusteredSA returns.
 *
 * Relay step: greedy local search over the entries of clusters. For each edge u->v that enters
 * v's cluster, every node w outside v's cluster and outside v's subtree is tried as v's parent
 * (the cluster stays entered by one edge; its entry and its inner tree are kept), and every
 * child f of v in another cluster is tried in v's place (f under u, v under f: which cluster
 * of a site is entered first); the move that lowers the shared cost most is made, up to
 * `passes` moves. The result replaces the
 * starting tree only when it is cheaper by more than the fraction `gain`, so that a tree the
 * charge judges within the model's error of the starting one is not taken.
 */
#include "grid_relay.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ac_grid_shared {
    int n, ns;
    ac_grid_model_t M;        /* M.B = Bw */
    const double *B0;         /* the model's bandwidths */
    double *Bw;               /* working copy, changed entries restored after each evaluation */
    const int *site;          /* not owned */
    double *cap_out, *cap_in; /* ns */
    double *sum_out, *sum_in; /* ns */
    int *k_out, *k_in;        /* ns */
    double *rout;             /* n: fastest edge of x out of its site */
    double *rin;              /* n x ns: fastest edge of x into site t */
    int *mod;                 /* n: children whose incoming bandwidth was changed */
    ac_grid_eval_t *ev;
    ac_grid_shared_t *hedge; /* not owned */
    double lambda;
};

void ac_grid_shared_hedge(ac_grid_shared_t *s, ac_grid_shared_t *h, double lambda) {
    s->hedge = h != s ? h : NULL;
    s->lambda = lambda;
}

void ac_grid_shared_free(ac_grid_shared_t *s) {
    if (!s) return;
    free(s->Bw);
    free(s->cap_out);
    free(s->cap_in);
    free(s->sum_out);
    free(s->sum_in);
    free(s->k_out);
    free(s->k_in);
    free(s->rout);
    free(s->rin);
    free(s->mod);
    ac_grid_eval_free(s->ev);
    free(s);
}

ac_grid_shared_t *ac_grid_shared_new(const ac_grid_model_t *M, const int *site) {
    int n = M->n, ns = 0;
    for (int v = 0; v < n; v++)
        if (site[v] < 0)
            return NULL;
        else if (site[v] + 1 > ns)
            ns = site[v] + 1;
    ac_grid_shared_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    size_t nn = (size_t)n * (size_t)n, nsz = (size_t)(ns > 0 ? ns : 1);
    s->n = n;
    s->ns = ns;
    s->site = site;
    s->B0 = M->B;
    s->Bw = malloc(nn * sizeof(double));
    s->cap_out = calloc(nsz, sizeof(double));
    s->cap_in = calloc(nsz, sizeof(double));
    s->sum_out = calloc(nsz, sizeof(double));
    s->sum_in = calloc(nsz, sizeof(double));
    s->k_out = calloc(nsz, sizeof(int));
    s->k_in = calloc(nsz, sizeof(int));
    s->rout = calloc((size_t)n, sizeof(double));
    s->rin = calloc((size_t)n * nsz, sizeof(double));
    s->mod = malloc((size_t)n * sizeof(int));
    s->ev = ac_grid_eval_new(n);
    if (!s->Bw || !s->cap_out || !s->cap_in || !s->sum_out || !s->sum_in || !s->k_out || !s->k_in ||
        !s->rout || !s->rin || !s->mod || !s->ev) {
        ac_grid_shared_free(s);
        return NULL;
    }
    memcpy(s->Bw, M->B, nn * sizeof(double));
    s->M = *M;
    s->M.B = s->Bw;
    for (int u = 0; u < n; u++)
        for (int v = 0; v < n; v++) {
            if (site[u] == site[v]) continue;
            double b = M->B[(size_t)u * n + v];
            if (b > s->cap_out[site[u]]) s->cap_out[site[u]] = b;
            if (b > s->cap_in[site[v]]) s->cap_in[site[v]] = b;
        }
    return s;
}

/* Charged bandwidth of x->y given the sender counts and rate sums of the tree. */
static double charged(const ac_grid_shared_t *s, int x, int y) {
    int n = s->n, a = s->site[x], t = s->site[y];
    double b = s->B0[(size_t)x * n + y];
    if (s->k_out[a] >= 2) {
        double cap = s->cap_out[a];
        double lim = fmax(cap - (s->sum_out[a] - s->rout[x]), cap / s->k_out[a]);
        if (lim < b) b = lim;
    }
    if (s->k_in[t] >= 2) {
        double cap = s->cap_in[t];
        double r = s->rin[(size_t)x * s->ns + t];
        double lim = fmax(cap - (s->sum_in[t] - r), cap / s->k_in[t]);
        if (lim < b) b = lim;
    }
    return b;
}

/* Senders and rate sums of the tree's edges across sites; the children of those edges go to
 * s->mod. Returns their number. */
static int tally(ac_grid_shared_t *s, const int *parent) {
    int n = s->n, ns = s->ns;
    for (int a = 0; a < ns; a++) {
        s->sum_out[a] = s->sum_in[a] = 0;
        s->k_out[a] = s->k_in[a] = 0;
    }
    int nmod = 0;
    for (int y = 0; y < n; y++) {
        int x = parent[y];
        if (x < 0 || s->site[x] == s->site[y]) continue;
        double b = s->B0[(size_t)x * n + y];
        if (b > s->rout[x]) s->rout[x] = b;
        double *ri = &s->rin[(size_t)x * ns + s->site[y]];
        if (b > *ri) *ri = b;
        s->mod[nmod++] = y;
    }
    /* each sender once per site it leaves or enters */
    for (int i = 0; i < nmod; i++) {
        int y = s->mod[i], x = parent[y], a = s->site[x], t = s->site[y];
        if (s->rout[x] > 0) {
            s->sum_out[a] += s->rout[x];
            s->k_out[a]++;
            s->rout[x] = -s->rout[x]; /* counted: negative until the pass below */
        }
        double *ri = &s->rin[(size_t)x * ns + t];
        if (*ri > 0) {
            s->sum_in[t] += *ri;
            s->k_in[t]++;
            *ri = -*ri;
        }
    }
    for (int i = 0; i < nmod; i++) { /* back to positive rates */
        int y = s->mod[i], x = parent[y];
        s->rout[x] = fabs(s->rout[x]);
        double *ri = &s->rin[(size_t)x * ns + s->site[y]];
        *ri = fabs(*ri);
    }
    return nmod;
}

/* Restore the workspace after tally (and the charged bandwidths). */
static void untally(ac_grid_shared_t *s, const int *parent, int nmod) {
    int n = s->n;
    for (int i = 0; i < nmod; i++) {
        int y = s->mod[i], x = parent[y];
        s->Bw[(size_t)x * n + y] = s->B0[(size_t)x * n + y];
        s->rout[x] = 0;
        s->rin[(size_t)x * s->ns + s->site[y]] = 0;
    }
}

double ac_grid_shared_cost(ac_grid_shared_t *s, const int *parent) {
    int n = s->n, nmod = tally(s, parent);
    int charge = 0;
    for (int a = 0; a < s->ns; a++)
        charge |= s->k_out[a] >= 2 || s->k_in[a] >= 2;
    if (charge)
        for (int i = 0; i < nmod; i++) {
            int y = s->mod[i], x = parent[y];
            s->Bw[(size_t)x * n + y] = charged(s, x, y);
        }
    double c = ac_grid_cost(s->ev, &s->M, parent);
    untally(s, parent, nmod);
    if (s->hedge && s->lambda > 0) c += s->lambda * ac_grid_shared_cost(s->hedge, parent);
    return c;
}

double ac_grid_shared_bw(ac_grid_shared_t *s, const int *parent, int y) {
    int n = s->n, x = parent[y];
    if (x < 0) return 0;
    if (s->site[x] == s->site[y]) return s->B0[(size_t)x * n + y];
    int nmod = tally(s, parent);
    double b = charged(s, x, y);
    untally(s, parent, nmod);
    return b;
}

/* 1 when w lies in the subtree of v (walk up from w). */
static int in_subtree(const int *parent, int n, int w, int v) {
    for (int k = 0; w >= 0 && k <= n; k++, w = parent[w])
        if (w == v) return 1;
    return 0;
}

double ac_grid_relay_refine(ac_grid_shared_t *s, const int *cluster, int passes, double gain,
                            int *parent, long *evals) {
    int n = s->n;
    long ne = 0;
    int *work = malloc((size_t)n * sizeof *work);
    double c0 = ac_grid_shared_cost(s, parent);
    ne++;
    if (!work) {
        if (evals) *evals = ne;
        return c0;
    }
    memcpy(work, parent, (size_t)n * sizeof *work);
    double cur = c0;
    for (int pass = 0; pass < passes; pass++) {
        int bv = -1, bw = -1;
        double best = cur;
        for (int v = 0; v < n; v++) {
            int u = work[v];
            if (u < 0 || cluster[u] == cluster[v]) continue;
            for (int w = 0; w < n; w++) {
                if (w == u || cluster[w] == cluster[v] || in_subtree(work, n, w, v)) continue;
                work[v] = w;
                double c = ac_grid_shared_cost(s, work);
                ne++;
                work[v] = u;
                if (c < best) {
                    best = c;
                    bv = v;
                    bw = w;
                }
            }
        }
        /* rotation: a cluster entry v (parent u) and a child f of v in another cluster trade
         * places, f under u and v under f (the cluster entered first changes) */
        int rv = -1, rf = -1;
        for (int v = 0; v < n; v++) {
            int u = work[v];
            if (u < 0 || cluster[u] == cluster[v]) continue;
            for (int f = 0; f < n; f++) {
                if (work[f] != v || cluster[f] == cluster[v]) continue;
                work[f] = u;
                work[v] = f;
                double c = ac_grid_shared_cost(s, work);
                ne++;
                work[v] = u;
                work[f] = v;
                if (c < best) {
                    best = c;
                    rv = v;
                    rf = f;
                }
            }
        }
        if (rv >= 0) {
            work[rf] = work[rv];
            work[rv] = rf;
        } else if (bv >= 0) {
            work[bv] = bw;
        } else {
            break;
        }
        cur = best;
    }
    if (cur < (1.0 - gain) * c0)
        memcpy(parent, work, (size_t)n * sizeof *work);
    else
        cur = c0;
    free(work);
    if (evals) *evals = ne;
    return cur;
}
