/*
 * Algorithm: pipelined linear tree (chain) on virtual ranks v = (rank - root) mod p: the buffer
 *   is cut into X = ceil(count / s) segments of s elements (s = max(1, seg / type size));
 *   v receives segment j from v-1 and forwards it to v+1 while segment j+1 is already posted.
 * Cost: (X + p - 2)(alpha + (n/X) beta) -> n beta for X >> p.
 * Restrictions: none. Memory: none.
 * Reference: seed 000 (Faraj 2006), §3.4.1, pipelined linear tree (spec star-stage-ethernet
 *   section 2.5, bcast.pipe_chain; segment candidates 512..8192 bytes).
 */
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_bcast_pipe_chain(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    ac_tree_t t = ac_tree_make(AC_TREE_KARY, 1, a->size);
    size_t seg =
        ac_seg_elems((size_t)ac_param_int(in, "seg"), ac_dt_size(a->rtype), (size_t)a->rcount);
    return ac_tree_bcast(a->rbuf, a->rcount, a->rtype, a->root, a->rank, a->comm, AC_TAG(a), &t,
                         seg);
}
