/*
 * Algorithm: linear: every rank sends an empty message to rank 0; once rank 0 has them all it
 *   sends an empty message back to every rank.
 * Cost: 2(p-1) alpha.
 * Restrictions: none. Memory: none.
 * Reference: seed 000 (Faraj 2006), barrier used by STAR-MPI's barrier variants; linear barrier.
 */
#include "../../core/ac.h"

int ac_barrier_linear(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size;
    if (a->rank != 0) {
        AC_CHECK(PMPI_Send(NULL, 0, MPI_BYTE, 0, AC_TAG(a), a->comm));
        return PMPI_Recv(NULL, 0, MPI_BYTE, 0, AC_TAG(a), a->comm, MPI_STATUS_IGNORE);
    }
    for (int i = 1; i < p; i++)
        AC_CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, i, AC_TAG(a), a->comm, MPI_STATUS_IGNORE));
    for (int i = 1; i < p; i++)
        AC_CHECK(PMPI_Send(NULL, 0, MPI_BYTE, i, AC_TAG(a), a->comm));
fn_exit:
    return err;
}
