/*
 * Algorithm: linear ("simple"): every rank posts a receive from every other rank and sends its
 *   block to every other rank; blocks of zero elements are still matched (zero-byte messages).
 * Cost: alpha + sum_{j != me} n_j beta at best, (p-1) alpha + ... when serialised.
 * Restrictions: none. Memory: 2(p-1) requests.
 * Reference: seed 000 (Faraj 2006), STAR-MPI allgatherv repository, "simple" algorithm.
 */
#include <stdlib.h>
#include "../../core/ac.h"

int ac_allgatherv_linear(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, nreq = 0;
    MPI_Aint ext = ac_dt_extent(a->rtype);
    char *rbuf = a->rbuf;
    MPI_Request *req = malloc(2 * (size_t)p * sizeof *req);
    if (!req) return MPI_ERR_NO_MEM;
    char *myblk = rbuf + (MPI_Aint)a->rdispls[me] * ext;
    const void *mine = a->inplace ? myblk : a->sbuf;
    int mcount = a->inplace ? a->rcounts[me] : a->scount;
    MPI_Datatype mtype = a->inplace ? a->rtype : a->stype;
    for (int i = 1; i < p; i++) {
        int src = (me - i + p) % p;
        AC_CHECK(PMPI_Irecv(rbuf + (MPI_Aint)a->rdispls[src] * ext, a->rcounts[src], a->rtype, src,
                            AC_TAG(a), a->comm, &req[nreq++]));
    }
    for (int i = 1; i < p; i++)
        AC_CHECK(PMPI_Isend(mine, mcount, mtype, (me + i) % p, AC_TAG(a), a->comm, &req[nreq++]));
    if (!a->inplace)
        AC_CHECK(ac_dt_copy(a->sbuf, a->scount, a->stype, myblk, a->rcounts[me], a->rtype));
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
fn_exit:
    free(req);
    return err;
}
