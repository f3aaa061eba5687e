/*
 * Algorithm: two-process exchange: rank r sends the block for 1-r and receives 1-r's block for
 *   itself in one sendrecv (sendrecv_replace of that block when in place); the own block is a
 *   local copy.
 * Cost: alpha + n beta; n = bytes of one block.
 * Restrictions: exactly two processes (AUTOCOLL_R_P2). In place: native (sendrecv_replace).
 * Memory: none.
 * Reference: seed 004 (Afsahi 2000), section 5.7 (total exchange with N = 2: one exchange
 *   step, TE1 = TE2); seed 000 (Faraj 2006) 4.1.1.1, pair with p = 2.
 */
#include "a2a_util.h"

int ac_alltoall_p2(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, other = 1 - a->rank;
    const int tag = AC_TAG(a);
    MPI_Aint rblk = (MPI_Aint)a->rcount * ac_dt_extent(a->rtype);
    char *rbuf = a->rbuf;
    if (a->inplace) {
        AC_CHECK(PMPI_Sendrecv_replace(rbuf + other * rblk, a->rcount, a->rtype, other, tag, other,
                                       tag, a->comm, MPI_STATUS_IGNORE));
    } else {
        MPI_Aint sblk = (MPI_Aint)a->scount * ac_dt_extent(a->stype);
        const char *sbuf = a->sbuf;
        AC_CHECK(PMPI_Sendrecv(sbuf + other * sblk, a->scount, a->stype, other, tag,
                               rbuf + other * rblk, a->rcount, a->rtype, other, tag, a->comm,
                               MPI_STATUS_IGNORE));
        AC_CHECK(ac_dt_copy(sbuf + a->rank * sblk, a->scount, a->stype, rbuf + a->rank * rblk,
                            a->rcount, a->rtype));
    }
fn_exit:
    return err;
}
