/*
 * Deferred decisions (AUTOCOLL_DEFER, docs/adaptive.md "Deferred decisions"), in SimGrid: a
 * broadcast of 4 bytes from rank 0 on a duplicate of MPI_COMM_WORLD, CALLS times, each after a
 * barrier of the MPI library (PMPI, not seen by the engine). Rank 0 calls it and then computes
 * 10 ms (a simulated sleep); every other rank computes 10 ms and then calls it. An eager
 * broadcast does not hold the root, so the root's time inside the calls is small, unless a
 * decision's reduction at the call that closes a batch makes it wait for the others (10 ms per
 * decision). With the reduction deferred to the key's next call the others have joined it by
 * then.
 *
 * Prints on rank 0 "DEFER in-call S decisions D" (S: the root's seconds inside the calls; D: the
 * decisions the engine has made before the communicator is freed, autocoll_adaptive_info), then
 * frees the communicator (its summary line, with AUTOCOLL_VERBOSE=1, counts every decision,
 * including one still under way). Every rank checks every broadcast's data; "bad N" counts
 * wrong ones.
 *   defer CALLS
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "autocoll.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, calls = argc > 1 ? atoi(argv[1]) : 40, bad = 0;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &me);
    double in = 0;
    for (int i = 0; i < calls; i++) {
        int v = me == 0 ? 1000 + i : -1;
        PMPI_Barrier(MPI_COMM_WORLD);
        if (me != 0) smpi_usleep(10000);
        double t0 = MPI_Wtime();
        MPI_Bcast(&v, 1, MPI_INT, 0, comm);
        in += MPI_Wtime() - t0;
        bad += v != 1000 + i;
        if (me == 0) smpi_usleep(10000);
    }
    autocoll_adaptive_info_t info;
    long d =
        autocoll_adaptive_info(comm, AUTOCOLL_BCAST, 4, &info) == MPI_SUCCESS ? info.decisions : -1;
    int all = 0;
    MPI_Reduce(&bad, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) printf("DEFER in-call %.6f decisions %ld bad %d\n", in, d, all);
    fflush(stdout);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
