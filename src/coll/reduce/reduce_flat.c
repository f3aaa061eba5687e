/*
 * Algorithm: flat tree: every rank sends its vector to the root of the tree, which receives
 *   from v = p-1 down to 1 and combines right to left (inout = in op inout), giving
 *   x_v0 op x_v1 op ... in virtual-rank order. A non-commutative operation uses the tree rooted
 *   at rank 0 (virtual = real ranks) and rank 0 forwards the result to the root.
 * Cost: (p-1)(alpha + n beta + n gamma) at the root (+ alpha + n beta when forwarded).
 * Restrictions: none. Memory: two vectors at the root.
 * Reference: seed 000 (Faraj 2006), §4.1.1.1 flat tree reduce (spec star-stage-ethernet
 *   section 2.6, reduce.flat).
 */
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_reduce_flat(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    const void *mine = a->inplace ? a->rbuf : a->sbuf;
    ac_tree_t t = ac_tree_make(AC_TREE_KNOMIAL, a->size, a->size);
    return ac_tree_reduce(mine, a->rbuf, a->rcount, a->rtype, a->op, a->root, a->rank, a->comm,
                          AC_TAG(a), &t, (size_t)a->rcount, !a->commutative);
}
