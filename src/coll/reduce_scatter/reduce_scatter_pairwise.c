/*
 * Algorithm: pairwise exchange: at step s = 1 .. p-1 rank r sends its piece of block r + s to rank
 *   r + s and receives the piece of block r from rank r - s (mod p), combining it into its
 *   accumulator; the order of combination follows the steps, not rank order.
 *   reduce_scatter_block runs the same function: every block has rcount elements.
 * Cost: (p-1) alpha + ((p-1)/p) N (beta + gamma); N = whole vector.
 * Restrictions: COMMUTATIVE. Memory: two blocks.
 * Reference: seed 000 (Faraj 2006), pair family of spec star-stage-ethernet.md section 2.3
 *   applied to reduce-scatter.
 */
#include <stdlib.h>
#include "rsc_common.h"

int ac_reduce_scatter_pairwise(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    int err = MPI_SUCCESS, p = a->size, me = a->rank, tag = AC_TAG(a), *cbase = NULL;
    MPI_Datatype t = a->rtype;
    void *abase = NULL, *tbase = NULL;
    const char *input = ac_rs_input(a);
    const int *counts = ac_rsc_counts(a, &cbase);
    if (!counts) return MPI_ERR_NO_MEM;
    int mc = counts[me];
    size_t *off = ac_rsc_offsets(counts, p);
    char *acc = ac_dt_alloc(t, (size_t)mc, &abase), *tmp = ac_dt_alloc(t, (size_t)mc, &tbase);
    if (!off || !acc || !tmp) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    AC_CHECK(ac_dt_copy(ac_dt_at(input, t, off[me]), mc, t, acc, mc, t));
    for (int s = 1; s < p; s++) {
        int dst = (me + s) % p, src = (me - s + p) % p;
        AC_CHECK(PMPI_Sendrecv(ac_dt_at(input, t, off[dst]), counts[dst], t, dst, tag, tmp, mc, t,
                               src, tag, a->comm, MPI_STATUS_IGNORE));
        AC_CHECK(PMPI_Reduce_local(tmp, acc, mc, t, a->op));
    }
    AC_CHECK(ac_dt_copy(acc, mc, t, a->rbuf, mc, t));
fn_exit:
    free(cbase);
    free(off);
    free(abase);
    free(tbase);
    return err;
}
