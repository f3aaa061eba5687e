/*
 * Point-to-point calls of known numbers for the trace test (trace.sh; AUTOCOLL_TRACE=p2p): per
 * rank TP_ITER iterations of {Irecv from the left, Irecv from the right, Isend to the right,
 * Isend to the left, Waitall}, then one MPI_Sendrecv_replace with the right neighbour, one
 * wildcard MPI_Recv (MPI_ANY_SOURCE) matched by a Send from the left, and one Send to the right
 * on each of two duplicates of MPI_COMM_WORLD made one after the other (the first freed before
 * the second is made: a recycled handle value must still give a new identifier). Checked by
 * ac_trace_check DIR NP p2p.
 *
 * With --persistent, persistent requests instead: receives from the left (tag 6, 2 ints, and
 * tag 8) and the right (tags 7 and 9), a standard send to the right (tag 6, 2 ints), a
 * synchronous send to the left (tag 7), a buffered send to the right (tag 8) and a ready send
 * to the left (tag 9); TP_PITER iterations of {Startall(the receives of tags 6, 7), Start(send),
 * Start(ssend), Waitall(4)} then {Start(receive of tag 8), Start(receive of tag 9), Barrier,
 * Startall(bsend, rsend), Waitall(4)}; the eight requests freed, then one Irecv from the left
 * and one Isend to the right (tag 10) completed by a Waitall. Checked by ac_trace_check DIR NP
 * persistent.
 */
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "trace_calls.h"

static int persistent(int me, int p) {
    int right = (me + 1) % p, left = (me + p - 1) % p;
    int s6[2] = {me, me}, r6[2], s7 = me, r7, s8 = me, r8, s9 = me, r9, x = me, y;
    int bsize = 8 * ((int)sizeof(int) + MPI_BSEND_OVERHEAD);
    void *bbuf = malloc((size_t)bsize);
    MPI_Buffer_attach(bbuf, bsize);
    MPI_Request q[8];
    MPI_Recv_init(r6, 2, MPI_INT, left, 6, MPI_COMM_WORLD, &q[0]);
    MPI_Recv_init(&r7, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &q[1]);
    MPI_Send_init(s6, 2, MPI_INT, right, 6, MPI_COMM_WORLD, &q[2]);
    MPI_Ssend_init(&s7, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &q[3]);
    MPI_Recv_init(&r8, 1, MPI_INT, left, 8, MPI_COMM_WORLD, &q[4]);
    MPI_Recv_init(&r9, 1, MPI_INT, right, 9, MPI_COMM_WORLD, &q[5]);
    MPI_Bsend_init(&s8, 1, MPI_INT, right, 8, MPI_COMM_WORLD, &q[6]);
    MPI_Rsend_init(&s9, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &q[7]);
    int bad = 0;
    for (int i = 0; i < TP_PITER; i++) {
        s6[0] = s6[1] = s7 = s8 = s9 = 100 * i + me;
        MPI_Startall(2, q);
        MPI_Start(&q[2]);
        MPI_Start(&q[3]);
        MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
        MPI_Start(&q[4]);
        MPI_Start(&q[5]);
        MPI_Barrier(MPI_COMM_WORLD); /* the ready send's receive is posted */
        MPI_Startall(2, &q[6]);
        MPI_Waitall(4, &q[4], MPI_STATUSES_IGNORE);
        bad |= r6[0] != 100 * i + left || r6[1] != 100 * i + left || r7 != 100 * i + right ||
               r8 != 100 * i + left || r9 != 100 * i + right;
    }
    for (int k = 0; k < 8; k++)
        MPI_Request_free(&q[k]);
    MPI_Request z[2];
    MPI_Irecv(&y, 1, MPI_INT, left, 10, MPI_COMM_WORLD, &z[0]);
    MPI_Isend(&x, 1, MPI_INT, right, 10, MPI_COMM_WORLD, &z[1]);
    MPI_Waitall(2, z, MPI_STATUSES_IGNORE);
    bad |= y != left;
    MPI_Buffer_detach(&bbuf, &bsize);
    free(bbuf);
    return bad;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc > 1 && !strcmp(argv[1], "--persistent")) {
        int bad = persistent(me, p);
        MPI_Finalize();
        return bad;
    }
    int right = (me + 1) % p, left = (me + p - 1) % p;
    int s[2] = {me, me}, r[2];
    MPI_Request q[4];
    for (int i = 0; i < TP_ITER; i++) {
        MPI_Irecv(&r[0], 1, MPI_INT, left, 1, MPI_COMM_WORLD, &q[0]);
        MPI_Irecv(&r[1], 1, MPI_INT, right, 2, MPI_COMM_WORLD, &q[1]);
        MPI_Isend(&s[0], 1, MPI_INT, right, 1, MPI_COMM_WORLD, &q[2]);
        MPI_Isend(&s[1], 1, MPI_INT, left, 2, MPI_COMM_WORLD, &q[3]);
        MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
    }
    int x = me;
    MPI_Sendrecv_replace(&x, 1, MPI_INT, right, 3, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&x, 1, MPI_INT, right, 4, MPI_COMM_WORLD);
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int k = 0; k < 2; k++) {
        MPI_Comm d;
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        MPI_Send(&x, 1, MPI_INT, right, 5, d);
        MPI_Recv(&x, 1, MPI_INT, left, 5, d, MPI_STATUS_IGNORE);
        MPI_Comm_free(&d);
    }
    MPI_Finalize();
    return 0;
}
