/*
 * The interposition layer: MPI_* and autocoll_<coll> entry points (wrappers.c), the Fortran ones
 * (fortran.c), the single path of every collective (dispatch.c) and the per-call statistics
 * (stats.c). The top floor: it asks select for its life cycle (ac_select_setup/_teardown) and one
 * choice record per call (ac_select, ac_select_native, ac_select_done, ac_source_name), and
 * names algorithms through the public listing; nothing below calls it.
 */
#ifndef AC_PMPI_H
#define AC_PMPI_H

#include "../select/select.h"
#include "../trace/trace.h"

/* dispatch.c */
int ac_dispatch(ac_args_t *a);
/* The entry of every intercepted collective (inline: most calls of a program in steady state
 * end here). State of dispatch.c: the depth of the library's own calls on this thread, the
 * context ac_pass found for the call it let in (NULL: none yet) for ac_dispatch, which the
 * wrapper calls right after it on the same thread, and ac_raw_ok (ac_pass_raw). */
extern AC_TLS int ac_depth;
extern AC_TLS ac_ctx_t *ac_peeked;
extern int ac_raw_ok;
/* MPI initialised without our MPI_Init (e.g. from Fortran): set up with local settings only; 1
 * when MPI is not (or no longer) initialised. */
int ac_late_setup(void) __attribute__((noinline, cold));
/* The size of type t, kept by the context when t is predefined (ac_pass_raw). */
size_t ac_raw_type_size(ac_ctx_t *ctx, MPI_Datatype t) __attribute__((noinline));

/* 1 when a call of collective coll on comm must go straight to PMPI_<Coll>: before MPI_Init /
 * after MPI_Finalize, AUTOCOLL_DISABLE=1, MPI_COMM_NULL, intercommunicators, calls made while
 * the library itself is running, and collectives that run the MPI library's algorithm on every
 * call with nothing to record (ac_sel.native_only: straight to PMPI_<Coll> once the
 * communicator has its context, made by the first call on every rank, so that
 * autocoll_last_choice answers; skipping ac_dispatch skips the context's tag slot too, on every
 * rank alike). */
static inline __attribute__((always_inline)) int ac_pass(MPI_Comm comm, int coll) {
    if (ac_depth > 0 || ac_g.finalized) return 1;
    if (__builtin_expect(!ac_g.initialized, 0) && ac_late_setup()) return 1;
    if (ac_g.set.disable || comm == MPI_COMM_NULL) return 1;
    ac_ctx_t *ctx = ac_ctx_peek_last(comm);
    if (__builtin_expect(!ctx, 0)) {
        int inter = 0;
        ctx = ac_ctx_peek(comm, &inter);
        if (inter) return 1;
    }
    ac_peeked = ctx;
    const ac_alg_t *nat = __atomic_load_n(&ac_sel.native_only[coll], __ATOMIC_ACQUIRE);
    if (nat && ctx && !(ac_trace_mask & AC_TRACE_COLL)) {
        ctx->last[coll].alg = nat;
        return 1;
    }
    return 0;
}

/* The lean traced path (docs/tracing.md, "Cost"): with collective tracing on, a call that the
 * untraced library would send straight to PMPI_<Coll> (a collective that runs the MPI library's
 * algorithm on every call, ac_sel.native_only, or an untimed call of a settled key on it, the
 * raw path below) is traced without the dispatcher: ac_lean_begin says 2 when the call takes it
 * (the context's tag slot advanced, its last choice noted, the engine's count, the what-ran
 * fields kept per thread), the caller reads the clock, runs PMPI_<Coll> and calls ac_lean_end,
 * which writes the same record the full path writes. 0: the full (traced) path. Not on a
 * communicator's first traced call, which agrees its trace key (a collective broadcast that the
 * full path makes before the call on every rank). dispatch.c. */
int ac_lean_begin(ac_ctx_t *ctx, int coll, int count, MPI_Datatype t, MPI_Op op, int root,
                  int inplace) __attribute__((noinline));
void ac_lean_end(int64_t t_in, int err, const void *site) __attribute__((noinline));

/* The raw path of a settled key (docs/bench.md, "Per-call cost"): ac_pass, then for a call it
 * lets in, 1 when the call is an untimed call of a settled key on the MPI library's algorithm,
 * recognised from its raw arguments (count and type of the selection size, operation, root or
 * 0, in-place flag); it is counted, and the caller runs PMPI_<Coll>. 0: build the argument
 * record and dispatch.
 * The kept choices of the context (select.h, ac_kept_find) are told apart by the selection
 * size, root, operation, in-place flag, commutativity and order. For the collectives whose
 * selection size is count x size(type) of one pair of arguments on every rank (bcast, reduce,
 * allreduce, allgather, alltoall, reduce_scatter_block; barrier: 0), and a key whose operation
 * is none or predefined (so commutative) and whose order is free (ac_kept_t.raw), these follow
 * from the raw arguments. The size of a type is asked of MPI unless it is the context's last
 * predefined type (a freed derived type's handle may come back as another type; predefined
 * ones are never freed); the operation is compared by handle (predefined ones again). A hit is
 * exactly the short path of dispatch.c's dispatch(): the tag slot advanced, the last choice
 * noted, the engine's count, and the caller runs PMPI_<Coll> with its own arguments, which the
 * MPI library checks. A miss (any other call, the first ones on a communicator, a timed call)
 * changes nothing and the call takes the full path, which for a kept key reaches the same
 * entry: hits need no agreement. Not with AUTOCOLL_VERBOSE, AUTOCOLL_CHECK or
 * AUTOCOLL_REPRODUCIBLE (ac_raw_ok); with collective tracing, 2 when the call takes the lean
 * traced path (above), else 0. */
