/*
 * Algorithm: hierarchical barrier: every rank of a node reports to its leader (node rank 0)
 *   with an empty message on ctx->node_comm; the leaders run a dissemination barrier on
 *   ctx->leader_comm (rounds 2^j over node indices); each leader then releases its node.
 * Cost: 2(ppn - 1) alpha_intra + ceil(lg nnodes) alpha_inter.
 * Restrictions: none. Memory: none.
 * Reference: seed 000 (Faraj 2006), §4.4 future work (SMP-aware collectives); two-level
 *   structure of seed 003 (Bongo et al.; spec allreduce-trees).
 */
#include "../../core/ac.h"

int ac_barrier_hier(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    /* Node and leader communicators: made by the dispatcher before a top-level call, here when
     * a composite runs this algorithm on a context of its own (agreed, collective). */
    int nodes_err = ac_ctx_nodes(ctx);
    if (nodes_err != MPI_SUCCESS) return nodes_err;
    (void)in;
    int err = MPI_SUCCESS, tag = AC_TAG(a), ns = ctx->node_size, nn = ctx->nnodes;
    if (ctx->node_rank != 0) {
        AC_CHECK(PMPI_Send(NULL, 0, MPI_BYTE, 0, tag, ctx->node_comm));
        AC_CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, 0, tag, ctx->node_comm, MPI_STATUS_IGNORE));
        goto fn_exit;
    }
    for (int i = 1; i < ns; i++)
        AC_CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, i, tag, ctx->node_comm, MPI_STATUS_IGNORE));
    for (int d = 1; d < nn; d <<= 1)
        AC_CHECK(PMPI_Sendrecv(NULL, 0, MPI_BYTE, (ctx->node_id + d) % nn, tag, NULL, 0, MPI_BYTE,
                               (ctx->node_id - d + nn) % nn, tag, ctx->leader_comm,
                               MPI_STATUS_IGNORE));
    for (int i = 1; i < ns; i++)
        AC_CHECK(PMPI_Send(NULL, 0, MPI_BYTE, i, tag, ctx->node_comm));
fn_exit:
    return err;
}
