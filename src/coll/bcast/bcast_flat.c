/*
 * Algorithm: flat tree: the root posts a nonblocking send of the whole buffer to every other
 *   rank (virtual ranks 1..p-1, v = (rank - root) mod p) and waits for all; the others receive.
 *   Realised as the k-nomial tree of radix p, whose root has every rank as a child.
 * Cost: (p-1)(alpha + n beta) at the root (its link serialises the sends).
 * Restrictions: none. Memory: p-1 requests at the root.
 * Reference: seed 000 (Faraj 2006), §3.4 / §4.1.1.1, flat tree broadcast (spec
 *   star-stage-ethernet section 2.5, bcast.flat).
 */
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_bcast_flat(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    ac_tree_t t = ac_tree_make(AC_TREE_KNOMIAL, a->size, a->size);
    return ac_tree_bcast(a->rbuf, a->rcount, a->rtype, a->root, a->rank, a->comm, AC_TAG(a), &t,
                         (size_t)a->rcount);
}
