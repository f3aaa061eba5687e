/*
 * Helpers shared by the alltoall and alltoallv algorithms: block view, windowed direct exchange
 * and the step-wise ring/pair engine with its synchronisation variants (seed 000, Faraj 2006,
 * section 4.1.1.1; spec star-stage-ethernet.md section 2.0). Not an algorithm of its own:
 * Algorithm, Cost, Restrictions and Reference are given by each algorithm file using them.
 */
#include <limits.h>
#include <stdlib.h>
#include "a2a_util.h"
#include "../../sched/sched.h"
#include "../../sched/te.h"

int ac_a2a_view_init(ac_a2a_view_t *v, const ac_args_t *a) {
    int err = MPI_SUCCESS;
    v->p = a->size;
    v->me = a->rank;
    v->vform = a->coll == AUTOCOLL_ALLTOALLV;
    v->rbuf = a->rbuf;
    v->rtype = a->rtype;
    v->rcount = a->rcount;
    v->rcounts = a->rcounts;
    v->rdispls = a->rdispls;
    v->tmpbase = NULL;
    if (!a->inplace) {
        v->sbuf = a->sbuf;
        v->stype = a->stype;
        v->scount = a->scount;
        v->scounts = a->scounts;
        v->sdispls = a->sdispls;
    } else {
        /* Send data sits in rbuf with the receive layout: copy the span it covers. */
        size_t hi = 0;
        if (v->vform) {
            for (int j = 0; j < v->p; j++)
                if (a->rcounts[j] > 0 && (size_t)a->rdispls[j] + (size_t)a->rcounts[j] > hi)
                    hi = (size_t)a->rdispls[j] + (size_t)a->rcounts[j];
        } else {
            hi = (size_t)a->rcount * (size_t)v->p;
        }
        char *tmp = ac_dt_alloc(a->rtype, hi, &v->tmpbase);
        if (!tmp) return MPI_ERR_NO_MEM;
        /* Block by block: each block's count is an int even when the span is not. */
        for (int j = 0; j < v->p && err == MPI_SUCCESS; j++) {
            MPI_Aint at = (v->vform ? (MPI_Aint)a->rdispls[j] : (MPI_Aint)j * a->rcount) *
                          ac_dt_extent(a->rtype);
            int c = v->vform ? a->rcounts[j] : a->rcount;
            err = ac_dt_copy((char *)a->rbuf + at, c, a->rtype, tmp + at, c, a->rtype);
        }
        v->sbuf = tmp;
        v->stype = a->rtype;
        v->scount = a->rcount;
        v->scounts = a->rcounts;
        v->sdispls = a->rdispls;
    }
    v->sext = ac_dt_extent(v->stype);
    v->rext = ac_dt_extent(v->rtype);
    v->ssize = ac_dt_size(v->stype);
    v->rsize = ac_dt_size(v->rtype);
    return err;
}

void ac_a2a_view_free(ac_a2a_view_t *v) {
    free(v->tmpbase);
    v->tmpbase = NULL;
}

int ac_a2a_self_copy(const ac_a2a_view_t *v) {
    return ac_dt_copy(ac_a2a_sptr(v, v->me), ac_a2a_scnt(v, v->me), v->stype, ac_a2a_rptr(v, v->me),
                      ac_a2a_rcnt(v, v->me), v->rtype);
}

/* Post the receive of block `src` and the send of block `dst` of one direct step. */
static int post_pair(const ac_a2a_view_t *v, const ac_args_t *a, int dst, int src, MPI_Request *req,
                     int *nreq) {
    int err = MPI_SUCCESS;
    if (ac_a2a_rbytes(v, src))
        AC_CHECK(PMPI_Irecv(ac_a2a_rptr(v, src), ac_a2a_rcnt(v, src), v->rtype, src, AC_TAG(a),
                            a->comm, &req[(*nreq)++]));
    if (ac_a2a_sbytes(v, dst))
        AC_CHECK(PMPI_Isend(ac_a2a_sptr(v, dst), ac_a2a_scnt(v, dst), v->stype, dst, AC_TAG(a),
                            a->comm, &req[(*nreq)++]));
fn_exit:
    return err;
}

