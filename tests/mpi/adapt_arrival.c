/*
 * The adaptive engine's arrival factors (docs/adaptive.md, "Arrival patterns of the choices";
 * issue 20, seed 000 §4.2, spec star-stage-ethernet.md §6.1): N allreduce calls of 8 B that the
 * engine chooses for, the last rank sleeping DELAY_US before each one (0: no delay), then a
 * barrier; before them, 60 allreduces of 32 B on a duplicate of MPI_COMM_WORLD that is freed. Usage: ac_adapt_arrival N DELAY_US. adapt_arrival.sh reads the engine's summary line
 * of the allreduce key (AUTOCOLL_VERBOSE=1, AUTOCOLL_TRACE=collectives).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <mpi.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, p, n = argc > 1 ? atoi(argv[1]) : 100, delay = argc > 2 ? atoi(argv[2]) : 0, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    struct timespec d = {delay / 1000000, (long)(delay % 1000000) * 1000};
    /* First 60 calls of 32 B on a duplicate freed before the others: its key's line is
     * written at MPI_Finalize, with the arrival pattern. */
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    for (int i = 0; i < 60; i++) {
        double x[4] = {me, me, me, i}, y[4];
        if (delay > 0 && me == p - 1) nanosleep(&d, NULL);
        MPI_Allreduce(x, y, 4, MPI_DOUBLE, MPI_SUM, c);
        bad |= y[0] != (double)p * (p - 1) / 2 || y[3] != (double)p * i;
    }
    MPI_Comm_free(&c);
    for (int i = 0; i < n; i++) {
        double x = me + i, y = 0;
        if (delay > 0 && me == p - 1) nanosleep(&d, NULL);
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        bad |= y != (double)p * (p - 1) / 2 + (double)p * i;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (bad) fprintf(stderr, "rank %d: wrong allreduce result\n", me);
    MPI_Finalize();
    return bad;
}