/* The selection size of a raw call (count x size of t) and the context's kept choice on the MPI
 * library's algorithm that this raw call hits, NULL: none (ac_pass_raw, ac_lean_begin). */
static inline __attribute__((always_inline)) size_t ac_raw_bytes(ac_ctx_t *ctx, int count,
                                                                 MPI_Datatype t) {
    return !count               ? 0
           : t == ctx->raw_type ? (size_t)count * ctx->raw_tsize
                                : (size_t)count * ac_raw_type_size(ctx, t);
}
static inline __attribute__((always_inline)) ac_kept_t *
ac_raw_kept(ac_ctx_t *ctx, int coll, size_t bytes, MPI_Op op, int root, int inplace) {
    unsigned gen = __atomic_load_n(&ac_sel.gen, __ATOMIC_ACQUIRE);
    for (int i = 0; i < AC_KEPT_WAYS; i++) {
        ac_kept_t *k = &ctx->kept[coll][i];
        if (k->entry && k->native && k->raw && k->bytes == bytes && k->root == root &&
            k->op == op && k->inplace == inplace && k->gen == gen)
            return k;
    }
    return NULL;
}

static inline __attribute__((always_inline)) int
ac_pass_raw(MPI_Comm comm, int coll, int count, MPI_Datatype t, MPI_Op op, int root, int inplace) {
    if (ac_pass(comm, coll)) return 1;
    ac_ctx_t *ctx = ac_peeked;
    if (!ctx || count < 0) return 0;
    if (__builtin_expect(ac_trace_mask & AC_TRACE_COLL, 0))
        return ac_lean_begin(ctx, coll, count, t, op, root, inplace);
    if (!ac_raw_ok) return 0;
    ac_kept_t *k = ac_raw_kept(ctx, coll, ac_raw_bytes(ctx, count, t), op, root, inplace);
    if (!k || !ac_kept_skip(k)) return 0;
    if (++ctx->slot == ac_g.tag_slots) ctx->slot = 0;
    ctx->last[coll].alg = k->native;
    return 1;
}
/* The pass-through of a wrapper whose collective has a raw path: `call` (the PMPI_<Coll> call
 * with the caller's arguments) straight, or timed and recorded by the lean traced path; falls
 * through when the call needs the argument record and ac_dispatch. */
#define AC_PASS_RAW(call, site, comm, coll, count, t, op, root, inplace)                           \
    switch (ac_pass_raw(comm, coll, count, t, op, root, inplace)) {                                \
    case 0:                                                                                        \
        break;                                                                                     \
    case 1:                                                                                        \
        return call;                                                                               \
    default: {                                                                                     \
        int64_t t_in_ = ac_trace_now();                                                            \
        int err_ = call;                                                                           \
        ac_lean_end(t_in_, err_, site);                                                            \
        return err_;                                                                               \
    }                                                                                              \
    }

/* Set up core then select (collective over MPI_COMM_WORLD when collective is 1), and the
 * reverse at MPI_Finalize. */
void ac_setup(int collective);
void ac_teardown(void);
/* trace_mpi.c: tracing settings, clock offsets and the trace file (docs/tracing.md) */
void ac_trace_mpi_setup(int collective);
void ac_trace_mpi_teardown(void);
/* The trace key of a context: (world rank of its rank 0 + 1) << 32 | that rank's creation number
 * of the context, agreed by one broadcast at the first traced call on it (collective over the
 * communicator); a local key ((0 << 32) | own number) when the settings are not known to agree. */
long long ac_trace_comm_key(ac_ctx_t *ctx);
/* trace_p2p.c: frees the identifier maps of point-to-point tracing (at MPI_Finalize). */
void ac_trace_p2p_free(void);
/* Calibrates the wrapper overheads of spec 2.3 (point-to-point tracing on; at MPI_Init). */
void ac_trace_p2p_calibrate(void);

/* wrappers.c: the entry of each collective, with the call site (the caller's return address)
 * that AUTOCOLL_SITES keys on; MPI_<Coll>, autocoll_<coll> and the Fortran entry points call
 * them. */
int ac_call_allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                      MPI_Comm comm, void *site);
int ac_call_allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int *rcs,
                       const int *dis, MPI_Datatype rt, MPI_Comm comm, void *site);
int ac_call_alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                     MPI_Comm comm, void *site);
int ac_call_alltoallv(const void *sb, const int *scs, const int *sds, MPI_Datatype st, void *rb,
                      const int *rcs, const int *rds, MPI_Datatype rt, MPI_Comm comm, void *site);
int ac_call_bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm, void *site);
int ac_call_reduce(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, int root,
                   MPI_Comm comm, void *site);
int ac_call_allreduce(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                      void *site);
int ac_call_reduce_scatter(const void *sb, void *rb, const int *rcs, MPI_Datatype t, MPI_Op op,
                           MPI_Comm comm, void *site);
int ac_call_reduce_scatter_block(const void *sb, void *rb, int rc, MPI_Datatype t, MPI_Op op,
                                 MPI_Comm comm, void *site);
int ac_call_gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                   int root, MPI_Comm comm, void *site);
int ac_call_scatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                    int root, MPI_Comm comm, void *site);
int ac_call_barrier(MPI_Comm comm, void *site);
/* At MPI_Init: a library built for the other MPI family says so and stays dormant, or stops the
 * program when even that cannot work (before PMPI_Init). */
void ac_abi_guard(void);

/* stats.c (AUTOCOLL_VERBOSE >= 1) */
void ac_stats_add(int coll, int alg, double seconds);
/* One call whose forced instance could not run (counted by the communicator's rank 0). */
void ac_stats_fallback(int coll);
void ac_stats_report(void); /* collective over MPI_COMM_WORLD; at finalize */

#endif
