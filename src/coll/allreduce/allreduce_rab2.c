/*
 * Algorithm: Rab2-(x,y) (STAR type 3): the vector is cut into p blocks (block b: count/p
 *   elements, one more when b < count % p); an alltoallv x (parameter `a2a`) sends block b of
 *   every rank to rank b, which then holds the p pieces of its block in rank order and reduces
 *   them as x_0 op (x_1 op (... op x_{p-1})); an allgatherv y (parameter `ag`) in place then
 *   distributes the reduced blocks. Each block is reduced once, so bytes agree on all ranks.
 * Cost: T_alltoallv(n/p, p) + ((p-1)/p) n gamma + T_allgatherv(n, p); n = vector bytes.
 * Restrictions: none (rank-ordered). Memory: p pieces of one block.
 * Reference: seed 000 (Faraj 2006), STAR allreduce repository type 3 (Rab2-(ring,TSLR),
 *   Rab2-(ring,ring), ...), STAGE "Rab2", spec star-stage-ethernet.md section 2.4.
 */
#include <stdlib.h>
#include "../algs.h"
#include "../../sched/rs_core.h"

int ac_allreduce_rab2(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    int err = MPI_SUCCESS, p = a->size, me = a->rank, n = a->rcount;
    MPI_Datatype t = a->rtype;
    void *pbase = NULL;
    size_t *blk = malloc(((size_t)p + 1) * sizeof *blk);
    int *c = malloc(4 * (size_t)p * sizeof *c);
    char *pieces = NULL;
    if (!blk || !c) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    ac_rs_split((size_t)n, p, blk);
    int mc = (int)(blk[me + 1] - blk[me]);
    int *sc = c, *sd = c + p, *rc = c + 2 * p, *rd = c + 3 * p;
    for (int i = 0; i < p; i++) {
        sc[i] = (int)(blk[i + 1] - blk[i]);
        sd[i] = (int)blk[i];
        rc[i] = mc;
        rd[i] = i * mc;
    }
    if (!(pieces = ac_dt_alloc(t, (size_t)mc * (size_t)p, &pbase))) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    ac_args_t x = ac_part_args(a, AUTOCOLL_ALLTOALLV, a->comm, 0, ac_rs_input(a), pieces, 0, t);
    x.scounts = sc;
    x.sdispls = sd;
    x.rcounts = rc;
    x.rdispls = rd;
    AC_CHECK(ac_run_part_alg(&x, ac_param_alg(in, "a2a"), ctx));
    char *mine = ac_dt_at(a->rbuf, t, blk[me]);
    AC_CHECK(ac_dt_copy(ac_dt_at(pieces, t, (size_t)(p - 1) * (size_t)mc), mc, t, mine, mc, t));
    for (int r = p - 2; r >= 0; r--)
        AC_CHECK(
            PMPI_Reduce_local(ac_dt_at(pieces, t, (size_t)r * (size_t)mc), mine, mc, t, a->op));
    ac_args_t y = ac_part_allgatherv(a, a->comm, a->rbuf, sc, sd, t);
    AC_CHECK(ac_run_part_alg(&y, ac_param_alg(in, "ag"), ctx));
fn_exit:
    free(blk);
    free(c);
    free(pbase);
    return err;
}
