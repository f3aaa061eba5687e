/*
 * The learned table (AUTOCOLL_TABLE_OUT) gathers what every rank learned: rules of
 * communicators whose rank 0 is not world rank 0, of communicators freed before MPI_Finalize and
 * of those still alive then; of two communicators of the same shape that learn the same key, the
 * first one (world rank order) wins. Run on 4 ranks with AUTOCOLL_CANDIDATES_ALLREDUCE set to a
 * few instances; learned.sh compares the file with the lines this program prints on rank 0:
 *   expect allreduce P BYTES ALGORITHM
 * Communicators (world ranks): world {0,1,2,3}; pairs {0,1} and {2,3} (freed before
 * MPI_Finalize), both learning 256 B, {2,3} also 2048 B; {1,2,3} learning 512 B (alive at
 * MPI_Finalize). The test's own plumbing uses PMPI_* (not seen by the engine).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"

enum { CALLS = 150, NAME = 128, SLOTS = 3 };

static int failed;

/* CALLS allreduces of n ints on comm, checked; then the engine's choice for the key into name. */
static void learn(MPI_Comm comm, int n, char *name) {
    int p, me, *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    for (int k = 0; k < CALLS; k++) {
        for (int i = 0; i < n; i++)
            a[i] = me + i + k;
        MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < n; i++)
            if (b[i] != p * (p - 1) / 2 + p * (i + k) && failed++ < 5)
                fprintf(stderr, "allreduce of %d ints on p=%d wrong at call %d\n", n, p, k);
    }
    autocoll_adaptive_info_t info;
    name[0] = '\0';
    if (autocoll_adaptive_info(comm, AUTOCOLL_ALLREDUCE, (unsigned long long)n * sizeof(int),
                               &info) != MPI_SUCCESS ||
        info.candidates < 2 || !info.chosen[0]) {
        fprintf(stderr, "allreduce of %d ints on p=%d: the engine did not settle\n", n, p);
        failed++;
    } else if (me == 0) {
        snprintf(name, NAME, "%s", info.chosen);
    }
    free(a);
    free(b);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (p != 4) {
        if (me == 0) fprintf(stderr, "run on 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* Per rank, the choices of the communicators it leads: pair 256 B, pair 2048 B, trio. */
    char mine[SLOTS][NAME] = {{0}}, world[2][NAME], *all = calloc(4 * SLOTS, NAME);
    learn(MPI_COMM_WORLD, 64, world[0]);
    learn(MPI_COMM_WORLD, 250, world[1]);

    MPI_Comm pair, trio;
    MPI_Comm_split(MPI_COMM_WORLD, me / 2, me, &pair);
    learn(pair, 64, mine[0]);
    if (me >= 2) learn(pair, 512, mine[1]);
    MPI_Comm_free(&pair);

    MPI_Comm_split(MPI_COMM_WORLD, me ? 1 : MPI_UNDEFINED, me, &trio);
    if (trio != MPI_COMM_NULL) learn(trio, 128, mine[2]);

    PMPI_Gather(mine, SLOTS * NAME, MPI_CHAR, all, SLOTS * NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    int f = failed, F = 0;
    PMPI_Reduce(&f, &F, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) {
#define AT(r, s) (all + ((size_t)(r)*SLOTS + (s)) * NAME)
        printf("expect allreduce 4 256 %s\n", world[0]);
        printf("expect allreduce 4 1000 %s\n", world[1]);
        printf("expect allreduce 2 256 %s\n", AT(0, 0)); /* {0,1} wins over {2,3} */
        printf("expect allreduce 2 2048 %s\n", AT(2, 1));
        printf("expect allreduce 3 512 %s\n", AT(1, 2));
        printf("%d failed\n", F);
    }
    free(all);      /* trio is left to MPI_Finalize */
    MPI_Finalize(); /* the learned table is written here */
    return F != 0;
}
