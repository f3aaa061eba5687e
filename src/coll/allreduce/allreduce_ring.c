/*
 * Algorithm: ring: the vector is cut into p blocks (block b: count/p elements, one more when
 *   b < count % p); reduce-scatter ring (step s: rank r sends block r - s to r + 1, receives
 *   block r - s - 1 from r - 1 and combines it, so rank r ends with block r + 1 reduced), then
 *   allgather ring (step s: send block r + 1 - s, receive block r - s). Every block is reduced
 *   at one rank and copied, so all ranks hold identical bytes; the combination order follows
 *   the ring, hence commutative operations only.
 *   ring_segmented is this function with parameter seg: every block travels as messages of at
 *   most `seg` bytes (whole elements), each combined as soon as it lands, overlapping the
 *   reduction of segment j with the transfer of segments j + 1 .. j + W - 1. A step keeps a
 *   window of W = 16 (AC_RS_RING_WINDOW, src/sched/rs_core.h) segments in flight each way:
 *   segment k is posted once segment k - W has completed. Posting all ceil(n / (p seg))
 *   segments of a step at once made the MPI library's matching queues as long as the step, and
 *   time superlinear in n (issue 22: 28 s against 1.6 s for the plain ring at 800 MB, p = 2,
 *   seg = 8192); 16 segments still cover a link's bandwidth-delay product at the default 8 KiB.
 *   Same messages and same order of combination as without the window, so results are bitwise
 *   identical. Without parameter seg (ring) every block is one message.
 * Cost: 2 (p-1) alpha + 2 ((p-1)/p) n beta + ((p-1)/p) n gamma; n = bytes of the vector.
 *   ring_segmented: 2 (p-1) ceil(n / (p seg)) alpha + 2 ((p-1)/p) n beta + ((p-1)/p) n gamma
 *   (the gamma term partly hidden; the window W >= 2 does not change it), seg = segment bytes.
 * Restrictions: COMMUTATIVE. Memory: one block (the received operand); ring_segmented:
 *   min(n / p, W seg) bytes for received segments (W slots reused in turn), 2 W requests.
 * Reference: seed 000 (Faraj 2006), spec star-stage-ethernet.md section 2.4 (reduce-scatter +
 *   allgather family, ring allgather of section 2.3); segmentation as in the pipelined
 *   algorithms of section 2.5 (ring_segmented, parameter seg).
 */
#include <stdlib.h>
#include "../algs.h"
#include "../../sched/rs_core.h"

int ac_allreduce_ring(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, n = a->rcount;
    long segbytes = in ? ac_param_int(in, "seg") : -1; /* -1: ring, no parameter seg */
    size_t seg = 0, esize = ac_dt_size(a->rtype);
    MPI_Datatype t = a->rtype;
    void *tbase = NULL;
    /* seg (segmented ring only) is in bytes; segments are whole elements. */
    if (segbytes > 0) seg = esize ? ((size_t)segbytes / esize ? (size_t)segbytes / esize : 1) : 1;
    /* Scratch for the received operand: the largest block, or the window of segments in
     * flight when that is smaller (ac_rs_ring receives segment k into slot k mod W). */
    size_t tcount = (size_t)n / (size_t)p + 1;
    if (seg > 0 && seg < tcount / AC_RS_RING_WINDOW) tcount = seg * AC_RS_RING_WINDOW;
    size_t *blk = malloc(((size_t)p + 1) * sizeof *blk);
    char *tmp = ac_dt_alloc(t, tcount, &tbase);
    if (!blk || !tmp) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    ac_rs_split((size_t)n, p, blk);
    if (!a->inplace) AC_CHECK(ac_dt_copy(a->sbuf, n, t, a->rbuf, n, t));
    AC_CHECK(ac_rs_ring(p, a->rank, blk, 0, 1, seg, a->rbuf, tmp, t, a->op, a->comm, AC_TAG(a)));
    AC_CHECK(ac_rs_ring(p, a->rank, blk, 1, 0, seg, a->rbuf, tmp, t, a->op, a->comm, AC_TAG(a)));
fn_exit:
    free(blk);
    free(tbase);
    return err;
}
