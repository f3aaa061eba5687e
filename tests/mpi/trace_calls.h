/*
 * The collective calls that trace_calls.c makes and trace_check.c expects in every rank's trace
 * file (docs/tracing.md): one table for both programs.
 */
#ifndef AC_TEST_TRACE_CALLS_H
#define AC_TEST_TRACE_CALLS_H

#include "autocoll.h"

/* Calls on MPI_COMM_WORLD, in order (count elements of the type given, root where rooted). */
typedef struct {
    int coll, calls, count, elem, root;
} tc_call_t;

static const tc_call_t tc_world[] = {
    {AUTOCOLL_ALLREDUCE, 5, 1, 8, -1}, /* 8 B allreduce */
    {AUTOCOLL_BCAST, 3, 100, 4, 1},    /* 400 B, root 1 (forced instance: TC_BCAST_INST) */
    {AUTOCOLL_REDUCE, 2, 16, 8, 2},    /* 128 B, root 2 */
    {AUTOCOLL_BARRIER, 4, 0, 0, -1},   {AUTOCOLL_ALLGATHER, 1, 1, 4, -1}, /* 4 B per block */
    {AUTOCOLL_ALLTOALL, 6, 2, 4, -1}, /* 8 B per block; the last rank arrives TC_LATE_MS late */
};
enum { TC_NWORLD = sizeof tc_world / sizeof tc_world[0] };
/* On the communicator of the even world ranks (split): allreduce calls of 2 doubles. */
enum { TC_SUB_ALLREDUCE = 7, TC_LATE_MS = 20, TC_NP = 3 };
/* trace_p2p.c */
enum { TP_ITER = 50 };
/* trace_p2p.c --persistent: iterations of the persistent loop */
enum { TP_PITER = 20 };
#define TC_BCAST_INST "binomial"

#endif
