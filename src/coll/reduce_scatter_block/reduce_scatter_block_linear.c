/*
 * Algorithm: linear: linear reduce of the whole p-block vector to rank 0 (rank order, so
 *   non-commutative operations are correct), then rank 0 sends block i to rank i.
 * Cost: (p-1)(alpha + p n beta + p n gamma) + (p-1)(alpha + n beta); n = bytes of one block.
 * Restrictions: none. Memory: the whole vector at rank 0.
 * Reference: seed 000 (Faraj 2006), STAR-MPI repositories: reduce + scatter composite.
 */
#include <stdlib.h>
#include "../algs.h"

int ac_reduce_scatter_block_linear(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, n = a->rcount;
    MPI_Datatype t = a->rtype;
    MPI_Aint blk = (MPI_Aint)n * ac_dt_extent(t);
    void *base = NULL;
    char *full = NULL;
    if (me == 0 && !(full = ac_dt_alloc(t, (size_t)n * p, &base))) return MPI_ERR_NO_MEM;
    ac_args_t r = *a;
    r.coll = AUTOCOLL_REDUCE;
    r.root = 0;
    r.rcount = n * p;
    r.sbuf = a->inplace ? a->rbuf : a->sbuf;
    r.inplace = 0;
    r.rbuf = full;
    AC_CHECK(ac_reduce_linear(&r, NULL, ctx));
    if (me == 0) {
        AC_CHECK(ac_dt_copy(full, n, t, a->rbuf, n, t));
        for (int i = 1; i < p; i++)
            AC_CHECK(PMPI_Send(full + i * blk, n, t, i, AC_TAG(a), a->comm));
    } else {
        AC_CHECK(PMPI_Recv(a->rbuf, n, t, 0, AC_TAG(a), a->comm, MPI_STATUS_IGNORE));
    }
fn_exit:
    free(base);
    return err;
}
