/*
 * Algorithm: linear: linear reduce of the whole vector to rank 0 (rank order, so non-commutative
 *   operations are correct), then rank 0 sends block i to rank i.
 * Cost: (p-1)(alpha + N beta + N gamma) + (p-1) alpha + N beta; N = bytes of the whole vector.
 * Restrictions: none. Memory: the whole vector at rank 0.
 * Reference: seed 000 (Faraj 2006), STAR-MPI repositories: reduce + scatter composite.
 */
#include <stdlib.h>
#include "../algs.h"

int ac_reduce_scatter_linear(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    int err = MPI_SUCCESS, p = a->size, me = a->rank;
    MPI_Datatype t = a->rtype;
    MPI_Aint ext = ac_dt_extent(t);
    size_t total = 0;
    void *base = NULL;
    for (int i = 0; i < p; i++)
        total += (size_t)a->rcounts[i];
    char *full = NULL;
    if (me == 0 && !(full = ac_dt_alloc(t, total, &base))) return MPI_ERR_NO_MEM;
    ac_args_t r = *a;
    r.coll = AUTOCOLL_REDUCE;
    r.root = 0;
    r.rcount = (int)total; /* MPI counts are int; total fits as the input vector did */
    r.sbuf = a->inplace ? a->rbuf : a->sbuf;
    r.inplace = 0;
    r.rbuf = full;
    AC_CHECK(ac_reduce_linear(&r, NULL, ctx));
    if (me == 0) {
        size_t off = 0;
        for (int i = 0; i < p; i++) {
            if (i == 0)
                AC_CHECK(ac_dt_copy(full, a->rcounts[0], t, a->rbuf, a->rcounts[0], t));
            else
                AC_CHECK(
                    PMPI_Send(full + (MPI_Aint)off * ext, a->rcounts[i], t, i, AC_TAG(a), a->comm));
            off += (size_t)a->rcounts[i];
        }
    } else {
        AC_CHECK(PMPI_Recv(a->rbuf, a->rcounts[me], t, 0, AC_TAG(a), a->comm, MPI_STATUS_IGNORE));
    }
fn_exit:
    free(base);
    return err;
}
