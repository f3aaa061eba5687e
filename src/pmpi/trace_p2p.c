/*
 * Point-to-point tracing (AUTOCOLL_TRACE=p2p or all): the MPI_* entry points of seed 004's
 * events, one record per call (spec predictors-latency.md §2.1), with the identifiers of §2.2,
 * and what the early-arrival analysis of §4.3 needs to pair sends with receives across ranks.
 *
 * Events. Send requests: MPI_Send, Ssend, Bsend, Rsend, Isend, Issend, Ibsend, Irsend, the send
 * half of MPI_Sendrecv and MPI_Sendrecv_replace (one record per call, peer = dest, ident = the
 * send identifier). Receive requests: MPI_Recv and MPI_Irecv at the time they are posted (ident
 * = the receive identifier; wildcards flagged). Sendrecv_replace is flagged
 * AC_TF_REPLACE_RECV (its receive is excluded from receive prediction, seed 004 §6.4).
 * Persistent requests (MPI_Send_init, Bsend_init, Ssend_init, Rsend_init, Recv_init): each
 * start (MPI_Start, one record per request of MPI_Startall) is a send or a receive event with
 * the request's arguments and identifier, flagged AC_TF_PERSISTENT (and AC_TF_RECV_SIDE for a
 * receive); the request's bookkeeping (a hash table by handle, O(1) per start) lives until
 * MPI_Request_free, since a persistent request outlives its completions. Waits, tests, probes:
 * recorded for their duration (subtracted from the pure inter-send time, §2.3); a wait or test
 * that completes traced MPI_Irecv requests adds one AC_TK_RECV_DONE record per such request
 * after its own.
 *
 * Identifiers (§2.2): send <dest, comm> and receive <source, tag, count, datatype, buf, comm>,
 * interned in first-seen order (src/trace/trace_intern.c), each handle mixed with its
 * generation (bumped by MPI_Comm_free and MPI_Type_free) so that a recycled handle value is a
 * new object. The call site is the caller's return address, normalised with dladdr to
 * module+offset in the file (ac_trace_ids). The record's comm is a dense id of the communicator
 * handle (with its generation) in this process.
 *
 * Pairing (§4.3; file format 2, docs/tracing.md). Every record on a communicator carries:
 *  - seq: the communicator's key, the same on every member and made without communication:
 *    MPI_COMM_WORLD and MPI_COMM_SELF have fixed keys; a communicator made by a wrapped creation
 *    call collective over its parent (dup, dup_with_info, idup, split, split_type, create,
 *    cart_create, cart_sub, graph_create, dist_graph_create(_adjacent), intercomm_merge) gets
 *    hash(parent key, number of creation calls made so far on the parent): every member of the
 *    parent makes these calls in the same order, so every member counts the same. The colours of
 *    one split share the key, which is harmless: their members are disjoint, and a pair of
 *    processes plus a key names one communicator. MPI_Comm_create_group (collective over the
 *    group only) uses hash(parent key, world ranks of the group, tag, number of such calls
 *    before); MPI_Intercomm_create uses hash(world ranks of the two groups' rank 0, number of
 *    intercommunicators made before between them). A communicator made any other way (spawn,
 *    connect, join, or before tracing started) has key 0: its events are counted, not paired.
 *  - root: the peer's world rank, by MPI_Group_translate_ranks of the whole group against the
 *    world group, once per communicator (the remote group for an intercommunicator), cached;
 *    AC_TRACE_NONE for MPI_ANY_SOURCE, MPI_PROC_NULL and processes outside MPI_COMM_WORLD.
 *  - inst: for MPI_Recv and MPI_Sendrecv(_replace), the world rank of the status source; for
 *    MPI_Irecv, its serial number in this process, which its AC_TK_RECV_DONE record repeats.
 *    The completion record's t_in is the receive time of §4.3 step 3: the entry of the first
 *    MPI_Wait* call whose list held the request, else the entry of the MPI_Test* that completed
 *    it; its root is the status source's world rank and its status fields the status (a
 *    cancelled receive has none). Outstanding MPI_Irecv requests and started persistent
 *    receives are kept in a hash table by handle (O(1) per request), looked at by a wait or
 *    test only when it is not empty.
 *
 * Cost with point-to-point tracing off: one load of a global word and a branch per call, then
 * the PMPI_ call. On: two clock reads, a lock, two hash lookups and one record; the first call
 * on a communicator translates its group (O(size)).
 *
 * Receive pre-posting (AUTOCOLL_PREPOST=1, docs/prepost.md) hooks in here: when it is not off
 * (AC_PP_ON, one more load and branch), every wrapper's first on() runs its check-first capture
 * (AC_PP_ENTRY), the receives, probes, Sendrecv(_replace) and waits call their prepost.c
 * counterpart instead of the PMPI_ call, synchronous sends and MPI_Comm_free tell it first.
 *
 * Persistent receives: a start takes a serial number (inst) like an MPI_Irecv, and the wait or
 * test that completes it adds its AC_TK_RECV_DONE record (same serial); the request stays valid.
 *
 * Fortran: src/pmpi/fortran_p2p.c converts the arguments and calls these entry points (its call
 * site passed in ac_fortran_site, docs/fortran.md).
 *
 * Not done: MPI_Mrecv/Imrecv are not recorded as receives.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "pmpi.h"
#include "fortran.h"
#include "prepost.h"
#include "../trace/trace.h"

/* The PMPI_ call, or its pre-posting counterpart when that is not off. */
#define PP(hook, plain) (AC_PP_ON() ? (hook) : (plain))

_Thread_local const void *ac_fortran_site;
#undef SITE
/* The caller's address, or the Fortran program's when a Fortran entry point called. */
#define SITE (ac_fortran_site ? ac_fortran_site : __builtin_return_address(0))

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static ac_intern_t ids_send, ids_recv, ids_comm, gens, counts;

#define HANDLE(h) handle_word(&(h), sizeof(h))
static uint64_t handle_word(const void *h, size_t n) {
    uint64_t w = 0;
    memcpy(&w, h, n < sizeof w ? n : sizeof w);
    return w;
}

static int on(void) {
    AC_PP_ENTRY(); /* every wrapper starts here: receive pre-posting's check-first capture */
    return __builtin_expect((ac_trace_mask & AC_TRACE_P2P) != 0, 0);
}

/* ---------------------------------------------------------------- communicators */

