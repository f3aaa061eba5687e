/*
 * autocoll-overhead: what the library adds to each collective call, measured in one process.
 *
 *   autocoll-overhead [-C coll[,coll]] [-a INSTANCE|auto] [-n CALLS] [-b BLOCKS] [-s BYTES]
 *
 * For each collective, blocks of CALLS calls through MPI_<Coll> (the library: dispatch,
 * selection, the chosen instance) alternate with blocks of CALLS calls through PMPI_<Coll> (the
 * MPI library directly), BLOCKS pairs in all, the order inside a pair alternating. The figure of
 * a pair is (time of the MPI_ block - time of the PMPI_ block) / CALLS; the tool prints the median
 * over pairs on each rank and, over ranks, the largest median, with the median per-call time of
 * the PMPI_ calls for scale. Alternating blocks cancel drift (frequency, other load); the median
 * drops pairs hit by an interruption.
 *
 * -a native (default) forces the MPI library's algorithm through autocoll, so the difference is
 * the library's own per-call path; -a auto leaves the choice to the library in whatever mode it
 * runs (a settled adaptive choice after the warm-up, for example); any instance name is forced.
 * Collectives: barrier, bcast, reduce, allreduce, allgather, alltoall, gather, scatter (-s bytes
 * of MPI_BYTE data per rank or block; reductions use MPI_INT, MPI_SUM; default 8).
 * Uses the public API only (autocoll_force). Output: one line per collective on rank 0:
 *   coll  instance  added_ns(max over ranks of the median)  pmpi_ns  ratio
 * Exit status 0, 2 for bad options.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"

enum { NC = 8 };
static const char *names[NC] = {"barrier",   "bcast",    "reduce", "allreduce",
                                "allgather", "alltoall", "gather", "scatter"};
static const int ids[NC] = {AUTOCOLL_BARRIER,   AUTOCOLL_BCAST,     AUTOCOLL_REDUCE,
                            AUTOCOLL_ALLREDUCE, AUTOCOLL_ALLGATHER, AUTOCOLL_ALLTOALL,
                            AUTOCOLL_GATHER,    AUTOCOLL_SCATTER};
static char *sb, *rb;
static int bytes = 8, p;

/* One call of collective k, through the library (lib) or straight to the MPI library. */
static void call(int k, int lib) {
    MPI_Comm w = MPI_COMM_WORLD;
    int ni = bytes / 4 > 0 ? bytes / 4 : 1;
    switch (k) {
    case 0:
        lib ? MPI_Barrier(w) : PMPI_Barrier(w);
        break;
    case 1:
        lib ? MPI_Bcast(rb, bytes, MPI_BYTE, 0, w) : PMPI_Bcast(rb, bytes, MPI_BYTE, 0, w);
        break;
    case 2:
        lib ? MPI_Reduce(sb, rb, ni, MPI_INT, MPI_SUM, 0, w)
            : PMPI_Reduce(sb, rb, ni, MPI_INT, MPI_SUM, 0, w);
        break;
    case 3:
        lib ? MPI_Allreduce(sb, rb, ni, MPI_INT, MPI_SUM, w)
            : PMPI_Allreduce(sb, rb, ni, MPI_INT, MPI_SUM, w);
        break;
    case 4:
        lib ? MPI_Allgather(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, w)
            : PMPI_Allgather(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, w);
        break;
    case 5:
        lib ? MPI_Alltoall(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, w)
            : PMPI_Alltoall(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, w);
        break;
    case 6:
        lib ? MPI_Gather(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, 0, w)
            : PMPI_Gather(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, 0, w);
        break;
    default:
        lib ? MPI_Scatter(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, 0, w)
            : PMPI_Scatter(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, 0, w);
    }
}

static double block(int k, int lib, int n) {
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = PMPI_Wtime();
    for (int i = 0; i < n; i++)
        call(k, lib);
    return PMPI_Wtime() - t0;
}

