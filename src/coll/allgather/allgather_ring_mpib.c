/*
 * Algorithm: ring with MPI barrier: the ring of allgather_ring.c (step s: own block to i+s,
 *   block i-s from i-s) with PMPI_Barrier on the private communicator between every two
 *   consecutive steps (lock-step phases).
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h).
 * Cost: (p-1)(alpha + n beta) + (p-2) delta_h; n = bytes of a block.
 *   allgatherv: (p-1) alpha + sum n_j beta + (p-2) delta_h; n_j = bytes of block j.
 * Restrictions: none. Memory: none.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1; spec star-stage-ethernet.md 2.0.
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include "ag_common.h"

int ac_allgather_ring_mpib(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_agx_steps(a, AC_AGS_RING, AC_SYNC_MPI, 0);
}
