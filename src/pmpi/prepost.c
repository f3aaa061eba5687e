/*
 * Receive pre-posting (AUTOCOLL_PREPOST=1, off by default): seed 004 (Afsahi 2000) Ch. 6, spec
 * predictors-latency.md §4.4, variant (a) only, with the check-first rule of hazard 5: the library
 * takes a predicted message out of MPI's matching before the receive is posted (and, on a
 * communicator with the hint below, receives a long one into its own staging buffer at once), and
 * hands it to the user's receive. docs/prepost.md gives the design, the ten hazards of §4.4 one
 * by one and what is not speculated.
 *
 * Prediction (§4.4 step 1, §3). Every user MPI_Recv/MPI_Irecv is interned as the 6-tuple
 * <source, tag, capacity in bytes, datatype, buffer, communicator + its epoch> (§2.2) and fed to
 * one Single-cycle2 predictor (src/trace/predict.c; the receive-side choice of §3.7). After the
 * user's receive j is handled, the prediction for j+1 names a source s and communicator c, and
 * the stream (c, s) is armed.
 *
 * Check-first capture (§4.4 step 2, hazard 5). Nothing speculative is ever posted. At every
 * hooked point-to-point entry of this process (trace_p2p.c calls AC_PP_ENTRY, on any
 * communicator, so also right before a user receive is posted) each armed stream is checked with
 * PMPI_Iprobe(s, MPI_ANY_TAG, c); when a message is there and fits the queue's memory bound, it
 * is matched with PMPI_Improbe(s, MPI_ANY_TAG, c) and *held* (its MPI_Message): a matched probe
 * does not complete a synchronous send, a receive does (hazard 6; the standard and an experiment
 * with Open MPI's ob1 in docs/prepost.md), and the receiver cannot tell a synchronous send from
 * another, so by default no capture receives anything. Only on a communicator given the hint
 * autocoll_prepost_early = true (MPI_Comm_set_info; the program declares that none of its
 * synchronous sends there is a handshake) is a long message (over PP_HOLD_MAX bytes) received at
 * once with PMPI_Imrecv into a staging buffer of exactly its size (its count in bytes from the
 * probe's status), which starts its rendezvous transfer: no truncation, and no cancellation,
 * because the receive is bound to that one message. ANY_TAG is deliberate: a matched
 * probe takes the oldest unmatched message from s whatever its tag, so the per-communicator
 * captured-message queue holds, for every source, a prefix of that source's unmatched messages in
 * send order, and every message still unmatched inside MPI is younger than every captured one
 * from the same source. That makes all matching decisions exact: a user receive (specific or
 * wildcard source and tag) takes the first matching queued message in queue order, else it goes
 * to MPI, where nothing speculative can take its message. One message is captured per arming; a
 * receive from s (or a wildcard receive taking the captured message) settles the arming.
 *
 * Delivery. A held message is received by MPI straight into the user's buffer (PMPI_Mrecv, or
 * PMPI_Imrecv for MPI_Irecv/MPI_Imrecv: MPI's own request). A received one's PMPI_Imrecv is
 * completed (PMPI_Wait) first; a rendezvous transfer started by the capture runs on while the
 * process is in MPI (PMPI_Iprobe/Improbe drive progress). The message goes into the user's
 * (buf, count, datatype) with PMPI_Unpack when it is a whole
 * number of elements that fits; a longer one gives the first whole elements and MPI_ERR_TRUNCATE
 * with the message's count, as MPI does; a partial element goes through a self-message of
 * MPI_PACKED bytes on a private duplicate of MPI_COMM_SELF, so MPI itself decides. Status: source
 * and tag of the captured message, count in bytes, error, not cancelled. MPI_Irecv (MPI_Imrecv)
 * served from a received message returns a generalized request whose query gives that status,
 * and never waits: if the capture's transfer is still running, the request stays incomplete on
 * the serving list, and the copy and MPI_Grequest_complete happen when the library sees the
 * capture's request complete: at every hooked entry (AC_PP_ENTRY -> ac_pp_drive, so every test
 * call and the wrapped MPI_Request_get_status), and in the waits (ac_pp_wait*, called by
 * trace_p2p.c's wrappers in place of PMPI_Wait*), which wait for the capture's request in the
 * served request's place: Wait/Waitall wait for it first, Waitany/Waitsome hand MPI a copy of
 * the array with each served request replaced by its capture's request, so MPI blocks until
 * anything completes, without spinning or missing a completion.
 *
 * Matched probes and persistent receives (hazards 3, 7). A matched probe that finds a queued
 * message hands out an MPI_Message MPI knows: a held message's own, or for a received one the
 * handle of a zero-byte message to self on the private communicator, which MPI_Mrecv/MPI_Imrecv
 * recognise (works with MPICH's integer handles too). A persistent receive created while the
 * queue holds a message it matches has its starts served from the queue, as MPI_Irecv would be,
 * until none matches; the request receiving the message stands in for the persistent request in
 * the waits, tests, MPI_Request_get_status, MPI_Cancel and MPI_Request_free (ac_pp_test* too).
 *
 * Gates (hazards 5-10): a communicator stops speculating for good at its first probe (any kind)
 * and at persistent receive creation, and never speculates if it is an intercommunicator;
 * captured bytes held at once are bounded by PP_QUEUE_MAX (a larger message is
 * left in MPI and the arming ends); a (c, s) stream is armed only while its hit ratio (the
 * receive that settles an arming takes the message it captured) stays >= PP_THRESHOLD after
 * PP_WARM armings (decayed, retried after PP_PROBATION skipped chances); MPI_THREAD_MULTIPLE
 * turns the feature off.
 *
 * Cost. Off: one load and a branch per hooked call (next to trace_p2p.c's own). On, per hooked
 * call: an increment, and one PMPI_Iprobe per armed stream (normally 0-2); per user receive: a
 * queue scan (O(queued messages on c), normally 0-2), O(1) expected interning and prediction;
 * per held capture: a second probe (PMPI_Improbe), a malloc, eight error-handler calls, no copy;
 * per long capture received at once (hint): a second probe, two mallocs, PMPI_Imrecv, a
 * PMPI_Wait, eight error-handler calls and one copy of the message on delivery; per served
 * MPI_Irecv still running: one PMPI_Request_get_status per hooked entry, an O(n) array copy in
 * Waitany/Waitsome. While a served persistent start runs, an O(n) array copy per wait or test
 * listing it. Memory: at most PP_QUEUE_MAX bytes of captured messages, a per-source record per
 * communicator, a record per persistent receive created while its message was queued.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "pmpi.h"
#include "prepost.h"
#include "../trace/predict.h"
#include "../trace/trace.h"

enum {
    PP_QUEUE_MAX = 8 * 1024 * 1024, /* bytes of captured messages held at once (per process) */
    PP_WARM = 8,                    /* armings before the hit ratio gates a stream */
    PP_DECAY = 64,                  /* armings after which both counts are halved */
    PP_PROBATION = 256,             /* skipped chances before a gated stream is tried again */
    PP_HOLD_MAX = 4096 /* bytes: with the hint, a message this short is still only held */
};
#define PP_THRESHOLD 0.9 /* spec §4.4 hazard 10 default */

/* Why a communicator does not speculate (bits). */
enum { NS_PROBE = 1, NS_PERSIST = 2, NS_INTER = 4 };

/* A (c, s) stream: idle, armed (checked at every entry), or holding the message its arming
 * captured until a receive settles it. */
