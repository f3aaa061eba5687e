/*
 * Algorithm: logical neighbour ring, allgatherv form: the schedule of
 * src/coll/allgather/allgather_lr.c run on blocks of rcounts[b] elements at rdispls[b]
 * (displacements in any order). A message of several blocks is one message: the blocks' slots
 * directly when they are adjacent in memory, otherwise an MPI_Type_create_hindexed over them
 * (ag_common.c), so no packing copy is made. Cost: (p-1) alpha + sum n_j beta; n_j = bytes of block
 * j. Restrictions: none (as the allgather form). Memory: as the allgather form. Reference: seed
 * 000 3.3.1 (see allgather_lr.c); spec star-stage-ethernet.md 2.3.
 */
#include "../algs.h"

int ac_allgatherv_lr(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    return ac_allgather_lr(a, in, ctx);
}
