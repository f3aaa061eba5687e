/*
 * Algorithm: ring: step s = 0 .. p-2: rank r sends block r - s - 1 to r + 1, receives block
 *   r - s - 2 from r - 1 and combines it (received op own), so after p - 1 steps rank r holds
 *   block r reduced; the combination order follows the ring (ac_rs_ring, shift -1).
 *   reduce_scatter_block runs the same function: every block has rcount elements.
 * Cost: (p-1) alpha + ((p-1)/p) N (beta + gamma); N = whole vector.
 * Restrictions: COMMUTATIVE. Memory: one copy of the vector and one block.
 * Reference: seed 000 (Faraj 2006), ring family of spec star-stage-ethernet.md section 2.3/2.4
 *   (reduce-scatter ring).
 */
#include <stdlib.h>
#include "rsc_common.h"
#include "../../sched/rs_core.h"

int ac_reduce_scatter_ring(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    int err = MPI_SUCCESS, p = a->size, me = a->rank, *cbase = NULL;
    MPI_Datatype t = a->rtype;
    void *bbase = NULL, *tbase = NULL;
    const int *counts = ac_rsc_counts(a, &cbase);
    size_t *off = counts ? ac_rsc_offsets(counts, p) : NULL, maxc = 0;
    char *buf = NULL, *tmp = NULL;
    if (!off) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    for (int r = 0; r < p; r++)
        if ((size_t)counts[r] > maxc) maxc = (size_t)counts[r];
    buf = ac_dt_alloc(t, off[p], &bbase);
    tmp = ac_dt_alloc(t, maxc, &tbase);
    if (!buf || !tmp) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    AC_CHECK(ac_dt_copy(ac_rs_input(a), (int)off[p], t, buf, (int)off[p], t));
    AC_CHECK(ac_rs_ring(p, me, off, -1, 1, 0, buf, tmp, t, a->op, a->comm, AC_TAG(a)));
    AC_CHECK(ac_dt_copy(ac_dt_at(buf, t, off[me]), counts[me], t, a->rbuf, counts[me], t));
fn_exit:
    free(cbase);
    free(off);
    free(bbase);
    free(tbase);
    return err;
}
