/*
 * Algorithm: hierarchical, node-aware: (1) every rank sends its whole send buffer (p blocks) to
 *   its node leader over ctx->node_comm; the leader holds G[m][j] = block of member m for rank j
 *   (members m = node ranks, in communicator order). (2) Leaders exchange over ctx->leader_comm
 *   (rank = node index): the leader of node A sends to the leader of node B the na * nb blocks
 *   src -> dst with src on A and dst on B, block t being src = members_A[t mod na],
 *   dst = members_B[t div na] (ac_a2a_hier_block, src/sched/a2a_sched.c). (3) The leader builds
 *   for each member d the p blocks addressed to it in source-rank order and sends them straight
 *   into the member's receive buffer over node_comm. Member lists come from ctx->node_of, so
 *   any number of ranks per node and any placement (sequential, cyclic, other) work.
 * Cost: with c = ranks per node and q = nodes: 2(c-1)(alpha + p n beta) at the leader (gather and
 *   scatter, serialised on its port) + (q-1) alpha + (p-c) c n beta among leaders;
 *   n = bytes of one block. One inter-node message per pair of nodes.
 * Restrictions: none. In place: members send from a copy of the receive buffer.
 * Memory: leaders 4 c p blocks (gathered rows, leader send and receive packs, output rows);
 *   members a copy of the receive buffer when in place.
 * Reference: seed 000 (Faraj 2006), section 5.2 (future work: SMP / multi-core nodes; spec
 *   star-stage-ethernet.md section 8, item 2) and the node-leader layout of seed 003 (Bongo et
 *   al.), section 3.1 (spec allreduce-trees.md section 4: node index = position of the leader).
 *   The aggregation order is autocoll's definition.
 * Tracing: step records (src/coll/hier_stage.c; seed 003 §4): members: the send of their rows
 *   to the leader (intra-node gather), the receive of their blocks (intra-node scatter); leaders:
 *   (1) intra-node gather, (2) inter-node exchange (packing, the messages and the node's own
 *   blocks' copies while they fly), (3) intra-node scatter (the unpacking before it is local
 *   work outside the steps). And part_tree / part_child records of (1) as a flat gather tree
 *   (t2 of a member just before its send; the leader completes the members' rows in arrival
 *   order with Waitany when traced, t1,i each, t2 when all are in) and of (3) as a flat scatter
 *   tree (the leader's t3 is its entry, t4,i just before the send to member i; a member's t3
 *   when its blocks are here). A node of one rank runs no tree.
 */
#include <stdlib.h>
#include "a2a_util.h"
#include "../hier_stage.h"
#include "../../sched/a2a_sched.h"

