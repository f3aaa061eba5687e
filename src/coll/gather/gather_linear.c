/*
 * Algorithm: linear: the root posts a receive from every rank, each rank sends its block.
 * Cost: (p-1)(alpha + n beta) at the root.
 * Restrictions: none. Memory: p-1 requests at the root.
 * Reference: seed 000 (Faraj 2006) and seed 004 (Afsahi 2000), linear gather.
 */
#include <stdlib.h>
#include "../../core/ac.h"

int ac_gather_linear(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, nreq = 0;
    if (me != a->root) return PMPI_Send(a->sbuf, a->scount, a->stype, a->root, AC_TAG(a), a->comm);
    MPI_Aint blk = (MPI_Aint)a->rcount * ac_dt_extent(a->rtype);
    char *rbuf = a->rbuf;
    MPI_Request *req = malloc((size_t)p * sizeof *req);
    if (!req) return MPI_ERR_NO_MEM;
    for (int i = 1; i < p; i++) {
        int src = (me + i) % p;
        AC_CHECK(PMPI_Irecv(rbuf + src * blk, a->rcount, a->rtype, src, AC_TAG(a), a->comm,
                            &req[nreq++]));
    }
    if (!a->inplace)
        AC_CHECK(ac_dt_copy(a->sbuf, a->scount, a->stype, rbuf + me * blk, a->rcount, a->rtype));
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
fn_exit:
    free(req);
    return err;
}
