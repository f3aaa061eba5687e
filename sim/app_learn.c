/*
 * An application-shaped run for the learning study (sim/run --study learning,
 * docs/reports/learning.md): several collectives and sizes interleaved on one communicator,
 * R rounds of one call of every point, every call timed, learning included. Not an algorithm:
 * a driver whose cost is R x the sum of the points' calls.
 *
 *   app_learn [--rounds R] [--force NAME] [--sequential] POINT...
 *       POINT: collective:bytes (allreduce, allgather, alltoall, bcast, reduce; bcast and reduce
 *       rooted at 0). --force NAME forces instance NAME (e.g. native: the MPI library's own
 *       algorithm) for every collective; without it the library selects (adaptive by default).
 *       --sequential: the R calls of a point, then the next point (a size sweep, as
 *       scripts/demo part 2), instead of R rounds over the points. --comms N: the whole
 *       pattern N times, each on a fresh duplicate of MPI_COMM_WORLD (communicators of the same
 *       shape, as a library that creates its own).
 *
 * Prints one line per point, "POINT coll bytes total_s" (the slowest rank's total over the R
 * calls of the point), and "APP total_s" (the slowest rank's total over every call). Every call's
 * result is checked; a wrong result makes the run fail.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"
#include "checked_call.h"

enum { MAXPT = 32 };

static int p, me, bad;
static MPI_Comm comm;

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int rounds = 20, npt = 0, coll[MAXPT], count[MAXPT], maxcount = 1;
    const char *force = NULL;
    int seq = 0, ncomm = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
            rounds = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--comms") && i + 1 < argc) {
            ncomm = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--sequential")) {
            seq = 1;
        } else if (!strcmp(argv[i], "--force") && i + 1 < argc) {
            force = argv[++i];
        } else if (npt < MAXPT) {
            char name[32];
            long bytes = 0;
            const char *colon = strchr(argv[i], ':');
            size_t len = colon ? (size_t)(colon - argv[i]) : 0;
            if (colon && len < sizeof name) {
                memcpy(name, argv[i], len);
                name[len] = '\0';
                bytes = atol(colon + 1);
            }
            coll[npt] = colon && len < sizeof name ? autocoll_coll_from_name(name) : -1;
            if (coll[npt] < 0 || bytes < 4) {
                if (me == 0) fprintf(stderr, "app_learn: bad point '%s'\n", argv[i]);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            count[npt] = (int)(bytes / 4);
            if (count[npt] > maxcount) maxcount = count[npt];
            npt++;
        }
    }
    if (npt == 0 || rounds < 1 || ncomm < 1) {
        if (me == 0) fprintf(stderr, "app_learn: usage: app_learn [--rounds R] POINT...\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (force)
        for (int i = 0; i < npt; i++)
            autocoll_force(coll[i], force);
    int *sbuf = malloc((size_t)maxcount * (size_t)p * sizeof(int));
    int *rbuf = malloc((size_t)maxcount * (size_t)p * sizeof(int));
    double t[MAXPT] = {0}, all = 0;
    for (int k = 0; k < rounds * npt * ncomm; k++) {
        if (k % (rounds * npt) == 0) {
            if (k) MPI_Comm_free(&comm);
            MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        }
        int kk = k % (rounds * npt);
        int r = seq ? kk % rounds : kk / npt, i = seq ? kk / rounds : kk % npt;
        {
            double t0 = MPI_Wtime();
            if (!ac_sim_checked_call(coll[i], count[i], sbuf, rbuf, r, me, p, comm) && bad++ == 0)
                fprintf(stderr, "rank %d: wrong result, point %d round %d\n", me, i, r);
            double d = MPI_Wtime() - t0;
            t[i] += d;
            all += d;
        }
    }
    MPI_Comm_free(&comm);
    double tmax[MAXPT + 1];
    t[npt] = all;
    PMPI_Allreduce(t, tmax, npt + 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int badall = 0;
    PMPI_Allreduce(&bad, &badall, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        for (int i = 0; i < npt; i++)
            printf("POINT %s %d %.9f\n", autocoll_coll_name(coll[i]), 4 * count[i], tmax[i]);
        printf("APP %.9f bad %d\n", tmax[npt], badall);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return badall ? 1 : 0;
}
