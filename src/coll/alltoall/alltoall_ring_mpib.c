/*
 * Algorithm: ring with MPI barrier: the ring schedule (to me+s, from me-s, s = 1..p-1) with a
 *   PMPI_Barrier on the private communicator between every two steps (lock-step phases).
 *   alltoallv runs the same function with counts and displacements per block (a2a_util.h); a
 *   pair with zero bytes is skipped by both sides, but the step structure and its
 *   synchronisation are kept.
 * Cost: (p-1)(alpha + n beta) + (p-2) delta_h + gamma_l; n = bytes of one block.
 * Restrictions: none. In place: the receive buffer is first copied to a temporary send
 *   buffer (a2a_util.c). Memory: 3 requests; the receive buffer (p blocks; alltoallv: the
 *   receive span) when in place.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1, STAR-MPI alltoall and alltoallv
 *   repositories, "ring with MPI barrier" (spec star-stage-ethernet.md 2.0).
 */
#include "a2a_util.h"

int ac_alltoall_ring_mpib(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_a2a_stepwise(a, AC_A2A_RING, AC_A2A_SYNC_MPIB, 0);
}
