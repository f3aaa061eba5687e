/*
 * The single path of every intercepted collective: context, argument checks, selection, run,
 * statistics. Everything the library sends goes through PMPI_* on the private communicator.
 *
 * Pass-through to PMPI_<Coll> (decided in ac_pass, pmpi.h): before MPI_Init / after
 * MPI_Finalize, AUTOCOLL_DISABLE=1, MPI_COMM_NULL, intercommunicators, calls made while the
 * library itself is running (an MPI library that implements a routine with another collective),
 * and collectives that run the MPI library's algorithm on every call with nothing to record
 * (forced to native or mode native, quiet: ac_sel.native_only).
 * Arguments MPI would reject (negative counts, null datatypes or ops, a root out of range) go to
 * the MPI library too, so that its error reporting applies unchanged.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "pmpi.h"

AC_TLS int ac_depth; /* pmpi.h */
AC_TLS ac_ctx_t *ac_peeked;
static pthread_mutex_t setup_mtx = PTHREAD_MUTEX_INITIALIZER;
int ac_raw_ok; /* pmpi.h */

void ac_setup(int collective) {
    if (ac_g.initialized) return;
    ac_state_setup(collective);
    ac_select_setup(collective);
    ac_trace_mpi_setup(collective);
    ac_raw_ok = !ac_g.set.verbose && !ac_g.set.check && !ac_g.set.reproducible;
    ac_g.initialized = 1; /* last: ac_pass lets calls in from here on */
}

void ac_teardown(void) {
    if (!ac_g.initialized || ac_g.finalized) return;
    if (ac_g.set.verbose >= 1) ac_stats_report();
    ac_trace_mpi_teardown(); /* before the contexts go: its clock ping-pongs use one */
    ac_state_teardown();     /* contexts (the engine keeps what they learned), finalized */
    ac_select_teardown();    /* the engine's summary and learned table */
}

/* MPI was initialised without our MPI_Init (e.g. from Fortran): local settings only. 1 when MPI
 * is not (or no longer) initialised. */
int ac_late_setup(void) {
    int ini = 0, fin = 0;
    PMPI_Initialized(&ini);
    PMPI_Finalized(&fin);
    if (!ini || fin) return 1;
    pthread_mutex_lock(&setup_mtx);
    if (!ac_g.initialized) {
        PMPI_Query_thread(&ac_g.thread_level);
        ac_setup(0);
    }
    pthread_mutex_unlock(&setup_mtx);
    return 0;
}

size_t ac_raw_type_size(ac_ctx_t *ctx, MPI_Datatype t) {
    size_t size = ac_dt_size(t);
    int ni = 0, na = 0, nt = 0, combiner = MPI_UNDEFINED;
    if (t != MPI_DATATYPE_NULL &&
        PMPI_Type_get_envelope(t, &ni, &na, &nt, &combiner) == MPI_SUCCESS &&
        combiner == MPI_COMBINER_NAMED) {
        ctx->raw_type = t;
        ctx->raw_tsize = size;
    }
    return size;
}

static int bad_type(MPI_Datatype t) {
    return t == MPI_DATATYPE_NULL;
}

static int counts_bad(const int *c, int n) {
    if (!c) return 1;
    for (int i = 0; i < n; i++)
        if (c[i] < 0) return 1;
    return 0;
}

