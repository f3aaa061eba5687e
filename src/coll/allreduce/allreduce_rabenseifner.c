/*
 * Algorithm: Rabenseifner: fold p onto p' = 2^floor(lg p) participants (pairs of consecutive
 *   ranks, the odd one combines), split the vector into p' blocks, recursive-halving
 *   reduce-scatter at distance 1, 2, 4, ... (each step keeps half of the current block range
 *   and combines it with the partner's copy; operands are contiguous participant ranges,
 *   combined lower op higher, so participant i ends with block bitrev(i) reduced in rank
 *   order), then the inverse recursive-doubling allgather of the blocks, then the fold returns
 *   the vector to the idle ranks. Every block is combined at exactly one rank, so all ranks
 *   receive identical bytes.
 * Cost: 2 lg p' alpha + 2 ((p'-1)/p') n beta + ((p'-1)/p') n gamma [+ fold 2 (alpha + n beta)].
 * Restrictions: none (rank-ordered). Memory: one vector.
 * Reference: seed 000 (Faraj 2006), STAGE "MPICH Rab" / STAR "Rab1-rdb", spec
 *   star-stage-ethernet.md section 2.4.
 */
#include <stdlib.h>
#include "../algs.h"
#include "../../sched/rs_core.h"

int ac_allreduce_rabenseifner(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, n = a->rcount, g = ac_rs_pow_floor(p, 2), own;
    MPI_Datatype t = a->rtype;
    void *tbase = NULL;
    int *map = malloc((size_t)g * sizeof *map);
    size_t *blk = malloc(((size_t)g + 1) * sizeof *blk);
    char *buf = a->rbuf, *tmp = ac_dt_alloc(t, (size_t)n, &tbase);
    ac_fold_t f;
    ac_fold_init(&f, p, g, a->rank);
    if (!map || !blk || !tmp) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    for (int j = 0; j < g; j++)
        map[j] = ac_fold_leader_of(&f, j);
    ac_rs_split((size_t)n, g, blk);
    if (!a->inplace) AC_CHECK(ac_dt_copy(a->sbuf, n, t, buf, n, t));
    AC_CHECK(ac_fold_reduce(&f, buf, buf, tmp, n, t, a->op, a->comm, AC_TAG(a)));
    if (f.active) {
        AC_CHECK(
            ac_rs_halving(g, f.group, map, 1, blk, buf, tmp, t, a->op, a->comm, AC_TAG(a), &own));
        AC_CHECK(ac_rs_doubling(g, f.group, map, 1, blk, buf, t, a->comm, AC_TAG(a)));
    }
    AC_CHECK(ac_fold_bcast(&f, buf, n, t, a->comm, AC_TAG(a)));
fn_exit:
    free(map);
    free(blk);
    free(tbase);
    return err;
}
