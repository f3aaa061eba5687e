/*
 * Pipelined broadcast and reduce on an explicit tree (parent and up to two children per rank),
 * shared by the topology-specific bcast and reduce algorithms (bcast_topo_chain.c,
 * bcast_topo_tree.c, ../reduce/reduce_topo_chain.c). Not an algorithm of its own: Algorithm,
 * Cost, Restrictions and Reference are given by each algorithm file.
 */
#ifndef AC_BCAST_TOPO_PIPE_H
#define AC_BCAST_TOPO_PIPE_H
#include "../../core/ac.h"

/* Segments of seg elements: receive segment j from parent (none at the root), forward it to
 * every child while segment j+1 is already posted. */
int ac_topo_pipe_bcast(void *buf, int count, MPI_Datatype type, int parent, const int *child,
                       int nchild, size_t seg, MPI_Comm comm, int tag);
/* The mirror: segment j of every child's partial result is combined into a copy of mine
 * (op must commute: children are combined in arrival-independent but fixed order) and sent to
 * the parent; the root ends with the result in rbuf. */
int ac_topo_pipe_reduce(const void *mine, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                        int parent, const int *child, int nchild, size_t seg, MPI_Comm comm,
                        int tag);
#endif
