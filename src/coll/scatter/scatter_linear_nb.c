/*
 * Algorithm: linear non-blocking scatter: the root posts a nonblocking send of block i to every
 *   rank i (in the order root+1, root+2, ...), copies its own block and waits for all.
 * Cost: (p-1)(alpha + n beta) at the root, with all sends in flight together.
 * Restrictions: none. Memory: p-1 requests at the root.
 * Reference: seed 004 (Afsahi 2000), §5.5 S1 sequential scatter (spec predictors-latency
 *   section 5.4), sends posted at once as in the Fk form.
 */
#include <stdlib.h>
#include "../../core/ac.h"

int ac_scatter_linear_nb(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, nreq = 0;
    if (me != a->root)
        return PMPI_Recv(a->rbuf, a->rcount, a->rtype, a->root, AC_TAG(a), a->comm,
                         MPI_STATUS_IGNORE);
    MPI_Aint blk = (MPI_Aint)a->scount * ac_dt_extent(a->stype);
    const char *sbuf = a->sbuf;
    MPI_Request *req = malloc((size_t)p * sizeof *req);
    if (!req) return MPI_ERR_NO_MEM;
    for (int i = 1; i < p; i++) {
        int dst = (me + i) % p;
        AC_CHECK(PMPI_Isend(sbuf + dst * blk, a->scount, a->stype, dst, AC_TAG(a), a->comm,
                            &req[nreq++]));
    }
    if (!a->inplace)
        AC_CHECK(ac_dt_copy(sbuf + me * blk, a->scount, a->stype, a->rbuf, a->rcount, a->rtype));
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    nreq = 0;
fn_exit:
    if (err != MPI_SUCCESS && nreq > 0) PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    free(req);
    return err;
}