enum { ST_IDLE, ST_ARMED, ST_CAUGHT };

int ac_prepost_state = -1;
unsigned long ac_pp_calls;
int ac_pp_narmed;

typedef struct pp_msg {
    struct pp_msg *next;
    int src, tag, err; /* err: completion code of the capture's PMPI_Imrecv */
    int nbytes;        /* its exact length */
    unsigned long seq; /* capture number */
    unsigned long at;  /* ac_pp_calls at its capture */
    MPI_Request req;   /* the capture's PMPI_Imrecv until completed, then MPI_REQUEST_NULL */
    int hold;          /* short: matched only, msg still to be received (data NULL) */
    MPI_Message msg;   /* held: MPI's; handed out by a matched probe: its name's */
    MPI_Request nreq;  /* the send of its name, completed when the name is received */
    char *data;
    MPI_Comm comm; /* where it was received (error handler of a matched receive) */
} pp_msg;

typedef struct {
    int state, slot;   /* slot: index in pp_comm.arm while armed */
    unsigned long seq; /* ST_CAUGHT: the message this arming captured */
    unsigned tries, hits, skipped;
} pp_src;

typedef struct pp_comm {
    struct pp_comm *next;
    MPI_Comm comm;
    uint64_t epoch;
    int size, nospec, narmed;
    int early; /* hint autocoll_prepost_early: long captures are received at once */
    int *arm;  /* the armed sources, narmed of them */
    pp_src *src;
    pp_msg *qhead, *qtail;
} pp_comm;

typedef struct {
    int src, tag;
    uint64_t comm, epoch;
} pp_tuple;

static pp_comm *comms;
static uint64_t next_epoch = 1;
static ac_pred *pred;
static ac_intern_t ids;
static pp_tuple *tuples;
static int32_t ntuples, captuples;
static MPI_Comm pp_self = MPI_COMM_NULL;
static int pp_keyval = MPI_KEYVAL_INVALID;
static pp_msg *matched;    /* messages handed out by MPI_Mprobe/MPI_Improbe */
static long long held;     /* bytes of captured messages not yet delivered */
static unsigned long nseq; /* captures so far */
static struct {
    unsigned long long armed, hits, captured, served, early, declined, later, persist;
} stat;

static uint64_t handle_word(const void *h, size_t n) {
    uint64_t w = 0;
    memcpy(&w, h, n < sizeof w ? n : sizeof w);
    return w;
}
#define HANDLE(h) handle_word(&(h), sizeof(h))

/* ---------------------------------------------------------------- communicators */

static pp_comm *comm_find(uint64_t h) {
    for (pp_comm *pc = comms; pc; pc = pc->next)
        if (HANDLE(pc->comm) == h) return pc;
    return NULL;
}

static pp_comm *comm_get(MPI_Comm c) {
    pp_comm *pc = comm_find(HANDLE(c));
    if (pc) return pc;
    int inter = 0, size = 0;
    PMPI_Comm_test_inter(c, &inter);
    if (inter)
        PMPI_Comm_remote_size(c, &size);
    else
        PMPI_Comm_size(c, &size);
    pc = calloc(1, sizeof *pc);
    if (!pc) return NULL;
    size_t n = (size_t)(size > 0 ? size : 1);
    pc->src = calloc(n, sizeof *pc->src);
    pc->arm = calloc(n, sizeof *pc->arm);
    if (!pc->src || !pc->arm) {
        free(pc->src);
        free(pc->arm);
        free(pc);
        return NULL;
    }
    pc->comm = c;
    pc->epoch = next_epoch++;
    pc->size = size;
    pc->nospec = inter ? NS_INTER : 0;
    pc->next = comms;
    comms = pc;
    return pc;
}

/* Internal operations return errors instead of invoking the user's handler. */
static MPI_Errhandler quiet(MPI_Comm c) {
    MPI_Errhandler old;
    PMPI_Comm_get_errhandler(c, &old);
    PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return old;
}
static void loud(MPI_Comm c, MPI_Errhandler old) {
    PMPI_Comm_set_errhandler(c, old);
    PMPI_Errhandler_free(&old);
}

static void enqueue(pp_comm *pc, pp_msg *m) {
    m->next = NULL;
    if (pc->qtail)
        pc->qtail->next = m;
    else
        pc->qhead = m;
    pc->qtail = m;
}

/* ---------------------------------------------------------------- capture */

/* Stream s of pc back to idle (out of the armed list if it was there). */
static void disarm(pp_comm *pc, int s) {
    pp_src *ps = &pc->src[s];
    if (ps->state == ST_ARMED) {
        int last = pc->arm[--pc->narmed];
        pc->arm[ps->slot] = last;
        pc->src[last].slot = ps->slot;
        ac_pp_narmed--;
    }
    ps->state = ST_IDLE;
}

/* Check-first capture on the armed stream (pc, s): if a message from s is there, receive
 * exactly that message (the oldest unmatched one from s, any tag) into a buffer of its size and
 * queue it. Returns it, or NULL when nothing was there (the stream stays armed) or it was too
 * large for the queue's bound (left in MPI, the arming ends). */
static pp_msg *capture(pp_comm *pc, int s) {
    int flag = 0;
    MPI_Status st;
    MPI_Count n = 0;
    if (PMPI_Iprobe(s, MPI_ANY_TAG, pc->comm, &flag, &st) != MPI_SUCCESS || !flag) return NULL;
    PMPI_Get_elements_x(&st, MPI_BYTE, &n);
    pp_msg *m = NULL;
    int hold = !pc->early || n <= PP_HOLD_MAX;
    if (n >= 0 && n <= INT_MAX && n <= PP_QUEUE_MAX - held) m = calloc(1, sizeof *m);
    if (m && !hold) m->data = malloc(n > 0 ? (size_t)n : 1);
    if (!m || (!hold && !m->data)) {
        if (m) free(m);
        stat.declined++;
        disarm(pc, s);
        return NULL;
    }
    /* nothing ran since the check: the matched probe finds that same message */
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Errhandler eh = quiet(pc->comm);
    flag = 0;
    int rc = PMPI_Improbe(s, MPI_ANY_TAG, pc->comm, &flag, &msg, &st);
    if (rc != MPI_SUCCESS) flag = 0; /* nothing matched */
    MPI_Count n2 = n;
    if (rc == MPI_SUCCESS && flag) PMPI_Get_elements_x(&st, MPI_BYTE, &n2);
    if (rc == MPI_SUCCESS && flag && hold) { /* short: keep it matched in MPI (hazard 6) */
        m->hold = 1;
        m->msg = msg;
        n = n2;
    } else if (rc == MPI_SUCCESS && flag && n2 != n) { /* defensive: size it to what was matched */
        char *d = n2 >= 0 && n2 <= INT_MAX ? realloc(m->data, n2 > 0 ? (size_t)n2 : 1) : NULL;
        if (d) m->data = d;
        rc = d ? MPI_SUCCESS : MPI_ERR_NO_MEM;
        n = d ? n2 : 0;
    }
    m->req = MPI_REQUEST_NULL;
    if (rc == MPI_SUCCESS && flag && !hold)
        rc = PMPI_Imrecv(m->data, (int)n, MPI_PACKED, &msg, &m->req);
    if (rc != MPI_SUCCESS) m->req = MPI_REQUEST_NULL; /* its error reaches the user's receive */
    loud(pc->comm, eh);
    if (!flag) { /* nothing was taken out of MPI (cannot happen single-threaded) */
        free(m->data);
        free(m);
        return NULL;
    }
    m->src = st.MPI_SOURCE;
    m->tag = st.MPI_TAG;
    m->err = rc;
    m->nbytes = (int)n;
    m->seq = ++nseq;
    m->at = ac_pp_calls;
    m->comm = pc->comm;
    held += m->nbytes;
    stat.captured++;
    enqueue(pc, m);
    disarm(pc, s);
    pc->src[s].state = ST_CAUGHT;
    pc->src[s].seq = m->seq;
    return m;
}

