/*
 * Algorithm: butterfly: fold p onto p' = 2^floor(lg p) participants (the odd rank of a leading pair
 *   combines x_{2j} op x_{2j+1}); recursive halving at distance 1, 2, 4, ... (butterfly order):
 *   the operands of every combination are contiguous participant ranges, combined lower op
 *   higher, so the result is the rank-ordered reduction; participant j ends with the blocks of
 *   group bitrev(j) and sends each rank of that group its block. The body is ac_rsc_halving
 *   (reduce_scatter_recursive_halving.c) with ascending distances.
 *   reduce_scatter_block runs the same function: every block has rcount elements.
 * Cost: (lg p' + 1) alpha + ((p'-1)/p') N (beta + gamma) + fold; N = whole vector.
 * Restrictions: none (rank-ordered, any operation). Memory: two copies of the whole vector.
 * Reference: seed 000 (Faraj 2006), spec star-stage-ethernet.md section 2.4 (recursive halving,
 *   fold), distance-doubling order.
 */
#include "rsc_common.h"

int ac_reduce_scatter_butterfly(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    return ac_rsc_halving(a, 1);
}
