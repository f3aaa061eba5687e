/*
 * Call tracing: the ring of records, the settings, interned instance and call-site ids, and the
 * trace file (writer and validating reader).
 *
 * Sources: seed 004 §2.1–§2.2 (spec predictors-latency.md §2.1 events, §2.2 identifiers and
 * call-site tags normalised with dladdr), seed 000 §4.2.2.3 (spec star-stage-ethernet.md §6.2:
 * records kept in memory, one log per rank written at the end), issue 20 (settings, bounded
 * memory, file per rank in AUTOCOLL_TRACE_DIR).
 *
 * Design choices that matter:
 * - Fixed memory: the ring (AUTOCOLL_TRACE_RECORDS records) and the id tables (AC_TRACE_MAX_IDS
 *   entries, a hash map of twice that size) are allocated at init. A full ring overwrites its
 *   oldest record and counts a drop; a full id table gives AC_TRACE_NOID and counts a lost id.
 *   Nothing grows on the call path, and the only lock is taken the first time an instance or a
 *   site is seen (the map is insert-only, read without a lock: see map_find).
 * - Ids: instances and call sites share one id space (the index of the entry), so that in the
 *   file both index the same string table. An instance is keyed by its algorithm record and a
 *   64-bit hash of its parameter values (no formatting on a hit; distinct instances sharing a
 *   hash would share a name, with odds of about 2^-64 per pair); a site by its address. Sites
 *   are turned into "module+0xoffset" (dladdr) only when the file is written, so they are stable
 *   across runs under address-space randomisation (spec 2.2).
 * - File: native byte order with a byte-order mark (the reader swaps when needed), fixed header
 *   of 128 bytes, records as they are in memory, then the strings; an FNV-1a 64 checksum covers
 *   everything. The reader validates sizes, checksum and every field, and never trusts a length
 *   before checking it against the bytes present (docs/tracing.md, byte by byte).
 * Complexity: a record is O(1); writing is O(records + strings); reading is O(file size).
 */
#include "trace.h"
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

unsigned ac_trace_mask;
ac_trace_ring_t ac_trace_g;

/* ---------------------------------------------------------------- ring */

int ac_trace_ring_init(ac_trace_ring_t *r, uint64_t cap) {
    r->rec = NULL;
    r->cap = r->mask = 0;
    atomic_store(&r->next, 0);
    if (cap == 0 || cap > SIZE_MAX / sizeof(ac_trace_rec_t)) return -1;
    r->rec = calloc((size_t)cap, sizeof(ac_trace_rec_t));
    if (!r->rec) return -1;
    /* Touch every page now: the first write to a fresh page is a page fault (a few us), which
     * would otherwise land on the traced calls, about 50 ns per record over the first pass of
     * the default ring (docs/tracing.md, cost). */
    volatile char *b = (volatile char *)r->rec;
    for (size_t off = 0; off < (size_t)cap * sizeof(ac_trace_rec_t); off += 4096)
        b[off] = 0;
    r->cap = cap;
    r->mask = cap & (cap - 1) ? 0 : cap - 1;
    return 0;
}

void ac_trace_ring_free(ac_trace_ring_t *r) {
    free(r->rec);
    r->rec = NULL;
    r->cap = r->mask = 0;
    atomic_store(&r->next, 0);
}

uint64_t ac_trace_ring_count(const ac_trace_ring_t *r) {
    uint64_t n = atomic_load(&((ac_trace_ring_t *)r)->next);
    return n < r->cap ? n : r->cap;
}

uint64_t ac_trace_ring_drops(const ac_trace_ring_t *r) {
    uint64_t n = atomic_load(&((ac_trace_ring_t *)r)->next);
    return n > r->cap ? n - r->cap : 0;
}

const ac_trace_rec_t *ac_trace_ring_at(const ac_trace_ring_t *r, uint64_t i) {
    /* The oldest record held is number drops (mod cap). */
    return &r->rec[ac_trace_ring_slot(r, ac_trace_ring_drops(r) + i)];
}

/* ---------------------------------------------------------------- settings */

static void errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Appends one message to err (truncated when it does not fit). */
static void errf(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || errlen == 0) return;
    size_t used = strnlen(err, errlen);
    if (used >= errlen - 1) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + used, errlen - used, fmt, ap);
    va_end(ap);
}

static int word_is(const char *s, size_t n, const char *w) {
    return strlen(w) == n && strncasecmp(s, w, n) == 0;
}

