/*
 * Rank-invariant descriptions of the data of the collectives that move data without reducing it
 * (bcast, gather, scatter, allgather, allgatherv, alltoall).
 *
 * MPI matches only type signatures: each rank may describe the same data with its own (count,
 * datatype) pair (root: 512 x MPI_INT; a receiver: 1 x a 2048-byte derived type). An algorithm
 * that cuts a message into pieces, segments or blocks counted in elements of its local datatype
 * would cut it differently on every rank. Instead of auditing that rule in every algorithm, the
 * dispatcher hands each algorithm a rewritten argument record in which every rank describes the
 * data in the same unit: U = u contiguous bytes, where u is the smallest power of two that
 * divides every block and keeps every count of the call (the whole receive buffer included)
 * within an int. u depends only on the block sizes in bytes, which MPI requires to be equal on
 * every rank, so every rank computes the same u, the same counts and the same decision.
 *
 * Per buffer and rank, locally:
 *   - a contiguous description (size == extent == true extent, lb == true lb, or a single
 *     element whose true extent equals its size; and a type map in memory order, in_order) is
 *     used in place: zero-copy, the buffer is re-addressed at its true lower bound;
 *   - anything else is packed into a private buffer before the call (inputs) and unpacked after
 *     it (outputs), so algorithms only ever see contiguous bytes.
 * allgatherv keeps the caller's displacements when they are whole units, else uses the packed
 * layout (prefix sums of the block sizes).
 *
 * Not rewritten: the reductions (MPI requires identical count and datatype on every rank, and
 * the operation needs the type), barrier, and alltoallv, whose algorithms all move every block
 * directly from its owner to its destination in one message described by its owner and its
 * receiver (signature-equal by MPI's rule; no block is forwarded or cut), and whose block sizes
 * are not known on every rank, so no common unit can be agreed without communication.
 *
 * When no unit exists (a block of an odd number of bytes with more than INT_MAX bytes in the
 * call) ac_sig_begin sets *native on every rank and the caller runs the MPI library's collective.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "ac.h"

enum { AC_SIG_MAXLOG = 40 };
static MPI_Datatype unit_type[AC_SIG_MAXLOG + 1];

static MPI_Datatype unit_of(int lg) {
    if (lg == 0) return MPI_BYTE;
    ac_lock();
    if (!unit_type[lg]) {
        MPI_Datatype t;
        if (PMPI_Type_contiguous(1 << lg, MPI_BYTE, &t) == MPI_SUCCESS &&
            PMPI_Type_commit(&t) == MPI_SUCCESS)
            unit_type[lg] = t;
    }
    MPI_Datatype t = unit_type[lg];
    ac_unlock();
    return t ? t : MPI_DATATYPE_NULL;
}

void ac_sig_teardown(void) {
    for (int i = 1; i <= AC_SIG_MAXLOG; i++)
        if (unit_type[i]) PMPI_Type_free(&unit_type[i]);
}

int ac_sig_applies(int coll) {
    return coll == AUTOCOLL_BCAST || coll == AUTOCOLL_GATHER || coll == AUTOCOLL_SCATTER ||
           coll == AUTOCOLL_ALLGATHER || coll == AUTOCOLL_ALLGATHERV || coll == AUTOCOLL_ALLTOALL;
}

/* Smallest lg such that 2^lg divides `all_or` (the OR of every block size) and total >> lg
 * fits an int; -1 when none. */
static int unit_log(size_t all_or, size_t total) {
    int twos = 0;
    if (all_or == 0) return 0;
    while (twos < AC_SIG_MAXLOG && !((all_or >> twos) & 1))
        twos++;
    for (int lg = 0; lg <= twos; lg++)
        if ((total >> lg) <= (size_t)INT_MAX) return lg;
    return -1;
}

/* 1 when the type map of t lists its bytes in increasing memory order without gaps inside each
 * element's data, as far as its constructor shows: predefined types, and dup, contiguous,
 * resized and (h)vector with back-to-back blocks of such types. Anything else (struct, indexed,
 * subarray: their members may be out of memory order, e.g. struct{int at 4, int at 0}, whose
 * size, extent and true extent are all 8) answers 0 and is packed, which is always correct. */
