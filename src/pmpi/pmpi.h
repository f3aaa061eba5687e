/*
 * The interposition layer: MPI_* and autocoll_<coll> entry points (wrappers.c), the Fortran ones
 * (fortran.c), the single path of every collective (dispatch.c) and the per-call statistics
 * (stats.c). The top floor: it asks select for its life cycle (ac_select_setup/_teardown) and one
 * choice record per call (ac_select, ac_select_native, ac_select_done, ac_source_name), and
 * names algorithms through the public listing; nothing below calls it.
 */
#ifndef AC_PMPI_H
#define AC_PMPI_H

#include "../select/select.h"

/* dispatch.c */
int ac_dispatch(ac_args_t *a);
/* 1 when a call of collective coll on comm must go straight to PMPI_<Coll> (see dispatch.c). */
int ac_passthrough(MPI_Comm comm, int coll);
/* ac_passthrough, then for a call it lets in: 1 when the call is an untimed call of a settled key
 * on the MPI library's algorithm, recognised from its raw arguments (dispatch.c: count and type
 * of the selection size, operation, root or 0, in-place flag); it is counted, and the caller
 * runs PMPI_<Coll>. 0: build the argument record and dispatch. */
int ac_pass_raw(MPI_Comm comm, int coll, int count, MPI_Datatype t, MPI_Op op, int root,
                int inplace);
/* Set up core then select (collective over MPI_COMM_WORLD when collective is 1), and the
 * reverse at MPI_Finalize. */
void ac_setup(int collective);
void ac_teardown(void);
/* trace_mpi.c: tracing settings, clock offsets and the trace file (docs/tracing.md) */
void ac_trace_mpi_setup(int collective);
void ac_trace_mpi_teardown(void);
/* The trace key of a context: (world rank of its rank 0 + 1) << 32 | that rank's creation number
 * of the context, agreed by one broadcast at the first traced call on it (collective over the
 * communicator); a local key ((0 << 32) | own number) when the settings are not known to agree. */
long long ac_trace_comm_key(ac_ctx_t *ctx);
/* trace_p2p.c: frees the identifier maps of point-to-point tracing (at MPI_Finalize). */
void ac_trace_p2p_free(void);
/* Calibrates the wrapper overheads of spec 2.3 (point-to-point tracing on; at MPI_Init). */
void ac_trace_p2p_calibrate(void);

/* wrappers.c: the entry of each collective, with the call site (the caller's return address)
 * that AUTOCOLL_SITES keys on; MPI_<Coll>, autocoll_<coll> and the Fortran entry points call
 * them. */
int ac_call_allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                      MPI_Comm comm, void *site);
int ac_call_allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int *rcs,
                       const int *dis, MPI_Datatype rt, MPI_Comm comm, void *site);
int ac_call_alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                     MPI_Comm comm, void *site);
int ac_call_alltoallv(const void *sb, const int *scs, const int *sds, MPI_Datatype st, void *rb,
                      const int *rcs, const int *rds, MPI_Datatype rt, MPI_Comm comm, void *site);
int ac_call_bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm, void *site);
int ac_call_reduce(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, int root,
                   MPI_Comm comm, void *site);
int ac_call_allreduce(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                      void *site);
int ac_call_reduce_scatter(const void *sb, void *rb, const int *rcs, MPI_Datatype t, MPI_Op op,
                           MPI_Comm comm, void *site);
int ac_call_reduce_scatter_block(const void *sb, void *rb, int rc, MPI_Datatype t, MPI_Op op,
                                 MPI_Comm comm, void *site);
int ac_call_gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                   int root, MPI_Comm comm, void *site);
int ac_call_scatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                    int root, MPI_Comm comm, void *site);
int ac_call_barrier(MPI_Comm comm, void *site);
/* At MPI_Init: a library built for the other MPI family says so and stays dormant, or stops the
 * program when even that cannot work (before PMPI_Init). */
void ac_abi_guard(void);

/* stats.c (AUTOCOLL_VERBOSE >= 1) */
void ac_stats_add(int coll, int alg, double seconds);
/* One call whose forced instance could not run (counted by the communicator's rank 0). */
void ac_stats_fallback(int coll);
void ac_stats_report(void); /* collective over MPI_COMM_WORLD; at finalize */

#endif