int ac_trace_cfg_parse(ac_trace_cfg_t *c, const char *trace, const char *records, const char *dir,
                       char *err, size_t errlen) {
    int bad = 0;
    if (err && errlen) err[0] = '\0';
    c->mask = 0;
    c->records = AC_TRACE_RECORDS_DEFAULT;
    snprintf(c->dir, sizeof c->dir, ".");

    /* AUTOCOLL_TRACE: one word or a comma-separated list of words. */
    if (trace && *trace) {
        unsigned m = 0;
        const char *p = trace;
        int ok = 1;
        while (ok) {
            const char *e = strchr(p, ',');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            while (n && (*p == ' ' || *p == '\t'))
                p++, n--;
            while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
                n--;
            if (word_is(p, n, "collectives") || word_is(p, n, "coll"))
                m |= AC_TRACE_COLL;
            else if (word_is(p, n, "p2p"))
                m |= AC_TRACE_P2P;
            else if (word_is(p, n, "all"))
                m |= AC_TRACE_COLL | AC_TRACE_P2P;
            else if (!(word_is(p, n, "off") || word_is(p, n, "none") || word_is(p, n, "0")))
                ok = 0;
            if (!e) break;
            p = e + 1;
        }
        if (ok) {
            c->mask = m;
        } else {
            errf(err, errlen,
                 "AUTOCOLL_TRACE='%.200s': expected collectives, p2p, all or off; tracing off\n",
                 trace);
            bad++;
        }
    }

    if (records && *records) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(records, &end, 10);
        while (end && (*end == ' ' || *end == '\t'))
            end++;
        if (errno || end == records || *end || records[0] == '-' || v < AC_TRACE_RECORDS_MIN ||
            v > AC_TRACE_RECORDS_MAX) {
            errf(err, errlen,
                 "AUTOCOLL_TRACE_RECORDS='%.200s': expected an integer in [%d, %d]; using %d\n",
                 records, AC_TRACE_RECORDS_MIN, AC_TRACE_RECORDS_MAX, AC_TRACE_RECORDS_DEFAULT);
            bad++;
        } else {
            c->records = v;
        }
    }

    if (dir && *dir) {
        if (strlen(dir) >= sizeof c->dir - 40) { /* room for "/autocoll-trace.<rank>.bin.tmp" */
            errf(err, errlen, "AUTOCOLL_TRACE_DIR: path too long (%zu bytes); tracing off\n",
                 strlen(dir));
            c->mask = 0;
            bad++;
        } else {
            snprintf(c->dir, sizeof c->dir, "%s", dir);
        }
    }
    return bad;
}

/* ---------------------------------------------------------------- interned ids */

/* One id: an instance name (s) or a call site (site, s made at write time). */
typedef struct {
    char *s;
    const void *site;
} id_entry_t;

enum { MAP_SLOTS = 2 * AC_TRACE_MAX_IDS };

static struct {
    pthread_mutex_t mtx;
    id_entry_t *ent;       /* AC_TRACE_MAX_IDS */
    _Atomic uint64_t *key; /* MAP_SLOTS keys (0 = empty) */
    uint32_t *val;         /* MAP_SLOTS ids */
    uint32_t n;
    uint32_t lost;
    int rank, nprocs;
    unsigned flags;
    ac_trace_clock_t clock[2];
    double alpha, beta; /* network model (ac_trace_set_net), 0: none */
    double wrap_in[AC_WRAP_NCLASS], wrap_out[AC_WRAP_NCLASS]; /* ac_trace_set_wrap */
    int wrap;                                                 /* set */
    ac_trace_cfg_t cfg;
} T = {.mtx = PTHREAD_MUTEX_INITIALIZER};

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}
#define FNV_INIT 14695981039346656037ULL

/* One 64-bit word into a hash (multiply and fold: a few cycles, unlike a byte-wise loop). */
static uint64_t mix(uint64_t h, uint64_t w) {
    h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
    return h ^ (h >> 29);
}

static uint64_t inst_key(const ac_inst_t *in) {
    uint64_t h = mix(FNV_INIT ^ 2, (uint64_t)(uintptr_t)in->alg);
    for (int k = 0; k < in->alg->nparam; k++) {
        const ac_pval_t *v = &in->val[k];
        switch (in->alg->param[k].type) {
        case AC_PT_INT:
            h = mix(h, (uint64_t)v->i);
            break;
        case AC_PT_ALG:
            h = mix(h, (uint64_t)(uintptr_t)v->alg);
            break;
        default:
            h = mix(h, fnv(FNV_INIT, v->s, strnlen(v->s, sizeof v->s)));
            break;
        }
    }
    return h ? h : 1;
}

static uint64_t site_key(const void *site) {
    uint64_t h = mix(FNV_INIT ^ 1, (uint64_t)(uintptr_t)site);
    return h ? h : 1;
}

/* Lock-free lookup: the map only grows (until ac_trace_finalize), and an insertion stores the
 * id before publishing the key (release), so a reader that sees the key (acquire) sees its id.
 * AC_TRACE_NOID when absent. */
static uint32_t map_find(uint64_t key) {
    if (!T.key) return AC_TRACE_NOID;
    uint32_t slot = (uint32_t)(key % MAP_SLOTS);
    for (;;) {
        uint64_t k = atomic_load_explicit(&T.key[slot], memory_order_acquire);
        if (k == key) return T.val[slot];
        if (k == 0) return AC_TRACE_NOID;
        slot = (slot + 1) % MAP_SLOTS;
    }
}

/* Id of key, created on a miss (an instance name formatted from in, or a site); AC_TRACE_NOID
 * when full. Lock held. */
static uint32_t map_get(uint64_t key, const ac_inst_t *in, const void *site) {
    if (!T.key) return AC_TRACE_NOID;
    uint32_t slot = (uint32_t)(key % MAP_SLOTS);
    for (;;) {
        uint64_t k = atomic_load_explicit(&T.key[slot], memory_order_relaxed);
        if (k == key) return T.val[slot];
        if (k == 0) break;
        slot = (slot + 1) % MAP_SLOTS;
    }
    if (T.n >= AC_TRACE_MAX_IDS) {
        T.lost++;
        return AC_TRACE_NOID;
    }
    id_entry_t *e = &T.ent[T.n];
    e->s = NULL;
    e->site = site;
    if (in) {
        char name[AC_STR_LEN + 2 * AC_NAME_LEN];
        ac_inst_format(in, name, sizeof name);
        e->s = strdup(name);
        if (!e->s) {
            T.lost++;
            return AC_TRACE_NOID;
        }
    }
    T.val[slot] = T.n;
    atomic_store_explicit(&T.key[slot], key, memory_order_release);
    return T.n++;
}