int ac_alltoall_hier(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    /* Node and leader communicators: made by the dispatcher before a top-level call, here when
     * a composite runs this algorithm on a context of its own (agreed, collective). */
    int nodes_err = ac_ctx_nodes(ctx);
    if (nodes_err != MPI_SUCCESS) return nodes_err;
    (void)in;
    ac_a2a_view_t v;
    ac_a2a_blk_t b;
    int err, p = a->size, cnt, nreq = 0;
    const int tag = AC_TAG(a);
    void *gb = NULL, *sb = NULL, *rb = NULL, *ob = NULL;
    int *mine = NULL, *other = NULL;
    size_t *off = NULL;
    MPI_Request *req = NULL;
    MPI_Datatype mt = MPI_DATATYPE_NULL;
    ac_hier_steps_t hs = {0};
    ac_a2a_blk_init(&b, a);
    err = ac_a2a_view_init(&v, a);
    if (err != MPI_SUCCESS) goto fn_exit;
    AC_CHECK(ac_a2a_blk_msg(&b, (size_t)p, &cnt, &mt));
    ac_hier_begin(&hs, a, ctx);
    if (ctx->node_rank != 0) {
        /* Member: whole send buffer to the leader, then my p blocks back; traced, a leaf of
         * the gather tree (t2 just before the send) and of the scatter tree (t3: blocks here). */
        const char *s0 = ac_a2a_sptr(&v, 0);
        size_t sc = (size_t)v.scount * (size_t)p;
        if (sc > 0x7fffffff) {
            err = MPI_ERR_COUNT;
            goto fn_exit;
        }
        ac_hier_tree_begin(&hs, ctx->node_size);
        int64_t t_in = ac_hier_now(&hs);
        ac_hier_run(&hs, AC_PART_GATHER, 0, t_in, ac_hier_now(&hs));
        err = PMPI_Send(s0, (int)sc, v.stype, 0, tag, ctx->node_comm);
        ac_hier_tree_end(&hs, a, ctx, AC_HIER_INTRA, ctx->node_comm, (long long)sc, v.stype, err);
        if (err != MPI_SUCCESS) goto fn_exit;
        ac_hier_step(&hs, a, ctx, AC_HIER_INTRA, AC_PART_GATHER, ctx->node_rank, ctx->node_size,
                     (long long)sc, v.stype);
        ac_hier_tree_begin(&hs, ctx->node_size);
        t_in = ac_hier_now(&hs);
        err = PMPI_Recv(a->rbuf, cnt, mt, 0, tag, ctx->node_comm, MPI_STATUS_IGNORE);
        ac_hier_run(&hs, AC_PART_SCATTER, 0, t_in, ac_hier_now(&hs));
        ac_hier_tree_end(&hs, a, ctx, AC_HIER_INTRA, ctx->node_comm, (long long)b.rcount * p,
                         b.rtype, err);
        if (err != MPI_SUCCESS) goto fn_exit;
        ac_hier_step(&hs, a, ctx, AC_HIER_INTRA, AC_PART_SCATTER, ctx->node_rank, ctx->node_size,
                     (long long)b.rcount * p, b.rtype);
        goto fn_exit;
    }
    int nn = ctx->nnodes, me_node = ctx->node_id, c = ctx->node_size;
    size_t P = (size_t)p, C = (size_t)c;
    mine = malloc(P * sizeof(int));
    other = malloc(P * sizeof(int));
    off = malloc(((size_t)nn + 1) * sizeof(size_t));
    req = malloc((2 * (size_t)nn + C) * sizeof *req);
    char *g = ac_a2a_blk_alloc(&b, C * P, &gb), *o = ac_a2a_blk_alloc(&b, C * P, &ob);
    char *sp = ac_a2a_blk_alloc(&b, C * P, &sb), *rp = ac_a2a_blk_alloc(&b, C * P, &rb);
    if (!mine || !other || !off || !req || !g || !o || !sp || !rp) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    if (ac_a2a_node_members(ctx->node_of, p, me_node, mine) != c) {
        err = MPI_ERR_INTERN;
        goto fn_exit;
    }
    /* (1) gather the rows of my members; traced, a flat gather tree (the rows completed in
     * arrival order and stamped, t1,i) */
    if (c > 1) ac_hier_tree_begin(&hs, c);
    int64_t t_in = ac_hier_now(&hs);
    for (int m = 1; m < c; m++)
        AC_CHECK(PMPI_Irecv(ac_a2a_blk_at(&b, g, (size_t)m * P), cnt, mt, m, tag, ctx->node_comm,
                            &req[nreq++]));
    for (int j = 0; j < p; j++)
        AC_CHECK(ac_a2a_blk_from_send(&b, &v, j, ac_a2a_blk_at(&b, g, j)));
    AC_CHECK(ac_hier_gather_wait(&hs, nreq, req, t_in));
    nreq = 0;
    ac_hier_tree_end(&hs, a, ctx, AC_HIER_INTRA, ctx->node_comm, (long long)b.rcount * p * c,
                     b.rtype, MPI_SUCCESS);
    ac_hier_step(&hs, a, ctx, AC_HIER_INTRA, AC_PART_GATHER, 0, c, (long long)b.rcount * p * c,
                 b.rtype);
    /* (2) leader exchange: pack for every other node, one message each way per node pair */
    off[0] = 0;
    for (int B = 0; B < nn; B++) {
        int nb = ac_a2a_node_members(ctx->node_of, p, B, other);
        off[B + 1] = off[B] + (B == me_node ? 0 : C * (size_t)nb);
        if (B == me_node) continue;
        for (size_t t = 0; t < C * (size_t)nb; t++) {
            int s, d;
            ac_a2a_hier_block(mine, c, other, t, &s, &d);
            AC_CHECK(ac_a2a_blk_copy(&b, ac_a2a_blk_at(&b, g, (t % C) * P + (size_t)d),
                                     ac_a2a_blk_at(&b, sp, off[B] + t)));
        }
        AC_CHECK(ac_a2a_blk_msg(&b, C * (size_t)nb, &cnt, &mt));
        AC_CHECK(PMPI_Irecv(ac_a2a_blk_at(&b, rp, off[B]), cnt, mt, B, tag, ctx->leader_comm,
                            &req[nreq++]));
        AC_CHECK(PMPI_Isend(ac_a2a_blk_at(&b, sp, off[B]), cnt, mt, B, tag, ctx->leader_comm,
                            &req[nreq++]));
    }
    /* blocks inside my node while the leader messages fly: o[d][src] = g[s][dst] */
    for (size_t t = 0; t < C * C; t++) {
        int s, d;
        ac_a2a_hier_block(mine, c, mine, t, &s, &d);
        AC_CHECK(ac_a2a_blk_copy(&b, ac_a2a_blk_at(&b, g, (t % C) * P + (size_t)d),
                                 ac_a2a_blk_at(&b, o, (t / C) * P + (size_t)s)));
    }
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    nreq = 0;
    if (nn > 1)
        ac_hier_step(&hs, a, ctx, AC_HIER_INTER, AC_PART_EXCHANGE, me_node, nn,
                     (long long)off[nn] * b.rcount, b.rtype);
    /* message from node A: block t = members_A[t mod na] -> mine[t div na] */
    for (int A = 0; A < nn; A++) {
        if (A == me_node) continue;
        int na = ac_a2a_node_members(ctx->node_of, p, A, other);
        for (size_t t = 0; t < (size_t)na * C; t++) {
            int s, d;
            ac_a2a_hier_block(other, na, mine, t, &s, &d);
            AC_CHECK(ac_a2a_blk_copy(&b, ac_a2a_blk_at(&b, rp, off[A] + t),
                                     ac_a2a_blk_at(&b, o, (t / (size_t)na) * P + (size_t)s)));
        }
    }
    /* (3) scatter: member d gets row d of o (p blocks in source order) */
    AC_CHECK(ac_a2a_blk_msg(&b, P, &cnt, &mt));
    ac_hier_mark(&hs);
    /* traced, a flat scatter tree: t3 the entry, t4,i just before the send to member i */
    if (c > 1) ac_hier_tree_begin(&hs, c);
    t_in = ac_hier_now(&hs);
    ac_hier_run(&hs, AC_PART_SCATTER, -1, t_in, t_in);
    for (int m = 1; m < c; m++) {
        ac_hier_run_child(&hs, m, ac_hier_now(&hs));
        AC_CHECK(PMPI_Isend(ac_a2a_blk_at(&b, o, (size_t)m * P), cnt, mt, m, tag, ctx->node_comm,
                            &req[nreq++]));
    }
    for (int j = 0; j < p; j++)
        AC_CHECK(ac_a2a_blk_copy(&b, ac_a2a_blk_at(&b, o, (size_t)j), ac_a2a_rptr(&v, j)));
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    nreq = 0;
    ac_hier_tree_end(&hs, a, ctx, AC_HIER_INTRA, ctx->node_comm, (long long)b.rcount * p * c,
                     b.rtype, MPI_SUCCESS);
    ac_hier_step(&hs, a, ctx, AC_HIER_INTRA, AC_PART_SCATTER, 0, c, (long long)b.rcount * p * c,
                 b.rtype);
fn_exit:
    ac_hier_tree_drop(&hs); /* stamps left open by an error: no record */
    ac_a2a_blk_free(&b);
    if (err != MPI_SUCCESS && nreq > 0) PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    free(gb);
    free(ob);
    free(sb);
    free(rb);
    free(mine);
    free(other);
    free(off);
    free(req);
    ac_a2a_view_free(&v);
    return err;
}
