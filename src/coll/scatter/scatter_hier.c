/*
 * Algorithm: hierarchical scatter: the root copies the blocks of node n's ranks (in node-rank
 *   order) into region n of a buffer and sends each region to the leader of its node in one
 *   message (its own node's region too when the root is not the leader); every node then runs
 *   a binomial scatter from its leader on ctx->node_comm.
 * Cost: (nnodes - 1)(alpha + ppn n beta) at the root + T_scatter(ppn) + local copies.
 * Restrictions: none. Memory: p blocks at the root, ppn blocks on leaders.
 * Reference: seed 000 (Faraj 2006), §4.4 future work (SMP-aware collectives); seed 004
 *   (Afsahi 2000) §5.5 scatter trees; two-level structure of seed 003 (spec allreduce-trees).
 * Tracing: step records (src/coll/hier_stage.c; seed 003 §4): a leader's message from the root,
 *   then the intra-node scatter, its tree stamped (t3, t4 per child) (the root: its intra-node
 *   scatter, then until every region has
 *   left; the copies into node order and the posting are local work outside the steps).
 */
#include <stdlib.h>
#include "../hier_root.h"
#include "../hier_stage.h"
#include "../../sched/tree.h"

int ac_scatter_hier(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    /* Node and leader communicators: made by the dispatcher before a top-level call, here when
     * a composite runs this algorithm on a context of its own (agreed, collective). */
    int nodes_err = ac_ctx_nodes(ctx);
    if (nodes_err != MPI_SUCCESS) return nodes_err;
    int err = MPI_SUCCESS, p = a->size, root = a->root, tag = AC_TAG(a), nr = ctx->node_rank;
    void *nodebase = NULL, *junkbase = NULL;
    ac_hier_root_t h = {0};
    ac_tree_t nt = ac_tree_make(AC_TREE_KNOMIAL, 2, ctx->node_size);
    int ns = ctx->node_size;
    ac_hier_steps_t hs;
    ac_hier_begin(&hs, a, ctx);
    if (a->rank != root) {
        char *nodebuf = NULL;
        int nc = a->rcount * ctx->node_size;
        if (nr == 0) {
            if (!(nodebuf = ac_dt_alloc(a->rtype, (size_t)nc, &nodebase))) return MPI_ERR_NO_MEM;
            AC_CHECK(PMPI_Recv(nodebuf, nc, a->rtype, root, tag, a->comm, MPI_STATUS_IGNORE));
            ac_hier_step(&hs, a, ctx, AC_HIER_INTER, AC_PART_SCATTER, ctx->node_id, ctx->nnodes, nc,
                         a->rtype);
        }
        ac_hier_tree_begin(&hs, ns);
        err = ac_tree_scatter(nodebuf, a->rcount, a->rtype, a->rbuf, a->rcount, a->rtype, 0, nr,
                              ctx->node_comm, tag, &nt);
        ac_hier_tree_end(&hs, a, ctx, AC_HIER_INTRA, ctx->node_comm, a->rcount, a->rtype, err);
        AC_CHECK(err);
        ac_hier_step(&hs, a, ctx, AC_HIER_INTRA, AC_PART_SCATTER, nr, ns,
                     (long long)a->rcount * (nr == 0 ? ns : 1), a->rtype);
        goto fn_exit;
    }
    /* Root: the blocks in node order, every region but its own node's (when it leads it) to
     * the node's leader. */
    AC_CHECK(ac_hier_root_init(&h, ctx, p, a->scount, a->stype));
    for (int r = 0; r < p; r++)
        AC_CHECK(ac_dt_copy((const char *)a->sbuf + (MPI_Aint)r * h.blk, a->scount, a->stype,
                            ac_hier_root_at(&h, h.pos[r]), a->scount, a->stype));
    AC_CHECK(ac_hier_root_post(&h, ctx, 1, a->comm, tag));
    ac_hier_mark(&hs);
    if (nr == 0) {
        /* The root's own block: ac_tree_scatter honours MPI_IN_PLACE at the tree root. */
        ac_hier_tree_begin(&hs, ns);
        err = ac_tree_scatter(ac_hier_root_at(&h, h.start[ctx->node_id]), a->scount, a->stype,
                              a->rbuf, a->rcount, a->rtype, 0, nr, ctx->node_comm, tag, &nt);
        ac_hier_tree_end(&hs, a, ctx, AC_HIER_INTRA, ctx->node_comm, a->scount, a->stype, err);
        AC_CHECK(err);
    } else {
        void *dst = a->rbuf;
        int rc = a->rcount;
        MPI_Datatype rt = a->rtype;
        if (a->rbuf == MPI_IN_PLACE) { /* the block is already in sbuf: receive and drop it */
            rc = a->scount;
            rt = a->stype;
            dst = ac_dt_alloc(rt, (size_t)rc, &junkbase);
            if (!dst) {
                err = MPI_ERR_NO_MEM;
                goto fn_exit;
            }
        }
        ac_hier_tree_begin(&hs, ns);
        err = ac_tree_scatter(NULL, 0, rt, dst, rc, rt, 0, nr, ctx->node_comm, tag, &nt);
        ac_hier_tree_end(&hs, a, ctx, AC_HIER_INTRA, ctx->node_comm, rc, rt, err);
        AC_CHECK(err);
    }
    ac_hier_step(&hs, a, ctx, AC_HIER_INTRA, AC_PART_SCATTER, nr, ns,
                 (long long)a->scount * (nr == 0 ? ns : 1), a->stype);
    AC_CHECK(ac_hier_root_wait(&h));
    ac_hier_step(&hs, a, ctx, AC_HIER_INTER, AC_PART_SCATTER, ctx->node_id, ctx->nnodes,
                 (long long)a->scount * (p - (nr == 0 ? ns : 0)), a->stype);
fn_exit:
    ac_hier_root_free(&h);
    free(nodebase);
    free(junkbase);
    return err;
}
