/*
 * Point-to-point tracing (AUTOCOLL_TRACE=p2p or all): the MPI_* entry points of seed 004's
 * events, one record per call (spec predictors-latency.md §2.1), with the identifiers of §2.2.
 *
 * Events. Send requests: MPI_Send, Ssend, Bsend, Rsend, Isend, Issend, Ibsend, Irsend, the send
 * half of MPI_Sendrecv and MPI_Sendrecv_replace (one record per call, peer = dest, ident = the
 * send identifier). Receive requests: MPI_Recv and MPI_Irecv at the time they are posted (ident
 * = the receive identifier; wildcards flagged). Sendrecv_replace is flagged
 * AC_TF_REPLACE_RECV (its receive is excluded from receive prediction, seed 004 §6.4). Waits,
 * tests, probes, persistent starts: recorded for their duration only (subtracted from the pure
 * inter-send time, §2.3).
 *
 * Identifiers (§2.2): send <dest, comm> and receive <source, tag, count, datatype, buf, comm>,
 * interned in first-seen order (src/trace/trace_intern.c), each handle mixed with its
 * generation (bumped by MPI_Comm_free and MPI_Type_free) so that a recycled handle value is a
 * new object. The call site is the caller's return address, normalised with dladdr to
 * module+offset in the file (ac_trace_ids). The record's comm is a dense id of the communicator
 * handle (with its generation) in this process.
 *
 * Cost with point-to-point tracing off: one load of a global word and a branch per call, then
 * the PMPI_ call. On: two clock reads, a lock, two hash lookups and one record.
 *
 * Receive pre-posting (AUTOCOLL_PREPOST=1, docs/prepost.md) hooks in here: when it is not off
 * (AC_PP_ON, one more load and branch), the receives, probes and Sendrecv(_replace) call their
 * prepost.c counterpart instead of the PMPI_ call, synchronous sends and MPI_Comm_free tell it
 * first.
 *
 * Not done: persistent requests are recorded as durations only (no identifier, the start is
 * not classified as a send or a receive); the Fortran bindings are not wrapped; the wrapper
 * overhead of §2.3 is not calibrated (the pure inter-send time is then an upper bound by the
 * wrapper's own cost, about the two clock reads).
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "pmpi.h"
#include "prepost.h"
#include "../trace/trace.h"

/* The PMPI_ call, or its pre-posting counterpart when that is not off. */
#define PP(hook, plain) (AC_PP_ON() ? (hook) : (plain))

#define SITE __builtin_return_address(0)

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static ac_intern_t ids_send, ids_recv, ids_comm, gens;

#define HANDLE(h) handle_word(&(h), sizeof(h))
static uint64_t handle_word(const void *h, size_t n) {
    uint64_t w = 0;
    memcpy(&w, h, n < sizeof w ? n : sizeof w);
    return w;
}

static int on(void) {
    return __builtin_expect((ac_trace_mask & AC_TRACE_P2P) != 0, 0);
}

/* Identifiers of a record (lock held). */
static void ident_send(ac_trace_rec_t *r, int dest, MPI_Comm comm) {
    uint64_t c = HANDLE(comm), k[3] = {(uint64_t)(int64_t)dest, c, ac_intern_gen(&gens, c)};
    r->ident = ac_intern(&ids_send, k, 3);
}

static void ident_recv(ac_trace_rec_t *r, const void *buf, int count, MPI_Datatype t, int source,
                       int tag, MPI_Comm comm) {
    uint64_t c = HANDLE(comm), d = HANDLE(t);
    uint64_t k[8] = {(uint64_t)(int64_t)source, (uint64_t)(int64_t)tag,
                     (uint64_t)(int64_t)count,  d,
                     (uint64_t)(uintptr_t)buf,  c,
                     ac_intern_gen(&gens, c),   ac_intern_gen(&gens, d)};
    r->ident = ac_intern(&ids_recv, k, 8);
    if (source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG) r->flags |= AC_TF_WILDCARD;
}

