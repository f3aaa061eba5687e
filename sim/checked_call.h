/*
 * One collective call with integer data whose result is known, checked on the ranks that get
 * one: the drivers of the adaptive engine (tests/adapt/adapt_sim.c, sim/app_learn.c) run every
 * call through it, so a wrong choice or a broken agreement shows as a failure, not only as a
 * time. Rank r sends r * 7 + i % 13 + iter at position i; bcast and reduce are rooted at 0.
 */
#ifndef AC_SIM_CHECKED_CALL_H
#define AC_SIM_CHECKED_CALL_H

#include <mpi.h>
#include <string.h>
#include "autocoll.h"

/* coll: allreduce, allgather, alltoall, bcast, or anything else for reduce; count ints per
 * block; sbuf holds count * p ints, rbuf count * p. Returns 1 when the result is right. */
static inline int ac_sim_checked_call(int coll, int count, int *sbuf, int *rbuf, int iter, int me,
                                      int p, MPI_Comm comm) {
    int n = coll == AUTOCOLL_ALLGATHER || coll == AUTOCOLL_ALLTOALL ? count * p : count, ok = 1;
    for (int i = 0; i < n; i++)
        sbuf[i] = me * 7 + i % 13 + iter;
    switch (coll) {
    case AUTOCOLL_ALLREDUCE:
        MPI_Allreduce(sbuf, rbuf, count, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < count && ok; i++)
            ok = rbuf[i] == 7 * p * (p - 1) / 2 + p * (i % 13 + iter);
        break;
    case AUTOCOLL_ALLGATHER:
        MPI_Allgather(sbuf, count, MPI_INT, rbuf, count, MPI_INT, comm);
        for (int r = 0; r < p && ok; r++)
            for (int i = 0; i < count && ok; i++)
                ok = rbuf[r * count + i] == r * 7 + i % 13 + iter;
        break;
    case AUTOCOLL_ALLTOALL:
        MPI_Alltoall(sbuf, count, MPI_INT, rbuf, count, MPI_INT, comm);
        for (int r = 0; r < p && ok; r++)
            for (int i = 0; i < count && ok; i++)
                ok = rbuf[r * count + i] == r * 7 + (me * count + i) % 13 + iter;
        break;
    case AUTOCOLL_BCAST:
        if (me == 0) memcpy(rbuf, sbuf, (size_t)count * sizeof(int));
        MPI_Bcast(rbuf, count, MPI_INT, 0, comm);
        for (int i = 0; i < count && ok; i++)
            ok = rbuf[i] == i % 13 + iter;
        break;
    default:
        MPI_Reduce(sbuf, rbuf, count, MPI_INT, MPI_SUM, 0, comm);
        for (int i = 0; i < count && ok && me == 0; i++)
            ok = rbuf[i] == 7 * p * (p - 1) / 2 + p * (i % 13 + iter);
    }
    return ok;
}

#endif
