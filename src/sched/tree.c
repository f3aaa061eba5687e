/*
 * Tree shapes (pure) and tree executors (PMPI point-to-point). See tree.h for the definitions.
 * Reference: seed 000 (Faraj 2006) §3.4 and spec star-stage-ethernet section 2.5 (binomial,
 * linear and binary trees, pipelining); seed 004 (Afsahi 2000) §5.3.1 and §5.5 and spec
 * predictors-latency sections 5.4-5.5 ((k+1)-nomial k-port scatter and broadcast, k-ary trees).
 * Stage stamps (seed 003 §4, spec allreduce-trees.md §7.2): ac_node_bcast, ac_node_reduce,
 * ac_tree_gather and ac_tree_scatter stamp t1..t4 of the rank's vertex into ac_tree_stamps
 * (traced, the gather completes its receives in arrival order, with Waitany, to stamp each
 * child's arrival; untraced one Waitall) when a caller above (the hierarchical
 * algorithms' tracing, src/coll/hier_stage.c) sets it; the clock is the caller's, as sched may
 * not include trace. Off: one thread-local load per executor call.
 */
#include <stdlib.h>
#include "../core/ac.h"
#include "tree.h"

/* ---------------------------------------------------------------- shapes */

ac_tree_t ac_tree_make(ac_tree_kind_t kind, int k, int p) {
    ac_tree_t t;
    t.kind = kind;
    t.p = p < 1 ? 1 : p;
    if (kind == AC_TREE_KNOMIAL) {
        if (k < 2) k = 2;
        if (k > t.p && t.p >= 2) k = t.p;
    } else if (k < 1) {
        k = 1;
    }
    t.k = k;
    return t;
}

/* KNOMIAL: weight k^z of the lowest non-zero digit of v (v > 0). */
static long long low_weight(long long v, long long k) {
    long long w = 1;
    while ((v / w) % k == 0)
        w *= k;
    return w;
}

int ac_tree_parent(const ac_tree_t *t, int v) {
    if (v <= 0 || v >= t->p) return -1;
    if (t->kind == AC_TREE_KARY) return (v - 1) / t->k;
    long long w = low_weight(v, t->k);
    return (int)(v - ((v / w) % t->k) * w);
}

/* Children of v at digit weight w: d = 1..k-1 with v + d w < p. */
static int knomial_at(const ac_tree_t *t, long long v, long long w) {
    long long room = (long long)t->p - 1 - v;
    if (room < w) return 0;
    long long c = room / w;
    return (int)(c < t->k - 1 ? c : t->k - 1);
}

static long long knomial_limit(const ac_tree_t *t, int v) {
    return v == 0 ? (long long)t->p : low_weight(v, t->k);
}

int ac_tree_nchildren(const ac_tree_t *t, int v) {
    if (v < 0 || v >= t->p) return 0;
    if (t->kind == AC_TREE_KARY) {
        long long first = (long long)t->k * v + 1;
        if (first >= t->p) return 0;
        long long n = t->p - first;
        return (int)(n < t->k ? n : t->k);
    }
    int n = 0;
    long long lim = knomial_limit(t, v);
    for (long long w = 1; w < lim; w *= t->k) {
        int c = knomial_at(t, v, w);
        if (c == 0) break;
        n += c;
    }
    return n;
}

int ac_tree_child(const ac_tree_t *t, int v, int i) {
    if (i < 0) return -1;
    if (t->kind == AC_TREE_KARY) return i < ac_tree_nchildren(t, v) ? t->k * v + 1 + i : -1;
    long long lim = knomial_limit(t, v);
    for (long long w = 1; w < lim; w *= t->k) {
        int c = knomial_at(t, v, w);
        if (c == 0) break;
        if (i < c) return (int)(v + (i + 1) * w);
        i -= c;
    }
    return -1;
}

int ac_tree_child_level(const ac_tree_t *t, int v, int i) {
    if (t->kind == AC_TREE_KARY) return 0;
    long long lim = knomial_limit(t, v);
    int lev = 0;
    for (long long w = 1; w < lim; w *= t->k, lev++) {
        int c = knomial_at(t, v, w);
        if (c == 0) break;
        if (i < c) return lev;
        i -= c;
    }
    return -1;
}

