/*
 * The MPI side of tracing: settings at MPI_Init, clock offsets to rank 0 (estimated at init and
 * at finalize by minimum round-trip ping-pongs, src/trace/trace_clock.c), and the trace file at
 * MPI_Finalize. Source: issue 20, spec star-stage-ethernet.md §6.2.
 *
 * Clock offsets: rank 0 answers every other rank in turn, AC_TRACE_PINGS ping-pongs each, on the
 * private duplicate of MPI_COMM_WORLD with a tag below the call tag ranges (AC_TAG_BASE), so no
 * application or collective message can match. Cost: (p - 1) x AC_TRACE_PINGS round trips at
 * init and at finalize, only when tracing is on. Skipped with a global clock
 * (MPI_WTIME_IS_GLOBAL, SimGrid) and when the settings are not known to agree (MPI initialised
 * without our MPI_Init: only local settings, a collective step could hang).
 */
#include <stdlib.h>
#include "pmpi.h"
#include "../trace/trace.h"

enum { AC_TRACE_PINGS = 20, AC_TRACE_CLOCK_TAG = AC_TAG_BASE - 7 };

typedef struct {
    MPI_Comm comm;
} pp_t;

static int pingpong(void *arg, double *t0, double *tr, double *t1) {
    pp_t *p = arg;
    char c = 0;
    *t0 = PMPI_Wtime();
    if (PMPI_Send(&c, 1, MPI_CHAR, 0, AC_TRACE_CLOCK_TAG, p->comm) != MPI_SUCCESS) return 1;
    if (PMPI_Recv(tr, 1, MPI_DOUBLE, 0, AC_TRACE_CLOCK_TAG, p->comm, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS)
        return 1;
    *t1 = PMPI_Wtime();
    return 0;
}

static int global_clock(void) {
#ifdef AC_SMPI
    return 1;
#else
    int *v = NULL, flag = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag);
    return flag && v && *v;
#endif
}

/* Estimate number which (0 init, 1 finalize); collective over MPI_COMM_WORLD. */
static void sync_clocks(int which) {
    if (global_clock()) {
        ac_trace_set_global_clock();
        return;
    }
    ac_ctx_t *ctx = NULL;
    if (ac_ctx_get(MPI_COMM_WORLD, &ctx) != MPI_SUCCESS) return; /* agreed: no context anywhere */
    pp_t pp = {ctx->comm};
    if (ctx->rank == 0) {
        ac_trace_set_clock(which, PMPI_Wtime(), 0, 0);
        for (int r = 1; r < ctx->size; r++)
            for (int k = 0; k < AC_TRACE_PINGS; k++) {
                char c;
                PMPI_Recv(&c, 1, MPI_CHAR, r, AC_TRACE_CLOCK_TAG, ctx->comm, MPI_STATUS_IGNORE);
                double now = PMPI_Wtime();
                PMPI_Send(&now, 1, MPI_DOUBLE, r, AC_TRACE_CLOCK_TAG, ctx->comm);
            }
    } else {
        double at = PMPI_Wtime(), off = 0, res = -1;
        ac_trace_clock_offset(pingpong, &pp, AC_TRACE_PINGS, &off, &res);
        ac_trace_set_clock(which, at, off, res);
    }
}

static int configured; /* tracing asked for, with settings agreed on every rank */

void ac_trace_mpi_setup(int collective) {
    ac_trace_cfg_t c;
    char err[1024];
    int me = ac_g.world_rank, p = 1;
    PMPI_Comm_size(MPI_COMM_WORLD, &p);
    /* The settings are rank 0's everywhere (collective): rank 0 speaks for all. */
    if (ac_trace_cfg_parse(&c, ac_g.set.trace, ac_g.set.trace_records, ac_g.set.trace_dir, err,
                           sizeof err) &&
        (me == 0 || !collective))
        ac_trace_log_lines(err);
    int failed = ac_trace_init_cfg(&c, me, p, err, sizeof err) != 0;
    if (failed && (me == 0 || !collective)) ac_trace_log_lines(err);
    if (!collective || !c.mask) return;
    /* An allocation or directory failure on some rank must not make the others wait in the
     * clock ping-pongs: agree first. */
    configured = 1;
    int on = !failed, all = 0;
    PMPI_Allreduce(&on, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all)
        sync_clocks(0);
    else if (me == 0 && !failed)
        ac_log("tracing is off on some ranks (AUTOCOLL_TRACE_DIR not writable there, or out of "
               "memory); their trace files will be missing and clocks are not synchronised");
}

void ac_trace_mpi_teardown(void) {
    if (configured) { /* every rank is here: agree that every rank can take part */
        int on = ac_trace_g.rec != NULL, all = 0;
        PMPI_Allreduce(&on, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (all) sync_clocks(1);
        configured = 0;
    }
    ac_trace_finalize(); /* writes the file; nothing when tracing is off */
}
