/*
 * Algorithm: pipelined k-ary tree on virtual ranks v = (rank - root) mod p (children
 *   kv+1..kv+k, parent (v-1)/k): segments of s = max(1, seg / type size) elements flow down;
 *   a rank keeps the receive of segment j+1 posted while it sends segment j to its k children.
 * Cost: (X + H - 1) k(alpha + (n/X) beta), X = ceil(count/s), H = tree height + 1.
 * Restrictions: none. Memory: k requests.
 * Reference: seed 000 (Faraj 2006), §3.4.1, pipelined k-ary tree (Table 3.7; spec
 *   star-stage-ethernet section 2.5).
 */
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_bcast_pipe_kary(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    ac_tree_t t = ac_tree_make(AC_TREE_KARY, (int)ac_param_int(in, "k"), a->size);
    size_t seg =
        ac_seg_elems((size_t)ac_param_int(in, "seg"), ac_dt_size(a->rtype), (size_t)a->rcount);
    return ac_tree_bcast(a->rbuf, a->rcount, a->rtype, a->root, a->rank, a->comm, AC_TAG(a), &t,
                         seg);
}
