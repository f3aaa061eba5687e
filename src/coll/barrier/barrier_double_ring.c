/*
 * Algorithm: double ring: an empty token travels 0 -> 1 -> ... -> p-1 -> 0 twice. A rank
 *   forwards the first token once it has arrived; when the token is back at rank 0 every rank
 *   has arrived, and the second lap releases the ranks in ring order.
 * Cost: 2p alpha.
 * Restrictions: none. Memory: none.
 * Reference: seed 000 (Faraj 2006), §3.3.1 logical ring pattern applied to synchronisation
 *   (spec star-stage-ethernet section 2.0, light-weight tokens).
 */
#include "../../core/ac.h"

int ac_barrier_double_ring(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, tag = AC_TAG(a);
    int next = (me + 1) % p, prev = (me - 1 + p) % p;
    if (p == 1) return MPI_SUCCESS;
    for (int lap = 0; lap < 2; lap++) {
        if (me == 0) {
            AC_CHECK(PMPI_Send(NULL, 0, MPI_BYTE, next, tag, a->comm));
            AC_CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, prev, tag, a->comm, MPI_STATUS_IGNORE));
        } else {
            AC_CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, prev, tag, a->comm, MPI_STATUS_IGNORE));
            AC_CHECK(PMPI_Send(NULL, 0, MPI_BYTE, next, tag, a->comm));
        }
    }
fn_exit:
    return err;
}
