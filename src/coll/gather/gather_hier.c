/*
 * Algorithm: hierarchical gather: every node gathers its ranks' blocks on its leader (binomial
 *   gather on ctx->node_comm, node-rank order); every leader other than the root sends its
 *   node's blocks to the root in one message; the root receives node n's blocks into region n
 *   of a buffer (regions in node order) and copies block j of node n to the position of the
 *   j-th rank of node n (nodes need not hold contiguous ranks).
 * Cost: T_gather(ppn) + (nnodes - 1)(alpha + ppn n beta) at the root + local copies.
 * Restrictions: none. Memory: p blocks at the root, ppn blocks on leaders.
 * Reference: seed 000 (Faraj 2006), §4.4 future work (SMP-aware collectives); seed 004
 *   (Afsahi 2000) §5.5 gather trees; two-level structure of seed 003 (spec allreduce-trees).
 * Tracing: step records (src/coll/hier_stage.c; seed 003 §4): the intra-node gather (its tree
 *   stamped: t1 per child, t2), then the
 *   leaders' message to the root (the root: from the end of its intra-node gather until every
 *   region is in; posting and the final copies are local work outside the steps).
 */
#include <stdlib.h>
#include "../hier_root.h"
#include "../hier_stage.h"
#include "../../sched/tree.h"

int ac_gather_hier(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    /* Node and leader communicators: made by the dispatcher before a top-level call, here when
     * a composite runs this algorithm on a context of its own (agreed, collective). */
    int nodes_err = ac_ctx_nodes(ctx);
    if (nodes_err != MPI_SUCCESS) return nodes_err;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, root = a->root, tag = AC_TAG(a);
    int leader = ctx->node_rank == 0, ns = ctx->node_size;
    void *nodebase = NULL;
    ac_hier_root_t h = {0};
    ac_tree_t nt = ac_tree_make(AC_TREE_KNOMIAL, 2, ns);
    ac_hier_steps_t hs;
    ac_hier_begin(&hs, a, ctx);
    if (me != root) {
        char *nodebuf = NULL;
        if (leader) {
            nodebuf = ac_dt_alloc(a->stype, (size_t)a->scount * (size_t)ns, &nodebase);
            if (!nodebuf) return MPI_ERR_NO_MEM;
        }
        ac_hier_tree_begin(&hs, ns);
        err = ac_tree_gather(a->sbuf, a->scount, a->stype, nodebuf, a->scount, a->stype, 0,
                             ctx->node_rank, ctx->node_comm, tag, &nt);
        ac_hier_tree_end(&hs, a, ctx, AC_HIER_INTRA, ctx->node_comm, a->scount, a->stype, err);
        AC_CHECK(err);
        ac_hier_step(&hs, a, ctx, AC_HIER_INTRA, AC_PART_GATHER, ctx->node_rank, ns,
                     (long long)a->scount * (leader ? ns : 1), a->stype);
        if (leader) {
            AC_CHECK(PMPI_Send(nodebuf, a->scount * ns, a->stype, root, tag, a->comm));
            ac_hier_step(&hs, a, ctx, AC_HIER_INTER, AC_PART_GATHER, ctx->node_id, ctx->nnodes,
                         (long long)a->scount * ns, a->stype);
        }
        goto fn_exit;
    }
    /* Root: the node-ordered buffer, every region but its own node's (when it leads it) from
     * the node's leader. */
    AC_CHECK(ac_hier_root_init(&h, ctx, p, a->rcount, a->rtype));
    AC_CHECK(ac_hier_root_post(&h, ctx, 0, a->comm, tag));
    ac_hier_mark(&hs);
    const void *own = a->sbuf;
    int oc = a->scount;
    MPI_Datatype ot = a->stype;
    if (a->sbuf == MPI_IN_PLACE) {
        own = (char *)a->rbuf + (MPI_Aint)me * h.blk;
        oc = a->rcount;
        ot = a->rtype;
    }
    ac_hier_tree_begin(&hs, ns);
    err = ac_tree_gather(own, oc, ot, leader ? ac_hier_root_at(&h, h.start[ctx->node_id]) : NULL,
                         a->rcount, a->rtype, 0, ctx->node_rank, ctx->node_comm, tag, &nt);
    ac_hier_tree_end(&hs, a, ctx, AC_HIER_INTRA, ctx->node_comm, a->rcount, a->rtype, err);
    AC_CHECK(err);
    ac_hier_step(&hs, a, ctx, AC_HIER_INTRA, AC_PART_GATHER, ctx->node_rank, ns,
                 (long long)a->rcount * (leader ? ns : 1), a->rtype);
    AC_CHECK(ac_hier_root_wait(&h));
    ac_hier_step(&hs, a, ctx, AC_HIER_INTER, AC_PART_GATHER, ctx->node_id, ctx->nnodes,
                 (long long)a->rcount * (p - (leader ? ns : 0)), a->rtype);
    for (int r = 0; r < p; r++) {
        if (r == me && a->sbuf == MPI_IN_PLACE) continue;
        AC_CHECK(ac_dt_copy(ac_hier_root_at(&h, h.pos[r]), a->rcount, a->rtype,
                            (char *)a->rbuf + (MPI_Aint)r * h.blk, a->rcount, a->rtype));
    }
fn_exit:
    ac_hier_root_free(&h);
    free(nodebase);
    return err;
}