void ac_pp_poll(void) {
    for (pp_comm *pc = comms; pc && ac_pp_narmed; pc = pc->next)
        for (int k = pc->narmed - 1; k >= 0; k--) /* a capture moves the last slot into k */
            capture(pc, pc->arm[k]);
}

/* The capture's receive, completed (delivery, shutdown). */
static void complete(pp_msg *m) {
    if (m->hold) { /* matched only: receive it into a staging buffer now */
        m->hold = 0;
        m->data = malloc(m->nbytes > 0 ? (size_t)m->nbytes : 1);
        int rc = m->data ? PMPI_Imrecv(m->data, m->nbytes, MPI_PACKED, &m->msg, &m->req)
                         : MPI_ERR_NO_MEM;
        if (rc != MPI_SUCCESS) m->req = MPI_REQUEST_NULL;
        if (m->err == MPI_SUCCESS) m->err = rc;
    }
    if (m->req == MPI_REQUEST_NULL) return;
    MPI_Status st;
    MPI_Errhandler eh = m->comm != MPI_COMM_NULL ? quiet(m->comm) : MPI_ERRHANDLER_NULL;
    int rc = PMPI_Wait(&m->req, &st);
    if (m->comm != MPI_COMM_NULL) loud(m->comm, eh);
    if (m->err == MPI_SUCCESS) m->err = rc == MPI_ERR_IN_STATUS ? st.MPI_ERROR : rc;
}

static void msg_free(pp_msg *m) {
    complete(m);
    held -= m->nbytes;
    free(m->data);
    free(m);
}

static int env_match(const pp_msg *m, int src, int tag) {
    return (src == MPI_ANY_SOURCE || src == m->src) && (tag == MPI_ANY_TAG || tag == m->tag);
}

/* The first queued message matching (src, tag) in queue order; unlinked when take = 1. */
static pp_msg *queued(pp_comm *pc, int src, int tag, int take) {
    pp_msg *prev = NULL;
    for (pp_msg *m = pc->qhead; m; prev = m, m = m->next) {
        if (!env_match(m, src, tag)) continue;
        if (take) {
            if (prev)
                prev->next = m->next;
            else
                pc->qhead = m->next;
            if (pc->qtail == m) pc->qtail = prev;
            m->next = NULL;
        }
        return m;
    }
    return NULL;
}

/* A user receive for (src, tag) on pc: the first matching queued message (taken), or NULL and
 * the receive goes to MPI. The checks of this call's entry have run just before (AC_PP_ENTRY).
 * Settles the arming of src (any source: of the stream whose capture is taken): a hit when the
 * receive takes the message that arming captured. */
static pp_msg *settle(pp_comm *pc, int src, int tag) {
    pp_msg *m = queued(pc, src, tag, 1);
    int s = src != MPI_ANY_SOURCE ? src : m ? m->src : -1;
    if (s >= 0 && s < pc->size) {
        pp_src *ps = &pc->src[s];
        int hit = ps->state == ST_CAUGHT && m && m->seq == ps->seq;
        if (hit) ps->hits++, stat.hits++;
        if (hit || src != MPI_ANY_SOURCE) disarm(pc, s);
    }
    if (m && m->at != ac_pp_calls) stat.early++;
    return m;
}

/* Stop speculating on c (captured messages stay queued). */
static void nospec(pp_comm *pc, int why) {
    pc->nospec |= why;
    while (pc->narmed)
        disarm(pc, pc->arm[pc->narmed - 1]);
}

/* ---------------------------------------------------------------- delivery */

static MPI_Count capacity(int n, MPI_Datatype t) {
    int sz = 0;
    if (n <= 0 || t == MPI_DATATYPE_NULL) return 0;
    PMPI_Type_size(t, &sz);
    return (MPI_Count)sz * n;
}

/* Copy m into (b, n, t) as a receive of m would; fills *st, frees m, returns the error code. */
static int deliver(pp_msg *m, void *b, int n, MPI_Datatype t, MPI_Comm c, MPI_Status *st) {
    int rc = MPI_SUCCESS, tsz = 0;
    if (m->hold && m->err == MPI_SUCCESS) { /* matched only: MPI receives it, as the user's */
        MPI_Errhandler eh = quiet(m->comm);
        rc = PMPI_Mrecv(b, n, t, &m->msg, st);
        loud(m->comm, eh);
        m->hold = 0;
        st->MPI_ERROR = rc;
        stat.served++;
        msg_free(m);
        return rc;
    }
    MPI_Count ucap = capacity(n, t);
    if (n > 0) PMPI_Type_size(t, &tsz);
    complete(m);
    st->MPI_SOURCE = m->src;
    st->MPI_TAG = m->tag;
    if (m->err != MPI_SUCCESS) { /* the capture's receive failed: its error, no data */
        rc = m->err;
        PMPI_Status_set_elements_x(st, MPI_BYTE, 0);
    } else if (m->nbytes == 0) {
        PMPI_Status_set_elements_x(st, MPI_BYTE, 0);
    } else if (tsz > 0 && m->nbytes <= ucap && m->nbytes % tsz == 0) {
        int pos = 0;
        rc = PMPI_Unpack(m->data, m->nbytes, &pos, b, m->nbytes / tsz, t, c);
        PMPI_Status_set_elements_x(st, MPI_BYTE, m->nbytes);
    } else if (m->nbytes > ucap) {
        /* truncation: the first ucap bytes (whole elements) and MPI_ERR_TRUNCATE; the count is
         * the message's length, as Open MPI reports it */
        int pos = 0;
        if (tsz > 0) PMPI_Unpack(m->data, m->nbytes, &pos, b, (int)(ucap / tsz), t, c);
        rc = MPI_ERR_TRUNCATE;
        PMPI_Status_set_elements_x(st, MPI_BYTE, m->nbytes);
    } else {
        /* a partial element: let MPI receive the bytes itself */
        MPI_Status s2;
        rc = PMPI_Sendrecv(m->data, m->nbytes, MPI_PACKED, 0, 0, b, n, t, 0, 0, pp_self, &s2);
        if (rc == MPI_ERR_IN_STATUS) rc = s2.MPI_ERROR;
        MPI_Count got = 0;
        PMPI_Get_elements_x(&s2, MPI_BYTE, &got);
        PMPI_Status_set_elements_x(st, MPI_BYTE, got);
    }
    PMPI_Status_set_cancelled(st, 0);
    st->MPI_ERROR = rc;
    stat.served++;
    msg_free(m);
    return rc;
}
/* A served MPI_Irecv / MPI_Imrecv: a generalized request whose extra state is this record. It is
 * complete at once when the capture's receive has finished; otherwise it stays on the serving
 * list, and the copy and MPI_Grequest_complete happen when the library sees the capture's
 * request complete: at every hooked entry (ac_pp_drive), or in a wait that lists it, which
 * waits for the capture's request in its place (ac_pp_wait*). MPI_Irecv never waits. */