/* What a process knows of a communicator (indexed by its dense id, lock held). */
typedef struct {
    uint64_t key;      /* shared by every member, 0 unknown */
    uint64_t children; /* creation calls made on it so far */
    int set;           /* key decided */
    int tried;         /* group translated */
    int ident;         /* MPI_COMM_WORLD: ranks are world ranks */
    int n;             /* peers (size, or remote size) */
    int32_t *world;    /* world rank of each peer rank */
} cinfo_t;

static cinfo_t *cis;
static size_t ncis;
static MPI_Group wgrp = MPI_GROUP_NULL;

enum { KEY_WORLD = 0x57, KEY_SELF = 0x53 };

static uint64_t kmix(uint64_t h, uint64_t w) {
    h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 29);
}
static uint64_t nonzero(uint64_t k) {
    return k ? k : 1;
}

/* The entry of comm and its dense id in *id; NULL out of memory. */
static cinfo_t *cinfo(MPI_Comm comm, uint32_t *id) {
    uint64_t c = HANDLE(comm), k[2] = {c, ac_intern_gen(&gens, c)};
    int32_t i = ac_intern(&ids_comm, k, 2);
    if (i < 0) return NULL;
    if ((size_t)i >= ncis) {
        size_t nc = ncis ? 2 * ncis : 16;
        while (nc <= (size_t)i)
            nc *= 2;
        cinfo_t *nv = realloc(cis, nc * sizeof *nv);
        if (!nv) return NULL;
        memset(nv + ncis, 0, (nc - ncis) * sizeof *nv);
        cis = nv;
        ncis = nc;
    }
    *id = (uint32_t)i;
    cinfo_t *x = &cis[i];
    if (!x->set) {
        x->set = 1;
        x->key = comm == MPI_COMM_WORLD ? KEY_WORLD : comm == MPI_COMM_SELF ? KEY_SELF : 0;
    }
    return x;
}

/* World ranks of the members of g (n of them) into w (MPI_UNDEFINED: AC_TRACE_NONE). */
static int group_world(MPI_Group g, int n, int32_t *w) {
    if (wgrp == MPI_GROUP_NULL && PMPI_Comm_group(MPI_COMM_WORLD, &wgrp) != MPI_SUCCESS) return -1;
    int *out = malloc((size_t)(n ? n : 1) * sizeof *out), rc = -1;
    if (out && ac_group_ranks(g, n, wgrp, out) == MPI_SUCCESS) {
        for (int i = 0; i < n; i++)
            w[i] = out[i] == MPI_UNDEFINED || out[i] < 0 ? AC_TRACE_NONE : out[i];
        rc = 0;
    }
    free(out);
    return rc;
}

/* Translates the peers of comm once (the remote group of an intercommunicator). */
static void translate(cinfo_t *x, MPI_Comm comm) {
    x->tried = 1;
    if (comm == MPI_COMM_WORLD) {
        x->ident = 1;
        PMPI_Comm_size(comm, &x->n);
        return;
    }
    int inter = 0, n = 0;
    MPI_Group g;
    PMPI_Comm_test_inter(comm, &inter);
    if ((inter ? PMPI_Comm_remote_group(comm, &g) : PMPI_Comm_group(comm, &g)) != MPI_SUCCESS)
        return;
    PMPI_Group_size(g, &n);
    int32_t *w = malloc((size_t)(n ? n : 1) * sizeof *w);
    if (w && group_world(g, n, w) == 0) {
        x->world = w;
        x->n = n;
    } else {
        free(w);
    }
    PMPI_Group_free(&g);
}

static int32_t world_of(const cinfo_t *x, int rank) {
    if (!x || rank < 0 || rank >= x->n) return AC_TRACE_NONE;
    return x->ident ? rank : x->world ? x->world[rank] : AC_TRACE_NONE;
}

/* A communicator made by a creation call collective over parent: its key. The parent's count
 * goes up on every member whatever the outcome (newp NULL or MPI_COMM_NULL: not a member). */
static void created(MPI_Comm parent, const MPI_Comm *newp, int err) {
    if (!on()) return;
    pthread_mutex_lock(&mtx);
    uint32_t id;
    cinfo_t *p = cinfo(parent, &id);
    uint64_t key = 0;
    if (p) {
        p->children++;
        if (p->key) key = nonzero(kmix(kmix(p->key, p->children), 0x43));
    }
    if (err == MPI_SUCCESS && newp && *newp != MPI_COMM_NULL) {
        cinfo_t *x = cinfo(*newp, &id);
        if (x) {
            free(x->world);
            *x = (cinfo_t){.key = key, .set = 1};
        }
    }
    pthread_mutex_unlock(&mtx);
}

/* A communicator whose key comes from h (a hash of what every member knows) and the number of
 * communicators made before under the same h. */
static void created_by(uint64_t h, const MPI_Comm *newp) {
    uint64_t n = ac_intern_gen(&counts, h);
    ac_intern_bump(&counts, h);
    uint32_t id;
    cinfo_t *x = cinfo(*newp, &id);
    if (x) {
        free(x->world);
        *x = (cinfo_t){.key = h ? nonzero(kmix(h, n + 1)) : 0, .set = 1};
    }
}

/* ---------------------------------------------------------------- records */

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

/* The start of a record: kind, arguments, the comm id, key and the peer's world rank, the site;
 * then the entry time. Returns the comm's dense id (UINT32_MAX none). Lock held. */
static uint32_t begin(ac_trace_rec_t *r, int kind, int peer, int tag, int count, MPI_Datatype t,
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
    uint32_t id = UINT32_MAX;
    if (comm != MPI_COMM_NULL) {
        cinfo_t *x = cinfo(comm, &id);
        if (x) {
            if (!x->tried) translate(x, comm);
            r->comm = id;
            r->seq = x->key;
            r->root = world_of(x, peer);
        }
    }
    uint32_t s = AC_TRACE_NOID;
    ac_trace_ids(NULL, site, NULL, &s);
    r->site = s;
    return id;
}

/* The end of a record; with a status and a communicator (id), the status source's world rank
 * goes to inst. */
