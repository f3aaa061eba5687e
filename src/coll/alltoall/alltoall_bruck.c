/*
 * Algorithm: Bruck: (1) rotate: slot t = my block for rank (me + t) mod p; (2) for every bit
 *   k = 1, 2, 4, ... < p send the slots t with (t & k) != 0, packed, to me + k and receive the
 *   same slots from me - k into place; a block thus moves by t in total; (3) inverse rotation:
 *   slot t holds the block from rank (me - t) mod p. Step peers: ac_kbruck_part (k = 1), slot
 *   selection: ac_a2a_bruck_slots (src/sched/a2a_sched.c).
 * Cost: ceil(lg p) alpha + (n p / 2) ceil(lg p) beta + (lg p - 1) theta + gamma (p a power of
 *   two; about the same otherwise); n = bytes of one block.
 * Restrictions: none. In place: works on copies. Memory: 3p blocks.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1, STAR-MPI alltoall "bruck" (spec
 *   star-stage-ethernet.md 2.1, schedule "bruck").
 */
#include "a2a_util.h"

int ac_alltoall_bruck(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_a2a_bruck(a, 1);
}
