/*
 * Algorithm: pair with MPI barrier, allgatherv form: the schedule of
 * src/coll/allgather/allgather_pair_mpib.c run on blocks of rcounts[b] elements at rdispls[b]
 * (displacements in any order). A message of several blocks is one message: the blocks' slots
 * directly when they are adjacent in memory, otherwise an MPI_Type_create_hindexed over them
 * (ag_common.c), so no packing copy is made. Cost: (p-1) alpha + sum n_j beta + (p-2) delta_h; n_j
 * = bytes of block j. Restrictions: POF2 (as the allgather form). Memory: as the allgather form.
 * Reference: seed 000 4.1.1.1 (see allgather_pair_mpib.c); spec star-stage-ethernet.md 2.3.
 */
#include "../algs.h"

int ac_allgatherv_pair_mpib(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    return ac_allgather_pair_mpib(a, in, ctx);
}
