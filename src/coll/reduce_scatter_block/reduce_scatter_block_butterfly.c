/*
 * Algorithm: butterfly: fold p onto p' = 2^floor(lg p) participants (the odd rank of a leading pair
 *   combines x_{2j} op x_{2j+1}); recursive halving at distance 1, 2, 4, ... (butterfly order):
 *   the operands of every combination are contiguous participant ranges, combined lower op
 *   higher, so the result is the rank-ordered reduction; participant j ends with the blocks of
 *   group bitrev(j) and sends each rank of that group its block. The blocks all have rcount
 * elements. Cost: (lg p' + 1) alpha + ((p'-1)/p') N (beta + gamma) + fold; N = whole vector.
 * Restrictions: none (rank-ordered, any operation). Memory: two copies of the whole vector.
 * Reference: seed 000 (Faraj 2006), spec star-stage-ethernet.md section 2.4 (recursive halving,
 * fold), distance-doubling order.
 */
#include <stdlib.h>
#include "../algs.h"
#include "../../sched/rs_core.h"

int ac_reduce_scatter_block_butterfly(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    (void)in;
    int *counts = malloc((size_t)a->size * sizeof *counts), err;
    if (!counts) return MPI_ERR_NO_MEM;
    for (int r = 0; r < a->size; r++)
        counts[r] = a->rcount;
    err = ac_rs_rsc_halving(a, counts, 1);
    free(counts);
    return err;
}
