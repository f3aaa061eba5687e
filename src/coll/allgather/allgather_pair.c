/*
 * Algorithm: pair (STAR-MPI "pair", XOR exchange): at step s = 1..p-1 rank i exchanges its own
 *   block with partner i ^ s (send own block, receive block i ^ s), one sendrecv per step; the
 *   pairing is mutual, so every step is a perfect matching of the ranks.
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h).
 * Cost: (p-1)(alpha + n beta) + (p-2) theta; n = bytes of a block.
 *   allgatherv: (p-1) alpha + sum n_j beta; n_j = bytes of block j.
 * Restrictions: POF2 (i ^ s must be a rank). Memory: none.
 * Reference: seed 000 (Faraj 2006), sections 4.1.1.1 and 4.2.1 (phases 1..p-1);
 *   spec star-stage-ethernet.md 2.0-2.2.
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include "ag_common.h"

int ac_allgather_pair(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_agx_steps(a, AC_AGS_PAIR, AC_SYNC_NONE, 0);
}
