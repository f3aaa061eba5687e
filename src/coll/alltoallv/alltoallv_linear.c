/*
 * Algorithm: linear ("simple"): post every receive, then every send (to me+1, me+2, ...), wait.
 * Cost: alpha + sum_j max(s_j, r_j) beta at best; (p-1) alpha + ... when serialised.
 * Restrictions: none. In place: the receive buffer (rcounts/rdispls layout, which is then also
 *   the send layout) is first copied to a temporary buffer.
 * Memory: 2(p-1) requests; the receive span when in place.
 * Reference: seed 000 (Faraj 2006), STAR-MPI alltoallv repository, "simple" algorithm.
 */
#include <stdlib.h>
#include "../../core/ac.h"

int ac_alltoallv_linear(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, nreq = 0;
    void *tmpbase = NULL;
    char *rbuf = a->rbuf;
    const char *sbuf = a->sbuf;
    const int *scounts = a->scounts, *sdispls = a->sdispls;
    MPI_Datatype stype = a->stype;
    MPI_Aint rext = ac_dt_extent(a->rtype);
    MPI_Request *req = malloc(2 * (size_t)p * sizeof *req);
    if (!req) return MPI_ERR_NO_MEM;
    if (a->inplace) {
        /* Copy the whole span [0, max(displ + count)) of the receive buffer. */
        int hi = 0;
        for (int j = 0; j < p; j++)
            if (a->rcounts[j] > 0 && a->rdispls[j] + a->rcounts[j] > hi)
                hi = a->rdispls[j] + a->rcounts[j];
        char *tmp = ac_dt_alloc(a->rtype, (size_t)hi, &tmpbase);
        if (!tmp) {
            err = MPI_ERR_NO_MEM;
            goto fn_exit;
        }
        AC_CHECK(ac_dt_copy(rbuf, hi, a->rtype, tmp, hi, a->rtype));
        sbuf = tmp;
        scounts = a->rcounts;
        sdispls = a->rdispls;
        stype = a->rtype;
    }
    MPI_Aint sext = ac_dt_extent(stype);
    for (int i = 1; i < p; i++) {
        int src = (me - i + p) % p;
        AC_CHECK(PMPI_Irecv(rbuf + (MPI_Aint)a->rdispls[src] * rext, a->rcounts[src], a->rtype, src,
                            AC_TAG(a), a->comm, &req[nreq++]));
    }
    for (int i = 1; i < p; i++) {
        int dst = (me + i) % p;
        AC_CHECK(PMPI_Isend(sbuf + (MPI_Aint)sdispls[dst] * sext, scounts[dst], stype, dst,
                            AC_TAG(a), a->comm, &req[nreq++]));
    }
    AC_CHECK(ac_dt_copy(sbuf + (MPI_Aint)sdispls[me] * sext, scounts[me], stype,
                        rbuf + (MPI_Aint)a->rdispls[me] * rext, a->rcounts[me], a->rtype));
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
fn_exit:
    free(req);
    free(tmpbase);
    return err;
}
