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
 */
#include <stdlib.h>
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_gather_hier(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    /* Node and leader communicators: made by the dispatcher before a top-level call, here when
     * a composite runs this algorithm on a context of its own (agreed, collective). */
    int nodes_err = ac_ctx_nodes(ctx);
    if (nodes_err != MPI_SUCCESS) return nodes_err;
    (void)in;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, root = a->root, tag = AC_TAG(a);
    int nn = ctx->nnodes, rnode = ctx->node_of[root], nreq = 0;
    int leader = ctx->node_rank == 0;
    void *allbase = NULL, *nodebase = NULL;
    int *size = NULL, *start = NULL, *fill = NULL;
    MPI_Request *req = NULL;
    ac_tree_t nt = ac_tree_make(AC_TREE_KNOMIAL, 2, ctx->node_size);
    if (me != root) {
        char *nodebuf = NULL;
        if (leader) {
            nodebuf = ac_dt_alloc(a->stype, (size_t)a->scount * (size_t)ctx->node_size, &nodebase);
            if (!nodebuf) return MPI_ERR_NO_MEM;
        }
        AC_CHECK(ac_tree_gather(a->sbuf, a->scount, a->stype, nodebuf, a->scount, a->stype, 0,
                                ctx->node_rank, ctx->node_comm, tag, &nt));
        if (leader)
            AC_CHECK(PMPI_Send(nodebuf, a->scount * ctx->node_size, a->stype, root, tag, a->comm));
        goto fn_exit;
    }
    /* Root: regions of the node-ordered buffer. */
    MPI_Aint blk = (MPI_Aint)a->rcount * ac_dt_extent(a->rtype);
    size = calloc((size_t)nn, sizeof *size);
    start = calloc((size_t)nn, sizeof *start);
    fill = calloc((size_t)nn, sizeof *fill);
    req = malloc((size_t)nn * sizeof *req);
    char *all = ac_dt_alloc(a->rtype, (size_t)a->rcount * (size_t)p, &allbase);
    if (!size || !start || !fill || !req || !all) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    for (int r = 0; r < p; r++)
        size[ctx->node_of[r]]++;
    for (int n = 1; n < nn; n++)
        start[n] = start[n - 1] + size[n - 1];
    for (int n = 0; n < nn; n++)
        if (n != rnode || !leader)
            AC_CHECK(PMPI_Irecv(all + (MPI_Aint)start[n] * blk, a->rcount * size[n], a->rtype,
                                ctx->leader_of[n], tag, a->comm, &req[nreq++]));
    const void *own = a->sbuf;
    int oc = a->scount;
    MPI_Datatype ot = a->stype;
    if (a->sbuf == MPI_IN_PLACE) {
        own = (char *)a->rbuf + (MPI_Aint)me * blk;
        oc = a->rcount;
        ot = a->rtype;
    }
    AC_CHECK(ac_tree_gather(own, oc, ot, leader ? all + (MPI_Aint)start[rnode] * blk : NULL,
                            a->rcount, a->rtype, 0, ctx->node_rank, ctx->node_comm, tag, &nt));
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    nreq = 0;
    for (int r = 0; r < p; r++) {
        int n = ctx->node_of[r], j = fill[n]++;
        if (r == me && a->sbuf == MPI_IN_PLACE) continue;
        AC_CHECK(ac_dt_copy(all + (MPI_Aint)(start[n] + j) * blk, a->rcount, a->rtype,
                            (char *)a->rbuf + (MPI_Aint)r * blk, a->rcount, a->rtype));
    }
fn_exit:
    if (err != MPI_SUCCESS && nreq > 0) PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    free(allbase);
    free(nodebase);
    free(size);
    free(start);
    free(fill);
    free(req);
    return err;
}
