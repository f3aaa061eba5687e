/*
 * Algorithm: logical ring all-gather on a contention-free ring of the switch tree of
 *   AUTOCOLL_TOPOLOGY (src/topo/rings.c: LR3, the dynamic programme of Algorithm 3 that
 *   minimises the longest path among contention-free rings; LR2 or LR1 when LR3 cannot run).
 *   With R the ring and q = position of my rank in it, at step s = 0..p-2 rank R[q] sends block
 *   R[q-s] to R[q+1] and receives block R[q-s-1] from R[q-1] (indices mod p): the LR algorithm
 *   of spec 2.2 with ring order R instead of R[q] = q. No two messages of a step share a
 *   directed link (Lemma 8), so every step runs at the speed of one transfer on the
 *   longest path. allgatherv runs the same function on blocks of rcounts[b] elements.
 * Cost: (p-1)(alpha + n beta) + (p-2) theta with gamma = 0; on store-and-forward switches
 *   + (d-1)(p-1) pkt beta, d = longest ring path (spec 1.3); n = bytes of a block.
 *   allgatherv: (p-1) alpha + sum n_j beta. Ring built once per communicator (LR3:
 *   O(|V| n^{k+1} H^4), spec 3.4).
 * Restrictions: TOPOLOGY_FILE. Memory: the ring (cached with the communicator).
 * Reference: seed 000 (Faraj 2006), §3.3.1-§3.3.2 (Algorithms 1-3, Lemma 8, Theorems 2-3);
 *   spec star-stage-ethernet.md sections 2.2, 2.3 and 3.4.
 */
#include "ag_common.h"
#include "../../topo/load.h"

int ac_allgather_topo_ring(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    ac_topo_comm_t *tc = ac_topo_of(ctx);
    if (!tc || a->comm != ctx->comm || tc->t->nranks != a->size) return MPI_ERR_ARG;
    const int *R = ac_topo_ring(tc);
    if (!R) return MPI_ERR_NO_MEM;
    ac_agb_t g;
    int err = ac_agb_setup(a, &g), p = a->size, q = 0;
    while (q < p && R[q] != a->rank)
        q++;
    int succ = R[(q + 1) % p], pred = R[(q + p - 1) % p];
    for (int s = 0; err == MPI_SUCCESS && s < p - 1; s++) {
        int sb = R[((q - s) % p + p) % p], rb = R[((q - s - 1) % p + p) % p];
        err = ac_agb_sendrecv(&g, &sb, 1, succ, &rb, 1, pred);
    }
    return err;
}
