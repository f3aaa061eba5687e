/*
 * Algorithm: network-aware adaptive broadcast for multi-cluster grids. The root takes the tree
 *   the advisor stored for the size bucket round(log2 m) (else b+1, b-1, else the static G2
 *   tree) and sends the data down it; the tree travels with the data. Each message starts with
 *   a 16-byte header {magic | flags, seq, tree version, npairs} and the receiver's own subtree
 *   in preorder as (rank, number of children) int32 pairs, so a node forwards to child k only
 *   the slice describing child k's subtree. Up to AUTOCOLL_BCAST_PACK_MAX bytes (64 KiB) the
 *   payload is copied after the header into one message; above, header and payload still
 *   travel as one message, of a struct type made of the whole header area (16 + 8p bytes,
 *   whatever the subtree) and the user's buffer with the user's datatype, so no copy is made
 *   and no edge pays a second latency (a separate header message cost about 6 % of a 1 MiB
 *   broadcast on grid64, docs/reports/grid.md).
 *   Sends go to the children in stored order, one blocking send after the other (the model's
 *   assumption). Receivers take the header from any source on this call's tag: seq is the
 *   call's tag range (AC_TAG, advanced by every call on every rank), so back-to-back
 *   broadcasts with different trees can never take each other's messages, and the header's seq
 *   is checked against the receiver's own. This is the only algorithm that receives from any
 *   source: only the root knows the tree, and within one call each rank receives exactly one
 *   header. Flag bit 0 asks every rank to join a measurement sweep after the data (grid_state.c).
 *   Above the packing limit the root times each of its own blocking sends (they end at
 *   delivery) and a departure from the model calls a sweep at its next broadcast
 *   (AUTOCOLL_PROBE_EARLY, grid_state.c). Flag bit 1 (same condition) asks every other node
 *   that sends into another cluster to time those sends and report them, (child, seconds)
 *   pairs, to the root right after the last of them, with the call's token tag; the root
 *   posts the receives after its own sends and completes and checks them at the start of its
 *   next grid broadcast (ac_grid_reports_finish), so the call never waits for them (waiting
 *   cost 2.5 % of G2's time on grid64: the last report arrived after the last leaf). After
 *   its sends the root runs the advisor step.
 * Cost: the model of spec section 5 on the measured matrices,
 *   cost(T) = max_v R(v), R(c_j) = R(v) + sum_{i<=j} (o[v] + (m + h_i)/B[v][c_i]) + L[v][c_j],
 *   h_i = 16 + 8 x |subtree(c_i)| header bytes (<= 528 B at p = 64; 16 + 8p above the packing
 *   limit); plus, every
 *   AUTOCOLL_PROBE_PERIOD seconds, one sweep (grid_state.c).
 * Restrictions: AUTOCOLL_R_GRID (two or more clusters declared by AUTOCOLL_GRID_CLUSTERS).
 *   Memory: 16 + 8p + m bytes when packed, 16 + 8p otherwise; the tree store at the root.
 * Reference: seed 002 (Gupta & Vadhiyar), §2.5 and §3; spec adaptive-bcast-grid.md sections
 *   11 (transport), 5-10 (model, search, advisor).
 */
#include <stdlib.h>
#include <string.h>
#include "grid_bcast.h"

enum { HDR = 4, MAGIC = 0x47420000, F_PROBE = 1, F_REPORT = 2 };

/* A random tree (test aid AUTOCOLL_GRID_RANDOM_TREES): children in rank order. */
static int random_tree(ac_grid_comm_t *g, int root, ac_grid_tree_t *t) {
    int p = g->p;
    if (ac_grid_tree_alloc(t, p) != 0) return -1;
    ac_grid_rng_t r;
    ac_grid_rng_seed(&r, (uint64_t)ac_g.set.sa_seed * 7919u + (uint64_t)g->calls);
    ac_grid_random_tree(&r, p, root, t->parent);
    t->root = root;
    for (int v = 0; v <= p; v++)
        t->first[v] = 0;
    for (int v = 0; v < p; v++)
        if (t->parent[v] >= 0) t->first[t->parent[v] + 1]++;
    for (int v = 0; v < p; v++)
        t->first[v + 1] += t->first[v];
    int k = 0;
    for (int u = 0; u < p; u++)
        for (int v = 0; v < p; v++)
            if (t->parent[v] == u) t->child[k++] = v;
    return 0;
}

/* Send to each child its header and slice (and the payload, packed or separately). buf holds
 * room for HDR + 2p int32 before the payload at buf + off_pay when packed. */
