/*
 * What receive pre-posting (docs/prepost.md) saves or costs, on two patterns; run it with and
 * without AUTOCOLL_PREPOST=1 (prepost_bench.sh interleaves the two and prints ratios).
 *   pingpong  ranks 0 and 1, blocking MPI_Send/MPI_Recv; time per round trip.
 *   halo      periodic 1-D ring over all ranks: compute (busy loop of --compute us, rank 0
 *             twice as long, so that its neighbours send before it receives), MPI_Isend to
 *             both neighbours, blocking MPI_Recv from left then right, MPI_Waitall; time per
 *             iteration, the slowest rank.
 * --hint 1 sets the hint autocoll_prepost_early on MPI_COMM_WORLD (long captures received at once).
 * usage: prepost_bench pingpong|halo --bytes N --iters N [--compute us] [--hint 0|1]
 * Prints "<pattern> <bytes> <microseconds per iteration>" on rank 0; checks the data.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void busy(double us) {
    double t = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < t) {
    }
}

int main(int argc, char **argv) {
    int rank, p, bytes = 8, iters = 1000, bad = 0, hint = 0;
    double compute = 20;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const char *pat = argc > 1 ? argv[1] : "pingpong";
    for (int a = 2; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--bytes")) bytes = atoi(argv[a + 1]);
        if (!strcmp(argv[a], "--iters")) iters = atoi(argv[a + 1]);
        if (!strcmp(argv[a], "--compute")) compute = atof(argv[a + 1]);
        if (!strcmp(argv[a], "--hint")) hint = atoi(argv[a + 1]);
    }
    if (hint) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "autocoll_prepost_early", "true");
        MPI_Comm_set_info(MPI_COMM_WORLD, info);
        MPI_Info_free(&info);
    }
    char *s = calloc((size_t)bytes + 1, 2), *r1 = calloc((size_t)bytes + 1, 1),
         *r2 = calloc((size_t)bytes + 1, 1);
    double t = 0;
    int warm = iters / 10;
    if (!strcmp(pat, "pingpong")) {
        for (int i = -warm; i < iters; i++) {
            if (i == 0) {
                MPI_Barrier(MPI_COMM_WORLD);
                t = MPI_Wtime();
            }
            memset(s, (char)i, (size_t)bytes);
            if (rank == 0) {
                MPI_Send(s, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(r1, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                bad += bytes && r1[bytes - 1] != (char)i;
            } else if (rank == 1) {
                MPI_Recv(r1, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                bad += bytes && r1[bytes - 1] != (char)i;
                MPI_Send(s, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
    } else {
        int left = (rank + p - 1) % p, right = (rank + 1) % p;
        for (int i = -warm; i < iters; i++) {
            if (i == 0) {
                MPI_Barrier(MPI_COMM_WORLD);
                t = MPI_Wtime();
            }
            busy(rank == 0 ? 2 * compute : compute);
            MPI_Request q[2];
            memset(s, (char)i, (size_t)bytes);
            memset(s + bytes, (char)(i + 1), (size_t)bytes);
            MPI_Isend(s, bytes, MPI_BYTE, right, 1, MPI_COMM_WORLD, &q[0]);
            MPI_Isend(s + bytes, bytes, MPI_BYTE, left, 2, MPI_COMM_WORLD, &q[1]);
            MPI_Recv(r1, bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(r2, bytes, MPI_BYTE, right, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
            bad += bytes && (r1[bytes - 1] != (char)i || r2[bytes - 1] != (char)(i + 1));
        }
    }
    t = (MPI_Wtime() - t) / iters * 1e6;
    double tmax = 0;
    int badsum = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bad, &badsum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("%s %d %.2f%s\n", pat, bytes, tmax, badsum ? " WRONG DATA" : "");
    free(s);
    free(r1);
    free(r2);
    MPI_Finalize();
    return badsum != 0;
}