int ac_tree_subtree(const ac_tree_t *t, int v) {
    if (v < 0 || v >= t->p) return 0;
    if (v == 0) return t->p;
    if (t->kind == AC_TREE_KNOMIAL) {
        long long w = low_weight(v, t->k), rest = (long long)t->p - v;
        return (int)(w < rest ? w : rest);
    }
    if (t->k == 1) return t->p - v;
    long long first = v, last = v, n = 0;
    while (first < t->p) {
        n += (last < t->p ? last : t->p - 1) - first + 1;
        first = first * t->k + 1;
        last = last * t->k + t->k;
    }
    return (int)n;
}

static int depth(const ac_tree_t *t, int v) {
    int d = 0;
    while (v > 0) {
        v = ac_tree_parent(t, v);
        d++;
    }
    return d;
}

int ac_tree_height(const ac_tree_t *t) {
    int h = 0;
    for (int v = 0; v < t->p; v++) {
        int d = depth(t, v);
        if (d > h) h = d;
    }
    return h;
}

void ac_inorder_node(int p, int root, int rank, int *parent, int *left, int *right, int *lo,
                     int *hi) {
    int l = 0, h = p, m = root, par = -1;
    while (m != rank) {
        par = m;
        if (rank < m)
            h = m;
        else
            l = m + 1;
        m = l + (h - l) / 2;
    }
    *parent = par;
    *left = m > l ? l + (m - l) / 2 : -1;
    *right = h > m + 1 ? (m + 1) + (h - m - 1) / 2 : -1;
    *lo = l;
    *hi = h;
}

/* Binary heap level L >= 1 holds [2^L - 1, 2^(L+1) - 1): its first half belongs to the subtree
 * of 1, its second half to the subtree of 2. */
static int clip(long long a, long long b, int p) { /* size of [a, b) within [0, p) */
    if (b > p) b = p;
    return b > a ? (int)(b - a) : 0;
}

static int side_size(int p, int side) {
    int n = 0;
    for (long long half = 1; (2 * half - 1) < p; half *= 2) {
        long long a = 2 * half - 1 + side * half;
        n += clip(a, a + half, p);
    }
    return n;
}

static void side_index(int p, int v, int *side, int *idx) {
    int n0 = 0, n1 = 0;
    for (long long half = 1; (2 * half - 1) < p; half *= 2) {
        long long a = 2 * half - 1, b = a + half;
        if (v >= a && v < b) {
            *side = 0;
            *idx = n0 + (int)(v - a);
            return;
        }
        if (v >= b && v < b + half) {
            *side = 1;
            *idx = n1 + (int)(v - b);
            return;
        }
        n0 += clip(a, b, p);
        n1 += clip(b, b + half, p);
    }
    *side = -1;
    *idx = -1;
}

static int side_at(int p, int side, int idx) {
    for (long long half = 1; (2 * half - 1) < p; half *= 2) {
        long long a = 2 * half - 1 + side * half;
        int c = clip(a, a + half, p);
        if (idx < c) return (int)(a + idx);
        idx -= c;
    }
    return -1;
}

void ac_tree_split_pair(int p, int v, int *side, int *partner) {
    int idx;
    if (v <= 0 || v >= p) {
        *side = -1;
        *partner = -1;
        return;
    }
    side_index(p, v, side, &idx);
    int other = side_size(p, 1 - *side);
    *partner = idx < other ? side_at(p, 1 - *side, idx) : 0;
}

int ac_tree_split_orphans(int p, int *out, int max) {
    int n0 = side_size(p, 0), n1 = side_size(p, 1), n = 0;
    /* The left side is never the smaller one; its tail beyond n1 has no partner. */
    for (int i = n1; i < n0; i++, n++)
        if (out && n < max) out[n] = side_at(p, 0, i);
    return n;
}

size_t ac_seg_elems(size_t seg_bytes, size_t type_size, size_t count) {
    if (count == 0) return 1;
    if (type_size == 0) return count;
    size_t e = seg_bytes / type_size;
    if (e < 1) e = 1;
    return e < count ? e : count;
}

size_t ac_seg_count(size_t count, size_t seg) {
    if (count == 0) return 0;
    if (seg == 0) seg = 1;
    return (count + seg - 1) / seg;
}

/* ---------------------------------------------------------------- executors */

AC_TLS ac_tree_stamps_t *ac_tree_stamps;

