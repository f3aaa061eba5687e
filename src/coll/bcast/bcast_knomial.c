/*
 * Algorithm: k-nomial tree (radix k) on virtual ranks v = (rank - root) mod p: v receives from
 *   v with its lowest non-zero base-k digit cleared and sends to v + d k^i (d = 1..k-1) for
 *   every digit position i below that digit; the informed set multiplies by k per round.
 * Cost: ceil(log_k p) rounds of (k-1)(alpha + n beta).
 * Restrictions: none. Memory: k-1 requests per round.
 * Reference: seed 004 (Afsahi 2000), §5.3.1, B2 (k-nomial) broadcast (spec predictors-latency
 *   section 5.5).
 */
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_bcast_knomial(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    ac_tree_t t = ac_tree_make(AC_TREE_KNOMIAL, (int)ac_param_int(in, "k"), a->size);
    return ac_tree_bcast(a->rbuf, a->rcount, a->rtype, a->root, a->rank, a->comm, AC_TAG(a), &t,
                         (size_t)a->rcount);
}
