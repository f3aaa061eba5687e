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
 * Tracing: the trees of the parts leave stage records labelled intra-node / inter-node
 *   (src/coll/hier_stage.c, seed 003 §4).
 */
#include "../hier_stage.h"

/* The broadcast of the caller's buffer from root on comm (a node or the leader communicator),
 * the call's stage `stage` (its trees traced as such, src/coll/hier_stage.c). */
static int part(const ac_args_t *a, MPI_Comm comm, int root, const ac_alg_t *alg, ac_ctx_t *ctx,
                int stage) {
    ac_args_t b = ac_part_args(a, a->coll, comm, root, a->sbuf, a->rbuf, a->rcount, a->rtype);
    return ac_hier_part(a, ctx, stage, &b, alg, ctx);
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
        AC_CHECK(part(a, ctx->node_comm, rlocal, intra, ctx, AC_HIER_INTRA));
        if (ctx->node_rank == 0 && ctx->nnodes > 1)
            AC_CHECK(part(a, ctx->leader_comm, rnode, inter, ctx, AC_HIER_INTER));
    } else {
        if (ctx->node_rank == 0)
            AC_CHECK(part(a, ctx->leader_comm, rnode, inter, ctx, AC_HIER_INTER));
        AC_CHECK(part(a, ctx->node_comm, 0, intra, ctx, AC_HIER_INTRA));
    }
fn_exit:
    return err;
}
