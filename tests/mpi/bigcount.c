/*
 * Calls whose buffers pass INT_MAX bytes (label "long": about 5 GiB per rank, 10 GiB at the
 * registered p = 2; a few minutes). Every case is a call MPI accepts (each count is an int), so
 * no algorithm may fail it: the dispatcher describes it in a unit of 2^k bytes that keeps every
 * count within an int (core/sig.c), algorithms that build bigger messages use block types, and a
 * call with no such unit (odd block size) goes to the MPI library.
 *
 * Data are a pattern of (rank, byte index), checked in place, so no reference copy is needed.
 * usage: ac_bigcount [GiB per allgather block, default 1.5]
 * Prints one line per case and "N passed, N failed".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"

static int me, p, passed, failed;

static unsigned char pat(int r, size_t i) {
    return (unsigned char)((size_t)r * 131u + i * 7u + (i >> 20));
}
static void fill(unsigned char *b, size_t n, int r) {
    for (size_t i = 0; i < n; i++)
        b[i] = pat(r, i);
}
static int check_blocks(const unsigned char *b, size_t blk, int nblk, int (*owner)(int)) {
    for (int j = 0; j < nblk; j++)
        for (size_t i = 0; i < blk; i++)
            if (b[(size_t)j * blk + i] != pat(owner(j), i)) return 0;
    return 1;
}
static int id(int j) {
    return j;
}
static int root0(int j) {
    (void)j;
    return 0;
}

/* ok on every rank and `want` really ran. */
static void report(int ok, int coll, const char *alg, const char *want, size_t bytes) {
    char last[128];
    int all;
    autocoll_last_choice(MPI_COMM_WORLD, coll, last, sizeof last);
    ok = ok && strcmp(last, want) == 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    all ? passed++ : failed++;
    if (me == 0)
        printf("%s %s %s, %zu bytes per block (ran %s)\n", all ? "ok  " : "FAIL",
               coll == AUTOCOLL_ALLGATHER  ? "allgather"
               : coll == AUTOCOLL_ALLTOALL ? "alltoall"
                                           : "bcast",
               alg, bytes, last);
    fflush(stdout);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    double gib = argc > 1 ? atof(argv[1]) : 1.5;
    size_t blk = (size_t)(gib * 1073741824.0) & ~(size_t)7; /* even: a unit exists */
    const char *ag[] = {"hier:inter=ring", "ring", "gather_bcast"};
    unsigned char *s = malloc(blk + 1), *r = malloc(blk * (size_t)p + (size_t)p);
    if (!s || !r) {
        fprintf(stderr, "ac_bigcount: needs %.1f GiB per rank\n", gib * (p + 1));
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* allgather, MPI_BYTE counts: p * blk bytes > INT_MAX. */
    for (size_t k = 0; k < sizeof ag / sizeof *ag; k++) {
        fill(s, blk, me);
        memset(r, 0, blk * (size_t)p);
        if (autocoll_force(AUTOCOLL_ALLGATHER, ag[k]) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 3);
        int err = MPI_Allgather(s, (int)blk, MPI_BYTE, r, (int)blk, MPI_BYTE, MPI_COMM_WORLD);
        report(err == MPI_SUCCESS && check_blocks(r, blk, p, id), AUTOCOLL_ALLGATHER, ag[k], ag[k],
               blk);
    }
    /* An odd block: no unit keeps the call within an int, the MPI library runs it. */
    fill(s, blk + 1, me);
    int err = MPI_Allgather(s, (int)blk + 1, MPI_BYTE, r, (int)blk + 1, MPI_BYTE, MPI_COMM_WORLD);
    report(err == MPI_SUCCESS && check_blocks(r, blk + 1, p, id), AUTOCOLL_ALLGATHER, "ring (odd)",
           "native", blk + 1);
    autocoll_force(AUTOCOLL_ALLGATHER, NULL);
    /* bcast of the whole receive buffer as 2-byte elements (count within an int). */
    {
        size_t n = blk * (size_t)p / 2 * 2;
        const char *bc[] = {"scatter_ring", "pipe_chain:seg=8192"};
        for (size_t k = 0; k < 2; k++) {
            if (me == 0)
                fill(r, n, 0);
            else
                memset(r, 0, n);
            autocoll_force(AUTOCOLL_BCAST, bc[k]);
            err = MPI_Bcast(r, (int)(n / 2), MPI_SHORT, 0, MPI_COMM_WORLD);
            report(err == MPI_SUCCESS && check_blocks(r, n, 1, root0), AUTOCOLL_BCAST, bc[k], bc[k],
                   n);
        }
        autocoll_force(AUTOCOLL_BCAST, NULL);
    }
    free(s);
    /* alltoall: p blocks of blk2 bytes each way, p * blk2 > INT_MAX. */
    {
        size_t blk2 = ((size_t)INT32_MAX / (size_t)p + 4096) & ~(size_t)7;
        unsigned char *sa = malloc(blk2 * (size_t)p), *ra = realloc(r, blk2 * (size_t)p);
        if (!sa || !ra) MPI_Abort(MPI_COMM_WORLD, 2);
        r = ra;
        const char *aa[] = {"pair", "linear"};
        for (size_t k = 0; k < 2; k++) {
            for (int j = 0; j < p; j++)
                fill(sa + (size_t)j * blk2, blk2, me * p + j);
            memset(r, 0, blk2 * (size_t)p);
            autocoll_force(AUTOCOLL_ALLTOALL, aa[k]);
            err = MPI_Alltoall(sa, (int)blk2, MPI_BYTE, r, (int)blk2, MPI_BYTE, MPI_COMM_WORLD);
            int ok = err == MPI_SUCCESS;
            for (int j = 0; j < p && ok; j++)
                for (size_t i = 0; i < blk2 && ok; i++)
                    ok = r[(size_t)j * blk2 + i] == pat(j * p + me, i);
            report(ok, AUTOCOLL_ALLTOALL, aa[k], aa[k], blk2);
        }
        autocoll_force(AUTOCOLL_ALLTOALL, NULL);
        free(sa);
    }
    free(r);
    if (me == 0) printf("%d passed, %d failed\n", passed, failed);
    MPI_Finalize();
    return failed != 0;
}
