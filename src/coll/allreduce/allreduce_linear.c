/*
 * Algorithm: linear: linear reduce to rank 0 (rank order, so non-commutative operations are
 *   correct), then linear broadcast from rank 0. Every rank ends with rank 0's bytes, so results
 *   are bitwise identical everywhere.
 * Cost: 2(p-1)(alpha + n beta) + (p-1) n gamma.
 * Restrictions: none. Memory: two vectors at rank 0.
 * Reference: seed 000 (Faraj 2006), STAR-MPI allreduce repository, reduce + bcast family.
 */
#include "../algs.h"

int ac_allreduce_linear(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    int err;
    ac_args_t r =
        ac_part_args(a, AUTOCOLL_REDUCE, a->comm, 0, a->sbuf, a->rbuf, a->rcount, a->rtype);
    AC_CHECK(ac_reduce_linear(&r, NULL, ctx));
    ac_args_t b = ac_part_args(a, AUTOCOLL_BCAST, a->comm, 0, NULL, a->rbuf, a->rcount, a->rtype);
    AC_CHECK(ac_bcast_linear(&b, NULL, ctx));
fn_exit:
    return err;
}
