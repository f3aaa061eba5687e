/* Stage records of the parts of a node-aware (`hier`) call: the trees they run and one step per
 * part (src/coll/hier_stage.c; records in src/trace/trace.h, AC_TK_PART_*). */
#ifndef AC_COLL_HIER_STAGE_H
#define AC_COLL_HIER_STAGE_H
#include "algs.h"
#include "../trace/trace.h" /* AC_HIER_INTRA, AC_HIER_INTER */

/* Runs part b of the hierarchical call a (made on ctx) with algorithm alg on pctx, as its
 * intra-node (AC_HIER_INTRA) or inter-node (AC_HIER_INTER) stage. When collective tracing is on
 * and a is the whole call (a->comm == ctx->comm), the tree executors the part runs are stamped
 * and, after it returns successfully, their records are written with the call number of a.
 * Otherwise the same as ac_run_part_alg(b, alg, pctx). */
int ac_hier_part(const ac_args_t *a, ac_ctx_t *ctx, int stage, const ac_args_t *b,
                 const ac_alg_t *alg, ac_ctx_t *pctx);

/* Step records of the parts a node-aware algorithm writes out itself (gather, scatter,
 * allgather, alltoall `hier`): one AC_TK_PART_STEP record per part and rank, from the end of the
 * previous part (or the last ac_hier_mark) to now. Off, each helper is one test of a flag set
 * by ac_hier_begin, which itself is one test of the trace mask. */
typedef struct ac_hier_trees ac_hier_trees_t;
typedef struct {
    int on;
    int64_t t0;             /* start of the next step */
    ac_hier_trees_t *trees; /* between ac_hier_tree_begin and _end: the stamps of the trees */
} ac_hier_steps_t;
/* Traced when collective tracing is on and a is the whole call on ctx, not inside a traced
 * part of another hierarchical call (the cold path of ac_hier_begin). */
void ac_hier_begin_traced(ac_hier_steps_t *h, const ac_args_t *a, const ac_ctx_t *ctx);
static inline void ac_hier_begin(ac_hier_steps_t *h, const ac_args_t *a, const ac_ctx_t *ctx) {
    h->on = 0;
    h->trees = NULL;
    if (__builtin_expect(ac_trace_on(a->coll), 0)) ac_hier_begin_traced(h, a, ctx);
}
/* The next step starts now (the local work since the previous step is not part of it). */
void ac_hier_mark_traced(ac_hier_steps_t *h);
static inline void ac_hier_mark(ac_hier_steps_t *h) {
    if (__builtin_expect(h->on, 0)) ac_hier_mark_traced(h);
}
/* The step that ends now: stage (AC_HIER_*), operation (AC_PART_*), this rank's rank and the
 * size of the part's group (intra-node: node rank and size; inter-node: node index and number
 * of nodes), the data this rank moves in it (count elements of type). */
void ac_hier_step_traced(ac_hier_steps_t *h, const ac_args_t *a, const ac_ctx_t *ctx, int stage,
                         int op, int rank, int size, long long count, MPI_Datatype type);
static inline void ac_hier_step(ac_hier_steps_t *h, const ac_args_t *a, const ac_ctx_t *ctx,
                                int stage, int op, int rank, int size, long long count,
                                MPI_Datatype type) {
    if (__builtin_expect(h->on, 0))
        ac_hier_step_traced(h, a, ctx, stage, op, rank, size, count, type);
}

/* The tree executors an algorithm runs itself (ac_tree_gather, ac_tree_scatter in gather and
 * scatter `hier`) between ac_hier_tree_begin and ac_hier_tree_end are stamped (the part's
 * communicator has size ranks); _end writes their records (part communicator pcomm, data count
 * x type at this rank) when err is MPI_SUCCESS. Call _end right after the executor, before
 * checking its error (it uninstalls the stamps). */
void ac_hier_tree_begin_traced(ac_hier_steps_t *h, int size);
static inline void ac_hier_tree_begin(ac_hier_steps_t *h, int size) {
    if (__builtin_expect(h->on, 0)) ac_hier_tree_begin_traced(h, size);
}
void ac_hier_tree_end_traced(ac_hier_steps_t *h, const ac_args_t *a, const ac_ctx_t *ctx, int stage,
                             MPI_Comm pcomm, long long count, MPI_Datatype type, int err);
static inline void ac_hier_tree_end(ac_hier_steps_t *h, const ac_args_t *a, const ac_ctx_t *ctx,
                                    int stage, MPI_Comm pcomm, long long count, MPI_Datatype type,
                                    int err) {
    if (__builtin_expect(h->on, 0))
        ac_hier_tree_end_traced(h, a, ctx, stage, pcomm, count, type, err);
}

/* Uninstalls and frees the stamps of a tree left open (an error between ac_hier_tree_begin and
 * ac_hier_tree_end): no record. Nothing when none is open. */
void ac_hier_tree_drop_traced(ac_hier_steps_t *h);
static inline void ac_hier_tree_drop(ac_hier_steps_t *h) {
    if (__builtin_expect(h->trees != NULL, 0)) ac_hier_tree_drop_traced(h);
}

/* Trees an algorithm writes out with point-to-point calls (the intra-node gather and broadcast
 * of allgather `hier`, the intra-node gather and scatter of alltoall `hier`), stamped by hand
 * between ac_hier_tree_begin and ac_hier_tree_end: ac_hier_run starts this rank's vertex of one
 * run (op AC_PART_*, parent in the part's communicator or -1, entry, and t2 for gathers / t3 for
 * bcasts and scatters), then ac_hier_run_child adds each child (t1,i / t4,i). ac_hier_now is the records' clock when the
 * steps are traced, else 0 (one test of the flag). */
static inline int64_t ac_hier_now(const ac_hier_steps_t *h) {
    return __builtin_expect(h->on, 0) ? ac_trace_now() : 0;
}
void ac_hier_run_traced(ac_hier_steps_t *h, int op, int parent, int64_t entry, int64_t mid);
static inline void ac_hier_run(ac_hier_steps_t *h, int op, int parent, int64_t entry, int64_t mid) {
    if (__builtin_expect(h->on, 0)) ac_hier_run_traced(h, op, parent, entry, mid);
}
void ac_hier_run_child_traced(ac_hier_steps_t *h, int child, int64_t at);
static inline void ac_hier_run_child(ac_hier_steps_t *h, int child, int64_t at) {
    if (__builtin_expect(h->on, 0)) ac_hier_run_child_traced(h, child, at);
}

/* Waits for the n receives req of a flat gather whose children are the part's ranks 1..n
 * (req[i] from rank i + 1). When a tree is being stamped, this rank's vertex is stamped too: its
 * entry, each child's t1 as its block completes (arrival order, MPI_Waitany) and t2 when all
 * are in. Otherwise MPI_Waitall. */
int ac_hier_gather_wait(ac_hier_steps_t *h, int n, MPI_Request *req, int64_t entry);

#endif
