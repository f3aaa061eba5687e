/* Block geometry, message helpers and the ring/pair step families shared by the allgather and
 * allgatherv algorithms (see ag_common.h). Not an algorithm of its own: Algorithm, Cost,
 * Restrictions and Reference are given by each algorithm file that uses these helpers. */
#include <limits.h>
#include <stdlib.h>
#include "ag_common.h"

void ac_agb_init(ac_agb_t *g, void *buf, MPI_Datatype type, int p, int me, MPI_Comm comm, int tag,
                 int count, const int *counts, const int *displs) {
    g->buf = buf;
    g->type = type;
    g->ext = ac_dt_extent(type);
    g->tsize = ac_dt_size(type);
    g->p = p;
    g->me = me;
    g->comm = comm;
    g->tag = tag;
    g->count = count;
    g->counts = counts;
    g->displs = displs;
}

void ac_agb_view(const ac_args_t *a, ac_agb_t *g) {
    int v = a->coll == AUTOCOLL_ALLGATHERV;
    ac_agb_init(g, a->rbuf, a->rtype, a->size, a->rank, a->comm, AC_TAG(a), a->rcount,
                v ? a->rcounts : NULL, v ? a->rdispls : NULL);
}

int ac_agb_setup(const ac_args_t *a, ac_agb_t *g) {
    ac_agb_view(a, g);
    if (a->inplace) return MPI_SUCCESS;
    return ac_dt_copy(a->sbuf, a->scount, a->stype, ac_agb_addr(g, a->rank),
                      ac_agb_count(g, a->rank), a->rtype);
}

int ac_agb_range(int *out, int start, int n, int p) {
    for (int t = 0; t < n; t++)
        out[t] = ac_mod((long long)start + t, p);
    return n;
}

/* Describe a block list as (addr, count, type); *made = 1 when type must be freed. */
static int agb_msg(const ac_agb_t *g, const int *blk, int n, void **addr, int *cnt,
                   MPI_Datatype *type, int *made) {
    *made = 0;
    *type = g->type;
    if (n == 0) {
        *addr = g->buf;
        *cnt = 0;
        return MPI_SUCCESS;
    }
    long long total = ac_agb_count(g, blk[0]);
    int adjacent = 1;
    for (int t = 1; t < n; t++) {
        total += ac_agb_count(g, blk[t]);
        if (ac_agb_addr(g, blk[t]) !=
            ac_agb_addr(g, blk[t - 1]) + (MPI_Aint)ac_agb_count(g, blk[t - 1]) * g->ext)
            adjacent = 0;
    }
    if (adjacent && total <= INT_MAX) {
        *addr = ac_agb_addr(g, blk[0]);
        *cnt = (int)total;
        return MPI_SUCCESS;
    }
    int *len = malloc((size_t)n * sizeof *len);
    MPI_Aint *disp = malloc((size_t)n * sizeof *disp);
    int err = MPI_ERR_NO_MEM;
    if (len && disp) {
        for (int t = 0; t < n; t++) {
            len[t] = ac_agb_count(g, blk[t]);
            disp[t] = ac_agb_addr(g, blk[t]) - g->buf;
        }
        err = PMPI_Type_create_hindexed(n, len, disp, g->type, type);
        if (err == MPI_SUCCESS) err = PMPI_Type_commit(type);
        if (err == MPI_SUCCESS) {
            *made = 1;
            *addr = g->buf;
            *cnt = 1;
        }
    }
    free(len);
    free(disp);
    return err;
}

/* Post the send (send = 1) or the receive of one message carrying the blocks of list blk. */
static int agb_post(const ac_agb_t *g, const int *blk, int n, int peer, MPI_Request *req,
                    int send) {
    void *addr;
    int cnt, made, err;
    MPI_Datatype t;
    err = agb_msg(g, blk, n, &addr, &cnt, &t, &made);
    if (err != MPI_SUCCESS) return err;
    err = send ? PMPI_Isend(addr, cnt, t, peer, g->tag, g->comm, req)
               : PMPI_Irecv(addr, cnt, t, peer, g->tag, g->comm, req);
    if (made) PMPI_Type_free(&t);
    return err;
}

int ac_agb_isend(const ac_agb_t *g, const int *blk, int n, int peer, MPI_Request *req) {
    return agb_post(g, blk, n, peer, req, 1);
}

int ac_agb_irecv(const ac_agb_t *g, const int *blk, int n, int peer, MPI_Request *req) {
    return agb_post(g, blk, n, peer, req, 0);
}

int ac_agb_sendrecv(const ac_agb_t *g, const int *sblk, int ns, int to, const int *rblk, int nr,
                    int from) {
    MPI_Request req[2];
    int err = ac_agb_irecv(g, rblk, nr, from, &req[0]);
    if (err != MPI_SUCCESS) return err;
    err = ac_agb_isend(g, sblk, ns, to, &req[1]);
    if (err != MPI_SUCCESS) return err;
    return PMPI_Waitall(2, req, MPI_STATUSES_IGNORE);
}

int ac_agx_steps(const ac_args_t *a, int kind, int sync, int nbar) {
    ac_agb_t g;
    int err = ac_agb_setup(a, &g), p = a->size, me = a->rank;
    int ttag = AC_AG_TOKEN_TAG(a);
    if (err != MPI_SUCCESS) return err;
    if (sync == AC_SYNC_NBAR)
        for (int c = ac_nbar_count(0, p - 1, nbar); c > 0; c--)
            AC_CHECK(PMPI_Barrier(a->comm));
    for (int s = 1; s < p; s++) {
        int to = kind == AC_AGS_PAIR ? ac_pair_peer(me, s) : ac_ring_to(me, p, s);
        int from = kind == AC_AGS_PAIR ? ac_pair_peer(me, s) : ac_ring_from(me, p, s);
        int mine = me;
        MPI_Request req[3];
        int nreq = 0;
        AC_CHECK(ac_agb_irecv(&g, &from, 1, from, &req[nreq++]));
        if (sync == AC_SYNC_LIGHT && s >= 2) {
            /* my step-s receive is posted: tell my sender; wait until my receiver is ready */
            AC_CHECK(PMPI_Isend(NULL, 0, MPI_BYTE, from, ttag, a->comm, &req[nreq++]));
            AC_CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, to, ttag, a->comm, MPI_STATUS_IGNORE));
        }
        AC_CHECK(ac_agb_isend(&g, &mine, 1, to, &req[nreq++]));
        AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
        if (sync == AC_SYNC_MPI && s < p - 1) AC_CHECK(PMPI_Barrier(a->comm));
        if (sync == AC_SYNC_NBAR)
            for (int c = ac_nbar_count(s, p - 1, nbar); c > 0; c--)
                AC_CHECK(PMPI_Barrier(a->comm));
    }
fn_exit:
    return err;
}
