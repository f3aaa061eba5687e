/*
 * The context's kept choice of a settled adaptive key (src/select/select.h) and sampled
 * monitoring (src/select/star.h) change nothing but the cost of a call. Interleaves calls of
 * seven keys that differ in one input each (size, root, operation, in-place), so the kept choice
 * of each collective is hit by repeated calls and missed by the next key's, and on rank 0 only
 * one key alternates between two handles of the same user operation (that rank misses where
 * the others hit). Every result is compared with the MPI library's on every rank; kept.sh runs
 * it with AUTOCOLL_CHECK=1 (every rank runs the same instance at every call) and checks that
 * the engine's summary counts every key's calls on that key.
 *
 * Prints "expect KEY CALLS" lines for kept.sh and "N failed".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

enum { ROUNDS = 300, SMALL = 64, LARGE = 4096, NINT = 8 };

static void bcast(unsigned char *buf, unsigned char *ref, int n, int root, int me, int round) {
    for (int i = 0; i < n; i++)
        buf[i] = me == root ? (unsigned char)(i * 7 + round + root) : 0;
    memcpy(ref, buf, (size_t)n);
    MPI_Bcast(buf, n, MPI_BYTE, root, MPI_COMM_WORLD);
    PMPI_Bcast(ref, n, MPI_BYTE, root, MPI_COMM_WORLD);
    check(!memcmp(buf, ref, (size_t)n), "bcast", round);
}

static void allreduce(MPI_Op op, MPI_Op ref_op, int inplace, int me, int round) {
    int in[NINT], out[NINT], ref[NINT];
    for (int i = 0; i < NINT; i++)
        in[i] = out[i] = (me + 1) * (i + 3) + round % 17;
    MPI_Allreduce(inplace ? MPI_IN_PLACE : in, out, NINT, MPI_INT, op, MPI_COMM_WORLD);
    PMPI_Allreduce(in, ref, NINT, MPI_INT, ref_op, MPI_COMM_WORLD);
    check(!memcmp(out, ref, sizeof out), "allreduce", round);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Op user1, user2;
    MPI_Op_create(sum_fn, 1, &user1);
    MPI_Op_create(sum_fn, 1, &user2);
    unsigned char *buf = malloc(LARGE), *ref = malloc(LARGE);
    for (int r = 0; r < ROUNDS; r++) {
        bcast(buf, ref, SMALL, 0, me, r); /* twice in a row: the second hits */
        bcast(buf, ref, SMALL, 0, me, r);
        bcast(buf, ref, SMALL, p - 1, me, r); /* another root: another key */
        allreduce(MPI_SUM, MPI_SUM, 0, me, r);
        allreduce(MPI_MAX, MPI_MAX, 0, me, r);
        allreduce(MPI_SUM, MPI_SUM, 1, me, r);
        /* A user operation: keyed by commutativity, whatever its handle. Rank 0 alternates two
         * handles, so its kept choice misses where the other ranks' hit. */
        allreduce(me == 0 && r % 2 ? user2 : user1, MPI_SUM, 0, me, r);
        allreduce(me == 0 && r % 2 ? user2 : user1, MPI_SUM, 0, me, r);
        bcast(buf, ref, LARGE, 0, me, r);
        bcast(buf, ref, LARGE, 0, me, r);
    }
    if (me == 0) {
        printf("expect bcast_%d_B_root_0 %d\n", SMALL, 2 * ROUNDS);
        printf("expect bcast_%d_B_root_%d %d\n", SMALL, p - 1, ROUNDS);
        printf("expect bcast_%d_B_root_0 %d\n", LARGE, 2 * ROUNDS);
        /* The summary names a key without its operation: three not in place (sum, max, user). */
        printf("expect allreduce_%d_B %d\n", (int)(NINT * sizeof(int)), ROUNDS);
        printf("expect allreduce_%d_B %d\n", (int)(NINT * sizeof(int)), ROUNDS);
        printf("expect allreduce_%d_B %d\n", (int)(NINT * sizeof(int)), 2 * ROUNDS);
        printf("expect allreduce_%d_B_in-place %d\n", (int)(NINT * sizeof(int)), ROUNDS);
    }
    int all = 0;
    PMPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* not a key */
    if (me == 0) printf("%d failed\n", all);
    free(buf);
    free(ref);
    MPI_Op_free(&user1);
    MPI_Op_free(&user2);
    MPI_Finalize();
    return all != 0;
}