static int forward(const ac_args_t *a, const int32_t *pre, int npairs, int32_t flags,
                   int32_t version, char *buf, size_t off_pay, size_t m, int packed,
                   MPI_Datatype ht, ac_grid_comm_t *g) {
    int err = MPI_SUCCESS, p = a->size, tag = AC_TAG(a);
    int *cr = malloc((size_t)p * sizeof *cr), *cf = malloc((size_t)p * sizeof *cf);
    int *cl = malloc((size_t)p * sizeof *cl);
    double *rep = malloc((size_t)(2 * p) * sizeof *rep);
    if (!cr || !cf || !cl || !rep) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    int k = ac_grid_pre_split(pre, npairs, p, a->rank, cr, cf, cl);
    if (k < 0) {
        err = MPI_ERR_INTERN;
        goto fn_exit;
    }
    /* F_REPORT (above the packing limit): a sender other than the root times its sends into
     * other clusters and reports them to the root right after the last of them. */
    int lastx = -1, nx = 0;
    if ((flags & F_REPORT) && g && a->rank != a->root)
        for (int c = 0; c < k; c++)
            if (g->cluster[cr[c]] != g->cluster[a->rank]) lastx = c;
    for (int c = 0; c < k; c++) {
        size_t hl = (size_t)(HDR + 2 * cl[c]) * sizeof(int32_t);
        /* packed: the header right before the payload; else at buf, sent with the payload in
         * one message of type ht (the whole header area, then the user's buffer) */
        char *h = packed ? buf + off_pay - hl : buf;
        int32_t hd[HDR] = {MAGIC | flags, a->tag_base, version, cl[c]};
        memcpy(h, hd, sizeof hd);
        memcpy(h + sizeof hd, pre + 2 * cf[c], (size_t)cl[c] * 2 * sizeof(int32_t));
        double t0 = PMPI_Wtime();
        if (packed)
            AC_CHECK(PMPI_Send(h, (int)(hl + m), MPI_BYTE, cr[c], tag, a->comm));
        else
            AC_CHECK(PMPI_Send(buf, 1, ht, cr[c], tag, a->comm));
        /* the root's own edges: a blocking send of a large message ends at delivery */
        if (a->rank == a->root && !packed && g)
            ac_grid_edge_seen(g, a->root, cr[c], (double)(m + off_pay), PMPI_Wtime() - t0);
        if (lastx >= 0 && g->cluster[cr[c]] != g->cluster[a->rank]) {
            rep[2 * nx] = (double)cr[c];
            rep[2 * nx + 1] = PMPI_Wtime() - t0;
            nx++;
            if (c == lastx)
                AC_CHECK(PMPI_Send(rep, 2 * nx, MPI_DOUBLE, a->root, AC_TAG_SYNC(a), a->comm));
        }
    }
fn_exit:
    free(cr);
    free(cf);
    free(cl);
    free(rep);
    return err;
}

