/*
 * Algorithm: mirror of bcast.topo_chain: the contention-free chain of Algorithm 4 from the root
 *   (root, the other ranks of its switch, then the switches in DFS order), run backwards. The
 *   last rank of the chain sends segment j (s = max(1, seg / type size) elements) to its
 *   predecessor, which combines it with its own segment (x_child op x_me, PMPI_Reduce_local)
 *   and forwards, down to the root, segment by segment (ac_node_reduce of
 *   src/sched/tree.c on the chain's links). The chain's messages reversed are again contention free
 *   (every path reversed uses the opposite directed edges, Theorem 4).
 * Cost: (X + p - 2)(alpha + (n/X)(beta + gamma)) with no link contention, X = ceil(count / s).
 * Restrictions: TOPOLOGY_FILE, COMMUTATIVE (the chain order is not rank order). Memory: a work
 *   copy of the vector on non-roots, one segment for receiving.
 * Reference: seed 000 (Faraj 2006), §3.4.2 (Algorithm 4, reduce as the broadcast's mirror,
 *   spec section 2.6); spec star-stage-ethernet.md sections 2.6 and 3.5.
 */
#include <stdlib.h>
#include "../bcast/topo_chain.h"
#include "../../sched/tree.h"

int ac_reduce_topo_chain(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    int parent, child, err = ac_topo_chain_links(a, ctx, &parent, &child);
    if (err != MPI_SUCCESS) return err;
    size_t seg =
        ac_seg_elems((size_t)ac_param_int(in, "seg"), ac_dt_size(a->rtype), (size_t)a->rcount);
    return ac_node_reduce(a->inplace ? a->rbuf : a->sbuf, a->rbuf, a->rcount, a->rtype, a->op,
                          parent, &child, child >= 0, a->comm, AC_TAG(a), seg);
}
