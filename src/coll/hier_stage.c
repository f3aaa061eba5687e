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

/* The stamps of one part's tree runs (storage for ac_tree_stamps). */
struct ac_hier_trees {
    ac_tree_stamps_t s;
    ac_tree_run_t run[MAXRUN];
    int *child, *map;
    int64_t *at;
};

static void trees_free(ac_hier_trees_t *x) {
    if (!x) return;
    if (ac_tree_stamps == &x->s) ac_tree_stamps = NULL;
    free(x->child);
    free(x->map);
    free(x->at);
    free(x);
}

/* Storage for the runs of a part of size ranks, installed as ac_tree_stamps; NULL (untraced
 * rather than failed) when out of memory. */
static ac_hier_trees_t *trees_begin(int size) {
    ac_hier_trees_t *x = calloc(1, sizeof *x);
    size_t cap = (size_t)(size > 0 ? size : 1);
    if (!x) return NULL;
    x->child = malloc(MAXRUN * cap * sizeof *x->child);
    x->map = malloc(cap * sizeof *x->map);
    x->at = malloc(MAXRUN * cap * sizeof *x->at);
    if (!x->child || !x->map || !x->at) {
        trees_free(x);
        return NULL;
    }
    for (int k = 0; k < MAXRUN; k++) {
        x->run[k].child = x->child + (size_t)k * cap;
        x->run[k].at = x->at + (size_t)k * cap;
    }
    x->s = (ac_tree_stamps_t){clock_ns, (int)cap, MAXRUN, 0, 0, x->run};
    ac_tree_stamps = &x->s;
    return x;
}

/* Writes the runs stamped in x (part communicator pcomm, this rank prank of psize there, bytes
 * of data, the part algorithm's index) as records of call a on ctx, and frees x. */
static void trees_end(ac_hier_trees_t *x, const ac_args_t *a, const ac_ctx_t *ctx, int stage,
                      MPI_Comm pcomm, int prank, int psize, uint64_t bytes, int alg, int ok) {
    ac_tree_stamps = NULL;
    const ac_tree_stamps_t *s = &x->s;
    if (!ok || s->nrun == 0 || ac_comm_ranks(pcomm, psize, a->comm, x->map) != MPI_SUCCESS) {
        trees_free(x);
        return;
    }
    const int *map = x->map;
    for (int k = 0; k < s->nrun; k++) {
        const ac_tree_run_t *r = &s->run[k];
        ac_trace_rec_t t;
        ac_trace_rec_clear(&t, AC_TK_PART_TREE);
        t.seq = ctx->calls;
        t.t_in = r->entry;
        t.t_out = r->mid > r->entry ? r->mid : r->entry;
        t.ident = prank;
        t.count = psize;
        t.tag = r->parent;
        t.peer = a->rank;
        t.root = r->parent >= 0 ? map[r->parent] : -1;
        t.bytes = bytes;
        t.status_source = stage;
        t.status_tag = r->op; /* AC_TREE_RUN_* = AC_PART_* */
        t.alg = (int16_t)alg;
        ac_trace_record(&t);
        for (int j = 0; j < r->nch; j++) {
            ac_trace_rec_t c = t;
            c.kind = AC_TK_PART_CHILD;
            if (ac_part_op_gathers(r->op)) {
                c.t_in = r->at[j];
                c.t_out = t.t_out > c.t_in ? t.t_out : c.t_in;
            } else {
                c.t_in = t.t_out;
                c.t_out = r->at[j] > c.t_in ? r->at[j] : c.t_in;
            }
            c.count = j;
            c.tag = r->child[j];
            c.root = map[r->child[j]];
            ac_trace_record(&c);
        }
    }
    trees_free(x);
}

