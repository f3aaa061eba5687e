/*
 * Algorithm: ring with N MPI barriers: the ring of allgather_ring.c with exactly N PMPI_Barrier
 *   calls; the p-1 steps are cut into N+1 consecutive blocks as evenly as possible (block b =
 *   steps floor(b(p-1)/(N+1))+1 .. floor((b+1)(p-1)/(N+1))) and a barrier follows blocks
 *   0..N-1 (ac_nbar_count). With N > p-2 some barriers follow one another.
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h).
 * Cost: (p-1)(alpha + n beta) + N delta_h + theta terms; n = bytes of a block.
 *   allgatherv: (p-1) alpha + sum n_j beta + N delta_h; n_j = bytes of block j.
 * Restrictions: none. Memory: none. Parameter n = N.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1; spec star-stage-ethernet.md 2.0
 *   (placement resolution).
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include "ag_common.h"

int ac_allgather_ring_nbar(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    return ac_agx_steps(a, AC_AGS_RING, AC_SYNC_NBAR, (int)ac_param_int(in, "n"));
}