/* The start of a record: kind, arguments, the comm id, the site; then the entry time. */
static void begin(ac_trace_rec_t *r, int kind, int peer, int tag, int count, MPI_Datatype t,
                  MPI_Comm comm, const void *site) {
    ac_trace_rec_clear(r, kind);
    r->peer = peer;
    r->tag = tag;
    r->count = count;
    if (t != MPI_DATATYPE_NULL && count > 0) {
        int sz = 0;
        PMPI_Type_size(t, &sz);
        r->bytes = (uint64_t)sz * (uint64_t)count;
    }
    if (comm != MPI_COMM_NULL) {
        uint64_t c = HANDLE(comm), k[2] = {c, ac_intern_gen(&gens, c)};
        r->comm = (uint32_t)ac_intern(&ids_comm, k, 2);
    }
    uint32_t s = AC_TRACE_NOID;
    ac_trace_ids(NULL, site, NULL, &s);
    r->site = s;
}

static int end(ac_trace_rec_t *r, int64_t t_in, int err, const MPI_Status *st) {
    r->t_out = ac_trace_now();
    r->t_in = t_in;
    if (err != MPI_SUCCESS) r->flags |= AC_TF_ERROR;
    if (st && st != MPI_STATUS_IGNORE && err == MPI_SUCCESS) {
        r->status_source = st->MPI_SOURCE;
        r->status_tag = st->MPI_TAG;
    }
    ac_trace_record(r);
    return err;
}

/* A send-side call: the PMPI_ call is the expression `call`. */
#define TRACE_SEND(KIND, call, dest, tag, count, t, comm)                                          \
    do {                                                                                           \
        if (!on()) return call;                                                                    \
        ac_trace_rec_t r;                                                                          \
        pthread_mutex_lock(&mtx);                                                                  \
        begin(&r, KIND, dest, tag, count, t, comm, SITE);                                          \
        ident_send(&r, dest, comm);                                                                \
        pthread_mutex_unlock(&mtx);                                                                \
        int64_t t_in = ac_trace_now();                                                             \
        return end(&r, t_in, call, NULL);                                                          \
    } while (0)

AC_EXPORT int MPI_Send(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
    TRACE_SEND(AC_TK_SEND, PMPI_Send(b, n, t, dest, tag, c), dest, tag, n, t, c);
}
AC_EXPORT int MPI_Ssend(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
    if (AC_PP_ON()) ac_pp_ssend(c);
    TRACE_SEND(AC_TK_SSEND, PMPI_Ssend(b, n, t, dest, tag, c), dest, tag, n, t, c);
}
AC_EXPORT int MPI_Bsend(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
    TRACE_SEND(AC_TK_BSEND, PMPI_Bsend(b, n, t, dest, tag, c), dest, tag, n, t, c);
}
AC_EXPORT int MPI_Rsend(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
    TRACE_SEND(AC_TK_RSEND, PMPI_Rsend(b, n, t, dest, tag, c), dest, tag, n, t, c);
}
AC_EXPORT int MPI_Isend(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c,
                        MPI_Request *q) {
    TRACE_SEND(AC_TK_ISEND, PMPI_Isend(b, n, t, dest, tag, c, q), dest, tag, n, t, c);
}
AC_EXPORT int MPI_Issend(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c,
                         MPI_Request *q) {
    if (AC_PP_ON()) ac_pp_ssend(c);
    TRACE_SEND(AC_TK_ISSEND, PMPI_Issend(b, n, t, dest, tag, c, q), dest, tag, n, t, c);
}
AC_EXPORT int MPI_Ibsend(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c,
                         MPI_Request *q) {
    TRACE_SEND(AC_TK_IBSEND, PMPI_Ibsend(b, n, t, dest, tag, c, q), dest, tag, n, t, c);
}
AC_EXPORT int MPI_Irsend(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c,
                         MPI_Request *q) {
    TRACE_SEND(AC_TK_IRSEND, PMPI_Irsend(b, n, t, dest, tag, c, q), dest, tag, n, t, c);
}