int ac_grid_bcast_carried(const ac_args_t *a, ac_ctx_t *ctx, int kind) {
    int err = MPI_SUCCESS, p = a->size, me = a->rank;
    size_t m = (size_t)a->rcount * ac_dt_size(a->rtype);
    ac_grid_comm_t *g = ac_grid_comm_get(ctx);
    if (!g) return MPI_ERR_NO_MEM; /* same outcome on every rank: same settings and layout */
    g->calls++;
    if (m == 0) return MPI_SUCCESS; /* spec 11.7 */
    int packed = m <= (size_t)ac_g.set.pack_max;
    size_t off_pay = (size_t)(HDR + 2 * p) * sizeof(int32_t);
    char *buf = malloc(off_pay + (packed ? m : 0));
    int32_t *pre = malloc((size_t)(2 * p) * sizeof *pre);
    MPI_Datatype ht = MPI_DATATYPE_NULL;
    ac_grid_tree_t rt = {0};
    int have_rt = 0;
    int32_t flags = 0, version = 0;
    int npairs;
    const ac_grid_tree_t *tree = NULL; /* the root's tree */
    if (!buf || !pre) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    if (!packed) { /* one message: header area (always off_pay bytes), then the payload */
        memset(buf, 0, off_pay);
        MPI_Aint ab, ar;
        AC_CHECK(PMPI_Get_address(buf, &ab));
        AC_CHECK(PMPI_Get_address(a->rbuf, &ar));
        int bl[2] = {(int)off_pay, a->rcount};
        MPI_Aint disp[2] = {0, ar - ab};
        MPI_Datatype ty[2] = {MPI_BYTE, a->rtype};
        AC_CHECK(PMPI_Type_create_struct(2, bl, disp, ty, &ht));
        AC_CHECK(PMPI_Type_commit(&ht));
    }
    /* the reports of this rank's last broadcast as root: a departure calls a sweep now */
    AC_CHECK(ac_grid_reports_finish(g));
    double now = PMPI_Wtime();
    if (me == a->root) {
        const ac_grid_tree_t *t;
        long ver = 0;
        /* AUTOCOLL_GRID_NET: autocoll-netprobe measures in processes of its own; this call
         * only looks whether it wrote new matrices, and never sweeps */
        int netfile = ac_g.set.grid_net[0] != 0;
        if (netfile) ac_grid_net_load(g);
        if (ac_g.set.grid_random) {
            if (random_tree(g, a->root, &rt) != 0) {
                err = MPI_ERR_NO_MEM;
                goto fn_exit;
            }
            have_rt = 1;
            t = &rt;
        } else {
            t = ac_grid_tree_for(g, kind, a->root, (double)m, &ver);
            if (kind == AC_GRID_KIND_ADAPTIVE) ac_grid_log_choice(g, a->root, (double)m, t);
        }
        if (!t) {
            err = MPI_ERR_NO_MEM;
            goto fn_exit;
        }
        if (!netfile &&
            (!g->version || now - g->probe_time >= ac_g.set.probe_period || g->probe_due))
            flags |= F_PROBE;
        /* the other senders' reports (they call early sweeps): only where a send ends at
         * delivery, only for the tree search's own trees (not the test aid of random trees) */
        if (kind == AC_GRID_KIND_ADAPTIVE && !packed && g->version && ac_g.set.probe_early &&
            !ac_g.set.grid_random && !netfile)
            flags |= F_REPORT;
        tree = t;
        version = (int32_t)ver;
        npairs = ac_grid_pre_encode(t, a->root, pre);
        if (packed) memcpy(buf + off_pay, a->rbuf, m);
    } else {
        MPI_Status st;
        int got;
        if (packed)
            AC_CHECK(PMPI_Recv(buf, (int)(off_pay + m), MPI_BYTE, MPI_ANY_SOURCE, AC_TAG(a),
                               a->comm, &st));
        else
            AC_CHECK(PMPI_Recv(buf, 1, ht, MPI_ANY_SOURCE, AC_TAG(a), a->comm, &st));
        AC_CHECK(PMPI_Get_count(&st, MPI_BYTE, &got));
        int32_t hd[HDR];
        memcpy(hd, buf, sizeof hd);
        npairs = hd[3];
        size_t hl = (size_t)(HDR + 2 * (size_t)(npairs > 0 ? npairs : 0)) * sizeof(int32_t);
        if ((hd[0] & ~0xff) != MAGIC || hd[1] != a->tag_base || npairs < 1 || npairs > p ||
            (size_t)got != (packed ? hl + m : off_pay + m)) {
            err = MPI_ERR_INTERN;
            goto fn_exit;
        }
        flags = hd[0] & 0xff;
        version = hd[2];
        memcpy(pre, buf + HDR * sizeof(int32_t), (size_t)npairs * 2 * sizeof(int32_t));
        if (packed) {
            memmove(buf + off_pay, buf + hl, m); /* the payload after the largest header */
            memcpy(a->rbuf, buf + off_pay, m);
        }
    }
    AC_CHECK(forward(a, pre, npairs, flags, version, buf, off_pay, m, packed, ht,
                     kind == AC_GRID_KIND_ADAPTIVE && !ac_g.set.grid_random ? g : NULL));
    if (me == a->root && (flags & F_REPORT) && tree)
        AC_CHECK(ac_grid_reports_post(g, a, tree, (double)(m + off_pay)));
    if (flags & F_PROBE) AC_CHECK(ac_grid_probe(g, a));
    if (me == a->root && kind == AC_GRID_KIND_ADAPTIVE && !ac_g.set.grid_random)
        ac_grid_advise(g, a->root, (double)m, now);
fn_exit:
    if (ht != MPI_DATATYPE_NULL) PMPI_Type_free(&ht);
    if (have_rt) ac_grid_tree_free(&rt);
    free(buf);
    free(pre);
    return err;
}

int ac_bcast_grid_adaptive(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    return ac_grid_bcast_carried(a, ctx, AC_GRID_KIND_ADAPTIVE);
}
