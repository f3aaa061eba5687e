/* The argument record of a composite's part call (see algs.h). Not an algorithm of its own. */
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
