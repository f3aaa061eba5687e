/*
 * Algorithm: hierarchical two-level: reduce to the node leader on ctx->node_comm (parameter
 *   `reduce`), allreduce among the node leaders on ctx->leader_comm (parameter `inter`, in
 *   place, skipped on a single node), broadcast from the leader on ctx->node_comm (parameter
 *   `bcast`). The parts run with the contexts of the node and leader communicators, so their own
 *   node layout is right. Nodes combine their local ranks and then the node results in node
 *   order, which is rank order only under sequential placement: commutative operations only.
 *   Every rank receives the leaders' identical bytes.
 * Cost: T_reduce(n, ppn) + T_allreduce(n, nnodes) + T_bcast(n, ppn); n = vector bytes.
 * Restrictions: COMMUTATIVE. Memory: one vector on a non-leader that passed MPI_IN_PLACE.
 * Reference: seed 003 (Bongo et al.), spec allreduce-trees.md section 4 (composition of
 *   sub-communicator collectives: reduce on node_comm, allreduce among leaders, bcast on
 *   node_comm), seed 000 (Faraj 2006) for the inter-node algorithms.
 * Tracing: the trees of the parts (node reduce and bcast, and the leaders' part when it runs a
 *   tree) leave stage records labelled intra-node / inter-node (src/coll/hier_stage.c).
 */
#include <stdlib.h>
#include "../hier_stage.h"

int ac_allreduce_hierarchical(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    /* Node and leader communicators: made by the dispatcher before a top-level call, here when
     * a composite runs this algorithm on a context of its own (agreed, collective). */
    int nodes_err = ac_ctx_nodes(ctx);
    if (nodes_err != MPI_SUCCESS) return nodes_err;
    int err = MPI_SUCCESS, n = a->rcount;
    void *tbase = NULL;
    ac_ctx_t *nctx = NULL, *lctx = NULL;
    /* The parts run on the private communicators of the node and leader contexts; node_comm and
     * leader_comm are their user communicators. */
    AC_CHECK(ac_ctx_get(ctx->node_comm, &nctx));
    const void *sbuf = a->inplace ? MPI_IN_PLACE : a->sbuf;
    void *rbuf = a->rbuf;
    if (nctx->rank != 0 && a->inplace) {
        sbuf = a->rbuf;
        if (!(rbuf = ac_dt_alloc(a->rtype, (size_t)n, &tbase))) {
            err = MPI_ERR_NO_MEM;
            goto fn_exit;
        }
    }
    ac_args_t r = ac_part_args(a, AUTOCOLL_REDUCE, nctx->comm, 0, sbuf, rbuf, n, a->rtype);
    r.ucomm = ctx->node_comm;
    AC_CHECK(ac_hier_part(a, ctx, AC_HIER_INTRA, &r, ac_param_alg(in, "reduce"), nctx));
    if (ctx->nnodes > 1 && ctx->leader_comm != MPI_COMM_NULL) {
        AC_CHECK(ac_ctx_get(ctx->leader_comm, &lctx));
        ac_args_t x =
            ac_part_args(a, AUTOCOLL_ALLREDUCE, lctx->comm, 0, MPI_IN_PLACE, a->rbuf, n, a->rtype);
        x.ucomm = ctx->leader_comm;
        AC_CHECK(ac_hier_part(a, ctx, AC_HIER_INTER, &x, ac_param_alg(in, "inter"), lctx));
    }
    ac_args_t b = ac_part_args(a, AUTOCOLL_BCAST, nctx->comm, 0, NULL, a->rbuf, n, a->rtype);
    b.ucomm = ctx->node_comm;
    AC_CHECK(ac_hier_part(a, ctx, AC_HIER_INTRA, &b, ac_param_alg(in, "bcast"), nctx));
fn_exit:
    free(tbase);
    return err;
}
