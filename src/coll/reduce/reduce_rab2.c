/*
 * Algorithm: rab2: the rank-ordered reduce-scatter of allreduce Rab2 (an alltoallv x, parameter
 *   `a2a`, sends block b of every rank's vector to rank b, which reduces the p pieces as
 *   x_0 op (x_1 op (... op x_{p-1}))), then a linear gather of the reduced blocks at the root.
 *   Every element is combined in rank order, right-associated, as reduce.linear combines it, so
 *   the two give the same bits; unlike linear, the root receives n (p-1)/p bytes instead of
 *   (p-1) n and the p-1 combinations are spread over all ranks. This makes it the
 *   bandwidth-efficient reduce of reproducible mode (docs/reproducible.md).
 * Cost: T_alltoallv(n/p, p) + ((p-1)/p) n gamma + (p-1) alpha + ((p-1)/p) n beta; n = vector
 *   bytes.
 * Restrictions: none (rank-ordered, non-commutative operations correct). Memory: p pieces of one
 *   block, and one block on ranks other than the root.
 * Reference: seed 000 (Faraj 2006), STAR allreduce repository type 3 (Rab2), its reduce-scatter
 *   phase followed by a gather; spec star-stage-ethernet.md section 2.4.
 */
#include <stdlib.h>
#include "../algs.h"

int ac_reduce_rab2(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    int err = MPI_SUCCESS, p = a->size, me = a->rank, root = a->root;
    MPI_Datatype t = a->rtype;
    void *mbase = NULL;
    int *c = malloc(2 * (size_t)p * sizeof *c);
    MPI_Request *rq = malloc((size_t)p * sizeof *rq);
    if (!c || !rq) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    int *sc = c, *sd = c + p;
    AC_CHECK(ac_rab2_blocks(a->rcount, p, sc, sd));
    /* The root reduces its block into place; the others into a block of their own. */
    char *mine =
        me == root ? ac_dt_at(a->rbuf, t, (size_t)sd[me]) : ac_dt_alloc(t, (size_t)sc[me], &mbase);
    if (!mine) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    /* The root's own vector must survive until the alltoallv has read it: in place, it is rbuf,
     * and block me of it is overwritten only after the alltoallv, by the reduction. */
    AC_CHECK(ac_rab2_reduce_blocks(a, ac_param_alg(in, "a2a"), NULL, 0, ctx, mine, sc, sd));
    if (me != root) {
        if (sc[me] > 0) err = PMPI_Send(mine, sc[me], t, root, AC_TAG(a), a->comm);
        goto fn_exit;
    }
    int n = 0;
    for (int r = 0; r < p; r++)
        if (r != root && sc[r] > 0)
            AC_CHECK(PMPI_Irecv(ac_dt_at(a->rbuf, t, (size_t)sd[r]), sc[r], t, r, AC_TAG(a),
                                a->comm, &rq[n++]));
    err = PMPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
fn_exit:
    free(c);
    free(rq);
    free(mbase);
    return err;
}