static int in_order(MPI_Datatype t, int depth) {
    int ni, na, nd, comb, ok = 0;
    if (depth > 8 || PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS) return 0;
    if (comb == MPI_COMBINER_NAMED) return 1;
    if (ni > 3 || na > 2 || nd != 1) return 0;
    int ints[3];
    MPI_Aint addrs[2];
    MPI_Datatype base;
    if (PMPI_Type_get_contents(t, ni, na, nd, ints, addrs, &base) != MPI_SUCCESS) return 0;
    size_t bsz = ac_dt_size(base);
    MPI_Aint blb, bext;
    PMPI_Type_get_extent(base, &blb, &bext);
    int dense = (size_t)bext == bsz; /* consecutive base elements touch */
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        ok = in_order(base, depth + 1);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        ok = (ints[0] <= 1 || dense) && in_order(base, depth + 1);
        break;
    case MPI_COMBINER_VECTOR: /* count, blocklength, stride (in base extents) */
        ok = (ints[1] <= 1 || dense) && (ints[0] <= 1 || (dense && ints[2] == ints[1])) &&
             in_order(base, depth + 1);
        break;
    case MPI_COMBINER_HVECTOR: /* count, blocklength; stride in bytes */
        ok = (ints[1] <= 1 || dense) &&
             (ints[0] <= 1 || (dense && addrs[0] == (MPI_Aint)ints[1] * bext)) &&
             in_order(base, depth + 1);
        break;
    default:
        ok = 0;
    }
    int bni, bna, bnd, bcomb;
    if (PMPI_Type_get_envelope(base, &bni, &bna, &bnd, &bcomb) == MPI_SUCCESS &&
        bcomb != MPI_COMBINER_NAMED)
        PMPI_Type_free(&base);
    return ok;
}

/* Address of the first data byte when `count` elements of t at buf are contiguous bytes in the
 * type map's order, else NULL. */
static char *contig_at(const void *buf, size_t count, MPI_Datatype t) {
    MPI_Aint lb, ext, tlb, text;
    size_t sz = ac_dt_size(t);
    PMPI_Type_get_extent(t, &lb, &ext);
    PMPI_Type_get_true_extent(t, &tlb, &text);
    if ((size_t)text != sz) return NULL;
    if (count > 1 && ((size_t)ext != sz || lb != tlb)) return NULL;
    if (!in_order(t, 0)) return NULL;
    return (char *)buf + tlb;
}

/* Copy block by block between a user description and packed bytes (dir 0: user -> packed). */
static int copy_blocks(ac_sig_t *s, char *user, MPI_Datatype t, int nb, int count,
                       const int *counts, const int *displs, char *packed, int dir) {
    MPI_Aint ext = ac_dt_extent(t);
    size_t tsz = ac_dt_size(t), off = 0;
    for (int b = 0; b < nb; b++) {
        int c = counts ? counts[b] : count;
        size_t bytes = (size_t)c * tsz;
        MPI_Aint at = displs ? (MPI_Aint)displs[b] : (MPI_Aint)b * count;
        char *u = user + at * ext;
        int units = (int)(bytes >> s->lg), err = MPI_SUCCESS, pos = 0;
        if (c > 0 && bytes <= (size_t)INT_MAX && u)
            /* MPI_Pack's format is the type signature's bytes in a homogeneous MPI (the same
             * assumption as receiving typed data as bytes); it is a local copy. MPICH refuses
             * MPI_Pack from MPI_BOTTOM (absolute addresses): a message to self then (below). */
            err = dir == 0 ? PMPI_Pack(u, c, t, packed + off, (int)bytes, &pos, MPI_COMM_SELF)
                           : PMPI_Unpack(packed + off, (int)bytes, &pos, u, c, t, MPI_COMM_SELF);
        else if (c > 0)
            err = dir == 0 ? ac_dt_copy(u, c, t, packed + off, units, s->unit)
                           : ac_dt_copy(packed + off, units, s->unit, u, c, t);
        if (err != MPI_SUCCESS) return err;
        off += bytes;
    }
    return MPI_SUCCESS;
}