int ac_a2a_window(const ac_args_t *a, int window) {
    ac_a2a_view_t v;
    int err, p = a->size, me = a->rank, nreq = 0;
    MPI_Request *req = NULL;
    if (window < 1) window = 1;
    if (window > p - 1) window = p - 1 > 0 ? p - 1 : 1;
    err = ac_a2a_view_init(&v, a);
    if (err != MPI_SUCCESS) goto fn_exit;
    req = malloc(2 * (size_t)window * sizeof *req);
    if (!req) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    for (int s0 = 1; s0 < p; s0 += window) {
        nreq = 0;
        for (int s = s0; s < s0 + window && s < p; s++)
            AC_CHECK(post_pair(&v, a, ac_ring_to(me, p, s), ac_ring_from(me, p, s), req, &nreq));
        AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    }
    AC_CHECK(ac_a2a_self_copy(&v));
fn_exit:
    free(req);
    ac_a2a_view_free(&v);
    return err;
}

int ac_a2a_stepwise(const ac_args_t *a, int pattern, int sync, int nbar) {
    ac_a2a_view_t v;
    int err, p = a->size, me = a->rank;
    const int stag = AC_A2A_SYNC_TAG(a);
    MPI_Request req[3];
    err = ac_a2a_view_init(&v, a);
    if (err != MPI_SUCCESS) goto fn_exit;
    AC_CHECK(ac_a2a_self_copy(&v));
    if (sync == AC_A2A_SYNC_NBAR)
        for (int c = ac_nbar_count(0, p - 1, nbar); c > 0; c--)
            AC_CHECK(PMPI_Barrier(a->comm));
    for (int s = 1; s < p; s++) {
        int dst, src, nreq = 0;
        if (pattern == AC_A2A_PAIR) {
            dst = src = ac_pair_peer(me, s);
        } else {
            dst = ac_ring_to(me, p, s);
            src = ac_ring_from(me, p, s);
        }
        if (sync == AC_A2A_SYNC_LB && s >= 2) {
            /* Receiver-ready token: my step-s receive is posted before my source may send. */
            if (ac_a2a_rbytes(&v, src))
                AC_CHECK(PMPI_Irecv(ac_a2a_rptr(&v, src), ac_a2a_rcnt(&v, src), v.rtype, src,
                                    AC_TAG(a), a->comm, &req[nreq++]));
            AC_CHECK(PMPI_Isend(NULL, 0, MPI_BYTE, src, stag, a->comm, &req[nreq++]));
            AC_CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, dst, stag, a->comm, MPI_STATUS_IGNORE));
            if (ac_a2a_sbytes(&v, dst))
                AC_CHECK(PMPI_Isend(ac_a2a_sptr(&v, dst), ac_a2a_scnt(&v, dst), v.stype, dst,
                                    AC_TAG(a), a->comm, &req[nreq++]));
        } else {
            AC_CHECK(post_pair(&v, a, dst, src, req, &nreq));
        }
        AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
        if (sync == AC_A2A_SYNC_MPIB && s < p - 1) AC_CHECK(PMPI_Barrier(a->comm));
        if (sync == AC_A2A_SYNC_NBAR)
            for (int c = ac_nbar_count(s, p - 1, nbar); c > 0; c--)
                AC_CHECK(PMPI_Barrier(a->comm));
    }
fn_exit:
    ac_a2a_view_free(&v);
    return err;
}

void ac_a2a_blk_init(ac_a2a_blk_t *b, const ac_args_t *a) {
    b->rcount = a->rcount;
    b->rtype = a->rtype;
    b->blk = (MPI_Aint)a->rcount * ac_dt_extent(a->rtype);
    b->big = MPI_DATATYPE_NULL;
}

char *ac_a2a_blk_alloc(const ac_a2a_blk_t *b, size_t nblocks, void **base) {
    return ac_dt_alloc(b->rtype, nblocks * (size_t)b->rcount, base);
}

int ac_a2a_blk_copy(const ac_a2a_blk_t *b, const char *src, char *dst) {
    return ac_dt_copy(src, b->rcount, b->rtype, dst, b->rcount, b->rtype);
}

