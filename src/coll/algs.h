/* Prototypes of every registered algorithm, from the .def lists (the build lists them all in
 * ac_alg_lists.def, see CMakeLists.txt). A composite algorithm includes
 * this header to call its parts (their instances come from its alg(...) parameters).
 *
 * A .def line names the function that runs the algorithm. Several lines may name the same
 * function: an allgather body that reads the v-counts of the argument record serves allgatherv
 * too, a reduce_scatter body serves reduce_scatter_block (ac_rsc_counts), and an algorithm that
 * is another one with a parameter fixed is registered with that one's function when the function
 * reads the parameter's absence (ac_param_int returns -1) as that fixed value. */
#ifndef AC_ALGS_H
#define AC_ALGS_H
#include "../core/ac.h"

#define AC_ALG(C, NAME, FN, GROUP, FLAGS, PARAMS, COST, DESC)                                      \
    int FN(const ac_args_t *, const ac_inst_t *, ac_ctx_t *);
#include "ac_alg_lists.def" /* every src/coll/<c>/<c>.def, listed by the build */
#undef AC_ALG

/* Run instance `in` of another collective with the argument record `a` (a composite's part). */
static inline int ac_run_part(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    return in->alg->fn(a, in, ctx);
}

/* Run the default instance of alg (the value of a composite's alg(...) parameter). */
static inline int ac_run_part_alg(const ac_args_t *a, const ac_alg_t *alg, ac_ctx_t *ctx) {
    ac_inst_t inst;
    ac_inst_default(alg, &inst);
    return ac_run_part(a, &inst, ctx);
}

/* The argument record of a part call (part.c): collective coll of the composite call a, run on
 * comm (a->comm, or a node or leader communicator: rank and size are then asked from it), with
 * root `root`, send buffer sbuf (MPI_IN_PLACE: in place; for scatter, rbuf MPI_IN_PLACE) and
 * receive buffer rbuf, count elements of type on both sides. Everything else is the parent's:
 * the call's tag range (the part's tags follow from coll), operation, commutativity, user
 * communicator (a part that may be the MPI library's collective on another communicator sets
 * ucomm itself). Vector forms set their count and displacement arrays (NULL here) afterwards. */
ac_args_t ac_part_args(const ac_args_t *a, int coll, MPI_Comm comm, int root, const void *sbuf,
                       void *rbuf, int count, MPI_Datatype type);
/* The record of an in-place allgatherv part over comm: block r of buf is counts[r] elements of
 * type at displs[r] (elements), every rank's own block already in place. */
static inline ac_args_t ac_part_allgatherv(const ac_args_t *a, MPI_Comm comm, void *buf,
                                           const int *counts, const int *displs,
                                           MPI_Datatype type) {
    ac_args_t x = ac_part_args(a, AUTOCOLL_ALLGATHERV, comm, 0, MPI_IN_PLACE, buf, 0, type);
    x.rcounts = counts;
    x.rdispls = displs;
    return x;
}

/* part.c: reduce_scatter and reduce_scatter_block calls (the latter served by the former's
 * functions). */
/* The block counts: a->rcounts (reduce_scatter), or p times a->rcount in a new array
 * (reduce_scatter_block) stored in *owned too, for the caller to free (*owned is NULL
 * otherwise). NULL when out of memory. */
const int *ac_rsc_counts(const ac_args_t *a, int **owned);
/* Element offsets of the p blocks (p + 1 entries, malloc'ed): off[r] = counts[0] + ... +
 * counts[r-1]. NULL when out of memory. */
size_t *ac_rsc_offsets(const int *counts, int p);

/* allreduce_rab2.c: the rank-ordered reduce-scatter of Rab2, shared by allreduce and reduce.
 * ac_rab2_blocks cuts count elements into p blocks: block b is sc[b] elements at element offset
 * sd[b] (count/p, one more when b < count % p). ac_rab2_reduce_blocks sends block b of every
 * rank's input (ac_rs_input) to rank b by an alltoallv (algorithm a2a; a2a NULL: the
 * contention-free AAPC phases of the topology under scheme sync, tokens allowed when tokens is
 * set, as ac_a2a_topo_phases), which reduces the p pieces as x_0 op (x_1 op (... op x_{p-1}))
 * into mine (sc[rank] elements of a->rtype). */
int ac_rab2_blocks(int count, int p, int *sc, int *sd);
int ac_rab2_reduce_blocks(const ac_args_t *a, const ac_alg_t *a2a, const char *sync, int tokens,
                          ac_ctx_t *ctx, char *mine, const int *sc, const int *sd);

/* The input vector of a reduction: rbuf when in place. */
static inline const void *ac_rs_input(const ac_args_t *a) {
    return a->inplace ? a->rbuf : a->sbuf;
}
#endif
