/*
 * Algorithm: recursive doubling: fold p onto p' = 2^floor(lg p) participants (groups of one or
 *   two consecutive ranks; the odd rank of a pair combines x_{2j} op x_{2j+1} and takes part),
 *   then at step k participant i exchanges its whole vector with i XOR 2^k and both compute
 *   (lower range) op (upper range); all members of an aligned group of 2^(k+1) participants then
 *   hold the same bytes, the reduction of a contiguous rank range in rank order. At the end the
 *   odd ranks of the pairs return the result to the even ones.
 * Cost: lg p' (alpha + n beta + n gamma) + 2 (alpha + n beta) [+ n gamma] when p is not a power
 *   of two; n = bytes of the vector, p' = largest power of two <= p.
 * Restrictions: none (rank-ordered, bitwise identical on every rank). Memory: one vector.
 * Reference: seed 000 (Faraj 2006), STAGE allreduce repository "rdb" and the fold of spec
 *   star-stage-ethernet.md section 2.4.
 */
#include "../algs.h"
#include "../../sched/rs_core.h"

int ac_allreduce_recursive_doubling(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_rs_allreduce_knomial(a, 2);
}