static int cmp(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void usage(FILE *f) {
    fprintf(f, "usage: autocoll-overhead [-C coll[,coll]] [-a INSTANCE|native|auto] [-n CALLS] "
               "[-b BLOCKS] [-s BYTES] [-h] [-V]\n"
               "  collectives: barrier bcast reduce allreduce allgather alltoall gather scatter\n");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, n = 200, nb = 41, o, bad = 0, want[NC];
    const char *alg = "native", *colls = "barrier,bcast,allreduce,allgather";
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    static const struct option lo[] = {
        {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0}};
    opterr = 0;
    while ((o = getopt_long(argc, argv, "C:a:n:b:s:hV", lo, NULL)) != -1) {
        switch (o) {
        case 'C':
            colls = optarg;
            break;
        case 'a':
            alg = optarg;
            break;
        case 'n':
            n = atoi(optarg);
            break;
        case 'b':
            nb = atoi(optarg);
            break;
        case 's':
            bytes = atoi(optarg);
            break;
        case 'h':
        case 'V':
            if (me == 0 && o == 'h') usage(stdout);
            if (me == 0 && o == 'V')
                printf("autocoll-overhead (autocoll) %s\n", autocoll_version());
            MPI_Finalize();
            return 0;
        default:
            bad = 1;
        }
    }
    memset(want, 0, sizeof want);
    char *list = strdup(colls);
    for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
        int k = 0;
        while (k < NC && strcmp(names[k], t) != 0)
            k++;
        if (k == NC)
            bad = 1;
        else
            want[k] = 1;
    }
    free(list);
    if (bad || n < 1 || nb < 1 || bytes < 1 || optind < argc) {
        if (me == 0) usage(stderr);
        MPI_Finalize();
        return 2;
    }
    sb = calloc((size_t)bytes * (size_t)p, 1);
    rb = calloc((size_t)bytes * (size_t)p, 1);
    double *d = malloc((size_t)nb * sizeof *d), *base = malloc((size_t)nb * sizeof *base);
    if (!sb || !rb || !d || !base) MPI_Abort(MPI_COMM_WORLD, 1);
    if (me == 0)
        printf("# autocoll-overhead: p=%d, %d B, %d pairs of %d calls; ns per call\n"
               "%-10s %-28s %10s %10s %7s\n",
               p, bytes, nb, n, "coll", "instance", "added_ns", "pmpi_ns", "ratio");
    for (int k = 0; k < NC; k++) {
        if (!want[k]) continue;
        int fe = strcmp(alg, "auto") == 0 ? MPI_SUCCESS : autocoll_force(ids[k], alg);
        if (fe != MPI_SUCCESS) {
            if (me == 0) printf("%-10s %-28s cannot be forced\n", names[k], alg);
            continue;
        }
        block(k, 1, 3 * n); /* warm up: contexts, an adaptive choice settling */
        block(k, 0, n);
        for (int b = 0; b < nb; b++) {
            double tl, tp;
            if (b % 2) {
                tp = block(k, 0, n);
                tl = block(k, 1, n);
            } else {
                tl = block(k, 1, n);
                tp = block(k, 0, n);
            }
            d[b] = (tl - tp) / n;
            base[b] = tp / n;
        }
        double med[2] = {median(d, nb), median(base, nb)}, mx[2];
        PMPI_Allreduce(med, mx, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        char ran[128] = "";
        autocoll_last_choice(MPI_COMM_WORLD, ids[k], ran, sizeof ran);
        if (me == 0)
            printf("%-10s %-28s %10.0f %10.0f %7.3f\n", names[k], ran, mx[0] * 1e9, mx[1] * 1e9,
                   (mx[1] + mx[0]) / mx[1]);
        autocoll_force(ids[k], NULL);
    }
    free(sb);
    free(rb);
    free(d);
    free(base);
    MPI_Finalize();
    return 0;
}