/* The run a traced executor stamps (NULL: not traced, or no room). */
static ac_tree_run_t *stamp_begin(int op, int parent, const int *child, int nch) {
    ac_tree_stamps_t *s = ac_tree_stamps;
    if (__builtin_expect(s == NULL, 1)) return NULL;
    if (s->nrun >= s->maxrun || nch > s->cap) {
        s->lost++;
        return NULL;
    }
    ac_tree_run_t *r = &s->run[s->nrun++];
    r->op = op;
    r->parent = parent;
    r->nch = nch;
    for (int j = 0; j < nch; j++) {
        r->child[j] = child[j];
        r->at[j] = 0;
    }
    r->entry = r->mid = s->now();
    return r;
}

static int64_t stamp_now(void) {
    return ac_tree_stamps->now();
}

/* The run of vertex v of tree t (root `root`, p ranks) a traced gather or scatter stamps: its
 * parent's and children's real ranks, children in the order given by pos (child index i is at
 * position pos(i)). NULL when not traced. */
static ac_tree_run_t *stamp_tree(int op, const ac_tree_t *t, int v, int root, int p) {
    if (__builtin_expect(ac_tree_stamps == NULL, 1)) return NULL;
    int nch = ac_tree_nchildren(t, v);
    int *ch = calloc((size_t)(nch > 0 ? nch : 1), sizeof *ch);
    if (!ch) return NULL;
    for (int i = 0; i < nch; i++) {
        int at = op == AC_TREE_RUN_SCATTER ? nch - 1 - i : i; /* scatter serves the last first */
        ch[at] = ac_tree_rank(ac_tree_child(t, v, i), root, p);
    }
    int parent = v == 0 ? -1 : ac_tree_rank(ac_tree_parent(t, v), root, p);
    ac_tree_run_t *r = stamp_begin(op, parent, ch, nch);
    free(ch);
    return r;
}

int ac_node_bcast(void *buf, int count, MPI_Datatype type, int parent, const int *child, int nch,
                  MPI_Comm comm, int tag, size_t seg) {
    int err = MPI_SUCCESS;
    size_t nseg = ac_seg_count((size_t)count, seg);
    MPI_Request rreq = MPI_REQUEST_NULL, *sreq = NULL;
    if (nseg == 0) return MPI_SUCCESS;
    if (seg > (size_t)count) seg = (size_t)count;
    if (nch > 0) {
        sreq = malloc((size_t)nch * sizeof *sreq);
        if (!sreq) return MPI_ERR_NO_MEM;
    }
    ac_tree_run_t *st = stamp_begin(AC_TREE_RUN_BCAST, parent, child, nch);
    if (parent >= 0) AC_CHECK(PMPI_Irecv(buf, (int)seg, type, parent, tag, comm, &rreq));
    for (size_t s = 0; s < nseg; s++) {
        size_t off = s * seg, n = (size_t)count - off < seg ? (size_t)count - off : seg;
        void *at = ac_dt_at(buf, type, off);
        if (parent >= 0) {
            AC_CHECK(PMPI_Wait(&rreq, MPI_STATUS_IGNORE));
            if (st && s + 1 == nseg) st->mid = stamp_now();
            if (s + 1 < nseg) {
                size_t off2 = off + seg,
                       n2 = (size_t)count - off2 < seg ? (size_t)count - off2 : seg;
                AC_CHECK(
                    PMPI_Irecv(ac_dt_at(buf, type, off2), (int)n2, type, parent, tag, comm, &rreq));
            }
        }
        for (int j = 0; j < nch; j++) {
            if (st && s + 1 == nseg) st->at[j] = stamp_now();
            AC_CHECK(PMPI_Isend(at, (int)n, type, child[j], tag, comm, &sreq[j]));
        }
        if (nch > 0) AC_CHECK(PMPI_Waitall(nch, sreq, MPI_STATUSES_IGNORE));
    }
fn_exit:
    if (err != MPI_SUCCESS && rreq != MPI_REQUEST_NULL) {
        PMPI_Cancel(&rreq);
        PMPI_Request_free(&rreq);
    }
    free(sreq);
    return err;
}

/* The real ranks of the children of virtual rank v, in the order a broadcast serves them
 * (KNOMIAL: the last children root the largest subtrees, first) or a reduction combines them
 * (increasing virtual rank). NULL when out of memory and nch > 0. */
