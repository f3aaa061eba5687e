/*
 * Algorithm: recursive multiplying (k-nomial exchange): fold p onto p' = k^floor(log_k p)
 *   participants (contiguous rank groups of floor(p/p') or one more ranks; the group's last rank
 *   collects and combines its group in rank order), then at distance d = 1, k, k^2, ... each
 *   participant sends its vector to the k - 1 others whose index differs only in base-k digit d
 *   and combines the k vectors in participant order v_0 op (v_1 op ... v_{k-1}), the same on
 *   every member, so groups keep identical bytes and the operands are contiguous rank ranges.
 *   Group leaders finally send the result to their members.
 * Cost: log_k p' (alpha + (k-1) n beta + (k-1) n gamma) [+ fold: 2 (p/p' - 1)(alpha + n beta)];
 *   n = bytes of the vector.
 * Restrictions: none (rank-ordered). Memory: (k - 1) vectors.
 * Reference: seed 000 (Faraj 2006), allreduce recursive doubling generalised to radix k
 *   (spec star-stage-ethernet.md section 2.4, "rdb"), parameter k.
 */
#include "../algs.h"
#include "../../sched/rs_core.h"

int ac_allreduce_knomial(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    long k = ac_param_int(in, "k");
    return ac_rs_allreduce_knomial(a, k < 2 ? 2 : (int)k);
}
