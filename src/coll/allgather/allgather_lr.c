/*
 * Algorithm: logical neighbour ring (LR, topology-unaware ring order R[q] = q): at step
 *   s = 0..p-2 rank i sends block i-s (its own block first, then the one received at the
 *   previous step) to i+1 and receives block i-s-1 from i-1 (ac_lring_*). Only neighbours talk.
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h).
 * Cost: (p-1)(alpha + n beta) + (p-2) theta; n = bytes of a block.
 *   allgatherv: (p-1) alpha + sum n_j beta; n_j = bytes of block j.
 * Restrictions: none. Memory: none.
 * Reference: seed 000 (Faraj 2006), section 3.3.1 (logical ring, LR); spec
 *   star-stage-ethernet.md 2.2; seed 001 (Loch 2021) section 2.4.1 (spec sparbit.md 3.1).
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include "ag_common.h"

int ac_allgather_lr(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    ac_agb_t g;
    int err = ac_agb_setup(a, &g), p = a->size, me = a->rank;
    int succ = ac_ring_to(me, p, 1), pred = ac_ring_from(me, p, 1);
    for (int s = 0; err == MPI_SUCCESS && s < p - 1; s++) {
        int sb = ac_lring_send_block(me, p, s), rb = ac_lring_recv_block(me, p, s);
        err = ac_agb_sendrecv(&g, &sb, 1, succ, &rb, 1, pred);
    }
    return err;
}
