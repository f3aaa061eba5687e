/*
 * The phase executor of alltoall.topo_aapc (alltoall_topo_aapc.c), shared with the composites
 * that run an all-to-all exchange on the AUTOCOLL_TOPOLOGY tree (allreduce.topo_rab2 runs its
 * reduce-scatter exchange through it). Not an algorithm of its own: Algorithm, Cost,
 * Restrictions and Reference are given by each algorithm file.
 */
#ifndef AC_ALLTOALL_TOPO_AAPC_H
#define AC_ALLTOALL_TOPO_AAPC_H
#include "../../core/ac.h"

/* Runs the alltoall or alltoallv call a in the contention-free AAPC phases of ctx's topology
 * under scheme sync ("nosync", "dummy", "sender", "bar_none8", ...; the values of topo_aapc's
 * sync parameter); tokens only when tokens is set. MPI_ERR_ARG when the call is not on the
 * context's own communicator with its topology view (a guard: the registry's TOPOLOGY_FILE
 * restriction keeps such calls away), on a bad scheme or a token scheme without tokens;
 * MPI_ERR_NO_MEM. Every scheme serves alltoall and alltoallv calls (a dummy from x to y carries
 * x's block for y). */
int ac_a2a_topo_phases(const ac_args_t *a, const char *sync, int tokens, ac_ctx_t *ctx);
#endif
