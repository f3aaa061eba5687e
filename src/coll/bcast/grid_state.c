/*
 * Algorithm: the part of bcast grid_adaptive and grid_greedy that they share, not an instance
 *   of its own: per-communicator state, the measurement sweeps of the network between cluster
 *   representatives, and the advisor that predicts the next broadcast and searches its trees.
 * Cost: a full sweep (N(N+1)/2) x R x (2 RTT(1) + RTT(M)) on the representatives of N
 *   clusters; an incremental sweep replaces R by C for every pair that did not change; the
 *   advisor at most AUTOCOLL_ADV_FRACTION of the time since the previous broadcast; the safe
 *   choice two model evaluations per call, O(p log p).
 * Restrictions: those of its users, AUTOCOLL_R_GRID (two or more clusters declared).
 * Reference: seed 002 (Gupta & Vadhiyar) §2.2-§2.5; spec adaptive-bcast-grid.md sections 4, 10,
 *   12.
 *
 * Measurement (spec 4.2): the root of a broadcast decides that a sweep is due (no matrices yet,
 * or AUTOCOLL_PROBE_PERIOD seconds since the last one, on the root's clock) and says so in the
 * header every rank receives, so the sweep runs at the same call on every rank: a decision
 * point every rank reaches, never a rank-local timer. The sweep runs on the library's private
 * communicator with the call's token tag, one cluster pair at a time, started by a token from
 * the root: the lower cluster's representative (its lowest rank) times R round trips of
 * 1 byte (t1, median) and R of M bytes answered by 1 byte (tM, median) with the other
 * representative, or with its cluster's second rank for the diagonal; L = t1/2,
 * B = M/(tM - t1); o = median time of its 1-byte send (pLogP sender overhead at small sizes,
 * one value per cluster, spec 4.3). Cost: (N(N+1)/2) x R x (2 RTT(1) + RTT(M)) on the
 * participating ranks only; the other ranks leave the call at once.
 * Incremental sweeps (autocoll's extension, AUTOCOLL_PROBE_CHECK, AUTOCOLL_PROBE_CHANGE): once
 * the root holds matrices, its token carries the pair's current L and B, and the
 * representative first times C (1) round trips of each size; only when they depart from 2L and
 * 2L + M/B by more than 10 % (ac_grid_probe_changed) does it run the full measurement above.
 * The root bumps the matrix version only when a pair was re-measured, so the advisor searches
 * again only then. y answers every message with 1 byte until an empty one ends the pair (so it
 * need not know how many round trips x runs). Cost of a sweep that finds nothing changed:
 * (N(N+1)/2) x C x (2 RTT(1) + RTT(M)), a tenth of a full one at the defaults; each changed
 * pair adds R x (...). Why: the spec's sweep is 30 s on grid64 and runs inside a broadcast;
 * the expensive part, the repetitions, is only needed where something moved.
 * Early sweeps (AUTOCOLL_PROBE_EARLY): above the packing limit the root's blocking send ends
 * at delivery, so the root sees o + L + m/B of each of its own edges at no cost; when one
 * departs from the model by more than AUTOCOLL_PROBE_CHANGE, the next broadcast carries the
 * sweep flag (ac_grid_edge_seen), the same decision point as a periodic sweep, so the load
 * is re-measured one call after the root saw it instead of up to AUTOCOLL_PROBE_PERIOD later.
 * The other senders' reports of their edges into other clusters (bcast_grid_adaptive.c) are
 * checked the same way, with the bandwidth charged for shared site links as the upper bound
 * (grid_relay.h); an edge, the root's own included, calls a sweep only when its bandwidth also
 * moved since it was last seen (edge_moved), so a lasting mismatch of the model calls one
 * sweep and not one per call.
 * Relay step and hedge (grid_relay.c): after clusteredSA the root runs the relay step from
 * the search result, the stored tree and the G2 tree, and compares every candidate on the
 * cost with shared site links plus 0.1 x that cost on the lowest bandwidths ever published.
 *
 * Advisor (spec 10.2): it runs at the root inside the broadcast, after the root's sends are
 * done, so no thread and no MPI call is involved. It records (time, bytes), predicts the next
 * size by least squares over AUTOCOLL_ADV_WINDOW calls and searches buckets b, b+1, b-1 with
 * clusteredSA in shares 0.6/0.2/0.2 of a budget of AUTOCOLL_ADV_FRACTION (5%) of the time
 * since the previous broadcast: an application that broadcasts rarely pays at most that
 * fraction of the time between its broadcasts, and nothing at all once the trees of those
 * buckets were searched on the current matrices (trees are re-derived only when a sweep
 * brought new matrices). Replacement rule: a tree is kept only while it is the cheapest of
 * (stored tree re-evaluated on the current matrices, new search result, static G2 tree).
 * Safe choice for small messages (AUTOCOLL_GRID_MARGIN, 0.1): up to the packing limit the
 * blocking sends of a parent may return before delivery (eager protocol), so they overlap and
 * share its links, which the model's sequential sends do not describe (on grid64 a tree
 * predicted 9 % faster than G2 at 52 KiB was 12 % slower); at such sizes the root uses the
 * stored tree only when the model, at the call's own size, puts it more than the margin below
 * G2 (ac_grid_safe_choice), else G2: two evaluations per call, O(p log p).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include "grid_bcast.h"
#include "grid_relay.h"

static void slot_free(ac_grid_slot_t *s) {
    if (s->valid) ac_grid_tree_free(&s->t);
    memset(s, 0, sizeof *s);
}

static void pend_free(ac_grid_comm_t *g);

static void comm_free(void *state) {
    ac_grid_comm_t *g = state;
    if (!g) return;
    /* reports still pending: their senders sent them during that broadcast */
    if (g->pend_n) PMPI_Waitall(g->pend_n, g->pend_rq, MPI_STATUSES_IGNORE);
    pend_free(g);
    /* The advisor's account, at the rank that ran it (AUTOCOLL_VERBOSE=1). */
    if (ac_g.set.verbose >= 1 && !g->netprobe && (g->adv_runs || g->probes))
        ac_log("grid: %ld broadcasts, %ld sweeps, %ld searches, advisor CPU %.6f s (%.6f s per "
               "broadcast), %ld sweeps called early (%ld by reports of other senders, %ld "
               "edges reported)\n",
               g->calls, g->probes, g->adv_runs, g->adv_cpu,
               g->calls ? g->adv_cpu / (double)g->calls : 0.0, g->early, g->report_early,
               g->reports);
    if (ac_g.set.verbose >= 1 && ac_g.set.grid_net[0] && (g->net_taken || g->net_refused))
        ac_log("grid: network file %s: %ld versions taken, %ld refused\n", ac_g.set.grid_net,
               g->net_taken, g->net_refused);
    if (ac_g.set.verbose >= 1 && ac_g.set.grid_tree_dir[0] && g->adv_runs)
        ac_log("grid: trees in %s: %ld written, %ld read, %ld refused\n", ac_g.set.grid_tree_dir,
               g->trees_written, g->trees_read, g->trees_refused);
    free(g->site);
    free(g->cluster);
    free(g->rep);
    free(g->second);
    free(g->Lc);
    free(g->Bc);
    free(g->oc);
    free(g->L);
    free(g->B);
    free(g->o);
    if (g->g2_root >= 0) ac_grid_tree_free(&g->g2);
    ac_grid_eval_free(g->ev);
    free(g->seen_bw);
    free(g->Bmin);
    for (int k = 0; k < AC_GRID_NKIND; k++)
        for (int b = 0; b < AC_GRID_NB; b++)
            slot_free(&g->slot[k][b]);
    free(g);
}

