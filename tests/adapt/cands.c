/*
 * Candidates of a key against the node layout: K broadcasts of 256 B on MPI_COMM_WORLD (results
 * checked against the root's data), then the number of instances the engine considered for the
 * key, which must lie in [MIN, MAX] (argv). Run with AUTOCOLL_CANDIDATES_BCAST=hier,binomial
 * and AUTOCOLL_NODE_LAYOUT=block:1 (one rank per node: the racing learner leaves node-aware
 * instances out, so binomial alone is considered) or block:2 (several ranks per node: every
 * hierarchical instance is too). With AUTOCOLL_CANDIDATES_BCAST=pipe_chain,binomial one
 * pipe_chain stands for its five segment sizes, all at least the key's 256 B (equivalent
 * instances, src/select/candidates.c): two are considered.
 *   cands MIN MAX
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "autocoll.h"

enum { K = 8, N = 64 };

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, bad = 0, buf[N];
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int lo = argc > 2 ? atoi(argv[1]) : 0, hi = argc > 2 ? atoi(argv[2]) : -1;
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < N; i++)
            buf[i] = me == 0 ? k * N + i : -1;
        MPI_Bcast(buf, N, MPI_INT, 0, MPI_COMM_WORLD);
        for (int i = 0; i < N; i++)
            bad += buf[i] != k * N + i;
    }
    autocoll_adaptive_info_t info;
    int rc = autocoll_adaptive_info(MPI_COMM_WORLD, AUTOCOLL_BCAST, N * sizeof(int), &info);
    int allbad;
    PMPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int ok = rc == MPI_SUCCESS && allbad == 0 && info.considered >= lo && info.considered <= hi;
    if (me == 0)
        printf("cands: considered %d, candidates %d (expected %d..%d), %d bad: %s\n",
               rc == MPI_SUCCESS ? info.considered : -1, rc == MPI_SUCCESS ? info.candidates : -1,
               lo, hi, allbad, ok ? "ok" : "FAILED");
    MPI_Finalize();
    return !ok;
}