static int *tree_children(const ac_tree_t *t, int v, int root, int nch, int serve) {
    int *c = malloc((size_t)(nch > 0 ? nch : 1) * sizeof *c);
    for (int j = 0; c && j < nch; j++) {
        int i = serve && t->kind == AC_TREE_KNOMIAL ? nch - 1 - j : j;
        c[j] = ac_tree_rank(ac_tree_child(t, v, i), root, t->p);
    }
    return c;
}

int ac_tree_bcast(void *buf, int count, MPI_Datatype type, int root, int rank, MPI_Comm comm,
                  int tag, const ac_tree_t *t, size_t seg) {
    int p = t->p, v = ac_tree_vrank(rank, root, p);
    int parent = ac_tree_parent(t, v), nch = ac_tree_nchildren(t, v);
    if (p == 1) return MPI_SUCCESS;
    int *child = tree_children(t, v, root, nch, 1);
    if (!child) return MPI_ERR_NO_MEM;
    int err = ac_node_bcast(buf, count, type, parent >= 0 ? ac_tree_rank(parent, root, p) : -1,
                            child, nch, comm, tag, seg);
    free(child);
    return err;
}

int ac_node_reduce(const void *mine, void *res, int count, MPI_Datatype type, MPI_Op op, int parent,
                   const int *child, int nch, MPI_Comm comm, int tag, size_t seg) {
    int err = MPI_SUCCESS;
    void *accbase = NULL, *tmpbase = NULL;
    char *acc = NULL, *tmp = NULL;
    MPI_Request sreq = MPI_REQUEST_NULL;
    size_t nseg = ac_seg_count((size_t)count, seg);
    if (nseg == 0) return MPI_SUCCESS;
    if (seg > (size_t)count) seg = (size_t)count;
    if (nch > 0) {
        acc = ac_dt_alloc(type, (size_t)count, &accbase);
        tmp = ac_dt_alloc(type, seg, &tmpbase);
        if (!acc || !tmp) {
            err = MPI_ERR_NO_MEM;
            goto fn_exit;
        }
    }
    ac_tree_run_t *st = stamp_begin(AC_TREE_RUN_REDUCE, parent, child, nch);
    for (size_t s = 0; s < nseg; s++) {
        size_t off = s * seg, n = (size_t)count - off < seg ? (size_t)count - off : seg;
        const void *my = ac_dt_at(mine, type, off);
        const void *out = my;
        if (nch > 0) {
            /* mine op c_0 op ... op c_{m-1}, evaluated right to left: inout = in op inout. */
            char *a = ac_dt_at(acc, type, off);
            for (int i = nch - 1; i >= 0; i--) {
                char *dst = i == nch - 1 ? a : tmp;
                AC_CHECK(PMPI_Recv(dst, (int)n, type, child[i], tag, comm, MPI_STATUS_IGNORE));
                if (st && s + 1 == nseg) st->at[i] = stamp_now();
                if (i != nch - 1) AC_CHECK(PMPI_Reduce_local(tmp, a, (int)n, type, op));
            }
            AC_CHECK(PMPI_Reduce_local(my, a, (int)n, type, op));
            out = a;
        }
        if (parent >= 0) {
            AC_CHECK(PMPI_Wait(&sreq, MPI_STATUS_IGNORE));
            if (st && s + 1 == nseg) st->mid = stamp_now();
            AC_CHECK(PMPI_Isend(out, (int)n, type, parent, tag, comm, &sreq));
        } else {
            AC_CHECK(ac_dt_copy(out, (int)n, type, ac_dt_at(res, type, off), (int)n, type));
            if (st && s + 1 == nseg) st->mid = stamp_now();
        }
    }
    AC_CHECK(PMPI_Wait(&sreq, MPI_STATUS_IGNORE));
fn_exit:
    if (err != MPI_SUCCESS && sreq != MPI_REQUEST_NULL) PMPI_Wait(&sreq, MPI_STATUS_IGNORE);
    free(accbase);
    free(tmpbase);
    return err;
}

