/*
 * Algorithm: recursive doubling, p a power of two: at step k = 0..log2(p)-1 rank r exchanges
 *   with r ^ 2^k everything it holds: the aligned range of 2^k blocks starting at
 *   (r >> k) << k, and receives the partner's range starting at ((r ^ 2^k) >> k) << k. After
 *   step k, r holds the aligned range of 2^(k+1) blocks around it.
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h).
 * Cost: log2(p) alpha + (p-1) n beta + (log2(p)-1) theta; n = bytes of a block.
 *   allgatherv: log2(p) alpha + sum n_j beta; n_j = bytes of block j.
 * Restrictions: POF2 (the fold for other p is allgather_rdb_fold). Memory: none.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1; spec star-stage-ethernet.md 2.1 (rdb),
 *   spec sparbit.md 3.3.
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include <stdlib.h>
#include "ag_common.h"

int ac_allgather_rdb(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    ac_agb_t g;
    int err = ac_agb_setup(a, &g), p = a->size, me = a->rank;
    if (err != MPI_SUCCESS || p == 1) return err;
    int *sb = malloc((size_t)p * sizeof *sb), *rb = malloc((size_t)p * sizeof *rb);
    if (!sb || !rb) err = MPI_ERR_NO_MEM;
    for (int k = 0; err == MPI_SUCCESS && (1 << k) < p; k++) {
        int peer = me ^ (1 << k), n = 1 << k;
        ac_agb_range(sb, ac_rdb_start(me, k), n, p);
        ac_agb_range(rb, ac_rdb_start(peer, k), n, p);
        err = ac_agb_sendrecv(&g, sb, n, peer, rb, n, peer);
    }
    free(sb);
    free(rb);
    return err;
}
