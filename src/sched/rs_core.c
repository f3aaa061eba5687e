/*
 * Reduction schedules shared by allreduce, reduce_scatter and reduce_scatter_block (see
 * rs_core.h). Reference: seed 000 (Faraj 2006), spec star-stage-ethernet.md section 2.4 (block
 * split, recursive halving, fold for non-power-of-two p, ring).
 */
#include <stdlib.h>
#include "rs_core.h"

void ac_rs_split(size_t count, int g, size_t *off) {
    size_t q = count / (size_t)g, r = count % (size_t)g;
    off[0] = 0;
    for (int b = 0; b < g; b++)
        off[b + 1] = off[b] + q + ((size_t)b < r ? 1 : 0);
}

int ac_rs_pow_floor(int p, int k) {
    int g = 1;
    while ((long)g * k <= p)
        g *= k;
    return g;
}

void ac_fold_init(ac_fold_t *f, int p, int g, int rank) {
    f->p = p;
    f->g = g;
    int q = p / g, r = p % g;
    /* Groups 0 .. r-1 have q + 1 ranks and start at j (q + 1); the rest start at r (q+1) + ... */
    int big = r * (q + 1);
    f->group = rank < big ? rank / (q + 1) : r + (rank - big) / q;
    f->leader = ac_fold_leader_of(f, f->group);
    f->active = f->leader == rank;
}

int ac_fold_first(const ac_fold_t *f, int j) {
    int q = f->p / f->g, r = f->p % f->g;
    return j < r ? j * (q + 1) : r * (q + 1) + (j - r) * q;
}

int ac_fold_size(const ac_fold_t *f, int j) {
    int q = f->p / f->g, r = f->p % f->g;
    return q + (j < r ? 1 : 0);
}

int ac_fold_reduce(const ac_fold_t *f, const void *mine, char *acc, char *tmp, int count,
                   MPI_Datatype t, MPI_Op op, MPI_Comm comm, int tag) {
    int err = MPI_SUCCESS;
    if (!f->active) return PMPI_Send(mine, count, t, f->leader, tag, comm);
    int first = ac_fold_first(f, f->group);
    if (mine != acc) AC_CHECK(ac_dt_copy(mine, count, t, acc, count, t));
    /* acc = x_r op acc for r = leader - 1 down to first: the rank-ordered reduction. */
    for (int r = f->leader - 1; r >= first; r--) {
        AC_CHECK(PMPI_Recv(tmp, count, t, r, tag, comm, MPI_STATUS_IGNORE));
        AC_CHECK(PMPI_Reduce_local(tmp, acc, count, t, op));
    }
fn_exit:
    return err;
}

int ac_fold_bcast(const ac_fold_t *f, char *buf, int count, MPI_Datatype t, MPI_Comm comm,
                  int tag) {
    int err = MPI_SUCCESS;
    if (!f->active) return PMPI_Recv(buf, count, t, f->leader, tag, comm, MPI_STATUS_IGNORE);
    for (int r = ac_fold_first(f, f->group); r < f->leader; r++)
        AC_CHECK(PMPI_Send(buf, count, t, r, tag, comm));
fn_exit:
    return err;
}

/* Step masks of recursive halving in execution order; returns the number of steps. */
static int masks(int g, int ascending, int *m) {
    int n = 0;
    if (ascending)
        for (int d = 1; d < g; d <<= 1)
            m[n++] = d;
    else
        for (int d = g >> 1; d >= 1; d >>= 1)
            m[n++] = d;
    return n;
}

