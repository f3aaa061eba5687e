/*
 * Algorithm: k-nomial tree (radix k) on virtual ranks v = (rank - root) mod p: the children of
 *   v are v + d k^i (d = 1..k-1, k^i below the lowest non-zero base-k digit of v), child
 *   v + d k^i covering [v + d k^i, v + (d+1) k^i); v combines x_v op R(child_0) op R(child_1)
 *   ... in increasing v and sends to its parent. Non-commutative: tree rooted at rank 0, then
 *   rank 0 forwards to the root.
 * Cost: log_k(p)(k-1)(alpha + n beta + n gamma).
 * Restrictions: none. Memory: two vectors on inner nodes.
 * Reference: seed 004 (Afsahi 2000), §5.3.1 k-nomial tree (spec predictors-latency section
 *   5.5) reversed as a reduction (seed 000, §4.1.1.1: every broadcast reversed).
 */
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_reduce_knomial(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    const void *mine = a->inplace ? a->rbuf : a->sbuf;
    ac_tree_t t = ac_tree_make(AC_TREE_KNOMIAL, (int)ac_param_int(in, "k"), a->size);
    return ac_tree_reduce(mine, a->rbuf, a->rcount, a->rtype, a->op, a->root, a->rank, a->comm,
                          AC_TAG(a), &t, (size_t)a->rcount, !a->commutative);
}
