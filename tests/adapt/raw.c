/*
 * The raw path of a settled key (src/pmpi/dispatch.c, ac_pass_raw): an untimed call of a key
 * settled on the MPI library's algorithm is recognised from the call's raw arguments, before the
 * argument record exists. It must count every call on the key the full path would have chosen,
 * and change no result. Interleaves, on MPI_COMM_WORLD, calls of keys that the raw arguments
 * tell apart only through the size of the type, the operation, the root or the in-place flag:
 *   bcast of 8 MPI_INT and of 4 elements of a derived type of 2 ints (the same 32-byte key);
 *     halfway the derived type is freed and a type of 4 ints is made, which MPI often gives the
 *     freed handle: its calls are a 64-byte key, never the 32-byte one (the derived type is the
 *     last type of a round and the first of the next, so a size kept for a freed handle would
 *     be used);
 *   allreduce of 8 ints with MPI_SUM (32 B), in place on 32 ints (128 B), with a commutative
 *     user operation on 16 ints (64 B: a key the raw path must leave to the full path);
 *   reduce of 4 doubles to root 1 (32 B), and barrier.
 * Every result is compared with the MPI library's on every rank. At the end every rank prints
 * "key COLL BYTES CALLS EXPECTED" from autocoll_adaptive_info and "N failed"; raw.sh checks
 * them. Run without AUTOCOLL_VERBOSE or AUTOCOLL_CHECK (either turns the raw path off).
 */
#include <autocoll.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

enum { ROUNDS = 400 };

static void fill(int *v, int n, int me, int round) {
    for (int i = 0; i < n; i++)
        v[i] = (me + 1) * (i + 5) + round % 13;
}

/* bcast of n ints' worth of data as count elements of type t, from root 0 */
static void bcast(int count, MPI_Datatype t, int nint, int me, int round) {
    int buf[16], ref[16];
    fill(buf, nint, me, round);
    if (me != 0) memset(buf, 0, sizeof buf);
    memcpy(ref, buf, sizeof buf);
    MPI_Bcast(buf, count, t, 0, MPI_COMM_WORLD);
    PMPI_Bcast(ref, nint, MPI_INT, 0, MPI_COMM_WORLD);
    check(!memcmp(buf, ref, sizeof buf), "bcast", round);
}

static void allreduce(int n, MPI_Op op, int inplace, int me, int round) {
    int in[32], out[32], ref[32];
    fill(in, n, me, round);
    memcpy(out, in, sizeof in);
    MPI_Allreduce(inplace ? MPI_IN_PLACE : in, out, n, MPI_INT, op, MPI_COMM_WORLD);
    PMPI_Allreduce(in, ref, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(!memcmp(out, ref, (size_t)n * sizeof(int)), "allreduce", round);
}

static void reduce(int me, int round) {
    double in[4], out[4] = {0}, ref[4] = {0};
    for (int i = 0; i < 4; i++)
        in[i] = me * 0.5 + i + round;
    MPI_Reduce(in, out, 4, MPI_DOUBLE, MPI_MAX, 1, MPI_COMM_WORLD);
    PMPI_Reduce(in, ref, 4, MPI_DOUBLE, MPI_MAX, 1, MPI_COMM_WORLD);
    check(!memcmp(out, ref, sizeof out), "reduce", round);
}

static void report(int coll, unsigned long long bytes, long expected) {
    autocoll_adaptive_info_t info;
    long calls =
        autocoll_adaptive_info(MPI_COMM_WORLD, coll, bytes, &info) == MPI_SUCCESS ? info.calls : -1;
    printf("key %s %llu %ld %ld\n", autocoll_coll_name(coll), bytes, calls, expected);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Op user;
    MPI_Op_create(sum_fn, 1, &user);
    MPI_Datatype pair, quad, first;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    first = pair;
    int reused = 0;
    for (int r = 0; r < ROUNDS; r++) {
        if (r == ROUNDS / 2) { /* the pair type goes; a type of another size may get its handle */
            MPI_Type_free(&pair);
            MPI_Type_contiguous(4, MPI_INT, &quad);
            MPI_Type_commit(&quad);
            reused = quad == first;
        }
        /* the derived type is the first and the last type of a round: the last type whose size
         * was asked when the pair type goes */
        for (int twice = 0; twice < 2; twice++) {
            if (r < ROUNDS / 2)
                bcast(4, pair, 8, me, r);
            else
                bcast(4, quad, 16, me, r);
            if (twice) break;
            bcast(8, MPI_INT, 8, me, r);
            allreduce(8, MPI_SUM, 0, me, r);
            allreduce(32, MPI_SUM, 1, me, r);
            allreduce(16, user, 0, me, r);
            reduce(me, r);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    MPI_Type_free(&quad);
    MPI_Op_free(&user);
    report(AUTOCOLL_BCAST, 32, ROUNDS + ROUNDS);
    report(AUTOCOLL_BCAST, 64, ROUNDS);
    report(AUTOCOLL_ALLREDUCE, 32, ROUNDS);
    report(AUTOCOLL_ALLREDUCE, 128, ROUNDS);
    report(AUTOCOLL_ALLREDUCE, 64, ROUNDS);
    report(AUTOCOLL_REDUCE, 32, ROUNDS);
    report(AUTOCOLL_BARRIER, 0, ROUNDS);
    printf("handle reused %d\n%d failed\n", reused, failures);
    MPI_Finalize();
    return 0;
}
