/*
 * The root's side of the hierarchical gather and scatter (gather_hier.c, scatter_hier.c): the p
 * blocks of the call in node order (regions of ac_node_regions, src/sched/sched.h) and one
 * message per node between the root and that node's leader. Not an algorithm of its own.
 */
#ifndef AC_HIER_ROOT_H
#define AC_HIER_ROOT_H
#include "../core/ac.h"

typedef struct {
    char *all; /* p blocks of count x type; node n's region starts at block start[n] */
    MPI_Aint blk;
    int count;
    MPI_Datatype type;
    int *size, *start, *pos; /* ac_node_regions: blocks per node, first block, slot of rank r */
    MPI_Request *req;        /* one per node */
    int nreq;
    void *base;
} ac_hier_root_t;

/* Allocate the buffer and compute the layout (ctx: the node layout of the call's communicator
 * of p ranks). MPI_ERR_NO_MEM when out of memory; ac_hier_root_free in every case. */
int ac_hier_root_init(ac_hier_root_t *h, const ac_ctx_t *ctx, int p, int count, MPI_Datatype type);
/* Block slot idx of the buffer. */
static inline char *ac_hier_root_at(const ac_hier_root_t *h, int idx) {
    return h->all + (MPI_Aint)idx * h->blk;
}
/* Post the receive (send = 0) or the send of every node's region from (to) its leader over
 * comm, except the root's own node when the root is its leader. */
int ac_hier_root_post(ac_hier_root_t *h, const ac_ctx_t *ctx, int send, MPI_Comm comm, int tag);
/* Wait for the posted messages. */
int ac_hier_root_wait(ac_hier_root_t *h);
/* Complete what is still posted (after an error) and free. */
void ac_hier_root_free(ac_hier_root_t *h);
#endif
