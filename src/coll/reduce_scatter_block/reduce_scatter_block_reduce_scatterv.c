/*
 * Algorithm: reduce + scatterv: the whole vector is reduced to rank 0 by a registered reduce
 * algorithm (parameter `reduce`, which combines in rank order), then rank 0 sends block i to rank
 * i. The blocks all have rcount elements. Cost: T_reduce(N, p) + (p-1) alpha + ((p-1)/p) N beta; N
 * = whole vector. Restrictions: none. Memory: the whole vector at rank 0. Reference: seed 000
 * (Faraj 2006), STAR-MPI reduce + scatter composite.
 */
#include <stdlib.h>
#include "../algs.h"

int ac_reduce_scatter_block_reduce_scatterv(const ac_args_t *a, const ac_inst_t *in,
                                            ac_ctx_t *ctx) {
    int *counts = malloc((size_t)a->size * sizeof *counts), err;
    if (!counts) return MPI_ERR_NO_MEM;
    for (int r = 0; r < a->size; r++)
        counts[r] = a->rcount;
    ac_args_t b = *a;
    b.rcounts = counts;
    err = ac_reduce_scatter_reduce_scatterv(&b, in, ctx);
    free(counts);
    return err;
}
