/*
 * Algorithm: recursive halving: fold p onto p' = 2^floor(lg p) participants (groups of one or two
 *   consecutive ranks; a participant owns the blocks of its group, a contiguous range), then at
 *   distance p'/2, p'/4, ..., 1 each participant keeps half of its current block range (lower
 *   half when its bit is 0), sends the other half to its partner and combines the partner's copy
 *   of the kept half, so participant j ends with the reduced blocks of group j and sends each
 *   rank of the group its block. The combination order is not rank order.
 * Cost: lg p' alpha + ((p'-1)/p') N (beta + gamma) + fold 2 (alpha + N beta); N = whole vector.
 * Restrictions: COMMUTATIVE. Memory: two copies of the whole vector.
 * Reference: seed 000 (Faraj 2006), spec star-stage-ethernet.md section 2.4 (recursive-halving
 * reduce-scatter, fold).
 */
#include <stdlib.h>
#include "../algs.h"
#include "../../sched/rs_core.h"

int ac_reduce_scatter_recursive_halving(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    (void)in;
    return ac_rs_rsc_halving(a, a->rcounts, 0);
}
