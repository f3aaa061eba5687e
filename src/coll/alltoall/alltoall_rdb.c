/*
 * Algorithm: recursive doubling: all-gather of whole send buffers; at step k (k = 0..lg p' - 1)
 *   exchange with me XOR 2^k the rows of every rank held so far (virtual ranks
 *   [(me >> k) << k, +2^k)), then copy out block `me` of every row. Other p: fold (p' = largest
 *   power of two <= p, e = p - p'): rank u + p' (u < e) first sends its buffer to u, and u carries
 *   rows u and u + p' through the doubling; at the end u sends u + p' its column (the p blocks
 *   addressed to u + p') rather than the whole result. Rows: ac_rdb_start, ac_rdb_fold_blocks.
 * Cost: lg(p) alpha + (p - 1) p n beta + (lg p - 1) theta + gamma for p a power of two; about
 *   double otherwise; n = bytes of one block.
 * Restrictions: none. In place: works on copies. Memory: p^2 blocks.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1, STAR-MPI alltoall "recursive doubling"
 *   (spec star-stage-ethernet.md 2.1, rdb and its fold resolution).
 */
#include "a2a_util.h"

int ac_alltoall_rdb(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_a2a_gather_all(a, 0);
}
