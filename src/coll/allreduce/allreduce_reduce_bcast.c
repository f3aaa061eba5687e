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
    ac_inst_t ri, bi;
    ac_inst_default(ac_param_alg(in, "reduce"), &ri);
    ac_inst_default(ac_param_alg(in, "bcast"), &bi);
    ac_args_t r = *a;
    r.coll = AUTOCOLL_REDUCE;
    r.root = 0;
    if (a->rank == 0) {
        r.sbuf = a->inplace ? MPI_IN_PLACE : a->sbuf;
    } else if (a->inplace) {
        /* MPI_IN_PLACE is the root's only: a non-root sends from rbuf and gets a scratch rbuf. */
        r.sbuf = a->rbuf;
        r.inplace = 0;
        if (!(r.rbuf = ac_dt_alloc(a->rtype, (size_t)n, &tbase))) return MPI_ERR_NO_MEM;
    }
    AC_CHECK(ac_run_part(&r, &ri, ctx));
    ac_args_t b = *a;
    b.coll = AUTOCOLL_BCAST;
    b.root = 0;
    b.sbuf = NULL;
    b.inplace = 0;
    b.op = MPI_OP_NULL;
    b.scount = n;
    b.stype = a->rtype;
    AC_CHECK(ac_run_part(&b, &bi, ctx));
fn_exit:
    free(tbase);
    return err;
}