/* 1 when MPI would reject the arguments on this rank. */
static int args_invalid(const ac_args_t *a) {
    int me = a->rank, p = a->size, root_side = (me == a->root);
    switch (a->coll) {
    case AUTOCOLL_ALLGATHER:
    case AUTOCOLL_ALLTOALL:
        return a->rcount < 0 || bad_type(a->rtype) ||
               (!a->inplace && (a->scount < 0 || bad_type(a->stype)));
    case AUTOCOLL_ALLGATHERV:
        return counts_bad(a->rcounts, p) || !a->rdispls || bad_type(a->rtype) ||
               (!a->inplace && (a->scount < 0 || bad_type(a->stype)));
    case AUTOCOLL_ALLTOALLV:
        return counts_bad(a->rcounts, p) || !a->rdispls || bad_type(a->rtype) ||
               (!a->inplace && (counts_bad(a->scounts, p) || !a->sdispls || bad_type(a->stype)));
    case AUTOCOLL_BCAST:
        return a->rcount < 0 || bad_type(a->rtype) || a->root < 0 || a->root >= p;
    case AUTOCOLL_REDUCE:
        if (a->root < 0 || a->root >= p) return 1;
        /* fall through */
    case AUTOCOLL_ALLREDUCE:
    case AUTOCOLL_REDUCE_SCATTER_BLOCK:
        return a->rcount < 0 || bad_type(a->rtype) || a->op == MPI_OP_NULL;
    case AUTOCOLL_REDUCE_SCATTER:
        return counts_bad(a->rcounts, p) || bad_type(a->rtype) || a->op == MPI_OP_NULL;
    case AUTOCOLL_GATHER:
        if (a->root < 0 || a->root >= p) return 1;
        if (root_side && (a->rcount < 0 || bad_type(a->rtype))) return 1;
        return !(root_side && a->inplace) && (a->scount < 0 || bad_type(a->stype));
    case AUTOCOLL_SCATTER:
        if (a->root < 0 || a->root >= p) return 1;
        if (root_side && (a->scount < 0 || bad_type(a->stype))) return 1;
        return !(root_side && a->inplace) && (a->rcount < 0 || bad_type(a->rtype));
    default:
        return 0;
    }
}

static int run_native(ac_args_t *a) {
    ac_choice_t ch;
    ac_select_native(a->coll, &ch);
    return ch.inst.alg->fn(a, &ch.inst, NULL);
}

/* Run instance in. A library algorithm sees the call in rank-invariant units (core/sig.c); the
 * MPI library's collective gets the caller's own description. A node-aware instance first gets
 * its node and leader communicators (made once per context, agreed); when they cannot be made
 * the MPI library runs the call. */
static int run(ac_args_t *a, ac_choice_t *ch, ac_ctx_t *ctx) {
    const ac_inst_t *in = &ch->inst;
    if (ch->node_aware && ctx->nodes != 1 && ac_ctx_nodes(ctx) != MPI_SUCCESS) {
        if (ctx->rank == 0)
            ac_log_once("nodes-fail", "cannot create node communicators (the MPI library has no "
                                      "communicator left?): the MPI library's collectives run "
                                      "instead of node-aware algorithms on such communicators");
        ac_select_native(a->coll, ch);
    }
    if ((in->alg->flags & AUTOCOLL_R_NATIVE) || !ac_sig_applies(a->coll))
        return in->alg->fn(a, in, ctx);
    ac_args_t b = *a;
    ac_sig_t sig;
    int native = 0, err = ac_sig_begin(&b, &sig, &native);
    if (native) {
        if (ac_g.set.verbose >= 1 && ctx->rank == 0)
            ac_log_once("sig-native",
                        "%s of %zu B per block: no common unit of at most INT_MAX "
                        "elements; the MPI library's collective runs such calls",
                        ac_coll_name(a->coll), a->bytes);
        ac_select_native(a->coll, ch);
        return in->alg->fn(a, in, ctx);
    }
    if (err != MPI_SUCCESS) return err;
    err = in->alg->fn(&b, in, ctx);
    return ac_sig_end(&sig, err);
}

/* AUTOCOLL_CHECK: every rank must run the same instance for the same call, or the job would
 * hang; one allreduce per call proves it and stops the job with the call's description if not. */
/* The user's error handler of comm, for an error of the library's own algorithms. SimGrid 3.32's
 * MPI_Comm_call_errhandler jumps to a null function when the handler is MPI_ERRORS_RETURN (a
 * predefined handler without a body there), so under SMPI that handler, which does nothing, is
 * not called. */
static void raise_error(MPI_Comm comm, int err) {
#ifdef AC_SMPI
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    PMPI_Comm_get_errhandler(comm, &eh);
    int quiet = eh == MPI_ERRORS_RETURN;
    if (eh != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&eh);
    if (quiet) return;
#endif
    PMPI_Comm_call_errhandler(comm, err);
}

static void check_agreement(const ac_ctx_t *ctx, const ac_args_t *a, const char *name) {
    unsigned long long h = 1469598103934665603ULL;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    long long v[2];
    v[0] = (long long)(h >> 2);
    v[1] = -v[0];
    PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_LONG_LONG, MPI_MAX, ctx->comm);
    if (v[0] != -v[1]) {
        ac_log("AUTOCOLL_CHECK: ranks disagree on comm %ld, %s of %zu B: this rank runs %s",
               ctx->id, ac_coll_name(a->coll), a->bytes, name);
        PMPI_Abort(ctx->comm, 70);
    }
}

