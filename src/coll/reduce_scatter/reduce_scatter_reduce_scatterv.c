/*
 * Algorithm: reduce + scatterv: the whole vector is reduced to rank 0 by a registered reduce
 *   algorithm (parameter `reduce`, which combines in rank order), then rank 0 sends block i to
 *   rank i, i = 1 .. p-1, in turn.
 *   linear is this function without parameter `reduce`: the linear reduce (reduce_linear.c,
 *   rank order, so non-commutative operations are correct).
 *   reduce_scatter_block runs the same function (both names): every block has rcount elements.
 * Cost: T_reduce(N, p) + (p-1) alpha + ((p-1)/p) N beta; N = bytes of the whole vector.
 *   linear: (p-1)(alpha + N beta + N gamma) + (p-1) alpha + N beta (reduce_scatter_block:
 *   N = p n, n = bytes of one block).
 * Restrictions: none. Memory: the whole vector at rank 0.
 * Reference: seed 000 (Faraj 2006), STAR-MPI repositories: reduce + scatter composite.
 */
#include <stdlib.h>
#include "rsc_common.h"

int ac_reduce_scatter_reduce_scatterv(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    int err = MPI_SUCCESS, p = a->size, me = a->rank, tag = AC_TAG(a), *cbase = NULL;
    const ac_alg_t *reduce = ac_param_alg(in, "reduce"); /* NULL: linear, no parameter reduce */
    MPI_Datatype t = a->rtype;
    void *fbase = NULL;
    const int *counts = ac_rsc_counts(a, &cbase);
    size_t *off = counts ? ac_rsc_offsets(counts, p) : NULL;
    char *full = NULL;
    if (!off || (me == 0 && !(full = ac_dt_alloc(t, off[p], &fbase)))) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    /* MPI counts are int: the total fits as the input vector did. rbuf NULL off the root. */
    ac_args_t r =
        ac_part_args(a, AUTOCOLL_REDUCE, a->comm, 0, ac_rs_input(a), full, (int)off[p], t);
    AC_CHECK(reduce ? ac_run_part_alg(&r, reduce, ctx) : ac_reduce_linear(&r, NULL, ctx));
    if (me == 0) {
        for (int i = 1; i < p; i++)
            AC_CHECK(PMPI_Send(ac_dt_at(full, t, off[i]), counts[i], t, i, tag, a->comm));
        AC_CHECK(ac_dt_copy(full, counts[0], t, a->rbuf, counts[0], t));
    } else {
        AC_CHECK(PMPI_Recv(a->rbuf, counts[me], t, 0, tag, a->comm, MPI_STATUS_IGNORE));
    }
fn_exit:
    free(cbase);
    free(off);
    free(fbase);
    return err;
}
