/*
 * Algorithm: Sparbit-v, zero-count blocks skipped, allgatherv form: the schedule of
 * src/coll/allgather/allgather_sparbit.c run on blocks of rcounts[b] elements at rdispls[b]
 * (displacements in any order). A message of several blocks is one message: the blocks' slots
 * directly when they are adjacent in memory, otherwise an MPI_Type_create_hindexed over them
 * (ag_common.c), so no packing copy is made. Blocks whose byte size is zero (rcounts[b] *
 * size(rtype) == 0, the same on every rank) are skipped on both sides, so matching by posting order
 * still holds; with a single non-empty block the algorithm is a binomial broadcast from its owner.
 * Cost: (p'-1-L) tau + L alpha + sum n_j beta (p' = non-empty blocks); n_j = bytes of block j.
 * Restrictions: none (as the allgather form). Memory: as the allgather form.
 * Reference: seed 001 4.2, spec sparbit.md 2 (see allgather_sparbit.c); spec
 * star-stage-ethernet.md 2.3.
 */
#include "../algs.h"

int ac_allgatherv_sparbit(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    return ac_allgather_sparbit(a, in, ctx);
}
