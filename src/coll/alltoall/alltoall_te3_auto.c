/*
 * Algorithm: TE3 with i chosen by the cost formula: i minimises TE3_F1(i) =
 *   i(d + p/2) + (G - 1)(d + 2^i), G = p/2^i, over the i with 2^i dividing p (ties: smallest i),
 *   with d = alpha / (n beta) the per-message start-up in units of one block transfer
 *   (ac_te3_best_i, src/sched/te.c). Then exactly TE3(i) (alltoall_te3.c).
 *   alpha and beta are fixed defaults until per-communicator estimates exist:
 *   AC_TE_ALPHA = 5e-6 s (start-up of one message on a commodity cluster network) and
 *   AC_TE_BETA = 1e-9 s/byte (about 1 GB/s). The choice depends only on p and the block size,
 *   which are identical on every rank.
 * Cost: min over i of i(alpha + (p/2) n beta) + (G-1)(alpha + 2^i n beta); n = bytes of a block.
 * Restrictions: none. In place: works on copies. Memory: 3p blocks.
 * Reference: seed 004 (Afsahi 2000), section 5.7 (choice of i by eq. 5.42); spec
 *   predictors-latency.md 5.1 (d~ = alpha / (m beta)), 5.2.
 */
#include "a2a_util.h"
#include "../../sched/te.h"

#define AC_TE_ALPHA 5e-6
#define AC_TE_BETA 1e-9

int ac_alltoall_te3_auto(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    double m = (double)a->rcount * (double)ac_dt_size(a->rtype);
    return ac_a2a_te(a, ac_te3_best_i(a->size, ac_te_dtilde(AC_TE_ALPHA, AC_TE_BETA, m)));
}
