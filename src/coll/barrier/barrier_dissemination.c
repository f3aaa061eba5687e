/*
 * Algorithm: dissemination barrier: in round j (2^j < p) every rank sends an empty message to
 *   (rank + 2^j) mod p and receives one from (rank - 2^j) mod p; after ceil(lg p) rounds every
 *   rank has heard, directly or transitively, from every other rank.
 * Cost: ceil(lg p) alpha.
 * Restrictions: none. Memory: none.
 * Reference: seed 000 (Faraj 2006), §4.1.1.1 (delta_h, the MPI barrier used by the _mpib and
 *   _nbar variants); seed 004 (Afsahi 2000) §5.6 (direct-offset allgather pattern, empty data).
 */
#include "../../core/ac.h"

int ac_barrier_dissemination(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, tag = AC_TAG(a);
    for (int d = 1; d < p; d <<= 1)
        AC_CHECK(PMPI_Sendrecv(NULL, 0, MPI_BYTE, (me + d) % p, tag, NULL, 0, MPI_BYTE,
                               (me - d + p) % p, tag, a->comm, MPI_STATUS_IGNORE));
fn_exit:
    return err;
}
