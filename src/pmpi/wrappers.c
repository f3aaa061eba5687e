/*
 * Interposition: MPI_<Coll> and autocoll_<coll> build an argument record, note the call site and
 * go through ac_dispatch. MPI_Init, MPI_Init_thread and MPI_Finalize set up and tear down the
 * library. Works linked before -lmpi and with LD_PRELOAD into an unmodified program.
 */
#include <stdio.h>
#include <stdlib.h>
#include "pmpi.h"

#define SITE __builtin_return_address(0)

int ac_call_allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                      MPI_Comm comm, void *site) {
    AC_PASS_RAW(PMPI_Allgather(sb, sc, st, rb, rc, rt, comm), site, comm, AUTOCOLL_ALLGATHER, rc,
                rt, MPI_OP_NULL, 0, sb == MPI_IN_PLACE)
    ac_args_t a = {.coll = AUTOCOLL_ALLGATHER,
                   .sbuf = sb,
                   .scount = sc,
                   .stype = st,
                   .rbuf = rb,
                   .rcount = rc,
                   .rtype = rt,
                   .op = MPI_OP_NULL,
                   .ucomm = comm,
                   .site = site};
    return ac_dispatch(&a);
}
AC_EXPORT int MPI_Allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                            MPI_Datatype rt, MPI_Comm comm) {
    return ac_call_allgather(sb, sc, st, rb, rc, rt, comm, SITE);
}
AC_EXPORT int autocoll_allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                                 MPI_Datatype rt, MPI_Comm comm) {
    return ac_call_allgather(sb, sc, st, rb, rc, rt, comm, SITE);
}

int ac_call_allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int *rcs,
                       const int *dis, MPI_Datatype rt, MPI_Comm comm, void *site) {
    if (ac_pass(comm, AUTOCOLL_ALLGATHERV))
        return PMPI_Allgatherv(sb, sc, st, rb, rcs, dis, rt, comm);
    ac_args_t a = {.coll = AUTOCOLL_ALLGATHERV,
                   .sbuf = sb,
                   .scount = sc,
                   .stype = st,
                   .rbuf = rb,
                   .rcounts = rcs,
                   .rdispls = dis,
                   .rtype = rt,
                   .op = MPI_OP_NULL,
                   .ucomm = comm,
                   .site = site};
    return ac_dispatch(&a);
}
AC_EXPORT int MPI_Allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[],
                             const int dis[], MPI_Datatype rt, MPI_Comm comm) {
    return ac_call_allgatherv(sb, sc, st, rb, rcs, dis, rt, comm, SITE);
}
AC_EXPORT int autocoll_allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb,
                                  const int rcs[], const int dis[], MPI_Datatype rt,
                                  MPI_Comm comm) {
    return ac_call_allgatherv(sb, sc, st, rb, rcs, dis, rt, comm, SITE);
}

int ac_call_alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                     MPI_Comm comm, void *site) {
    AC_PASS_RAW(PMPI_Alltoall(sb, sc, st, rb, rc, rt, comm), site, comm, AUTOCOLL_ALLTOALL, rc, rt,
                MPI_OP_NULL, 0, sb == MPI_IN_PLACE)
    ac_args_t a = {.coll = AUTOCOLL_ALLTOALL,
                   .sbuf = sb,
                   .scount = sc,
                   .stype = st,
                   .rbuf = rb,
                   .rcount = rc,
                   .rtype = rt,
                   .op = MPI_OP_NULL,
                   .ucomm = comm,
                   .site = site};
    return ac_dispatch(&a);
}
AC_EXPORT int MPI_Alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                           MPI_Datatype rt, MPI_Comm comm) {
    return ac_call_alltoall(sb, sc, st, rb, rc, rt, comm, SITE);
}
AC_EXPORT int autocoll_alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                                MPI_Datatype rt, MPI_Comm comm) {
    return ac_call_alltoall(sb, sc, st, rb, rc, rt, comm, SITE);
}

int ac_call_alltoallv(const void *sb, const int *scs, const int *sds, MPI_Datatype st, void *rb,
                      const int *rcs, const int *rds, MPI_Datatype rt, MPI_Comm comm, void *site) {
    if (ac_pass(comm, AUTOCOLL_ALLTOALLV))
        return PMPI_Alltoallv(sb, scs, sds, st, rb, rcs, rds, rt, comm);
    ac_args_t a = {.coll = AUTOCOLL_ALLTOALLV,
                   .sbuf = sb,
                   .scounts = scs,
                   .sdispls = sds,
                   .stype = st,
                   .rbuf = rb,
                   .rcounts = rcs,
                   .rdispls = rds,
                   .rtype = rt,
                   .op = MPI_OP_NULL,
                   .ucomm = comm,
                   .site = site};
    return ac_dispatch(&a);
}
AC_EXPORT int MPI_Alltoallv(const void *sb, const int scs[], const int sds[], MPI_Datatype st,
                            void *rb, const int rcs[], const int rds[], MPI_Datatype rt,
                            MPI_Comm comm) {
    return ac_call_alltoallv(sb, scs, sds, st, rb, rcs, rds, rt, comm, SITE);
}
AC_EXPORT int autocoll_alltoallv(const void *sb, const int scs[], const int sds[], MPI_Datatype st,
                                 void *rb, const int rcs[], const int rds[], MPI_Datatype rt,
                                 MPI_Comm comm) {
    return ac_call_alltoallv(sb, scs, sds, st, rb, rcs, rds, rt, comm, SITE);
}

