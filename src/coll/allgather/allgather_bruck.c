/*
 * Algorithm: Bruck: ceil(log2 p) steps; before step s rank r holds blocks r .. r+2^s-1 (mod p);
 *   at step s it sends its first c = min(2^s, p-2^s) held blocks to r-2^s and receives blocks
 *   r+2^s .. r+2^s+c-1 from r+2^s. Blocks land directly in their final slots (one message with
 *   an indexed datatype when the range wraps), so no rotation or temporary buffer is needed.
 *   It is the k = 1 case of allgather_kbruck.c.
 * Cost: ceil(log2 p) alpha + (p-1) n beta; n = bytes of a block.
 * Restrictions: none. Memory: none beyond the block lists.
 * Reference: Bruck et al. 1997 as summarised in seed 001 (Loch 2021) section 2.4.4 (spec
 *   sparbit.md 3.4); seed 000 (Faraj 2006) section 4.1.1.1 (spec star-stage-ethernet.md 2.2).
 */
#include "ag_common.h"

int ac_allgather_bruck(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_agx_kbruck(a, 1);
}