ac_grid_comm_t *ac_grid_comm_new(int p, uint64_t id, const int *site, const int *cluster, int nc) {
    ac_grid_comm_t *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->p = p;
    g->nc = nc;
    g->comm_id = id;
    g->g2_root = -1;
    g->slot_root = -1;
    g->net_version = -1;
    g->site = malloc((size_t)p * sizeof(int));
    g->cluster = malloc((size_t)p * sizeof(int));
    g->rep = malloc((size_t)p * sizeof(int));
    g->second = malloc((size_t)p * sizeof(int));
    size_t ncc = (size_t)nc, pp = (size_t)p;
    g->Lc = calloc(ncc * ncc, sizeof(double));
    g->Bc = calloc(ncc * ncc, sizeof(double));
    g->oc = calloc(ncc, sizeof(double));
    g->L = calloc(pp * pp, sizeof(double));
    g->B = calloc(pp * pp, sizeof(double));
    g->o = calloc(pp, sizeof(double));
    if (!g->site || !g->cluster || !g->rep || !g->second || !g->Lc || !g->Bc || !g->oc || !g->L ||
        !g->B || !g->o) {
        comm_free(g);
        return NULL;
    }
    memcpy(g->site, site, pp * sizeof(int));
    memcpy(g->cluster, cluster, pp * sizeof(int));
    for (int c = 0; c < nc; c++)
        g->rep[c] = g->second[c] = -1;
    for (int r = 0; r < p; r++) {
        int c = g->cluster[r];
        if (g->rep[c] < 0)
            g->rep[c] = r;
        else if (g->second[c] < 0)
            g->second[c] = r;
    }
    return g;
}

void ac_grid_comm_free(ac_grid_comm_t *g) {
    comm_free(g);
}

/* The state hangs on the context (ctx->grid) and goes with it (ctx->grid_free, called when the
 * context is destroyed). No lock: MPI orders the collectives of one communicator, so one call
 * at a time uses (or makes) the state of a context. */
ac_grid_comm_t *ac_grid_comm_get(ac_ctx_t *ctx) {
    if (ctx->grid) return ctx->grid;
    int p = ctx->size, nc = 0;
    int *site = malloc((size_t)p * sizeof(int)), *cluster = malloc((size_t)p * sizeof(int));
    ac_grid_comm_t *g = NULL;
    if (site && cluster && (nc = ac_grid_layout(ctx, site, cluster)) >= 1)
        g = ac_grid_comm_new(p, (uint64_t)ctx->id, site, cluster, nc);
    free(site);
    free(cluster);
    if (!g) return NULL;
    ctx->grid = g;
    ctx->grid_free = comm_free;
    return g;
}

/* ------------------------------------------------------------------ measurement */

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, ac_dbl_cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Pairs of the sweep in order: (i, j) for i <= j; the diagonal only for clusters of >= 2. */
static int pair_ends(const ac_grid_comm_t *g, int i, int j, int *x, int *y) {
    *x = g->rep[i];
    *y = i == j ? g->second[i] : g->rep[j];
    return *y >= 0;
}

/* x's side of one pair: n round trips of 1 byte (t1, and the send alone in ts) and n of M
 * bytes answered by 1 byte (tm) with y. */
static int pair_times(const ac_args_t *a, int y, int n, int M, char *big, double *t1, double *tm,
                      double *ts) {
    int err = MPI_SUCCESS, tag = AC_TAG_SYNC(a);
    char one = 1;
    for (int k = 0; k < n; k++) {
        double t0 = PMPI_Wtime();
        AC_CHECK(PMPI_Send(&one, 1, MPI_BYTE, y, tag, a->comm));
        ts[k] = PMPI_Wtime() - t0;
        AC_CHECK(PMPI_Recv(&one, 1, MPI_BYTE, y, tag, a->comm, MPI_STATUS_IGNORE));
        t1[k] = PMPI_Wtime() - t0;
    }
    for (int k = 0; k < n; k++) {
        double t0 = PMPI_Wtime();
        AC_CHECK(PMPI_Send(big, M, MPI_BYTE, y, tag, a->comm));
        AC_CHECK(PMPI_Recv(&one, 1, MPI_BYTE, y, tag, a->comm, MPI_STATUS_IGNORE));
        tm[k] = PMPI_Wtime() - t0;
    }
fn_exit:
    return err;
}

/* The cluster matrices Lc, Bc, oc as the model's node-level matrices (spec 4.1); when
 * `changed`, as a new version (the advisor searches again) that also lowers the hedge's
 * lowest bandwidths Bmin. */
