/*
 * Shared by the adaptive engine's MPI tests (kept.c, raw.c): a result check that reports the
 * first ten differences from the MPI library's result, and a commutative integer sum as a user
 * operation.
 */
#ifndef AC_TESTS_ADAPT_CHECK_H
#define AC_TESTS_ADAPT_CHECK_H

#include <mpi.h>
#include <stdio.h>

static int failures;

static void check(int ok, const char *what, int round) {
    if (!ok && failures++ < 10) {
        int r;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        fprintf(stderr, "rank %d, round %d: %s differs from the MPI library's result\n", r, round,
                what);
    }
}

static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *t) {
    (void)t;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

#endif
