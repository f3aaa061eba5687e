/*
 * Algorithm: ring (rank +/- s): for s = 1..p-1 send the block for rank me+s to me+s and receive the
 *   block of rank me-s from me-s (one sendrecv per step, steps back to back).
 *   alltoallv runs the same function with counts and displacements per block (a2a_util.h); a
 *   pair with zero bytes is skipped by both sides, but the step structure and its
 *   synchronisation are kept.
 * Cost: (p-1)(alpha + n beta) + (p-2) theta + gamma; n = bytes of one block.
 * Restrictions: none. In place: the receive buffer is first copied to a temporary send
 *   buffer (a2a_util.c). Memory: 3 requests; the receive buffer (p blocks; alltoallv: the
 *   receive span) when in place.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1, STAR-MPI alltoall and alltoallv
 *   repositories, "ring" (spec star-stage-ethernet.md 2.0, 2.1).
 */
#include "a2a_util.h"

int ac_alltoall_ring(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_a2a_stepwise(a, AC_A2A_RING, AC_A2A_SYNC_NONE, 0);
}