static int end(ac_trace_rec_t *r, int64_t t_in, int err, const MPI_Status *st, uint32_t id) {
    r->t_out = ac_trace_now();
    r->t_in = t_in;
    if (err != MPI_SUCCESS) r->flags |= AC_TF_ERROR;
    if (st && st != MPI_STATUS_IGNORE && err == MPI_SUCCESS) {
        r->status_source = st->MPI_SOURCE;
        r->status_tag = st->MPI_TAG;
        if (id != UINT32_MAX) {
            pthread_mutex_lock(&mtx);
            int32_t w = id < ncis ? world_of(&cis[id], st->MPI_SOURCE) : AC_TRACE_NONE;
            pthread_mutex_unlock(&mtx);
            r->inst = w == AC_TRACE_NONE ? AC_TRACE_NOID : (uint32_t)w;
        }
    }
    ac_trace_record(r);
    return err;
}

/* ---------------------------------------------------------------- outstanding MPI_Irecv */

typedef struct {
    uint64_t req; /* handle value; 0 free slot */
    uint64_t key;
    int64_t t_wait; /* entry of the first wait that listed it, 0 none */
    uint32_t serial, comm;
    int32_t ident;
    int used;
    int pers; /* a started persistent receive: stays valid when it completes */
} pend_t;

static pend_t *pt;
static size_t pcap, pn;
static uint32_t serial;

static size_t pslot(uint64_t req) {
    return (size_t)(kmix(req, 0x52) & (pcap - 1));
}

static pend_t *pfind(uint64_t req) {
    if (!pn) return NULL;
    for (size_t i = pslot(req);; i = (i + 1) & (pcap - 1)) {
        if (!pt[i].used) return NULL;
        if (pt[i].req == req) return &pt[i];
    }
}

static void pdel(pend_t *e) {
    size_t i = (size_t)(e - pt);
    pt[i].used = 0;
    pn--;
    for (size_t j = (i + 1) & (pcap - 1); pt[j].used; j = (j + 1) & (pcap - 1)) {
        pend_t x = pt[j]; /* backward shift: re-insert what follows in the cluster */
        pt[j].used = 0;
        size_t k = pslot(x.req);
        while (pt[k].used)
            k = (k + 1) & (pcap - 1);
        pt[k] = x;
    }
}

static int pput(const pend_t *e) {
    pend_t *old = pfind(e->req);
    if (old) pdel(old); /* a handle value seen again: the old request is gone */
    if (2 * (pn + 1) > pcap) {
        size_t nc = pcap ? 2 * pcap : 64;
        pend_t *nv = calloc(nc, sizeof *nv), *ov = pt;
        if (!nv) return -1;
        size_t oc = pcap;
        pt = nv;
        pcap = nc;
        pn = 0;
        for (size_t i = 0; i < oc; i++)
            if (ov[i].used) pput(&ov[i]);
        free(ov);
    }
    size_t i = pslot(e->req);
    while (pt[i].used)
        i = (i + 1) & (pcap - 1);
    pt[i] = *e;
    pt[i].used = 1;
    pn++;
    return 0;
}

/* A traced MPI_Irecv was posted, or a traced persistent receive started (q its request). */
static void irecv_posted(const ac_trace_rec_t *r, int err, const MPI_Request *q) {
    if (err != MPI_SUCCESS || !q || *q == MPI_REQUEST_NULL) return;
    pend_t e = {.req = HANDLE(*q),
                .key = r->seq,
                .serial = r->inst,
                .comm = r->comm,
                .ident = r->ident,
                .pers = (r->flags & AC_TF_PERSISTENT) != 0};
    pthread_mutex_lock(&mtx);
    pput(&e);
    pthread_mutex_unlock(&mtx);
}

/* ---------------------------------------------------------------- persistent requests */

/* A persistent request made by a traced MPI_*_init call, by handle value: what its starts
 * record. The identifier's key is taken when the request is made (the communicator and datatype
 * handles with their generations then: a datatype freed after MPI_Send_init leaves the request
 * valid, and its size is not asked again), and interned at each start, so identifiers stay in
 * first-seen order of the events. Kept until MPI_Request_free: a persistent request stays valid
 * after it completes, so the wait and test wrappers never see it go. A start of a persistent
 * receive is, for the pairing, an MPI_Irecv: it takes the next serial number (record inst) and
 * goes into the table of outstanding receives until the wait or test that completes it (told by
 * that call's own outputs, since the handle stays valid) writes its AC_TK_RECV_DONE record. */
typedef struct {
    uint64_t req; /* handle value */
    uint64_t key[8];
    uint64_t bytes;
    uint32_t comm; /* dense id of the communicator, UINT32_MAX none */
    int peer, tag, count, nkey, used;
    uint8_t flags; /* AC_TF_PERSISTENT, AC_TF_RECV_SIDE, AC_TF_WILDCARD */
} pers_t;

static pers_t *ps;
static size_t scap, sn;

static size_t sslot(uint64_t req) {
    return (size_t)(kmix(req, 0x50) & (scap - 1));
}

static pers_t *sfind(uint64_t req) {
    if (!sn) return NULL;
    for (size_t i = sslot(req);; i = (i + 1) & (scap - 1)) {
        if (!ps[i].used) return NULL;
        if (ps[i].req == req) return &ps[i];
    }
}

static void sdel(pers_t *e) {
    size_t i = (size_t)(e - ps);
    ps[i].used = 0;
    sn--;
    for (size_t j = (i + 1) & (scap - 1); ps[j].used; j = (j + 1) & (scap - 1)) {
        pers_t x = ps[j];
        ps[j].used = 0;
        size_t k = sslot(x.req);
        while (ps[k].used)
            k = (k + 1) & (scap - 1);
        ps[k] = x;
    }
}

static int sput(const pers_t *e) {
    pers_t *old = sfind(e->req);
    if (old) sdel(old); /* a handle value seen again: the old request is gone */
    if (2 * (sn + 1) > scap) {
        size_t nc = scap ? 2 * scap : 64;
        pers_t *nv = calloc(nc, sizeof *nv), *ov = ps;
        if (!nv) return -1;
        size_t oc = scap;
        ps = nv;
        scap = nc;
        sn = 0;
        for (size_t i = 0; i < oc; i++)
            if (ov[i].used) sput(&ov[i]);
        free(ov);
    }
    size_t i = sslot(e->req);
    while (ps[i].used)
        i = (i + 1) & (scap - 1);
    ps[i] = *e;
    ps[i].used = 1;
    sn++;
    return 0;
}

