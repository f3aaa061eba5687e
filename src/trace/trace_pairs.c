/*
 * Point-to-point analyses over trace files (no MPI): the send and receive events of the
 * early-arrival analysis and the pure inter-send computation times.
 *
 * Sources: seed 004 (Afsahi 2000) §4.4 and App. A; spec predictors-latency.md §4.3 (early
 * arrival: send time = entry of the send; receive time = entry of MPI_Recv, or for a
 * nonblocking receive the entry of the first MPI_Wait* whose list held it, else of the MPI_Test*
 * that completed it; j-th send pairs with j-th receive per (communicator, source, destination,
 * tag); wildcards resolved by the completion status) and §2.3 (pure inter-send time:
 * t_in(b) - t_out(a) minus the durations of the MPI calls between the two sends minus the
 * calibrated wrapper overheads o_exit(a) + o_entry(b) + sum_c (o_entry(c) + o_exit(c))).
 *
 * Design. The tracer (src/pmpi/trace_p2p.c) records, in format 2, for every point-to-point call
 * on a communicator its key shared by all members (record seq) and the peer's world rank (root);
 * receives with a status carry the status source's world rank (inst); a nonblocking receive
 * carries its serial number (inst) and its completion is a record of its own (AC_TK_RECV_DONE,
 * same serial, t_in = the receive time above, status source's world rank in root). Here each
 * file (one process) is read in order: sends and receives become ac_ea_send / ac_ea_recv
 * entries in posting order (which is what MPI's non-overtaking rule orders), a completion fills
 * in its receive's source, tag and time (binary search on the serial: serials grow with the
 * file order). A nonblocking receive never completed in the trace keeps its place when its
 * source and tag are known from its arguments (time NaN: paired, not compared) and is dropped
 * when it was a wildcard (its message cannot be placed). A start of a persistent send is a send
 * (send time: the entry of MPI_Start/MPI_Startall); a start of a persistent receive carries a
 * serial like MPI_Irecv and is paired the same way with its completion record. Events without a
 * shared key or world rank (communicators made outside the wrapped creation calls,
 * MPI_PROC_NULL) are counted, not paired; so are starts of requests the tracer did not see made
 * (no arguments), and every persistent start when some file has a receive start without a
 * serial (written before persistent receives had completion records: pairing its sends alone
 * would shift the pairs). O(R log R) per file for R records, O(R) memory.
 *
 * Pure inter-send time: one pass over one process's records, O(R).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "trace.h"
#include "predict.h"

int ac_trace_is_send(const ac_trace_rec_t *r) {
    if (r->kind == AC_TK_START || r->kind == AC_TK_STARTALL)
        return (r->flags & (AC_TF_PERSISTENT | AC_TF_RECV_SIDE)) == AC_TF_PERSISTENT;
    return (r->kind >= AC_TK_SEND && r->kind <= AC_TK_IRSEND) || r->kind == AC_TK_SENDRECV ||
           r->kind == AC_TK_SENDRECV_REPLACE;
}

/* A call of its own (not a completion record or a stage record inside a collective). */
static int is_call(int kind) {
    return kind < AC_TK_STAGE_FIRST && kind != AC_TK_RECV_DONE;
}

size_t ac_pure_gaps(const ac_trace_rec_t *rec, size_t n, const double *entry, const double *exit,
                    double *gap) {
    size_t m = 0;
    int64_t last_out = 0;
    double other = 0, last_exit = 0;
    for (size_t k = 0; k < n; k++) {
        const ac_trace_rec_t *r = &rec[k];
        if (!is_call(r->kind)) continue;
        int cls = ac_trace_wrap_class(r->kind);
        double oe = cls >= 0 && entry ? entry[cls] : 0, ox = cls >= 0 && exit ? exit[cls] : 0;
        if (!ac_trace_is_send(r) || r->ident < 0) {
            other += (double)(r->t_out - r->t_in) + oe + ox;
            continue;
        }
        double g = 0;
        if (m) {
            g = (double)(r->t_in - last_out) - other - last_exit - oe;
            if (g < 0) g = 0;
        }
        if (gap) gap[m] = g;
        m++;
        last_out = r->t_out;
        last_exit = ox;
        other = 0;
    }
    return m;
}

void ac_early_input_free(ac_ea_input *in) {
    free(in->s);
    free(in->r);
    memset(in, 0, sizeof *in);
}

typedef struct {
    uint32_t serial;
    size_t idx;
} pend_t;

static int grow(void **p, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, nc * size);
    if (!q) return -1;
    *p = q;
    *cap = nc;
    return 0;
}

static int valid_rank(int64_t x, int np) {
    return x >= 0 && x < np;
}

static int is_start(const ac_trace_rec_t *r) {
    return r->kind == AC_TK_START || r->kind == AC_TK_STARTALL;
}

/* A nonblocking receive: MPI_Irecv or the start of a persistent receive. */
static int is_nb_recv(const ac_trace_rec_t *r) {
    return r->kind == AC_TK_IRECV || (is_start(r) && (r->flags & AC_TF_RECV_SIDE));
}

