/*
 * Algorithm: non-commutative direct: every rank posts receives for the p - 1 pieces of its block,
 *   sends every other block to its rank, then combines the p pieces in rank order,
 *   x_0 op (x_1 op (... op x_{p-1})): correct for any operation.
 *   reduce_scatter_block runs the same function: every block has rcount elements.
 * Cost: alpha + ((p-1)/p) N beta + ((p-1)/p) N gamma at best, (p-1) alpha when serialised.
 * Restrictions: none. Memory: p pieces of one block, 2(p-1) requests.
 * Reference: seed 000 (Faraj 2006), spec star-stage-ethernet.md section 2.4 (Rab2:
 *   reduce-scatter through an all-to-all of blocks, rank-ordered combination).
 */
#include <stdlib.h>
#include "rsc_common.h"

int ac_reduce_scatter_noncommutative(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    int err = MPI_SUCCESS, p = a->size, me = a->rank, tag = AC_TAG(a), nreq = 0, *cbase = NULL;
    MPI_Datatype t = a->rtype;
    void *pbase = NULL;
    const char *input = ac_rs_input(a);
    const int *counts = ac_rsc_counts(a, &cbase);
    if (!counts) return MPI_ERR_NO_MEM;
    int mc = counts[me];
    size_t *off = ac_rsc_offsets(counts, p);
    MPI_Request *req = malloc(2 * (size_t)p * sizeof *req);
    char *pieces = ac_dt_alloc(t, (size_t)mc * (size_t)p, &pbase);
    if (!off || !req || !pieces) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    for (int s = 1; s < p; s++) {
        int src = (me - s + p) % p;
        AC_CHECK(PMPI_Irecv(ac_dt_at(pieces, t, (size_t)src * (size_t)mc), mc, t, src, tag, a->comm,
                            &req[nreq++]));
    }
    for (int s = 1; s < p; s++) {
        int dst = (me + s) % p;
        AC_CHECK(PMPI_Isend(ac_dt_at(input, t, off[dst]), counts[dst], t, dst, tag, a->comm,
                            &req[nreq++]));
    }
    AC_CHECK(ac_dt_copy(ac_dt_at(input, t, off[me]), mc, t,
                        ac_dt_at(pieces, t, (size_t)me * (size_t)mc), mc, t));
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    nreq = 0;
    /* x_0 op (x_1 op (... op x_{p-1})), accumulated in piece p - 1. */
    for (int r = p - 2; r >= 0; r--)
        AC_CHECK(PMPI_Reduce_local(ac_dt_at(pieces, t, (size_t)r * (size_t)mc),
                                   ac_dt_at(pieces, t, (size_t)(p - 1) * (size_t)mc), mc, t,
                                   a->op));
    AC_CHECK(ac_dt_copy(ac_dt_at(pieces, t, (size_t)(p - 1) * (size_t)mc), mc, t, a->rbuf, mc, t));
fn_exit:
    if (nreq) PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    free(cbase);
    free(off);
    free(req);
    free(pbase);
    return err;
}