static void publish(ac_grid_comm_t *g, int changed) {
    int p = g->p, nc = g->nc;
    for (int u = 0; u < p; u++) {
        g->o[u] = g->oc[g->cluster[u]];
        for (int v = 0; v < p; v++) {
            size_t cc = (size_t)g->cluster[u] * (size_t)nc + (size_t)g->cluster[v];
            g->L[(size_t)u * p + v] = u == v ? 0 : g->Lc[cc];
            g->B[(size_t)u * p + v] = g->Bc[cc] > 0 ? g->Bc[cc] : 1e9;
        }
    }
    if (!changed) return;
    g->version++;
    size_t pp = (size_t)p * (size_t)p;
    if (!g->Bmin && (g->Bmin = malloc(pp * sizeof(double))) != NULL)
        memcpy(g->Bmin, g->B, pp * sizeof(double));
    else if (g->Bmin)
        for (size_t k = 0; k < pp; k++)
            if (g->B[k] < g->Bmin[k]) g->Bmin[k] = g->B[k];
}

static void net_keep(ac_grid_comm_t *g, int root);

int ac_grid_probe(ac_grid_comm_t *g, const ac_args_t *a) {
    int err = MPI_SUCCESS, me = a->rank, root = a->root, tag = AC_TAG_SYNC(a);
    int R = ac_g.set.probe_reps, M = ac_g.set.probe_bytes, C = ac_g.set.probe_check;
    int nc = g->nc, n = R > C ? R : C;
    char *big = NULL, one = 1;
    double *t1 = malloc((size_t)n * sizeof *t1), *tm = malloc((size_t)n * sizeof *tm);
    double *ts = malloc((size_t)n * sizeof *ts);
    int involved = me == root;
    long remeasured = 0, npairs = 0;
    double t_start = PMPI_Wtime();
    /* The root decides: a full sweep when it holds no matrices or checks are off, else an
     * incremental one (every rank that takes part learns it from the root's token). */
    int full = me == root && (!g->version || C <= 0);
    for (int c = 0; c < nc; c++)
        involved |= g->rep[c] == me || g->second[c] == me;
    if (!t1 || !tm || !ts) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    if (!involved) goto fn_exit;
    if (!(big = calloc((size_t)M, 1))) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    double *Lc = g->Lc, *Bc = g->Bc, *oc = g->oc;
    int *seen = NULL;
    if (me == root && !(seen = calloc((size_t)nc, sizeof *seen))) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    for (int i = 0; i < nc; i++)
        for (int j = i; j < nc; j++) {
            int x, y;
            if (!pair_ends(g, i, j, &x, &y)) continue;
            /* token {full, L, B}: x checks against the root's current L and B */
            double go[3] = {1, 0, 0}, res[4] = {0, 0, 0, 1};
            if (me == root) {
                go[0] = full;
                go[1] = Lc[i * nc + j];
                go[2] = Bc[i * nc + j];
                if (x != root) AC_CHECK(PMPI_Send(go, 3, MPI_DOUBLE, x, tag, a->comm));
            }
            if (me == x) {
                if (x != root)
                    AC_CHECK(PMPI_Recv(go, 3, MPI_DOUBLE, root, tag, a->comm, MPI_STATUS_IGNORE));
                int changed = 1;
                if (!go[0]) { /* check: C round trips of each size against the prediction */
                    AC_CHECK(pair_times(a, y, C, M, big, t1, tm, ts));
                    double c1 = median(t1, C), cm = median(tm, C);
                    changed = ac_grid_probe_changed(c1, cm, (double)M, go[1], go[2],
                                                    ac_g.set.probe_change);
                    res[0] = go[1];
                    res[1] = go[2];
                    res[2] = median(ts, C);
                }
                if (changed) { /* the measurement of spec 4.2 */
                    AC_CHECK(pair_times(a, y, R, M, big, t1, tm, ts));
                    double a1 = median(t1, R), am = median(tm, R);
                    res[0] = a1 / 2;
                    res[1] = am > a1 ? (double)M / (am - a1) : (double)M / (am > 0 ? am : 1e-9);
                    res[2] = median(ts, R);
                }
                res[3] = changed;
                /* end of the pair for y: an empty message */
                AC_CHECK(PMPI_Send(&one, 0, MPI_BYTE, y, tag, a->comm));
                if (x != root) AC_CHECK(PMPI_Send(res, 4, MPI_DOUBLE, root, tag, a->comm));
            }
            if (me == y) { /* answer every message of x with 1 byte until the empty one */
                for (;;) {
                    MPI_Status st;
                    int got;
                    AC_CHECK(PMPI_Recv(big, M, MPI_BYTE, x, tag, a->comm, &st));
                    AC_CHECK(PMPI_Get_count(&st, MPI_BYTE, &got));
                    if (got == 0) break;
                    AC_CHECK(PMPI_Send(&one, 1, MPI_BYTE, x, tag, a->comm));
                }
            }
            if (me == root) {
                if (x != root)
                    AC_CHECK(PMPI_Recv(res, 4, MPI_DOUBLE, x, tag, a->comm, MPI_STATUS_IGNORE));
                npairs++;
                if (res[3] != 0) {
                    remeasured++;
                    Lc[i * nc + j] = Lc[j * nc + i] = res[0];
                    Bc[i * nc + j] = Bc[j * nc + i] = res[1];
                }
                if (!seen[i] || res[2] < oc[i]) oc[i] = res[2]; /* x is cluster i's rep */
                seen[i] = 1;
            }
        }
    if (me == root) {
        /* Clusters of one rank have no diagonal: L 0 and the best bandwidth measured. */
        double bmax = 0;
        for (int k = 0; k < nc * nc; k++)
            if (Bc[k] > bmax) bmax = Bc[k];
        for (int i = 0; i < nc; i++)
            if (g->second[i] < 0) {
                Lc[i * nc + i] = 0;
                Bc[i * nc + i] = bmax > 0 ? bmax : 1e9;
            }
        /* A cluster whose representative never started a pair (the last one, when it has a
         * single rank) gets the mean sender overhead of the others. */
        double osum = 0;
        int on = 0;
        for (int i = 0; i < nc; i++)
            if (seen[i]) {
                osum += oc[i];
                on++;
            }
        for (int i = 0; i < nc; i++)
            if (!seen[i]) oc[i] = on ? osum / on : 0;
        /* New matrices (a new version, so the advisor searches again) only when a pair was
         * re-measured: an incremental sweep that found nothing changed keeps every tree. */
        long was = g->version;
        publish(g, remeasured > 0 || !g->version);
        if (g->version != was) net_keep(g, root);
        g->probes++;
        if (ac_g.set.verbose >= 1 && g->netprobe)
            ac_log("grid: netprobe sweep %ld took %.6f s (%s, %ld of %ld pairs measured, matrix "
                   "version %ld)\n",
                   g->probes, PMPI_Wtime() - t_start, full ? "full" : "incremental", remeasured,
                   npairs, g->version);
        else if (ac_g.set.verbose >= 1)
            ac_log("grid: sweep %ld at broadcast %ld took %.6f s (%s, %ld of %ld pairs measured, "
                   "matrix version %ld)\n",
                   g->probes, g->calls, PMPI_Wtime() - t_start, full ? "full" : "incremental",
                   remeasured, npairs, g->version);
        g->probe_time = PMPI_Wtime();
        g->probe_due = 0;
        free(seen);
    }
fn_exit:
    free(big);
    free(t1);
    free(tm);
    free(ts);
    return err;
}

