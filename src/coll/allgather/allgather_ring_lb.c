/*
 * Algorithm: ring with light barrier: the ring of allgather_ring.c (step s: own block to i+s,
 *   block i-s from i-s) where, before the data of every step s >= 2, rank i posts its receive
 *   from i-s, sends a zero-byte token to i-s ("my receive is posted") and waits for the token of
 *   i+s before sending: no rank is ever the target of two data messages at once.
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h).
 * Cost: (p-1)(alpha + n beta) + (p-2) delta_l; n = bytes of a block.
 *   allgatherv: (p-1) alpha + sum n_j beta + (p-2) delta_l; n_j = bytes of block j.
 * Restrictions: none. Memory: none. Tokens use tag AC_TAG_SYNC.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1 (light barrier);
 *   spec star-stage-ethernet.md 2.0 (exact token protocol).
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include "ag_common.h"

int ac_allgather_ring_lb(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_agx_steps(a, AC_AGS_RING, AC_SYNC_LIGHT, 0);
}
