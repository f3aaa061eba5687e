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
 */
#include <stdlib.h>
#include "../algs.h"

static void on(ac_args_t *x, const ac_ctx_t *c, MPI_Comm ucomm) {
    x->comm = c->comm;
    x->ucomm = ucomm;
    x->rank = c->rank;
    x->size = c->size;
}

int ac_allreduce_hierarchical(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    /* Node and leader communicators: made by the dispatcher before a top-level call, here when
     * a composite runs this algorithm on a context of its own (agreed, collective). */
    int nodes_err = ac_ctx_nodes(ctx);
    if (nodes_err != MPI_SUCCESS) return nodes_err;
    int err = MPI_SUCCESS, n = a->rcount;
    void *tbase = NULL;
    ac_ctx_t *nctx = NULL, *lctx = NULL;
    ac_inst_t ri, ii, bi;
    ac_inst_default(ac_param_alg(in, "reduce"), &ri);
    ac_inst_default(ac_param_alg(in, "inter"), &ii);
    ac_inst_default(ac_param_alg(in, "bcast"), &bi);
    AC_CHECK(ac_ctx_get(ctx->node_comm, &nctx));
    ac_args_t r = *a;
    r.coll = AUTOCOLL_REDUCE;
    r.root = 0;
    on(&r, nctx, ctx->node_comm);
    if (nctx->rank == 0) {
        r.sbuf = a->inplace ? MPI_IN_PLACE : a->sbuf;
    } else if (a->inplace) {
        r.sbuf = a->rbuf;
        r.inplace = 0;
        if (!(r.rbuf = ac_dt_alloc(a->rtype, (size_t)n, &tbase))) {
            err = MPI_ERR_NO_MEM;
            goto fn_exit;
        }
    }
    AC_CHECK(ac_run_part(&r, &ri, nctx));
    if (ctx->nnodes > 1 && ctx->leader_comm != MPI_COMM_NULL) {
        AC_CHECK(ac_ctx_get(ctx->leader_comm, &lctx));
        ac_args_t x = *a;
        x.coll = AUTOCOLL_ALLREDUCE;
        x.sbuf = MPI_IN_PLACE;
        x.inplace = 1;
        on(&x, lctx, ctx->leader_comm);
        AC_CHECK(ac_run_part(&x, &ii, lctx));
    }
    ac_args_t b = *a;
    b.coll = AUTOCOLL_BCAST;
    b.root = 0;
    b.sbuf = NULL;
    b.inplace = 0;
    b.op = MPI_OP_NULL;
    b.scount = n;
    b.stype = a->rtype;
    on(&b, nctx, ctx->node_comm);
    AC_CHECK(ac_run_part(&b, &bi, nctx));
fn_exit:
    free(tbase);
    return err;
}