/* A traced MPI_*_init call made the request *q (recv: a receive, else a send). */
static int persist_made(int err, const MPI_Request *q, int recv, const void *buf, int count,
                        MPI_Datatype t, int peer, int tag, MPI_Comm comm) {
    if (err != MPI_SUCCESS || !q || *q == MPI_REQUEST_NULL) return err;
    pers_t e = {.req = HANDLE(*q), .peer = peer, .tag = tag, .count = count};
    e.flags = AC_TF_PERSISTENT;
    if (t != MPI_DATATYPE_NULL && count > 0) {
        int sz = 0;
        PMPI_Type_size(t, &sz);
        e.bytes = (uint64_t)sz * (uint64_t)count;
    }
    pthread_mutex_lock(&mtx);
    uint64_t c = HANDLE(comm), d = HANDLE(t), cg = ac_intern_gen(&gens, c);
    if (recv) {
        uint64_t k[8] = {(uint64_t)(int64_t)peer,
                         (uint64_t)(int64_t)tag,
                         (uint64_t)(int64_t)count,
                         d,
                         (uint64_t)(uintptr_t)buf,
                         c,
                         cg,
                         ac_intern_gen(&gens, d)};
        memcpy(e.key, k, sizeof k);
        e.nkey = 8;
        e.flags |= AC_TF_RECV_SIDE;
        if (peer == MPI_ANY_SOURCE || tag == MPI_ANY_TAG) e.flags |= AC_TF_WILDCARD;
    } else {
        uint64_t k[3] = {(uint64_t)(int64_t)peer, c, cg};
        memcpy(e.key, k, sizeof k);
        e.nkey = 3;
    }
    e.comm = UINT32_MAX;
    cinfo_t *x = comm != MPI_COMM_NULL ? cinfo(comm, &e.comm) : NULL;
    if (x && !x->tried) translate(x, comm);
    pend_t *old = pfind(e.req); /* a stale MPI_Irecv entry of a recycled handle value */
    if (old) pdel(old);
    sput(&e);
    pthread_mutex_unlock(&mtx);
    return err;
}

/* The record of one start of q (kind AC_TK_START or AC_TK_STARTALL): a send or a receive event
 * with the request's arguments and identifier when q is a traced persistent request, else a
 * duration only. Lock held. */
static void begin_start(ac_trace_rec_t *r, int kind, MPI_Request q, const void *site) {
    pers_t *e = q != MPI_REQUEST_NULL ? sfind(HANDLE(q)) : NULL;
    begin(r, kind, AC_TRACE_NONE, AC_TRACE_NONE, 0, MPI_DATATYPE_NULL, MPI_COMM_NULL, site);
    if (!e) {
        r->count = AC_TRACE_NONE;
        return;
    }
    r->peer = e->peer;
    r->tag = e->tag;
    r->count = e->count;
    r->bytes = e->bytes;
    r->flags |= e->flags;
    r->ident = ac_intern(e->flags & AC_TF_RECV_SIDE ? &ids_recv : &ids_send, e->key, e->nkey);
    if (e->flags & AC_TF_RECV_SIDE) r->inst = serial++;
    if (e->comm < ncis) {
        const cinfo_t *x = &cis[e->comm];
        r->comm = e->comm;
        r->seq = x->key;
        r->root = world_of(x, e->peer);
    }
}

/* Waits and tests: recorded for their duration, then the completions of traced MPI_Irecv
 * requests and started persistent receives. The handles are saved before the call (it sets
 * completed nonpersistent ones to MPI_REQUEST_NULL); statuses are asked for even when the
 * caller ignores them. */
enum { NSTACK = 16 };
typedef struct {
    MPI_Status *one; /* Wait, Test, Waitany, Testany */
    int *index;      /* Waitany, Testany */
    MPI_Status *all; /* Waitall, Testall: one per request */
    int *outcount;   /* Waitsome, Testsome */
    int *indices;
    int *flag; /* Test, Testany, Testall */
} cstat_t;
static const MPI_Status *cstat(const cstat_t *c, int i) {
    if (c->indices) {
        for (int k = 0; c->all && *c->outcount != MPI_UNDEFINED && k < *c->outcount; k++)
            if (c->indices[k] == i) return &c->all[k];
        return NULL;
    }
    if (c->all) return &c->all[i];
    if (c->index) return *c->index == i ? c->one : NULL;
    return c->one;
}

/* 1 when the call (result err) completed its i-th request, from its outputs alone (a persistent
 * request stays valid): Waitsome/Testsome list it, Waitany/Testany name it, Test/Testall set the
 * flag, Wait/Waitall returned success (or, for Waitall, its status is not MPI_ERR_PENDING). */
static int cdone(const cstat_t *c, int i, int err) {
    if (c->indices) {
        for (int k = 0; *c->outcount != MPI_UNDEFINED && k < *c->outcount; k++)
            if (c->indices[k] == i) return 1;
        return 0;
    }
    if (c->index) return (!c->flag || *c->flag) && *c->index == i;
    if (c->flag) return *c->flag != 0;
    if (err == MPI_ERR_IN_STATUS && c->all) return c->all[i].MPI_ERROR != MPI_ERR_PENDING;
    return err == MPI_SUCCESS;
}

/* After a wait or test over n requests whose handles before the call were saved[0..n-1]
 * (result err, outputs c): one AC_TK_RECV_DONE record per traced MPI_Irecv completed (its slot
 * now MPI_REQUEST_NULL) and per started persistent receive completed (cdone), with its status.
 * wait: the call blocks (its entry t_in is the receive time of the requests it lists that no
 * earlier wait listed). */
static void completed(int n, const MPI_Request *saved, const MPI_Request *now, int wait,
                      int64_t t_in, int64_t t_out, const cstat_t *c, int err) {
    pthread_mutex_lock(&mtx);
    for (int i = 0; i < n && pn; i++) {
        if (saved[i] == MPI_REQUEST_NULL) continue;
        pend_t *e = pfind(HANDLE(saved[i]));
        if (!e) continue;
        if (wait && !e->t_wait) e->t_wait = t_in;
        if (e->pers ? !cdone(c, i, err) : now[i] != MPI_REQUEST_NULL) continue;
        ac_trace_rec_t r;
        ac_trace_rec_clear(&r, AC_TK_RECV_DONE);
        r.t_in = e->t_wait ? e->t_wait : t_in;
        r.t_out = t_out > r.t_in ? t_out : r.t_in;
        r.seq = e->key;
        r.comm = e->comm;
        r.inst = e->serial;
        r.ident = e->ident;
        const MPI_Status *st = cstat(c, i);
        int cancelled = 0;
        if (st) PMPI_Test_cancelled(st, &cancelled);
        if (st && !cancelled) {
            r.status_source = st->MPI_SOURCE;
            r.status_tag = st->MPI_TAG;
            r.root = e->comm < ncis ? world_of(&cis[e->comm], st->MPI_SOURCE) : AC_TRACE_NONE;
        }
        pdel(e);
        ac_trace_record(&r);
    }
    pthread_mutex_unlock(&mtx);
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
        return end(&r, t_in, call, NULL, UINT32_MAX);                                              \
    } while (0)