int ac_call_bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm, void *site) {
    AC_PASS_RAW(PMPI_Bcast(buf, count, t, root, comm), site, comm, AUTOCOLL_BCAST, count, t,
                MPI_OP_NULL, root, 0)
    ac_args_t a = {.coll = AUTOCOLL_BCAST,
                   .rbuf = buf,
                   .rcount = count,
                   .rtype = t,
                   .scount = count,
                   .stype = t,
                   .root = root,
                   .op = MPI_OP_NULL,
                   .ucomm = comm,
                   .site = site};
    return ac_dispatch(&a);
}
AC_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm) {
    return ac_call_bcast(buf, count, t, root, comm, SITE);
}
AC_EXPORT int autocoll_bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm) {
    return ac_call_bcast(buf, count, t, root, comm, SITE);
}

int ac_call_reduce(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, int root,
                   MPI_Comm comm, void *site) {
    AC_PASS_RAW(PMPI_Reduce(sb, rb, count, t, op, root, comm), site, comm, AUTOCOLL_REDUCE, count,
                t, op, root, sb == MPI_IN_PLACE)
    ac_args_t a = {.coll = AUTOCOLL_REDUCE,
                   .sbuf = sb,
                   .rbuf = rb,
                   .scount = count,
                   .rcount = count,
                   .stype = t,
                   .rtype = t,
                   .op = op,
                   .root = root,
                   .ucomm = comm,
                   .site = site};
    return ac_dispatch(&a);
}
AC_EXPORT int MPI_Reduce(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, int root,
                         MPI_Comm comm) {
    return ac_call_reduce(sb, rb, count, t, op, root, comm, SITE);
}
AC_EXPORT int autocoll_reduce(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op,
                              int root, MPI_Comm comm) {
    return ac_call_reduce(sb, rb, count, t, op, root, comm, SITE);
}

int ac_call_allreduce(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                      void *site) {
    AC_PASS_RAW(PMPI_Allreduce(sb, rb, count, t, op, comm), site, comm, AUTOCOLL_ALLREDUCE, count,
                t, op, 0, sb == MPI_IN_PLACE)
    ac_args_t a = {.coll = AUTOCOLL_ALLREDUCE,
                   .sbuf = sb,
                   .rbuf = rb,
                   .scount = count,
                   .rcount = count,
                   .stype = t,
                   .rtype = t,
                   .op = op,
                   .ucomm = comm,
                   .site = site};
    return ac_dispatch(&a);
}
AC_EXPORT int MPI_Allreduce(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op,
                            MPI_Comm comm) {
    return ac_call_allreduce(sb, rb, count, t, op, comm, SITE);
}
AC_EXPORT int autocoll_allreduce(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op,
                                 MPI_Comm comm) {
    return ac_call_allreduce(sb, rb, count, t, op, comm, SITE);
}

int ac_call_reduce_scatter(const void *sb, void *rb, const int *rcs, MPI_Datatype t, MPI_Op op,
                           MPI_Comm comm, void *site) {
    if (ac_pass(comm, AUTOCOLL_REDUCE_SCATTER))
        return PMPI_Reduce_scatter(sb, rb, rcs, t, op, comm);
    ac_args_t a = {.coll = AUTOCOLL_REDUCE_SCATTER,
                   .sbuf = sb,
                   .rbuf = rb,
                   .rcounts = rcs,
                   .stype = t,
                   .rtype = t,
                   .op = op,
                   .ucomm = comm,
                   .site = site};
    return ac_dispatch(&a);
}
AC_EXPORT int MPI_Reduce_scatter(const void *sb, void *rb, const int rcs[], MPI_Datatype t,
                                 MPI_Op op, MPI_Comm comm) {
    return ac_call_reduce_scatter(sb, rb, rcs, t, op, comm, SITE);
}
AC_EXPORT int autocoll_reduce_scatter(const void *sb, void *rb, const int rcs[], MPI_Datatype t,
                                      MPI_Op op, MPI_Comm comm) {
    return ac_call_reduce_scatter(sb, rb, rcs, t, op, comm, SITE);
}

