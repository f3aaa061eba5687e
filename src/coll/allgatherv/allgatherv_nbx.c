/*
 * Algorithm: neighbour exchange, allgatherv form: the schedule of
 * src/coll/allgather/allgather_nbx.c run on blocks of rcounts[b] elements at rdispls[b]
 * (displacements in any order). A message of several blocks is one message: the blocks' slots
 * directly when they are adjacent in memory, otherwise an MPI_Type_create_hindexed over them
 * (ag_common.c), so no packing copy is made. Cost: (p/2) alpha + sum n_j beta; n_j = bytes of block
 * j. Restrictions: EVEN_P (as the allgather form). Memory: as the allgather form. Reference: seed
 * 001 2.4.2 (see allgather_nbx.c); spec star-stage-ethernet.md 2.3.
 */
#include "../algs.h"

int ac_allgatherv_nbx(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    return ac_allgather_nbx(a, in, ctx);
}
