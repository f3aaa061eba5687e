/*
 * Algorithm: pipelined linear tree: v = p-1 sends segment j (s = max(1, seg / type size)
 *   elements) to v-1, which combines x_v op R(v+1) and forwards, down to v = 0, segment by
 *   segment. Non-commutative: the chain runs over real ranks p-1 -> 0 and rank 0 forwards the
 *   result to the root.
 * Cost: (X + p - 2)(alpha + (n/X)(beta + gamma)), X = ceil(count / s).
 * Restrictions: none. Memory: two vectors on inner nodes (one segment for receiving).
 * Reference: seed 000 (Faraj 2006), §4.1.1.1 pipelined linear reduce (spec star-stage-ethernet
 *   section 2.6, reduce.ts_pipe_chain without topology).
 */
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_reduce_pipe_chain(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    const void *mine = a->inplace ? a->rbuf : a->sbuf;
    size_t seg =
        ac_seg_elems((size_t)ac_param_int(in, "seg"), ac_dt_size(a->rtype), (size_t)a->rcount);
    ac_tree_t t = ac_tree_make(AC_TREE_KARY, 1, a->size);
    return ac_tree_reduce(mine, a->rbuf, a->rcount, a->rtype, a->op, a->root, a->rank, a->comm,
                          AC_TAG(a), &t, seg, !a->commutative);
}