int ac_a2a_blk_from_send(const ac_a2a_blk_t *b, const ac_a2a_view_t *v, int j, char *dst) {
    return ac_dt_copy(ac_a2a_sptr(v, j), ac_a2a_scnt(v, j), v->stype, dst, b->rcount, b->rtype);
}

int ac_a2a_blk_msg(ac_a2a_blk_t *b, size_t m, int *count, MPI_Datatype *type) {
    size_t c = m * (size_t)b->rcount;
    if (c <= INT_MAX) {
        *count = (int)c;
        *type = b->rtype;
        return MPI_SUCCESS;
    }
    if (m > INT_MAX) return MPI_ERR_COUNT; /* more blocks than memory could hold */
    if (b->big == MPI_DATATYPE_NULL) {
        int err = PMPI_Type_contiguous(b->rcount, b->rtype, &b->big);
        if (err == MPI_SUCCESS) err = PMPI_Type_commit(&b->big);
        if (err != MPI_SUCCESS) return err;
    }
    *count = (int)m;
    *type = b->big;
    return MPI_SUCCESS;
}

void ac_a2a_blk_free(ac_a2a_blk_t *b) {
    if (b->big != MPI_DATATYPE_NULL) PMPI_Type_free(&b->big);
}

int ac_a2a_te(const ac_args_t *a, int i) {
    ac_a2a_view_t v;
    ac_a2a_blk_t b;
    int err, p = a->size, me = a->rank, cnt;
    void *wb = NULL, *w2b = NULL, *spb = NULL, *rpb = NULL;
    const int tag = AC_TAG(a);
    size_t half = (size_t)p / 2, nk = (size_t)1 << i, npack = half > nk ? half : nk;
    MPI_Datatype mt = MPI_DATATYPE_NULL;
    ac_a2a_blk_init(&b, a);
    err = ac_a2a_view_init(&v, a);
    if (err != MPI_SUCCESS) goto fn_exit;
    char *w = ac_a2a_blk_alloc(&b, (size_t)p, &wb), *w2 = ac_a2a_blk_alloc(&b, (size_t)p, &w2b);
    char *sp = ac_a2a_blk_alloc(&b, npack, &spb), *rp = ac_a2a_blk_alloc(&b, npack, &rpb);
    if (!w || !w2 || !sp || !rp) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    for (int d = 0; d < p; d++)
        AC_CHECK(ac_a2a_blk_from_send(&b, &v, d, ac_a2a_blk_at(&b, w, d)));
    /* Splitting steps: send the half of my blocks addressed to the partner's half. */
    AC_CHECK(ac_a2a_blk_msg(&b, half, &cnt, &mt));
    for (int s = 1; s <= i; s++) {
        int q = ac_te_partner(p, s, me, NULL);
        for (size_t t = 0; t < half; t++)
            AC_CHECK(ac_a2a_blk_copy(&b, ac_a2a_blk_at(&b, w, ac_te_send_slot(p, s, me, t)),
                                     ac_a2a_blk_at(&b, sp, t)));
        AC_CHECK(
            PMPI_Sendrecv(sp, cnt, mt, q, tag, rp, cnt, mt, q, tag, a->comm, MPI_STATUS_IGNORE));
        for (size_t t = 0; t < half; t++) {
            AC_CHECK(ac_a2a_blk_copy(&b, ac_a2a_blk_at(&b, w, ac_te_keep_slot(p, s, me, t)),
                                     ac_a2a_blk_at(&b, w2, ac_te_keep_new_slot(p, s, me, t))));
            AC_CHECK(ac_a2a_blk_copy(&b, ac_a2a_blk_at(&b, rp, t),
                                     ac_a2a_blk_at(&b, w2, ac_te_recv_new_slot(p, s, me, t))));
        }
        char *x = w;
        w = w2;
        w2 = x;
    }
    /* Direct exchange inside groups of G = p / 2^i: 2^i blocks per message. */
    int G = p >> i;
    for (size_t k = 0; k < nk; k++)
        AC_CHECK(ac_a2a_blk_copy(&b, ac_a2a_blk_at(&b, w, ac_te_direct_send_slot(p, i, me, me, k)),
                                 ac_a2a_rptr(&v, ac_te_direct_recv_src(p, i, me, k))));
    AC_CHECK(ac_a2a_blk_msg(&b, nk, &cnt, &mt));
    for (int j = 1; j < G; j++) {
        int to, from;
        ac_te_direct_peers(p, i, me, j, &to, &from);
        for (size_t k = 0; k < nk; k++)
            AC_CHECK(ac_a2a_blk_copy(&b,
                                     ac_a2a_blk_at(&b, w, ac_te_direct_send_slot(p, i, me, to, k)),
                                     ac_a2a_blk_at(&b, sp, k)));
        AC_CHECK(PMPI_Sendrecv(sp, cnt, mt, to, tag, rp, cnt, mt, from, tag, a->comm,
                               MPI_STATUS_IGNORE));
        for (size_t k = 0; k < nk; k++)
            AC_CHECK(ac_a2a_blk_copy(&b, ac_a2a_blk_at(&b, rp, k),
                                     ac_a2a_rptr(&v, ac_te_direct_recv_src(p, i, from, k))));
    }
fn_exit:
    ac_a2a_blk_free(&b);
    free(wb);
    free(w2b);
    free(spb);
    free(rpb);
    ac_a2a_view_free(&v);
    return err;
}

