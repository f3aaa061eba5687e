/*
 * Algorithm: binomial scatter on virtual ranks v = (rank - root) mod p: a holder of the range
 *   [v, v + size(v)) of blocks passes the upper part [v + 2^j, v + 2^(j+1)) to v + 2^j, for
 *   2^j from the largest below size(v) down to 1 (N = 8: the root sends 4 blocks to 4, then 2
 *   to 2, then 1 to 1). The root sends a range that wraps past rank p-1 as two messages.
 * Cost: lg(p) alpha + ((p-1)/p) p n beta.
 * Restrictions: none. Memory: size(v) blocks on inner nodes.
 * Reference: seed 004 (Afsahi 2000), §5.5 S2_F1 binomial scatter (spec predictors-latency
 *   section 5.4).
 */
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_scatter_binomial(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    ac_tree_t t = ac_tree_make(AC_TREE_KNOMIAL, 2, a->size);
    return ac_tree_scatter(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root,
                           a->rank, a->comm, AC_TAG(a), &t);
}
