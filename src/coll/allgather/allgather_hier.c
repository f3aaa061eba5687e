/*
 * Algorithm: hierarchical, node-aware: (1) every rank sends its block to its node leader
 *   (node rank 0, over ctx->node_comm), which receives each member's block straight into the
 *   member's slot of rbuf; (2) each leader packs the blocks of its node's ranks, in rank order,
 *   into a scratch buffer at its node's segment (node n's segment = the blocks of the ranks r
 *   with node_of[r] = n, in rank order; segments in node order) and the leaders run an in-place
 *   allgatherv of the segments over ctx->leader_comm (leader_comm rank = node index) with the
 *   flat algorithm given by parameter inter; (3) the leader unpacks the other nodes' segments
 *   into their final slots, which puts every block where it belongs for any placement
 *   (sequential, cyclic, irregular; blocks of a node need not be adjacent) and any number of
 *   ranks per node; (4) binomial broadcast of all blocks inside the node over node_comm (one
 *   message per edge, an indexed datatype over all slots).
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h):
 *   a node segment holds its blocks' counts.
 * Cost: intra gather (ppn-1)(alpha + n beta) + inter allgatherv of nnodes segments of ppn n
 *   bytes + 2 copies of (p - ppn) n bytes + ceil(log2 ppn)(alpha + p n beta).
 *   allgatherv: intra gatherv + leaders' allgatherv + intra bcast; n_j = bytes of block j.
 * Restrictions: none (one node: the inter step is trivial). Memory: scratch of p blocks on
 *   leaders. Parameter inter = flat allgatherv algorithm run among the leaders.
 * Reference: seed 001 (Loch 2021) sections 5.1-5.3 (placement and locality, spec sparbit.md 4);
 *   seed 000 (Faraj 2006) section 5.2 future work 2 (SMP-aware collectives).
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 * Tracing: step records (src/coll/hier_stage.c; seed 003 §4): (1) intra-node gather, (2) the
 *   leaders' allgatherv (inter-node exchange; packing and unpacking are local work outside the
 *   steps), (4) intra-node broadcast; and part_tree / part_child records of (1) as a flat gather
 *   tree (t1,i: member i's block completed, in arrival order with Waitany when traced; t2: the
 *   leader has every block, a member just before its send) and of (4) as the binomial bcast
 *   tree (t3: the blocks are here, root: entry; t4,i: just before the send to child i).
 */
#include <limits.h>
#include <stdlib.h>
#include "../algs.h"
#include "ag_common.h"
#include "../hier_stage.h"