int ac_grid_net_save(const ac_grid_comm_t *g, const char *path, char *err, size_t errlen) {
    int nc = g->nc, p = g->p, rc = -1;
    char(*names)[16] = malloc((size_t)nc * sizeof *names);
    ac_grid_net_t net = {0};
    net.version = g->version;
    net.timestamp = PMPI_Wtime();
    net.nc = nc;
    net.np = p;
    net.Lc = g->Lc;
    net.Bc = g->Bc;
    net.cluster = g->cluster;
    net.name = malloc((size_t)nc * sizeof *net.name);
    net.nos = malloc((size_t)p * sizeof *net.nos);
    net.os = malloc((size_t)p * AC_GRID_NBUCKETS * sizeof *net.os);
    if (!names || !net.name || !net.nos || !net.os) {
        snprintf(err, errlen, "%s: out of memory", path);
    } else {
        for (int c = 0; c < nc; c++) {
            snprintf(names[c], sizeof names[c], "c%d", c);
            net.name[c] = names[c];
        }
        for (int v = 0; v < p; v++) { /* one o_s per node: its cluster's (spec 4.3) */
            net.nos[v] = 1;
            net.os[(size_t)v * AC_GRID_NBUCKETS] = g->oc[g->cluster[v]];
        }
        rc = ac_grid_net_write(path, &net, err, errlen);
    }
    free(names);
    free(net.name);
    free(net.nos);
    free(net.os);
    return rc;
}

/* AUTOCOLL_GRID_TREE_DIR: every new matrix version measured in the calls, as the network
 * file <dir>/bcast-<comm id>-n<p>-r<root>.net of the root that measured it (each root holds
 * the matrices of its own sweeps). */
static void net_keep(ac_grid_comm_t *g, int root) {
    const char *dir = ac_g.set.grid_tree_dir;
    char path[600], err[700];
    if (!dir[0] || g->store_off || g->netprobe) return;
    snprintf(path, sizeof path, "%s/bcast-%016" PRIx64 "-n%d-r%d.net", dir, g->comm_id, g->p, root);
    if (ac_grid_net_save(g, path, err, sizeof err) == 0) return;
    g->store_off = 1;
    ac_log("grid_adaptive: AUTOCOLL_GRID_TREE_DIR: %s; no more files written for this "
           "communicator\n",
           err);
}

void ac_grid_net_load(ac_grid_comm_t *g) {
    const char *path = ac_g.set.grid_net;
    struct stat st;
    if (!path[0]) return;
    if (stat(path, &st) != 0) {
        if (!g->net_missing) /* once until the file appears */
            ac_log("grid: AUTOCOLL_GRID_NET=%s: no such file yet; the G2 tree until it is "
                   "written\n",
                   path);
        g->net_missing = 1;
        g->net_ino = g->net_size = g->net_mtime = 0;
        return;
    }
    g->net_missing = 0;
    uint64_t mt = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
    if ((uint64_t)st.st_ino == g->net_ino && (uint64_t)st.st_size == g->net_size &&
        mt == g->net_mtime)
        return; /* unchanged: one stat per broadcast */
    g->net_ino = (uint64_t)st.st_ino;
    g->net_size = (uint64_t)st.st_size;
    g->net_mtime = mt;
    ac_grid_net_t net;
    char err[600];
    if (ac_grid_net_read(path, &net, err, sizeof err) != 0) {
        g->net_refused++;
        ac_log("grid: AUTOCOLL_GRID_NET: %s; file not used\n", err);
        return;
    }
    int nc = g->nc;
    if (net.nc != nc) {
        g->net_refused++;
        ac_log("grid: AUTOCOLL_GRID_NET=%s: %d clusters, the communicator has %d; file not "
               "used\n",
               path, net.nc, nc);
    } else if (net.version != g->net_version) {
        memcpy(g->Lc, net.Lc, (size_t)nc * (size_t)nc * sizeof(double));
        memcpy(g->Bc, net.Bc, (size_t)nc * (size_t)nc * sizeof(double));
        /* o of a cluster: that of its first node in the file (spec 4.3: its representative's
         * value for every node), at a small message; the mean where the file has none */
        double osum = 0;
        int on = 0;
        for (int c = 0; c < nc; c++)
            g->oc[c] = -1;
        for (int v = 0; v < net.np; v++) {
            int c = net.cluster[v];
            if (g->oc[c] >= 0) continue;
            g->oc[c] = ac_grid_net_os(&net, v, 1);
            osum += g->oc[c];
            on++;
        }
        for (int c = 0; c < nc; c++)
            if (g->oc[c] < 0) g->oc[c] = on ? osum / on : 0;
        publish(g, 1);
        g->net_version = net.version;
        g->net_taken++;
        g->probe_time = PMPI_Wtime();
        if (ac_g.set.verbose >= 1)
            ac_log("grid: network file %s version %ld taken at broadcast %ld (matrix version "
                   "%ld)\n",
                   path, net.version, g->calls, g->version);
    }
    ac_grid_net_free(&net);
}

