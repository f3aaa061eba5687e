/*
 * Algorithm: 2D mesh: the ranks form an x-by-y grid (x = largest divisor of p not above
 *   floor(sqrt p), y = p/x; rank r at (r mod x, r div x); e.g. 12 = 3x4, 8 = 2x4, prime p =
 *   1xp, i.e. one phase with p-1 peers). Phase d (d = 0, 1) exchanges all blocks held so far with
 *   every rank differing only in coordinate d: receives from c_d - j and sends to c_d + j,
 *   j = 1..g_d - 1 (spreading order), then waits. After phase 0 a rank holds its grid row
 *   (x adjacent blocks, one message), after phase 1 everything. ac_agx_mesh below is also the
 *   body of mesh3d.
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h).
 * Cost: 2(sqrt(p)-1) alpha + (p-1) n beta + theta; n = bytes of a block.
 *   allgatherv: 2(sqrt(p)-1) alpha + sum n_j beta; n_j = bytes of block j.
 * Restrictions: none. Memory: 2(g_d - 1) requests, block lists.
 * Reference: seed 000 (Faraj 2006) section 4.1.1.1; spec star-stage-ethernet.md 2.1 (dims2,
 *   coords) and 2.2.
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include <stdlib.h>
#include "ag_common.h"

int ac_agx_mesh(const ac_args_t *a, int nd) {
    ac_agb_t g;
    int err = ac_agb_setup(a, &g), p = a->size, me = a->rank, dims[3];
    if (err != MPI_SUCCESS || p == 1) return err;
    ac_mesh_dims(p, nd, dims);
    int *mine = malloc((size_t)p * sizeof *mine), *theirs = malloc((size_t)p * sizeof *theirs);
    MPI_Request *req = malloc(2 * (size_t)p * sizeof *req);
    if (!mine || !theirs || !req) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    for (int d = 0; d < nd; d++) {
        if (dims[d] == 1) continue;
        int nreq = 0, nh = ac_mesh_held(me, nd, dims, d, mine);
        for (int j = 1; j < dims[d]; j++) {
            int from = ac_mesh_peer(me, nd, dims, d, -j);
            int n = ac_mesh_held(from, nd, dims, d, theirs);
            AC_CHECK(ac_agb_irecv(&g, theirs, n, from, &req[nreq++]));
        }
        for (int j = 1; j < dims[d]; j++)
            AC_CHECK(ac_agb_isend(&g, mine, nh, ac_mesh_peer(me, nd, dims, d, j), &req[nreq++]));
        AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    }
fn_exit:
    free(mine);
    free(theirs);
    free(req);
    return err;
}

int ac_allgather_mesh2d(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_agx_mesh(a, 2);
}
