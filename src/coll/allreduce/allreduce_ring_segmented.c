/*
 * Algorithm: segmented ring: the ring allreduce (reduce-scatter ring + allgather ring over p
 *   blocks, see allreduce_ring.c) where every block travels as messages of at most `seg` bytes
 *   (whole elements), each combined as soon as it lands, overlapping the reduction of segment j
 *   with the transfer of segments j + 1 .. j + W - 1. A step keeps a window of W = 16
 *   (AC_RS_RING_WINDOW, src/sched/rs_core.h) segments in flight each way: segment k is posted
 *   once segment k - W has completed. Posting all ceil(n / (p seg)) segments of a step at once
 *   made the MPI library's matching queues as long as the step, and time superlinear in n
 *   (issue 22: 28 s against 1.6 s for the plain ring at 800 MB, p = 2, seg = 8192); 16
 *   segments still cover a link's bandwidth-delay product at the default 8 KiB. Same messages
 *   and same order of combination as without the window, so results are bitwise identical.
 * Cost: 2 (p-1) ceil(n / (p seg)) alpha + 2 ((p-1)/p) n beta + ((p-1)/p) n gamma (the gamma term
 *   partly hidden; the window W >= 2 does not change it); n = bytes of the vector,
 *   seg = segment bytes.
 * Restrictions: COMMUTATIVE. Memory: min(n / p, W seg) bytes for received segments (W slots
 *   reused in turn), 2 W requests.
 * Reference: seed 000 (Faraj 2006), spec star-stage-ethernet.md section 2.4 (ring family) with
 *   segmentation as in the pipelined algorithms of section 2.5; parameter seg.
 */
#include "../algs.h"

int ac_allreduce_ring_segmented(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    /* The ring core reads "seg" from the instance; plain ring has no such parameter (-1). */
    return ac_allreduce_ring(a, in, ctx);
}