int ac_tree_reduce(const void *mine, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                   int rank, MPI_Comm comm, int tag, const ac_tree_t *t, size_t seg, int inorder) {
    int err = MPI_SUCCESS, p = t->p;
    int troot = inorder ? 0 : root; /* root of the tree */
    int v = ac_tree_vrank(rank, troot, p);
    int parent = ac_tree_parent(t, v), nch = ac_tree_nchildren(t, v);
    void *resbase = NULL;
    char *res = NULL;
    if (ac_seg_count((size_t)count, seg) == 0) return MPI_SUCCESS;
    int *child = tree_children(t, v, troot, nch, 0);
    if (!child) return MPI_ERR_NO_MEM;
    /* Where the tree root puts the result: rbuf when it is the root, else a buffer to forward. */
    if (v == 0) {
        res = rank == root ? rbuf : ac_dt_alloc(type, (size_t)count, &resbase);
        if (!res) {
            err = MPI_ERR_NO_MEM;
            goto fn_exit;
        }
    }
    AC_CHECK(ac_node_reduce(mine, res, count, type, op,
                            parent >= 0 ? ac_tree_rank(parent, troot, p) : -1, child, nch, comm,
                            tag, seg));
    if (troot != root) {
        if (rank == troot)
            AC_CHECK(PMPI_Send(res, count, type, root, tag, comm));
        else if (rank == root)
            AC_CHECK(PMPI_Recv(rbuf, count, type, troot, tag, comm, MPI_STATUS_IGNORE));
    }
fn_exit:
    free(child);
    free(resbase);
    return err;
}

/* Rank-order pieces of the virtual range [v, v+n) rooted at root: first piece starts at rank
 * (v + root) mod p and holds n1 blocks, the second (n - n1 blocks) starts at rank 0. */
static int wrap_first(int v, int n, int root, int p) {
    int r = ac_tree_rank(v, root, p);
    return r + n <= p ? n : p - r;
}

int ac_tree_scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                    MPI_Datatype rtype, int root, int rank, MPI_Comm comm, int tag,
                    const ac_tree_t *t) {
    int err = MPI_SUCCESS, p = t->p, v = ac_tree_vrank(rank, root, p);
    int nch = ac_tree_nchildren(t, v), size = ac_tree_subtree(t, v), nreq = 0;
    void *tmpbase = NULL;
    char *src = NULL; /* my subtree's blocks, virtual order (non-root) */
    MPI_Aint blk;     /* bytes per block in src */
    MPI_Datatype bt;  /* block type of src */
    int bc;           /* block count of src */
    MPI_Request *req = malloc((size_t)(2 * nch + 1) * sizeof *req);
    if (!req) return MPI_ERR_NO_MEM;
    ac_tree_run_t *st = stamp_tree(AC_TREE_RUN_SCATTER, t, v, root, p);
    if (v == 0) {
        bt = stype;
        bc = scount;
        blk = (MPI_Aint)scount * ac_dt_extent(stype);
        if (rbuf != MPI_IN_PLACE)
            AC_CHECK(
                ac_dt_copy((const char *)sbuf + rank * blk, scount, stype, rbuf, rcount, rtype));
    } else {
        int prank = ac_tree_rank(ac_tree_parent(t, v), root, p);
        bt = rtype;
        bc = rcount;
        blk = (MPI_Aint)rcount * ac_dt_extent(rtype);
        if (nch == 0) {
            src = rbuf;
        } else {
            src = ac_dt_alloc(rtype, (size_t)rcount * (size_t)size, &tmpbase);
            if (!src) {
                err = MPI_ERR_NO_MEM;
                goto fn_exit;
            }
        }
        /* The root sends a range that wraps past rank p-1 as two messages. */
        int n1 = ac_tree_parent(t, v) == 0 ? wrap_first(v, size, root, p) : size;
        AC_CHECK(PMPI_Recv(src, n1 * rcount, rtype, prank, tag, comm, MPI_STATUS_IGNORE));
        if (n1 < size)
            AC_CHECK(PMPI_Recv(src + n1 * blk, (size - n1) * rcount, rtype, prank, tag, comm,
                               MPI_STATUS_IGNORE));
        if (st) st->mid = stamp_now();
        if (nch > 0) AC_CHECK(ac_dt_copy(src, rcount, rtype, rbuf, rcount, rtype));
    }
    /* Children of one digit position go out together (k-port), largest subtrees first. */
    for (int i = nch - 1; i >= 0;) {
        int lev = ac_tree_child_level(t, v, i);
        nreq = 0;
        for (; i >= 0 && ac_tree_child_level(t, v, i) == lev; i--) {
            int c = ac_tree_child(t, v, i), cs = ac_tree_subtree(t, c);
            int cr = ac_tree_rank(c, root, p);
            if (st) st->at[nch - 1 - i] = stamp_now();
            if (v == 0) {
                int n1 = wrap_first(c, cs, root, p);
                const char *sb = sbuf;
                AC_CHECK(
                    PMPI_Isend(sb + (MPI_Aint)cr * blk, n1 * bc, bt, cr, tag, comm, &req[nreq++]));
                if (n1 < cs)
                    AC_CHECK(PMPI_Isend(sb, (cs - n1) * bc, bt, cr, tag, comm, &req[nreq++]));
            } else {
                AC_CHECK(PMPI_Isend(src + (MPI_Aint)(c - v) * blk, cs * bc, bt, cr, tag, comm,
                                    &req[nreq++]));
            }
        }
        AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
        nreq = 0;
    }
fn_exit:
    if (err != MPI_SUCCESS && nreq > 0) PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    free(req);
    free(tmpbase);
    return err;
}