AC_EXPORT int MPI_Send(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
    TRACE_SEND(AC_TK_SEND, PMPI_Send(b, n, t, dest, tag, c), dest, tag, n, t, c);
}
AC_EXPORT int MPI_Ssend(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
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
    uint32_t id = begin(&r, AC_TK_RECV, src, tag, n, t, c, SITE);
    ident_recv(&r, b, n, t, src, tag, c);
    pthread_mutex_unlock(&mtx);
    int64_t t_in = ac_trace_now();
    return end(&r, t_in, RECV, st, id);
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
    r.inst = serial++;
    pthread_mutex_unlock(&mtx);
    int64_t t_in = ac_trace_now();
    int err = end(&r, t_in, IRECV, NULL, UINT32_MAX);
    irecv_posted(&r, err, q);
    return err;
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
    uint32_t id = begin(&r, AC_TK_SENDRECV, dest, stag, sn, st, c, SITE);
    ident_send(&r, dest, c);
    pthread_mutex_unlock(&mtx);
    int64_t t_in = ac_trace_now();
    return end(&r, t_in, SENDRECV, s, id);
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
    uint32_t id = begin(&r, AC_TK_SENDRECV_REPLACE, dest, stag, n, t, c, SITE);
    ident_send(&r, dest, c);
    r.flags |= AC_TF_REPLACE_RECV;
    pthread_mutex_unlock(&mtx);
    int64_t t_in = ac_trace_now();
    return end(&r, t_in, REPLACE, s, id);
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
        return end(&r, t_in, call, status, UINT32_MAX);                                            \
    } while (0)

/* Sets err to the call's result (tracing on). */
#define TRACE_DONE(err, KIND, n, q, wait, call, status, cst)                                       \
    do {                                                                                           \
        ac_trace_rec_t r;                                                                          \
        MPI_Request stack_[NSTACK], *saved = NULL;                                                 \
        pthread_mutex_lock(&mtx);                                                                  \
        begin(&r, KIND, AC_TRACE_NONE, AC_TRACE_NONE, 0, MPI_DATATYPE_NULL, MPI_COMM_NULL, SITE);  \
        int track = pn != 0 && (n) > 0 && (q);                                                     \
        pthread_mutex_unlock(&mtx);                                                                \
        if (track) {                                                                               \
            saved = (n) <= NSTACK ? stack_ : malloc((size_t)(n) * sizeof *saved);                  \
            if (saved) memcpy(saved, (q), (size_t)(n) * sizeof *saved);                            \
        }                                                                                          \
        r.count = AC_TRACE_NONE;                                                                   \
        int64_t t_in = ac_trace_now();                                                             \
        err = end(&r, t_in, call, status, UINT32_MAX);                                             \
        if (saved) {                                                                               \
            completed((n), saved, (q), (wait), t_in, r.t_out, (cst), err);                         \
            if (saved != stack_) free(saved);                                                      \
        }                                                                                          \
    } while (0)

/* The caller's status array, or one of ours when it ignores them. */
static MPI_Status *statuses(int n, MPI_Status *s, MPI_Status *stack, MPI_Status **heap) {
    *heap = NULL;
    if (s != MPI_STATUSES_IGNORE) return s;
    if (n <= NSTACK) return stack;
    *heap = malloc((size_t)(n > 0 ? n : 1) * sizeof **heap);
    return *heap ? *heap : MPI_STATUSES_IGNORE;
}

