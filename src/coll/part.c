/* Helpers on argument records (see algs.h): a composite's part call, and the block counts and
 * offsets of reduce_scatter and reduce_scatter_block calls. Not an algorithm of its own. */
#include <stdlib.h>
#include "algs.h"

ac_args_t ac_part_args(const ac_args_t *a, int coll, MPI_Comm comm, int root, const void *sbuf,
                       void *rbuf, int count, MPI_Datatype type) {
    ac_args_t x = *a;
    x.coll = coll;
    x.comm = comm;
    if (comm != a->comm) {
        PMPI_Comm_rank(comm, &x.rank);
        PMPI_Comm_size(comm, &x.size);
    }
    x.root = root;
    x.sbuf = sbuf;
    x.rbuf = rbuf;
    x.scount = x.rcount = count;
    x.stype = x.rtype = type;
    x.scounts = x.sdispls = x.rcounts = x.rdispls = NULL;
    /* As the dispatcher sets it (core/coll.c). */
    x.inplace = coll == AUTOCOLL_SCATTER ? rbuf == MPI_IN_PLACE : sbuf == MPI_IN_PLACE;
    return x;
}

const int *ac_rsc_counts(const ac_args_t *a, int **owned) {
    *owned = NULL;
    if (a->coll != AUTOCOLL_REDUCE_SCATTER_BLOCK) return a->rcounts;
    int *c = malloc((size_t)a->size * sizeof *c);
    if (!c) return NULL;
    for (int r = 0; r < a->size; r++)
        c[r] = a->rcount;
    *owned = c;
    return c;
}

size_t *ac_rsc_offsets(const int *counts, int p) {
    size_t *off = malloc(((size_t)p + 1) * sizeof *off);
    if (!off) return NULL;
    off[0] = 0;
    for (int r = 0; r < p; r++)
        off[r + 1] = off[r] + (size_t)counts[r];
    return off;
}