typedef struct pp_serve {
    struct pp_serve *next;
    MPI_Status st; /* the receive's status, once delivered (query function) */
    pp_msg *m;     /* the captured message while serving, then NULL */
    void *b;
    int n, tdup;    /* tdup: t is our duplicate of a derived datatype */
    MPI_Datatype t; /* the user's may be freed before completion: named or duplicated */
    MPI_Request greq;
    int serving, user_freed; /* on the list; MPI called free_fn before completion */
} pp_serve;

static pp_serve *serving; /* served requests whose capture is still running */
int ac_pp_nserve;

/* ---------------------------------------------------------------- persistent receives */

/* A persistent receive created while its communicator's queue holds a message it matches
 * (hazard 7). Nothing is captured on that communicator afterwards (NS_PERSIST), so only those
 * queued messages concern it. A start that finds one is served from the queue as an MPI_Irecv
 * would be (deliver_request): the persistent request stays inactive inside MPI, and the request
 * receiving the message (r) stands in for it in every wait, test, MPI_Request_get_status,
 * MPI_Cancel and MPI_Request_free until it completes; the user's array keeps the persistent
 * handle. The first start that finds none drops the record: that start and every later one are
 * MPI's. */
typedef struct pp_pers {
    struct pp_pers *next;
    MPI_Request p, r; /* the user's request; the served start's receive or MPI_REQUEST_NULL */
    void *b;
    int n, src, tag, tdup;
    MPI_Datatype t; /* named, or our duplicate (the user may free theirs) */
    MPI_Comm c;
    uint64_t epoch;
} pp_pers;
static pp_pers *perss;
static int nsub; /* records whose r is active */

static pp_pers **pers_link(MPI_Request p) {
    for (pp_pers **pp = &perss; *pp; pp = &(*pp)->next)
        if (HANDLE((*pp)->p) == HANDLE(p)) return pp;
    return NULL;
}
static void pers_drop(pp_pers **pp) {
    pp_pers *e = *pp;
    *pp = e->next;
    if (e->tdup) PMPI_Type_free(&e->t);
    free(e);
}
/* The record whose served start stands for p, or NULL. */
static pp_pers *pers_sub(MPI_Request p) {
    if (!nsub || p == MPI_REQUEST_NULL) return NULL;
    for (pp_pers *e = perss; e; e = e->next)
        if (e->r != MPI_REQUEST_NULL && HANDLE(e->p) == HANDLE(p)) return e;
    return NULL;
}

static int greq_query(void *state, MPI_Status *st) {
    MPI_Status *s = &((pp_serve *)state)->st;
    MPI_Count n = 0;
    PMPI_Get_elements_x(s, MPI_BYTE, &n);
    st->MPI_SOURCE = s->MPI_SOURCE;
    st->MPI_TAG = s->MPI_TAG;
    st->MPI_ERROR = s->MPI_ERROR;
    PMPI_Status_set_elements_x(st, MPI_BYTE, n);
    PMPI_Status_set_cancelled(st, 0);
    return s->MPI_ERROR;
}
/* MPI may call it at MPI_Request_free, before the request is complete: the record then stays
 * until its delivery (serve_finish frees it). */
static int greq_free(void *state) {
    pp_serve *sv = state;
    if (sv->serving)
        sv->user_freed = 1;
    else
        free(sv);
    return MPI_SUCCESS;
}
static int greq_cancel(void *state, int complete) {
    (void)state;
    (void)complete; /* the message is matched already: cancelling a matched receive fails */
    return MPI_SUCCESS;
}

/* The capture's receive of sv has completed (or is completed here, wait = 1): copy the message
 * into the user's buffer, then complete the generalized request. sv may be gone afterwards. */
static void serve_finish(pp_serve *sv) {
    for (pp_serve **pp = &serving; *pp; pp = &(*pp)->next)
        if (*pp == sv) {
            *pp = sv->next;
            ac_pp_nserve--;
            break;
        }
    /* MPI_Unpack's communicator only names the representation: ours, as the user's may be
     * freed by now */
    deliver(sv->m, sv->b, sv->n, sv->t, pp_self, &sv->st);
    sv->m = NULL;
    if (sv->tdup) PMPI_Type_free(&sv->t);
    int freed = sv->user_freed;
    MPI_Request g = sv->greq;
    sv->serving = 0;
    PMPI_Grequest_complete(g); /* may call greq_free */
    if (freed) free(sv);
}

/* Has the capture's receive of m finished? (does not complete it; no error handler) */
static int capture_done(const pp_msg *m) {
    int flag = 1;
    if (m->req != MPI_REQUEST_NULL) PMPI_Request_get_status(m->req, &flag, MPI_STATUS_IGNORE);
    return flag;
}

void ac_pp_drive(void) {
    for (pp_serve *sv = serving, *nx; sv; sv = nx) {
        nx = sv->next;
        if (capture_done(sv->m)) serve_finish(sv);
    }
}

/* t kept valid until a later delivery, whatever the user does with it: *out = t when it is
 * named (returns 0), else a duplicate (1); -1 when it cannot be duplicated. */
static int type_keep(MPI_Datatype t, MPI_Datatype *out) {
    int ni, na, nt, comb = MPI_COMBINER_NAMED;
    PMPI_Type_get_envelope(t, &ni, &na, &nt, &comb);
    *out = t;
    if (comb == MPI_COMBINER_NAMED) return 0;
    return PMPI_Type_dup(t, out) == MPI_SUCCESS ? 1 : -1;
}

static int deliver_request(pp_msg *m, void *b, int n, MPI_Datatype t, MPI_Comm c, MPI_Request *q) {
    pp_serve *sv = calloc(1, sizeof *sv);
    if (!sv) {
        ac_log("prepost: out of memory serving a receive");
        PMPI_Abort(MPI_COMM_WORLD, 1);
        return MPI_ERR_NO_MEM;
    }
    if (m->hold && m->err == MPI_SUCCESS) { /* matched only: MPI's own receive, never waits */
        free(sv);
        m->hold = 0;
        int rc = PMPI_Imrecv(b, n, t, &m->msg, q);
        stat.served++;
        msg_free(m);
        return rc;
    }
    int later = !capture_done(m);
    if (later && (sv->tdup = type_keep(t, &sv->t)) < 0) { /* cannot keep it: wait now */
        sv->tdup = 0;
        later = 0;
    }
    if (!later) deliver(m, b, n, t, c, &sv->st);
    int rc = PMPI_Grequest_start(greq_query, greq_free, greq_cancel, sv, q);
    if (rc != MPI_SUCCESS) {
        if (later) deliver(m, b, n, t, c, &sv->st);
        if (sv->tdup) PMPI_Type_free(&sv->t);
        free(sv);
        return rc;
    }
    if (!later) return PMPI_Grequest_complete(*q);
    sv->m = m;
    sv->b = b;
    sv->n = n;
    sv->greq = *q;
    sv->serving = 1;
    stat.later++;
    sv->next = serving;
    serving = sv;
    ac_pp_nserve++;
    return MPI_SUCCESS;
}

/* The serving record of request r, or NULL. */
static pp_serve *serve_of(MPI_Request r) {
    if (r == MPI_REQUEST_NULL) return NULL;
    for (pp_serve *sv = serving; sv; sv = sv->next)
        if (HANDLE(sv->greq) == HANDLE(r)) return sv;
    return NULL;
}