/* Last bandwidth seen on edge x -> y (bytes / (secs - o - L)); returns 1 when the edge was
 * never seen or the bandwidth moved by more than AUTOCOLL_PROBE_CHANGE since, and records it.
 * 1 as well when the memory cannot be allocated. */
static int edge_moved(ac_grid_comm_t *g, int x, int y, double bytes, double secs) {
    size_t p = (size_t)g->p, xy = (size_t)x * p + (size_t)y;
    if (!g->seen_bw) g->seen_bw = calloc(p * p, sizeof(double));
    if (!g->seen_bw) return 1;
    double lo = g->o[x] + g->L[xy];
    double b_obs = bytes / (secs > lo ? secs - lo : secs);
    double prev = g->seen_bw[xy];
    g->seen_bw[xy] = b_obs;
    return !(prev > 0) || fabs(b_obs - prev) > ac_g.set.probe_change * prev;
}

void ac_grid_edge_seen(ac_grid_comm_t *g, int root, int child, double bytes, double secs) {
    if (!g->version || !ac_g.set.probe_early) return;
    /* a lasting departure (a load the sweep measured but the model does not describe, e.g.
     * links shared inside the tree) calls one sweep, not one per call */
    int moved = edge_moved(g, root, child, bytes, secs);
    if (g->probe_due) return;
    size_t rc = (size_t)root * (size_t)g->p + (size_t)child;
    double pred = g->o[root] + g->L[rc] + bytes / g->B[rc];
    if (ac_g.set.verbose >= 2)
        ac_log("grid_adaptive: root %d -> %d: %.0f B in %.6f s, model %.6f s\n", root, child, bytes,
               secs, pred);
    if (!(pred > 0) || fabs(secs - pred) <= ac_g.set.probe_change * pred || !moved) return;
    g->probe_due = 1;
    g->early++;
}

/* ------------------------------------------------------------------ trees */

static int bucket_of(double m) {
    int b = ac_grid_bucket(m < 1 ? 1 : m);
    return b < 0 ? 0 : b >= AC_GRID_NB ? AC_GRID_NB - 1 : b;
}

static void model_for(const ac_grid_comm_t *g, double m, ac_grid_model_t *M) {
    M->n = g->p;
    M->m = m;
    M->o = g->o;
    M->L = g->L;
    M->B = g->B;
}

static const ac_grid_tree_t *g2_for(ac_grid_comm_t *g, int root) {
    if (g->g2_root == root) return &g->g2;
    if (g->g2_root < 0 && ac_grid_tree_alloc(&g->g2, g->p) != 0) return NULL;
    ac_grid_g2_tree(g->p, root, g->site, g->cluster, &g->g2);
    g->g2_root = root;
    return &g->g2;
}

/* Forget the trees of another root (trees are keyed by root; spec 15.4). */
static void slots_for_root(ac_grid_comm_t *g, int root) {
    if (g->slot_root == root) return;
    for (int k = 0; k < AC_GRID_NKIND; k++)
        for (int b = 0; b < AC_GRID_NB; b++)
            slot_free(&g->slot[k][b]);
    g->slot_root = root;
}

/* Put the tree `parent` (evaluated on M) into slot s. 0 or -1. */
static int slot_put(ac_grid_comm_t *g, ac_grid_slot_t *s, const ac_grid_model_t *M,
                    const int *parent) {
    ac_grid_eval_t *e = ac_grid_eval_new(g->p);
    if (!e) return -1;
    if (!s->valid) {
        if (ac_grid_tree_alloc(&s->t, g->p) != 0) {
            ac_grid_eval_free(e);
            return -1;
        }
        s->valid = 1;
    }
    s->cost = ac_grid_cost(e, M, parent);
    ac_grid_eval_tree(e, parent, &s->t);
    s->version = g->version;
    ac_grid_eval_free(e);
    return 0;
}

void ac_grid_reports_seen(ac_grid_comm_t *g, const int *parent, int ne, const int *u, const int *v,
                          const double *secs, double bytes) {
    int p = g->p;
    g->reports += ne;
    if (!g->version || !ac_g.set.probe_early || ne <= 0) return;
    ac_grid_model_t M;
    model_for(g, bytes, &M);
    ac_grid_shared_t *sh = ac_grid_shared_new(&M, g->site);
    if (!sh) goto fn_exit;
    double thr = ac_g.set.probe_change;
    for (int i = 0; i < ne; i++) {
        int x = u[i], y = v[i];
        if (x < 0 || x >= p || y < 0 || y >= p || parent[y] != x || !(secs[i] > 0)) continue;
        size_t xy = (size_t)x * (size_t)p + (size_t)y;
        double lo = g->o[x] + g->L[xy];
        double pred = lo + bytes / g->B[xy];
        double pred_sh = lo + bytes / ac_grid_shared_bw(sh, parent, y);
        int off = secs[i] > (1 + thr) * pred_sh || secs[i] < (1 - thr) * pred;
        int changed = edge_moved(g, x, y, bytes, secs[i]);
        if (ac_g.set.verbose >= 2)
            ac_log("grid_adaptive: report %d -> %d: %.0f B in %.6f s, model %.6f s (shared %.6f "
                   "s)%s\n",
                   x, y, bytes, secs[i], pred, pred_sh, changed ? ", moved" : "");
        if (off && changed && !g->probe_due) {
            g->probe_due = 1;
            g->early++;
            g->report_early++;
        }
    }
fn_exit:
    ac_grid_shared_free(sh);
}

