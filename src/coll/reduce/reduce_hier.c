/*
 * Algorithm: hierarchical two-level reduce: the intra-node algorithm reduces every node onto
 *   its leader (node rank 0) on ctx->node_comm; the leaders run the inter-node algorithm on
 *   ctx->leader_comm onto the leader of the root's node (leader_comm rank = node index), which
 *   hands the result to the root when the root is not the leader.
 * Cost: T_intra(ppn, n) + T_inter(nnodes, n) (+ alpha + n beta to a non-leader root).
 * Restrictions: COMMUTATIVE (node ranks need not be contiguous). Memory: two vectors on leaders.
 * Reference: seed 000 (Faraj 2006), §4.4 future work (SMP-aware collectives); two-level trees of
 *   seed 003 (Bongo et al.) (spec allreduce-trees, hierarchy).
 * Tracing: the trees of the parts leave stage records labelled intra-node / inter-node
 *   (src/coll/hier_stage.c, seed 003 §4); the hand-off of the result to a non-leader root is an
 *   intra-node reduce step of its own on the leader and the root.
 */
#include <stdlib.h>
#include "../hier_stage.h"

/* The reduction of sbuf into rbuf at root on comm (a node or the leader communicator), the
 * call's stage `stage` (its trees traced as such, src/coll/hier_stage.c). */
static int part(const ac_args_t *a, MPI_Comm comm, int root, const void *sbuf, void *rbuf,
                const ac_alg_t *alg, ac_ctx_t *ctx, int stage) {
    ac_args_t b = ac_part_args(a, a->coll, comm, root, sbuf, rbuf, a->rcount, a->rtype);
    return ac_hier_part(a, ctx, stage, &b, alg, ctx);
}

int ac_reduce_hier(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    /* Node and leader communicators: made by the dispatcher before a top-level call, here when
     * a composite runs this algorithm on a context of its own (agreed, collective). */
    int nodes_err = ac_ctx_nodes(ctx);
    if (nodes_err != MPI_SUCCESS) return nodes_err;
    int err = MPI_SUCCESS, n = a->rcount, tag = AC_TAG(a);
    MPI_Datatype t = a->rtype;
    const ac_alg_t *inter = ac_param_alg(in, "inter"), *intra = ac_param_alg(in, "intra");
    const void *mine = a->inplace ? a->rbuf : a->sbuf;
    void *b1 = NULL, *b2 = NULL;
    char *node_res = NULL, *all_res = NULL;
    int rnode = ctx->node_of[a->root], rlocal = 0, leader = ctx->node_rank == 0;
    if (n == 0) return MPI_SUCCESS;
    for (int r = 0; r < a->root; r++)
        rlocal += ctx->node_of[r] == rnode;
    if (leader) {
        node_res = ac_dt_alloc(t, (size_t)n, &b1);
        all_res = ac_dt_alloc(t, (size_t)n, &b2);
        if (!node_res || !all_res) {
            err = MPI_ERR_NO_MEM;
            goto fn_exit;
        }
    }
    AC_CHECK(part(a, ctx->node_comm, 0, mine, node_res, intra, ctx, AC_HIER_INTRA));
    const char *res = node_res;
    if (leader && ctx->nnodes > 1) {
        AC_CHECK(part(a, ctx->leader_comm, rnode, node_res, ctx->node_id == rnode ? all_res : NULL,
                      inter, ctx, AC_HIER_INTER));
        res = all_res;
    }
    if (ctx->node_id == rnode) {
        ac_hier_steps_t hs;
        ac_hier_begin(&hs, a, ctx);
        if (rlocal != 0 && (leader || ctx->node_rank == rlocal)) {
            if (leader)
                AC_CHECK(PMPI_Send(res, n, t, rlocal, tag, ctx->node_comm));
            else
                AC_CHECK(PMPI_Recv(a->rbuf, n, t, 0, tag, ctx->node_comm, MPI_STATUS_IGNORE));
            ac_hier_step(&hs, a, ctx, AC_HIER_INTRA, AC_PART_REDUCE, leader ? 0 : 1, 2, n, t);
        } else if (leader && rlocal == 0)
            AC_CHECK(ac_dt_copy(res, n, t, a->rbuf, n, t));
    }
fn_exit:
    free(b1);
    free(b2);
    return err;
}
