/*
 * Network parameters of a communicator for the cost models (model.h), measured once per
 * communicator by the adaptive engine (adapt.c) the first time it meets it.
 *
 * alpha and beta: ping-pong between rank 0 and one partner, the best of a few round trips
 * after a warm-up, 8 bytes (alpha, one way) and 64 KiB (beta from the difference); once with
 * the first rank on rank 0's node and once with the first rank on another node. gamma: the
 * best of three local MPI_SUM reductions of 8192 doubles on rank 0. Rank 0 broadcasts what it
 * measured, so every rank predicts with the same figures and orders its candidates alike.
 *
 * Light measurement (racing learner, docs/adaptive.md "Learning cost"): 8 KiB instead of
 * 64 KiB, 1 large and 4 small round trips (after one small warm-up) instead of 4 and 20. On a
 * 100 Mbit/s link the full measurement costs about 70 ms, some thirty 4 KiB allreduces of a
 * 16-node cluster, paid before the first call of a communicator; the light one a tenth of it.
 * 8 KiB stays well above alpha x bandwidth on the platforms studied (about 1 KiB on the
 * 100 Mbit/s Ethernet), so beta keeps most of its accuracy.
 *
 * Reuse (docs/adaptive.md, "Reductions of a short run"): the figures are kept in the process
 * by the communicator's shape (size, nodes, ranks per node) and kind (light or full); a later
 * communicator of the same shape whose rank 0 has them (ac_net_lookup; the caller agrees)
 * gets rank 0's copy by the broadcast alone, without the ping-pongs: libraries that duplicate
 * MPI_COMM_WORLD, and applications that split it into many rows or columns, measure once.
 * Cost: one broadcast of 5 doubles instead of about 12 round trips and the broadcast.
 */
#include <math.h>
#include <stdlib.h>
#include "netmeasure.h"

enum { AC_TAG_NET = 7400, AC_NET_KEPT = 32 };

static struct {
    int p, nodes, ppn, light;
    ac_net_t net;
} kept[AC_NET_KEPT];
static int nkept, kept_next;

/* The measured figures as the 5 doubles that rank 0 broadcasts, and back. */
static void net_pack(const ac_net_t *n, double *v) {
    v[0] = n->a_intra, v[1] = n->b_intra, v[2] = n->a_inter, v[3] = n->b_inter, v[4] = n->gamma;
}

static void net_unpack(const double *v, ac_net_t *n) {
    n->a_intra = v[0], n->b_intra = v[1], n->a_inter = v[2], n->b_inter = v[3], n->gamma = v[4];
}

static int kept_find(const ac_ctx_t *ctx, int light) {
    int ppn = (ctx->size + ctx->nnodes - 1) / ctx->nnodes;
    for (int i = 0; i < nkept; i++)
        if (kept[i].p == ctx->size && kept[i].nodes == ctx->nnodes && kept[i].ppn == ppn &&
            kept[i].light == light)
            return i;
    return -1;
}

int ac_net_lookup(const ac_ctx_t *ctx, int light, ac_net_t *out) {
    ac_lock();
    int i = kept_find(ctx, light);
    if (i >= 0) *out = kept[i].net;
    ac_unlock();
    return i >= 0;
}

static void keep(const ac_ctx_t *ctx, int light, const ac_net_t *net) {
    ac_lock();
    int i = kept_find(ctx, light);
    if (i < 0) {
        if (nkept < AC_NET_KEPT)
            i = nkept++;
        else
            i = kept_next, kept_next = (kept_next + 1) % AC_NET_KEPT;
    }
    kept[i].p = ctx->size, kept[i].nodes = ctx->nnodes, kept[i].light = light;
    kept[i].ppn = (ctx->size + ctx->nnodes - 1) / ctx->nnodes;
    kept[i].net = *net;
    ac_unlock();
}

/* Ping-pong between ranks x and y; x gets alpha (one way, small messages) and beta. */
static void pingpong(MPI_Comm comm, int me, int x, int y, double *alpha, double *beta, int light) {
    enum { SMALL = 8, FULL = 65536 };
    static char fallback[FULL];
    const int LARGE = light ? 8192 : FULL, NS = light ? 4 : 20, NL = light ? 1 : 4;
    if (me != x && me != y) return;
    char *buf = malloc(FULL);
    char *b = buf ? buf : fallback;
    int peer = me == x ? y : x;
    double ts = 0, tl = 0;
    for (int pass = 0; pass < 2; pass++) {
        int len = pass ? LARGE : SMALL, reps = pass ? NL : NS;
        double best = INFINITY;
        /* First round trip: warm-up (light: only for the small messages, which warmed the
         * connection for the large one). */
        for (int i = pass && light; i <= reps; i++) {
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

void ac_net_measure(const ac_ctx_t *ctx, ac_net_t *net, int light, const ac_net_t *known) {
    ac_net_t n;
    ac_net_default(&n);
    int me = ctx->rank, intra = -1, inter = -1;
    for (int r = 1; r < ctx->size; r++) {
        if (intra < 0 && ctx->node_of[r] == ctx->node_of[0]) intra = r;
        if (inter < 0 && ctx->node_of[r] != ctx->node_of[0]) inter = r;
    }
    double v[5];
    net_pack(known && me == 0 ? known : &n, v); /* known is read on rank 0 only */
    if (!known) {
        if (intra > 0) pingpong(ctx->comm, me, 0, intra, &v[0], &v[1], light);
        if (inter > 0) pingpong(ctx->comm, me, 0, inter, &v[2], &v[3], light);
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
    }
    PMPI_Bcast(v, 5, MPI_DOUBLE, 0, ctx->comm);
    net_unpack(v, &n);
    *net = n;
    if (!known) keep(ctx, light, &n);
    if (ac_g.set.verbose >= 1 && me == 0) {
        if (known)
            ac_log("comm %ld: alpha/beta as measured on an earlier communicator of its shape",
                   ctx->id);
        else
            ac_log("comm %ld: alpha/beta intra-node %.2f us, %.3f ns/B; inter-node %.2f us, "
                   "%.3f ns/B; gamma %.3f ns/B",
                   ctx->id, 1e6 * v[0], 1e9 * v[1], 1e6 * v[2], 1e9 * v[3], 1e9 * v[4]);
    }
}