static void pend_free(ac_grid_comm_t *g) {
    free(g->pend_rq);
    free(g->pend_who);
    free(g->pend_off);
    free(g->pend_cnt);
    free(g->pend_parent);
    free(g->pend_rec);
    g->pend_rq = NULL;
    g->pend_who = g->pend_off = g->pend_cnt = g->pend_parent = NULL;
    g->pend_rec = NULL;
    g->pend_n = 0;
}

int ac_grid_reports_post(ac_grid_comm_t *g, const ac_args_t *a, const ac_grid_tree_t *t,
                         double bytes) {
    int err = MPI_SUCCESS, p = g->p, nr = 0, tot = 0;
    if (g->pend_n) AC_CHECK(ac_grid_reports_finish(g));
    g->pend_rq = malloc((size_t)p * sizeof *g->pend_rq);
    g->pend_who = malloc((size_t)p * sizeof(int));
    g->pend_off = malloc((size_t)p * sizeof(int));
    g->pend_cnt = malloc((size_t)p * sizeof(int));
    g->pend_parent = malloc((size_t)p * sizeof(int));
    g->pend_rec = malloc((size_t)(2 * p) * sizeof(double));
    if (!g->pend_rq || !g->pend_who || !g->pend_off || !g->pend_cnt || !g->pend_parent ||
        !g->pend_rec) {
        pend_free(g);
        return MPI_ERR_NO_MEM;
    }
    for (int u = 0; u < p; u++) {
        if (u == a->root) continue;
        int c = 0;
        for (int j = t->first[u]; j < t->first[u + 1]; j++)
            c += g->cluster[t->child[j]] != g->cluster[u];
        if (!c) continue;
        g->pend_who[nr] = u;
        g->pend_off[nr] = tot;
        g->pend_cnt[nr] = c;
        tot += 2 * c;
        nr++;
    }
    memcpy(g->pend_parent, t->parent, (size_t)p * sizeof(int));
    g->pend_bytes = bytes;
    for (int i = 0; i < nr; i++) {
        AC_CHECK(PMPI_Irecv(g->pend_rec + g->pend_off[i], 2 * g->pend_cnt[i], MPI_DOUBLE,
                            g->pend_who[i], AC_TAG_SYNC(a), a->comm, &g->pend_rq[i]));
        g->pend_n = i + 1;
    }
    if (!nr) pend_free(g);
fn_exit:
    return err;
}

int ac_grid_reports_finish(ac_grid_comm_t *g) {
    int err = MPI_SUCCESS, p = g->p, n = g->pend_n, ne = 0;
    if (!n) return MPI_SUCCESS;
    int *eu = malloc((size_t)p * sizeof *eu), *ev = malloc((size_t)p * sizeof *ev);
    double *es = malloc((size_t)p * sizeof *es);
    AC_CHECK(PMPI_Waitall(n, g->pend_rq, MPI_STATUSES_IGNORE));
    if (!eu || !ev || !es) goto fn_exit; /* received, not checked */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < g->pend_cnt[i] && ne < p; j++) {
            eu[ne] = g->pend_who[i];
            ev[ne] = (int)g->pend_rec[g->pend_off[i] + 2 * j];
            es[ne++] = g->pend_rec[g->pend_off[i] + 2 * j + 1];
        }
    ac_grid_reports_seen(g, g->pend_parent, ne, eu, ev, es, g->pend_bytes);
fn_exit:
    pend_free(g);
    free(eu);
    free(ev);
    free(es);
    return err;
}

const ac_grid_tree_t *ac_grid_tree_for(ac_grid_comm_t *g, int kind, int root, double m,
                                       long *version) {
    *version = 0;
    if (!g->version) return g2_for(g, root);
    slots_for_root(g, root);
    int b = bucket_of(m);
    if (kind == AC_GRID_KIND_GREEDY) {
        ac_grid_slot_t *s = &g->slot[kind][b];
        if (!s->valid || s->version != g->version) {
            ac_grid_model_t M;
            model_for(g, ldexp(1.0, b), &M);
            ac_grid_tree_t t;
            if (ac_grid_tree_alloc(&t, g->p) != 0) return g2_for(g, root);
            ac_grid_greedy_tree(&M, root, &t);
            /* The greedy order is its own send order: keep it (no re-sorting by the model). */
            if (!s->valid && ac_grid_tree_alloc(&s->t, g->p) != 0) {
                ac_grid_tree_free(&t);
                return g2_for(g, root);
            }
            s->valid = 1;
            memcpy(s->t.parent, t.parent, (size_t)g->p * sizeof(int));
            memcpy(s->t.first, t.first, ((size_t)g->p + 1) * sizeof(int));
            memcpy(s->t.child, t.child, (size_t)(g->p > 1 ? g->p - 1 : 1) * sizeof(int));
            s->t.root = root;
            s->version = g->version;
            ac_grid_tree_free(&t);
        }
        *version = s->version;
        return &s->t;
    }
    for (int d = 0; d < 3; d++) { /* b, b+1, b-1 (spec 11.3) */
        int bb = d == 0 ? b : d == 1 ? b + 1 : b - 1;
        if (bb < 0 || bb >= AC_GRID_NB || !g->slot[kind][bb].valid) continue;
        const ac_grid_tree_t *t = &g->slot[kind][bb].t;
        /* Safe choice for small messages (AUTOCOLL_GRID_MARGIN): up to the packing limit a
         * blocking send may return before delivery, so a parent's sends overlap and share its
         * links, and the model's sequential sends no longer describe the platform; the tree
         * must then beat G2 by the margin at this very size, else G2 is used. */
        if (m <= (double)ac_g.set.pack_max && ac_g.set.grid_margin > 0) {
            const ac_grid_tree_t *g2 = g2_for(g, root);
            if (!g->ev) g->ev = ac_grid_eval_new(g->p);
            if (!g2 || !g->ev) return g2;
            ac_grid_model_t M;
            model_for(g, m, &M);
            double c_t = ac_grid_cost(g->ev, &M, t->parent);
            double c_g2 = ac_grid_cost(g->ev, &M, g2->parent);
            if (ac_grid_safe_choice(c_t, INFINITY, c_g2, ac_g.set.grid_margin) == AC_GRID_PICK_G2) {
                if (ac_g.set.verbose >= 2)
                    ac_log("grid_adaptive: root %d, %.0f B: safe choice G2 (tree of bucket %d "
                           "%.6g s, G2 %.6g s in the model)\n",
                           root, m, bb, c_t, c_g2);
                return g2;
            }
        }
        *version = g->slot[kind][bb].version;
        return t;
    }
    return g2_for(g, root);
}

