/*
 * Algorithm: spreading simple: at every s = 1..p-1 post the receive of the block from rank me-s and
 *   the send of the block for rank me+s (so the s-th send of every rank meets the s-th receive
 *   posted by its target), then wait for all; the own block is a local copy.
 *   alltoallv runs the same function with counts and displacements per block (a2a_util.h); a
 *   pair with zero bytes is skipped by both sides, but the step structure and its
 *   synchronisation are kept.
 * Cost: (p-1)(alpha + n beta) serialised, alpha + (p-1) n beta at best; less node contention than
 *   simple because at step s every rank targets a different rank; n = bytes of one block.
 * Restrictions: none. In place: the receive buffer is first copied to a temporary send
 *   buffer (a2a_util.c). Memory: 2(p-1) requests; the receive buffer (p blocks; alltoallv: the
 *   receive span) when in place.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1, STAR-MPI alltoall and alltoallv
 *   repositories, "spreading simple" (spec star-stage-ethernet.md 2.1).
 */
#include "a2a_util.h"

int ac_alltoall_spread(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_a2a_window(a, a->size - 1);
}
