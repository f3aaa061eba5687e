/*
 * Algorithm: recursive multiplying (k-nomial exchange): fold p onto p' = k^floor(log_k p)
 *   participants (contiguous rank groups of floor(p/p') or one more ranks; the group's last rank
 *   collects and combines its group in rank order), then at distance d = 1, k, k^2, ... each
 *   participant sends its vector to the k - 1 others whose index differs only in base-k digit d
 *   and combines the k vectors in participant order v_0 op (v_1 op ... v_{k-1}), the same on
 *   every member, so groups keep identical bytes and the operands are contiguous rank ranges.
 *   Group leaders finally send the result to their members.
 *   recursive_doubling is this function without parameter k (k = 2): groups of one or two
 *   consecutive ranks (the odd rank of a pair combines x_{2j} op x_{2j+1} and takes part), then
 *   at step j participant i exchanges its whole vector with i XOR 2^j and both compute
 *   (lower range) op (upper range); all members of an aligned group of 2^(j+1) participants then
 *   hold the same bytes, the reduction of a contiguous rank range in rank order. At the end the
 *   odd ranks of the pairs return the result to the even ones.
 * Cost: log_k p' (alpha + (k-1) n beta + (k-1) n gamma) [+ fold: 2 (p/p' - 1)(alpha + n beta)];
 *   recursive_doubling: lg p' (alpha + n beta + n gamma) + 2 (alpha + n beta) [+ n gamma] when p
 *   is not a power of two; n = bytes of the vector.
 * Restrictions: none (rank-ordered, bitwise identical on every rank). Memory: (k - 1) vectors.
 * Reference: seed 000 (Faraj 2006), STAGE allreduce repository "rdb" and the fold of spec
 *   star-stage-ethernet.md section 2.4, generalised to radix k (parameter k).
 */
#include <stdlib.h>
#include "../algs.h"
#include "../../sched/rs_core.h"

int ac_allreduce_knomial(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    long kp = in ? ac_param_int(in, "k") : -1; /* -1: recursive_doubling, no parameter k */
    int k = kp < 2 ? 2 : (int)kp;
    int err = MPI_SUCCESS, p = a->size, n = a->rcount, g = ac_rs_pow_floor(p, k);
    MPI_Datatype t = a->rtype;
    void *tbase = NULL;
    int *map = NULL;
    ac_fold_t f;
    ac_fold_init(&f, p, g, a->rank);
    char *buf = a->rbuf;
    char *tmp = ac_dt_alloc(t, (size_t)n * (size_t)(k - 1), &tbase);
    map = malloc((size_t)g * sizeof *map);
    if (!tmp || !map) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    for (int j = 0; j < g; j++)
        map[j] = ac_fold_leader_of(&f, j);
    if (!a->inplace) AC_CHECK(ac_dt_copy(a->sbuf, n, t, buf, n, t));
    AC_CHECK(ac_fold_reduce(&f, buf, buf, tmp, n, t, a->op, a->comm, AC_TAG(a)));
    if (f.active)
        AC_CHECK(ac_rs_knomial(g, k, f.group, map, buf, tmp, n, t, a->op, a->comm, AC_TAG(a)));
    AC_CHECK(ac_fold_bcast(&f, buf, n, t, a->comm, AC_TAG(a)));
fn_exit:
    free(tbase);
    free(map);
    return err;
}
