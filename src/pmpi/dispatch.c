/*
 * The single path of every intercepted collective: context, argument checks, selection, run,
 * statistics. Everything the library sends goes through PMPI_* on the private communicator.
 *
 * Pass-through to PMPI_<Coll> (decided in ac_passthrough): before MPI_Init / after
 * MPI_Finalize, AUTOCOLL_DISABLE=1, MPI_COMM_NULL, intercommunicators, and calls made while the
 * library itself is running (an MPI library that implements a routine with another collective).
 * Arguments MPI would reject (negative counts, null datatypes or ops, a root out of range) go to
 * the MPI library too, so that its error reporting applies unchanged.
 */
#include <pthread.h>
#include <stdio.h>
#include "../core/ac.h"

#ifdef AC_SMPI
/* SMPI runs every rank as a user-level thread of one process and privatises global data per
 * rank, not thread-local data: the guard must be a plain global there. */
#define AC_TLS
#else
#define AC_TLS _Thread_local
#endif
static AC_TLS int depth;
static pthread_mutex_t setup_mtx = PTHREAD_MUTEX_INITIALIZER;

int ac_passthrough(MPI_Comm comm) {
    if (depth > 0 || ac_g.finalized) return 1;
    if (!ac_g.initialized) {
        int ini = 0, fin = 0;
        PMPI_Initialized(&ini);
        PMPI_Finalized(&fin);
        if (!ini || fin) return 1;
        /* MPI was initialised without our MPI_Init (e.g. from Fortran): local settings only. */
        pthread_mutex_lock(&setup_mtx);
        ac_state_setup(0);
        pthread_mutex_unlock(&setup_mtx);
    }
    if (ac_g.set.disable || comm == MPI_COMM_NULL) return 1;
    int inter = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return 1;
    return 0;
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
    ac_inst_t in;
    ac_inst_default(ac_alg_find(a->coll, "native"), &in);
    return in.alg->fn(a, &in, NULL);
}

static const char *source_name(ac_source_t s) {
    return s == AC_SRC_FORCED ? "forced" : s == AC_SRC_FALLBACK ? "fallback" : "default";
}

int ac_dispatch(ac_args_t *a) {
    ac_ctx_t *ctx = NULL;
    int err;
    depth++;
    err = ac_ctx_get(a->ucomm, &ctx);
    if (err != MPI_SUCCESS) {
        err = run_native(a);
        goto fn_exit;
    }
    a->comm = ctx->comm;
    a->rank = ctx->rank;
    a->size = ctx->size;
    ac_args_finish(a);
    if (args_invalid(a)) {
        err = run_native(a);
        goto fn_exit;
    }

    ac_inst_t in;
    ac_source_t src;
    err = ac_select(ctx, a, &in, &src);
    if (err != MPI_SUCCESS) {
        PMPI_Comm_call_errhandler(a->ucomm, err);
        goto fn_exit;
    }
    char name[128];
    ac_inst_format(&in, name, sizeof name);
    if (ac_g.set.verbose >= 1 && ctx->rank == 0) {
        char key[192];
        size_t cls = ac_size_class(a->bytes);
        snprintf(key, sizeof key, "dec %ld %d %zu %s", ctx->id, a->coll, a->bytes_local ? 0 : cls,
                 name);
        if (ac_g.set.verbose >= 2)
            ac_log("comm %ld (p=%d, nodes=%d) %s %zu B -> %s (%s)", ctx->id, ctx->size, ctx->nnodes,
                   ac_coll_name(a->coll), a->bytes, name, source_name(src));
        else if (a->bytes_local)
            ac_log_once(key, "comm %ld (p=%d, nodes=%d) %s (sizes differ per rank) -> %s (%s)",
                        ctx->id, ctx->size, ctx->nnodes, ac_coll_name(a->coll), name,
                        source_name(src));
        else
            ac_log_once(key, "comm %ld (p=%d, nodes=%d) %s [%zu, %zu) B -> %s (%s)", ctx->id,
                        ctx->size, ctx->nnodes, ac_coll_name(a->coll), cls, cls ? 2 * cls : 1, name,
                        source_name(src));
    }
    double t0 = PMPI_Wtime();
    err = in.alg->fn(a, &in, ctx);
    ac_stats_add(a->coll, in.alg->index, PMPI_Wtime() - t0);
    snprintf(ctx->last[a->coll], sizeof ctx->last[a->coll], "%s", name);
    /* The native path has already applied the user's error handler. */
    if (err != MPI_SUCCESS && !(in.alg->flags & AUTOCOLL_R_NATIVE))
        PMPI_Comm_call_errhandler(a->ucomm, err);
fn_exit:
    depth--;
    return err;
}

AC_EXPORT int autocoll_last_choice(MPI_Comm comm, int coll, char *buf, int len) {
    if (!buf || len <= 0 || coll < 0 || coll >= AUTOCOLL_NCOLL) return MPI_ERR_ARG;
    buf[0] = '\0';
    if (comm == MPI_COMM_NULL || !ac_g.initialized || ac_g.finalized) return MPI_SUCCESS;
    int flag = 0;
    void *val = NULL;
    if (PMPI_Comm_get_attr(comm, ac_ctx_keyval(), &val, &flag) == MPI_SUCCESS && flag)
        snprintf(buf, (size_t)len, "%s", ((ac_ctx_t *)val)->last[coll]);
    return MPI_SUCCESS;
}
