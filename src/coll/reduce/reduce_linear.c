/*
 * Algorithm: linear: every rank sends its vector to the root; the root combines them in rank
 *   order, x_0 op (x_1 op (... op x_{p-1})), receiving from p-1 down to 0 (MPI_Reduce_local
 *   computes inout = in op inout), so non-commutative operations are correct.
 * Cost: (p-1)(alpha + n beta + n gamma) at the root.
 * Restrictions: none. Memory: two vectors at the root.
 * Reference: seed 000 (Faraj 2006), STAR-MPI reduce repository, linear algorithm.
 */
#include <stdlib.h>
#include "../../core/ac.h"

int ac_reduce_linear(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, n = a->rcount;
    MPI_Datatype t = a->rtype;
    void *accbase = NULL, *tmpbase = NULL;
    /* A composite may hand an in-place flag to a non-root: its data then sits in rbuf. */
    const void *mine = a->inplace ? a->rbuf : a->sbuf;
    if (me != a->root) return PMPI_Send(mine, n, t, a->root, AC_TAG(a), a->comm);
    char *acc = ac_dt_alloc(t, (size_t)n, &accbase);
    char *tmp = ac_dt_alloc(t, (size_t)n, &tmpbase);
    if (!acc || !tmp) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    for (int r = p - 1; r >= 0; r--) {
        char *dst = (r == p - 1) ? acc : tmp;
        if (r == me)
            AC_CHECK(ac_dt_copy(mine, n, t, dst, n, t));
        else
            AC_CHECK(PMPI_Recv(dst, n, t, r, AC_TAG(a), a->comm, MPI_STATUS_IGNORE));
        if (r != p - 1) AC_CHECK(PMPI_Reduce_local(tmp, acc, n, t, a->op));
    }
    AC_CHECK(ac_dt_copy(acc, n, t, a->rbuf, n, t));
fn_exit:
    free(accbase);
    free(tmpbase);
    return err;
}