AC_EXPORT int MPI_Recv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c,
                       MPI_Status *st) {
#define RECV PP(ac_pp_recv(b, n, t, src, tag, c, st), PMPI_Recv(b, n, t, src, tag, c, st))
    if (!on()) return RECV;
    ac_trace_rec_t r;
    MPI_Status own;
    if (st == MPI_STATUS_IGNORE) st = &own; /* the completion status is recorded */
    pthread_mutex_lock(&mtx);
    begin(&r, AC_TK_RECV, src, tag, n, t, c, SITE);
    ident_recv(&r, b, n, t, src, tag, c);
    pthread_mutex_unlock(&mtx);
    int64_t t_in = ac_trace_now();
    return end(&r, t_in, RECV, st);
#undef RECV
}

AC_EXPORT int MPI_Irecv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c,
                        MPI_Request *q) {
#define IRECV PP(ac_pp_irecv(b, n, t, src, tag, c, q), PMPI_Irecv(b, n, t, src, tag, c, q))
    if (!on()) return IRECV;
    ac_trace_rec_t r;
    pthread_mutex_lock(&mtx);
    begin(&r, AC_TK_IRECV, src, tag, n, t, c, SITE);
    ident_recv(&r, b, n, t, src, tag, c);
    pthread_mutex_unlock(&mtx);
    int64_t t_in = ac_trace_now();
    return end(&r, t_in, IRECV, NULL);
#undef IRECV
}

AC_EXPORT int MPI_Sendrecv(const void *sb, int sn, MPI_Datatype st, int dest, int stag, void *rb,
                           int rn, MPI_Datatype rt, int src, int rtag, MPI_Comm c, MPI_Status *s) {
#define SENDRECV                                                                                   \
    PP(ac_pp_sendrecv(sb, sn, st, dest, stag, rb, rn, rt, src, rtag, c, s),                        \
       PMPI_Sendrecv(sb, sn, st, dest, stag, rb, rn, rt, src, rtag, c, s))
    if (!on()) return SENDRECV;
    ac_trace_rec_t r;
    MPI_Status own;
    if (s == MPI_STATUS_IGNORE) s = &own;
    pthread_mutex_lock(&mtx);
    begin(&r, AC_TK_SENDRECV, dest, stag, sn, st, c, SITE);
    ident_send(&r, dest, c);
    pthread_mutex_unlock(&mtx);
    int64_t t_in = ac_trace_now();
    return end(&r, t_in, SENDRECV, s);
#undef SENDRECV
}

AC_EXPORT int MPI_Sendrecv_replace(void *b, int n, MPI_Datatype t, int dest, int stag, int src,
                                   int rtag, MPI_Comm c, MPI_Status *s) {
#define REPLACE                                                                                    \
    PP(ac_pp_sendrecv_replace(b, n, t, dest, stag, src, rtag, c, s),                               \
       PMPI_Sendrecv_replace(b, n, t, dest, stag, src, rtag, c, s))
    if (!on()) return REPLACE;
    ac_trace_rec_t r;
    MPI_Status own;
    if (s == MPI_STATUS_IGNORE) s = &own;
    pthread_mutex_lock(&mtx);
    begin(&r, AC_TK_SENDRECV_REPLACE, dest, stag, n, t, c, SITE);
    ident_send(&r, dest, c);
    r.flags |= AC_TF_REPLACE_RECV;
    pthread_mutex_unlock(&mtx);
    int64_t t_in = ac_trace_now();
    return end(&r, t_in, REPLACE, s);
#undef REPLACE
}

/* Calls recorded for their duration only. */
#define TRACE_OTHER(KIND, call, status)                                                            \
    do {                                                                                           \
        if (!on()) return call;                                                                    \
        ac_trace_rec_t r;                                                                          \
        pthread_mutex_lock(&mtx);                                                                  \
        begin(&r, KIND, AC_TRACE_NONE, AC_TRACE_NONE, 0, MPI_DATATYPE_NULL, MPI_COMM_NULL, SITE);  \
        pthread_mutex_unlock(&mtx);                                                                \
        r.count = AC_TRACE_NONE;                                                                   \
        int64_t t_in = ac_trace_now();                                                             \
        return end(&r, t_in, call, status);                                                        \
    } while (0)

