/*
 * Algorithm: binomial tree on virtual ranks v = (rank - root) mod p: v receives the whole
 *   buffer from v minus its lowest set bit, then sends to v + 2^j for every 2^j below that bit
 *   (all 2^j < p at the root), largest subtree first.
 * Cost: ceil(lg p)(alpha + n beta).
 * Restrictions: none. Memory: none.
 * Reference: seed 000 (Faraj 2006), §3.4.1 and §4.1.1.1, binomial tree (spec star-stage-ethernet
 *   section 2.5, bcast.binomial).
 */
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_bcast_binomial(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    ac_tree_t t = ac_tree_make(AC_TREE_KNOMIAL, 2, a->size);
    return ac_tree_bcast(a->rbuf, a->rcount, a->rtype, a->root, a->rank, a->comm, AC_TAG(a), &t,
                         (size_t)a->rcount);
}
