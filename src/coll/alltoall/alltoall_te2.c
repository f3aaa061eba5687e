/*
 * Algorithm: standard exchange TE2: log2 p steps; at step s rank r exchanges with
 *   r XOR p/2^s (most significant bit first) the p/2 blocks it holds whose destination has the
 *   partner's value of that bit (for p a power of two the halving groups of te.c are exactly
 *   the bit splits). It is TE3 with i = log2 p (src/sched/te.c).
 * Cost: log2(p)(alpha + (p/2) n beta); TE2_F1 = (d + N/2) log2 N in seed 004's units;
 *   n = bytes of one block.
 * Restrictions: p a power of two (AUTOCOLL_R_POF2). In place: works on copies.
 * Memory: 3p blocks.
 * Reference: seed 004 (Afsahi 2000), section 5.7 (standard exchange); spec
 *   predictors-latency.md 5.2.
 */
#include "a2a_util.h"
#include "../../sched/te.h"

int ac_alltoall_te2(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_a2a_te(a, ac_te_max_i(a->size));
}
