/*
 * Algorithm: recursive doubling for any p (fold): with p' the largest power of two <= p and
 *   e = p - p', rank u + p' (u < e) first sends its block to u; ranks 0..p'-1 then run the
 *   power-of-two recursive doubling where virtual rank u carries blocks u and (u < e) u + p'
 *   (at step k it sends the blocks of virtual ranks [(u >> k) << k, +2^k), each followed by its
 *   folded partner, ac_rdb_fold_blocks); finally rank u < e sends every block but u + p' to
 *   u + p'. For p a power of two it is exactly allgather_rdb.
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h).
 * Cost: (log2(p') + 2) alpha + ((p-1) + (p-1)) n beta at most (fold steps only when e > 0).
 *   allgatherv: (log2(p')+2) alpha + up to 2 sum n_j beta; n_j = bytes of block j.
 * Restrictions: none. Memory: none.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1 ("cost almost doubles" for non-power-of-two
 *   p); spec star-stage-ethernet.md 2.1 (fold resolution).
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include <stdlib.h>
#include "ag_common.h"

int ac_allgather_rdb_fold(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    ac_agb_t g;
    int err = ac_agb_setup(a, &g), p = a->size, me = a->rank;
    if (err != MPI_SUCCESS || p == 1) return err;
    int pp = ac_floor_pof2(p), e = p - pp;
    int *sb = malloc((size_t)p * sizeof *sb), *rb = malloc((size_t)p * sizeof *rb);
    if (!sb || !rb) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    if (me >= pp) {
        MPI_Request req[2];
        int n = 0;
        for (int b = 0; b < p; b++)
            if (b != me) rb[n++] = b;
        AC_CHECK(ac_agb_irecv(&g, rb, n, me - pp, &req[0]));
        AC_CHECK(ac_agb_isend(&g, &me, 1, me - pp, &req[1]));
        AC_CHECK(PMPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        goto fn_exit;
    }
    if (me < e) {
        int b = me + pp;
        AC_CHECK(PMPI_Recv(ac_agb_addr(&g, b), ac_agb_count(&g, b), g.type, b, g.tag, g.comm,
                           MPI_STATUS_IGNORE));
    }
    for (int k = 0; (1 << k) < pp; k++) {
        int peer = me ^ (1 << k);
        int ns = ac_rdb_fold_blocks(p, ac_rdb_start(me, k), 1 << k, sb);
        int nr = ac_rdb_fold_blocks(p, ac_rdb_start(peer, k), 1 << k, rb);
        AC_CHECK(ac_agb_sendrecv(&g, sb, ns, peer, rb, nr, peer));
    }
    if (me < e) {
        int n = 0;
        for (int b = 0; b < p; b++)
            if (b != me + pp) sb[n++] = b;
        MPI_Request req;
        AC_CHECK(ac_agb_isend(&g, sb, n, me + pp, &req));
        AC_CHECK(PMPI_Wait(&req, MPI_STATUS_IGNORE));
    }
fn_exit:
    free(sb);
    free(rb);
    return err;
}
