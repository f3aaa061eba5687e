/*
 * Algorithm: recursive-doubling barrier with fold: with p' the largest power of two <= p,
 *   ranks i >= p' first notify i - p' and wait for its release; ranks i < p' wait for i + p'
 *   (when it exists), exchange empty messages with i xor 2^j for j = 0..lg p' - 1, then release
 *   i + p'.
 * Cost: lg(p') alpha, plus 2 alpha when p is not a power of two.
 * Restrictions: none. Memory: none.
 * Reference: seed 000 (Faraj 2006), §4.1.1.1 recursive doubling and its fold for
 *   non-power-of-two p (spec star-stage-ethernet section 2.1), with empty data.
 */
#include "../../core/ac.h"

int ac_barrier_rdb(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, tag = AC_TAG(a), pp = 1;
    while (pp * 2 <= p)
        pp *= 2;
    if (me >= pp) {
        AC_CHECK(PMPI_Send(NULL, 0, MPI_BYTE, me - pp, tag, a->comm));
        AC_CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, me - pp, tag, a->comm, MPI_STATUS_IGNORE));
        goto fn_exit;
    }
    if (me + pp < p)
        AC_CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, me + pp, tag, a->comm, MPI_STATUS_IGNORE));
    for (int mask = 1; mask < pp; mask <<= 1)
        AC_CHECK(PMPI_Sendrecv(NULL, 0, MPI_BYTE, me ^ mask, tag, NULL, 0, MPI_BYTE, me ^ mask, tag,
                               a->comm, MPI_STATUS_IGNORE));
    if (me + pp < p) AC_CHECK(PMPI_Send(NULL, 0, MPI_BYTE, me + pp, tag, a->comm));
fn_exit:
    return err;
}