void ac_trace_ids(const ac_inst_t *in, const void *site, uint32_t *inst_id, uint32_t *site_id) {
    uint64_t ik = in && in->alg ? inst_key(in) : 0, sk = site ? site_key(site) : 0;
    uint32_t i = ik ? map_find(ik) : AC_TRACE_NOID, s = sk ? map_find(sk) : AC_TRACE_NOID;
    if ((ik && i == AC_TRACE_NOID) || (sk && s == AC_TRACE_NOID)) { /* first sight: insert */
        pthread_mutex_lock(&T.mtx);
        if (ik) i = map_get(ik, in, NULL);
        if (sk) s = map_get(sk, NULL, site);
        pthread_mutex_unlock(&T.mtx);
    }
    if (inst_id) *inst_id = i;
    if (site_id) *site_id = s;
}

/* Per-thread caches of ids (ac_trace_site_id, ac_trace_alg_id): direct-mapped, each entry valid
 * for one set of ids (ids_free starts the next, so a restarted tracer never reads stale ids). */
enum { ID_CACHE = 64 };
typedef struct {
    const void *ptr;
    uint32_t id;
    unsigned epoch;
} id_cached_t;
static _Atomic unsigned ids_epoch = 1;

static id_cached_t *cache_slot(id_cached_t *c, const void *ptr, unsigned *epoch) {
    *epoch = atomic_load_explicit(&ids_epoch, memory_order_relaxed);
    return &c[((uintptr_t)ptr >> 3) % ID_CACHE];
}

uint32_t ac_trace_site_id(const void *site) {
    static AC_TLS id_cached_t c[ID_CACHE];
    unsigned e;
    id_cached_t *x = cache_slot(c, site, &e);
    if (x->ptr == site && x->epoch == e && site) return x->id;
    uint32_t id;
    ac_trace_ids(NULL, site, NULL, &id);
    if (id != AC_TRACE_NOID) *x = (id_cached_t){site, id, e};
    return id;
}

uint32_t ac_trace_alg_id(const ac_alg_t *alg) {
    static AC_TLS id_cached_t c[ID_CACHE];
    unsigned e;
    id_cached_t *x = cache_slot(c, alg, &e);
    if (x->ptr == alg && x->epoch == e) return x->id;
    ac_inst_t in;
    in.alg = alg; /* no parameters: nothing else is read */
    uint32_t id;
    ac_trace_ids(&in, NULL, &id, NULL);
    if (id != AC_TRACE_NOID) *x = (id_cached_t){alg, id, e};
    return id;
}

static void ids_free(void) {
    atomic_fetch_add_explicit(&ids_epoch, 1, memory_order_relaxed);
    if (T.ent)
        for (uint32_t i = 0; i < T.n; i++)
            free(T.ent[i].s);
    free(T.ent);
    free((void *)T.key);
    free(T.val);
    T.ent = NULL;
    T.key = NULL;
    T.val = NULL;
    T.n = T.lost = 0;
}

/* ---------------------------------------------------------------- process-wide tracer */

/* ---------------------------------------------------------------- time-stamp counter */

ac_trace_tsc_t ac_trace_tsc;

void ac_trace_tsc_off(void) {
    ac_trace_tsc.mult = 0;
}

#if defined(__x86_64__) && !defined(AC_SMPI)
#include <cpuid.h>
/* One (counter, CLOCK_MONOTONIC) pair: of 8 tries, the one whose two counter reads around the
 * clock read are closest; the counter value is their middle. */
static void tsc_pair(uint64_t *tsc, int64_t *ns) {
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 8; i++) {
        uint64_t a = __builtin_ia32_rdtsc();
        int64_t t = ac_trace_mono();
        uint64_t b = __builtin_ia32_rdtsc();
        if (b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *ns = t;
        }
    }
}
#endif

int ac_trace_tsc_calibrate(void) {
    ac_trace_tsc.mult = 0;
#if defined(__x86_64__) && !defined(AC_SMPI)
    unsigned a, b, c, d;
    /* Invariant counter (CPUID 0x80000007, EDX bit 8): constant rate in every power state. */
    if (!__get_cpuid(0x80000007u, &a, &b, &c, &d) || !(d & (1u << 8))) return 0;
    uint64_t t0, t1;
    int64_t n0, n1;
    tsc_pair(&t0, &n0);
    do {
        tsc_pair(&t1, &n1);
    } while (n1 - n0 < 10000000); /* 10 ms: a bracket of ~20 ns is a 2e-6 rate error */
    if (t1 <= t0) return 0;
    double m = (double)(n1 - n0) / (double)(t1 - t0) * 4294967296.0;
    if (!(m >= 1) || m >= 4294967296.0) return 0;
    ac_trace_tsc.tsc0 = t1;
    ac_trace_tsc.ns0 = n1;
    ac_trace_tsc.mult = (uint64_t)(m + 0.5);
    return 1;
#else
    return 0;
#endif
}

