/*
 * Algorithm: pipelined linear tree on the contention-free chain of Algorithm 4: root, the other
 *   ranks of the root's switch, then the ranks of the switches in DFS order of the switch tree
 *   from the root's switch (src/topo/rings.c, ac_bcast_chain). The buffer is cut into
 *   X = ceil(count / s) segments of s elements (s = max(1, seg / type size)); each rank receives
 *   segment j from its predecessor and forwards it to its successor while segment j+1 is
 *   already posted. Messages of different senders never share a directed link (Lemma 11,
 *   Theorem 4), so the pipeline runs at the speed of one link.
 *   The pipeline is the tree executor of src/sched/tree.c on the chain's links (ac_node_bcast).
 * Cost: (X + p - 2)(alpha + (n/X) beta) with gamma = 0 -> n beta for X >> p; n = message bytes.
 *   Chain built per call in O(|V|).
 * Restrictions: TOPOLOGY_FILE. Memory: the chain (p ints).
 * Reference: seed 000 (Faraj 2006), §3.4.1 (pipelined broadcast) and §3.4.2 (Algorithm 4,
 *   Lemmas 9-11, Theorem 4); spec star-stage-ethernet.md sections 2.5 and 3.5.
 */
#include <stdlib.h>
#include "topo_chain.h"
#include "../../sched/tree.h"
#include "../../topo/load.h"

int ac_topo_chain_links(const ac_args_t *a, ac_ctx_t *ctx, int *parent, int *child) {
    ac_topo_comm_t *tc = ac_topo_of(ctx);
    if (!tc || a->comm != ctx->comm || tc->t->nranks != a->size) return MPI_ERR_ARG;
    int p = a->size, *order = malloc((size_t)p * sizeof *order), k = 0;
    if (!order || ac_bcast_chain(tc->t, a->root, order) != 0) {
        free(order);
        return MPI_ERR_NO_MEM;
    }
    while (k < p && order[k] != a->rank)
        k++;
    *parent = k > 0 ? order[k - 1] : -1;
    *child = k + 1 < p ? order[k + 1] : -1;
    free(order);
    return MPI_SUCCESS;
}

int ac_bcast_topo_chain(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    int parent, child, err = ac_topo_chain_links(a, ctx, &parent, &child);
    if (err != MPI_SUCCESS) return err;
    size_t seg =
        ac_seg_elems((size_t)ac_param_int(in, "seg"), ac_dt_size(a->rtype), (size_t)a->rcount);
    return ac_node_bcast(a->rbuf, a->rcount, a->rtype, parent, &child, child >= 0, a->comm,
                         AC_TAG(a), seg);
}
