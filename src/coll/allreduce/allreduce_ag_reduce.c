/*
 * Algorithm: allgather then local reduction (STAR type 1): an allgather (any registered
 *   allgather algorithm, parameter `ag`) collects the p input vectors into a p-vector scratch
 *   buffer (vector r at r * count elements), then every rank reduces them in rank order,
 *   x_0 op (x_1 op (... op x_{p-1})), the same sequence of operations on the same bytes
 *   everywhere, so results are bitwise identical and non-commutative operations are correct.
 * Cost: T_allgather(n, p) + (p-1) n gamma; n = bytes of the vector.
 * Restrictions: none. Memory: p vectors.
 * Reference: seed 000 (Faraj 2006), STAR allreduce repository type 1 (ag-bruck, ag-2D, ag-3D,
 *   ag-rdb, ag-ring), spec star-stage-ethernet.md section 2.4.
 */
#include <stdlib.h>
#include "../algs.h"

int ac_allreduce_ag_reduce(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    int err = MPI_SUCCESS, p = a->size, n = a->rcount;
    MPI_Datatype t = a->rtype;
    void *sbase = NULL;
    char *all = ac_dt_alloc(t, (size_t)n * (size_t)p, &sbase);
    if (!all) return MPI_ERR_NO_MEM;
    ac_args_t g = ac_part_args(a, AUTOCOLL_ALLGATHER, a->comm, 0, ac_rs_input(a), all, n, t);
    AC_CHECK(ac_run_part_alg(&g, ac_param_alg(in, "ag"), ctx));
    AC_CHECK(ac_dt_copy(ac_dt_at(all, t, (size_t)(p - 1) * (size_t)n), n, t, a->rbuf, n, t));
    for (int r = p - 2; r >= 0; r--)
        AC_CHECK(PMPI_Reduce_local(ac_dt_at(all, t, (size_t)r * (size_t)n), a->rbuf, n, t, a->op));
fn_exit:
    free(sbase);
    return err;
}
