/*
 * Reduce-scatter cores shared by reduce_scatter and reduce_scatter_block (see rs_core.h).
 * Reference: seed 000 (Faraj 2006), spec star-stage-ethernet.md section 2.4 (recursive halving,
 * fold for non-power-of-two p, block splits), ring and pair families of section 2.3.
 */
#include <stdlib.h>
#include "rs_core.h"

#define AT(buf, t, i) ((char *)(buf) + (MPI_Aint)(i)*ac_dt_extent(t))

/* Element offsets of the p blocks: off[r] = counts[0] + ... + counts[r-1]. */
static size_t *offsets(const int *counts, int p) {
    size_t *off = malloc(((size_t)p + 1) * sizeof *off);
    if (!off) return NULL;
    off[0] = 0;
    for (int r = 0; r < p; r++)
        off[r + 1] = off[r] + (size_t)counts[r];
    return off;
}

int ac_rs_rsc_halving(const ac_args_t *a, const int *counts, int ascending) {
    int err = MPI_SUCCESS, p = a->size, me = a->rank, g = ac_rs_pow_floor(p, 2), own = 0, nreq = 0;
    int tag = AC_TAG(a);
    MPI_Datatype t = a->rtype;
    void *bbase = NULL, *tbase = NULL;
    ac_fold_t f;
    ac_fold_init(&f, p, g, me);
    size_t *off = offsets(counts, p), *blk = malloc(((size_t)g + 1) * sizeof *blk);
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
            AC_CHECK(PMPI_Isend(AT(buf, t, off[m]), counts[m], t, m, tag, a->comm, &req[nreq++]));
        }
        if (own == f.group)
            AC_CHECK(ac_dt_copy(AT(buf, t, off[me]), counts[me], t, a->rbuf, counts[me], t));
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
    free(off);
    free(blk);
    free(map);
    free(req);
    free(bbase);
    free(tbase);
    return err;
}

int ac_rs_rsc_pairwise(const ac_args_t *a, const int *counts) {
    int err = MPI_SUCCESS, p = a->size, me = a->rank, tag = AC_TAG(a), mc = counts[me];
    MPI_Datatype t = a->rtype;
    void *abase = NULL, *tbase = NULL;
    const char *in = ac_rs_input(a);
    size_t *off = offsets(counts, p);
    char *acc = ac_dt_alloc(t, (size_t)mc, &abase), *tmp = ac_dt_alloc(t, (size_t)mc, &tbase);
    if (!off || !acc || !tmp) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    AC_CHECK(ac_dt_copy(AT(in, t, off[me]), mc, t, acc, mc, t));
    for (int s = 1; s < p; s++) {
        int dst = (me + s) % p, src = (me - s + p) % p;
        AC_CHECK(PMPI_Sendrecv(AT(in, t, off[dst]), counts[dst], t, dst, tag, tmp, mc, t, src, tag,
                               a->comm, MPI_STATUS_IGNORE));
        AC_CHECK(PMPI_Reduce_local(tmp, acc, mc, t, a->op));
    }
    AC_CHECK(ac_dt_copy(acc, mc, t, a->rbuf, mc, t));
fn_exit:
    free(off);
    free(abase);
    free(tbase);
    return err;
}

int ac_rs_rsc_ring(const ac_args_t *a, const int *counts) {
    int err = MPI_SUCCESS, p = a->size, me = a->rank;
    MPI_Datatype t = a->rtype;
    void *bbase = NULL, *tbase = NULL;
    size_t *off = offsets(counts, p), maxc = 0;
    char *buf = NULL, *tmp = NULL;
    if (!off) return MPI_ERR_NO_MEM;
    for (int r = 0; r < p; r++)
        if ((size_t)counts[r] > maxc) maxc = (size_t)counts[r];
    buf = ac_dt_alloc(t, off[p], &bbase);
    tmp = ac_dt_alloc(t, maxc, &tbase);
    if (!buf || !tmp) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    AC_CHECK(ac_dt_copy(ac_rs_input(a), (int)off[p], t, buf, (int)off[p], t));
    AC_CHECK(ac_rs_ring(p, me, off, -1, 1, 0, buf, tmp, t, a->op, a->comm, AC_TAG(a)));
    AC_CHECK(ac_dt_copy(AT(buf, t, off[me]), counts[me], t, a->rbuf, counts[me], t));
fn_exit:
    free(off);
    free(bbase);
    free(tbase);
    return err;
}

int ac_rs_rsc_direct(const ac_args_t *a, const int *counts) {
    int err = MPI_SUCCESS, p = a->size, me = a->rank, tag = AC_TAG(a), mc = counts[me];
    int nreq = 0;
    MPI_Datatype t = a->rtype;
    void *pbase = NULL;
    const char *in = ac_rs_input(a);
    size_t *off = offsets(counts, p);
    MPI_Request *req = malloc(2 * (size_t)p * sizeof *req);
    char *pieces = ac_dt_alloc(t, (size_t)mc * (size_t)p, &pbase);
    if (!off || !req || !pieces) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    for (int s = 1; s < p; s++) {
        int src = (me - s + p) % p;
        AC_CHECK(PMPI_Irecv(AT(pieces, t, (size_t)src * (size_t)mc), mc, t, src, tag, a->comm,
                            &req[nreq++]));
    }
    for (int s = 1; s < p; s++) {
        int dst = (me + s) % p;
        AC_CHECK(PMPI_Isend(AT(in, t, off[dst]), counts[dst], t, dst, tag, a->comm, &req[nreq++]));
    }
    AC_CHECK(ac_dt_copy(AT(in, t, off[me]), mc, t, AT(pieces, t, (size_t)me * (size_t)mc), mc, t));
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    nreq = 0;
    /* x_0 op (x_1 op (... op x_{p-1})), accumulated in piece p - 1. */
    for (int r = p - 2; r >= 0; r--)
        AC_CHECK(PMPI_Reduce_local(AT(pieces, t, (size_t)r * (size_t)mc),
                                   AT(pieces, t, (size_t)(p - 1) * (size_t)mc), mc, t, a->op));
    AC_CHECK(ac_dt_copy(AT(pieces, t, (size_t)(p - 1) * (size_t)mc), mc, t, a->rbuf, mc, t));
fn_exit:
    if (nreq) PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    free(off);
    free(req);
    free(pbase);
    return err;
}
