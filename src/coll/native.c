/*
 * Algorithm: native — the MPI library's own collective (PMPI_<Coll> on the user's communicator,
 *   so its selection logic, error handler and in-place handling apply unchanged).
 * Cost: whatever the library's decision rules pick.
 * Restrictions: none (AUTOCOLL_R_NATIVE marks it).
 * Reference: the baseline of every comparison in seed 000 (Faraj 2006, STAGE/STAR-MPI chapters).
 */
#include "../core/ac.h"

#define UNUSED (void)in, (void)ctx

int ac_allgather_native(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    UNUSED;
    return PMPI_Allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->ucomm);
}
int ac_allgatherv_native(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    UNUSED;
    return PMPI_Allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls, a->rtype,
                           a->ucomm);
}
int ac_alltoall_native(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    UNUSED;
    return PMPI_Alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->ucomm);
}
int ac_alltoallv_native(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    UNUSED;
    return PMPI_Alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcounts,
                          a->rdispls, a->rtype, a->ucomm);
}
int ac_bcast_native(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    UNUSED;
    return PMPI_Bcast(a->rbuf, a->rcount, a->rtype, a->root, a->ucomm);
}
int ac_reduce_native(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    UNUSED;
    return PMPI_Reduce(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->root, a->ucomm);
}
int ac_allreduce_native(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    UNUSED;
    return PMPI_Allreduce(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->ucomm);
}
int ac_reduce_scatter_native(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    UNUSED;
    return PMPI_Reduce_scatter(a->sbuf, a->rbuf, a->rcounts, a->rtype, a->op, a->ucomm);
}
int ac_reduce_scatter_block_native(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    UNUSED;
    return PMPI_Reduce_scatter_block(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->ucomm);
}
int ac_gather_native(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    UNUSED;
    return PMPI_Gather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root,
                       a->ucomm);
}
int ac_scatter_native(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    UNUSED;
    return PMPI_Scatter(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root,
                        a->ucomm);
}
int ac_barrier_native(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    UNUSED;
    return PMPI_Barrier(a->ucomm);
}
