/*
 * Algorithm: node-aware hierarchical, allgatherv form: the schedule of
 * src/coll/allgather/allgather_hier.c run on blocks of rcounts[b] elements at rdispls[b]
 * (displacements in any order). A message of several blocks is one message: the blocks' slots
 * directly when they are adjacent in memory, otherwise an MPI_Type_create_hindexed over them
 * (ag_common.c), so no packing copy is made. Cost: intra gatherv + leaders' allgatherv + intra
 * bcast; n_j = bytes of block j. Restrictions: none (as the allgather form). Memory: as the
 * allgather form. Reference: seed 001 5 (see allgather_hier.c); spec star-stage-ethernet.md 2.3.
 */
#include "../algs.h"

int ac_allgatherv_hier(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    return ac_allgather_hier(a, in, ctx);
}