/* Post one message per run of consecutive owners in list (owner-major work buffer of p blocks
 * per owner): both sides compute the same list for a message, so runs match in order. */
static int post_runs(ac_a2a_blk_t *b, char *w, int p, const int *list, int n, int peer, int send,
                     const ac_args_t *a, MPI_Request *req, int *nreq) {
    int err = MPI_SUCCESS;
    for (int x = 0; x < n;) {
        int y = x + 1, cnt;
        MPI_Datatype mt;
        while (y < n && list[y] == list[y - 1] + 1)
            y++;
        AC_CHECK(ac_a2a_blk_msg(b, (size_t)(y - x) * (size_t)p, &cnt, &mt));
        char *at = ac_a2a_blk_at(b, w, (size_t)list[x] * (size_t)p);
        if (send)
            AC_CHECK(PMPI_Isend(at, cnt, mt, peer, AC_TAG(a), a->comm, &req[(*nreq)++]));
        else
            AC_CHECK(PMPI_Irecv(at, cnt, mt, peer, AC_TAG(a), a->comm, &req[(*nreq)++]));
        x = y;
    }
fn_exit:
    return err;
}

static void sort_ints(int *l, int n) {
    for (int x = 1; x < n; x++)
        for (int y = x; y > 0 && l[y - 1] > l[y]; y--) {
            int t = l[y];
            l[y] = l[y - 1];
            l[y - 1] = t;
        }
}

/* Blocks addressed to me: entry me of every owner's row. */
static int extract_mine(const ac_a2a_blk_t *b, const ac_a2a_view_t *v, char *w, int p, int me) {
    int err = MPI_SUCCESS;
    for (int j = 0; j < p; j++)
        AC_CHECK(ac_a2a_blk_copy(b, ac_a2a_blk_at(b, w, (size_t)j * (size_t)p + (size_t)me),
                                 ac_a2a_rptr(v, j)));
fn_exit:
    return err;
}

