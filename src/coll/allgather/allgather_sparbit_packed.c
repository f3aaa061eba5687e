/*
 * Algorithm: Sparbit, one message per step: the schedule of allgather_sparbit.c (distances
 *   2^(L-1) .. 1, blocks (r - 2jd) mod p out to r+d, (r - (2j+1)d) mod p in from r-d, ignore
 *   rule z = ((p-1) & d) == 0), but the n blocks of a step travel as a single message described
 *   by an MPI_Type_create_hindexed over the blocks' slots (committed, freed after posting). Zero-
 *   byte blocks are left out of the type; a step whose blocks are all empty sends nothing.
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h).
 * Cost: L alpha + (p-1) n beta (no per-block issue cost, one datatype build per step).
 *   allgatherv: L alpha + sum n_j beta; n_j = bytes of block j.
 * Restrictions: none. Memory: one block list and one derived datatype per step.
 * Reference: seed 001 (Loch 2021) section 4.2-4.3 (the per-block tau term this variant removes);
 *   spec sparbit.md 1.2, 1.5, 3.5.
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include "ag_common.h"

int ac_allgather_sparbit_packed(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_agx_sparbit(a, 1);
}
