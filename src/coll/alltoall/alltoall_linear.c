/*
 * Algorithm: linear ("simple" in STAR-MPI): post every receive, then every send (to me+1, me+2,
 *   ... so that not every rank targets rank 0 first), then wait.
 *   alltoallv runs the same function with counts and displacements per block (a2a_util.h);
 *   blocks of zero elements are still matched (zero-byte messages).
 * Cost: (p-1)(alpha + n beta) serialised, alpha + (p-1) n beta at best; n = bytes of one block.
 *   alltoallv: alpha + sum_j max(s_j, r_j) beta at best; (p-1) alpha + ... when serialised.
 * Restrictions: none. In place: the receive buffer is first copied to a temporary send buffer
 *   (alltoallv: the receive layout, rcounts/rdispls, is then also the send layout).
 * Memory: 2(p-1) requests; p blocks (alltoallv: the receive span) when in place.
 * Reference: seed 000 (Faraj 2006), STAR-MPI alltoall and alltoallv repositories, "simple"
 *   algorithm.
 */
#include <stdlib.h>
#include "a2a_util.h"

int ac_alltoall_linear(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    int err = MPI_SUCCESS, p = a->size, me = a->rank, nreq = 0;
    ac_a2a_view_t v;
    MPI_Request *req = malloc(2 * (size_t)p * sizeof *req);
    if (!req) return MPI_ERR_NO_MEM;
    AC_CHECK(ac_a2a_view_init(&v, a));
    for (int i = 1; i < p; i++) {
        int src = (me - i + p) % p;
        AC_CHECK(PMPI_Irecv(ac_a2a_rptr(&v, src), ac_a2a_rcnt(&v, src), v.rtype, src, AC_TAG(a),
                            a->comm, &req[nreq++]));
    }
    for (int i = 1; i < p; i++) {
        int dst = (me + i) % p;
        AC_CHECK(PMPI_Isend(ac_a2a_sptr(&v, dst), ac_a2a_scnt(&v, dst), v.stype, dst, AC_TAG(a),
                            a->comm, &req[nreq++]));
    }
    AC_CHECK(ac_a2a_self_copy(&v));
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
fn_exit:
    free(req);
    ac_a2a_view_free(&v);
    return err;
}
