/*
 * Algorithm: reduce + bcast: a reduce to rank 0 (any registered reduce algorithm, parameter
 *   `reduce`) followed by a broadcast from rank 0 (parameter `bcast`). Every rank ends with rank
 *   0's bytes. The reduce part decides the combination order; a non-commutative operation is
 *   correct when the reduce part combines in rank order (every reduce algorithm must).
 * Cost: T_reduce(n, p) + T_bcast(n, p); n = bytes of the vector.
 * Restrictions: none of its own (a part's restrictions apply through the parts chosen).
 *   Memory: one vector on a non-root rank that passed MPI_IN_PLACE.
 * Reference: seed 000 (Faraj 2006), STAGE allreduce repository "reduce-bcast" (tuned Reduce to
 *   rank 0, then tuned Bcast), spec star-stage-ethernet.md section 2.4.
 */
#include <stdlib.h>
#include "../algs.h"

int ac_allreduce_reduce_bcast(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    int err = MPI_SUCCESS, n = a->rcount;
    void *tbase = NULL;
    const void *sbuf = a->inplace ? MPI_IN_PLACE : a->sbuf;
    void *rbuf = a->rbuf;
    if (a->rank != 0 && a->inplace) {
        /* MPI_IN_PLACE is the root's only: a non-root sends from rbuf and gets a scratch rbuf. */
        sbuf = a->rbuf;
        if (!(rbuf = ac_dt_alloc(a->rtype, (size_t)n, &tbase))) return MPI_ERR_NO_MEM;
    }
    ac_args_t r = ac_part_args(a, AUTOCOLL_REDUCE, a->comm, 0, sbuf, rbuf, n, a->rtype);
    AC_CHECK(ac_run_part_alg(&r, ac_param_alg(in, "reduce"), ctx));
    ac_args_t b = ac_part_args(a, AUTOCOLL_BCAST, a->comm, 0, NULL, a->rbuf, n, a->rtype);
    AC_CHECK(ac_run_part_alg(&b, ac_param_alg(in, "bcast"), ctx));
fn_exit:
    free(tbase);
    return err;
}