/* AUTOCOLL_TEST_FAULT: corrupt one result byte so that validators can be shown to work. */
static void inject_fault(const ac_args_t *a) {
    int c = a->coll,
        target = (c == AUTOCOLL_REDUCE || c == AUTOCOLL_GATHER) ? a->root : a->size - 1;
    if (c == AUTOCOLL_SCATTER && target == a->root) target = 0;
    if (a->rank != target || a->bytes == 0 || c == AUTOCOLL_BARRIER) return;
    void *buf = a->rbuf;
    MPI_Datatype t = a->rtype;
    if (c == AUTOCOLL_SCATTER && a->rbuf == MPI_IN_PLACE) return;
    if (!buf || buf == MPI_IN_PLACE || t == MPI_DATATYPE_NULL) return;
    MPI_Aint lb, ext;
    PMPI_Type_get_true_extent(t, &lb, &ext);
    if (ext > 0) ((unsigned char *)buf)[lb] ^= 0x5a;
}

/* Logs of a decision (AUTOCOLL_VERBOSE); the engine logs its own, and probes are not decisions. */
static void log_decision(const ac_ctx_t *ctx, const ac_args_t *a, const char *name,
                         ac_source_t src) {
    char key[192];
    size_t cls = ac_size_class(a->bytes);
    snprintf(key, sizeof key, "dec %ld %d %zu %s", ctx->id, a->coll, a->bytes_local ? 0 : cls,
             name);
    if (ac_g.set.verbose >= 2)
        ac_log("comm %ld (p=%d, nodes=%d) %s %zu B -> %s (%s)", ctx->id, ctx->size, ctx->nnodes,
               ac_coll_name(a->coll), a->bytes, name, ac_source_name(src));
    else if (a->bytes_local)
        ac_log_once(key, "comm %ld (p=%d, nodes=%d) %s (sizes differ per rank) -> %s (%s)", ctx->id,
                    ctx->size, ctx->nnodes, ac_coll_name(a->coll), name, ac_source_name(src));
    else
        ac_log_once(key, "comm %ld (p=%d, nodes=%d) %s [%zu, %zu) B -> %s (%s)", ctx->id, ctx->size,
                    ctx->nnodes, ac_coll_name(a->coll), cls, cls ? 2 * cls : 1, name,
                    ac_source_name(src));
}

/* The communicator of a traced call: a key the same on every member (comm and peer of the
 * record, docs/tracing.md), the call number on it, this rank and the size. */
static void __attribute__((noinline)) trace_comm(ac_trace_rec_t *tr, ac_ctx_t *ctx) {
    long long key = ac_trace_comm_key(ctx);
    tr->comm = (uint32_t)(key & 0xffffffffLL);
    tr->peer = (int32_t)(key >> 32) - 1;
    tr->seq = ++ctx->calls;
    tr->ident = ctx->rank;
    tr->count = ctx->size;
}

/* What ran, for the trace record (tr is NULL when the call is not traced). */
static void trace_note(ac_trace_rec_t *tr, const ac_args_t *a, const ac_inst_t *in, int src) {
    tr->alg = (int16_t)in->alg->index;
    tr->src = (uint8_t)src;
    if (in->alg->nparam)
        ac_trace_ids(in, NULL, &tr->inst, NULL);
    else
        tr->inst = ac_trace_alg_id(in->alg);
    tr->site = ac_trace_site_id(a->site);
}

/* The per-call path. In steady state (no verbose, no check) it formats nothing, takes no clock
 * unless the adaptive engine or the statistics need the time, and looks the context up once.
 * tr: the trace record to complete, NULL when the call is not traced (a constant in each of the
 * two calls below, so the compiler can drop the tests from the untraced copy). */
