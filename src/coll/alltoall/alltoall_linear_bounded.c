/*
 * Algorithm: linear with a bound on outstanding requests: the steps s = 1..p-1 of spreading simple
 *   (receive from me-s, send to me+s) are posted n at a time; each window of n steps is waited
 *   for before the next is posted, so at most 2n requests are outstanding.
 *   alltoallv runs the same function with counts and displacements per block (a2a_util.h); a
 *   pair with zero bytes is skipped by both sides, but the step structure and its
 *   synchronisation are kept.
 * Cost: ceil((p-1)/n) alpha + (p-1) n_b beta at best, (p-1)(alpha + n_b beta) serialised;
 *   n_b = bytes of one block, n = window (parameter).
 * Restrictions: none. In place: the receive buffer is first copied to a temporary send
 *   buffer (a2a_util.c). Memory: 2n requests; the receive buffer (p blocks; alltoallv: the
 *   receive span) when in place.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1, STAR-MPI alltoall and alltoallv
 *   repositories, simple/spreading simple (spec star-stage-ethernet.md 2.1); the window is the
 *   "bounded outstanding requests" variant of the same schedule.
 */
#include "a2a_util.h"

int ac_alltoall_linear_bounded(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_a2a_window(a, (int)ac_param_int(in, "n"));
}
