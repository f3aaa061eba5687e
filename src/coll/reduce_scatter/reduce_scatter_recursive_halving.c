/*
 * Algorithm: recursive halving: fold p onto p' = 2^floor(lg p) participants (groups of one or two
 *   consecutive ranks; a participant owns the blocks of its group, a contiguous range), then at
 *   distance p'/2, p'/4, ..., 1 each participant keeps half of its current block range (lower
 *   half when its bit is 0), sends the other half to its partner and combines the partner's copy
 *   of the kept half, so participant j ends with the reduced blocks of group j and sends each
 *   rank of the group its block. The combination order is not rank order.
 *   reduce_scatter_block runs the same function: every block has rcount elements.
 *   ac_rsc_halving below is also the body of butterfly (ascending distances).
 * Cost: lg p' alpha + ((p'-1)/p') N (beta + gamma) + fold 2 (alpha + N beta); N = whole vector.
 * Restrictions: COMMUTATIVE. Memory: two copies of the whole vector.
 * Reference: seed 000 (Faraj 2006), spec star-stage-ethernet.md section 2.4
 *   (recursive-halving reduce-scatter, fold).
 */
#include <stdlib.h>
#include "rsc_common.h"
#include "../../sched/rs_core.h"

int ac_rsc_halving(const ac_args_t *a, int ascending) {
    int err = MPI_SUCCESS, p = a->size, me = a->rank, g = ac_rs_pow_floor(p, 2), own = 0, nreq = 0;
    int tag = AC_TAG(a), *cbase = NULL;
    MPI_Datatype t = a->rtype;
    void *bbase = NULL, *tbase = NULL;
    ac_fold_t f;
    ac_fold_init(&f, p, g, me);
    const int *counts = ac_rsc_counts(a, &cbase);
    size_t *off = counts ? ac_rsc_offsets(counts, p) : NULL;
    size_t *blk = malloc(((size_t)g + 1) * sizeof *blk);
    int *map = malloc((size_t)g * sizeof *map);
    MPI_Request *req = malloc(((size_t)p + 1) * sizeof *req);
    char *buf = NULL, *tmp = NULL;
    if (!off || !blk || !map || !req) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    size_t total = off[p];
    buf = ac_dt_alloc(t, total, &bbase);
    tmp = ac_dt_alloc(t, total, &tbase);
    if (!buf || !tmp) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    /* Participant j owns the blocks of its rank group, a contiguous element range. */
    for (int j = 0; j < g; j++) {
        map[j] = ac_fold_leader_of(&f, j);
        blk[j] = off[ac_fold_first(&f, j)];
    }
    blk[g] = total;
    AC_CHECK(ac_dt_copy(ac_rs_input(a), (int)total, t, buf, (int)total, t));
    AC_CHECK(ac_fold_reduce(&f, buf, buf, tmp, (int)total, t, a->op, a->comm, tag));
    if (f.active) {
        AC_CHECK(
            ac_rs_halving(g, f.group, map, ascending, blk, buf, tmp, t, a->op, a->comm, tag, &own));
        /* I hold the reduced blocks of group `own`: hand each of its ranks its block. */
        int first = ac_fold_first(&f, own), sz = ac_fold_size(&f, own);
        for (int m = first; m < first + sz; m++) {
            if (m == me) continue;
            AC_CHECK(
                PMPI_Isend(ac_dt_at(buf, t, off[m]), counts[m], t, m, tag, a->comm, &req[nreq++]));
        }
        if (own == f.group)
            AC_CHECK(ac_dt_copy(ac_dt_at(buf, t, off[me]), counts[me], t, a->rbuf, counts[me], t));
    }
    if (!f.active || own != f.group) {
        int holder = 0;
        for (int j = 0; j < g; j++)
            if (ac_rs_owner_block(g, j, ascending) == f.group) holder = map[j];
        AC_CHECK(PMPI_Recv(a->rbuf, counts[me], t, holder, tag, a->comm, MPI_STATUS_IGNORE));
    }
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    nreq = 0;
fn_exit:
    if (nreq) PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    free(cbase);
    free(off);
    free(blk);
    free(map);
    free(req);
    free(bbase);
    free(tbase);
    return err;
}

int ac_reduce_scatter_recursive_halving(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    return ac_rsc_halving(a, 0);
}
