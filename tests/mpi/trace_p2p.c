/*
 * Point-to-point calls of known numbers for the trace test (trace.sh; AUTOCOLL_TRACE=p2p): per
 * rank TP_ITER iterations of {Irecv from the left, Irecv from the right, Isend to the right,
 * Isend to the left, Waitall}, then one MPI_Sendrecv_replace with the right neighbour, one
 * wildcard MPI_Recv (MPI_ANY_SOURCE) matched by a Send from the left, and one Send to the right
 * on each of two duplicates of MPI_COMM_WORLD made one after the other (the first freed before
 * the second is made: a recycled handle value must still give a new identifier). Checked by
 * ac_trace_check DIR NP p2p.
 */
#include <mpi.h>
#include "trace_calls.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
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