int ac_trace_init_cfg(const ac_trace_cfg_t *c, int rank, int nprocs, char *err, size_t errlen) {
    ac_trace_mask = 0;
    if (err && errlen) err[0] = '\0';
    if (!c->mask) return 0;
    /* Checked now rather than at the end of the run, when nothing can be done about it. */
    struct stat st;
    if (stat(c->dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(c->dir, W_OK | X_OK) != 0) {
        errf(err, errlen, "AUTOCOLL_TRACE_DIR='%.400s': %s; tracing off\n", c->dir,
             stat(c->dir, &st) != 0 ? strerror(errno)
             : !S_ISDIR(st.st_mode) ? "not a directory"
                                    : "not writable");
        return -1;
    }
    T.cfg = *c;
    T.rank = rank;
    T.nprocs = nprocs;
    T.flags = 0;
    for (int i = 0; i < 2; i++)
        T.clock[i] = (ac_trace_clock_t){0, 0, -1};
    T.ent = calloc(AC_TRACE_MAX_IDS, sizeof *T.ent);
    T.key = calloc(MAP_SLOTS, sizeof *T.key);
    T.val = calloc(MAP_SLOTS, sizeof *T.val);
    if (!T.ent || !T.key || !T.val || ac_trace_ring_init(&ac_trace_g, c->records) != 0) {
        ids_free();
        ac_trace_ring_free(&ac_trace_g);
        errf(err, errlen, "tracing: cannot allocate %llu records of %zu bytes; tracing off\n",
             (unsigned long long)c->records, sizeof(ac_trace_rec_t));
        return -1;
    }
    ac_trace_tsc_calibrate(); /* before the first time stamp of the run */
    ac_trace_mask = c->mask;  /* last: call sites see a ready ring */
    return 0;
}

void ac_trace_log_lines(const char *msg) {
    while (msg && *msg) {
        size_t n = strcspn(msg, "\n");
        if (n) ac_log("%.*s", (int)n, msg);
        msg += n + (msg[n] == '\n');
    }
}

void ac_trace_set_clock(int which, double at, double offset, double residual) {
    if (which < 0 || which > 1) return;
    T.clock[which].at = ac_trace_ns(at);
    T.clock[which].offset = ac_trace_ns(offset);
    T.clock[which].residual = residual < 0 ? -1 : ac_trace_ns(residual);
}

void ac_trace_set_global_clock(void) {
    T.flags |= AC_TRACE_FLAG_GLOBAL_CLOCK;
    for (int i = 0; i < 2; i++)
        T.clock[i] = (ac_trace_clock_t){0, 0, 0};
}

/* "module+0xoffset" of a code address, or its raw value when dladdr does not know it. */
static void site_name(const void *site, char *buf, size_t len) {
    Dl_info di;
    if (dladdr(site, &di) && di.dli_fname && di.dli_fbase) {
        const char *base = strrchr(di.dli_fname, '/');
        base = base ? base + 1 : di.dli_fname;
        snprintf(buf, len, "%s+0x%lx", *base ? base : "?",
                 (unsigned long)((uintptr_t)site - (uintptr_t)di.dli_fbase));
    } else {
        snprintf(buf, len, "0x%lx", (unsigned long)(uintptr_t)site);
    }
}

int ac_trace_id_string(uint32_t id, char *buf, size_t len) {
    if (!len) return -1;
    buf[0] = '\0';
    pthread_mutex_lock(&T.mtx);
    int rc = -1;
    if (T.ent && id < T.n) {
        if (T.ent[id].s)
            snprintf(buf, len, "%s", T.ent[id].s);
        else
            site_name(T.ent[id].site, buf, len);
        rc = 0;
    }
    pthread_mutex_unlock(&T.mtx);
    return rc;
}

void ac_trace_get_clock(ac_trace_clock_t c[2]) {
    c[0] = T.clock[0];
    c[1] = T.clock[1];
}

void ac_trace_set_net(double alpha, double beta) {
    T.alpha = alpha;
    T.beta = beta;
}

void ac_trace_set_wrap(const double entry[AC_WRAP_NCLASS], const double exit[AC_WRAP_NCLASS]) {
    for (int c = 0; c < AC_WRAP_NCLASS; c++) {
        T.wrap_in[c] = entry[c];
        T.wrap_out[c] = exit[c];
    }
    T.wrap = 1;
}

int ac_trace_wrap_class(int kind) {
    if (kind >= AC_TK_SEND && kind <= AC_TK_IRSEND) return AC_WRAP_SEND;
    if (kind == AC_TK_SENDRECV || kind == AC_TK_SENDRECV_REPLACE) return AC_WRAP_SEND;
    if (kind == AC_TK_RECV || kind == AC_TK_IRECV) return AC_WRAP_RECV;
    if (kind >= AC_TK_P2P_FIRST && kind < AC_TK_P2P_END && kind != AC_TK_RECV_DONE)
        return AC_WRAP_OTHER;
    return -1;
}

int ac_trace_file_wrap(const ac_trace_file_t *t, double entry[AC_WRAP_NCLASS],
                       double exit[AC_WRAP_NCLASS]) {
    for (int c = 0; c < AC_WRAP_NCLASS; c++)
        entry[c] = exit[c] = 0;
    for (uint32_t i = 0; i < t->nstr; i++) {
        double v[6];
        if (sscanf(t->str[i], "#wrap send=%lg/%lg recv=%lg/%lg other=%lg/%lg", &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5]) != 6)
            continue;
        int ok = 1;
        for (int k = 0; k < 6; k++)
            ok &= isfinite(v[k]) && v[k] >= 0 && v[k] < 1e9;
        if (!ok) continue;
        for (int c = 0; c < AC_WRAP_NCLASS; c++) {
            entry[c] = v[2 * c];
            exit[c] = v[2 * c + 1];
        }
        return 0;
    }
    return -1;
}

int ac_trace_file_net(const ac_trace_file_t *t, double *alpha, double *beta) {
    for (uint32_t i = 0; i < t->nstr; i++)
        if (sscanf(t->str[i], "#net alpha=%lg beta=%lg", alpha, beta) == 2 && *alpha >= 0 &&
            *beta >= 0)
            return 0;
    return -1;
}

