/*
 * Stage records of the trees inside node-aware (`hier`) algorithms: the intra-node and
 *   inter-node parts of bcast, reduce and allreduce `hier`/`hierarchical` run k-nomial or k-ary
 *   trees (ac_node_bcast, ac_node_reduce in src/sched/tree.c) on the node and leader
 *   communicators; here each such run leaves, per rank, one record of the vertex the rank is and
 *   one per child, labelled with the stage (intra-node or inter-node).
 * Reference: seed 003 (Bongo et al.) §4, spec allreduce-trees.md §7.1-7.2 (t1 arrivals, t2 the
 *   partial result leaves, t3 the final value is here, t4 departures; host subtrees are the
 *   intra-node stage, the cluster-root subtree the inter-node one).
 * Cost: off, one test per part; on, two clock reads per child and three per run, a group
 *   translation of the part's ranks and one record per run and child. O(part size) memory.
 * Design: sched may not include trace (layers), so the executors only fill a thread-local
 *   ac_tree_stamps_t whose clock this file gives (ac_trace_now, the records' clock); records are
 *   written after the part returns, so the stamps never wait on the ring. A part that runs no
 *   tree executor (recursive doubling among leaders, a scatter-allgather broadcast) leaves no
 *   tree record: its structure is not a tree. Every part, tree or not, then leaves one step
 *   record (entry and exit of the part, spec 7.2's per-call entry/exit applied to a part), so
 *   a rank's path through the call is covered (src/trace/trace_part.c, ac_part_path). The
 *   algorithms that write their parts out (gather, scatter, allgather, alltoall `hier`) call
 *   ac_hier_step after each part: the intra-node gather to the leaders, the leaders' messages
 *   or exchange, the intra-node scatter or broadcast.
 */
#include <stdlib.h>
#include "hier_stage.h"
#include "../sched/tree.h"
#include "../trace/trace.h"

enum { MAXRUN = 4 }; /* tree runs kept per part (reduce + bcast composites run two) */

static int64_t clock_ns(void) {
    return ac_trace_now();
}

static void write_records(const ac_args_t *a, const ac_ctx_t *ctx, int stage, const ac_args_t *b,
                          const ac_alg_t *alg, const ac_tree_stamps_t *s, const int *map) {
    int tsize = 0;
    PMPI_Type_size(b->rtype, &tsize);
    for (int k = 0; k < s->nrun; k++) {
        const ac_tree_run_t *r = &s->run[k];
        ac_trace_rec_t x;
        ac_trace_rec_clear(&x, AC_TK_PART_TREE);
        x.seq = ctx->calls;
        x.t_in = r->entry;
        x.t_out = r->mid > r->entry ? r->mid : r->entry;
        x.ident = b->rank;
        x.count = b->size;
        x.tag = r->parent;
        x.peer = a->rank;
        x.root = r->parent >= 0 ? map[r->parent] : -1;
        x.bytes = (uint64_t)b->rcount * (uint64_t)(tsize > 0 ? tsize : 0);
        x.status_source = stage;
        x.status_tag = r->op;
        x.alg = (int16_t)(alg ? alg->index : -1);
        ac_trace_record(&x);
        for (int j = 0; j < r->nch; j++) {
            ac_trace_rec_t c = x;
            c.kind = AC_TK_PART_CHILD;
            if (r->op == AC_TREE_RUN_REDUCE) {
                c.t_in = r->at[j];
                c.t_out = x.t_out > c.t_in ? x.t_out : c.t_in;
            } else {
                c.t_in = x.t_out;
                c.t_out = r->at[j] > c.t_in ? r->at[j] : c.t_in;
            }
            c.count = j;
            c.tag = r->child[j];
            c.root = map[r->child[j]];
            ac_trace_record(&c);
        }
    }
}

