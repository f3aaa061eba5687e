/*
 * Receive pre-posting (AUTOCOLL_PREPOST=1, off by default): seed 004 (Afsahi 2000) Ch. 6, spec
 * predictors-latency.md §4.4, variant (a) only: the library posts a receive early into its
 * own staging buffer and copies on the user's receive. docs/prepost.md gives the design, the ten
 * hazards of §4.4 one by one and what is not speculated.
 *
 * Prediction (§4.4 step 1, §3). Every user MPI_Recv/MPI_Irecv is interned as the 6-tuple
 * <source, tag, capacity in bytes, datatype, buffer, communicator + its epoch> (§2.2) and fed to
 * one Single-cycle2 predictor (src/trace/predict.c; the receive-side choice of §3.7). After the
 * user's receive j is handled, the prediction for j+1 names a source s and communicator c.
 *
 * Speculation (§4.4 step 2). At most one pre-posted receive per (c, s): PMPI_Irecv of
 * MPI_PACKED bytes from s with MPI_ANY_TAG into a staging buffer. ANY_TAG is deliberate: the
 * pre-posted receive then takes the oldest pending message from s whatever its tag, so the
 * per-communicator captured-message queue holds, for every source, a prefix of that source's
 * messages in send order, and every message still inside MPI is younger than every captured one
 * from the same source. That makes all matching decisions exact: a user receive (specific or
 * wildcard source and tag) takes the first matching queued message in queue order, else any
 * pre-posted receive that could match is resolved first, else the receive goes to MPI.
 *
 * Resolution (§4.4 step 3, hazard 4). A pre-posted receive is resolved by PMPI_Test; if not
 * complete, by PMPI_Cancel + PMPI_Wait + PMPI_Test_cancelled (a receive that matched during the
 * cancel is captured). A blocking MPI_Recv from s whose capacity fits the staging buffer waits
 * on the pre-posted receive instead (the next message from s is what that receive needs first).
 * Internal completions run with MPI_ERRORS_RETURN on the communicator (restored afterwards).
 *
 * Delivery. A queued message goes into the user's (buf, count, datatype) with PMPI_Unpack when
 * it is a whole number of elements that fits; otherwise (truncation, partial element) through a
 * self-message of MPI_PACKED bytes on a private duplicate of MPI_COMM_SELF, so MPI itself decides
 * the truncation error, the count and the bytes written. Status: source and tag of the captured
 * message, count in bytes, error, not cancelled. MPI_Irecv served from the queue returns a
 * generalized request already complete (MPI_Grequest_start/complete) whose query gives that
 * status, so every completion call, MPI_Request_get_status, MPI_Cancel and MPI_Request_free
 * work unchanged on it.
 *
 * Gates (hazards 5-10): a communicator stops speculating for good at its first probe (any
 * kind), persistent receive creation, synchronous send by this process, and never speculates if
 * it is an intercommunicator or its largest receive capacity exceeds PP_CAP_MAX; the staging
 * buffer holds max(2 x largest receive capacity seen on c, PP_CAP_MIN) bytes; a (c, s) stream
 * speculates only while its prediction hit ratio (captured message taken by the receive that
 * resolved it) stays >= PP_THRESHOLD after PP_WARM tries (decayed, retried after PP_PROBATION
 * skipped chances); MPI_THREAD_MULTIPLE turns the feature off.
 *
 * Cost. Off: one load and a branch per hooked call (next to trace_p2p.c's own). On, per user
 * receive: a queue scan (O(queued messages on c), normally 0-2), O(1) expected interning and
 * prediction, an O(size of c) scan only for MPI_ANY_SOURCE receives with pre-posted receives
 * outstanding; per speculation: a malloc, PMPI_Irecv, then Test (+ Cancel/Wait) or Wait, three
 * error-handler calls, and one copy of the message on delivery. Memory: one staging buffer per
 * outstanding pre-posted receive and per queued message, a per-source record per communicator.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "pmpi.h"
#include "prepost.h"
#include "../trace/predict.h"
#include "../trace/trace.h"

enum {
    PP_CAP_MIN = 64 * 1024,   /* staging floor: small messages need no size history */
    PP_CAP_MAX = 1024 * 1024, /* largest staging buffer; bigger receives never speculate */
    PP_WARM = 8,              /* tries before the hit ratio gates a stream */
    PP_DECAY = 64,            /* tries after which both counts are halved */
    PP_PROBATION = 256        /* skipped chances before a gated stream is tried again */
};
#define PP_THRESHOLD 0.9 /* spec §4.4 hazard 10 default */