int ac_trace_flush(char *err, size_t errlen) {
    if (err && errlen) err[0] = '\0';
    if (!ac_trace_g.rec) {
        errf(err, errlen, "tracing is off: nothing to write");
        return -1;
    }
    char path[sizeof T.cfg.dir + 64];
    snprintf(path, sizeof path, "%s/autocoll-trace.%d.bin", T.cfg.dir, T.rank);
    pthread_mutex_lock(&T.mtx);
    uint32_t n = T.n;
    char **str = calloc(n + 2, sizeof *str), net[96], wrap[160];
    int rc = -1;
    if (!str) {
        errf(err, errlen, "%s: out of memory", path);
        goto fn_exit;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (T.ent[i].s) {
            str[i] = T.ent[i].s;
        } else {
            char b[600];
            site_name(T.ent[i].site, b, sizeof b);
            T.ent[i].s = strdup(b); /* kept: a later flush reuses it */
            if (!T.ent[i].s) {
                errf(err, errlen, "%s: out of memory", path);
                goto fn_exit;
            }
            str[i] = T.ent[i].s;
        }
    }
    if (T.alpha > 0) { /* the network model of the arrival factors: a string no record uses */
        snprintf(net, sizeof net, "#net alpha=%.9g beta=%.9g", T.alpha, T.beta);
        str[n++] = net;
    }
    if (T.wrap) { /* the calibrated wrapper overheads (spec 2.3) */
        snprintf(wrap, sizeof wrap, "#wrap send=%.1f/%.1f recv=%.1f/%.1f other=%.1f/%.1f",
                 T.wrap_in[0], T.wrap_out[0], T.wrap_in[1], T.wrap_out[1], T.wrap_in[2],
                 T.wrap_out[2]);
        str[n++] = wrap;
    }
    ac_trace_meta_t m = {.rank = T.rank,
                         .nprocs = T.nprocs,
                         .mask = T.cfg.mask,
                         .flags = T.flags,
                         .lost_ids = T.lost,
                         .clock = {T.clock[0], T.clock[1]}};
    rc = ac_trace_write_file(path, &m, &ac_trace_g, (const char *const *)str, n, err, errlen);
fn_exit:
    pthread_mutex_unlock(&T.mtx);
    free(str);
    return rc;
}

void ac_trace_abandon(void) {
    ac_trace_mask = 0;
    pthread_mutex_lock(&T.mtx);
    ids_free();
    pthread_mutex_unlock(&T.mtx);
    ac_trace_ring_free(&ac_trace_g);
}

void ac_trace_finalize(void) {
    if (!ac_trace_g.rec) return;
    char err[1024];
    if (ac_trace_flush(err, sizeof err) != 0) ac_trace_log_lines(err);
    ac_trace_mask = 0;
    pthread_mutex_lock(&T.mtx);
    ids_free();
    pthread_mutex_unlock(&T.mtx);
    ac_trace_ring_free(&ac_trace_g);
}

/* ---------------------------------------------------------------- kinds */

static const char *const p2p_names[AC_TK_P2P_END - AC_TK_P2P_FIRST] = {
    "send",     "ssend",    "bsend",   "rsend",    "isend",    "issend",
    "ibsend",   "irsend",   "recv",    "irecv",    "sendrecv", "sendrecv_replace",
    "start",    "startall", "wait",    "waitall",  "waitany",  "waitsome",
    "test",     "testall",  "testany", "testsome", "probe",    "iprobe",
    "recv_done"};

const char *ac_trace_kind_name(int kind) {
    if (kind >= 0 && kind < AUTOCOLL_NCOLL) return ac_coll_name(kind);
    if (kind >= AC_TK_P2P_FIRST && kind < AC_TK_P2P_END) return p2p_names[kind - AC_TK_P2P_FIRST];
    static const char *const stage_names[AC_TK_STAGE_END - AC_TK_STAGE_FIRST] = {
        "tree_rank", "tree_vertex", "tree_child", "part_tree", "part_child", "part_step"};
    if (kind >= AC_TK_STAGE_FIRST && kind < AC_TK_STAGE_END)
        return stage_names[kind - AC_TK_STAGE_FIRST];
    return NULL;
}

/* ---------------------------------------------------------------- file format */

enum { ENDIAN_MARK = 0x01020304u };

/* Header field offsets (docs/tracing.md). */
enum {
    H_MAGIC = 0,
    H_VERSION = 8,
    H_ENDIAN = 12,
    H_HDRBYTES = 16,
    H_RECBYTES = 20,
    H_RANK = 24,
    H_NPROCS = 28,
    H_MASK = 32,
    H_FLAGS = 36,
    H_NREC = 40,
    H_DROPS = 48,
    H_NSTR = 56,
    H_LOST = 60,
    H_STRBYTES = 64,
    H_CLOCK = 72, /* 2 x (at, offset, residual), 8 bytes each */
    H_CHECKSUM = 120
};
_Static_assert(H_CLOCK + 6 * 8 == H_CHECKSUM, "clock block ends at the checksum");
_Static_assert(H_CHECKSUM + 8 == AC_TRACE_HEADER_BYTES, "header is 128 bytes");

/* The checksum: FNV-1a 64 over the header without its last 8 bytes, then the rest. */
static uint64_t file_checksum(const unsigned char *b, size_t len) {
    uint64_t h = fnv(FNV_INIT, b, H_CHECKSUM);
    return fnv(h, b + AC_TRACE_HEADER_BYTES, len - AC_TRACE_HEADER_BYTES);
}

