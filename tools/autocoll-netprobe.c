/*
 * autocoll-netprobe: the communication benchmark of seed 002 (Gupta & Vadhiyar, §2.5; spec
 * adaptive-bcast-grid.md sections 3 and 4) as a program of its own. Started on one or two
 * nodes of every cluster of a grid, it measures the latency and bandwidth between the
 * clusters' representatives (and inside each cluster that has two processes), every PERIOD
 * seconds, and keeps the newest complete matrices in a network file. An application whose
 * AUTOCOLL_GRID_NET names that file then runs grid_adaptive and grid_greedy on them without
 * measuring inside its broadcasts (docs/grid-bcast.md, "Measurement outside the broadcast").
 *
 *   mpirun -np 16 --host ... autocoll-netprobe --clusters map:0.0,0.0,0.1,0.1,... \
 *          --out /shared/grid.net [--period 300] [--sweeps N]
 *
 * Design: the sweep is the library's (ac_grid_probe: pairs one at a time, the first sweep full,
 * the later ones incremental, AUTOCOLL_PROBE_REPS/BYTES/CHECK/CHANGE as for the in-call
 * measurement); rank 0 writes the file atomically whenever a sweep changed the matrices. The
 * clusters are those of the map, numbered in order of their lowest rank, and must be those of
 * the application's AUTOCOLL_GRID_CLUSTERS map in the same order (the root checks the count).
 * Cost: per sweep, that of ac_grid_probe on these processes and the network; nothing in the
 * application.
 */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "autocoll.h"
#include "../src/coll/bcast/grid_bcast.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: autocoll-netprobe --clusters map:S.C,... --out FILE [--period S] [--sweeps N]\n"
            "       autocoll-netprobe --help | --version\n"
            "Measures latency and bandwidth between the clusters of a grid (one or two processes\n"
            "per cluster) every S seconds and keeps the newest matrices in FILE, for the\n"
            "AUTOCOLL_GRID_NET setting of grid broadcasts.\n"
            "  --clusters M  site and cluster of every process, the AUTOCOLL_GRID_CLUSTERS syntax\n"
            "  --out FILE    network file, replaced atomically when the matrices change\n"
            "  --period S    seconds from the start of one sweep to the next (default 300)\n"
            "  --sweeps N    stop after N sweeps (default 0: until stopped)\n");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, rc = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const char *map = NULL, *out = NULL;
    double period = 300;
    long sweeps = 0;
    static const struct option opts[] = {{"clusters", required_argument, 0, 'c'},
                                         {"out", required_argument, 0, 'o'},
                                         {"period", required_argument, 0, 'p'},
                                         {"sweeps", required_argument, 0, 'n'},
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, 'V'},
                                         {0, 0, 0, 0}};
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'c')
            map = optarg;
        else if (c == 'o')
            out = optarg;
        else if (c == 'p' && ((period = strtod(optarg, &end)) < 0 || *end || end == optarg))
            c = '?';
        else if (c == 'n' && ((sweeps = strtol(optarg, &end, 10)) < 0 || *end || end == optarg))
            c = '?';
        if (c == 'h' || c == 'V') {
            if (me == 0 && c == 'h') usage(stdout);
            if (me == 0 && c == 'V')
                printf("autocoll-netprobe (autocoll) %s\n", autocoll_version());
            MPI_Finalize();
            return 0;
        }
        if (c == '?') break;
    }
    if (c == '?' || !map || !out || optind < argc) {
        if (me == 0) usage(stderr);
        MPI_Finalize();
        return 2;
    }
    ac_grid_netprobe_t *np;
    char why[256];
    if (ac_grid_netprobe_new(MPI_COMM_WORLD, map, out, &np, why, sizeof why) != 0) {
        if (me == 0) fprintf(stderr, "autocoll-netprobe: --clusters: %s\n", why);
        MPI_Finalize();
        return 2;
    }
    for (long k = 0; !sweeps || k < sweeps; k++) {
        double t0 = MPI_Wtime();
        if (ac_grid_netprobe_sweep(np) != MPI_SUCCESS) {
            if (me == 0) fprintf(stderr, "autocoll-netprobe: sweep %ld failed\n", k + 1);
            rc = 1;
            break;
        }
        if (sweeps && k + 1 == sweeps) break;
        /* every rank waits out the period from the sweep's start on rank 0's clock */
        double wait = period - (MPI_Wtime() - t0);
        PMPI_Bcast(&wait, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (wait > 0) {
            struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
            nanosleep(&ts, NULL);
        }
    }
    ac_grid_netprobe_free(np);
    MPI_Finalize();
    return rc;
}