/* Waits listing served requests: each such request's capture is waited for in its place. */
static int served_wait(MPI_Request *q, MPI_Status *s) {
    pp_serve *sv;
    if (ac_pp_nserve && q && (sv = serve_of(*q))) {
        complete(sv->m);
        serve_finish(sv);
    }
    return PMPI_Wait(q, s);
}

static int served_waitall(int n, MPI_Request q[], MPI_Status s[]) {
    /* every request must complete anyway; MPI progress is global while waiting for one */
    for (int i = 0; ac_pp_nserve && q && i < n; i++) {
        pp_serve *sv = serve_of(q[i]);
        if (sv) {
            complete(sv->m);
            serve_finish(sv);
        }
    }
    return PMPI_Waitall(n, q, s);
}

/* Waitany / Waitsome over an array holding served requests: MPI waits on a copy of the array in
 * which each such request is replaced by its capture's receive. A completed capture is
 * delivered and its generalized request completed and waited for (its status); any other
 * completed request goes back into the caller's array as MPI left it. The served requests are
 * in sv[], NULL elsewhere. Returns the number replaced (0: the caller's own call is used). */
static int swap_in(int n, const MPI_Request q[], MPI_Request **tmp, pp_serve ***sv) {
    int k = 0;
    *tmp = NULL;
    *sv = NULL;
    if (!ac_pp_nserve || !q || n <= 0) return 0;
    for (int i = 0; i < n && !k; i++)
        k = serve_of(q[i]) != NULL;
    if (!k) return 0;
    *tmp = malloc((size_t)n * sizeof **tmp);
    *sv = calloc((size_t)n, sizeof **sv);
    if (!*tmp || !*sv) {
        free(*tmp);
        free(*sv);
        ac_log("prepost: out of memory in a wait");
        PMPI_Abort(MPI_COMM_WORLD, 1);
        return 0;
    }
    k = 0;
    for (int i = 0; i < n; i++) {
        (*tmp)[i] = q[i];
        if (((*sv)[i] = serve_of(q[i]))) (*tmp)[i] = (*sv)[i]->m->req, k++;
    }
    return k;
}

/* The capture of sv completed inside MPI's wait (its request freed there, status st). */
static int swap_out(pp_serve *sv, MPI_Request *q, int rc, const MPI_Status *st, MPI_Status *s) {
    sv->m->req = MPI_REQUEST_NULL;
    if (sv->m->err == MPI_SUCCESS && rc != MPI_SUCCESS)
        sv->m->err = rc == MPI_ERR_IN_STATUS ? st->MPI_ERROR : rc;
    serve_finish(sv);
    return PMPI_Wait(q, s);
}

static int served_waitany(int n, MPI_Request q[], int *idx, MPI_Status *s) {
    MPI_Request *tmp;
    pp_serve **sv;
    if (!swap_in(n, q, &tmp, &sv)) return PMPI_Waitany(n, q, idx, s);
    MPI_Status st;
    int k = MPI_UNDEFINED, rc = PMPI_Waitany(n, tmp, &k, &st);
    *idx = k;
    if (k != MPI_UNDEFINED && k >= 0 && k < n) {
        if (sv[k]) {
            rc = swap_out(sv[k], &q[k], rc, &st, s);
        } else {
            q[k] = tmp[k];
            if (s != MPI_STATUS_IGNORE) *s = st;
        }
    }
    free(tmp);
    free(sv);
    return rc;
}

static int served_waitsome(int n, MPI_Request q[], int *out, int idx[], MPI_Status s[]) {
    MPI_Request *tmp;
    pp_serve **sv;
    if (!swap_in(n, q, &tmp, &sv)) return PMPI_Waitsome(n, q, out, idx, s);
    MPI_Status *st = malloc((size_t)n * sizeof *st);
    if (!st) {
        free(tmp);
        free(sv);
        ac_log("prepost: out of memory in a wait");
        PMPI_Abort(MPI_COMM_WORLD, 1);
        return MPI_ERR_NO_MEM;
    }
    int rc = PMPI_Waitsome(n, tmp, out, idx, st), inst = rc == MPI_ERR_IN_STATUS, any = 0;
    for (int j = 0; *out != MPI_UNDEFINED && j < *out; j++) {
        int k = idx[j];
        if (!sv[k]) { /* MPI's own request, done as MPI left it */
            q[k] = tmp[k];
            if (!inst) st[j].MPI_ERROR = MPI_SUCCESS;
            continue;
        }
        st[j].MPI_ERROR = swap_out(sv[k], &q[k], inst ? st[j].MPI_ERROR : rc, &st[j], &st[j]);
        any |= st[j].MPI_ERROR != MPI_SUCCESS;
    }
    if (any && (rc == MPI_SUCCESS || inst)) rc = MPI_ERR_IN_STATUS; /* per-status errors */
    if (s != MPI_STATUSES_IGNORE)
        for (int j = 0; *out != MPI_UNDEFINED && j < *out; j++)
            s[j] = st[j];
    free(st);
    free(tmp);
    free(sv);
    return rc;
}

/* ---------------------------------------------------------------- prediction */

/* Arm the predicted stream: its next message is captured at the first entry that finds it. */
static void arm(const pp_tuple *tu) {
    pp_comm *pc = comm_find(tu->comm);
    if (!pc || pc->epoch != tu->epoch || pc->nospec) return; /* freed, recycled or gated */
    if (tu->src < 0 || tu->src >= pc->size) return;
    pp_src *ps = &pc->src[tu->src];
    if (ps->state != ST_IDLE) return; /* at most one arming per stream */
    if (ps->tries >= PP_WARM && ps->hits < PP_THRESHOLD * ps->tries) {
        if (++ps->skipped < PP_PROBATION) return;
        ps->tries = ps->hits = ps->skipped = 0;
    }
    ps->state = ST_ARMED;
    ps->slot = pc->narmed;
    pc->arm[pc->narmed++] = tu->src;
    ac_pp_narmed++;
    stat.armed++;
    if (++ps->tries >= PP_DECAY) ps->tries /= 2, ps->hits /= 2;
}

/* After a user receive: learn it, then arm the stream of the predicted next one. */
static void learn(pp_comm *pc, const void *b, int n, MPI_Datatype t, int src, int tag) {
    MPI_Count ucap = capacity(n, t);
    uint64_t key[7] = {(uint64_t)(int64_t)src, (uint64_t)(int64_t)tag, (uint64_t)ucap, HANDLE(t),
                       (uint64_t)(uintptr_t)b, HANDLE(pc->comm),       pc->epoch};
    int32_t id = ac_intern(&ids, key, 7);
    if (id < 0) return;
    if (id >= captuples) {
        int32_t ncap = captuples ? 2 * captuples : 64;
        pp_tuple *nt = realloc(tuples, (size_t)ncap * sizeof *nt);
        if (!nt) return;
        tuples = nt;
        captuples = ncap;
    }
    if (id >= ntuples) {
        tuples[id] = (pp_tuple){(src == MPI_ANY_SOURCE || tag == MPI_ANY_TAG) ? -1 : src, tag,
                                HANDLE(pc->comm), pc->epoch};
        ntuples = id + 1;
    }
    ac_pred_feed(pred, id, 0);
    ac_id next = ac_pred_next(pred, 0);
    if (next != AC_ID_NONE && next < ntuples) arm(&tuples[next]);
}

/* ---------------------------------------------------------------- life cycle */

