/*
 * Algorithm: linear: the root sends the whole buffer to root+1, root+2, ... in turn (blocking).
 * Cost: (p-1)(alpha + n beta).
 * Restrictions: none. Memory: none.
 * Reference: seed 000 (Faraj 2006), STAR-MPI broadcast repository, linear tree.
 */
#include "../../core/ac.h"

int ac_bcast_linear(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size;
    if (a->rank != a->root)
        return PMPI_Recv(a->rbuf, a->rcount, a->rtype, a->root, AC_TAG(a), a->comm,
                         MPI_STATUS_IGNORE);
    for (int i = 1; i < p; i++)
        AC_CHECK(PMPI_Send(a->rbuf, a->rcount, a->rtype, (a->root + i) % p, AC_TAG(a), a->comm));
fn_exit:
    return err;
}