/* 1 when some file has a persistent receive start without a serial (an older trace). */
static int legacy_starts(const ac_trace_file_t *f, int nf) {
    for (int i = 0; i < nf; i++)
        for (uint64_t k = 0; k < f[i].nrec; k++) {
            const ac_trace_rec_t *r = &f[i].rec[k];
            if (is_start(r) && (r->flags & AC_TF_RECV_SIDE) && r->inst == AC_TRACE_NOID) return 1;
        }
    return 0;
}

int ac_early_input(const ac_trace_file_t *f, int nf, ac_ea_input *out) {
    memset(out, 0, sizeof *out);
    size_t cs = 0, cr = 0, cp = 0;
    pend_t *pend = NULL;
    unsigned char *wild = NULL; /* per receive: wildcard arguments */
    size_t cw = 0;
    int legacy = legacy_starts(f, nf);
    for (int i = 0; i < nf; i++) {
        const ac_trace_file_t *t = &f[i];
        int np = t->nprocs, w = t->rank, global = (t->flags & AC_TRACE_FLAG_GLOBAL_CLOCK) != 0;
        size_t npend = 0, first = out->nr;
        for (uint64_t k = 0; k < t->nrec; k++) {
            const ac_trace_rec_t *r = &t->rec[k];
            double tin = (double)(global ? r->t_in : ac_trace_clock_correct(t->clock, r->t_in));
            int64_t key = (int64_t)r->seq;
            if (is_start(r) && (legacy || !(r->flags & AC_TF_PERSISTENT))) {
                out->persistent++;
                continue;
            }
            if (ac_trace_is_send(r)) {
                if (key == 0 || !valid_rank(r->root, np)) {
                    out->unkeyed++;
                } else {
                    if (grow((void **)&out->s, &cs, out->ns + 1, sizeof *out->s)) goto oom;
                    out->s[out->ns++] = (ac_ea_send){w, r->root, key, r->tag, tin};
                }
                if (r->kind != AC_TK_SENDRECV && r->kind != AC_TK_SENDRECV_REPLACE) continue;
            }
            int src = -1, tag = 0, known = 0;
            double tr = NAN;
            if (r->kind == AC_TK_SENDRECV || r->kind == AC_TK_SENDRECV_REPLACE ||
                r->kind == AC_TK_RECV) {
                if (r->inst != AC_TRACE_NOID && r->status_tag != AC_TRACE_NONE) {
                    src = (int)r->inst;
                    tag = r->status_tag;
                    known = 1;
                }
                tr = tin;
            } else if (is_nb_recv(r)) {
                if (!(r->flags & AC_TF_WILDCARD) && r->root != AC_TRACE_NONE) {
                    src = r->root;
                    tag = r->tag;
                    known = 1;
                }
            } else if (r->kind == AC_TK_RECV_DONE) {
                size_t lo = 0, hi = npend; /* the pending receive with this serial */
                while (lo < hi) {
                    size_t mid = (lo + hi) / 2;
                    if (pend[mid].serial < r->inst)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                if (lo == npend || pend[lo].serial != r->inst || pend[lo].idx == SIZE_MAX) {
                    out->orphan++; /* its receive was overwritten in the ring, or unkeyed */
                    continue;
                }
                ac_ea_recv *x = &out->r[pend[lo].idx];
                if (valid_rank(r->root, np) && r->status_tag != AC_TRACE_NONE) {
                    x->src = r->root;
                    x->tag = r->status_tag;
                    x->t = tin;
                    wild[pend[lo].idx] = 0;
                } else { /* cancelled, failed or from a process outside the world */
                    x->src = -1;
                }
                pend[lo].idx = SIZE_MAX;
                continue;
            } else {
                continue;
            }
            if (is_nb_recv(r)) { /* serials grow in file order (binary search) */
                if (grow((void **)&pend, &cp, npend + 1, sizeof *pend)) goto oom;
                pend[npend++] = (pend_t){r->inst, SIZE_MAX};
            }
            if (key == 0 || (known && !valid_rank(src, np))) {
                out->unkeyed++;
                continue;
            }
            if (!is_nb_recv(r) && !known) {
                out->unkeyed++;
                continue;
            }
            if (grow((void **)&out->r, &cr, out->nr + 1, sizeof *out->r) ||
                grow((void **)&wild, &cw, out->nr + 1, 1))
                goto oom;
            if (is_nb_recv(r)) pend[npend - 1].idx = out->nr;
            wild[out->nr] = !known;
            out->r[out->nr++] = (ac_ea_recv){w, known ? src : -1, key, tag, tr};
        }
        /* This process's receives: drop what cannot be placed. */
        size_t keep = first;
        for (size_t j = first; j < out->nr; j++) {
            ac_ea_recv *x = &out->r[j];
            if (x->src < 0 || wild[j]) {
                out->unresolved++;
                continue;
            }
            if (isnan(x->t)) out->untimed++;
            out->r[keep] = *x;
            wild[keep] = 0;
            keep++;
        }
        out->nr = keep;
    }
    free(pend);
    free(wild);
    return 0;
oom:
    free(pend);
    free(wild);
    ac_early_input_free(out);
    return -1;
}
