/*
 * Algorithm: complete binary tree on virtual ranks v = (rank - root) mod p: v receives the
 *   whole buffer from (v-1)/2 and sends it to 2v+1 and 2v+2 (when < p).
 * Cost: floor(lg p) levels of 2(alpha + n beta).
 * Restrictions: none. Memory: none.
 * Reference: seed 000 (Faraj 2006), §3.4.1, binary tree (spec star-stage-ethernet section 2.5).
 */
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_bcast_binary(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    ac_tree_t t = ac_tree_make(AC_TREE_KARY, 2, a->size);
    return ac_tree_bcast(a->rbuf, a->rcount, a->rtype, a->root, a->rank, a->comm, AC_TAG(a), &t,
                         (size_t)a->rcount);
}
