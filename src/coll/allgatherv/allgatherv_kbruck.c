/*
 * Algorithm: k-port Bruck / (k+1)-group dissemination, allgatherv form: the schedule of
 * src/coll/allgather/allgather_kbruck.c run on blocks of rcounts[b] elements at rdispls[b]
 * (displacements in any order). A message of several blocks is one message: the blocks' slots
 * directly when they are adjacent in memory, otherwise an MPI_Type_create_hindexed over them
 * (ag_common.c), so no packing copy is made. Cost: ceil(log_{k+1} p) alpha + sum n_j beta / k; n_j
 * = bytes of block j. Restrictions: none (as the allgather form). Memory: as the allgather form.
 * Reference: seed 004 5.6 (see allgather_kbruck.c); spec star-stage-ethernet.md 2.3.
 */
#include "../algs.h"

int ac_allgatherv_kbruck(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    return ac_allgather_kbruck(a, in, ctx);
}