/* Why a communicator does not speculate (bits). */
enum { NS_PROBE = 1, NS_PERSIST = 2, NS_SSEND = 4, NS_INTER = 8 };

int ac_prepost_state = -1;

typedef struct pp_msg {
    struct pp_msg *next;
    int src, tag, err; /* err: completion code of the pre-posted receive */
    int cap;           /* its staging capacity */
    int nbytes;        /* bytes received */
    char *data;
    MPI_Comm comm; /* where it was received (error handler of a matched receive) */
} pp_msg;

typedef struct {
    MPI_Request req;
    char *buf;
    int cap, active;
    unsigned posted, hits, skipped;
} pp_src;

typedef struct pp_comm {
    struct pp_comm *next;
    MPI_Comm comm;
    uint64_t epoch;
    int size, nospec, nactive;
    MPI_Count maxcap; /* largest receive capacity seen on c, bytes */
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
static pp_msg *matched; /* messages handed out by MPI_Mprobe/MPI_Improbe */
static struct { unsigned long long posted, hits, cancelled, captured, served, early, lost; } stat;

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
    pc->src = calloc((size_t)(size > 0 ? size : 1), sizeof *pc->src);
    if (!pc->src) {
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

/* Internal completions return errors instead of invoking the user's handler. */
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

/* Resolve the pre-posted receive from source s: wait for it (wait = 1) or test it and cancel it
 * if incomplete. A message it received goes to the end of the queue. Returns that message or
 * NULL; *early (may be NULL) is set when it had completed before this call. */
static pp_msg *resolve(pp_comm *pc, int s, int wait, int *early) {
    pp_src *ps = &pc->src[s];
    if (!ps->active) return NULL;
    MPI_Status st;
    int done = 0, rc, cancelled = 0;
    MPI_Errhandler eh = quiet(pc->comm);
    rc = PMPI_Test(&ps->req, &done, &st);
    if (early) *early = done;
    if (!done && wait) {
        rc = PMPI_Wait(&ps->req, &st);
    } else if (!done) {
        PMPI_Cancel(&ps->req);
        rc = PMPI_Wait(&ps->req, &st);
        PMPI_Test_cancelled(&st, &cancelled);
    }
    loud(pc->comm, eh);
    ps->active = 0;
    pc->nactive--;
    if (cancelled) {
        stat.cancelled++;
        free(ps->buf);
        ps->buf = NULL;
        return NULL;
    }
    pp_msg *m = calloc(1, sizeof *m);
    if (!m) { /* cannot keep it: nothing better than failing loudly */
        ac_log("prepost: out of memory keeping a received message");
        PMPI_Abort(MPI_COMM_WORLD, 1);
        return NULL;
    }
    int n = 0;
    PMPI_Get_count(&st, MPI_PACKED, &n);
    m->src = st.MPI_SOURCE;
    m->tag = st.MPI_TAG;
    m->err = rc == MPI_ERR_IN_STATUS ? st.MPI_ERROR : rc;
    m->cap = ps->cap;
    m->nbytes = n == MPI_UNDEFINED ? ps->cap : n;
    m->data = ps->buf;
    m->comm = pc->comm;
    ps->buf = NULL;
    stat.captured++;
    if (early && *early) stat.early++;
    enqueue(pc, m);
    return m;
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

/* Make the queue authoritative for (src, tag): resolve every pre-posted receive that could take
 * a message this envelope matches. A blocking receive from one source whose capacity fits may
 * wait on it (may_wait). Counts a hit when the captured message is the one the caller takes. */
static pp_msg *settle(pp_comm *pc, int src, int tag, MPI_Count ucap, int may_wait) {
    pp_msg *m = queued(pc, src, tag, 1);
    if (m || !pc->nactive) return m;
    if (src == MPI_ANY_SOURCE) {
        for (int s = 0; s < pc->size && pc->nactive; s++)
            resolve(pc, s, 0, NULL);
    } else if (src >= 0 && src < pc->size && pc->src[src].active) {
        pp_src *ps = &pc->src[src];
        int early = 0;
        pp_msg *got = resolve(pc, src, may_wait && ucap <= ps->cap, &early);
        if (got && env_match(got, src, tag)) ps->hits++, stat.hits++;
    }
    return queued(pc, src, tag, 1);
}

/* Stop speculating on c: resolve everything outstanding (captured messages stay queued). */
static void nospec(pp_comm *pc, int why) {
    pc->nospec |= why;
    for (int s = 0; s < pc->size && pc->nactive; s++)
        resolve(pc, s, 0, NULL);
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
    MPI_Count ucap = capacity(n, t);
    if (n > 0) PMPI_Type_size(t, &tsz);
    st->MPI_SOURCE = m->src;
    st->MPI_TAG = m->tag;
    if (m->err != MPI_SUCCESS && ucap > m->cap) {
        /* the message was longer than the staging buffer and the user's receive is longer
         * still: the tail is lost (docs/prepost.md, hazard 5); say so, never hide it */
        stat.lost++;
        ac_log("prepost: a message from %d tag %d was longer than its pre-posted buffer (%d "
               "bytes) and is lost; run without AUTOCOLL_PREPOST",
               m->src, m->tag, m->cap);
        rc = MPI_ERR_TRUNCATE;
        PMPI_Status_set_elements_x(st, MPI_BYTE, 0);
    } else if (m->err == MPI_SUCCESS && m->nbytes == 0) {
        PMPI_Status_set_elements_x(st, MPI_BYTE, 0);
    } else if (m->err == MPI_SUCCESS && tsz > 0 && m->nbytes <= ucap && m->nbytes % tsz == 0) {
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
        if (m->err != MPI_SUCCESS && rc == MPI_SUCCESS) rc = m->err;
        MPI_Count got = 0;
        PMPI_Get_elements_x(&s2, MPI_BYTE, &got);
        PMPI_Status_set_elements_x(st, MPI_BYTE, got);
    }
    PMPI_Status_set_cancelled(st, 0);
    st->MPI_ERROR = rc;
    stat.served++;
    free(m->data);
    free(m);
    return rc;
}

/* A served MPI_Irecv / MPI_Imrecv: a generalized request, complete at once. */
static int greq_query(void *state, MPI_Status *st) {
    MPI_Status *s = state;
    MPI_Count n = 0;
    PMPI_Get_elements_x(s, MPI_BYTE, &n);
    st->MPI_SOURCE = s->MPI_SOURCE;
    st->MPI_TAG = s->MPI_TAG;
    st->MPI_ERROR = s->MPI_ERROR;
    PMPI_Status_set_elements_x(st, MPI_BYTE, n);
    PMPI_Status_set_cancelled(st, 0);
    return s->MPI_ERROR;
}
static int greq_free(void *state) {
    free(state);
    return MPI_SUCCESS;
}
static int greq_cancel(void *state, int complete) {
    (void)state;
    (void)complete; /* always complete: cancelling a completed receive does nothing */
    return MPI_SUCCESS;
}
static int deliver_request(pp_msg *m, void *b, int n, MPI_Datatype t, MPI_Comm c, MPI_Request *q) {
    MPI_Status *s = calloc(1, sizeof *s);
    if (!s) {
        ac_log("prepost: out of memory serving a receive");
        PMPI_Abort(MPI_COMM_WORLD, 1);
        return MPI_ERR_NO_MEM;
    }
    deliver(m, b, n, t, c, s);
    int rc = PMPI_Grequest_start(greq_query, greq_free, greq_cancel, s, q);
    if (rc != MPI_SUCCESS) {
        free(s);
        return rc;
    }
    return PMPI_Grequest_complete(*q);
}

/* ---------------------------------------------------------------- prediction */

static void post(const pp_tuple *tu) {
    pp_comm *pc = comm_find(tu->comm);
    if (!pc || pc->epoch != tu->epoch || pc->nospec) return; /* freed, recycled or gated */
    if (tu->src < 0 || tu->src >= pc->size || pc->maxcap > PP_CAP_MAX) return;
    pp_src *ps = &pc->src[tu->src];
    if (ps->active) return; /* at most one per stream */
    if (ps->posted >= PP_WARM && ps->hits < PP_THRESHOLD * ps->posted) {
        if (++ps->skipped < PP_PROBATION) return;
        ps->posted = ps->hits = ps->skipped = 0;
    }
    MPI_Count cap = 2 * pc->maxcap;
    if (cap < PP_CAP_MIN) cap = PP_CAP_MIN;
    if (cap > PP_CAP_MAX) cap = PP_CAP_MAX;
    ps->buf = malloc((size_t)cap);
    if (!ps->buf) return;
    if (PMPI_Irecv(ps->buf, (int)cap, MPI_PACKED, tu->src, MPI_ANY_TAG, pc->comm, &ps->req) !=
        MPI_SUCCESS) {
        free(ps->buf);
        ps->buf = NULL;
        return;
    }
    ps->cap = (int)cap;
    ps->active = 1;
    pc->nactive++;
    stat.posted++;
    if (++ps->posted >= PP_DECAY) ps->posted /= 2, ps->hits /= 2;
}

/* After a user receive: learn it, then pre-post for the predicted next one. */
static void learn(pp_comm *pc, const void *b, int n, MPI_Datatype t, int src, int tag) {
    MPI_Count ucap = capacity(n, t);
    if (ucap > pc->maxcap) pc->maxcap = ucap;
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
    if (next != AC_ID_NONE && next < ntuples) post(&tuples[next]);
}

/* ---------------------------------------------------------------- life cycle */

/* Settles the communicator's outstanding pre-posted receives and frees its state; captured
 * messages never received by the program go too (MPI would have dropped them as well). */
static void comm_drop(pp_comm *pc) {
    for (int s = 0; s < pc->size && pc->nactive; s++)
        resolve(pc, s, 0, NULL);
    while (pc->qhead) {
        pp_msg *m = pc->qhead;
        pc->qhead = m->next;
        free(m->data);
        free(m);
    }
    free(pc->src);
    free(pc);
}

static void shutdown_all(void) {
    while (comms) {
        pp_comm *pc = comms;
        comms = pc->next;
        comm_drop(pc);
    }
    while (matched) {
        pp_msg *m = matched;
        matched = m->next;
        free(m->data);
        free(m);
    }
    if (ac_g.set.verbose >= 1)
        ac_log("prepost: %llu pre-posted, %llu hits, %llu cancelled, %llu captured (%llu before "
               "the receive), %llu served from the queue, %llu lost",
               stat.posted, stat.hits, stat.cancelled, stat.captured, stat.early, stat.served,
               stat.lost);
    ac_pred_free(pred);
    pred = NULL;
    ac_intern_free(&ids);
    free(tuples);
    tuples = NULL;
    ntuples = captuples = 0;
    if (pp_self != MPI_COMM_NULL) PMPI_Comm_free(&pp_self);
    if (pp_keyval != MPI_KEYVAL_INVALID) PMPI_Comm_free_keyval(&pp_keyval);
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
    pp_msg *m = settle(pc, src, tag, capacity(n, t), 1);
    int rc = m ? user_err(c, deliver(m, b, n, t, c, st == MPI_STATUS_IGNORE ? &own : st))
               : PMPI_Recv(b, n, t, src, tag, c, st);
    learn(pc, b, n, t, src, tag);
    return rc;
}

int ac_pp_irecv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request *q) {
    pp_comm *pc;
    if (!ready() || src == MPI_PROC_NULL || c == MPI_COMM_NULL || !(pc = comm_get(c)))
        return PMPI_Irecv(b, n, t, src, tag, c, q);
    pp_msg *m = settle(pc, src, tag, capacity(n, t), 0);
    int rc = m ? deliver_request(m, b, n, t, c, q) : PMPI_Irecv(b, n, t, src, tag, c, q);
    learn(pc, b, n, t, src, tag);
    return rc;
}

/* The receive half of a Sendrecv is already posted when the data arrives: never predicted or
 * pre-posted for (§4.4 item 10), but it must see the queue. */
int ac_pp_sendrecv(const void *sb, int sn, MPI_Datatype stype, int dest, int stag, void *rb, int rn,
                   MPI_Datatype rtype, int src, int rtag, MPI_Comm c, MPI_Status *st) {
    pp_comm *pc;
    if (!ready() || src == MPI_PROC_NULL || c == MPI_COMM_NULL || !(pc = comm_get(c)))
        return PMPI_Sendrecv(sb, sn, stype, dest, stag, rb, rn, rtype, src, rtag, c, st);
    pp_msg *m = settle(pc, src, rtag, capacity(rn, rtype), 0);
    if (!m) return PMPI_Sendrecv(sb, sn, stype, dest, stag, rb, rn, rtype, src, rtag, c, st);
    MPI_Request q;
    MPI_Status own;
    int rc = PMPI_Isend(sb, sn, stype, dest, stag, c, &q);
    if (rc != MPI_SUCCESS) return rc;
    int rr = deliver(m, rb, rn, rtype, c, st == MPI_STATUS_IGNORE ? &own : st);
    rc = PMPI_Wait(&q, MPI_STATUS_IGNORE);
    return user_err(c, rr != MPI_SUCCESS ? rr : rc);
}

int ac_pp_sendrecv_replace(void *b, int n, MPI_Datatype t, int dest, int stag, int src, int rtag,
                           MPI_Comm c, MPI_Status *st) {
    pp_comm *pc;
    if (!ready() || src == MPI_PROC_NULL || c == MPI_COMM_NULL || !(pc = comm_get(c)))
        return PMPI_Sendrecv_replace(b, n, t, dest, stag, src, rtag, c, st);
    pp_msg *m = settle(pc, src, rtag, capacity(n, t), 0);
    if (!m) return PMPI_Sendrecv_replace(b, n, t, dest, stag, src, rtag, c, st);
    MPI_Status own;
    int rc = PMPI_Send(b, n, t, dest, stag, c); /* the buffer is overwritten only after */
    if (rc != MPI_SUCCESS) {
        free(m->data);
        free(m);
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

void ac_pp_ssend(MPI_Comm c) {
    pp_comm *pc;
    if (!ready() || c == MPI_COMM_NULL || !(pc = comm_get(c))) return;
    if (!(pc->nospec & NS_SSEND)) nospec(pc, NS_SSEND);
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

/* A queued message handed out by a matched probe is named by its address. MPI_Message is a
 * pointer in Open MPI; with an integer handle (MPICH) such a message cannot be named, and the
 * probe reports MPI_ERR_INTERN (docs/prepost.md). */
static int message_of(pp_msg *m, MPI_Message *msg) {
    if (sizeof *msg != sizeof m) return MPI_ERR_INTERN;
    memcpy(msg, &m, sizeof m);
    m->next = matched;
    matched = m;
    return MPI_SUCCESS;
}
static pp_msg *message_take(const MPI_Message *msg) {
    if (!matched || sizeof *msg != sizeof(pp_msg *)) return NULL;
    pp_msg *want;
    memcpy(&want, msg, sizeof want);
    for (pp_msg **pp = &matched; *pp; pp = &(*pp)->next)
        if (*pp == want) {
            *pp = want->next;
            want->next = NULL;
            return want;
        }
    return NULL;
}

static int mprobe_queue(int src, int tag, MPI_Comm c, MPI_Message *msg, MPI_Status *st,
                        int *found) {
    pp_comm *pc;
    *found = 0;
    if (!ready() || src == MPI_PROC_NULL || c == MPI_COMM_NULL || !(pc = comm_get(c)))
        return MPI_SUCCESS;
    nospec(pc, NS_PROBE);
    pp_msg *m = queued(pc, src, tag, 1);
    if (!m) return MPI_SUCCESS;
    *found = 1;
    probe_status(m, st);
    int rc = message_of(m, msg);
    if (rc != MPI_SUCCESS) {
        ac_log("prepost: a matched probe found a captured message but MPI_Message cannot name it "
               "here; run without AUTOCOLL_PREPOST");
        free(m->data);
        free(m);
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
    if (AC_PP_ON() && msg && (m = message_take(msg))) {
        MPI_Status own;
        MPI_Comm c = m->comm;
        *msg = MPI_MESSAGE_NULL;
        return user_err(c, deliver(m, b, n, t, c, st == MPI_STATUS_IGNORE ? &own : st));
    }
    return PMPI_Mrecv(b, n, t, msg, st);
}

AC_EXPORT int MPI_Imrecv(void *b, int n, MPI_Datatype t, MPI_Message *msg, MPI_Request *q) {
    pp_msg *m;
    if (AC_PP_ON() && msg && (m = message_take(msg))) {
        *msg = MPI_MESSAGE_NULL;
        return deliver_request(m, b, n, t, m->comm, q);
    }
    return PMPI_Imrecv(b, n, t, msg, q);
}

/* Persistent receives are MPI's own requests and cannot be served from the queue: the
 * communicator stops speculating when one is created (hazard 7, docs/prepost.md). The entry
 * point MPI_Recv_init is in trace_p2p.c, which traces it and calls this. */
int ac_pp_recv_init(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request *q) {
    pp_comm *pc;
    if (AC_PP_ON() && ready() && c != MPI_COMM_NULL && (pc = comm_get(c))) {
        nospec(pc, NS_PERSIST);
        if (src != MPI_PROC_NULL && queued(pc, src, tag, 0))
            ac_log_once("prepost-persist",
                        "prepost: a persistent receive is created while a message it matches "
                        "is held by pre-posting; that receive will not see it (docs/prepost.md)");
    }
    return PMPI_Recv_init(b, n, t, src, tag, c, q);
}
