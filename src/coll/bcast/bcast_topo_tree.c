/*
 * Algorithm: pipelined binary tree on the contention-free tree of Algorithm 5 (src/topo/rings.c,
 *   ac_bcast_bintree): on the Algorithm-4 order m_0 = root .. m_{P-1}, tree(i, j) gives m_i the
 *   children m_{i+1} and m_k, the k of smallest height for which m_i -> m_k contends with no
 *   message of tree(i+1, k-1) (a dynamic programme over all ranges). Every rank receives segment
 *   j from its parent and forwards it to its (at most two) children while segment j+1 is posted
 *   (ac_node_bcast of src/sched/tree.c). Messages of different senders never share a directed link
 *   (Theorem 5).
 * Cost: (X + h - 1) 2 (alpha + (n/X) beta) with gamma = 0, h = tree height (close to lg p,
 *   spec 3.5), X = segments; the tree is built once per (communicator, root) in O(P^3 depth).
 * Restrictions: TOPOLOGY_FILE. Memory: 2p ints per root used (cached with the communicator),
 *   one request per segment and child.
 * Reference: seed 000 (Faraj 2006), §3.4.2 (Algorithm 5, Figure 3.28, Theorem 5); spec
 *   star-stage-ethernet.md sections 2.5 and 3.5.
 */
#include "../../sched/tree.h"
#include "../../topo/load.h"

int ac_bcast_topo_tree(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    ac_topo_comm_t *tc = ac_topo_of(ctx);
    if (!tc || a->comm != ctx->comm || tc->t->nranks != a->size) return MPI_ERR_ARG;
    const int *c = ac_topo_bintree(tc, a->root);
    if (!c) return MPI_ERR_NO_MEM;
    int p = a->size, me = a->rank, parent = -1, child[2], nchild = 0;
    for (int r = 0; r < p && parent < 0; r++)
        if (c[2 * r] == me || c[2 * r + 1] == me) parent = r;
    for (int k = 0; k < 2; k++)
        if (c[2 * me + k] >= 0) child[nchild++] = c[2 * me + k];
    size_t seg =
        ac_seg_elems((size_t)ac_param_int(in, "seg"), ac_dt_size(a->rtype), (size_t)a->rcount);
    return ac_node_bcast(a->rbuf, a->rcount, a->rtype, parent, child, nchild, a->comm, AC_TAG(a),
                         seg);
}
