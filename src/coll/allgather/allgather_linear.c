/*
 * Algorithm: linear ("simple" in STAR-MPI): every rank posts a receive from every other rank and
 *   a send of its block to every other rank, then waits for all of them.
 * Cost: (p-1)(alpha + n beta) if the network serialises, alpha + (p-1) n beta at best;
 *   n = bytes of one block.
 * Restrictions: none. Memory: 2(p-1) requests.
 * Reference: seed 000 (Faraj 2006), STAR-MPI allgather repository, "simple" algorithm.
 */
#include <stdlib.h>
#include "../../core/ac.h"

int ac_allgather_linear(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, nreq = 0;
    MPI_Aint blk = (MPI_Aint)a->rcount * ac_dt_extent(a->rtype);
    char *rbuf = a->rbuf;
    MPI_Request *req = malloc(2 * (size_t)p * sizeof *req);
    if (!req) return MPI_ERR_NO_MEM;
    /* In place, my block already sits at its place in rbuf and is sent from there. */
    const void *mine = a->inplace ? rbuf + me * blk : a->sbuf;
    int mcount = a->inplace ? a->rcount : a->scount;
    MPI_Datatype mtype = a->inplace ? a->rtype : a->stype;
    for (int i = 1; i < p; i++) {
        int src = (me - i + p) % p;
        AC_CHECK(PMPI_Irecv(rbuf + src * blk, a->rcount, a->rtype, src, AC_TAG(a), a->comm,
                            &req[nreq++]));
    }
    for (int i = 1; i < p; i++) {
        int dst = (me + i) % p;
        AC_CHECK(PMPI_Isend(mine, mcount, mtype, dst, AC_TAG(a), a->comm, &req[nreq++]));
    }
    if (!a->inplace)
        AC_CHECK(ac_dt_copy(a->sbuf, a->scount, a->stype, rbuf + me * blk, a->rcount, a->rtype));
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
fn_exit:
    free(req);
    return err;
}
