/*
 * Calls of the node-aware algorithms for their stage records (tests/mpi/trace_hier.sh, checked
 * by trace_hier_check.c): AC_TRACE_HIER_ROUNDS rounds of bcast from rank 0, bcast from the
 * last rank, reduce (sum) to rank 1 and allreduce (sum) of 5 ints on MPI_COMM_WORLD; the
 * script forces bcast and reduce `hier` and allreduce `hierarchical`, traced, on emulated
 * nodes. Every result is checked on every rank; exit status 1 on a wrong one.
 */
#include <stdio.h>
#include <mpi.h>
#include "trace_hier.h"

int main(int argc, char **argv) {
    int r, p, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
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