static uint64_t data_bytes(long long count, MPI_Datatype type) {
    int tsize = 0;
    if (type != MPI_DATATYPE_NULL) PMPI_Type_size(type, &tsize);
    return count > 0 && tsize > 0 ? (uint64_t)count * (uint64_t)tsize : 0;
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
    write_step(a, ctx, stage, op, rank, size, data_bytes(count, type), -1, h->t0, t1);
    h->t0 = t1;
}

int ac_hier_part(const ac_args_t *a, ac_ctx_t *ctx, int stage, const ac_args_t *b,
                 const ac_alg_t *alg, ac_ctx_t *pctx) {
    if (__builtin_expect(!ac_trace_on(a->coll), 1) || !ctx || a->comm != ctx->comm ||
        ac_tree_stamps || b->size < 1)
        return ac_run_part_alg(b, alg, pctx);
    int64_t t0 = clock_ns();
    ac_hier_trees_t *x = trees_begin(b->size);
    int err = ac_run_part_alg(b, alg, pctx);
    uint64_t bytes = data_bytes(b->rcount, b->rtype);
    if (x)
        trees_end(x, a, ctx, stage, b->comm, b->rank, b->size, bytes, alg ? alg->index : -1,
                  err == MPI_SUCCESS);
    if (err == MPI_SUCCESS)
        write_step(a, ctx, stage, part_op(b->coll), b->rank, b->size, bytes, alg ? alg->index : -1,
                   t0, clock_ns());
    return err;
}

void ac_hier_tree_begin_traced(ac_hier_steps_t *h, int size) {
    h->trees = ac_tree_stamps ? NULL : trees_begin(size);
}

void ac_hier_tree_end_traced(ac_hier_steps_t *h, const ac_args_t *a, const ac_ctx_t *ctx, int stage,
                             MPI_Comm pcomm, long long count, MPI_Datatype type, int err) {
    if (!h->trees) return;
    int prank = 0, psize = 0;
    PMPI_Comm_rank(pcomm, &prank);
    PMPI_Comm_size(pcomm, &psize);
    trees_end(h->trees, a, ctx, stage, pcomm, prank, psize, data_bytes(count, type), -1,
              err == MPI_SUCCESS);
    h->trees = NULL;
}

void ac_hier_run_traced(ac_hier_steps_t *h, int op, int parent, int64_t entry, int64_t mid) {
    if (!h->trees) return;
    ac_tree_stamps_t *s = &h->trees->s;
    if (s->nrun >= s->maxrun) {
        s->lost++;
        return;
    }
    ac_tree_run_t *r = &s->run[s->nrun++];
    r->op = op;
    r->parent = parent;
    r->entry = entry;
    r->mid = mid > entry ? mid : entry;
    r->nch = 0;
}

void ac_hier_run_child_traced(ac_hier_steps_t *h, int child, int64_t at) {
    if (!h->trees || h->trees->s.nrun == 0) return;
    ac_tree_stamps_t *s = &h->trees->s;
    ac_tree_run_t *r = &s->run[s->nrun - 1];
    if (r->nch >= s->cap) return;
    r->child[r->nch] = child;
    r->at[r->nch++] = at;
}

int ac_hier_gather_wait(ac_hier_steps_t *h, int n, MPI_Request *req, int64_t entry) {
    if (!h->trees) return PMPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    ac_tree_stamps_t *s = &h->trees->s;
    int run = s->nrun;
    ac_hier_run_traced(h, AC_PART_GATHER, -1, entry, entry);
    int err = MPI_SUCCESS;
    for (int left = n; left > 0 && err == MPI_SUCCESS; left--) {
        int k = MPI_UNDEFINED;
        err = PMPI_Waitany(n, req, &k, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS || k == MPI_UNDEFINED) break;
        if (s->nrun > run) ac_hier_run_child_traced(h, k + 1, ac_trace_now());
    }
    if (s->nrun > run) s->run[run].mid = ac_trace_now(); /* t2: every block is in */
    return err;
}

void ac_hier_tree_drop_traced(ac_hier_steps_t *h) {
    trees_free(h->trees);
    h->trees = NULL;
}
