/*
 * Completion of the argument record: in-place flag, commutativity and the selection size.
 *
 * The selection size `bytes` must be identical on every rank (DESIGN.md, agreement), so it is
 * defined per collective from arguments that MPI requires to match (the size column of
 * autocoll_colls.def, computed by ac_coll_bytes in coll.c):
 *   allgather, alltoall            bytes of one block (recvcount x size(recvtype))
 *   allgatherv, reduce_scatter     total bytes of the result vector (sum of recvcounts)
 *   reduce_scatter_block           bytes of one block
 *   bcast, reduce, allreduce       bytes of the buffer
 *   gather, scatter                bytes of one block (root: its recv/send side; others: theirs)
 *   barrier                        0
 *   alltoallv                      this rank's send bytes; differs between ranks, so bytes_local
 *                                  is set and nothing may be selected on it.
 */
#include "ac.h"

void ac_args_finish(ac_args_t *a) {
    /* MPI_IN_PLACE is the send buffer everywhere except scatter, where the root passes it as the
     * receive buffer. For rooted collectives only the root knows: nothing selects on it. */
    a->inplace = a->coll == AUTOCOLL_SCATTER ? a->rbuf == MPI_IN_PLACE : a->sbuf == MPI_IN_PLACE;
    a->commutative = 1;
    /* The predefined operations are commutative: no call for them. */
    MPI_Op o = a->op;
    if (o != MPI_OP_NULL && o != 0 && o != MPI_SUM && o != MPI_MAX && o != MPI_MIN &&
        o != MPI_PROD && o != MPI_BAND && o != MPI_BOR && o != MPI_BXOR && o != MPI_LAND &&
        o != MPI_LOR && o != MPI_LXOR && o != MPI_MAXLOC && o != MPI_MINLOC)
        PMPI_Op_commutative(o, &a->commutative);
    a->bytes = ac_coll_bytes(a, &a->bytes_local);
}

size_t ac_size_class(size_t bytes) {
    size_t c = 1;
    if (bytes == 0) return 0;
    while (c <= bytes / 2)
        c *= 2;
    return c;
}
