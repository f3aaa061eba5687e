/*
 * Algorithm: spreading simple: every rank posts the receive of block me-s from rank me-s and
 *   the send of its own block to rank me+s, s = 1..p-1 (so the s-th send of every rank meets the
 *   s-th posted receive of its target), then waits for all of them. Unlike linear ("simple"),
 *   the destinations are spread: at any moment rank i is sending to i+s, never all to rank 0.
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h).
 * Cost: (p-1)(alpha + n beta) serialised, alpha + (p-1) n beta at best; n = bytes of a block.
 *   allgatherv: alpha + sum n_j beta (best); n_j = bytes of block j.
 * Restrictions: none. Memory: 2(p-1) requests.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1 ("spreading simple");
 *   spec star-stage-ethernet.md 2.1/2.2.
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include <stdlib.h>
#include "ag_common.h"

int ac_allgather_spread(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    ac_agb_t g;
    int err = ac_agb_setup(a, &g), p = a->size, me = a->rank, nreq = 0;
    if (err != MPI_SUCCESS || p == 1) return err;
    MPI_Request *req = malloc(2 * (size_t)p * sizeof *req);
    if (!req) return MPI_ERR_NO_MEM;
    for (int s = 1; s < p; s++) {
        int from = ac_ring_from(me, p, s);
        AC_CHECK(ac_agb_irecv(&g, &from, 1, from, &req[nreq++]));
    }
    for (int s = 1; s < p; s++)
        AC_CHECK(ac_agb_isend(&g, &me, 1, ac_ring_to(me, p, s), &req[nreq++]));
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
fn_exit:
    free(req);
    return err;
}