int ac_call_reduce_scatter_block(const void *sb, void *rb, int rc, MPI_Datatype t, MPI_Op op,
                                 MPI_Comm comm, void *site) {
    AC_PASS_RAW(PMPI_Reduce_scatter_block(sb, rb, rc, t, op, comm), site, comm,
                AUTOCOLL_REDUCE_SCATTER_BLOCK, rc, t, op, 0, sb == MPI_IN_PLACE)
    ac_args_t a = {.coll = AUTOCOLL_REDUCE_SCATTER_BLOCK,
                   .sbuf = sb,
                   .rbuf = rb,
                   .rcount = rc,
                   .scount = rc,
                   .stype = t,
                   .rtype = t,
                   .op = op,
                   .ucomm = comm,
                   .site = site};
    return ac_dispatch(&a);
}
AC_EXPORT int MPI_Reduce_scatter_block(const void *sb, void *rb, int rc, MPI_Datatype t, MPI_Op op,
                                       MPI_Comm comm) {
    return ac_call_reduce_scatter_block(sb, rb, rc, t, op, comm, SITE);
}
AC_EXPORT int autocoll_reduce_scatter_block(const void *sb, void *rb, int rc, MPI_Datatype t,
                                            MPI_Op op, MPI_Comm comm) {
    return ac_call_reduce_scatter_block(sb, rb, rc, t, op, comm, SITE);
}

int ac_call_gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                   int root, MPI_Comm comm, void *site) {
    if (ac_pass(comm, AUTOCOLL_GATHER)) return PMPI_Gather(sb, sc, st, rb, rc, rt, root, comm);
    ac_args_t a = {.coll = AUTOCOLL_GATHER,
                   .sbuf = sb,
                   .scount = sc,
                   .stype = st,
                   .rbuf = rb,
                   .rcount = rc,
                   .rtype = rt,
                   .root = root,
                   .op = MPI_OP_NULL,
                   .ucomm = comm,
                   .site = site};
    return ac_dispatch(&a);
}
AC_EXPORT int MPI_Gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                         int root, MPI_Comm comm) {
    return ac_call_gather(sb, sc, st, rb, rc, rt, root, comm, SITE);
}
AC_EXPORT int autocoll_gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                              MPI_Datatype rt, int root, MPI_Comm comm) {
    return ac_call_gather(sb, sc, st, rb, rc, rt, root, comm, SITE);
}

int ac_call_scatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                    int root, MPI_Comm comm, void *site) {
    if (ac_pass(comm, AUTOCOLL_SCATTER)) return PMPI_Scatter(sb, sc, st, rb, rc, rt, root, comm);
    ac_args_t a = {.coll = AUTOCOLL_SCATTER,
                   .sbuf = sb,
                   .scount = sc,
                   .stype = st,
                   .rbuf = rb,
                   .rcount = rc,
                   .rtype = rt,
                   .root = root,
                   .op = MPI_OP_NULL,
                   .ucomm = comm,
                   .site = site};
    return ac_dispatch(&a);
}
AC_EXPORT int MPI_Scatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                          MPI_Datatype rt, int root, MPI_Comm comm) {
    return ac_call_scatter(sb, sc, st, rb, rc, rt, root, comm, SITE);
}
AC_EXPORT int autocoll_scatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                               MPI_Datatype rt, int root, MPI_Comm comm) {
    return ac_call_scatter(sb, sc, st, rb, rc, rt, root, comm, SITE);
}

int ac_call_barrier(MPI_Comm comm, void *site) {
    AC_PASS_RAW(PMPI_Barrier(comm), site, comm, AUTOCOLL_BARRIER, 0, MPI_DATATYPE_NULL, MPI_OP_NULL,
                0, 0)
    ac_args_t a = {.coll = AUTOCOLL_BARRIER, .op = MPI_OP_NULL, .ucomm = comm, .site = site};
    return ac_dispatch(&a);
}
AC_EXPORT int MPI_Barrier(MPI_Comm comm) {
    return ac_call_barrier(comm, SITE);
}
AC_EXPORT int autocoll_barrier(MPI_Comm comm) {
    return ac_call_barrier(comm, SITE);
}

/* ---------------------------------------------------------------- life cycle */

/* A library built for another MPI family (Open MPI vs MPICH) cannot use this MPI's handles:
 * say so (once per job) and stay dormant, every call going straight to the MPI library. */
void ac_abi_guard(void) {
    char why[1024];
    int rc = ac_g.initialized ? 0 : ac_mpi_abi_check(why, sizeof why);
    if (rc == 0) return;
    if (why[0]) fprintf(stderr, "autocoll: %s\n", why);
    if (rc == 2) abort(); /* our int handles would truncate the program's pointer handles */
    ac_g.initialized = ac_g.finalized = 1; /* ac_pass and ac_state_teardown do nothing */
}

AC_EXPORT int MPI_Init(int *argc, char ***argv) {
    ac_abi_guard();
    int err = PMPI_Init(argc, argv);
    if (err == MPI_SUCCESS) {
        ac_g.thread_level = MPI_THREAD_SINGLE;
        ac_setup(1);
    }
    return err;
}

AC_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    ac_abi_guard();
    int err = PMPI_Init_thread(argc, argv, required, provided);
    if (err == MPI_SUCCESS) {
        ac_g.thread_level = *provided;
        ac_setup(1);
    }
    return err;
}

AC_EXPORT int MPI_Finalize(void) {
    ac_teardown();
    return PMPI_Finalize();
}