static inline __attribute__((always_inline)) int dispatch(ac_args_t *a, ac_trace_rec_t *tr) {
    int err;
    ac_ctx_t *ctx = ac_peeked; /* ac_pass's */
    ac_depth++;
    if (!ctx) {
        err = ac_ctx_get(a->ucomm, &ctx);
        if (err != MPI_SUCCESS) {
            /* No context (no communicator left, ...): agreed on every rank, said once. */
            int r = 0;
            PMPI_Comm_rank(a->ucomm, &r);
            if (r == 0)
                ac_log_once("ctx-fail",
                            "cannot create the private communicator of a communicator "
                            "(MPI error %d): its collectives go to the MPI library",
                            err);
            err = run_native(a);
            goto fn_exit;
        }
    }
    a->comm = ctx->comm;
    a->rank = ctx->rank;
    a->size = ctx->size;
    a->tag_base = AC_TAG_BASE + ctx->slot * AC_TAG_STRIDE; /* call sequence mod tag_slots */
    if (++ctx->slot == ac_g.tag_slots) ctx->slot = 0;
    if (tr) trace_comm(tr, ctx);
    ac_args_finish(a);
    /* An untimed call of a settled key on the MPI library's algorithm (select.h): that
     * algorithm with the caller's arguments, which it checks itself; nothing to check, log (the
     * engine's settled choices are logged from verbosity 2), time or record but the statistics
     * of AUTOCOLL_VERBOSE. */
    int verbose = ac_g.set.verbose;
    if (!tr && verbose < 2 && !ac_g.set.check) {
        const ac_alg_t *nat = ac_select_kept_native(ctx, a);
        if (nat) {
            double t0 = verbose >= 1 ? PMPI_Wtime() : 0;
            ctx->last[a->coll].alg = nat;
            err = nat->fn(a, &ctx->last[a->coll], ctx);
            if (verbose >= 1) ac_stats_add(a->coll, nat->index, PMPI_Wtime() - t0);
            goto fn_exit;
        }
    }
    if (args_invalid(a)) {
        err = run_native(a);
        goto fn_exit;
    }

    ac_choice_t ch;
    err = ac_select(ctx, a, &ch);
    if (ch.forced_unusable && ctx->rank == 0) ac_stats_fallback(a->coll); /* once per call */
    if (err != MPI_SUCCESS) {
        raise_error(a->ucomm, err);
        goto fn_exit;
    }
    if (ch.src == AC_SRC_TRIVIAL) { /* nothing to log, time or check */
        if (tr) trace_note(tr, a, &ch.inst, ch.src);
        err = ch.inst.alg->fn(a, &ch.inst, NULL);
        ac_inst_copy(&ctx->last[a->coll], &ch.inst);
        goto fn_exit;
    }
    if (ac_g.set.check || (verbose >= 1 && ctx->rank == 0)) {
        char name[128];
        ac_inst_format(&ch.inst, name, sizeof name);
        if (ac_g.set.check) check_agreement(ctx, a, name);
        int quiet = ch.src == AC_SRC_PROBE || (ch.src == AC_SRC_ADAPTIVE && verbose < 2);
        if (verbose >= 1 && ctx->rank == 0 && !quiet) log_decision(ctx, a, name, ch.src);
    }
    /* The engine's choice carries the clock it read last: the call starts there, unless lines were
     * logged or the agreement checked since. The call's end is the start of the engine's record.
     * A settled key times a sample of its calls only (ac_star_timed); the others read no clock. */
    int timed = ch.tk.timed || verbose >= 1;
    double t0 = ch.tk.timed && verbose < 1 && !ac_g.set.check ? ch.tk.t_made
                : timed                                       ? PMPI_Wtime()
                                                              : 0;
    err = run(a, &ch, ctx);
    ch.tk.t_done = timed ? PMPI_Wtime() : 0;
    double dt = ch.tk.t_done - t0;
    const ac_inst_t *in = &ch.inst; /* what ran (the MPI library's if run() fell back) */
    if (tr) trace_note(tr, a, in, ch.src);
    if (verbose >= 1) ac_stats_add(a->coll, in->alg->index, dt); /* reported only then */
    if (err == MPI_SUCCESS && ac_g.set.fault == a->coll && !(in->alg->flags & AUTOCOLL_R_NATIVE))
        inject_fault(a);
    ac_select_done(ctx, a, &ch, dt);
    ac_inst_copy(&ctx->last[a->coll], in);
    /* The native path has already applied the user's error handler. */
    if (err != MPI_SUCCESS && !(in->alg->flags & AUTOCOLL_R_NATIVE)) raise_error(a->ucomm, err);
fn_exit:
    ac_depth--;
    return err;
}

/* A traced call: entry and exit times around the whole path (arrival time as the application
 * sees it, spec star-stage-ethernet.md 6.1), then one record. */
