/* Prototypes of every registered algorithm, from the .def lists. A composite algorithm includes
 * this header to call its parts (their instances come from its alg(...) parameters). */
#ifndef AC_ALGS_H
#define AC_ALGS_H
#include "../core/ac.h"

#define AC_ALG(C, NAME, FN, GROUP, FLAGS, PARAMS, COST, DESC)                                      \
    int FN(const ac_args_t *, const ac_inst_t *, ac_ctx_t *);
#include "allgather/allgather.def"
#include "allgatherv/allgatherv.def"
#include "alltoall/alltoall.def"
#include "alltoallv/alltoallv.def"
#include "bcast/bcast.def"
#include "reduce/reduce.def"
#include "allreduce/allreduce.def"
#include "reduce_scatter/reduce_scatter.def"
#include "reduce_scatter_block/reduce_scatter_block.def"
#include "gather/gather.def"
#include "scatter/scatter.def"
#include "barrier/barrier.def"
#undef AC_ALG

/* Run instance `in` of another collective with the argument record `a` (a composite's part). */
static inline int ac_run_part(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    return in->alg->fn(a, in, ctx);
}
#endif
