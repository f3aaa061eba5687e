/*
 * ac_split [N]: N times, splits MPI_COMM_WORLD in two halves (colour (rank + i) mod 2, so the
 * world ranks that are rank 0 of a half alternate), runs an allgather on the half, checks it and
 * frees the half. Exit 0 when every allgather was right. With an algorithm forced that cannot run
 * on a half (AUTOCOLL_ALLGATHER=rdb at an odd half size), tests/tools/settings_msgs.sh counts the
 * library's messages.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 1, me, bad = 0, all = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    for (int i = 0; i < n; i++) {
        MPI_Comm half;
        MPI_Comm_split(MPI_COMM_WORLD, (me + i) % 2, me, &half);
        int hr, hp;
        MPI_Comm_rank(half, &hr);
        MPI_Comm_size(half, &hp);
        int *got = malloc((size_t)hp * sizeof *got), mine = 1000 * i + hr;
        if (!got || MPI_Allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, half) != MPI_SUCCESS) bad = 1;
        for (int r = 0; !bad && r < hp; r++)
            bad = got[r] != 1000 * i + r;
        free(got);
        MPI_Comm_free(&half);
    }
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0) printf("ac_split: %d splits, %s\n", n, all ? "WRONG RESULTS" : "results correct");
    MPI_Finalize();
    return all;
}
