/*
 * Algorithm: hierarchical two-level broadcast. On the root's node the intra-node algorithm
 *   broadcasts from the root (node rank of the root) on ctx->node_comm, which gives the node
 *   leader the data; the leaders then run the inter-node algorithm on ctx->leader_comm from the
 *   root's node (leader_comm rank = node index); finally every other node runs the intra-node
 *   algorithm from its leader (node rank 0).
 * Cost: T_inter(nnodes, n) + T_intra(ppn, n) (the root's node does its intra step first).
 * Restrictions: none (one node: the inter step is empty). Memory: that of the parts.
 * Reference: seed 000 (Faraj 2006), §4.4 future work (SMP-aware collectives); two-level trees of
 *   seed 003 (Bongo et al.) applied to broadcast (spec allreduce-trees, hierarchy).
 */
#include "../algs.h"

/* The broadcast of the caller's buffer from root on comm (a node or the leader communicator). */
static int part(const ac_args_t *a, MPI_Comm comm, int root, const ac_alg_t *alg, ac_ctx_t *ctx) {
    ac_args_t b = ac_part_args(a, a->coll, comm, root, a->sbuf, a->rbuf, a->rcount, a->rtype);
    return ac_run_part_alg(&b, alg, ctx);
}

int ac_bcast_hier(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    /* Node and leader communicators: made by the dispatcher before a top-level call, here when
     * a composite runs this algorithm on a context of its own (agreed, collective). */
    int nodes_err = ac_ctx_nodes(ctx);
    if (nodes_err != MPI_SUCCESS) return nodes_err;
    int err = MPI_SUCCESS;
    const ac_alg_t *inter = ac_param_alg(in, "inter"), *intra = ac_param_alg(in, "intra");
    int rnode = ctx->node_of[a->root], rlocal = 0;
    for (int r = 0; r < a->root; r++)
        rlocal += ctx->node_of[r] == rnode;
    if (ctx->node_id == rnode) {
        AC_CHECK(part(a, ctx->node_comm, rlocal, intra, ctx));
        if (ctx->node_rank == 0 && ctx->nnodes > 1)
            AC_CHECK(part(a, ctx->leader_comm, rnode, inter, ctx));
    } else {
        if (ctx->node_rank == 0) AC_CHECK(part(a, ctx->leader_comm, rnode, inter, ctx));
        AC_CHECK(part(a, ctx->node_comm, 0, intra, ctx));
    }
fn_exit:
    return err;
}