/* AUTOCOLL_VERBOSE=2: the tree a call runs, its model cost and G2's at the call's size, and
 * its edges between clusters (parent>child), so that the model can be set against the
 * measured time of the call. */
void ac_grid_log_choice(ac_grid_comm_t *g, int root, double m, const ac_grid_tree_t *t) {
    if (ac_g.set.verbose < 2 || !g->version || !t) return;
    const ac_grid_tree_t *g2 = g2_for(g, root);
    if (!g->ev) g->ev = ac_grid_eval_new(g->p);
    if (!g2 || !g->ev) return;
    ac_grid_model_t M;
    model_for(g, m, &M);
    double c_g2 = ac_grid_cost(g->ev, &M, g2->parent);
    double c_t = ac_grid_cost(g->ev, &M, t->parent);
    char buf[1024];
    size_t len = 0;
    buf[0] = 0;
    for (int v = 0; v < g->p && len + 16 < sizeof buf; v++) {
        int u = t->parent[v];
        if (u >= 0 && g->cluster[u] != g->cluster[v])
            len += (size_t)snprintf(buf + len, sizeof buf - len, " %d>%d", u, v);
    }
    ac_log("grid_adaptive: call %ld root %d, %.0f B: model %.6f s, G2 %.6f s; edges%s\n", g->calls,
           root, m, c_t, c_g2, buf);
}

/* ------------------------------------------------------------------ advisor */

