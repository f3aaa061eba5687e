/*
 * Algorithm: Rab2-(x,y) (STAR type 3): the vector is cut into p blocks (block b: count/p
 *   elements, one more when b < count % p); an alltoallv x (parameter `a2a`) sends block b of
 *   every rank to rank b, which then holds the p pieces of its block in rank order and reduces
 *   them as x_0 op (x_1 op (... op x_{p-1})); an allgatherv y (parameter `ag`) in place then
 *   distributes the reduced blocks. Each block is reduced once, so bytes agree on all ranks.
 *   topo_rab2 and topo_rab2_token are the same function with the parts fixed by the topology:
 *   x is the contention-free AAPC phase schedule of AUTOCOLL_TOPOLOGY (alltoall.topo_aapc's
 *   executor; spec 3.2-3.3) under the synchronisation scheme of parameter `sync` (Table 3.5,
 *   the values of alltoall.topo_aapc: spec 2.4 defines Rab2's reduce-scatter as the tuned
 *   alltoall, so every scheme the alltoall has is a Rab2 variant) and y the logical ring in
 *   the contention-free order (allgatherv.topo_ring; spec 3.4), both called directly since the
 *   parts' only need, the topology, is the line's own TOPOLOGY_FILE restriction. The two lines
 *   split the schemes as alltoall's topo_aapc_notoken and topo_aapc do: topo_rab2 the schemes
 *   without tokens (nosync, dummy, barrier, bar_none<bs>), topo_rab2_token (its own entry,
 *   ac_allreduce_rab2_token) the token schemes (sender, receiver, their partial and
 *   barrier-combined forms), both at any p; a token scheme forced on topo_rab2 is an invalid
 *   value (MPI_ERR_ARG, on every rank alike). Dummies carry a real block of the exchange
 *   (blocks differ by one element when p does not divide count). Neither part combines: the
 *   pieces still land at rank-indexed offsets and are reduced in rank order, and the ring
 *   moves reduced blocks only, so both keep rab2's order (no ANY_ORDER).
 * Cost: T_alltoallv(n/p, p) + ((p-1)/p) n gamma + T_allgatherv(n, p); n = vector bytes;
 *   topo_rab2(_token): L (alpha + (n/p) beta) + (L-1) theta + (p-1) alpha + ((p-1)/p) n beta
 *   + ((p-1)/p) n gamma, L = |M_0| (p - |M_0|) AAPC phases, no contention on the tree; plus
 *   tokens delta_l per phase (sender/receiver; partial: per block) or barriers delta_h
 *   (barrier: L - 1; bar_*<bs>: (L-1)/bs); dummy: up to L more n/p transfers per rank
 *   inside one switch.
 * Restrictions: none (rank-ordered); topo_rab2, topo_rab2_token: TOPOLOGY_FILE. Memory: p
 *   pieces of one block; the AAPC programs (cached with the communicator, shared with
 *   alltoall.topo_aapc); dummy: one block.
 * Reference: seed 000 (Faraj 2006), STAR allreduce repository type 3 (Rab2-(ring,TSLR),
 *   Rab2-(ring,ring), ...), STAGE "Rab2", spec star-stage-ethernet.md section 2.4; topo_rab2:
 *   the contention-free AAPC and LR rings of §3.2-§3.3 inside the Rab2 composition.
 */
#include <stdlib.h>
#include "../algs.h"
#include "../../sched/rs_core.h"
#include "../alltoall/topo_aapc.h"

int ac_rab2_reduce_blocks(const ac_args_t *a, const ac_alg_t *a2a, const char *sync, int tokens,
                          ac_ctx_t *ctx, char *mine, const int *sc, const int *sd) {
    int err = MPI_SUCCESS, p = a->size, me = a->rank, mc = sc[me];
    MPI_Datatype t = a->rtype;
    void *pbase = NULL;
    int *c = malloc(2 * (size_t)p * sizeof *c);
    char *pieces = ac_dt_alloc(t, (size_t)mc * (size_t)p, &pbase);
    if (!c || !pieces) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    int *rc = c, *rd = c + p;
    for (int i = 0; i < p; i++) {
        rc[i] = mc;
        rd[i] = i * mc;
    }
    ac_args_t x = ac_part_args(a, AUTOCOLL_ALLTOALLV, a->comm, 0, ac_rs_input(a), pieces, 0, t);
    x.scounts = sc;
    x.sdispls = sd;
    x.rcounts = rc;
    x.rdispls = rd;
    if (a2a) /* rab2 (and reduce.rab2) */
        AC_CHECK(ac_run_part_alg(&x, a2a, ctx));
    else /* topo_rab2, topo_rab2_token: the contention-free AAPC phases under scheme sync */
        AC_CHECK(ac_a2a_topo_phases(&x, sync, tokens, ctx));
    AC_CHECK(ac_dt_copy(ac_dt_at(pieces, t, (size_t)(p - 1) * (size_t)mc), mc, t, mine, mc, t));
    for (int r = p - 2; r >= 0; r--)
        AC_CHECK(
            PMPI_Reduce_local(ac_dt_at(pieces, t, (size_t)r * (size_t)mc), mine, mc, t, a->op));
fn_exit:
    free(c);
    free(pbase);
    return err;
}

int ac_rab2_blocks(int count, int p, int *sc, int *sd) {
    size_t *blk = malloc(((size_t)p + 1) * sizeof *blk);
    if (!blk) return MPI_ERR_NO_MEM;
    ac_rs_split((size_t)count, p, blk);
    for (int i = 0; i < p; i++) {
        sc[i] = (int)(blk[i + 1] - blk[i]);
        sd[i] = (int)blk[i];
    }
    free(blk);
    return MPI_SUCCESS;
}

/* tokens: the line runs the token schemes (topo_rab2_token), else those without (topo_rab2) */
static int rab2(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx, int tokens) {
    int err = MPI_SUCCESS, p = a->size;
    int *c = malloc(2 * (size_t)p * sizeof *c);
    if (!c) return MPI_ERR_NO_MEM;
    int *sc = c, *sd = c + p;
    AC_CHECK(ac_rab2_blocks(a->rcount, p, sc, sd));
    AC_CHECK(ac_rab2_reduce_blocks(a, ac_param_alg(in, "a2a"), ac_param_str(in, "sync"), tokens,
                                   ctx, ac_dt_at(a->rbuf, a->rtype, (size_t)sd[a->rank]), sc, sd));
    ac_args_t y = ac_part_allgatherv(a, a->comm, a->rbuf, sc, sd, a->rtype);
    const ac_alg_t *ag = ac_param_alg(in, "ag");
    if (ag) /* rab2 */
        AC_CHECK(ac_run_part_alg(&y, ag, ctx));
    else /* topo_rab2: the contention-free ring of the topology */
        AC_CHECK(ac_allgather_topo_ring(&y, in, ctx));
fn_exit:
    free(c);
    return err;
}

int ac_allreduce_rab2(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    return rab2(a, in, ctx, 0);
}

int ac_allreduce_rab2_token(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    return rab2(a, in, ctx, 1);
}
