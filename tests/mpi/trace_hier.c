/*
 * Calls of the node-aware algorithms for their stage records (tests/mpi/trace_hier.sh, checked
 * by trace_hier_check.c): AC_TRACE_HIER_ROUNDS rounds of bcast from rank 0, bcast from the
 * last rank, reduce (sum) to rank 1 and allreduce (sum) of 5 ints on MPI_COMM_WORLD; the
 * script forces bcast and reduce `hier` and allreduce `hierarchical`, traced, on emulated
 * nodes. Every result is checked on every rank; exit status 1 on a wrong one.
 * With the argument `steps`: AC_TRACE_HIER_ROUNDS rounds of gather to rank 1, scatter from the
 * last rank, allgather and alltoall (5 ints per block) instead, for the step records of their
 * `hier` algorithms (the script checks autocoll-report's tables of them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "trace_hier.h"

int main(int argc, char **argv) {
    int r, p, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc > 1 && !strcmp(argv[1], "steps")) {
        enum { N = AC_TRACE_HIER_N };
        int *s = malloc((size_t)p * N * sizeof *s), *d = malloc((size_t)p * N * sizeof *d);
        int v[N];
        for (int k = 0; k < AC_TRACE_HIER_ROUNDS && s && d; k++) {
            /* block i of rank r holds 1000 k + 100 r + 10 b + i for destination b */
            for (int i = 0; i < N; i++)
                v[i] = 1000 * k + 100 * r + i;
            MPI_Gather(v, N, MPI_INT, d, N, MPI_INT, 1 % p, MPI_COMM_WORLD);
            if (r == 1 % p)
                for (int q = 0; q < p; q++)
                    for (int i = 0; i < N; i++)
                        bad += d[q * N + i] != 1000 * k + 100 * q + i;
            for (int b = 0; b < p; b++)
                for (int i = 0; i < N; i++)
                    s[b * N + i] = 1000 * k + 100 * r + 10 * b + i;
            MPI_Scatter(s, N, MPI_INT, v, N, MPI_INT, p - 1, MPI_COMM_WORLD);
            for (int i = 0; i < N; i++)
                bad += v[i] != 1000 * k + 100 * (p - 1) + 10 * r + i;
            for (int i = 0; i < N; i++)
                v[i] = 1000 * k + 100 * r + i;
            MPI_Allgather(v, N, MPI_INT, d, N, MPI_INT, MPI_COMM_WORLD);
            for (int q = 0; q < p; q++)
                for (int i = 0; i < N; i++)
                    bad += d[q * N + i] != 1000 * k + 100 * q + i;
            MPI_Alltoall(s, N, MPI_INT, d, N, MPI_INT, MPI_COMM_WORLD);
            for (int q = 0; q < p; q++)
                for (int i = 0; i < N; i++)
                    bad += d[q * N + i] != 1000 * k + 100 * q + 10 * r + i;
        }
        bad += !s || !d;
        free(s);
        free(d);
        if (bad) printf("rank %d: %d wrong results\n", r, bad);
        MPI_Finalize();
        return bad != 0;
    }
    for (int k = 0; k < AC_TRACE_HIER_ROUNDS; k++) {
        int v[AC_TRACE_HIER_N], w[AC_TRACE_HIER_N];
        for (int root = 0; root < 2; root++) {
            int rt = root ? p - 1 : 0;
            for (int i = 0; i < AC_TRACE_HIER_N; i++)
                v[i] = r == rt ? 1000 * k + 10 * i + rt : -1;
            MPI_Bcast(v, AC_TRACE_HIER_N, MPI_INT, rt, MPI_COMM_WORLD);
            for (int i = 0; i < AC_TRACE_HIER_N; i++)
                bad += v[i] != 1000 * k + 10 * i + rt;
        }
        for (int i = 0; i < AC_TRACE_HIER_N; i++)
            v[i] = r + i + k;
        MPI_Reduce(v, w, AC_TRACE_HIER_N, MPI_INT, MPI_SUM, 1 % p, MPI_COMM_WORLD);
        if (r == 1 % p)
            for (int i = 0; i < AC_TRACE_HIER_N; i++)
                bad += w[i] != p * (p - 1) / 2 + p * (i + k);
        MPI_Allreduce(v, w, AC_TRACE_HIER_N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < AC_TRACE_HIER_N; i++)
            bad += w[i] != p * (p - 1) / 2 + p * (i + k);
    }
    if (bad) printf("rank %d: %d wrong results\n", r, bad);
    MPI_Finalize();
    return bad != 0;
}