/* Process CPU time from getrusage: SMPI replaces clock_gettime by the simulated clock. */
static double cpu_now(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* AUTOCOLL_GRID_TREE_DIR (spec 10.4): the tree of a slot is written to the folder after every
 * search of its bucket (ac_grid_store_write: one file per communicator, size, root and bucket,
 * replaced atomically), and a slot that holds no tree takes the folder's file for its key, if
 * there is one, before its first search, where the replacement rule judges it on the current
 * matrices like any stored tree. Only the root reads and writes (it alone searches; the tree
 * travels with the data), so the files cannot make ranks disagree. A file that is not a
 * spanning tree of this communicator rooted at the root is refused with "path:line: reason". */
static void slot_load(ac_grid_comm_t *g, ac_grid_slot_t *s, int root, int b) {
    const char *dir = ac_g.set.grid_tree_dir;
    if (!dir[0] || s->valid || s->looked) return;
    s->looked = 1;
    ac_grid_key_t key = {root, g->p, b, g->comm_id};
    ac_grid_meta_t meta;
    ac_grid_tree_t t;
    char err[512];
    int rc = ac_grid_store_read(dir, &key, &meta, &t, err, sizeof err);
    if (rc == 1) return; /* no file */
    if (rc < 0) {
        g->trees_refused++;
        ac_log("grid_adaptive: AUTOCOLL_GRID_TREE_DIR: %s; tree not used\n", err);
        return;
    }
    s->t = t; /* a spanning tree of ranks 0..p-1 rooted at root: the reader checked the key */
    s->valid = 1;
    s->version = 0; /* judged at the search that follows */
    s->cost = meta.cost;
    g->trees_read++;
    if (ac_g.set.verbose >= 2)
        ac_log("grid_adaptive: root %d bucket %d: stored tree read from %s (matrix version %ld)\n",
               root, b, dir, meta.matrix_version);
}

static void slot_save(ac_grid_comm_t *g, const ac_grid_slot_t *s, int root, int b) {
    const char *dir = ac_g.set.grid_tree_dir;
    if (!dir[0] || !s->valid || g->store_off) return;
    ac_grid_key_t key = {root, g->p, b, g->comm_id};
    ac_grid_meta_t meta = {s->version, PMPI_Wtime(), s->cost};
    char err[512];
    if (ac_grid_store_write(dir, &key, &meta, &s->t, err, sizeof err) == 0) {
        g->trees_written++;
        return;
    }
    g->store_off = 1;
    ac_log("grid_adaptive: AUTOCOLL_GRID_TREE_DIR: %s; no more files written for this "
           "communicator\n",
           err);
}

/* Search bucket b with `seconds` of budget; keep the cheapest of stored, new and G2. */
static void search_bucket(ac_grid_comm_t *g, int root, int b, double seconds) {
    const ac_settings_t *st = &ac_g.set;
    ac_grid_slot_t *s = &g->slot[AC_GRID_KIND_ADAPTIVE][b];
    if (s->valid && s->searched && s->version == g->version) return; /* nothing changed */
    ac_grid_model_t M;
    model_for(g, ldexp(1.0, b), &M);
    ac_grid_opts_t opt;
    ac_grid_opts_default(&opt);
    opt.seed = (uint64_t)st->sa_seed + (uint64_t)g->version * 1000003u + (uint64_t)b;
    opt.delta = st->sa_delta_ms ? AC_GRID_DELTA_MS : AC_GRID_DELTA_RELATIVE;
    opt.strict = st->sa_strict;
    opt.pool_max = st->pool_max;
    opt.npcts = st->npool_pcts;
    memcpy(opt.pcts, st->pool_pcts, sizeof st->pool_pcts);
    opt.groups[0] = g->cluster; /* clusters, then sites: one edge into each (grid_pool.c) */
    opt.groups[1] = g->site;
    opt.ngroups = 2;
    /* AUTOCOLL_SA_BUDGET=time (default): wall-clock seconds (MPI_Wtime's clock under SMPI),
     * capped at one node-evaluation per 0.02 us (2.5 x faster than the measured 0.045-0.058 us
     * per node of an evaluation, so the clock ends the search wherever it moves): only a clock
     * that stands still (SMPI without simulated computation) reaches the cap, and the search
     * still ends, after about 2.5 x its budget of real time. =evals: node-evaluations at the
     * assumed rate of spec 16.4, 2 us per evaluation per node (an evaluation of a k-node
     * sub-problem counts k): bit-exact reruns. Only the root searches and the tree travels with
     * the data, so a clock-dependent result never has to agree between ranks. */
    opt.evals_per_node = 1;
    ac_grid_budget_t bud = {AC_GRID_BUDGET_EVALS, floor(seconds / 2e-6), 0};
    if (!st->sa_budget_evals) {
        bud.mode = AC_GRID_BUDGET_TIME;
        bud.amount = seconds;
        bud.cap = fmax(1.0, floor(seconds / 2e-8)); /* never 0, which would mean no cap */
    }
    if (bud.amount <= 0 || (bud.mode == AC_GRID_BUDGET_EVALS && bud.amount < 1)) return;
    slot_load(g, s, root, b);
    int p = g->p;
    int *par = malloc((size_t)p * sizeof *par);
    ac_grid_eval_t *e = ac_grid_eval_new(p);
    ac_grid_search_t *se = ac_grid_search_new(&M, &opt);
    const ac_grid_tree_t *g2 = g2_for(g, root);
    if (!par || !e || !se || !g2) goto fn_exit;
    double c_new = ac_grid_clustered_sa(se, root, bud, par);
    /* Relay step on the search result (grid_relay.c), then every candidate costed with the
     * sites' links shared: the same as the plain model for the G2 family. */
    double c_old, c_g2;
    ac_grid_shared_t *sh = ac_grid_shared_new(&M, g->site), *hw = NULL;
    if (sh && g->Bmin && AC_GRID_HEDGE > 0) {
        ac_grid_model_t Mw = M;
        Mw.B = g->Bmin;
        if ((hw = ac_grid_shared_new(&Mw, g->site)) != NULL)
            ac_grid_shared_hedge(sh, hw, AC_GRID_HEDGE);
    }
    if (sh) {
        double c0 = ac_grid_shared_cost(sh, par);
        long ne = 0;
        c_new = ac_grid_relay_refine(sh, g->cluster, AC_GRID_RELAY_PASSES, AC_GRID_RELAY_GAIN, par,
                                     &ne);
        c_old = s->valid && s->t.root == root ? ac_grid_shared_cost(sh, s->t.parent) : INFINITY;
        c_g2 = ac_grid_shared_cost(sh, g2->parent);
        /* the step also from the stored tree and from G2: the search result is one of many
         * trees the model costs within a few percent, the step may find a better one near
         * the others */
        int *alt = malloc((size_t)p * sizeof *alt);
        for (int k = 0; alt && k < 2; k++) {
            const int *from = k == 0 ? (isfinite(c_old) ? s->t.parent : NULL) : g2->parent;
            if (!from) continue;
            memcpy(alt, from, (size_t)p * sizeof *alt);
            long ne2 = 0;
            double c = ac_grid_relay_refine(sh, g->cluster, AC_GRID_RELAY_PASSES,
                                            AC_GRID_RELAY_GAIN, alt, &ne2);
            ne += ne2;
            if (c < c_new) {
                c_new = c;
                memcpy(par, alt, (size_t)p * sizeof *alt);
            }
        }
        free(alt);
        if (ac_g.set.verbose >= 2)
            ac_log(
                "grid_adaptive: root %d bucket %d: relay step %.6g -> %.6g s (%ld evaluations)\n",
                root, b, c0, c_new, ne);
        ac_grid_shared_free(sh);
        ac_grid_shared_free(hw);
    } else {
        c_old = s->valid && s->t.root == root ? ac_grid_cost(e, &M, s->t.parent) : INFINITY;
        c_g2 = ac_grid_cost(e, &M, g2->parent);
    }
    /* The cheaper of new and stored only when it beats G2 on the current matrices, else G2
     * (the margin of AUTOCOLL_GRID_MARGIN is applied per call, in ac_grid_tree_for). */
    int pick = ac_grid_safe_choice(c_new, c_old, c_g2, 0);
    if (pick == AC_GRID_PICK_G2)
        slot_put(g, s, &M, g2->parent);
    else if (pick == AC_GRID_PICK_NEW)
        slot_put(g, s, &M, par);
    else { /* kept: now judged on the current matrices */
        s->version = g->version;
        s->cost = c_old;
    }
    s->searched = 1;
    g->adv_runs++;
    slot_save(g, s, root, b);
    if (ac_g.set.verbose >= 2)
        ac_log("grid_adaptive: root %d bucket %d matrices v%ld: tree cost %.3g s (search %.3g, "
               "stored %.3g, g2 %.3g)\n",
               root, b, g->version, s->cost, c_new, c_old, c_g2);
fn_exit:
    free(par);
    ac_grid_eval_free(e);
    ac_grid_search_free(se);
}

void ac_grid_advise(ac_grid_comm_t *g, int root, double m, double now) {
    double prev = g->nh ? g->hist[g->nh - 1].t : now;
    if (g->nh == AC_GRID_HIST) {
        memmove(g->hist, g->hist + 1, (AC_GRID_HIST - 1) * sizeof g->hist[0]);
        g->nh--;
    }
    g->hist[g->nh].t = now;
    g->hist[g->nh++].m = m;
    if (!g->version || g->nh < 2) return;
    slots_for_root(g, root);
    ac_grid_pred_t pr;
    if (!ac_grid_predict(g->hist, g->nh, ac_g.set.adv_window,
                         ac_g.set.adv_gaplog ? AC_GRID_GAP_LOG : AC_GRID_GAP_LINEAR, &pr))
        return;
    double total = ac_g.set.adv_fraction * (now - prev);
    if (total <= 0) return;
    double c0 = cpu_now();
    for (long step = 0; step < 3; step++) {
        ac_grid_plan_t pl;
        ac_grid_plan_step(&pr, step, &pl);
        if (pl.bucket < 0 || pl.bucket >= AC_GRID_NB) continue;
        double share = step == 0 ? 0.6 : 0.2;
        search_bucket(g, root, pl.bucket, share * total);
    }
    g->adv_cpu += cpu_now() - c0;
}
