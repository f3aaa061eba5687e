/*
 * Algorithm: Rab1-x (STAR type 2): fold p onto p' = 2^floor(lg p) participants (the odd rank of
 *   each leading pair combines x_{2j} op x_{2j+1}), recursive-halving reduce-scatter among them
 *   at distance 1, 2, 4, ... over p' blocks (participant i ends with block bitrev(i), reduced in
 *   rank order), then an allgatherv (any registered allgatherv algorithm, parameter `ag`) over
 *   all p ranks in place: a participant contributes its block at the block's offset, an idle
 *   rank contributes nothing, so idle ranks receive the result without a return step.
 *   topo_rab1 is the same function registered without the parameter: its allgatherv is the
 *   logical ring in the contention-free order of AUTOCOLL_TOPOLOGY (allgatherv.topo_ring, LR3,
 *   else LR2, else LR1; spec 3.4), called directly since the part's only need, the topology,
 *   is the line's own TOPOLOGY_FILE restriction. The ring moves reduced blocks only, so the
 *   order of combination is rab1's.
 * Cost: lg p' alpha + ((p'-1)/p') n (beta + gamma) + T_allgatherv(n, p) [+ fold alpha + n beta];
 *   topo_rab1: T_allgatherv = (p-1) alpha + ((p-1)/p) n beta, no contention on the tree.
 * Restrictions: ANY_ORDER (the fold combines x_{2j} op x_{2j+1} before the halving);
 *   topo_rab1 also TOPOLOGY_FILE. Each block is reduced once, so bytes agree. Memory: one
 *   vector.
 * Reference: seed 000 (Faraj 2006), STAR allreduce repository type 2 (Rab1-simple, -2D, -3D,
 *   -rdb, -bruck, -ring, ...), spec star-stage-ethernet.md section 2.4; topo_rab1: the LR
 *   rings of §3.3.2 inside the Rab1 composition (spec sections 3.4 and 7.2).
 */
#include <stdlib.h>
#include "../algs.h"
#include "../../sched/rs_core.h"

int ac_allreduce_rab1(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    int err = MPI_SUCCESS, p = a->size, n = a->rcount, g = ac_rs_pow_floor(p, 2), own = 0;
    MPI_Datatype t = a->rtype;
    void *tbase = NULL;
    int *map = malloc((size_t)g * sizeof *map);
    int *cnt = calloc((size_t)p, sizeof *cnt), *dsp = calloc((size_t)p, sizeof *dsp);
    size_t *blk = malloc(((size_t)g + 1) * sizeof *blk);
    char *buf = a->rbuf, *tmp = ac_dt_alloc(t, (size_t)n, &tbase);
    ac_fold_t f;
    ac_fold_init(&f, p, g, a->rank);
    if (!map || !blk || !tmp || !cnt || !dsp) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    ac_rs_split((size_t)n, g, blk);
    for (int j = 0; j < g; j++) {
        int b = ac_rs_owner_block(g, j, 1);
        map[j] = ac_fold_leader_of(&f, j);
        cnt[map[j]] = (int)(blk[b + 1] - blk[b]);
        dsp[map[j]] = (int)blk[b];
    }
    if (!a->inplace) AC_CHECK(ac_dt_copy(a->sbuf, n, t, buf, n, t));
    AC_CHECK(ac_fold_reduce(&f, buf, buf, tmp, n, t, a->op, a->comm, AC_TAG(a)));
    if (f.active)
        AC_CHECK(
            ac_rs_halving(g, f.group, map, 1, blk, buf, tmp, t, a->op, a->comm, AC_TAG(a), &own));
    ac_args_t v = ac_part_allgatherv(a, a->comm, buf, cnt, dsp, t);
    const ac_alg_t *ag = ac_param_alg(in, "ag");
    if (ag) /* rab1 */
        AC_CHECK(ac_run_part_alg(&v, ag, ctx));
    else /* topo_rab1: the contention-free ring of the topology */
        AC_CHECK(ac_allgather_topo_ring(&v, in, ctx));
fn_exit:
    free(map);
    free(cnt);
    free(dsp);
    free(blk);
    free(tbase);
    return err;
}