int ac_allgather_hier(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    /* Node and leader communicators: made by the dispatcher before a top-level call, here when
     * a composite runs this algorithm on a context of its own (agreed, collective). */
    int nodes_err = ac_ctx_nodes(ctx);
    if (nodes_err != MPI_SUCCESS) return nodes_err;
    ac_agb_t g;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, nn = ctx->nnodes;
    int ntag = AC_TAG(a);
    const ac_alg_t *inter = ac_param_alg(in, "inter");
    int *members = NULL, *ncount = NULL, *ndispl = NULL, *seg = NULL, *blk = NULL;
    void *tbase = NULL;
    MPI_Request *req = NULL;
    /* inter is never node-aware: the registry refuses such parts where they are named. */
    AC_CHECK(ac_agb_setup(a, &g));
    if (p == 1) return MPI_SUCCESS;
    int ns = ctx->node_size, nr = ctx->node_rank;
    members = malloc((size_t)ns * sizeof *members);
    blk = malloc((size_t)p * sizeof *blk);
    req = malloc((size_t)(ns > 1 ? ns : 1) * sizeof *req);
    ncount = calloc((size_t)nn, sizeof *ncount);
    ndispl = malloc((size_t)nn * sizeof *ndispl);
    seg = malloc((size_t)p * sizeof *seg); /* element offset of every block in scratch */
    if (!members || !blk || !req || !ncount || !ndispl || !seg) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    /* element counts of the node segments, identical on every rank */
    long long tot = 0;
    {
        long long *cnt = calloc((size_t)nn, sizeof *cnt);
        if (!cnt) {
            err = MPI_ERR_NO_MEM;
            goto fn_exit;
        }
        for (int r = 0; r < p; r++)
            cnt[ctx->node_of[r]] += ac_agb_count(&g, r);
        for (int n = 0; n < nn; n++)
            tot += cnt[n];
        long long off = 0;
        for (int n = 0; n < nn; n++) {
            ncount[n] = (int)cnt[n];
            ndispl[n] = (int)off;
            off += cnt[n];
        }
        for (int r = 0; r < p; r++) {
            int n = ctx->node_of[r];
            seg[r] = ndispl[n];
            ndispl[n] += ac_agb_count(&g, r);
        }
        off = 0;
        for (int n = 0; n < nn; n++) {
            ndispl[n] = (int)off;
            off += cnt[n];
        }
        free(cnt);
    }
    /* tot fits an int: the dispatcher describes the call in a unit that keeps the whole receive
     * buffer within INT_MAX elements (core/sig.c), so counts and displacements above do too. */
    for (int r = 0, i = 0; r < p; r++)
        if (ctx->node_of[r] == ctx->node_id) members[i++] = r;

    ac_hier_steps_t hs;
    ac_hier_begin(&hs, a, ctx);
    /* (1) intra-node gather to the leader: traced, a flat gather tree (members send to the
     * leader; their blocks are completed in arrival order and stamped, t1,i) */
    ac_hier_tree_begin(&hs, ns);
    int64_t t_in = ac_hier_now(&hs);
    if (nr == 0) {
        int nreq = 0;
        for (int i = 1; i < ns && err == MPI_SUCCESS; i++)
            err = PMPI_Irecv(ac_agb_addr(&g, members[i]), ac_agb_count(&g, members[i]), g.type, i,
                             ntag, ctx->node_comm, &req[nreq++]);
        if (err == MPI_SUCCESS) err = ac_hier_gather_wait(&hs, nreq, req, t_in);
    } else {
        ac_hier_run(&hs, AC_PART_GATHER, 0, t_in, ac_hier_now(&hs));
        err = PMPI_Send(ac_agb_addr(&g, me), ac_agb_count(&g, me), g.type, 0, ntag, ctx->node_comm);
    }
    ac_hier_tree_end(&hs, a, ctx, AC_HIER_INTRA, ctx->node_comm,
                     nr == 0 ? ncount[ctx->node_id] : ac_agb_count(&g, me), g.type, err);
    if (err != MPI_SUCCESS) goto fn_exit;
    ac_hier_step(&hs, a, ctx, AC_HIER_INTRA, AC_PART_GATHER, nr, ns,
                 nr == 0 ? ncount[ctx->node_id] : ac_agb_count(&g, me), g.type);

    /* (2)-(3) leaders: pack, allgatherv of node segments, unpack */
    if (nr == 0 && nn > 1) {
        char *tmp = ac_dt_alloc(g.type, (size_t)(tot > 0 ? tot : 1), &tbase);
        if (!tmp) {
            err = MPI_ERR_NO_MEM; /* leaders only: the node broadcast below would hang */
            goto fn_exit;
        }
        for (int i = 0; i < ns; i++) {
            int r = members[i];
            AC_CHECK(ac_dt_copy(ac_agb_addr(&g, r), ac_agb_count(&g, r), g.type,
                                tmp + (MPI_Aint)seg[r] * g.ext, ac_agb_count(&g, r), g.type));
        }
        ac_args_t sub = ac_part_allgatherv(a, ctx->leader_comm, tmp, ncount, ndispl, g.type);
        sub.ucomm = ctx->leader_comm; /* a native part runs on the leaders' communicator */
        ac_hier_mark(&hs);
        AC_CHECK(ac_run_part_alg(&sub, inter, ctx));
        ac_hier_step(&hs, a, ctx, AC_HIER_INTER, AC_PART_EXCHANGE, ctx->node_id, nn, tot, g.type);
        for (int r = 0; r < p; r++)
            if (ctx->node_of[r] != ctx->node_id)
                AC_CHECK(ac_dt_copy(tmp + (MPI_Aint)seg[r] * g.ext, ac_agb_count(&g, r), g.type,
                                    ac_agb_addr(&g, r), ac_agb_count(&g, r), g.type));
    }

    /* (4) binomial broadcast of all blocks inside the node (node ranks); traced, a bcast tree
     * (t3 the blocks are here, t4,i just before the send to child i) */
    if (ns > 1) {
        ac_hier_mark(&hs);
        ac_hier_tree_begin(&hs, ns);
        ac_agb_t gn = g;
        gn.comm = ctx->node_comm;
        int n = ac_agb_range(blk, 0, p, p), mask = 1;
        while (mask < ns && !(nr & mask))
            mask <<= 1;
        t_in = ac_hier_now(&hs);
        if (nr > 0) {
            err = ac_agb_irecv(&gn, blk, n, nr - mask, &req[0]);
            if (err == MPI_SUCCESS) err = PMPI_Wait(&req[0], MPI_STATUS_IGNORE);
        }
        /* root: t3 = entry */
        ac_hier_run(&hs, AC_PART_BCAST, nr > 0 ? nr - mask : -1, t_in,
                    nr > 0 ? ac_hier_now(&hs) : t_in);
        int nreq = 0;
        for (int m = mask >> 1; m >= 1 && err == MPI_SUCCESS; m >>= 1)
            if (nr + m < ns) {
                ac_hier_run_child(&hs, nr + m, ac_hier_now(&hs));
                err = ac_agb_isend(&gn, blk, n, nr + m, &req[nreq++]);
            }
        if (err == MPI_SUCCESS) err = PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        ac_hier_tree_end(&hs, a, ctx, AC_HIER_INTRA, ctx->node_comm, tot, g.type, err);
        if (err != MPI_SUCCESS) goto fn_exit;
        ac_hier_step(&hs, a, ctx, AC_HIER_INTRA, AC_PART_BCAST, nr, ns, tot, g.type);
    }
fn_exit:
    free(tbase);
    free(members);
    free(blk);
    free(req);
    free(ncount);
    free(ndispl);
    free(seg);
    return err;
}
