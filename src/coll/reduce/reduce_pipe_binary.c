/*
 * Algorithm: pipelined complete binary tree on virtual ranks v = (rank - root) mod p (children
 *   2v+1, 2v+2): segment by segment (s = max(1, seg / type size) elements) v combines its own
 *   segment with those of its children and sends the result to (v-1)/2.
 * Cost: (X + lg p - 1) 2(alpha + (n/X)(beta + gamma)), X = ceil(count / s).
 * Restrictions: COMMUTATIVE (heap subtrees are not rank ranges). Memory: two vectors on inner
 *   nodes.
 * Reference: seed 000 (Faraj 2006), §4.1.1.1 pipelined binary reduce (spec star-stage-ethernet
 *   section 2.6, reduce.ts_pipe_binary without topology).
 */
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_reduce_pipe_binary(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    const void *mine = a->inplace ? a->rbuf : a->sbuf;
    size_t seg =
        ac_seg_elems((size_t)ac_param_int(in, "seg"), ac_dt_size(a->rtype), (size_t)a->rcount);
    ac_tree_t t = ac_tree_make(AC_TREE_KARY, 2, a->size);
    return ac_tree_reduce(mine, a->rbuf, a->rcount, a->rtype, a->op, a->root, a->rank, a->comm,
                          AC_TAG(a), &t, seg, 0);
}
