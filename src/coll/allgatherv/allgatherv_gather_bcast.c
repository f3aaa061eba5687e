/*
 * Algorithm: gatherv + bcast, binomial, point-to-point, allgatherv form: the schedule of
 * src/coll/allgather/allgather_gather_bcast.c run on blocks of rcounts[b] elements at rdispls[b]
 * (displacements in any order). A message of several blocks is one message: the blocks' slots
 * directly when they are adjacent in memory, otherwise an MPI_Type_create_hindexed over them
 * (ag_common.c), so no packing copy is made. Cost: 2 ceil(log2 p) alpha + sum n_j beta + log2(p)
 * sum n_j beta; n_j = bytes of block j. Restrictions: none (as the allgather form). Memory: as the
 * allgather form. Reference: seed 000 4.1.1.1 (see allgather_gather_bcast.c); spec
 * star-stage-ethernet.md 2.3.
 */
#include "../algs.h"

int ac_allgatherv_gather_bcast(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    return ac_allgather_gather_bcast(a, in, ctx);
}
