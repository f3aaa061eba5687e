/*
 * Algorithm: non-commutative direct: every rank posts receives for the p - 1 pieces of its block,
 * sends every other block to its rank, then combines the p pieces in rank order, x_0 op (x_1 op
 * (... op x_{p-1})): correct for any operation. The blocks all have rcount elements. Cost: alpha +
 * ((p-1)/p) N beta + ((p-1)/p) N gamma at best, (p-1) alpha when serialised. Restrictions: none.
 * Memory: p pieces of one block, 2(p-1) requests. Reference: seed 000 (Faraj 2006), spec
 * star-stage-ethernet.md section 2.4 (Rab2: reduce-scatter through an all-to-all of blocks,
 * rank-ordered combination).
 */
#include <stdlib.h>
#include "../algs.h"
#include "../../sched/rs_core.h"

int ac_reduce_scatter_block_noncommutative(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    (void)in;
    int *counts = malloc((size_t)a->size * sizeof *counts), err;
    if (!counts) return MPI_ERR_NO_MEM;
    for (int r = 0; r < a->size; r++)
        counts[r] = a->rcount;
    err = ac_rs_rsc_direct(a, counts);
    free(counts);
    return err;
}