AC_EXPORT int MPI_Wait(MPI_Request *q, MPI_Status *s) {
    if (!on()) return PP(ac_pp_wait(q, s), PMPI_Wait(q, s));
    MPI_Status own;
    if (s == MPI_STATUS_IGNORE) s = &own;
    cstat_t c = {.one = s};
    int err;
    TRACE_DONE(err, AC_TK_WAIT, 1, q, 1, PP(ac_pp_wait(q, s), PMPI_Wait(q, s)), s, &c);
    return err;
}
AC_EXPORT int MPI_Test(MPI_Request *q, int *f, MPI_Status *s) {
    if (!on()) return PP(ac_pp_test(q, f, s), PMPI_Test(q, f, s));
    MPI_Status own;
    if (s == MPI_STATUS_IGNORE) s = &own;
    cstat_t c = {.one = s, .flag = f};
    int err;
    TRACE_DONE(err, AC_TK_TEST, 1, q, 0, PP(ac_pp_test(q, f, s), PMPI_Test(q, f, s)), NULL, &c);
    return err;
}
AC_EXPORT int MPI_Waitany(int n, MPI_Request q[], int *i, MPI_Status *s) {
    if (!on()) return PP(ac_pp_waitany(n, q, i, s), PMPI_Waitany(n, q, i, s));
    MPI_Status own;
    if (s == MPI_STATUS_IGNORE) s = &own;
    cstat_t c = {.one = s, .index = i};
    int err;
    TRACE_DONE(err, AC_TK_WAITANY, n, q, 1, PP(ac_pp_waitany(n, q, i, s), PMPI_Waitany(n, q, i, s)),
               s, &c);
    return err;
}
AC_EXPORT int MPI_Testany(int n, MPI_Request q[], int *i, int *f, MPI_Status *s) {
    if (!on()) return PP(ac_pp_testany(n, q, i, f, s), PMPI_Testany(n, q, i, f, s));
    MPI_Status own;
    if (s == MPI_STATUS_IGNORE) s = &own;
    cstat_t c = {.one = s, .index = i, .flag = f};
    int err;
    TRACE_DONE(err, AC_TK_TESTANY, n, q, 0,
               PP(ac_pp_testany(n, q, i, f, s), PMPI_Testany(n, q, i, f, s)), NULL, &c);
    return err;
}
AC_EXPORT int MPI_Waitall(int n, MPI_Request q[], MPI_Status s[]) {
    if (!on()) return PP(ac_pp_waitall(n, q, s), PMPI_Waitall(n, q, s));
    MPI_Status stack[NSTACK], *heap;
    s = statuses(n, s, stack, &heap);
    cstat_t c = {.all = s == MPI_STATUSES_IGNORE ? NULL : s};
    int err;
    TRACE_DONE(err, AC_TK_WAITALL, n, q, 1, PP(ac_pp_waitall(n, q, s), PMPI_Waitall(n, q, s)), NULL,
               &c);
    free(heap);
    return err;
}
AC_EXPORT int MPI_Testall(int n, MPI_Request q[], int *f, MPI_Status s[]) {
    if (!on()) return PP(ac_pp_testall(n, q, f, s), PMPI_Testall(n, q, f, s));
    MPI_Status stack[NSTACK], *heap;
    s = statuses(n, s, stack, &heap);
    cstat_t c = {.all = s == MPI_STATUSES_IGNORE ? NULL : s, .flag = f};
    int err;
    TRACE_DONE(err, AC_TK_TESTALL, n, q, 0, PP(ac_pp_testall(n, q, f, s), PMPI_Testall(n, q, f, s)),
               NULL, &c);
    free(heap);
    return err;
}
AC_EXPORT int MPI_Waitsome(int n, MPI_Request q[], int *o, int idx[], MPI_Status s[]) {
    if (!on()) return PP(ac_pp_waitsome(n, q, o, idx, s), PMPI_Waitsome(n, q, o, idx, s));
    MPI_Status stack[NSTACK], *heap;
    s = statuses(n, s, stack, &heap);
    cstat_t c = {.all = s == MPI_STATUSES_IGNORE ? NULL : s, .outcount = o, .indices = idx};
    int err;
    TRACE_DONE(err, AC_TK_WAITSOME, n, q, 1,
               PP(ac_pp_waitsome(n, q, o, idx, s), PMPI_Waitsome(n, q, o, idx, s)), NULL, &c);
    free(heap);
    return err;
}
AC_EXPORT int MPI_Testsome(int n, MPI_Request q[], int *o, int idx[], MPI_Status s[]) {
    if (!on()) return PP(ac_pp_testsome(n, q, o, idx, s), PMPI_Testsome(n, q, o, idx, s));
    MPI_Status stack[NSTACK], *heap;
    s = statuses(n, s, stack, &heap);
    cstat_t c = {.all = s == MPI_STATUSES_IGNORE ? NULL : s, .outcount = o, .indices = idx};
    int err;
    TRACE_DONE(err, AC_TK_TESTSOME, n, q, 0,
               PP(ac_pp_testsome(n, q, o, idx, s), PMPI_Testsome(n, q, o, idx, s)), NULL, &c);
    free(heap);
    return err;
}
AC_EXPORT int MPI_Probe(int src, int tag, MPI_Comm c, MPI_Status *s) {
    TRACE_OTHER(AC_TK_PROBE, PP(ac_pp_probe(src, tag, c, s), PMPI_Probe(src, tag, c, s)), s);
}
AC_EXPORT int MPI_Iprobe(int src, int tag, MPI_Comm c, int *f, MPI_Status *s) {
    TRACE_OTHER(AC_TK_IPROBE, PP(ac_pp_iprobe(src, tag, c, f, s), PMPI_Iprobe(src, tag, c, f, s)),
                NULL);
}

/* Persistent requests: the MPI_*_init calls are not recorded (local, no communication); each
 * start is a send or receive event of spec 2.1 with the request's arguments. */
#define TRACE_INIT(call, recv, b, n, t, peer, tag, c, q)                                           \
    do {                                                                                           \
        if (!on()) return call;                                                                    \
        return persist_made(call, q, recv, b, n, t, peer, tag, c);                                 \
    } while (0)

AC_EXPORT int MPI_Send_init(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c,
                            MPI_Request *q) {
    TRACE_INIT(PMPI_Send_init(b, n, t, dest, tag, c, q), 0, b, n, t, dest, tag, c, q);
}
AC_EXPORT int MPI_Bsend_init(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c,
                             MPI_Request *q) {
    TRACE_INIT(PMPI_Bsend_init(b, n, t, dest, tag, c, q), 0, b, n, t, dest, tag, c, q);
}
AC_EXPORT int MPI_Ssend_init(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c,
                             MPI_Request *q) {
    TRACE_INIT(PMPI_Ssend_init(b, n, t, dest, tag, c, q), 0, b, n, t, dest, tag, c, q);
}
AC_EXPORT int MPI_Rsend_init(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c,
                             MPI_Request *q) {
    TRACE_INIT(PMPI_Rsend_init(b, n, t, dest, tag, c, q), 0, b, n, t, dest, tag, c, q);
}
/* Pre-posting stops on the communicator of a persistent receive (prepost.c), whose starts
 * are served from the queue while it holds messages captured before. */
AC_EXPORT int MPI_Recv_init(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c,
                            MPI_Request *q) {
    TRACE_INIT(
        PP(ac_pp_recv_init(b, n, t, src, tag, c, q), PMPI_Recv_init(b, n, t, src, tag, c, q)), 1, b,
        n, t, src, tag, c, q);
}

AC_EXPORT int MPI_Start(MPI_Request *q) {
    if (!on()) return PP(ac_pp_start(q), PMPI_Start(q));
    ac_trace_rec_t r;
    pthread_mutex_lock(&mtx);
    begin_start(&r, AC_TK_START, q ? *q : MPI_REQUEST_NULL, SITE);
    pthread_mutex_unlock(&mtx);
    int64_t t_in = ac_trace_now();
    int err = end(&r, t_in, PP(ac_pp_start(q), PMPI_Start(q)), NULL, UINT32_MAX);
    if (r.inst != AC_TRACE_NOID) irecv_posted(&r, err, q); /* a persistent receive */
    return err;
}

/* One record per request, in array order, each with 1/n of the call's time (the records tile
 * [t_in, t_out], so the durations subtracted from the pure inter-send times add up to the
 * call's); one duration-only record when n < 1 or out of memory. */
