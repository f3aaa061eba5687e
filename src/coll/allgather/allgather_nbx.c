/*
 * Algorithm: neighbour exchange (Chen et al. 2005): p/2 steps. Step 0: rank r swaps its own
 *   block with r+1 (even r) or r-1 (odd r); both then hold the aligned pair (e, e+1),
 *   e = 2 floor(r/2). Step s >= 1: the partner alternates direction, (r + sigma (-1)^s) mod p
 *   with sigma = +1 for even r, -1 for odd r; r sends the aligned pair it received at step s-1
 *   (its own pair at s = 1) and receives the partner's pair starting at
 *   (e + sigma (-1)^s 2 ceil(s/2)) mod p (ac_nbx_*). Pairs are two adjacent slots: one message.
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h).
 * Cost: (p/2) alpha + (p-1) n beta; n = bytes of a block.
 *   allgatherv: (p/2) alpha + sum n_j beta; n_j = bytes of block j.
 * Restrictions: EVEN_P. Memory: none.
 * Reference: seed 001 (Loch 2021) section 2.4.2; spec sparbit.md 3.2.
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include "ag_common.h"

int ac_allgather_nbx(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    ac_agb_t g;
    int err = ac_agb_setup(a, &g), p = a->size, me = a->rank;
    for (int s = 0; err == MPI_SUCCESS && s < ac_nbx_nsteps(p); s++) {
        int sb[2], rb[2], nb = ac_nbx_nblocks(s), peer = ac_nbx_peer(me, p, s);
        ac_agb_range(sb, ac_nbx_send_start(me, p, s), nb, p);
        ac_agb_range(rb, ac_nbx_recv_start(me, p, s), nb, p);
        err = ac_agb_sendrecv(&g, sb, nb, peer, rb, nb, peer);
    }
    return err;
}
