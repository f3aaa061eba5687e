/*
 * Makes the known collective calls of trace_calls.h (run with AUTOCOLL_TRACE=collectives,
 * AUTOCOLL_BCAST=binomial; with --off, tracing must be off): the trace files are then checked by trace_check.c and
 * autocoll-report (trace.sh). Before MPI_Finalize it also checks the arrival patterns returned
 * by autocoll_arrival_patterns: in the alltoall group the last rank, which sleeps TC_LATE_MS
 * before each call, is the latest arriver of every call and the worst-case imbalance is at least
 * that sleep. Exit status 0 when the program ran and its checks passed.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "trace_calls.h"

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, p, fails = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    double d[16] = {0}, e[16];
    int buf[100] = {0}, g[64];
    for (int i = 0; i < tc_world[0].calls; i++)
        MPI_Allreduce(d, e, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < tc_world[1].calls; i++)
        MPI_Bcast(buf, 100, MPI_INT, 1, MPI_COMM_WORLD);
    for (int i = 0; i < tc_world[2].calls; i++)
        MPI_Reduce(d, e, 16, MPI_DOUBLE, MPI_SUM, 2, MPI_COMM_WORLD);
    for (int i = 0; i < tc_world[3].calls; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < tc_world[4].calls; i++)
        MPI_Allgather(&me, 1, MPI_INT, g, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < tc_world[5].calls; i++) {
        int s[64] = {0};
        if (me == p - 1) sleep_ms(TC_LATE_MS);
        MPI_Alltoall(s, 2, MPI_INT, g, 2, MPI_INT, MPI_COMM_WORLD);
    }
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &sub);
    if (me % 2 == 0)
        for (int i = 0; i < TC_SUB_ALLREDUCE; i++)
            MPI_Allreduce(d, e, 2, MPI_DOUBLE, MPI_SUM, sub);
    MPI_Comm_free(&sub);

    autocoll_arrival_t a[64];
    int n = 0, rc = autocoll_arrival_patterns(a, 64, &n), seen = 0;
    if (argc > 1 && !strcmp(argv[1], "--off")) { /* tracing must be off */
        if (rc != MPI_ERR_OTHER || n != 0) {
            fprintf(stderr,
                    "rank %d: autocoll_arrival_patterns gave %d (%d groups) with tracing off\n", me,
                    rc, n);
            fails++;
        }
        MPI_Finalize();
        return fails ? 1 : 0;
    }
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: autocoll_arrival_patterns failed (%d)\n", me, rc);
        fails++;
    }
    for (int i = 0; i < n && i < 64; i++) {
        if (a[i].coll != AUTOCOLL_ALLTOALL) continue;
        seen++;
        if (a[i].calls != (unsigned long long)tc_world[5].calls || a[i].comm_size != p ||
            a[i].latest_rank != p - 1 || a[i].latest_calls != a[i].calls ||
            a[i].worst_imbalance < TC_LATE_MS * 0.9e-3 || a[i].balanced != 0) {
            fprintf(stderr,
                    "rank %d: alltoall arrival pattern: calls %llu p %d latest %d (%llu calls) "
                    "worst %.6f s balanced %llu; expected %d calls, latest %d every time, worst "
                    ">= %.3f s, none balanced\n",
                    me, a[i].calls, a[i].comm_size, a[i].latest_rank, a[i].latest_calls,
                    a[i].worst_imbalance, a[i].balanced, tc_world[5].calls, p - 1,
                    TC_LATE_MS * 0.9e-3);
            fails++;
        }
    }
    if (rc == MPI_SUCCESS && seen != 1) {
        fprintf(stderr, "rank %d: %d alltoall groups in the arrival patterns, expected 1\n", me,
                seen);
        fails++;
    }
    MPI_Finalize();
    return fails ? 1 : 0;
}
