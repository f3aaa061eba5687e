/*
 * Algorithm: pairwise exchange: at step s = 1 .. p-1 rank r sends its piece of block r + s to rank
 *   r + s and receives the piece of block r from rank r - s (mod p), combining it into its
 *   accumulator; the order of combination follows the steps, not rank order. The blocks all have
 * rcount elements. Cost: (p-1) alpha + ((p-1)/p) N (beta + gamma); N = whole vector. Restrictions:
 * COMMUTATIVE. Memory: two blocks. Reference: seed 000 (Faraj 2006), pair family of spec
 * star-stage-ethernet.md section 2.3 applied to reduce-scatter.
 */
#include <stdlib.h>
#include "../algs.h"
#include "../../sched/rs_core.h"

int ac_reduce_scatter_block_pairwise(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    (void)in;
    int *counts = malloc((size_t)a->size * sizeof *counts), err;
    if (!counts) return MPI_ERR_NO_MEM;
    for (int r = 0; r < a->size; r++)
        counts[r] = a->rcount;
    err = ac_rs_rsc_pairwise(a, counts);
    free(counts);
    return err;
}