static int __attribute__((noinline)) dispatch_traced(ac_args_t *a) {
    ac_trace_rec_t r;
    ac_trace_rec_clear(&r, a->coll);
    r.comm = AC_TRACE_NOID; /* stays so when the call has no context */
    r.t_in = ac_trace_now();
    int err = dispatch(a, &r);
    r.t_out = ac_trace_now();
    r.bytes = a->bytes;
    if (ac_coll_rooted(a->coll)) r.root = a->root;
    if (a->inplace) r.flags |= AC_TF_INPLACE;
    if (err != MPI_SUCCESS) r.flags |= AC_TF_ERROR;
    if (r.site == AC_TRACE_NOID) r.site = ac_trace_site_id(a->site); /* paths above */
    ac_trace_record(&r);
    return err;
}

/* ---------------------------------------------------------------- lean traced path (pmpi.h) */

/* What ac_lean_begin found, for ac_lean_end on the same thread. */
static AC_TLS struct {
    ac_ctx_t *ctx;
    const ac_alg_t *alg;
    size_t bytes;
    int coll, root, inplace, src;
} lean;

int ac_lean_begin(ac_ctx_t *ctx, int coll, int count, MPI_Datatype t, MPI_Op op, int root,
                  int inplace) {
    if (!ctx->trace_key) return 0; /* its first traced call: the full path agrees the key */
    size_t bytes = ac_raw_bytes(ctx, count, t);
    const ac_alg_t *nat = __atomic_load_n(&ac_sel.native_only[coll], __ATOMIC_ACQUIRE);
    int src;
    if (nat) { /* as ac_select would say */
        src = ac_sel.have_forced[coll]                                     ? AC_SRC_FORCED
              : ctx->size == 1 || (bytes == 0 && coll != AUTOCOLL_BARRIER) ? AC_SRC_TRIVIAL
                                                                           : AC_SRC_NATIVE_DEFAULT;
    } else {
        if (!ac_raw_ok) return 0;
        ac_kept_t *hit = ac_raw_kept(ctx, coll, bytes, op, root, inplace);
        if (!hit || !ac_kept_skip(hit)) return 0;
        nat = hit->native;
        src = AC_SRC_ADAPTIVE;
    }
    if (++ctx->slot == ac_g.tag_slots) ctx->slot = 0; /* as dispatch() */
    ctx->last[coll].alg = nat;
    lean.ctx = ctx;
    lean.alg = nat;
    lean.bytes = bytes;
    lean.coll = coll;
    lean.root = root;
    lean.inplace = inplace;
    lean.src = src;
    return 2;
}

void ac_lean_end(int64_t t_in, int err, const void *site) {
    int64_t t_out = ac_trace_now();
    ac_ctx_t *ctx = lean.ctx;
    long long key = ctx->trace_key;
    ac_trace_rec_t r = {
        .t_in = t_in,
        .t_out = t_out,
        .bytes = lean.bytes,
        .seq = ++ctx->calls,
        .comm = (uint32_t)(key & 0xffffffffLL),
        .site = ac_trace_site_id(site),
        .inst = ac_trace_alg_id(lean.alg),
        .root =
            lean.coll == AUTOCOLL_BCAST || lean.coll == AUTOCOLL_REDUCE ? lean.root : AC_TRACE_NONE,
        .peer = (int32_t)(key >> 32) - 1,
        .tag = AC_TRACE_NONE,
        .ident = ctx->rank,
        .count = ctx->size,
        .kind = (uint16_t)lean.coll,
        .alg = (int16_t)lean.alg->index,
        .src = (uint8_t)lean.src,
        .flags =
            (uint8_t)((lean.inplace ? AC_TF_INPLACE : 0) | (err != MPI_SUCCESS ? AC_TF_ERROR : 0)),
        .status_source = AC_TRACE_NONE,
        .status_tag = AC_TRACE_NONE,
    };
    ac_trace_record(&r);
}

int ac_dispatch(ac_args_t *a) {
    if (__builtin_expect(ac_trace_mask & AC_TRACE_COLL, 0)) return dispatch_traced(a);
    return dispatch(a, NULL);
}

AC_EXPORT int autocoll_last_choice(MPI_Comm comm, int coll, char *buf, int len) {
    if (!buf || len <= 0 || coll < 0 || coll >= AUTOCOLL_NCOLL) return MPI_ERR_ARG;
    buf[0] = '\0';
    ac_ctx_t *ctx = ac_ctx_lookup(comm);
    if (ctx && ctx->last[coll].alg) ac_inst_format(&ctx->last[coll], buf, (size_t)len);
    return MPI_SUCCESS;
}
