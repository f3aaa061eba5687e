/*
 * Algorithm: segmented ring: the ring allreduce (reduce-scatter ring + allgather ring over p
 *   blocks, see allreduce_ring.c) where every block travels as messages of at most `seg` bytes
 *   (whole elements): all segments of a step are posted at once and each is combined as soon as
 *   it lands, overlapping the reduction of segment j with the transfer of segment j + 1.
 * Cost: 2 (p-1) ceil(n / (p seg)) alpha + 2 ((p-1)/p) n beta + ((p-1)/p) n gamma (the gamma term
 *   partly hidden); n = bytes of the vector, seg = segment bytes.
 * Restrictions: COMMUTATIVE. Memory: one block.
 * Reference: seed 000 (Faraj 2006), spec star-stage-ethernet.md section 2.4 (ring family) with
 *   segmentation as in the pipelined algorithms of section 2.5; parameter seg.
 */
#include "../algs.h"

int ac_allreduce_ring_segmented(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    /* The ring core reads "seg" from the instance; plain ring has no such parameter (-1). */
    return ac_allreduce_ring(a, in, ctx);
}
