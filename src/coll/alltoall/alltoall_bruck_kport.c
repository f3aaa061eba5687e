/*
 * Algorithm: k-port Bruck: Bruck's rotation, then ceil(log_{k+1} p) steps; at step s, for each
 *   port j = 1..k with offset o = j (k+1)^s < p, the slots t whose base-(k+1) digit s equals j are
 *   packed and sent to me + o while the same slots arrive from me - o (all k ports of a step are
 *   posted together, then waited for); finally slot t holds the block from rank me - t. Step
 *   offsets: ac_kbruck_part; slot selection: ac_a2a_bruck_slots.
 * Cost: ceil(log_{k+1} p) (alpha + (p/(k+1)) n beta) with k ports in parallel (k-port model);
 *   single port: k ceil(log_{k+1} p) alpha + about k p/(k+1) log_{k+1} p n beta; n = block bytes.
 * Restrictions: none. In place: works on copies. Memory: 3p blocks, 2k requests.
 * Reference: seed 004 (Afsahi 2000), chapter 5 (k-port model Fk, spec predictors-latency.md
 *   5.1) applied to the Bruck alltoall of seed 000 (Faraj 2006), 4.1.1.1.
 */
#include "a2a_util.h"

int ac_alltoall_bruck_kport(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    return ac_a2a_bruck(a, (int)ac_param_int(in, "k"));
}
