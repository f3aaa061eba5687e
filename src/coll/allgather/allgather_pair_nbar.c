/*
 * Algorithm: pair with N MPI barriers: the pair exchange of allgather_pair.c (step s: swap own
 *   blocks with i ^ s) with exactly N PMPI_Barrier calls, placed as in allgather_ring_nbar.c
 *   (p-1 steps cut into N+1 even blocks, ac_nbar_count).
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h).
 * Cost: (p-1)(alpha + n beta) + N delta_h + theta terms; n = bytes of a block.
 *   allgatherv: (p-1) alpha + sum n_j beta + N delta_h; n_j = bytes of block j.
 * Restrictions: POF2. Memory: none. Parameter n = N.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1; spec star-stage-ethernet.md 2.0.
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include "ag_common.h"

int ac_allgather_pair_nbar(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    return ac_agx_steps(a, AC_AGS_PAIR, AC_SYNC_NBAR, (int)ac_param_int(in, "n"));
}
