/*
 * Early arrival of receives (spec predictors-latency.md §4.3) on a program whose early and late
 * receives are known by construction (run at p = 3 with AUTOCOLL_TRACE=p2p; trace_early.sh
 * checks the report). Each case starts after a barrier; U = TE_UNIT_MS. A receive is early when
 * its receive time precedes its send's entry; every margin below is at least U/2.
 *
 *  1. 0 sleeps U, sends to 1; 1 receives at once (MPI_Recv)                      1: early
 *  2. 0 sends at once; 1 sleeps U, then MPI_Recv                                  1: late
 *  3. 1 posts MPI_Irecv at once, sleeps U, waits; 0 sends at U/2: the receive time is the
 *     wait's entry (U), not the posting (0)                                       1: late
 *  4. 1 posts MPI_Irecv and waits at once; 0 sleeps U, sends                      1: early
 *  5. 2 sleeps U/2, then two MPI_Recv(ANY_SOURCE, ANY_TAG); 1 sends at once (tag 15), 0 sends
 *     at U (tag 16): the first matches 1's message (late), the second 0's (early)
 *                                                                                 2: late, early
 *  6. 1 posts MPI_Irecv from 0 and from 2, sleeps U/2, MPI_Waitany (completes 2's, sent at
 *     once: late), sleeps U, MPI_Waitany again (completes 0's, sent at U): its receive time is
 *     the first wait that listed it (U/2), so early                               1: late, early
 *  7. 1 posts MPI_Irecv, sleeps U, then MPI_Test until done; 0 sends at U/2: the receive time is
 *     the completing test's entry (>= U)                                          1: late
 *  8. MPI_Sendrecv around the ring 0 -> 1 -> 2 -> 0: 0 enters at U, 1 at once, 2 at U/2
 *     1 receives 0's (sent at U, received from 0): early; 2 receives 1's: late; 0 receives 2's:
 *     late                                                                        0, 1, 2: one each
 *  9. On a split of MPI_COMM_WORLD with the ranks reversed (sub rank = 2 - world rank): 0 posts
 *     MPI_Irecv on MPI_COMM_WORLD from 2 (A), then on the split from sub rank 0 = world 2 (B),
 *     both tag 5; waits for B at once, then sleeps U/2 after it and waits for A; 2 sleeps U,
 *     sends on the split (B's), sleeps U, sends on MPI_COMM_WORLD (A's). B: early (0 < U);
 *     A: early (1.5 U < 2 U). Pairing by posting order without the communicator would pair A
 *     with the split's send (late) and B with the world's (early).               0: early, early
 *
 * Per iteration, receives paired / early: rank 0: 3 / 2, rank 1: 8 / 4, rank 2: 3 / 1; the
 * program runs TE_ITER = 2 iterations: 6 / 4 (66.7 %), 16 / 8 (50 %), 6 / 2 (33.3 %), average
 * over processes 50 %.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <time.h>

enum { TE_UNIT_MS = 80, TE_ITER = 2 };

static void nap(double units) {
    double ms = units * TE_UNIT_MS;
    struct timespec ts = {(time_t)(ms / 1000),
                          (long)((ms - 1000 * (double)(time_t)(ms / 1000)) * 1e6)};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p != 3) {
        if (me == 0) fprintf(stderr, "trace_early: run with 3 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm w = MPI_COMM_WORLD, sub;
    MPI_Comm_split(w, 0, p - me, &sub); /* sub rank = 2 - world rank */
    int x = me, y = -1, z = -1, bad = 0;
    MPI_Request q[2];
    MPI_Status st;
    for (int it = 0; it < TE_ITER; it++) {
        /* 1 */
        MPI_Barrier(w);
        if (me == 0) nap(1), MPI_Send(&x, 1, MPI_INT, 1, 11, w);
        if (me == 1) MPI_Recv(&y, 1, MPI_INT, 0, 11, w, MPI_STATUS_IGNORE);
        /* 2 */
        MPI_Barrier(w);
        if (me == 0) MPI_Send(&x, 1, MPI_INT, 1, 12, w);
        if (me == 1) nap(1), MPI_Recv(&y, 1, MPI_INT, 0, 12, w, MPI_STATUS_IGNORE);
        /* 3 */
        MPI_Barrier(w);
        if (me == 0) nap(0.5), MPI_Send(&x, 1, MPI_INT, 1, 13, w);
        if (me == 1) {
            MPI_Irecv(&y, 1, MPI_INT, 0, 13, w, &q[0]);
            nap(1);
            MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        }
        /* 4 */
        MPI_Barrier(w);
        if (me == 0) nap(1), MPI_Send(&x, 1, MPI_INT, 1, 14, w);
        if (me == 1) {
            MPI_Irecv(&y, 1, MPI_INT, 0, 14, w, &q[0]);
            MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        }
        /* 5 */
        MPI_Barrier(w);
        if (me == 1) MPI_Send(&x, 1, MPI_INT, 2, 15, w);
        if (me == 0) nap(1), MPI_Send(&x, 1, MPI_INT, 2, 16, w);
        if (me == 2) {
            nap(0.5);
            MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, w, &st);
            bad += st.MPI_SOURCE != 1 || y != 1;
            MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, w, MPI_STATUS_IGNORE);
            bad += y != 0;
        }
        /* 6 */
        MPI_Barrier(w);
        if (me == 2) MPI_Send(&x, 1, MPI_INT, 1, 17, w);
        if (me == 0) nap(1), MPI_Send(&x, 1, MPI_INT, 1, 17, w);
        if (me == 1) {
            int i1 = -1, i2 = -1;
            MPI_Irecv(&y, 1, MPI_INT, 0, 17, w, &q[0]);
            MPI_Irecv(&z, 1, MPI_INT, 2, 17, w, &q[1]);
            nap(0.5);
            MPI_Waitany(2, q, &i1, MPI_STATUS_IGNORE);
            nap(1);
            MPI_Waitany(2, q, &i2, MPI_STATUS_IGNORE);
            bad += i1 != 1 || i2 != 0 || y != 0 || z != 2;
        }
        /* 7 */
        MPI_Barrier(w);
        if (me == 0) nap(0.5), MPI_Send(&x, 1, MPI_INT, 1, 18, w);
        if (me == 1) {
            int done = 0;
            MPI_Irecv(&y, 1, MPI_INT, 0, 18, w, &q[0]);
            nap(1);
            while (!done) {
                MPI_Test(&q[0], &done, MPI_STATUS_IGNORE);
                if (!done) nap(0.01);
            }
        }
        /* 8 */
        MPI_Barrier(w);
        if (me == 0) nap(1);
        if (me == 2) nap(0.5);
        MPI_Sendrecv(&x, 1, MPI_INT, (me + 1) % 3, 19, &y, 1, MPI_INT, (me + 2) % 3, 19, w,
                     MPI_STATUS_IGNORE);
        bad += y != (me + 2) % 3;
        /* 9 */
        MPI_Barrier(w);
        if (me == 0) {
            MPI_Irecv(&y, 1, MPI_INT, 2, 5, w, &q[0]);   /* A */
            MPI_Irecv(&z, 1, MPI_INT, 0, 5, sub, &q[1]); /* B: sub rank 0 is world 2 */
            MPI_Wait(&q[1], MPI_STATUS_IGNORE);
            nap(0.5);
            MPI_Wait(&q[0], MPI_STATUS_IGNORE);
            bad += y != 20 || z != 10;
        }
        if (me == 2) {
            int b = 10, a = 20;
            nap(1);
            MPI_Send(&b, 1, MPI_INT, 2, 5, sub); /* sub rank 2 is world 0 */
            nap(1);
            MPI_Send(&a, 1, MPI_INT, 0, 5, w);
        }
    }
    MPI_Comm_free(&sub);
    if (bad) fprintf(stderr, "trace_early: rank %d: %d wrong messages\n", me, bad);
    MPI_Finalize();
    return bad != 0;
}
