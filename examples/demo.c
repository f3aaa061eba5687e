/*
 * demo: an ordinary MPI program (built without autocoll) that times each intercepted collective
 * through MPI_<Coll> (autocoll when preloaded) and through PMPI_<Coll> (always the MPI library's
 * own), and checks that both give the same bytes.
 *
 *   mpirun -np 4 env LD_PRELOAD=libautocoll.so AUTOCOLL_VERBOSE=1 ./demo [count] [iterations]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, p;

#define TIME(label, CALL, PCALL, out, nbytes)                                                      \
    do {                                                                                           \
        double t0, ta = 0, tn = 0;                                                                 \
        for (int it = 0; it < iters; it++) {                                                       \
            MPI_Barrier(MPI_COMM_WORLD);                                                           \
            t0 = MPI_Wtime();                                                                      \
            CALL;                                                                                  \
            ta += MPI_Wtime() - t0;                                                                \
            memcpy(ref, out, nbytes);                                                              \
            PMPI_Barrier(MPI_COMM_WORLD);                                                          \
            t0 = MPI_Wtime();                                                                      \
            PCALL;                                                                                 \
            tn += MPI_Wtime() - t0;                                                                \
        }                                                                                          \
        int same = memcmp(ref, out, nbytes) == 0, all;                                             \
        PMPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);                          \
        double v[2] = {ta / iters, tn / iters}, m[2];                                              \
        PMPI_Reduce(v, m, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);                              \
        if (me == 0)                                                                               \
            printf("%-22s %12.1f %12.1f %8.2f  %s\n", label, 1e6 * m[0], 1e6 * m[1], m[0] / m[1],  \
                   all ? "same" : "DIFFERENT");                                                    \
        bad |= !all;                                                                               \
    } while (0)

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int n = argc > 1 ? atoi(argv[1]) : 4096, iters = argc > 2 ? atoi(argv[2]) : 20, bad = 0;
    if (n < 1) n = 1;
    if (iters < 1) iters = 1;
    size_t big = (size_t)n * p * sizeof(int);
    int *s = malloc(big), *r = malloc(big), *ref = malloc(big), *rc = malloc(p * sizeof(int)),
        *dis = malloc(p * sizeof(int));
    for (size_t i = 0; i < (size_t)n * p; i++)
        s[i] = (int)(i * 31 + me * 7);
    for (int i = 0; i < p; i++)
        rc[i] = n, dis[i] = i * n;
    size_t one = (size_t)n * sizeof(int);
    MPI_Comm c = MPI_COMM_WORLD;
    if (me == 0)
        printf("p=%d, %d ints per block, %d iterations; time in microseconds (max over ranks)\n"
               "%-22s %12s %12s %8s\n",
               p, n, iters, "collective", "MPI_ (us)", "PMPI_ (us)", "ratio");
    TIME("MPI_Allgather", MPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, c),
         PMPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, c), r, big);
    TIME("MPI_Allgatherv", MPI_Allgatherv(s, n, MPI_INT, r, rc, dis, MPI_INT, c),
         PMPI_Allgatherv(s, n, MPI_INT, r, rc, dis, MPI_INT, c), r, big);
    TIME("MPI_Alltoall", MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, c),
         PMPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, c), r, big);
    TIME("MPI_Alltoallv", MPI_Alltoallv(s, rc, dis, MPI_INT, r, rc, dis, MPI_INT, c),
         PMPI_Alltoallv(s, rc, dis, MPI_INT, r, rc, dis, MPI_INT, c), r, big);
    TIME("MPI_Bcast", (memcpy(r, s, one), MPI_Bcast(r, n, MPI_INT, 0, c)),
         (memcpy(r, s, one), PMPI_Bcast(r, n, MPI_INT, 0, c)), r, one);
    TIME("MPI_Reduce", MPI_Reduce(s, r, n, MPI_INT, MPI_SUM, 0, c),
         PMPI_Reduce(s, r, n, MPI_INT, MPI_SUM, 0, c), r, me == 0 ? one : 0);
    TIME("MPI_Allreduce", MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, c),
         PMPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, c), r, one);
    TIME("MPI_Reduce_scatter", MPI_Reduce_scatter(s, r, rc, MPI_INT, MPI_SUM, c),
         PMPI_Reduce_scatter(s, r, rc, MPI_INT, MPI_SUM, c), r, one);
    TIME("MPI_Reduce_scatter_block", MPI_Reduce_scatter_block(s, r, n, MPI_INT, MPI_SUM, c),
         PMPI_Reduce_scatter_block(s, r, n, MPI_INT, MPI_SUM, c), r, one);
    TIME("MPI_Gather", MPI_Gather(s, n, MPI_INT, r, n, MPI_INT, 0, c),
         PMPI_Gather(s, n, MPI_INT, r, n, MPI_INT, 0, c), r, me == 0 ? big : 0);
    TIME("MPI_Scatter", MPI_Scatter(s, n, MPI_INT, r, n, MPI_INT, 0, c),
         PMPI_Scatter(s, n, MPI_INT, r, n, MPI_INT, 0, c), r, one);
    TIME("MPI_Barrier", MPI_Barrier(c), PMPI_Barrier(c), r, 0);
    free(s), free(r), free(ref), free(rc), free(dis);
    MPI_Finalize();
    return bad;
}