/* Completes the gather's receives: untraced one Waitall; traced (st) in completion order, child
 * who[k]'s t1 stamped when its request k completes (its last one when it has two). */
static int gather_wait(int nreq, MPI_Request *req, ac_tree_run_t *st, const int *who) {
    if (!st || !who) {
        int err = PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        for (int j = 0; st && j < st->nch; j++) /* no room for the positions: one stamp */
            st->at[j] = stamp_now();
        return err;
    }
    for (int k = 0; k < nreq; k++) {
        int idx;
        int err = PMPI_Waitany(nreq, req, &idx, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS) return err;
        if (idx != MPI_UNDEFINED) st->at[who[idx]] = stamp_now();
    }
    return MPI_SUCCESS;
}

int ac_tree_gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                   MPI_Datatype rtype, int root, int rank, MPI_Comm comm, int tag,
                   const ac_tree_t *t) {
    int err = MPI_SUCCESS, p = t->p, v = ac_tree_vrank(rank, root, p);
    int nch = ac_tree_nchildren(t, v), size = ac_tree_subtree(t, v), nreq = 0;
    void *tmpbase = NULL;
    MPI_Request *req = malloc((size_t)(2 * nch + 1) * sizeof *req);
    if (!req) return MPI_ERR_NO_MEM;
    ac_tree_run_t *st = stamp_tree(AC_TREE_RUN_GATHER, t, v, root, p);
    int *who = NULL; /* traced: the child position of every receive request */
    if (st && nch > 0) who = malloc((size_t)(2 * nch) * sizeof *who);
    if (v == 0) {
        char *rb = rbuf;
        MPI_Aint blk = (MPI_Aint)rcount * ac_dt_extent(rtype);
        for (int i = 0; i < nch; i++) {
            int c = ac_tree_child(t, v, i), cs = ac_tree_subtree(t, c);
            int cr = ac_tree_rank(c, root, p), n1 = wrap_first(c, cs, root, p);
            if (who) who[nreq] = who[nreq + 1] = i;
            AC_CHECK(PMPI_Irecv(rb + (MPI_Aint)cr * blk, n1 * rcount, rtype, cr, tag, comm,
                                &req[nreq++]));
            if (n1 < cs)
                AC_CHECK(PMPI_Irecv(rb, (cs - n1) * rcount, rtype, cr, tag, comm, &req[nreq++]));
        }
        if (sbuf != MPI_IN_PLACE)
            AC_CHECK(ac_dt_copy(sbuf, scount, stype, rb + (MPI_Aint)rank * blk, rcount, rtype));
        AC_CHECK(gather_wait(nreq, req, st, who));
        nreq = 0;
        if (st) st->mid = stamp_now();
        goto fn_exit;
    }
    int parent = ac_tree_parent(t, v), prank = ac_tree_rank(parent, root, p);
    if (nch == 0) {
        if (st) st->mid = stamp_now();
        AC_CHECK(PMPI_Send(sbuf, scount, stype, prank, tag, comm));
        goto fn_exit;
    }
    MPI_Aint blk = (MPI_Aint)scount * ac_dt_extent(stype);
    char *tmp = ac_dt_alloc(stype, (size_t)scount * (size_t)size, &tmpbase);
    if (!tmp) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    for (int i = 0; i < nch; i++) {
        int c = ac_tree_child(t, v, i), cs = ac_tree_subtree(t, c);
        if (who) who[nreq] = i;
        AC_CHECK(PMPI_Irecv(tmp + (MPI_Aint)(c - v) * blk, cs * scount, stype,
                            ac_tree_rank(c, root, p), tag, comm, &req[nreq++]));
    }
    AC_CHECK(ac_dt_copy(sbuf, scount, stype, tmp, scount, stype));
    AC_CHECK(gather_wait(nreq, req, st, who));
    nreq = 0;
    if (st) st->mid = stamp_now();
    /* The root receives a range that wraps past rank p-1 as two messages. */
    int n1 = parent == 0 ? wrap_first(v, size, root, p) : size;
    AC_CHECK(PMPI_Send(tmp, n1 * scount, stype, prank, tag, comm));
    if (n1 < size)
        AC_CHECK(
            PMPI_Send(tmp + (MPI_Aint)n1 * blk, (size - n1) * scount, stype, prank, tag, comm));
fn_exit:
    if (err != MPI_SUCCESS && nreq > 0) PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    free(req);
    free(tmpbase);
    free(who);
    return err;
}