AC_EXPORT int MPI_Startall(int n, MPI_Request q[]) {
    if (!on()) return PP(ac_pp_startall(n, q), PMPI_Startall(n, q));
    ac_trace_rec_t one[NSTACK],
        *r = n <= NSTACK ? one : malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
    if (!r || n < 1 || !q) {
        free(r != one ? r : NULL);
        TRACE_OTHER(AC_TK_STARTALL, PP(ac_pp_startall(n, q), PMPI_Startall(n, q)), NULL);
    }
    pthread_mutex_lock(&mtx);
    for (int i = 0; i < n; i++)
        begin_start(&r[i], AC_TK_STARTALL, q[i], SITE);
    pthread_mutex_unlock(&mtx);
    int64_t t_in = ac_trace_now();
    int err = PP(ac_pp_startall(n, q), PMPI_Startall(n, q));
    int64_t t_out = ac_trace_now(), d = t_out - t_in;
    for (int i = 0; i < n; i++) {
        r[i].t_in = t_in + d * i / n;
        r[i].t_out = t_in + d * (i + 1) / n;
        if (err != MPI_SUCCESS) r[i].flags |= AC_TF_ERROR;
        ac_trace_record(&r[i]);
        if (r[i].inst != AC_TRACE_NOID) irecv_posted(&r[i], err, &q[i]);
    }
    if (r != one) free(r);
    return err;
}

/* The bookkeeping of a persistent request (or of an MPI_Irecv or started persistent receive
 * freed before it completed) goes with it. Not recorded. */
AC_EXPORT int MPI_Request_free(MPI_Request *q) {
    if (AC_PP_ON()) ac_pp_request_free(q);
    if (on() && q && *q != MPI_REQUEST_NULL) {
        pthread_mutex_lock(&mtx);
        uint64_t h = HANDLE(*q);
        pers_t *e = sfind(h);
        if (e) sdel(e);
        pend_t *x = pfind(h);
        if (x) pdel(x);
        pthread_mutex_unlock(&mtx);
    }
    return PMPI_Request_free(q);
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

/* ---------------------------------------------------------------- communicator creation */

AC_EXPORT int MPI_Comm_dup(MPI_Comm c, MPI_Comm *n) {
    int err = PMPI_Comm_dup(c, n);
    created(c, n, err);
    return err;
}
AC_EXPORT int MPI_Comm_dup_with_info(MPI_Comm c, MPI_Info i, MPI_Comm *n) {
    int err = PMPI_Comm_dup_with_info(c, i, n);
    created(c, n, err);
    return err;
}
AC_EXPORT int MPI_Comm_idup(MPI_Comm c, MPI_Comm *n, MPI_Request *q) {
    int err = PMPI_Comm_idup(c, n, q);
    created(c, n, err);
    return err;
}
AC_EXPORT int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm *n) {
    int err = PMPI_Comm_split(c, color, key, n);
    created(c, n, err);
    return err;
}
AC_EXPORT int MPI_Comm_split_type(MPI_Comm c, int type, int key, MPI_Info i, MPI_Comm *n) {
    int err = PMPI_Comm_split_type(c, type, key, i, n);
    created(c, n, err);
    return err;
}
AC_EXPORT int MPI_Comm_create(MPI_Comm c, MPI_Group g, MPI_Comm *n) {
    int err = PMPI_Comm_create(c, g, n);
    created(c, n, err);
    return err;
}
AC_EXPORT int MPI_Cart_create(MPI_Comm c, int nd, const int dims[], const int per[], int reorder,
                              MPI_Comm *n) {
    int err = PMPI_Cart_create(c, nd, dims, per, reorder, n);
    created(c, n, err);
    return err;
}
AC_EXPORT int MPI_Cart_sub(MPI_Comm c, const int remain[], MPI_Comm *n) {
    int err = PMPI_Cart_sub(c, remain, n);
    created(c, n, err);
    return err;
}
AC_EXPORT int MPI_Graph_create(MPI_Comm c, int nn, const int index[], const int edges[],
                               int reorder, MPI_Comm *n) {
    int err = PMPI_Graph_create(c, nn, index, edges, reorder, n);
    created(c, n, err);
    return err;
}
AC_EXPORT int MPI_Dist_graph_create(MPI_Comm c, int nn, const int src[], const int deg[],
                                    const int dst[], const int w[], MPI_Info i, int reorder,
                                    MPI_Comm *n) {
    int err = PMPI_Dist_graph_create(c, nn, src, deg, dst, w, i, reorder, n);
    created(c, n, err);
    return err;
}
AC_EXPORT int MPI_Dist_graph_create_adjacent(MPI_Comm c, int indeg, const int src[], const int sw[],
                                             int outdeg, const int dst[], const int dw[],
                                             MPI_Info i, int reorder, MPI_Comm *n) {
    int err = PMPI_Dist_graph_create_adjacent(c, indeg, src, sw, outdeg, dst, dw, i, reorder, n);
    created(c, n, err);
    return err;
}
AC_EXPORT int MPI_Intercomm_merge(MPI_Comm c, int high, MPI_Comm *n) {
    int err = PMPI_Intercomm_merge(c, high, n);
    created(c, n, err);
    return err;
}

/* Collective over the group only: hash(parent key, the group's world ranks, tag). */
AC_EXPORT int MPI_Comm_create_group(MPI_Comm c, MPI_Group g, int tag, MPI_Comm *n) {
    int err = PMPI_Comm_create_group(c, g, tag, n);
    if (!on() || err != MPI_SUCCESS || !n || *n == MPI_COMM_NULL) return err;
    pthread_mutex_lock(&mtx);
    uint32_t id;
    cinfo_t *p = cinfo(c, &id);
    int size = 0;
    PMPI_Group_size(g, &size);
    int32_t *w = malloc((size_t)(size ? size : 1) * sizeof *w);
    uint64_t h = 0;
    if (p && p->key && w && group_world(g, size, w) == 0) {
        h = kmix(kmix(p->key, 0x47), (uint64_t)(int64_t)tag);
        for (int i = 0; i < size; i++)
            h = kmix(h, (uint64_t)(int64_t)w[i]);
        h = nonzero(h);
    }
    free(w);
    created_by(h, n);
    pthread_mutex_unlock(&mtx);
    return err;
}

/* Collective over both groups: hash(world ranks of the two groups' rank 0, unordered). */
AC_EXPORT int MPI_Intercomm_create(MPI_Comm lc, int ll, MPI_Comm pc, int rl, int tag, MPI_Comm *n) {
    int err = PMPI_Intercomm_create(lc, ll, pc, rl, tag, n);
    if (!on() || err != MPI_SUCCESS || !n || *n == MPI_COMM_NULL) return err;
    pthread_mutex_lock(&mtx);
    int32_t a = AC_TRACE_NONE, b = AC_TRACE_NONE;
    MPI_Group g;
    if (PMPI_Comm_group(*n, &g) == MPI_SUCCESS) {
        group_world(g, 1, &a);
        PMPI_Group_free(&g);
    }
    if (PMPI_Comm_remote_group(*n, &g) == MPI_SUCCESS) {
        group_world(g, 1, &b);
        PMPI_Group_free(&g);
    }
    uint64_t h = 0;
    if (a != AC_TRACE_NONE && b != AC_TRACE_NONE)
        h = nonzero(kmix(kmix(0x49, (uint64_t)(a < b ? a : b)), (uint64_t)(a < b ? b : a)));
    created_by(h, n);
    pthread_mutex_unlock(&mtx);
    return err;
}