/* Frees the communicator's state; captured messages never received by the program go too (MPI
 * would have left them unmatched), after their capture's receive has completed. */
static void comm_drop(pp_comm *pc) {
    nospec(pc, 0);
    while (pc->qhead) {
        pp_msg *m = pc->qhead;
        pc->qhead = m->next;
        msg_free(m);
    }
    for (pp_msg **pp = &matched; *pp;) { /* matched-probed ones: their receive still needs c */
        pp_msg *m = *pp;
        if (HANDLE(m->comm) == HANDLE(pc->comm)) complete(m);
        pp = &m->next;
    }
    /* served receives still running finish later without c (MPI keeps their requests) */
    for (pp_serve *sv = serving; sv; sv = sv->next)
        if (HANDLE(sv->m->comm) == HANDLE(pc->comm)) sv->m->comm = MPI_COMM_NULL;
    free(pc->arm);
    free(pc->src);
    free(pc);
}

static void name_drop(pp_msg *m); /* receives the name of a message handed out by a probe */

static void shutdown_all(void) {
    while (serving) { /* served receives never waited for: finished as MPI would */
        complete(serving->m);
        serve_finish(serving);
    }
    while (perss) { /* persistent receives: a served start never waited for is finished too */
        if (perss->r != MPI_REQUEST_NULL) PMPI_Wait(&perss->r, MPI_STATUS_IGNORE);
        pers_drop(&perss);
    }
    nsub = 0;
    while (comms) {
        pp_comm *pc = comms;
        comms = pc->next;
        comm_drop(pc);
    }
    while (matched) { /* handed out by a matched probe and never received */
        pp_msg *m = matched;
        matched = m->next;
        name_drop(m);
        msg_free(m);
    }
    if (ac_g.set.verbose >= 1)
        ac_log("prepost: %llu armed, %llu hits, %llu captured, %llu served from the queue (%llu "
               "captured before the receiving call), %llu left in MPI (queue bound), %llu "
               "non-blocking receives served before their capture finished, %llu persistent "
               "receive starts served",
               stat.armed, stat.hits, stat.captured, stat.served, stat.early, stat.declined,
               stat.later, stat.persist);
    ac_pred_free(pred);
    pred = NULL;
    ac_intern_free(&ids);
    free(tuples);
    tuples = NULL;
    ntuples = captuples = 0;
    if (pp_self != MPI_COMM_NULL) PMPI_Comm_free(&pp_self);
    if (pp_keyval != MPI_KEYVAL_INVALID) PMPI_Comm_free_keyval(&pp_keyval);
    ac_pp_narmed = 0;
    ac_prepost_state = 0;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still works (hazard 9). */
static int self_delete(MPI_Comm c, int kv, void *val, void *extra) {
    (void)c;
    (void)kv;
    (void)val;
    (void)extra;
    shutdown_all();
    return MPI_SUCCESS;
}

static int ready(void) {
    if (ac_prepost_state >= 0) return ac_prepost_state;
    int init = 0, fin = 0, level = MPI_THREAD_SINGLE;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (!init || fin) return 0;
    ac_prepost_state = 0;
    if (!ac_g.initialized || !ac_g.set.prepost) return 0;
    PMPI_Query_thread(&level);
    if (level == MPI_THREAD_MULTIPLE) {
        ac_log_once("prepost-threads", "prepost: off under MPI_THREAD_MULTIPLE (docs/prepost.md)");
        return 0;
    }
    pred = ac_pred_create(AC_PRED_SINGLE_CYCLE2, NULL);
    if (!pred || PMPI_Comm_dup(MPI_COMM_SELF, &pp_self) != MPI_SUCCESS) goto fail;
    PMPI_Comm_set_errhandler(pp_self, MPI_ERRORS_RETURN);
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &pp_keyval, NULL) !=
            MPI_SUCCESS ||
        PMPI_Comm_set_attr(MPI_COMM_SELF, pp_keyval, NULL) != MPI_SUCCESS)
        goto fail;
    ac_prepost_state = 1;
    return 1;
fail:
    ac_log_once("prepost-setup", "prepost: set-up failed, off");
    ac_pred_free(pred);
    pred = NULL;
    if (pp_self != MPI_COMM_NULL) PMPI_Comm_free(&pp_self);
    return 0;
}

/* The user's error handler on a served receive's error, as MPI would call it. */
static int user_err(MPI_Comm c, int rc) {
    if (rc != MPI_SUCCESS) PMPI_Comm_call_errhandler(c, rc);
    return rc;
}

/* ---------------------------------------------------------------- hooks */

int ac_pp_recv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Status *st) {
    pp_comm *pc;
    if (!ready() || src == MPI_PROC_NULL || c == MPI_COMM_NULL || !(pc = comm_get(c)))
        return PMPI_Recv(b, n, t, src, tag, c, st);
    MPI_Status own;
    pp_msg *m = settle(pc, src, tag);
    int rc = m ? user_err(c, deliver(m, b, n, t, c, st == MPI_STATUS_IGNORE ? &own : st))
               : PMPI_Recv(b, n, t, src, tag, c, st);
    learn(pc, b, n, t, src, tag);
    return rc;
}

int ac_pp_irecv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request *q) {
    pp_comm *pc;
    if (!ready() || src == MPI_PROC_NULL || c == MPI_COMM_NULL || !(pc = comm_get(c)))
        return PMPI_Irecv(b, n, t, src, tag, c, q);
    pp_msg *m = settle(pc, src, tag);
    int rc = m ? deliver_request(m, b, n, t, c, q) : PMPI_Irecv(b, n, t, src, tag, c, q);
    learn(pc, b, n, t, src, tag);
    return rc;
}

/* The receive half of a Sendrecv is already posted when the data arrives: never predicted or
 * armed for (§4.4 item 10), but it must see the queue. */
int ac_pp_sendrecv(const void *sb, int sn, MPI_Datatype stype, int dest, int stag, void *rb, int rn,
                   MPI_Datatype rtype, int src, int rtag, MPI_Comm c, MPI_Status *st) {
    pp_comm *pc;
    if (!ready() || src == MPI_PROC_NULL || c == MPI_COMM_NULL || !(pc = comm_get(c)))
        return PMPI_Sendrecv(sb, sn, stype, dest, stag, rb, rn, rtype, src, rtag, c, st);
    pp_msg *m = settle(pc, src, rtag);
    if (!m) return PMPI_Sendrecv(sb, sn, stype, dest, stag, rb, rn, rtype, src, rtag, c, st);
    MPI_Request q;
    MPI_Status own;
    int rc = PMPI_Isend(sb, sn, stype, dest, stag, c, &q);
    if (rc != MPI_SUCCESS) {
        msg_free(m);
        return rc;
    }
    int rr = deliver(m, rb, rn, rtype, c, st == MPI_STATUS_IGNORE ? &own : st);
    rc = PMPI_Wait(&q, MPI_STATUS_IGNORE);
    return user_err(c, rr != MPI_SUCCESS ? rr : rc);
}