/* One buffer of nb uniform blocks (count x t each). Returns the buffer the algorithm uses: the
 * user's (re-addressed) when contiguous, else a packed copy (filled when in != 0, unpacked at
 * the end when out != 0). in == 2 packs only block `only` (in-place own block). */
static int view(ac_sig_t *s, const void *ubuf, int nb, int count, MPI_Datatype t, int in, int only,
                int out, void **res) {
    size_t bytes = (size_t)nb * (size_t)count * ac_dt_size(t);
    char *c = contig_at(ubuf, (size_t)nb * (size_t)count, t);
    if (c || bytes == 0) {
        *res = c ? c : (void *)ubuf;
        return MPI_SUCCESS;
    }
    int k = s->nbuf;
    char *tmp = malloc(bytes);
    if (!tmp) return MPI_ERR_NO_MEM;
    s->buf[k] = (ac_sig_buf_t){(char *)ubuf, t, nb, count, tmp, out};
    s->nbuf++;
    int err = MPI_SUCCESS;
    if (in == 1) err = copy_blocks(s, (char *)ubuf, t, nb, count, NULL, NULL, tmp, 0);
    if (in == 2) {
        size_t blk = (size_t)count * ac_dt_size(t);
        err = copy_blocks(s, (char *)ubuf + (MPI_Aint)only * count * ac_dt_extent(t), t, 1, count,
                          NULL, NULL, tmp + (size_t)only * blk, 0);
    }
    *res = tmp;
    return err;
}

/* allgatherv's receive buffer: units per block, and displacements either the caller's (whole
 * units of a contiguous type) or the packed layout. */
static int view_v(ac_sig_t *s, ac_args_t *a, int me, int p) {
    const ac_args_t *o = &s->orig;
    size_t tsz = ac_dt_size(o->rtype);
    MPI_Aint ext = ac_dt_extent(o->rtype);
    s->cnt = malloc(2 * (size_t)p * sizeof(int));
    if (!s->cnt) return MPI_ERR_NO_MEM;
    s->dsp = s->cnt + p;
    size_t total = 0;
    int zero_copy = 1;
    char *base = contig_at(o->rbuf, 2, o->rtype); /* 2: extent must equal size too */
    if (!base) zero_copy = 0;
    for (int j = 0; j < p; j++) {
        size_t bytes = (size_t)o->rcounts[j] * tsz;
        s->cnt[j] = (int)(bytes >> s->lg);
        MPI_Aint d = (MPI_Aint)o->rdispls[j] * ext;
        if (zero_copy && (d < 0 || ((size_t)d & (((size_t)1 << s->lg) - 1)) ||
                          ((size_t)d >> s->lg) > (size_t)INT_MAX))
            zero_copy = 0;
        s->dsp[j] = zero_copy ? (int)((size_t)d >> s->lg) : 0;
        total += bytes;
    }
    if (zero_copy) {
        a->rbuf = base;
    } else {
        size_t off = 0;
        for (int j = 0; j < p; j++) {
            s->dsp[j] = (int)(off >> s->lg);
            off += (size_t)o->rcounts[j] * tsz;
        }
        char *tmp = malloc(total ? total : 1);
        if (!tmp) return MPI_ERR_NO_MEM;
        s->vtmp = tmp;
        if (o->inplace) {
            int err =
                copy_blocks(s, (char *)o->rbuf + (MPI_Aint)o->rdispls[me] * ext, o->rtype, 1,
                            o->rcounts[me], NULL, NULL, tmp + ((size_t)s->dsp[me] << s->lg), 0);
            if (err != MPI_SUCCESS) return err;
        }
        a->rbuf = tmp;
    }
    a->rcounts = s->cnt;
    a->rdispls = s->dsp;
    return MPI_SUCCESS;
}

