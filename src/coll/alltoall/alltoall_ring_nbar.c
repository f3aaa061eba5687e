/*
 * Algorithm: ring with N MPI barriers: the ring schedule (to me+s, from me-s, s = 1..p-1) cut into
 *   N+1 consecutive blocks of steps as evenly as possible (ac_nbar_count), with a PMPI_Barrier
 *   after each of the first N blocks. When N > p-2 some blocks are empty and barriers are
 *   adjacent: exactly N barriers are always run and results are unaffected.
 *   alltoallv runs the same function with counts and displacements per block (a2a_util.h); a
 *   pair with zero bytes is skipped by both sides, but the step structure and its
 *   synchronisation are kept.
 * Cost: (p-1)(alpha + n beta) + N delta_h + gamma; n = bytes of one block, N = parameter n.
 * Restrictions: none. In place: the receive buffer is first copied to a temporary send
 *   buffer (a2a_util.c). Memory: 3 requests; the receive buffer (p blocks; alltoallv: the
 *   receive span) when in place.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1, STAR-MPI alltoall and alltoallv
 *   repositories, "ring with N MPI barriers" (spec star-stage-ethernet.md 2.0).
 */
#include "a2a_util.h"

int ac_alltoall_ring_nbar(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_a2a_stepwise(a, AC_A2A_RING, AC_A2A_SYNC_NBAR, (int)ac_param_int(in, "n"));
}
