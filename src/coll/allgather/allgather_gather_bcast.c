/*
 * Algorithm: gather + broadcast, both binomial over point-to-point (no MPI collective):
 *   gather: for mask = 1, 2, 4, ...: a rank with bit mask set sends the contiguous range of
 *   blocks it holds, [r, min(r + mask, p)), to r - mask and stops; otherwise it receives
 *   [r + mask, min(r + 2 mask, p)) from r + mask (when r + mask < p). Rank 0 then holds all p
 *   blocks. bcast: rank r > 0 receives from r - lowbit(r) every block outside the range it
 *   gathered, [r, min(r + lowbit(r), p)); then it sends to each child c = r + m (m = lowbit(r)/2,
 *   ..., 1, c < p) every block outside c's range.
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h).
 * Cost: gather ceil(log2 p) alpha + (p-1) n beta, bcast ceil(log2 p)(alpha + p n beta).
 *   allgatherv: 2 ceil(log2 p) alpha + sum n_j beta + log2(p) sum n_j beta; n_j = bytes of block j.
 * Restrictions: none. Memory: block lists.
 * Reference: seed 000 (Faraj 2006) section 4.1.1.1 (gather-bcast, LAM's allgather); spec
 *   star-stage-ethernet.md 2.2 (schedule and corrected gather estimate).
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include <stdlib.h>
#include "ag_common.h"

/* blocks of [0, p) outside [lo, hi) */
static int outside(int *out, int lo, int hi, int p) {
    int n = 0;
    for (int b = 0; b < p; b++)
        if (b < lo || b >= hi) out[n++] = b;
    return n;
}

int ac_allgather_gather_bcast(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    ac_agb_t g;
    int err = ac_agb_setup(a, &g), p = a->size, me = a->rank, top;
    if (err != MPI_SUCCESS || p == 1) return err;
    int *blk = malloc((size_t)p * sizeof *blk);
    if (!blk) return MPI_ERR_NO_MEM;
    MPI_Request req;
    /* gather */
    int mask = 1;
    for (; mask < p; mask <<= 1) {
        if (me & mask) {
            int hi = me + mask < p ? me + mask : p;
            int n = ac_agb_range(blk, me, hi - me, p);
            AC_CHECK(ac_agb_isend(&g, blk, n, me - mask, &req));
            AC_CHECK(PMPI_Wait(&req, MPI_STATUS_IGNORE));
            break;
        }
        if (me + mask < p) {
            int hi = me + 2 * mask < p ? me + 2 * mask : p;
            int n = ac_agb_range(blk, me + mask, hi - me - mask, p);
            AC_CHECK(ac_agb_irecv(&g, blk, n, me + mask, &req));
            AC_CHECK(PMPI_Wait(&req, MPI_STATUS_IGNORE));
        }
    }
    /* broadcast: my range is [me, me + mask) where mask = lowbit(me) (or >= p for rank 0) */
    top = mask;
    if (me > 0) {
        int n = outside(blk, me, me + top < p ? me + top : p, p);
        AC_CHECK(ac_agb_irecv(&g, blk, n, me - top, &req));
        AC_CHECK(PMPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    for (int m = top >> 1; m >= 1; m >>= 1) {
        int c = me + m;
        if (c >= p) continue;
        int n = outside(blk, c, c + m < p ? c + m : p, p);
        AC_CHECK(ac_agb_isend(&g, blk, n, c, &req));
        AC_CHECK(PMPI_Wait(&req, MPI_STATUS_IGNORE));
    }
fn_exit:
    free(blk);
    return err;
}