int ac_pp_sendrecv_replace(void *b, int n, MPI_Datatype t, int dest, int stag, int src, int rtag,
                           MPI_Comm c, MPI_Status *st) {
    pp_comm *pc;
    if (!ready() || src == MPI_PROC_NULL || c == MPI_COMM_NULL || !(pc = comm_get(c)))
        return PMPI_Sendrecv_replace(b, n, t, dest, stag, src, rtag, c, st);
    pp_msg *m = settle(pc, src, rtag);
    if (!m) return PMPI_Sendrecv_replace(b, n, t, dest, stag, src, rtag, c, st);
    MPI_Status own;
    int rc = PMPI_Send(b, n, t, dest, stag, c); /* the buffer is overwritten only after */
    if (rc != MPI_SUCCESS) {
        msg_free(m);
        return rc;
    }
    return user_err(c, deliver(m, b, n, t, c, st == MPI_STATUS_IGNORE ? &own : st));
}

/* A queued message seen by a probe: its status, not consumed. */
static void probe_status(const pp_msg *m, MPI_Status *st) {
    if (st == MPI_STATUS_IGNORE) return;
    st->MPI_SOURCE = m->src;
    st->MPI_TAG = m->tag;
    st->MPI_ERROR = MPI_SUCCESS;
    PMPI_Status_set_elements_x(st, MPI_BYTE, m->nbytes);
    PMPI_Status_set_cancelled(st, 0);
}

int ac_pp_probe(int src, int tag, MPI_Comm c, MPI_Status *st) {
    pp_comm *pc;
    if (!ready() || src == MPI_PROC_NULL || c == MPI_COMM_NULL || !(pc = comm_get(c)))
        return PMPI_Probe(src, tag, c, st);
    nospec(pc, NS_PROBE);
    pp_msg *m = queued(pc, src, tag, 0);
    if (!m) return PMPI_Probe(src, tag, c, st);
    probe_status(m, st);
    return MPI_SUCCESS;
}

int ac_pp_iprobe(int src, int tag, MPI_Comm c, int *flag, MPI_Status *st) {
    pp_comm *pc;
    if (!ready() || src == MPI_PROC_NULL || c == MPI_COMM_NULL || !(pc = comm_get(c)))
        return PMPI_Iprobe(src, tag, c, flag, st);
    nospec(pc, NS_PROBE);
    pp_msg *m = queued(pc, src, tag, 0);
    if (!m) return PMPI_Iprobe(src, tag, c, flag, st);
    *flag = 1;
    probe_status(m, st);
    return MPI_SUCCESS;
}

void ac_pp_comm_free(MPI_Comm c) {
    if (ac_prepost_state != 1 || c == MPI_COMM_NULL) return;
    pp_comm **pp = &comms, *pc;
    for (; (pc = *pp); pp = &pc->next)
        if (HANDLE(pc->comm) == HANDLE(c)) break;
    if (!pc) return;
    *pp = pc->next;
    comm_drop(pc);
}

/* ---------------------------------------------------------------- matched probes */

/* A matched probe that finds a queued message hands out an MPI_Message that MPI knows. A held
 * message is MPI's own matched message: the user gets its handle, and the user's
 * MPI_Mrecv/MPI_Imrecv is MPI's. A received one (hint autocoll_prepost_early) is named by a
 * zero-byte message that the library sends to itself on its private communicator and matches:
 * a real handle under every MPI (an integer in MPICH, a pointer in Open MPI), which MPI_Mrecv
 * and MPI_Imrecv recognise; they receive the zero-byte message, then deliver the queued one.
 * Tag 0 of pp_self is deliver()'s. */
enum { PP_TAG_NAME = 1 };