/* ---------------------------------------------------------------- wrapper overhead (§2.3) */

/* Spec 2.3, calibration: the wrapper path of each class (send, receive with a status, other)
 * run AC_CAL_REPS times with the PMPI_ call replaced by nothing, on MPI_COMM_SELF; entry = the
 * t_in stamp minus a clock read just before the path, exit = a clock read just after it minus
 * the t_out stamp; the medians (robust to a preemption or an interrupt in a few runs) go to the
 * file ("#wrap", ac_trace_set_wrap) and autocoll-report subtracts them from the pure inter-send
 * times. The identifier maps, the communicator table and the receive serial are set aside and
 * restored, and the ring's write position is put back (nothing is recorded before, this runs
 * in MPI_Init), so the run's records and dense ids are those without the calibration; the one
 * call site of the calibration stays in the file's string table, indexed by no record. The
 * path is the real one (begin, ident_*, end: locks, hash lookups, the site lookup, the ring
 * push), only warm: a first call on a communicator also translates its group, which is not
 * counted. Not measured: the call into the wrapper itself (a PLT call, a few ns), and the
 * completion bookkeeping of waits and tests on traced MPI_Irecv requests. Cost at MPI_Init:
 * 3 x AC_CAL_REPS paths, under a millisecond. */
enum { AC_CAL_REPS = 1001 };

void ac_trace_p2p_calibrate(void) {
    if (!on()) return;
    double *ein = malloc(AC_CAL_REPS * sizeof *ein), *eout = malloc(AC_CAL_REPS * sizeof *eout);
    if (!ein || !eout) {
        free(ein);
        free(eout);
        return;
    }
    pthread_mutex_lock(&mtx);
    ac_intern_t s_send = ids_send, s_recv = ids_recv, s_comm = ids_comm, s_gens = gens;
    cinfo_t *s_cis = cis;
    size_t s_ncis = ncis;
    uint32_t s_serial = serial;
    memset(&ids_send, 0, sizeof ids_send);
    memset(&ids_recv, 0, sizeof ids_recv);
    memset(&ids_comm, 0, sizeof ids_comm);
    memset(&gens, 0, sizeof gens);
    cis = NULL;
    ncis = 0;
    pthread_mutex_unlock(&mtx);
    uint64_t next = atomic_load(&ac_trace_g.next);
    double in[AC_WRAP_NCLASS], out[AC_WRAP_NCLASS];
    char buf[8];
    for (int cls = 0; cls < AC_WRAP_NCLASS; cls++) {
        for (int k = 0; k < AC_CAL_REPS; k++) {
            ac_trace_rec_t r;
            MPI_Status st;
            memset(&st, 0, sizeof st);
            int64_t ta = ac_trace_now();
            pthread_mutex_lock(&mtx);
            uint32_t id = UINT32_MAX;
            if (cls == AC_WRAP_SEND) {
                begin(&r, AC_TK_SEND, 0, 1, 1, MPI_BYTE, MPI_COMM_SELF, SITE);
                ident_send(&r, 0, MPI_COMM_SELF);
            } else if (cls == AC_WRAP_RECV) {
                id = begin(&r, AC_TK_RECV, 0, 1, 1, MPI_BYTE, MPI_COMM_SELF, SITE);
                ident_recv(&r, buf, 1, MPI_BYTE, 0, 1, MPI_COMM_SELF);
            } else {
                begin(&r, AC_TK_WAIT, AC_TRACE_NONE, AC_TRACE_NONE, 0, MPI_DATATYPE_NULL,
                      MPI_COMM_NULL, SITE);
            }
            pthread_mutex_unlock(&mtx);
            int64_t t_in = ac_trace_now();
            end(&r, t_in, MPI_SUCCESS, cls == AC_WRAP_SEND ? NULL : &st, id);
            int64_t tb = ac_trace_now();
            ein[k] = (double)(t_in - ta);
            eout[k] = (double)(tb - r.t_out);
        }
        qsort(ein, AC_CAL_REPS, sizeof *ein, ac_dbl_cmp);
        qsort(eout, AC_CAL_REPS, sizeof *eout, ac_dbl_cmp);
        in[cls] = ein[AC_CAL_REPS / 2];
        out[cls] = eout[AC_CAL_REPS / 2];
    }
    atomic_store(&ac_trace_g.next, next); /* the calibration's records are not the run's */
    pthread_mutex_lock(&mtx);
    ac_intern_free(&ids_send);
    ac_intern_free(&ids_recv);
    ac_intern_free(&ids_comm);
    ac_intern_free(&gens);
    for (size_t i = 0; i < ncis; i++)
        free(cis[i].world);
    free(cis);
    ids_send = s_send;
    ids_recv = s_recv;
    ids_comm = s_comm;
    gens = s_gens;
    cis = s_cis;
    ncis = s_ncis;
    serial = s_serial;
    pthread_mutex_unlock(&mtx);
    free(ein);
    free(eout);
    ac_trace_set_wrap(in, out);
}

void ac_trace_p2p_free(void) {
    pthread_mutex_lock(&mtx);
    ac_intern_free(&ids_send);
    ac_intern_free(&ids_recv);
    ac_intern_free(&ids_comm);
    ac_intern_free(&gens);
    ac_intern_free(&counts);
    for (size_t i = 0; i < ncis; i++)
        free(cis[i].world);
    free(cis);
    cis = NULL;
    ncis = 0;
    free(pt);
    pt = NULL;
    pcap = pn = 0;
    free(ps);
    ps = NULL;
    scap = sn = 0;
    int fin = 0;
    PMPI_Finalized(&fin);
    if (wgrp != MPI_GROUP_NULL && !fin) PMPI_Group_free(&wgrp);
    wgrp = MPI_GROUP_NULL;
    pthread_mutex_unlock(&mtx);
}
