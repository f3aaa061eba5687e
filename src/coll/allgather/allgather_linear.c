/*
 * Algorithm: linear ("simple" in STAR-MPI): every rank posts a receive from every other rank and
 *   a send of its block to every other rank, then waits for all of them.
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b]; blocks of
 *   zero elements are still matched (zero-byte messages).
 * Cost: (p-1)(alpha + n beta) if the network serialises, alpha + (p-1) n beta at best;
 *   n = bytes of one block. allgatherv: alpha + sum_{j != me} n_j beta at best,
 *   (p-1) alpha + ... when serialised; n_j = bytes of block j.
 * Restrictions: none. Memory: 2(p-1) requests.
 * Reference: seed 000 (Faraj 2006), STAR-MPI allgather and allgatherv repositories, "simple"
 *   algorithm.
 */
#include <stdlib.h>
#include "ag_common.h"

int ac_allgather_linear(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    int err = MPI_SUCCESS, p = a->size, me = a->rank, nreq = 0;
    ac_agb_t g;
    ac_agb_view(a, &g);
    MPI_Request *req = malloc(2 * (size_t)p * sizeof *req);
    if (!req) return MPI_ERR_NO_MEM;
    /* In place, my block already sits at its place in rbuf and is sent from there. */
    const void *mine = a->inplace ? ac_agb_addr(&g, me) : a->sbuf;
    int mcount = a->inplace ? ac_agb_count(&g, me) : a->scount;
    MPI_Datatype mtype = a->inplace ? a->rtype : a->stype;
    for (int i = 1; i < p; i++) {
        int src = (me - i + p) % p;
        AC_CHECK(PMPI_Irecv(ac_agb_addr(&g, src), ac_agb_count(&g, src), g.type, src, g.tag, g.comm,
                            &req[nreq++]));
    }
    for (int i = 1; i < p; i++)
        AC_CHECK(PMPI_Isend(mine, mcount, mtype, (me + i) % p, g.tag, g.comm, &req[nreq++]));
    if (!a->inplace)
        AC_CHECK(ac_dt_copy(a->sbuf, a->scount, a->stype, ac_agb_addr(&g, me), ac_agb_count(&g, me),
                            a->rtype));
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
fn_exit:
    free(req);
    return err;
}
