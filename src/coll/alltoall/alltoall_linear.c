/*
 * Algorithm: linear ("simple" in STAR-MPI): post every receive, then every send (to me+1, me+2,
 *   ... so that not every rank targets rank 0 first), then wait.
 * Cost: (p-1)(alpha + n beta) serialised, alpha + (p-1) n beta at best; n = bytes of one block.
 * Restrictions: none. In place: the receive buffer is first copied to a temporary send buffer.
 * Memory: 2(p-1) requests; p blocks when in place.
 * Reference: seed 000 (Faraj 2006), STAR-MPI alltoall repository, "simple" algorithm.
 */
#include <stdlib.h>
#include "../../core/ac.h"

int ac_alltoall_linear(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, nreq = 0;
    void *tmpbase = NULL;
    char *rbuf = a->rbuf;
    const char *sbuf = a->sbuf;
    int scount = a->scount;
    MPI_Datatype stype = a->stype;
    MPI_Request *req = malloc(2 * (size_t)p * sizeof *req);
    if (!req) return MPI_ERR_NO_MEM;
    if (a->inplace) {
        char *tmp = ac_dt_alloc(a->rtype, (size_t)a->rcount * p, &tmpbase);
        if (!tmp) {
            err = MPI_ERR_NO_MEM;
            goto fn_exit;
        }
        AC_CHECK(ac_dt_copy(rbuf, a->rcount * p, a->rtype, tmp, a->rcount * p, a->rtype));
        sbuf = tmp;
        scount = a->rcount;
        stype = a->rtype;
    }
    MPI_Aint sblk = (MPI_Aint)scount * ac_dt_extent(stype);
    MPI_Aint rblk = (MPI_Aint)a->rcount * ac_dt_extent(a->rtype);
    for (int i = 1; i < p; i++) {
        int src = (me - i + p) % p;
        AC_CHECK(PMPI_Irecv(rbuf + src * rblk, a->rcount, a->rtype, src, AC_TAG(a), a->comm,
                            &req[nreq++]));
    }
    for (int i = 1; i < p; i++) {
        int dst = (me + i) % p;
        AC_CHECK(
            PMPI_Isend(sbuf + dst * sblk, scount, stype, dst, AC_TAG(a), a->comm, &req[nreq++]));
    }
    AC_CHECK(ac_dt_copy(sbuf + me * sblk, scount, stype, rbuf + me * rblk, a->rcount, a->rtype));
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
fn_exit:
    free(req);
    free(tmpbase);
    return err;
}
