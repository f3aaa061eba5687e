/*
 * The links of a rank in the contention-free chain of Algorithm 4 (src/topo/rings.c,
 * ac_bcast_chain), shared by bcast.topo_chain and its mirror reduce.topo_chain; the pipelines
 * themselves are the tree executors of src/sched/tree.h on explicit links (ac_node_bcast,
 * ac_node_reduce). Not an algorithm of its own: Algorithm, Cost, Restrictions and Reference are
 * given by each algorithm file.
 */
#ifndef AC_BCAST_TOPO_CHAIN_H
#define AC_BCAST_TOPO_CHAIN_H
#include "../../core/ac.h"

/* Predecessor and successor of a->rank in the chain from a->root (-1 at the ends). MPI_ERR_ARG
 * when the call is not on the context's own communicator with its topology view (a guard: the
 * registry's TOPOLOGY_FILE restriction keeps such calls away), MPI_ERR_NO_MEM. */
int ac_topo_chain_links(const ac_args_t *a, ac_ctx_t *ctx, int *parent, int *child);
#endif
