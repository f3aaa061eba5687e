/*
 * Algorithm: pair with light barrier: the pair exchange of allgather_pair.c (step s: swap own
 *   blocks with i ^ s) where, before the data of every step s >= 2, the two partners post their
 *   receives and swap zero-byte tokens ("my receive is posted") before sending their data.
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h).
 * Cost: (p-1)(alpha + n beta) + (p-2) delta_l; n = bytes of a block.
 *   allgatherv: (p-1) alpha + sum n_j beta + (p-2) delta_l; n_j = bytes of block j.
 * Restrictions: POF2. Memory: none. Tokens use tag AC_TAG_SYNC.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1 (light barrier);
 *   spec star-stage-ethernet.md 2.0 (exact token protocol).
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include "ag_common.h"

int ac_allgather_pair_lb(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_agx_steps(a, AC_AGS_PAIR, AC_SYNC_LIGHT, 0);
}
