/*
 * Algorithm: binomial tree on virtual ranks v = (rank - root) mod p: v receives the partial
 *   results of its children v + 2^j (2^j below the lowest set bit of v), each covering the
 *   contiguous range [v + 2^j, v + 2^(j+1)), combines x_v op R(v+1) op R(v+2) op R(v+4) ...
 *   and sends the result to v minus its lowest set bit. A non-commutative operation uses the
 *   tree rooted at rank 0, where these ranges are rank ranges, then rank 0 forwards to the root.
 * Cost: lg(p)(alpha + n beta + n gamma) (+ alpha + n beta when forwarded).
 * Restrictions: none. Memory: two vectors on inner nodes.
 * Reference: seed 000 (Faraj 2006), §4.1.1.1 binomial reduce (spec star-stage-ethernet
 *   section 2.6, reduce.binomial).
 */
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_reduce_binomial(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    const void *mine = a->inplace ? a->rbuf : a->sbuf;
    ac_tree_t t = ac_tree_make(AC_TREE_KNOMIAL, 2, a->size);
    return ac_tree_reduce(mine, a->rbuf, a->rcount, a->rtype, a->op, a->root, a->rank, a->comm,
                          AC_TAG(a), &t, (size_t)a->rcount, !a->commutative);
}