int ac_sig_begin(ac_args_t *a, ac_sig_t *s, int *native) {
    memset(s, 0, sizeof *s);
    s->orig = *a;
    *native = 0;
    if (!ac_sig_applies(a->coll)) return MPI_SUCCESS;
    const ac_args_t *o = &s->orig;
    int me = a->rank, p = a->size, root = me == a->root;
    /* Block sizes in bytes, equal on every rank. */
    size_t blk = 0, all_or = 0, total = 0;
    switch (a->coll) {
    case AUTOCOLL_BCAST:
        blk = total = a->bytes;
        break;
    case AUTOCOLL_ALLGATHERV:
        for (int j = 0; j < p; j++) {
            size_t b = (size_t)o->rcounts[j] * ac_dt_size(o->rtype);
            all_or |= b;
            total += b;
        }
        break;
    default: /* gather, scatter, allgather, alltoall: a->bytes is one block */
        blk = a->bytes;
        total = blk * (size_t)p;
    }
    all_or |= blk;
    s->lg = unit_log(all_or, total);
    if (s->lg >= 0) s->unit = unit_of(s->lg);
    if (s->lg < 0 || s->unit == MPI_DATATYPE_NULL) {
        *native = 1;
        return MPI_SUCCESS;
    }
    s->active = 1;
    int units = (int)(blk >> s->lg), err = MPI_SUCCESS;
    void *nb = NULL;
    a->scount = a->rcount = units;
    a->stype = a->rtype = s->unit;
    switch (a->coll) {
    case AUTOCOLL_BCAST:
        err = view(s, o->rbuf, 1, o->rcount, o->rtype, root, 0, !root, &nb);
        a->rbuf = nb;
        break;
    case AUTOCOLL_GATHER:
        if (root) {
            err = view(s, o->rbuf, p, o->rcount, o->rtype, o->inplace ? 2 : 0, me, 1, &nb);
            a->rbuf = nb;
        }
        if (err == MPI_SUCCESS && !(root && o->inplace)) {
            err = view(s, o->sbuf, 1, o->scount, o->stype, 1, 0, 0, &nb);
            a->sbuf = nb;
        }
        break;
    case AUTOCOLL_SCATTER:
        if (root) {
            err = view(s, o->sbuf, p, o->scount, o->stype, 1, 0, 0, &nb);
            a->sbuf = nb;
        }
        if (err == MPI_SUCCESS && !(root && o->inplace)) {
            err = view(s, o->rbuf, 1, o->rcount, o->rtype, 0, 0, 1, &nb);
            a->rbuf = nb;
        }
        break;
    case AUTOCOLL_ALLGATHER:
        err = view(s, o->rbuf, p, o->rcount, o->rtype, o->inplace ? 2 : 0, me, 1, &nb);
        a->rbuf = nb;
        if (err == MPI_SUCCESS && !o->inplace) {
            err = view(s, o->sbuf, 1, o->scount, o->stype, 1, 0, 0, &nb);
            a->sbuf = nb;
        }
        break;
    case AUTOCOLL_ALLGATHERV:
        a->rcount = 0;
        err = view_v(s, a, me, p);
        if (err == MPI_SUCCESS && !o->inplace) {
            a->scount = (int)(((size_t)o->scount * ac_dt_size(o->stype)) >> s->lg);
            err = view(s, o->sbuf, 1, o->scount, o->stype, 1, 0, 0, &nb);
            a->sbuf = nb;
        }
        break;
    case AUTOCOLL_ALLTOALL:
        err = view(s, o->rbuf, p, o->rcount, o->rtype, o->inplace, 0, 1, &nb);
        a->rbuf = nb;
        if (err == MPI_SUCCESS && !o->inplace) {
            err = view(s, o->sbuf, p, o->scount, o->stype, 1, 0, 0, &nb);
            a->sbuf = nb;
        }
        break;
    }
    if (err != MPI_SUCCESS) ac_sig_end(s, err);
    return err;
}

int ac_sig_end(ac_sig_t *s, int err) {
    const ac_args_t *o = &s->orig;
    if (!s->active) return err;
    for (int k = 0; k < s->nbuf; k++) {
        ac_sig_buf_t *b = &s->buf[k];
        if (b->out && err == MPI_SUCCESS)
            err = copy_blocks(s, b->user, b->type, b->nb, b->count, NULL, NULL, b->tmp, 1);
        free(b->tmp);
    }
    if (s->vtmp && err == MPI_SUCCESS)
        err = copy_blocks(s, o->rbuf, o->rtype, o->size, 0, o->rcounts, o->rdispls, s->vtmp, 1);
    free(s->vtmp);
    free(s->cnt);
    memset(s, 0, sizeof *s);
    return err;
}