AC_EXPORT int MPI_Wait(MPI_Request *q, MPI_Status *s) {
    TRACE_OTHER(AC_TK_WAIT, PMPI_Wait(q, s), s);
}
AC_EXPORT int MPI_Waitall(int n, MPI_Request q[], MPI_Status s[]) {
    TRACE_OTHER(AC_TK_WAITALL, PMPI_Waitall(n, q, s), NULL);
}
AC_EXPORT int MPI_Waitany(int n, MPI_Request q[], int *i, MPI_Status *s) {
    TRACE_OTHER(AC_TK_WAITANY, PMPI_Waitany(n, q, i, s), s);
}
AC_EXPORT int MPI_Waitsome(int n, MPI_Request q[], int *o, int i[], MPI_Status s[]) {
    TRACE_OTHER(AC_TK_WAITSOME, PMPI_Waitsome(n, q, o, i, s), NULL);
}
AC_EXPORT int MPI_Test(MPI_Request *q, int *f, MPI_Status *s) {
    TRACE_OTHER(AC_TK_TEST, PMPI_Test(q, f, s), NULL);
}
AC_EXPORT int MPI_Testall(int n, MPI_Request q[], int *f, MPI_Status s[]) {
    TRACE_OTHER(AC_TK_TESTALL, PMPI_Testall(n, q, f, s), NULL);
}
AC_EXPORT int MPI_Testany(int n, MPI_Request q[], int *i, int *f, MPI_Status *s) {
    TRACE_OTHER(AC_TK_TESTANY, PMPI_Testany(n, q, i, f, s), NULL);
}
AC_EXPORT int MPI_Testsome(int n, MPI_Request q[], int *o, int i[], MPI_Status s[]) {
    TRACE_OTHER(AC_TK_TESTSOME, PMPI_Testsome(n, q, o, i, s), NULL);
}
AC_EXPORT int MPI_Probe(int src, int tag, MPI_Comm c, MPI_Status *s) {
    TRACE_OTHER(AC_TK_PROBE, PP(ac_pp_probe(src, tag, c, s), PMPI_Probe(src, tag, c, s)), s);
}
AC_EXPORT int MPI_Iprobe(int src, int tag, MPI_Comm c, int *f, MPI_Status *s) {
    TRACE_OTHER(AC_TK_IPROBE, PP(ac_pp_iprobe(src, tag, c, f, s), PMPI_Iprobe(src, tag, c, f, s)),
                NULL);
}
AC_EXPORT int MPI_Start(MPI_Request *q) {
    TRACE_OTHER(AC_TK_START, PMPI_Start(q), NULL);
}
AC_EXPORT int MPI_Startall(int n, MPI_Request q[]) {
    TRACE_OTHER(AC_TK_STARTALL, PMPI_Startall(n, q), NULL);
}

/* Handle generations (§2.2): a freed handle value that comes back is a new object. */
AC_EXPORT int MPI_Comm_free(MPI_Comm *c) {
    if (AC_PP_ON() && c) ac_pp_comm_free(*c);
    if (on() && c) {
        pthread_mutex_lock(&mtx);
        ac_intern_bump(&gens, HANDLE(*c));
        pthread_mutex_unlock(&mtx);
    }
    return PMPI_Comm_free(c);
}
AC_EXPORT int MPI_Type_free(MPI_Datatype *t) {
    if (on() && t) {
        pthread_mutex_lock(&mtx);
        ac_intern_bump(&gens, HANDLE(*t));
        pthread_mutex_unlock(&mtx);
    }
    return PMPI_Type_free(t);
}

void ac_trace_p2p_free(void) {
    pthread_mutex_lock(&mtx);
    ac_intern_free(&ids_send);
    ac_intern_free(&ids_recv);
    ac_intern_free(&ids_comm);
    ac_intern_free(&gens);
    pthread_mutex_unlock(&mtx);
}
