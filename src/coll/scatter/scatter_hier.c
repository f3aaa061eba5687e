/*
 * Algorithm: hierarchical scatter: the root copies the blocks of node n's ranks (in node-rank
 *   order) into region n of a buffer and sends each region to the leader of its node in one
 *   message (its own node's region too when the root is not the leader); every node then runs
 *   a binomial scatter from its leader on ctx->node_comm.
 * Cost: (nnodes - 1)(alpha + ppn n beta) at the root + T_scatter(ppn) + local copies.
 * Restrictions: none. Memory: p blocks at the root, ppn blocks on leaders.
 * Reference: seed 000 (Faraj 2006), §4.4 future work (SMP-aware collectives); seed 004
 *   (Afsahi 2000) §5.5 scatter trees; two-level structure of seed 003 (spec allreduce-trees).
 */
#include <stdlib.h>
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_scatter_hier(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    /* Node and leader communicators: made by the dispatcher before a top-level call, here when
     * a composite runs this algorithm on a context of its own (agreed, collective). */
    int nodes_err = ac_ctx_nodes(ctx);
    if (nodes_err != MPI_SUCCESS) return nodes_err;
    (void)in;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, root = a->root, tag = AC_TAG(a);
    int nn = ctx->nnodes, rnode = ctx->node_of[root], nreq = 0;
    int leader = ctx->node_rank == 0;
    void *allbase = NULL, *nodebase = NULL, *junkbase = NULL;
    int *size = NULL, *start = NULL, *fill = NULL;
    MPI_Request *req = NULL;
    ac_tree_t nt = ac_tree_make(AC_TREE_KNOMIAL, 2, ctx->node_size);
    if (me != root) {
        char *nodebuf = NULL;
        if (leader) {
            nodebuf = ac_dt_alloc(a->rtype, (size_t)a->rcount * (size_t)ctx->node_size, &nodebase);
            if (!nodebuf) return MPI_ERR_NO_MEM;
            AC_CHECK(PMPI_Recv(nodebuf, a->rcount * ctx->node_size, a->rtype, root, tag, a->comm,
                               MPI_STATUS_IGNORE));
        }
        AC_CHECK(ac_tree_scatter(nodebuf, a->rcount, a->rtype, a->rbuf, a->rcount, a->rtype, 0,
                                 ctx->node_rank, ctx->node_comm, tag, &nt));
        goto fn_exit;
    }
    MPI_Aint blk = (MPI_Aint)a->scount * ac_dt_extent(a->stype);
    size = calloc((size_t)nn, sizeof *size);
    start = calloc((size_t)nn, sizeof *start);
    fill = calloc((size_t)nn, sizeof *fill);
    req = malloc((size_t)nn * sizeof *req);
    char *all = ac_dt_alloc(a->stype, (size_t)a->scount * (size_t)p, &allbase);
    if (!size || !start || !fill || !req || !all) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    for (int r = 0; r < p; r++)
        size[ctx->node_of[r]]++;
    for (int n = 1; n < nn; n++)
        start[n] = start[n - 1] + size[n - 1];
    for (int r = 0; r < p; r++) {
        int n = ctx->node_of[r], j = fill[n]++;
        AC_CHECK(ac_dt_copy((const char *)a->sbuf + (MPI_Aint)r * blk, a->scount, a->stype,
                            all + (MPI_Aint)(start[n] + j) * blk, a->scount, a->stype));
    }
    for (int n = 0; n < nn; n++)
        if (n != rnode || !leader)
            AC_CHECK(PMPI_Isend(all + (MPI_Aint)start[n] * blk, a->scount * size[n], a->stype,
                                ctx->leader_of[n], tag, a->comm, &req[nreq++]));
    if (leader) {
        /* The root's own block: ac_tree_scatter honours MPI_IN_PLACE at the tree root. */
        AC_CHECK(ac_tree_scatter(all + (MPI_Aint)start[rnode] * blk, a->scount, a->stype, a->rbuf,
                                 a->rcount, a->rtype, 0, ctx->node_rank, ctx->node_comm, tag, &nt));
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
        AC_CHECK(
            ac_tree_scatter(NULL, 0, rt, dst, rc, rt, 0, ctx->node_rank, ctx->node_comm, tag, &nt));
    }
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    nreq = 0;
fn_exit:
    if (err != MPI_SUCCESS && nreq > 0) PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    free(allbase);
    free(nodebase);
    free(junkbase);
    free(size);
    free(start);
    free(fill);
    free(req);
    return err;
}