/* ---------------------------------------------------------------- pieces */

/* Elements [*off, *off + *n) of pieces [lo, hi). */
static void piece_range(const ac_pieces_t *pc, int lo, int hi, int *off, int *n) {
    long long a = (long long)lo * pc->c, b = (long long)hi * pc->c;
    if (a > pc->count) a = pc->count;
    if (b > pc->count) b = pc->count;
    *off = (int)a;
    *n = b > a ? (int)(b - a) : 0;
}

int ac_pieces_send(const ac_pieces_t *pc, int lo, int hi, int w) {
    int off, n;
    piece_range(pc, lo, hi, &off, &n);
    return PMPI_Send(ac_dt_at(pc->buf, pc->type, (size_t)off), n, pc->type,
                     ac_tree_rank(w, pc->root, pc->p), pc->tag, pc->comm);
}

int ac_pieces_recv(const ac_pieces_t *pc, int lo, int hi, int w) {
    int off, n;
    piece_range(pc, lo, hi, &off, &n);
    return PMPI_Recv(ac_dt_at(pc->buf, pc->type, (size_t)off), n, pc->type,
                     ac_tree_rank(w, pc->root, pc->p), pc->tag, pc->comm, MPI_STATUS_IGNORE);
}

int ac_pieces_sendrecv(const ac_pieces_t *pc, int slo, int shi, int to, int rlo, int rhi,
                       int from) {
    int soff, sn, roff, rn;
    piece_range(pc, slo, shi, &soff, &sn);
    piece_range(pc, rlo, rhi, &roff, &rn);
    return PMPI_Sendrecv(ac_dt_at(pc->buf, pc->type, (size_t)soff), sn, pc->type,
                         ac_tree_rank(to, pc->root, pc->p), pc->tag,
                         ac_dt_at(pc->buf, pc->type, (size_t)roff), rn, pc->type,
                         ac_tree_rank(from, pc->root, pc->p), pc->tag, pc->comm, MPI_STATUS_IGNORE);
}

int ac_pieces_scatter(ac_pieces_t *pc, void *buf, int count, MPI_Datatype type, int root, int rank,
                      int p, MPI_Comm comm, int tag) {
    int err = MPI_SUCCESS, v = ac_tree_vrank(rank, root, p);
    ac_tree_t tr = ac_tree_make(AC_TREE_KNOMIAL, 2, p);
    *pc = (ac_pieces_t){buf, type, count, (count + p - 1) / p, p, root, v, tag, comm};
    if (v != 0)
        AC_CHECK(ac_pieces_recv(pc, v, v + ac_tree_subtree(&tr, v), ac_tree_parent(&tr, v)));
    for (int i = ac_tree_nchildren(&tr, v) - 1; i >= 0; i--) {
        int ch = ac_tree_child(&tr, v, i);
        AC_CHECK(ac_pieces_send(pc, ch, ch + ac_tree_subtree(&tr, ch), ch));
    }
fn_exit:
    return err;
}