int ac_rs_owner_block(int g, int j, int ascending) {
    int m[32], n = masks(g, ascending, m), lo = 0, hi = g;
    for (int s = 0; s < n; s++) {
        int mid = (lo + hi) / 2;
        if (j & m[s])
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int ac_rs_halving(int g, int me, const int *map, int ascending, const size_t *blk, char *buf,
                  char *tmp, MPI_Datatype t, MPI_Op op, MPI_Comm comm, int tag, int *own) {
    int err = MPI_SUCCESS, m[32], n = masks(g, ascending, m), lo = 0, hi = g;
    for (int s = 0; s < n; s++) {
        int q = me ^ m[s], mid = (lo + hi) / 2, upper = (me & m[s]) != 0;
        int klo = upper ? mid : lo, khi = upper ? hi : mid; /* kept */
        int slo = upper ? lo : mid, shi = upper ? mid : hi; /* sent */
        int kc = (int)(blk[khi] - blk[klo]), sc = (int)(blk[shi] - blk[slo]);
        char *kept = ac_dt_at(buf, t, blk[klo]);
        AC_CHECK(PMPI_Sendrecv(ac_dt_at(buf, t, blk[slo]), sc, t, map ? map[q] : q, tag, tmp, kc, t,
                               map ? map[q] : q, tag, comm, MPI_STATUS_IGNORE));
        /* The partner's operand covers the lower participants when I am the upper one. */
        if (upper) {
            AC_CHECK(PMPI_Reduce_local(tmp, kept, kc, t, op));
        } else {
            AC_CHECK(PMPI_Reduce_local(kept, tmp, kc, t, op));
            AC_CHECK(ac_dt_copy(tmp, kc, t, kept, kc, t));
        }
        lo = klo;
        hi = khi;
    }
    *own = lo;
fn_exit:
    return err;
}

int ac_rs_doubling(int g, int me, const int *map, int ascending, const size_t *blk, char *buf,
                   MPI_Datatype t, MPI_Comm comm, int tag) {
    int err = MPI_SUCCESS, m[32], n = masks(g, ascending, m), lo[33], hi[33];
    lo[0] = 0;
    hi[0] = g;
    for (int s = 0; s < n; s++) {
        int mid = (lo[s] + hi[s]) / 2, upper = (me & m[s]) != 0;
        lo[s + 1] = upper ? mid : lo[s];
        hi[s + 1] = upper ? hi[s] : mid;
    }
    for (int s = n - 1; s >= 0; s--) {
        int q = me ^ m[s], upper = (me & m[s]) != 0, mid = (lo[s] + hi[s]) / 2;
        int olo = upper ? lo[s] : mid, ohi = upper ? mid : hi[s]; /* the partner's half */
        AC_CHECK(PMPI_Sendrecv(ac_dt_at(buf, t, blk[lo[s + 1]]),
                               (int)(blk[hi[s + 1]] - blk[lo[s + 1]]), t, map ? map[q] : q, tag,
                               ac_dt_at(buf, t, blk[olo]), (int)(blk[ohi] - blk[olo]), t,
                               map ? map[q] : q, tag, comm, MPI_STATUS_IGNORE));
    }
fn_exit:
    return err;
}

int ac_rs_ring(int p, int r, const size_t *blk, int shift, int reduce, size_t seg, char *buf,
               char *tmp, MPI_Datatype t, MPI_Op op, MPI_Comm comm, int tag) {
    int err = MPI_SUCCESS, right = (r + 1) % p, left = (r - 1 + p) % p;
    size_t maxc = 0;
    /* req[k % W]: receive of segment k; req[W + k % W]: send of segment k. */
    MPI_Request req[2 * AC_RS_RING_WINDOW];
    for (int i = 0; i < 2 * AC_RS_RING_WINDOW; i++)
        req[i] = MPI_REQUEST_NULL;
    for (int b = 0; b < p; b++)
        if (blk[b + 1] - blk[b] > maxc) maxc = blk[b + 1] - blk[b];
    if (seg == 0 || seg > maxc) seg = maxc ? maxc : 1;
    for (int s = 0; s < p - 1; s++) {
        int sb = (((r - s + shift) % p) + p) % p, rb = (((r - s - 1 + shift) % p) + p) % p;
        size_t sc = blk[sb + 1] - blk[sb], rc = blk[rb + 1] - blk[rb];
        size_t ns = (sc + seg - 1) / seg, nr = (rc + seg - 1) / seg, n = ns > nr ? ns : nr;
        /* Segment k of the step is posted once segment k - W has completed, so at most W
         * receives and W sends are in flight; segments are posted and matched in order. */
        for (size_t k = 0; k < n + AC_RS_RING_WINDOW; k++) {
            if (k >= AC_RS_RING_WINDOW) {
                size_t j = k - AC_RS_RING_WINDOW;
                if (j < nr) {
                    /* Segments arrive in order (same source and tag): combine each as it
                     * lands, while the next W - 1 are in transfer. */
                    size_t c = rc - j * seg < seg ? rc - j * seg : seg;
                    AC_CHECK(PMPI_Wait(&req[j % AC_RS_RING_WINDOW], MPI_STATUS_IGNORE));
                    if (reduce)
                        AC_CHECK(PMPI_Reduce_local(ac_dt_at(tmp, t, (j % AC_RS_RING_WINDOW) * seg),
                                                   ac_dt_at(buf, t, blk[rb] + j * seg), (int)c, t,
                                                   op));
                }
                if (j < ns)
                    AC_CHECK(PMPI_Wait(&req[AC_RS_RING_WINDOW + j % AC_RS_RING_WINDOW],
                                       MPI_STATUS_IGNORE));
            }
            if (k < nr) {
                size_t c = rc - k * seg < seg ? rc - k * seg : seg;
                /* reduce: segment k lands in slot k mod W of tmp, free again since its
                 * previous tenant, segment k - W, was combined above. */
                char *dst = reduce ? ac_dt_at(tmp, t, (k % AC_RS_RING_WINDOW) * seg)
                                   : ac_dt_at(buf, t, blk[rb] + k * seg);
                AC_CHECK(PMPI_Irecv(dst, (int)c, t, left, tag, comm, &req[k % AC_RS_RING_WINDOW]));
            }
            if (k < ns) {
                size_t c = sc - k * seg < seg ? sc - k * seg : seg;
                AC_CHECK(PMPI_Isend(ac_dt_at(buf, t, blk[sb] + k * seg), (int)c, t, right, tag,
                                    comm, &req[AC_RS_RING_WINDOW + k % AC_RS_RING_WINDOW]));
            }
        }
    }
fn_exit:
    /* On error, complete what is still posted: buffers must not be written after return. */
    if (err != MPI_SUCCESS) PMPI_Waitall(2 * AC_RS_RING_WINDOW, req, MPI_STATUSES_IGNORE);
    return err;
}

int ac_rs_knomial(int g, int k, int me, const int *map, char *buf, char *tmp, int count,
                  MPI_Datatype t, MPI_Op op, MPI_Comm comm, int tag) {
    int err = MPI_SUCCESS, nreq = 0;
    MPI_Request *req = malloc(2 * (size_t)k * sizeof *req);
    if (!req) return MPI_ERR_NO_MEM;
    for (long d = 1; d < g; d *= k) {
        int digit = (int)((me / d) % k), base = me - digit * (int)d;
        nreq = 0;
        /* Slot of member j in tmp: members other than me, in order. */
        for (int j = 0; j < k; j++) {
            if (j == digit) continue;
            int peer = base + j * (int)d, slot = j < digit ? j : j - 1;
            AC_CHECK(PMPI_Irecv(ac_dt_at(tmp, t, (size_t)slot * (size_t)count), count, t,
                                map ? map[peer] : peer, tag, comm, &req[nreq++]));
        }
        for (int j = 0; j < k; j++) {
            if (j == digit) continue;
            int peer = base + j * (int)d;
            AC_CHECK(PMPI_Isend(buf, count, t, map ? map[peer] : peer, tag, comm, &req[nreq++]));
        }
        AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
        nreq = 0;
        /* v_0 op (v_1 op (... op v_{k-1})), accumulated in v_{k-1}'s buffer. */
        char *acc = digit == k - 1 ? buf : ac_dt_at(tmp, t, (size_t)(k - 2) * (size_t)count);
        for (int j = k - 2; j >= 0; j--) {
            char *v = j == digit ? buf : ac_dt_at(tmp, t, (size_t)(j < digit ? j : j - 1) * count);
            AC_CHECK(PMPI_Reduce_local(v, acc, count, t, op));
        }
        if (acc != buf) AC_CHECK(ac_dt_copy(acc, count, t, buf, count, t));
    }
fn_exit:
    if (nreq) PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    free(req);
    return err;
}