/* The operation of a part call of collective coll. */
static int part_op(int coll) {
    switch (coll) {
    case AUTOCOLL_REDUCE:
        return AC_PART_REDUCE;
    case AUTOCOLL_BCAST:
        return AC_PART_BCAST;
    case AUTOCOLL_GATHER:
        return AC_PART_GATHER;
    case AUTOCOLL_SCATTER:
        return AC_PART_SCATTER;
    default:
        return AC_PART_EXCHANGE;
    }
}

static void write_step(const ac_args_t *a, const ac_ctx_t *ctx, int stage, int op, int rank,
                       int size, uint64_t bytes, int alg, int64_t t0, int64_t t1) {
    ac_trace_rec_t x;
    ac_trace_rec_clear(&x, AC_TK_PART_STEP);
    x.seq = ctx->calls;
    x.t_in = t0;
    x.t_out = t1 > t0 ? t1 : t0;
    x.ident = rank;
    x.count = size;
    x.peer = a->rank;
    x.bytes = bytes;
    x.status_source = stage;
    x.status_tag = op;
    x.alg = (int16_t)alg;
    ac_trace_record(&x);
}

void ac_hier_begin_traced(ac_hier_steps_t *h, const ac_args_t *a, const ac_ctx_t *ctx) {
    h->on = ctx && a->comm == ctx->comm && !ac_tree_stamps;
    if (h->on) h->t0 = clock_ns();
}

void ac_hier_mark_traced(ac_hier_steps_t *h) {
    h->t0 = clock_ns();
}

void ac_hier_step_traced(ac_hier_steps_t *h, const ac_args_t *a, const ac_ctx_t *ctx, int stage,
                         int op, int rank, int size, long long count, MPI_Datatype type) {
    int64_t t1 = clock_ns();
    int tsize = 0;
    if (type != MPI_DATATYPE_NULL) PMPI_Type_size(type, &tsize);
    uint64_t bytes = count > 0 && tsize > 0 ? (uint64_t)count * (uint64_t)tsize : 0;
    write_step(a, ctx, stage, op, rank, size, bytes, -1, h->t0, t1);
    h->t0 = t1;
}

int ac_hier_part(const ac_args_t *a, ac_ctx_t *ctx, int stage, const ac_args_t *b,
                 const ac_alg_t *alg, ac_ctx_t *pctx) {
    if (__builtin_expect(!ac_trace_on(a->coll), 1) || !ctx || a->comm != ctx->comm ||
        ac_tree_stamps || b->size < 1)
        return ac_run_part_alg(b, alg, pctx);
    int64_t t0 = clock_ns();
    size_t cap = (size_t)b->size;
    ac_tree_run_t run[MAXRUN];
    int *child = malloc(MAXRUN * cap * sizeof *child), *map = malloc(cap * sizeof *map);
    int64_t *at = malloc(MAXRUN * cap * sizeof *at);
    if (!child || !map || !at) { /* untraced rather than failed */
        free(child), free(map), free(at);
        return ac_run_part_alg(b, alg, pctx);
    }
    for (int k = 0; k < MAXRUN; k++) {
        run[k].child = child + (size_t)k * cap;
        run[k].at = at + (size_t)k * cap;
    }
    ac_tree_stamps_t s = {clock_ns, b->size, MAXRUN, 0, 0, run};
    ac_tree_stamps = &s;
    int err = ac_run_part_alg(b, alg, pctx);
    ac_tree_stamps = NULL;
    if (err == MPI_SUCCESS && s.nrun > 0 &&
        ac_comm_ranks(b->comm, b->size, a->comm, map) == MPI_SUCCESS)
        write_records(a, ctx, stage, b, alg, &s, map);
    if (err == MPI_SUCCESS) {
        int tsize = 0;
        PMPI_Type_size(b->rtype, &tsize);
        write_step(a, ctx, stage, part_op(b->coll), b->rank, b->size,
                   (uint64_t)b->rcount * (uint64_t)(tsize > 0 ? tsize : 0), alg ? alg->index : -1,
                   t0, clock_ns());
    }
    free(child);
    free(map);
    free(at);
    return err;
}