static void put32(unsigned char *b, size_t off, uint32_t v) {
    memcpy(b + off, &v, 4);
}
static void put64(unsigned char *b, size_t off, uint64_t v) {
    memcpy(b + off, &v, 8);
}

int ac_trace_write_file(const char *path, const ac_trace_meta_t *m, const ac_trace_ring_t *r,
                        const char *const *str, uint32_t nstr, char *err, size_t errlen) {
    if (err && errlen) err[0] = '\0';
    uint64_t nrec = ac_trace_ring_count(r), drops = ac_trace_ring_drops(r);
    uint64_t strbytes = 0;
    for (uint32_t i = 0; i < nstr; i++)
        strbytes += 4 + strlen(str[i]);
    unsigned char h[AC_TRACE_HEADER_BYTES];
    memset(h, 0, sizeof h);
    memcpy(h + H_MAGIC, AC_TRACE_MAGIC, 8);
    put32(h, H_VERSION, AC_TRACE_VERSION);
    put32(h, H_ENDIAN, ENDIAN_MARK);
    put32(h, H_HDRBYTES, AC_TRACE_HEADER_BYTES);
    put32(h, H_RECBYTES, sizeof(ac_trace_rec_t));
    put32(h, H_RANK, (uint32_t)m->rank);
    put32(h, H_NPROCS, (uint32_t)m->nprocs);
    put32(h, H_MASK, m->mask);
    put32(h, H_FLAGS, m->flags);
    put64(h, H_NREC, nrec);
    put64(h, H_DROPS, drops);
    put32(h, H_NSTR, nstr);
    put32(h, H_LOST, m->lost_ids);
    put64(h, H_STRBYTES, strbytes);
    for (int i = 0; i < 2; i++) {
        put64(h, H_CLOCK + 24 * i, (uint64_t)m->clock[i].at);
        put64(h, H_CLOCK + 24 * i + 8, (uint64_t)m->clock[i].offset);
        put64(h, H_CLOCK + 24 * i + 16, (uint64_t)m->clock[i].residual);
    }
    /* Checksum while writing: header part first, the body as it goes out. */
    uint64_t ck = fnv(FNV_INIT, h, H_CHECKSUM);
    for (uint64_t i = 0; i < nrec; i++)
        ck = fnv(ck, ac_trace_ring_at(r, i), sizeof(ac_trace_rec_t));
    for (uint32_t i = 0; i < nstr; i++) {
        uint32_t n = (uint32_t)strlen(str[i]);
        ck = fnv(ck, &n, 4);
        ck = fnv(ck, str[i], n);
    }
    put64(h, H_CHECKSUM, ck);

    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp) {
        errf(err, errlen, "%s: path too long", path);
        return -1;
    }
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        errf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
        return -1;
    }
    int ok = fwrite(h, sizeof h, 1, f) == 1;
    for (uint64_t i = 0; ok && i < nrec; i++)
        ok = fwrite(ac_trace_ring_at(r, i), sizeof(ac_trace_rec_t), 1, f) == 1;
    for (uint32_t i = 0; ok && i < nstr; i++) {
        uint32_t n = (uint32_t)strlen(str[i]);
        ok = fwrite(&n, 4, 1, f) == 1 && (n == 0 || fwrite(str[i], n, 1, f) == 1);
    }
    int e = errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        errf(err, errlen, "%s: write failed: %s", tmp, strerror(e));
        remove(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        errf(err, errlen, "%s: cannot rename to %s: %s", tmp, path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- reader */

typedef struct {
    const unsigned char *b;
    int swap;
} rd_t;

static uint32_t get32(const rd_t *r, size_t off) {
    uint32_t v;
    memcpy(&v, r->b + off, 4);
    return r->swap ? __builtin_bswap32(v) : v;
}
static uint64_t get64(const rd_t *r, size_t off) {
    uint64_t v;
    memcpy(&v, r->b + off, 8);
    return r->swap ? __builtin_bswap64(v) : v;
}
static uint16_t get16(const rd_t *r, size_t off) {
    uint16_t v;
    memcpy(&v, r->b + off, 2);
    return r->swap ? __builtin_bswap16(v) : v;
}

/* Decodes a record field by field (in the writer's byte order) at off. */
static void decode_rec(const rd_t *r, size_t off, ac_trace_rec_t *x) {
#define F64(f) x->f = (__typeof__(x->f))get64(r, off + offsetof(ac_trace_rec_t, f))
#define F32(f) x->f = (__typeof__(x->f))get32(r, off + offsetof(ac_trace_rec_t, f))
#define F16(f) x->f = (__typeof__(x->f))get16(r, off + offsetof(ac_trace_rec_t, f))
#define F8(f) x->f = r->b[off + offsetof(ac_trace_rec_t, f)]
    F64(t_in);
    F64(t_out);
    F64(bytes);
    F64(seq);
    F32(comm);
    F32(site);
    F32(inst);
    F32(root);
    F32(peer);
    F32(tag);
    F32(ident);
    F32(count);
    F16(kind);
    F16(alg);
    F8(src);
    F8(flags);
    F16(reserved);
    F32(status_source);
    F32(status_tag);
#undef F64
#undef F32
#undef F16
#undef F8
}

enum { KNOWN_FLAGS = (1u << 6) - 1, MAX_SRC = 32 };

/* The format-2 fields of a point-to-point record (docs/tracing.md): root is the peer's world
 * rank, inst the status source's world rank (receives with a status) or the serial number of a
 * nonblocking receive (irecv, a start of a persistent receive, recv_done). NULL when valid. */
static const char *check_p2p(const ac_trace_rec_t *x, int32_t np, char *why, size_t len) {
    int k = x->kind;
    if (x->root != AC_TRACE_NONE && (x->root < 0 || x->root >= np))
        snprintf(why, len, "peer world rank %d out of range (%d processes)", x->root, np);
    else if ((k == AC_TK_RECV || k == AC_TK_SENDRECV || k == AC_TK_SENDRECV_REPLACE) &&
             x->inst != AC_TRACE_NOID && x->inst >= (uint32_t)np)
        snprintf(why, len, "status source world rank %u out of range (%d processes)", x->inst, np);
    else if (k != AC_TK_RECV && k != AC_TK_SENDRECV && k != AC_TK_SENDRECV_REPLACE &&
             k != AC_TK_IRECV && k != AC_TK_RECV_DONE &&
             !((k == AC_TK_START || k == AC_TK_STARTALL) && (x->flags & AC_TF_RECV_SIDE)) &&
             x->inst != AC_TRACE_NOID)
        snprintf(why, len, "%s with an instance or serial %u", ac_trace_kind_name(k), x->inst);
    else
        return NULL;
    return why;
}

/* NULL when x is a valid record of a file with nstr strings and np processes, else the reason
 * (in why). */
static const char *check_rec(const ac_trace_rec_t *x, uint32_t nstr, int32_t np, char *why,
                             size_t len) {
    int k = x->kind;
    int p2p = k >= AC_TK_P2P_FIRST && k < AC_TK_P2P_END;
    if (!ac_trace_kind_name(k))
        snprintf(why, len, "unknown call kind %d", k);
    else if (x->t_out < x->t_in)
        snprintf(why, len, "exit time before entry time (%lld < %lld ns)", (long long)x->t_out,
                 (long long)x->t_in);
    else if (x->site != AC_TRACE_NOID && x->site >= nstr)
        snprintf(why, len, "call-site id %u out of range (%u strings)", x->site, nstr);
    else if (!p2p && x->inst != AC_TRACE_NOID && x->inst >= nstr)
        snprintf(why, len, "instance id %u out of range (%u strings)", x->inst, nstr);
    else if (p2p && check_p2p(x, np, why, len))
        return why;
    else if (x->src != AC_TRACE_NOSRC && x->src >= MAX_SRC)
        snprintf(why, len, "decision source %u out of range", x->src);
    else if (x->flags & ~KNOWN_FLAGS)
        snprintf(why, len, "unknown flags 0x%x", x->flags);
    else if (x->alg < -1)
        snprintf(why, len, "algorithm index %d out of range", x->alg);
    else if (k < AUTOCOLL_NCOLL && ac_coll_rooted(k) && x->root < 0)
        snprintf(why, len, "%s without a root (%d)", ac_coll_name(k), x->root);
    else if (k < AUTOCOLL_NCOLL && !ac_coll_rooted(k) && x->root != AC_TRACE_NONE)
        snprintf(why, len, "%s with a root (%d)", ac_coll_name(k), x->root);
    else if (x->reserved != 0)
        snprintf(why, len, "reserved field is %u, not 0", x->reserved);
    else
        return NULL;
    return why;
}

int ac_trace_parse(const void *buf, size_t len, const char *name, ac_trace_file_t *out, char *err,
                   size_t errlen) {
    memset(out, 0, sizeof *out);
    if (err && errlen) err[0] = '\0';
    const unsigned char *b = buf;
    rd_t r = {b, 0};
    char why[256];
    size_t at = 0; /* offset the message points to */
#define FAIL(off, ...)                                                                             \
    do {                                                                                           \
        at = (off);                                                                                \
        snprintf(why, sizeof why, __VA_ARGS__);                                                    \
        goto fail;                                                                                 \
    } while (0)

    if (!b && len) FAIL(0, "no data");
    if (len < 8 || memcmp(b, AC_TRACE_MAGIC, 8) != 0)
        FAIL(0, "not an autocoll trace file (bad magic)");
    if (len < AC_TRACE_HEADER_BYTES)
        FAIL(len, "truncated header (%zu of %d bytes)", len, AC_TRACE_HEADER_BYTES);
    uint32_t mark;
    memcpy(&mark, b + H_ENDIAN, 4);
    if (mark == ENDIAN_MARK)
        r.swap = 0;
    else if (mark == __builtin_bswap32(ENDIAN_MARK))
        r.swap = 1;
    else
        FAIL(H_ENDIAN, "bad byte-order mark 0x%08x", mark);
    out->byteswapped = r.swap;
    out->version = get32(&r, H_VERSION);
    if (out->version == 1)
        FAIL(H_VERSION,
             "format version 1 not supported (written by an earlier autocoll, without "
             "the point-to-point pairing fields; this reader reads version %d)",
             AC_TRACE_VERSION);
    if (out->version != AC_TRACE_VERSION)
        FAIL(H_VERSION, "format version %u not supported (this reader reads version %d)",
             out->version, AC_TRACE_VERSION);
    if (get32(&r, H_HDRBYTES) != AC_TRACE_HEADER_BYTES)
        FAIL(H_HDRBYTES, "header size %u, expected %d", get32(&r, H_HDRBYTES),
             AC_TRACE_HEADER_BYTES);
    if (get32(&r, H_RECBYTES) != sizeof(ac_trace_rec_t))
        FAIL(H_RECBYTES, "record size %u, expected %zu", get32(&r, H_RECBYTES),
             sizeof(ac_trace_rec_t));
    out->rank = (int32_t)get32(&r, H_RANK);
    out->nprocs = (int32_t)get32(&r, H_NPROCS);
    if (out->nprocs < 1) FAIL(H_NPROCS, "process count %d", out->nprocs);
    if (out->rank < 0 || out->rank >= out->nprocs)
        FAIL(H_RANK, "rank %d out of range (%d processes)", out->rank, out->nprocs);
    out->mask = get32(&r, H_MASK);
    if (out->mask & ~(unsigned)(AC_TRACE_COLL | AC_TRACE_P2P))
        FAIL(H_MASK, "unknown trace mask 0x%x", out->mask);
    out->flags = get32(&r, H_FLAGS);
    if (out->flags & ~(unsigned)AC_TRACE_FLAG_GLOBAL_CLOCK)
        FAIL(H_FLAGS, "unknown flags 0x%x", out->flags);
    out->nrec = get64(&r, H_NREC);
    out->drops = get64(&r, H_DROPS);
    out->nstr = get32(&r, H_NSTR);
    out->lost_ids = get32(&r, H_LOST);
    uint64_t strbytes = get64(&r, H_STRBYTES);
    for (int i = 0; i < 2; i++) {
        out->clock[i].at = (int64_t)get64(&r, H_CLOCK + 24 * i);
        out->clock[i].offset = (int64_t)get64(&r, H_CLOCK + 24 * i + 8);
        out->clock[i].residual = (int64_t)get64(&r, H_CLOCK + 24 * i + 16);
        if (out->clock[i].residual < -1)
            FAIL(H_CLOCK + 24 * i + 16, "negative clock residual %lld",
                 (long long)out->clock[i].residual);
    }
    size_t body = len - AC_TRACE_HEADER_BYTES;
    if (out->nrec > body / sizeof(ac_trace_rec_t))
        FAIL(len, "truncated: %llu records announced, room for %zu", (unsigned long long)out->nrec,
             body / sizeof(ac_trace_rec_t));
    size_t recend = AC_TRACE_HEADER_BYTES + (size_t)out->nrec * sizeof(ac_trace_rec_t);
    if (strbytes > len - recend)
        FAIL(len, "truncated: string table of %llu bytes announced, %zu present",
             (unsigned long long)strbytes, len - recend);
    if (strbytes < len - recend)
        FAIL(recend + strbytes, "%zu bytes of garbage after the string table",
             (size_t)(len - recend - strbytes));
    if (out->nstr > AC_TRACE_MAX_STRINGS || out->nstr > strbytes / 4)
        FAIL(H_NSTR, "%u strings cannot fit in %llu bytes", out->nstr,
             (unsigned long long)strbytes);
    uint64_t ck = get64(&r, H_CHECKSUM), want = file_checksum(b, len);
    if (ck != want)
        FAIL(H_CHECKSUM, "checksum mismatch (stored 0x%016llx, computed 0x%016llx): corrupted file",
             (unsigned long long)ck, (unsigned long long)want);

    /* Strings: u32 length then the bytes, no NUL inside. */
    out->str = calloc(out->nstr ? out->nstr : 1, sizeof *out->str);
    out->strbuf = malloc((size_t)strbytes + 1); /* each string's 4 length bytes hold its NUL */
    if (!out->str || !out->strbuf) FAIL(0, "out of memory");
    size_t p = recend, q = 0;
    for (uint32_t i = 0; i < out->nstr; i++) {
        if (len - p < 4) FAIL(p, "string %u: truncated length", i);
        uint32_t n = get32(&r, p);
        p += 4;
        if (n > len - p) FAIL(p - 4, "string %u: length %u past the end of the file", i, n);
        if (memchr(b + p, '\0', n)) FAIL(p, "string %u: contains a NUL byte", i);
        memcpy(out->strbuf + q, b + p, n);
        out->strbuf[q + n] = '\0';
        out->str[i] = out->strbuf + q;
        q += n + 1;
        p += n;
    }
    if (p != len) FAIL(p, "%zu bytes after the last string", len - p);

    out->rec = malloc(out->nrec ? (size_t)out->nrec * sizeof(ac_trace_rec_t) : 1);
    if (!out->rec) FAIL(0, "out of memory for %llu records", (unsigned long long)out->nrec);
    for (uint64_t i = 0; i < out->nrec; i++) {
        size_t off = AC_TRACE_HEADER_BYTES + (size_t)i * sizeof(ac_trace_rec_t);
        decode_rec(&r, off, &out->rec[i]);
        char rwhy[160];
        if (check_rec(&out->rec[i], out->nstr, out->nprocs, rwhy, sizeof rwhy))
            FAIL(off, "record %llu: %s", (unsigned long long)i, rwhy);
    }
    return 0;
#undef FAIL
fail:
    ac_trace_file_free(out);
    if (err && errlen) snprintf(err, errlen, "%s: offset %zu: %s", name ? name : "trace", at, why);
    return -1;
}

int ac_trace_read(const char *path, ac_trace_file_t *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    char why[256];
    size_t len = 0;
    char *buf = ac_file_read(path, (size_t)1 << 40, &len, why, sizeof why);
    if (!buf) {
        if (err && errlen) snprintf(err, errlen, "%s", why);
        return -1;
    }
    int rc = ac_trace_parse(buf, len, path, out, err, errlen);
    free(buf);
    return rc;
}

void ac_trace_file_free(ac_trace_file_t *t) {
    free(t->rec);
    free(t->str);
    free(t->strbuf);
    t->rec = NULL;
    t->str = NULL;
    t->strbuf = NULL;
}
