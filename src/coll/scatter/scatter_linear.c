/*
 * Algorithm: linear: the root sends block i to rank i for i = root+1, root+2, ... (blocking).
 * Cost: (p-1)(alpha + n beta) at the root.
 * Restrictions: none. Memory: none.
 * Reference: seed 004 (Afsahi 2000), linear scatter; seed 000 (Faraj 2006).
 */
#include "../../core/ac.h"

int ac_scatter_linear(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, me = a->rank;
    if (me != a->root)
        return PMPI_Recv(a->rbuf, a->rcount, a->rtype, a->root, AC_TAG(a), a->comm,
                         MPI_STATUS_IGNORE);
    MPI_Aint blk = (MPI_Aint)a->scount * ac_dt_extent(a->stype);
    const char *sbuf = a->sbuf;
    for (int i = 1; i < p; i++) {
        int dst = (me + i) % p;
        AC_CHECK(PMPI_Send(sbuf + dst * blk, a->scount, a->stype, dst, AC_TAG(a), a->comm));
    }
    if (!a->inplace)
        AC_CHECK(ac_dt_copy(sbuf + me * blk, a->scount, a->stype, a->rbuf, a->rcount, a->rtype));
fn_exit:
    return err;
}
