/*
 * Checks that Open MPI's coll/tuned runs the algorithms an exported rules file names. Built
 * WITHOUT autocoll: the collectives are Open MPI's own.
 *
 * Open MPI 4.1 release builds print nothing about dynamic rules at any verbosity (those
 * messages are compiled out: `strings mca_coll_tuned.so` holds no format string), so the check
 * watches the algorithms themselves. coll/tuned (mca_coll_tuned.so) calls the algorithms of
 * coll/base (ompi_coll_base_<coll>_intra_<alg>, in libmpi.so) through the dynamic linker; this
 * program defines functions of the same names, exported (-rdynamic), which note their name and
 * forward to the real ones (dlsym RTLD_NEXT). The forwarding passes 8 integer-class arguments
 * (every one of these functions takes at most 8 pointers/ints), which is valid for the x86-64
 * System V calling convention only: the test is registered on x86-64 only.
 *
 * Run with 4 processes and --mca coll_tuned_use_dynamic_rules 1
 * --mca coll_tuned_dynamic_rules_filename FILE, FILE being the export of
 * tests/table/ompi_table.json.
 *   ompi_check --rules     exit 0 when every case runs the algorithm of the table
 *   ompi_check --control   exit 0 when some case runs another algorithm (run without the
 *                          rules file: proves that the check tells algorithms apart)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P = 4 };

static const char *last = "none"; /* the coll/base algorithm that ran last */

typedef int (*fwd_t)(long, long, long, long, long, long, long, long);
#define SPY(name)                                                                                  \
    int name(long a, long b, long c, long d, long e, long f, long g, long h);                      \
    int name(long a, long b, long c, long d, long e, long f, long g, long h) {                     \
        static fwd_t real;                                                                         \
        if (!real) *(void **)&real = dlsym(RTLD_NEXT, #name);                                      \
        last = #name;                                                                              \
        return real ? real(a, b, c, d, e, f, g, h) : MPI_ERR_INTERN;                               \
    }
SPY(ompi_coll_base_allgather_intra_ring)
SPY(ompi_coll_base_allgather_intra_recursivedoubling)
SPY(ompi_coll_base_allgather_intra_bruck)
SPY(ompi_coll_base_allgather_intra_basic_linear)
SPY(ompi_coll_base_allgather_intra_neighborexchange)
SPY(ompi_coll_base_allgatherv_intra_ring)
SPY(ompi_coll_base_allgatherv_intra_bruck)
SPY(ompi_coll_base_allgatherv_intra_basic_default)
SPY(ompi_coll_base_allgatherv_intra_neighborexchange)
SPY(ompi_coll_base_bcast_intra_basic_linear)
SPY(ompi_coll_base_bcast_intra_binomial)
SPY(ompi_coll_base_bcast_intra_bintree)
SPY(ompi_coll_base_bcast_intra_pipeline)
SPY(ompi_coll_base_bcast_intra_split_bintree)
SPY(ompi_coll_base_bcast_intra_knomial)
SPY(ompi_coll_base_barrier_intra_doublering)
SPY(ompi_coll_base_barrier_intra_recursivedoubling)
SPY(ompi_coll_base_barrier_intra_bruck)
SPY(ompi_coll_base_barrier_intra_tree)
SPY(ompi_coll_base_barrier_intra_basic_linear)

/* Runs one case; every rank must have run alg. */
static int check(const char *what, const char *alg, void (*run)(int), int arg) {
    int rank, ok, all;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    last = "none";
    run(arg);
    const char *ran = last;
    ok = strstr(ran, alg) != NULL;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%-26s expected %-28s ran %-45s %s\n", what, alg, ran, all ? "ok" : "DIFFERS");
    fflush(stdout);
    return all;
}

static void run_allgather(int bytes) {
    char *s = calloc((size_t)bytes, 1), *r = calloc((size_t)bytes * P, 1);
    MPI_Allgather(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, MPI_COMM_WORLD);
    free(s);
    free(r);
}

static void run_allgatherv(int bytes) {
    int rc[P], dis[P];
    for (int i = 0; i < P; i++) {
        rc[i] = bytes;
        dis[i] = i * bytes;
    }
    char *s = calloc((size_t)bytes, 1), *r = calloc((size_t)bytes * P, 1);
    MPI_Allgatherv(s, bytes, MPI_BYTE, r, rc, dis, MPI_BYTE, MPI_COMM_WORLD);
    free(s);
    free(r);
}

static void run_bcast(int bytes) {
    char *b = calloc((size_t)bytes, 1);
    MPI_Bcast(b, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(b);
}

static void run_barrier(int unused) {
    (void)unused;
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
    int size, rank, n, control = argc > 1 && !strcmp(argv[1], "--control");
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (size != P) {
        if (rank == 0) fprintf(stderr, "ompi_check: run with %d processes\n", P);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* The choices of tests/table/ompi_table.json at p = 4, sizes on both sides of each rule
     * boundary. allgather: [0, 1024) bytes per block -> lr (Open MPI ring), then rdb;
     * allgatherv: [0, 2048) bytes in total -> lr (ring), then bruck; Open MPI 4.1 looks
     * allgatherv up by the per-rank average, so 4x400 and 4x600 bytes fall on either side. */
    int good = 0, cases = 0;
    good += check("allgather 256 B/block", "allgather_intra_ring", run_allgather, 256), cases++;
    good += check("allgather 1023 B/block", "allgather_intra_ring", run_allgather, 1023), cases++;
    good +=
        check("allgather 1024 B/block", "allgather_intra_recursivedoubling", run_allgather, 1024),
        cases++;
    good +=
        check("allgather 65536 B/block", "allgather_intra_recursivedoubling", run_allgather, 65536),
        cases++;
    good += check("allgatherv 4x400 B", "allgatherv_intra_ring", run_allgatherv, 400), cases++;
    good += check("allgatherv 4x600 B", "allgatherv_intra_bruck", run_allgatherv, 600), cases++;
    good += check("bcast 100 B", "bcast_intra_basic_linear", run_bcast, 100), cases++;
    good += check("bcast 1 MiB", "bcast_intra_basic_linear", run_bcast, 1 << 20), cases++;
    good += check("barrier", "barrier_intra_doublering", run_barrier, 0), cases++;

    n = control ? good < cases : good == cases;
    if (rank == 0)
        printf("%d of %d cases ran the table's algorithm: %s\n", good, cases,
               n ? "PASS" : (control ? "FAIL (the defaults look like the table)" : "FAIL"));
    MPI_Finalize();
    return n ? 0 : 1;
}
