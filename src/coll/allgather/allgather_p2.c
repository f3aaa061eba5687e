/*
 * Algorithm: two-process exchange: rank i sends its block to 1-i and receives block 1-i in one
 *   sendrecv.
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h).
 * Cost: alpha + n beta; n = bytes of a block.
 *   allgatherv: alpha + n_other beta; n_j = bytes of block j.
 * Restrictions: P2 (exactly two processes). Memory: none.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1 (every repository algorithm degenerates to
 *   this exchange at p = 2); spec star-stage-ethernet.md 2.2.
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include "ag_common.h"

int ac_allgather_p2(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    ac_agb_t g;
    int err = ac_agb_setup(a, &g), other = 1 - a->rank;
    if (err != MPI_SUCCESS) return err;
    return ac_agb_sendrecv(&g, &a->rank, 1, other, &other, 1, other);
}
