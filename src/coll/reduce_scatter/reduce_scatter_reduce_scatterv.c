/*
 * Algorithm: reduce + scatterv: the whole vector is reduced to rank 0 by a registered reduce
 * algorithm (parameter `reduce`, which combines in rank order), then rank 0 sends block i to rank
 * i. Cost: T_reduce(N, p) + (p-1) alpha + ((p-1)/p) N beta; N = whole vector. Restrictions: none.
 * Memory: the whole vector at rank 0. Reference: seed 000 (Faraj 2006), STAR-MPI reduce + scatter
 * composite.
 */
#include <stdlib.h>
#include "../algs.h"
#include "../../sched/rs_core.h"

#define AT(buf, t, i) ((char *)(buf) + (MPI_Aint)(i)*ac_dt_extent(t))

static size_t *offsets(const int *counts, int p) {
    size_t *off = malloc(((size_t)p + 1) * sizeof *off);
    if (!off) return NULL;
    off[0] = 0;
    for (int r = 0; r < p; r++)
        off[r + 1] = off[r] + (size_t)counts[r];
    return off;
}

/* Shared with reduce_scatter_block, which passes its instance (same parameter) and a->rcounts
 * filled with its block count. */
int ac_reduce_scatter_reduce_scatterv(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    const int *counts = a->rcounts;
    ac_inst_t ri;
    ac_inst_default(ac_param_alg(in, "reduce"), &ri);
    int err = MPI_SUCCESS, p = a->size, me = a->rank, tag = AC_TAG(a);
    MPI_Datatype t = a->rtype;
    void *fbase = NULL;
    size_t *off = offsets(counts, p);
    char *full = NULL;
    if (!off) return MPI_ERR_NO_MEM;
    if (me == 0 && !(full = ac_dt_alloc(t, off[p], &fbase))) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    ac_args_t r = *a;
    r.coll = AUTOCOLL_REDUCE;
    r.root = 0;
    r.rcount = r.scount = (int)off[p];
    r.stype = t;
    r.rcounts = NULL;
    r.sbuf = ac_rs_input(a);
    r.inplace = 0;
    r.rbuf = full; /* NULL off the root: insignificant there */
    AC_CHECK(ac_run_part(&r, &ri, ctx));
    if (me == 0) {
        for (int i = 1; i < p; i++)
            AC_CHECK(PMPI_Send(AT(full, t, off[i]), counts[i], t, i, tag, a->comm));
        AC_CHECK(ac_dt_copy(full, counts[0], t, a->rbuf, counts[0], t));
    } else {
        AC_CHECK(PMPI_Recv(a->rbuf, counts[me], t, 0, tag, a->comm, MPI_STATUS_IGNORE));
    }
fn_exit:
    free(off);
    free(fbase);
    return err;
}