static int message_of(pp_msg *m, MPI_Message *msg) {
    int rc = PMPI_Isend(NULL, 0, MPI_BYTE, 0, PP_TAG_NAME, pp_self, &m->nreq);
    if (rc == MPI_SUCCESS) rc = PMPI_Mprobe(0, PP_TAG_NAME, pp_self, &m->msg, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    *msg = m->msg;
    m->next = matched;
    matched = m;
    return MPI_SUCCESS;
}
static void name_drop(pp_msg *m) {
    PMPI_Mrecv(NULL, 0, MPI_BYTE, &m->msg, MPI_STATUS_IGNORE);
    PMPI_Wait(&m->nreq, MPI_STATUS_IGNORE);
}
/* The queued message named by *msg (unlinked, its name received), or NULL: MPI's own. */
static pp_msg *message_take(MPI_Message *msg) {
    if (!matched || !msg || *msg == MPI_MESSAGE_NULL) return NULL;
    for (pp_msg **pp = &matched; *pp; pp = &(*pp)->next)
        if (HANDLE((*pp)->msg) == HANDLE(*msg)) {
            pp_msg *m = *pp;
            *pp = m->next;
            m->next = NULL;
            name_drop(m);
            *msg = MPI_MESSAGE_NULL;
            return m;
        }
    return NULL;
}

static int mprobe_queue(int src, int tag, MPI_Comm c, MPI_Message *msg, MPI_Status *st,
                        int *found) {
    pp_comm *pc;
    *found = 0;
    AC_PP_ENTRY();
    if (!ready() || src == MPI_PROC_NULL || c == MPI_COMM_NULL || !(pc = comm_get(c)))
        return MPI_SUCCESS;
    nospec(pc, NS_PROBE);
    pp_msg *m = queued(pc, src, tag, 1);
    if (!m) return MPI_SUCCESS;
    *found = 1;
    probe_status(m, st);
    if (m->hold) { /* MPI's own matched message: its handle */
        *msg = m->msg;
        held -= m->nbytes;
        stat.served++;
        free(m);
        return MPI_SUCCESS;
    }
    int rc = message_of(m, msg);
    if (rc != MPI_SUCCESS) {
        ac_log("prepost: a matched probe found a captured message but could not name it");
        msg_free(m);
        return user_err(c, rc);
    }
    return MPI_SUCCESS;
}

AC_EXPORT int MPI_Mprobe(int src, int tag, MPI_Comm c, MPI_Message *msg, MPI_Status *st) {
    int found = 0, rc;
    if (AC_PP_ON() && ((rc = mprobe_queue(src, tag, c, msg, st, &found)) != MPI_SUCCESS || found))
        return rc;
    return PMPI_Mprobe(src, tag, c, msg, st);
}

AC_EXPORT int MPI_Improbe(int src, int tag, MPI_Comm c, int *flag, MPI_Message *msg,
                          MPI_Status *st) {
    int found = 0, rc;
    if (AC_PP_ON() && ((rc = mprobe_queue(src, tag, c, msg, st, &found)) != MPI_SUCCESS || found)) {
        *flag = found;
        return rc;
    }
    return PMPI_Improbe(src, tag, c, flag, msg, st);
}

AC_EXPORT int MPI_Mrecv(void *b, int n, MPI_Datatype t, MPI_Message *msg, MPI_Status *st) {
    pp_msg *m;
    AC_PP_ENTRY();
    if (AC_PP_ON() && (m = message_take(msg))) {
        MPI_Status own;
        MPI_Comm c = m->comm;
        return user_err(c, deliver(m, b, n, t, c, st == MPI_STATUS_IGNORE ? &own : st));
    }
    return PMPI_Mrecv(b, n, t, msg, st);
}

AC_EXPORT int MPI_Imrecv(void *b, int n, MPI_Datatype t, MPI_Message *msg, MPI_Request *q) {
    pp_msg *m;
    AC_PP_ENTRY();
    if (AC_PP_ON() && (m = message_take(msg))) return deliver_request(m, b, n, t, m->comm, q);
    return PMPI_Imrecv(b, n, t, msg, q);
}

/* ---------------------------------------------------------------- persistent receives: starts */

int ac_pp_recv_init(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request *q) {
    pp_comm *pc;
    int rc = PMPI_Recv_init(b, n, t, src, tag, c, q);
    if (rc != MPI_SUCCESS || !ready() || c == MPI_COMM_NULL || !(pc = comm_get(c))) return rc;
    nospec(pc, NS_PERSIST);
    if (src == MPI_PROC_NULL || !queued(pc, src, tag, 0)) return rc;
    MPI_Datatype kept;
    int tdup = type_keep(t, &kept);
    pp_pers *e = tdup >= 0 ? malloc(sizeof *e) : NULL;
    if (!e) {
        if (tdup > 0) PMPI_Type_free(&kept);
        ac_log("prepost: out of memory recording a persistent receive");
        PMPI_Abort(MPI_COMM_WORLD, 1);
        return MPI_ERR_NO_MEM;
    }
    *e = (pp_pers){perss, *q, MPI_REQUEST_NULL, b, n, src, tag, tdup, kept, c, pc->epoch};
    perss = e;
    return rc;
}

static int pers_start(MPI_Request *q) {
    pp_pers **pp = pers_link(*q), *e;
    if (!pp) return PMPI_Start(q);
    e = *pp;
    pp_comm *pc = comm_find(HANDLE(e->c));
    pp_msg *m = pc && pc->epoch == e->epoch ? settle(pc, e->src, e->tag) : NULL;
    if (!m) { /* none queued any more, and none will be: MPI's from now on */
        pers_drop(pp);
        return PMPI_Start(q);
    }
    stat.persist++;
    int rc = deliver_request(m, e->b, e->n, e->t, e->c, &e->r);
    if (rc != MPI_SUCCESS)
        e->r = MPI_REQUEST_NULL;
    else
        nsub++;
    return rc;
}

int ac_pp_start(MPI_Request *q) {
    return perss && q ? pers_start(q) : PMPI_Start(q);
}

int ac_pp_startall(int n, MPI_Request q[]) {
    if (!perss || !q) return PMPI_Startall(n, q);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        rc = pers_start(&q[i]);
    return rc;
}

/* The requests MPI is asked about in a wait or test of q[0..n): q itself, or, when it lists
 * served persistent starts, a copy in which each is replaced by its receive (*sub: their
 * records). subst_out puts the copy back: the persistent handle stays in q, and its record
 * learns whether its receive completed. */
static MPI_Request *subst_in(int n, MPI_Request *q, pp_pers ***sub) {
    int k = 0;
    *sub = NULL;
    if (!nsub || !q || n <= 0) return q;
    for (int i = 0; i < n && !k; i++)
        k = pers_sub(q[i]) != NULL;
    if (!k) return q;
    MPI_Request *tmp = malloc((size_t)n * sizeof *tmp);
    *sub = calloc((size_t)n, sizeof **sub);
    if (!tmp || !*sub) {
        ac_log("prepost: out of memory in a wait or test");
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < n; i++)
        tmp[i] = ((*sub)[i] = pers_sub(q[i])) ? (*sub)[i]->r : q[i];
    return tmp;
}
static void subst_out(int n, MPI_Request *q, MPI_Request *tmp, pp_pers **sub) {
    if (tmp == q) return;
    for (int i = 0; i < n; i++)
        if (!sub[i])
            q[i] = tmp[i];
        else if ((sub[i]->r = tmp[i]) == MPI_REQUEST_NULL)
            nsub--;
    free(tmp);
    free(sub);
}

#define SUBST(n, q, call)                                                                          \
    do {                                                                                           \
        pp_pers **sub_;                                                                            \
        MPI_Request *t_ = subst_in((n), (q), &sub_);                                               \
        int rc_ = call;                                                                            \
        subst_out((n), (q), t_, sub_);                                                             \
        return rc_;                                                                                \
    } while (0)

int ac_pp_wait(MPI_Request *q, MPI_Status *s) {
    SUBST(1, q, served_wait(t_, s));
}
int ac_pp_waitall(int n, MPI_Request q[], MPI_Status s[]) {
    SUBST(n, q, served_waitall(n, t_, s));
}
int ac_pp_waitany(int n, MPI_Request q[], int *idx, MPI_Status *s) {
    SUBST(n, q, served_waitany(n, t_, idx, s));
}
int ac_pp_waitsome(int n, MPI_Request q[], int *out, int idx[], MPI_Status s[]) {
    SUBST(n, q, served_waitsome(n, t_, out, idx, s));
}
int ac_pp_test(MPI_Request *q, int *f, MPI_Status *s) {
    SUBST(1, q, PMPI_Test(t_, f, s));
}
int ac_pp_testall(int n, MPI_Request q[], int *f, MPI_Status s[]) {
    SUBST(n, q, PMPI_Testall(n, t_, f, s));
}
int ac_pp_testany(int n, MPI_Request q[], int *idx, int *f, MPI_Status *s) {
    SUBST(n, q, PMPI_Testany(n, t_, idx, f, s));
}
int ac_pp_testsome(int n, MPI_Request q[], int *out, int idx[], MPI_Status s[]) {
    SUBST(n, q, PMPI_Testsome(n, t_, out, idx, s));
}

/* Before PMPI_Request_free: a served start's receive is freed with it (MPI completes it). */
void ac_pp_request_free(MPI_Request *q) {
    pp_pers **pp;
    if (!perss || !q || !(pp = pers_link(*q))) return;
    if ((*pp)->r != MPI_REQUEST_NULL) {
        PMPI_Request_free(&(*pp)->r);
        nsub--;
    }
    pers_drop(pp);
}

/* Not a point-to-point entry of trace_p2p.c, but a loop over it must see a served receive
 * complete (ac_pp_drive, through AC_PP_ENTRY). */
AC_EXPORT int MPI_Request_get_status(MPI_Request q, int *flag, MPI_Status *st) {
    pp_pers *e;
    AC_PP_ENTRY();
    if (AC_PP_ON() && (e = pers_sub(q))) q = e->r;
    return PMPI_Request_get_status(q, flag, st);
}

/* A served start's message is matched already: like a matched receive, it cannot be cancelled,
 * and its wait completes it normally (MPI_Test_cancelled: false). */
AC_EXPORT int MPI_Cancel(MPI_Request *q) {
    if (AC_PP_ON() && q && pers_sub(*q)) return MPI_SUCCESS;
    return PMPI_Cancel(q);
}

/* ---------------------------------------------------------------- the hint */

/* MPI_Comm_set_info(c, info) with PP_HINT = "true" lets pre-posting receive c's long captured
 * messages at once (docs/prepost.md: the program declares that no synchronous send on c is a
 * handshake); "false" takes it back. Local to this process and communicator. */
#define PP_HINT "autocoll_prepost_early"
AC_EXPORT int MPI_Comm_set_info(MPI_Comm c, MPI_Info info) {
    pp_comm *pc;
    char v[16];
    int flag = 0;
    if (AC_PP_ON() && info != MPI_INFO_NULL && ready() && c != MPI_COMM_NULL &&
        (pc = comm_get(c)) &&
        PMPI_Info_get(info, PP_HINT, (int)sizeof v - 1, v, &flag) == MPI_SUCCESS && flag) {
        pc->early = !strcmp(v, "true");
        if (!pc->early && strcmp(v, "false"))
            ac_log_once("prepost-hint",
                        "prepost: info " PP_HINT " = \"%s\" is neither true nor "
                        "false; taken as false",
                        v);
    }
    return PMPI_Comm_set_info(c, info);
}
