/*
 * Algorithm: ring (STAR-MPI "ring", a rank +/- s exchange, not the neighbour ring "lr"): at step
 *   s = 1..p-1 rank i sends its own block to i+s and receives block i-s from rank i-s, one
 *   sendrecv per step. Steps follow one another without synchronisation.
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h).
 * Cost: (p-1)(alpha + n beta) + (p-2) theta; n = bytes of a block.
 *   allgatherv: (p-1) alpha + sum n_j beta; n_j = bytes of block j.
 * Restrictions: none. Memory: none (blocks go straight to their slots).
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1; spec star-stage-ethernet.md 2.0-2.2.
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include "ag_common.h"

int ac_allgather_ring(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_agx_steps(a, AC_AGS_RING, AC_SYNC_NONE, 0);
}