int ac_a2a_gather_all(const ac_args_t *a, int nd) {
    ac_a2a_view_t v;
    ac_a2a_blk_t b;
    int err, p = a->size, me = a->rank, nreq = 0, cnt;
    void *wb = NULL;
    int *l1 = malloc(2 * (size_t)p * sizeof(int)), *l2 = malloc(2 * (size_t)p * sizeof(int));
    /* mesh: up to p-1 peers, each one run each way; rdb: two runs each way */
    MPI_Request *req = malloc((4 * (size_t)p + 4) * sizeof *req);
    MPI_Datatype mt = MPI_DATATYPE_NULL;
    ac_a2a_blk_init(&b, a);
    err = ac_a2a_view_init(&v, a);
    if (err != MPI_SUCCESS) goto fn_exit;
    char *w = ac_a2a_blk_alloc(&b, (size_t)p * (size_t)p, &wb);
    if (!w || !l1 || !l2 || !req) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    char *mine = ac_a2a_blk_at(&b, w, (size_t)me * (size_t)p);
    for (int j = 0; j < p; j++)
        AC_CHECK(ac_a2a_blk_from_send(&b, &v, j, ac_a2a_blk_at(&b, mine, j)));
    if (nd >= 2) {
        int dims[3];
        ac_mesh_dims(p, nd, dims);
        for (int d = 0; d < nd; d++) {
            nreq = 0;
            for (int j = 1; j < dims[d]; j++) {
                int to = ac_mesh_peer(me, nd, dims, d, j), from = ac_mesh_peer(me, nd, dims, d, -j);
                int n2 = ac_mesh_held(from, nd, dims, d, l2);
                AC_CHECK(post_runs(&b, w, p, l2, n2, from, 0, a, req, &nreq));
                int n1 = ac_mesh_held(me, nd, dims, d, l1);
                AC_CHECK(post_runs(&b, w, p, l1, n1, to, 1, a, req, &nreq));
                if (nreq > 2 * p) { /* one run each way in practice; keep the array bounded */
                    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
                    nreq = 0;
                }
            }
            AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
            nreq = 0;
        }
        AC_CHECK(extract_mine(&b, &v, w, p, me));
    } else {
        int pp = ac_floor_pof2(p), e = p - pp;
        if (me >= pp) {
            /* Folded rank: hand my send buffer to me - p', get my column back at the end. */
            AC_CHECK(ac_a2a_blk_msg(&b, (size_t)p, &cnt, &mt));
            AC_CHECK(PMPI_Send(mine, cnt, mt, me - pp, AC_TAG(a), a->comm));
            AC_CHECK(PMPI_Recv(a->rbuf, cnt, mt, me - pp, AC_TAG(a), a->comm, MPI_STATUS_IGNORE));
            goto fn_exit;
        }
        if (me < e) {
            AC_CHECK(ac_a2a_blk_msg(&b, (size_t)p, &cnt, &mt));
            AC_CHECK(PMPI_Recv(ac_a2a_blk_at(&b, w, (size_t)(me + pp) * (size_t)p), cnt, mt,
                               me + pp, AC_TAG(a), a->comm, MPI_STATUS_IGNORE));
        }
        for (int k = 0; (1 << k) < pp; k++) {
            int q = me ^ (1 << k);
            int n1 = ac_rdb_fold_blocks(p, ac_rdb_start(me, k), 1 << k, l1);
            int n2 = ac_rdb_fold_blocks(p, ac_rdb_start(q, k), 1 << k, l2);
            /* fold_blocks interleaves u and u + p': sort into increasing owner order */
            sort_ints(l1, n1);
            sort_ints(l2, n2);
            nreq = 0;
            AC_CHECK(post_runs(&b, w, p, l2, n2, q, 0, a, req, &nreq));
            AC_CHECK(post_runs(&b, w, p, l1, n1, q, 1, a, req, &nreq));
            AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
            nreq = 0;
        }
        AC_CHECK(extract_mine(&b, &v, w, p, me));
        if (me < e) {
            /* Column of rank me + p' (blocks j -> me + p'), packed over the row of me + p',
             * which is no longer needed: entry j of that row is overwritten by block
             * (j -> me + p') taken from row j != me + p'. */
            char *col = ac_a2a_blk_at(&b, w, (size_t)(me + pp) * (size_t)p);
            for (int j = 0; j < p; j++)
                if (j != me + pp)
                    AC_CHECK(ac_a2a_blk_copy(
                        &b, ac_a2a_blk_at(&b, w, (size_t)j * (size_t)p + (size_t)(me + pp)),
                        ac_a2a_blk_at(&b, col, j)));
            AC_CHECK(ac_a2a_blk_msg(&b, (size_t)p, &cnt, &mt));
            AC_CHECK(PMPI_Send(col, cnt, mt, me + pp, AC_TAG(a), a->comm));
        }
    }
fn_exit:
    ac_a2a_blk_free(&b);
    if (err != MPI_SUCCESS && nreq > 0) PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    free(wb);
    free(l1);
    free(l2);
    free(req);
    ac_a2a_view_free(&v);
    return err;
}
