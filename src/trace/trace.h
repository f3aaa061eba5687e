/*
 * Call tracing: fixed-size call records in a bounded per-process ring, the trace file format,
 * clock offsets to rank 0 and process-arrival-pattern statistics.
 *
 * Sources: seed 004 §2 (spec predictors-latency.md §2.1 events, §2.2 identifiers, §2.3 pure
 * inter-send time, §2.4 properties) for what a record holds; seed 000 §4.2 (spec
 * star-stage-ethernet.md §6.1 definitions, §6.2 measurement, §6.4 taxonomy) for arrival
 * patterns; issue 20 for the clock offsets (minimum round-trip ping-pong). The file format is
 * described byte by byte in docs/tracing.md.
 *
 * Cost. With tracing off, a call site pays one load of a global word and one branch predicted
 * not taken (ac_trace_on with a constant kind folds to `ac_trace_mask & bit`). With tracing on,
 * a record costs one atomic fetch-add and an 80-byte copy (ac_trace_record), plus two lock-free
 * hash lookups for the ids of the instance and the call site (ac_trace_ids; a mutex only the
 * first time an instance or site is seen). Memory is the ring
 * (AUTOCOLL_TRACE_RECORDS x 80 bytes) and fixed-capacity string/site tables, allocated once at
 * ac_trace_init_cfg; nothing grows afterwards.
 *
 * Layer: trace includes only core (src/core/ac.h); it makes no MPI call (the clock estimator
 * takes a ping-pong callback), so everything here is unit-testable without an MPI runtime.
 */
#ifndef AC_TRACE_H
#define AC_TRACE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "../core/ac.h"

/* ---------------------------------------------------------------- call kinds */

/* Kinds below AC_TK_P2P_FIRST are the collectives, with the values of autocoll_coll_t
 * (include/autocoll_colls.def; those values are part of the ABI, so they are stable in files).
 * The point-to-point events of spec 2.1 start at AC_TK_P2P_FIRST. Values are part of the file
 * format: add at the end, never renumber. */
enum {
    AC_TK_P2P_FIRST = 64,
    AC_TK_SEND = AC_TK_P2P_FIRST,
    AC_TK_SSEND,
    AC_TK_BSEND,
    AC_TK_RSEND,
    AC_TK_ISEND,
    AC_TK_ISSEND,
    AC_TK_IBSEND,
    AC_TK_IRSEND,
    AC_TK_RECV,
    AC_TK_IRECV,
    AC_TK_SENDRECV,         /* one record for the call; peer = dest, status_source = source */
    AC_TK_SENDRECV_REPLACE, /* idem; the receive half is flagged AC_TF_REPLACE_RECV */
    AC_TK_START,            /* persistent request started (send or receive: flags) */
    AC_TK_STARTALL,
    AC_TK_WAIT,
    AC_TK_WAITALL,
    AC_TK_WAITANY,
    AC_TK_WAITSOME,
    AC_TK_TEST,
    AC_TK_TESTALL,
    AC_TK_TESTANY,
    AC_TK_TESTSOME,
    AC_TK_PROBE,
    AC_TK_IPROBE,
    AC_TK_RECV_DONE, /* format 2: a nonblocking receive completed (docs/tracing.md) */
    AC_TK_P2P_END    /* one past the last kind */
};

/* Per-stage records of the configurable reduction trees (allreduce `tree`; seed 003 §4, spec
 * allreduce-trees.md §7.2), written during a traced call before the call's own record, so a
 * rank's stage records belong to its next collective record. They are traced with the
 * collectives (AC_TRACE_COLL). Fields (docs/tracing.md, "Tree stage records"):
 *   AC_TK_TREE_RANK   one per rank: t_in = the leaf's value leaves (t2 of the leaf), t_out = the
 *                     final result is available (t3 of the leaf); ident = rank, count = size,
 *                     tag = node of the rank, status_tag = vertices in the tree
 *   AC_TK_TREE_VERTEX one per owned vertex: t_in = t2, t_out = t3; ident = vertex, count =
 *                     children, tag = parent vertex (-1 root), status_source = 0 host or 1
 *                     cluster-root, status_tag = level (0 = above leaves of its kind)
 *   AC_TK_TREE_CHILD  one per child of an owned vertex: t_in = a_i (t1,i), t_out = d_i (t4,i);
 *                     ident = vertex, count = position, tag = child item (vertex >= 0 or leaf
 *                     -r-1), status_source = owner of the child, status_tag = 1 when the result
 *                     departs from this vertex to the child (0: the child's owner gets it from
 *                     higher up; t_out is then t3 of the vertex). */
/* Stage records of the trees run as the parts of a node-aware (`hier`) call (the tree
 * executors' stamps, src/sched/tree.h; written by src/coll/hier_stage.c before the call's own
 * record, traced with the collectives). The rank is the vertex: one AC_TK_PART_TREE per tree
 * run and rank, then one AC_TK_PART_CHILD per child of it. Fields (docs/tracing.md, "Stage
 * records of hierarchical calls"):
 *   AC_TK_PART_TREE   t_in = entry into the tree, t_out = t2 (reduce: the partial result leaves
 *                     for the parent; root: complete) or t3 (bcast: the value is here; root:
 *                     entry); ident = rank in the part's communicator, count = its size, tag =
 *                     parent there (-1 root), peer = this rank in the call's communicator, root
 *                     = the parent's (-1), bytes = the part's data bytes, status_source = stage
 *                     (AC_HIER_INTRA 0 intra-node, AC_HIER_INTER 1 inter-node), status_tag =
 *                     operation (0 reduce, 1 bcast, 2 gather, 3 scatter; gather trees are
 *                     stamped as reduce trees, scatter trees as bcast trees), alg = the part
 *                     algorithm's registry index (-1: a tree run by the algorithm itself)
 *   AC_TK_PART_CHILD  reduce, gather: t_in = t1,i (child i's partial seen complete), t_out = t2
 *                     of the vertex; bcast, scatter: t_in = t3 of the vertex, t_out = t4,i (leaves for
 *                     child i); ident, peer, status_source, status_tag as in its tree record;
 *                     count = position i (combination or service order), tag = the child's rank
 *                     in the part's communicator, root = in the call's communicator */
enum {
    AC_TK_STAGE_FIRST = 128,
    AC_TK_TREE_RANK = AC_TK_STAGE_FIRST,
    AC_TK_TREE_VERTEX,
    AC_TK_TREE_CHILD,
    AC_TK_PART_TREE,
    AC_TK_PART_CHILD,
    AC_TK_PART_STEP,
    AC_TK_STAGE_END
};
/* AC_TK_PART_STEP   one per part of a hierarchical call and rank, written when the part returns
 *                   (after the part's tree records, if any): t_in = the part starts, t_out = it
 *                   returns; ident = rank in the part's communicator, count = its size, peer =
 *                   this rank in the call's communicator, bytes = the part's data bytes at this
 *                   rank, status_source = stage, status_tag = operation (AC_PART_*), alg = the
 *                   part algorithm's registry index (-1: written out in the algorithm). */
enum { AC_HIER_INTRA = 0, AC_HIER_INTER = 1 }; /* status_source of AC_TK_PART_* */
/* status_tag of AC_TK_PART_* (tree records: reduce, bcast, gather, scatter). Direction (spec 7.1 stages):
 * reduce and gather go down, bcast and scatter up; an exchange among the leaders (allreduce,
 * allgatherv, alltoall of the node data) is the core. */
enum {
    AC_PART_REDUCE = 0,
    AC_PART_BCAST = 1,
    AC_PART_GATHER = 2,
    AC_PART_SCATTER = 3,
    AC_PART_EXCHANGE = 4,
    AC_PART_NOPS
};

/* Enable bits (AUTOCOLL_TRACE). */
enum { AC_TRACE_COLL = 1u << 0, AC_TRACE_P2P = 1u << 1 };

/* Record flags. */
enum {
    AC_TF_ERROR = 1u << 0,        /* the call returned an error */
    AC_TF_REPLACE_RECV = 1u << 1, /* receive half of MPI_Sendrecv_replace (spec 2.1) */
    AC_TF_WILDCARD = 1u << 2,     /* MPI_ANY_SOURCE or MPI_ANY_TAG receive (spec 2.2) */
    AC_TF_PERSISTENT = 1u << 3,   /* started from a persistent request */
    AC_TF_RECV_SIDE = 1u << 4,    /* a start of a persistent receive */
    AC_TF_INPLACE = 1u << 5       /* collective called with MPI_IN_PLACE */
};

#define AC_TRACE_NOID 0xffffffffu /* no interned string (no instance, unknown site, table full) */
enum {
    AC_TRACE_NOSRC = 0xff,    /* no decision source (point-to-point) */
    AC_TRACE_NONE = INT32_MIN /* root/peer/tag/ident/count/status not applicable */
};

/* One call. Times are nanoseconds of the local clock (ac_trace_now); the
 * offset to rank 0 is in the file header (ac_trace_clock_t), never applied in memory. */
typedef struct {
    int64_t t_in;   /* just before the call proper (spec 2.1 t_in) */
    int64_t t_out;  /* just after it returns (t_out) */
    uint64_t bytes; /* collectives: the selection size; p2p: count x type size */
    uint64_t seq;   /* collectives: call number on the communicator (same on every rank) */
    uint32_t comm;  /* communicator id (collectives: the context's creation number) */
    uint32_t site;  /* call-site id (ac_trace_ids; in a file: index of its string) */
    uint32_t inst;  /* instance id (idem), AC_TRACE_NOID for p2p */
    int32_t root;   /* rooted collectives, else AC_TRACE_NONE */
    int32_t peer;   /* p2p: dest or source argument as given, else AC_TRACE_NONE */
    int32_t tag;    /* p2p: MPI tag argument, else AC_TRACE_NONE */
    int32_t ident;  /* p2p: identifier of spec 2.2 (send: <dest,comm>; receive: 6-tuple) */
    int32_t count;  /* p2p: count argument */
    uint16_t kind;  /* AUTOCOLL_<COLL> value or AC_TK_* */
    int16_t alg;    /* registry index of the algorithm that ran (-1 none) */
    uint8_t src;    /* decision source (select's ac_source_t value), AC_TRACE_NOSRC */
    uint8_t flags;  /* AC_TF_* */
    uint16_t reserved;
    int32_t status_source; /* completion status (extension of spec 2.1), else AC_TRACE_NONE */
    int32_t status_tag;
} ac_trace_rec_t;
_Static_assert(sizeof(ac_trace_rec_t) == 80, "the record is 80 bytes in memory and in files");

/* ---------------------------------------------------------------- the ring */

/* Bounded ring of records. When full, a new record overwrites the oldest one and counts as one
 * drop (the ring keeps the most recent cap records). Lock-free: one atomic fetch-add per record;
 * records being written by two threads that land on the same slot after a full wrap may mix
 * (documented; drops are exact). */
typedef struct {
    ac_trace_rec_t *rec;
    uint64_t cap;
    uint64_t mask; /* cap - 1 when cap is a power of two (slots without a division), else 0 */
    _Atomic uint64_t next; /* records pushed so far (drops = next - cap when next > cap) */
} ac_trace_ring_t;

int ac_trace_ring_init(ac_trace_ring_t *r, uint64_t cap); /* 0, or -1 out of memory */
void ac_trace_ring_free(ac_trace_ring_t *r);
uint64_t ac_trace_ring_count(const ac_trace_ring_t *r); /* records held (<= cap) */
uint64_t ac_trace_ring_drops(const ac_trace_ring_t *r); /* records overwritten */
/* The i-th oldest record held, 0 <= i < count. */
const ac_trace_rec_t *ac_trace_ring_at(const ac_trace_ring_t *r, uint64_t i);

/* The slot written next is prefetched for writing: the ring is larger than the caches, and a
 * write-allocate miss on each record (two cache lines) otherwise costs more than the rest of
 * the record together (docs/tracing.md, cost). */
static inline uint64_t ac_trace_ring_slot(const ac_trace_ring_t *r, uint64_t i) {
    return r->mask ? i & r->mask : i % r->cap;
}
static inline void ac_trace_ring_push(ac_trace_ring_t *r, const ac_trace_rec_t *rec) {
    uint64_t i = atomic_fetch_add_explicit(&r->next, 1, memory_order_relaxed);
    r->rec[ac_trace_ring_slot(r, i)] = *rec;
    const char *nx = (const char *)&r->rec[ac_trace_ring_slot(r, i + 1)];
    __builtin_prefetch(nx, 1, 3);
    __builtin_prefetch(nx + sizeof *rec - 1, 1, 3);
}

/* ---------------------------------------------------------------- process-wide tracer */

extern unsigned ac_trace_mask;     /* AC_TRACE_* bits; 0 when off (the only word call sites read) */
extern ac_trace_ring_t ac_trace_g; /* this process's ring (valid while ac_trace_mask != 0) */

static inline unsigned ac_trace_kind_bit(int kind) {
    return kind < AC_TK_P2P_FIRST || kind >= AC_TK_STAGE_FIRST ? AC_TRACE_COLL : AC_TRACE_P2P;
}

/* The one test at a call site: with a constant kind, a load and a branch predicted not taken. */
static inline int ac_trace_on(int kind) {
    return __builtin_expect((ac_trace_mask & ac_trace_kind_bit(kind)) != 0, 0);
}

/* CLOCK_MONOTONIC in ns (a vDSO read). */
static inline int64_t ac_trace_mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The time-stamp counter as a clock (x86_64 with an invariant counter): ns = ns0 +
 * (tsc - tsc0) x mult / 2^32, calibrated against CLOCK_MONOTONIC when tracing starts
 * (ac_trace_tsc_calibrate). mult == 0: not calibrated or not usable, CLOCK_MONOTONIC is read.
 * A rate error of the calibration is a constant drift, which the linear interpolation between
 * the two clock estimates (MPI_Init, MPI_Finalize) removes across ranks. */
typedef struct {
    uint64_t tsc0;
    int64_t ns0;
    uint64_t mult; /* ns per tick x 2^32, below 2^32 (counters faster than 1 GHz) */
} ac_trace_tsc_t;
extern ac_trace_tsc_t ac_trace_tsc;
/* Calibrates ac_trace_tsc (about 10 ms of spinning); leaves mult 0 where the counter is not
 * invariant, not x86_64, or under SimGrid. Returns 1 when the counter is used. */
int ac_trace_tsc_calibrate(void);
/* Back to CLOCK_MONOTONIC (mult = 0). */
void ac_trace_tsc_off(void);

/* The trace clock in ns: the calibrated time-stamp counter, else CLOCK_MONOTONIC (docs/tracing.md,
 * cost: one rdtsc and two multiplications instead of a clock_gettime), or the simulated MPI_Wtime
 * under SimGrid. The clock offsets are estimated on this same clock. */
static inline int64_t ac_trace_now(void) {
#ifdef AC_SMPI
    return (int64_t)(PMPI_Wtime() * 1e9 + 0.5);
#else
#if defined(__x86_64__)
    if (__builtin_expect(ac_trace_tsc.mult != 0, 1)) {
        uint64_t d = __builtin_ia32_rdtsc() - ac_trace_tsc.tsc0, m = ac_trace_tsc.mult;
        return ac_trace_tsc.ns0 + (int64_t)((d >> 32) * m + (((d & 0xffffffffu) * m) >> 32));
    }
#endif
    return ac_trace_mono();
#endif
}

static inline int64_t ac_trace_ns(double seconds) {
    return (int64_t)(seconds * 1e9 + (seconds >= 0 ? 0.5 : -0.5));
}

/* A record with every optional field set to "not applicable". */
static inline void ac_trace_rec_clear(ac_trace_rec_t *r, int kind) {
    memset(r, 0, sizeof *r);
    r->kind = (uint16_t)kind;
    r->alg = -1;
    r->src = AC_TRACE_NOSRC;
    r->site = r->inst = AC_TRACE_NOID;
    r->root = r->peer = r->tag = r->ident = r->count = AC_TRACE_NONE;
    r->status_source = r->status_tag = AC_TRACE_NONE;
}

/* Record one call (call only when ac_trace_on(rec->kind)). */
static inline void ac_trace_record(const ac_trace_rec_t *rec) {
    ac_trace_ring_push(&ac_trace_g, rec);
}

/* Interned ids of an instance (NULL: AC_TRACE_NOID) and a call site (return address, NULL:
 * AC_TRACE_NOID). Fixed-capacity tables: when one is full the id is AC_TRACE_NOID and the loss
 * is counted (file header). Thread-safe. */
void ac_trace_ids(const ac_inst_t *in, const void *site, uint32_t *inst_id, uint32_t *site_id);
/* The same ids through a per-thread cache (no hashing when cached): of a call site, and of the
 * instance of an algorithm without parameters. */
uint32_t ac_trace_site_id(const void *site);
uint32_t ac_trace_alg_id(const ac_alg_t *alg);

/* ---------------------------------------------------------------- settings */

typedef struct {
    unsigned mask;    /* AUTOCOLL_TRACE: collectives | p2p | all | off (default off) */
    uint64_t records; /* AUTOCOLL_TRACE_RECORDS: ring capacity (default 65536) */
    char dir[512];    /* AUTOCOLL_TRACE_DIR: where files go (default ".") */
} ac_trace_cfg_t;

enum {
    AC_TRACE_RECORDS_DEFAULT = 65536,
    AC_TRACE_RECORDS_MIN = 16,
    AC_TRACE_RECORDS_MAX = 1 << 24 /* 1.25 GiB of records */
};

/* Parse the three settings (NULL or "" means unset). A bad value is reported in err (one line
 * each, "AUTOCOLL_TRACE='x': ...") and turns tracing off (AUTOCOLL_TRACE, AUTOCOLL_TRACE_DIR) or
 * keeps the default (AUTOCOLL_TRACE_RECORDS). Returns the number of problems. */
int ac_trace_cfg_parse(ac_trace_cfg_t *c, const char *trace, const char *records, const char *dir,
                       char *err, size_t errlen);

/* Allocates the ring and tables for the settings c (parsed by ac_trace_cfg_parse from the
 * library's settings, rank 0's everywhere) and sets ac_trace_mask; rank and nprocs go to the file
 * header. The directory must exist and be writable (checked here, so that a bad
 * AUTOCOLL_TRACE_DIR is said at MPI_Init). Returns 0, or -1 with the reason in err. */
int ac_trace_init_cfg(const ac_trace_cfg_t *c, int rank, int nprocs, char *err, size_t errlen);

/* The calibrated wrapper overheads of spec 2.3 (ns per call, per class of point-to-point
 * wrapper: AC_WRAP_SEND, AC_WRAP_RECV, AC_WRAP_OTHER): entry = from the application's call to
 * the t_in stamp, exit = from the t_out stamp back to the application. Written to the file as
 * the string "#wrap send=E/X recv=E/X other=E/X" (docs/tracing.md). */
enum { AC_WRAP_SEND = 0, AC_WRAP_RECV, AC_WRAP_OTHER, AC_WRAP_NCLASS };
void ac_trace_set_wrap(const double entry[AC_WRAP_NCLASS], const double exit[AC_WRAP_NCLASS]);

/* ac_log of each line of a message made by the functions above. */
void ac_trace_log_lines(const char *msg);

/* Clock offsets to rank 0, estimated at init (which = 0) and finalize (which = 1). Times in
 * seconds of the local clock; offset is what to add to a local time to get rank 0's time;
 * residual bounds the error of that estimate (< 0: not estimated). global: the clocks are one
 * (SimGrid's simulated clock; CLOCK_MONOTONIC is per host). */
void ac_trace_set_clock(int which, double at, double offset, double residual);
void ac_trace_set_global_clock(void);

/* The string of an interned id (instance specification or "module+0xoffset" of a site).
 * Returns 0, or -1 (empty string) when the id is unknown. */
int ac_trace_id_string(uint32_t id, char *buf, size_t len);
/* The network model T(n) = alpha + beta n (seconds, seconds per byte) that arrival factors use;
 * written to the file as the string "#net alpha=A beta=B" (docs/tracing.md). */
void ac_trace_set_net(double alpha, double beta);

/* Writes AUTOCOLL_TRACE_DIR/autocoll-trace.<rank>.bin (through a temporary file renamed at the
 * end). Returns 0, or -1 with the reason in err. Does not stop tracing. */
int ac_trace_flush(char *err, size_t errlen);
/* Flushes (problems are logged), stops tracing and frees everything. */
void ac_trace_finalize(void);
/* Stops tracing and frees everything without writing a file. */
void ac_trace_abandon(void);

/* ---------------------------------------------------------------- clock offsets */

/* One clock estimate of the file header. */
typedef struct {
    int64_t at;       /* local time of the estimate (ns) */
    int64_t offset;   /* rank0 time = local time + offset (ns) */
    int64_t residual; /* bound on the error of offset (ns); -1 not estimated */
} ac_trace_clock_t;

/* One ping-pong with rank 0: local time before sending (*t0), rank 0's time when it answered
 * (*tr), local time after the answer arrived (*t1), all in seconds. Returns 0, or non-zero on a
 * communication error. */
typedef int (*ac_trace_pingpong_fn)(void *arg, double *t0, double *tr, double *t1);

/* Minimum round-trip estimate over n ping-pongs: of the samples with the smallest t1 - t0,
 * offset = tr - (t0 + t1) / 2 and residual = (t1 - t0) / 2 (the answer was stamped somewhere
 * inside the round trip, so the true offset lies within +-residual of the estimate whatever the
 * split of the delays). Samples with t1 < t0 are ignored. Returns 0, or -1 (no valid sample or
 * a failed ping-pong: *offset = 0, *residual = -1). Cost: n ping-pongs. */
int ac_trace_clock_offset(ac_trace_pingpong_fn fn, void *arg, int n, double *offset,
                          double *residual);

/* A local time (ns) on rank 0's clock: linear interpolation between two estimates (drift), or
 * the one that exists; unchanged when none does. */
int64_t ac_trace_clock_correct(const ac_trace_clock_t c[2], int64_t t);
/* This process's clock estimates (ac_trace_clock_correct applies them). */
void ac_trace_get_clock(ac_trace_clock_t c[2]);

/* ---------------------------------------------------------------- arrival patterns */

/* Statistics of one collective invocation (spec 6.1), from entry times a[i] (and optionally
 * exit times f[i]) of the n processes, all on one clock (offsets applied), in seconds. */
typedef struct {
    int n;
    double mean_arrival; /* a-bar */
    double avg_imb;      /* average-case imbalance time: mean |a_i - a-bar| */
    double worst_imb;    /* worst-case imbalance time: max a_i - min a_i */
    double avg_factor;   /* avg_imb / T */
    double worst_factor; /* worst_imb / T */
    int balanced;        /* worst_factor < 1 */
    double mean_elapsed; /* mean (f_i - a_i), the performance measure (NaN without f) */
    int first, last;     /* index of the earliest and the latest arrival */
} ac_arrival_t;

/* T > 0 is the time to send one message of the operation's size. Returns 0, or -1 when n < 1,
 * a is NULL, T <= 0 or a value is not finite. */
int ac_arrival_stats(const double *a, const double *f, int n, double T, ac_arrival_t *out);

/* Taxonomy of spec 6.4. */
typedef enum {
    AC_ARR_UNKNOWN = 0,
    AC_ARR_DIRECT,      /* directly communicating: lowest sensitivity to imbalance */
    AC_ARR_STORE_FWD,   /* store-and-forward: medium */
    AC_ARR_GLOBAL_COORD /* globally coordinated (phased): highest, best when balanced */
} ac_arrival_class_t;
const char *ac_arrival_class_name(ac_arrival_class_t c);
/* Class of algorithm `alg` (registry name) of collective coll, AC_ARR_UNKNOWN when the spec's
 * taxonomy does not place it (docs/tracing.md lists the table). */
ac_arrival_class_t ac_arrival_class(int coll, const char *alg);
/* 1 for operations a process cannot leave before all have arrived (every output depends on
 * every input), 0 for bcast, scatter, gather and reduce; -1 out of range. */
int ac_arrival_synchronised(int coll);

/* ---------------------------------------------------------------- files */

enum {
    AC_TRACE_VERSION = 2, /* 2: point-to-point pairing fields and AC_TK_RECV_DONE */
    AC_TRACE_HEADER_BYTES = 128,
    AC_TRACE_MAX_STRINGS = 1 << 20, /* reader's limit */
    AC_TRACE_MAX_IDS = 4096         /* interned instances + call sites per process */
};
#define AC_TRACE_MAGIC "ACTRACE\0"

enum { AC_TRACE_FLAG_GLOBAL_CLOCK = 1u << 0 };

typedef struct {
    uint32_t version;
    int byteswapped; /* the file was written on a machine of the other byte order */
    int32_t rank, nprocs;
    uint32_t mask, flags;
    uint64_t nrec, drops;
    uint32_t nstr, lost_ids;
    ac_trace_clock_t clock[2];
    ac_trace_rec_t *rec; /* nrec records, oldest first; site and inst index str */
    char **str;          /* nstr NUL-terminated strings */
    char *strbuf;
} ac_trace_file_t;

/* Parses an image of a trace file (name is used in messages only). Every field is validated; a
 * problem gives -1 with "name: offset N: reason" in err and nothing to free. */
int ac_trace_parse(const void *buf, size_t len, const char *name, ac_trace_file_t *out, char *err,
                   size_t errlen);
/* Reads and parses a file (a FIFO or device is refused). */
int ac_trace_read(const char *path, ac_trace_file_t *out, char *err, size_t errlen);
void ac_trace_file_free(ac_trace_file_t *t);
/* The network model of a file ("#net" string), 0; -1 when it has none. */
int ac_trace_file_net(const ac_trace_file_t *t, double *alpha, double *beta);

/* The wrapper overheads of a file ("#wrap" string), 0; -1 when it has none (entry and exit
 * are then 0). */
int ac_trace_file_wrap(const ac_trace_file_t *t, double entry[AC_WRAP_NCLASS],
                       double exit[AC_WRAP_NCLASS]);
/* The overhead class of a point-to-point kind (AC_WRAP_*), -1 for other kinds. */
int ac_trace_wrap_class(int kind);

/* Writes ring r with the given strings (site and inst of the records index str) and header
 * fields to path (through path.tmp renamed). Returns 0, or -1 with the reason in err. */
typedef struct {
    int32_t rank, nprocs;
    uint32_t mask, flags, lost_ids;
    ac_trace_clock_t clock[2];
} ac_trace_meta_t;
int ac_trace_write_file(const char *path, const ac_trace_meta_t *m, const ac_trace_ring_t *r,
                        const char *const *str, uint32_t nstr, char *err, size_t errlen);

const char *ac_trace_kind_name(int kind); /* NULL when not a kind */

/* ---------------------------------------------------------------- arrival patterns per call site */

/* One traced collective call of one rank (src/trace/trace_summary.c). */
typedef struct {
    int32_t leader;      /* world rank of the communicator's rank 0 (record peer), -1 unknown */
    uint32_t comm;       /* that rank's number of the communicator (record comm) */
    uint64_t seq;        /* call number on the communicator */
    int kind;            /* collective */
    int crank, csize;    /* rank in the communicator, its size */
    int world;           /* world rank of the process */
    uint64_t bytes;      /* selection size */
    uint64_t site, inst; /* hashes of the call-site and instance strings (0 none) */
    int64_t t_in, t_out; /* ns on rank 0's clock */
    int32_t root;        /* record root (AC_TRACE_NONE: not rooted) */
    uint8_t src, flags;  /* record decision source and flags (AC_TF_INPLACE) */
} ac_arr_sample_t;

/* Statistics of one (communicator, collective, call site of the communicator's rank 0). */
typedef struct {
    int32_t leader;
    uint32_t comm;
    int kind, csize;
    uint64_t site, inst;             /* inst: the instance of the first call */
    int inst_varied;                 /* another instance ran in some call */
    uint64_t calls;                  /* complete invocations (the statistics are over these) */
    uint64_t incomplete;             /* invocations without a record from every rank */
    double bytes;                    /* mean selection size */
    double elapsed;                  /* mean over calls of the average per-node time (s) */
    double avg_imb, worst_imb;       /* means over calls (s) */
    double avg_factor, worst_factor; /* means over calls */
    double max_worst_imb, max_worst_factor;
    uint64_t balanced;     /* calls with worst-case factor < 1 (the others are imbalanced) */
    int late_rank;         /* rank (in the communicator) that arrived last most often, -1 none */
    uint64_t late_count;   /* how often */
    uint64_t *late_counts; /* csize counters */
    /* Phases (ac_arrival_groups_windows only; NULL / 0 otherwise): statistics per window of
     * consecutive calls, and the median over windows of their mean worst-case factors. */
    struct ac_arr_window *win;
    size_t nwin;
    int window;             /* calls per window */
    double win_median;      /* median of the windows' mean worst-case factors */
    size_t nspike;          /* windows marked as spikes */
    struct ac_arr_call *cs; /* per-call statistics in call order (internal) */
    size_t ncs, capcs;
} ac_arr_group_t;

/* Statistics of one window of consecutive complete calls of a group (seed 000 §4.2.4, spec
 * star-stage-ethernet.md §6.3 finding 5: patterns are phased, stable for long stretches with
 * occasional spikes). A window is a spike when its mean worst-case factor is at least 1 and more
 * than twice the median over the group's windows. */
typedef struct ac_arr_window {
    uint64_t first_seq, last_seq; /* call numbers of its first and last call */
    uint64_t calls, balanced;
    double elapsed, avg_imb, worst_imb, avg_factor, worst_factor; /* means over its calls */
    double max_worst_imb;
    int late_rank; /* latest arriver most often in the window, -1 none */
    uint64_t late_count;
    int spike;
} ac_arr_window_t;

/* FNV-1a 64 of a string (never 0). */
uint64_t ac_trace_str_hash(const char *s);
/* Matches the samples (sorted in place) into invocations and groups them; T(n) = alpha + beta
 * n. *out is allocated (ac_arrival_groups_free). Returns 0, or -1 on bad input or out of
 * memory. */
int ac_arrival_groups(ac_arr_sample_t *s, size_t n, double alpha, double beta, ac_arr_group_t **out,
                      size_t *nout);
void ac_arrival_groups_free(ac_arr_group_t *g, size_t ng);
/* The same with phases: each group's complete calls cut into windows of `window` consecutive
 * calls (the last one may be shorter; window <= 0: automatic, max(10, ceil(calls / 10)) so
 * that a group has about ten windows). */
int ac_arrival_groups_windows(ac_arr_sample_t *s, size_t n, double alpha, double beta, int window,
                              ac_arr_group_t **out, size_t *nout);
/* The per-call worst- and average-case imbalance factors of a group made by
 * ac_arrival_groups_windows, in call order, into worst[] and avg[] (room for g->ncs each; either
 * may be NULL). Returns the number of calls (0 for a group made by ac_arrival_groups). */
size_t ac_arrival_group_factors(const ac_arr_group_t *g, double *worst, double *avg);
/* One complete invocation (the sample of the communicator's rank 0 names it): for the adaptive
 * engine's summary, which finds the calls of each of its keys among these. */
typedef struct {
    int32_t leader, root;
    uint32_t comm;
    int16_t kind;
    uint8_t src, flags;
    uint64_t bytes;
    double worst_imb, avg_factor, worst_factor;
} ac_arr_callstat_t;
/* The statistics of every complete invocation of the samples (sorted in place), in (leader,
 * comm, call number) order; keep(src) chooses them by the decision source of the communicator's
 * rank 0 (NULL: all). *out is allocated (free). Returns 0, or -1 on bad input or out of memory. */
int ac_arrival_calls(ac_arr_sample_t *s, size_t n, double alpha, double beta, int (*keep)(int src),
                     ac_arr_callstat_t **out, size_t *nout);
/* The collective records of a trace file as samples (clock offsets applied); out has room for
 * t->nrec. Returns the number written. */
size_t ac_arrival_samples_from_file(const ac_trace_file_t *t, ac_arr_sample_t *out);

/* ---------------------------------------------------------------- identifiers (spec 2.2) */

enum { AC_INTERN_WORDS = 8, AC_INTERN_MAX = 1 << 24 };
typedef struct {
    uint64_t key[AC_INTERN_WORDS];
    uint64_t hash;
    int32_t id;
    int nwords, used;
} ac_intern_slot_t;
typedef struct {
    ac_intern_slot_t *slot;
    size_t cap, n;
} ac_intern_t; /* zero-initialised = empty */

/* The dense id of key (1..AC_INTERN_WORDS words), made on first sight (0, 1, 2, ...); -1 out of
 * memory, beyond AC_INTERN_MAX ids or on a bad length (src/trace/trace_intern.c). */
int32_t ac_intern(ac_intern_t *m, const uint64_t *key, int nwords);
/* The id of key, -1 when it was never interned. */
int32_t ac_intern_find(const ac_intern_t *m, const uint64_t *key, int nwords);
void ac_intern_free(ac_intern_t *m);
/* Handle generations kept in a map of their own: the generation of a handle value (0 until it
 * is first freed) and one more free of it. */
uint64_t ac_intern_gen(ac_intern_t *gens, uint64_t handle);
void ac_intern_bump(ac_intern_t *gens, uint64_t handle);

/* ---------------------------------------------------------------- tree stages (seed 003 §4) */

/* One call of a reduction tree, every rank's records assembled, all times on one clock
 * (src/trace/trace_stage.c). */
typedef struct {
    int64_t a, d;   /* arrival (t1,i) and departure (t4,i), ns */
    int item;       /* vertex >= 0 or leaf -r-1 */
    int owner, dep; /* owner of the child; 1 when the result departs from here to it */
} ac_stage_child_t;
typedef struct {
    int owner, parent, kind, level, nchild; /* kind: 0 host, 1 cluster-root */
    int64_t t2, t3;
    ac_stage_child_t *c; /* nchild, by position */
} ac_stage_vertex_t;
typedef struct {
    int p, nv;
    int64_t *entry, *exit;   /* per rank: the call's entry and exit (collective record) */
    int64_t *ready, *fin;    /* per rank: the leaf's t2 and t3 (AC_TK_TREE_RANK) */
    int *node, *leaf_parent; /* per rank */
    ac_stage_vertex_t *v;
    int *top; /* per rank: the highest item it owns */
} ac_stage_call_t;

/* Assembles one call from rank r's records rec[r][0 .. n[r]-1] (its collective record and its
 * stage records, times on one clock). Returns 0, or -1 with the reason in err (missing or
 * inconsistent records, out of memory); ac_stage_call_free in both cases. */
int ac_stage_call_build(ac_stage_call_t *c, int p, const ac_trace_rec_t *const *rec,
                        const size_t *n, char *err, size_t errlen);
void ac_stage_call_free(ac_stage_call_t *c);

typedef enum {
    AC_ST_ENTRY = 0,      /* down: call entry to the leaf's value leaving (dispatch, schedule) */
    AC_ST_EDGE_DOWN,      /* down: child's t2 to its arrival at the parent's owner */
    AC_ST_ARRIVAL_WAIT,   /* down: t1,l - t1,i at a vertex */
    AC_ST_DOWN,           /* down latency t2 - t1,l of a vertex */
    AC_ST_CORE,           /* down latency of the root vertex */
    AC_ST_UP,             /* up latency t4,f - t3 of a vertex */
    AC_ST_DEPARTURE_WAIT, /* t4,i - t4,f at a vertex */
    AC_ST_EDGE_UP,        /* departure to the child's t3 */
    AC_ST_EXIT,           /* up: the leaf's result (or its departure) to the call's exit */
    /* Stages of hierarchical calls (ac_part_path): */
    AC_ST_CHILD_WAIT,  /* down: a reduce vertex's tree entry to its first child's arrival */
    AC_ST_PARENT_WAIT, /* up: a bcast vertex's tree entry to the parent's value (t3) */
    AC_ST_PART_DOWN,   /* down: a down part outside its tree stamps, or local work before it */
    AC_ST_PART_UP,     /* up: the same for an up part */
    AC_ST_NTYPES
} ac_stage_type_t;
enum { AC_EDGE_RANK = 0, AC_EDGE_NODE = 1, AC_EDGE_NET = 2 };
typedef struct {
    int type;         /* ac_stage_type_t */
    int vertex;       /* vertex of the stage, -1 for entry, exit and edges */
    int vkind, level; /* of that vertex (edges: of the parent) */
    int edge;         /* AC_EDGE_* for edges */
    int64_t ns;
} ac_stage_t;

/* The stages of rank r's path, down then up (seed 003 §4, spec 7.1 "stages of a leaf's path"):
 * entry; per vertex from the leaf's parent to the root: edge (when the owners differ), arrival
 * wait, down latency (core at the root); then per hop of the result back to r: up latency,
 * departure wait, edge; then r's own leaf vertex (up latency, departure wait) and exit.
 * Returns the number of stages (<= max), -1 on a bad rank or a too-small max. The down
 * stages sum to t2(root) - entry and the up stages to exit - t3(root). */
int ac_stage_path(const ac_stage_call_t *c, int r, ac_stage_t *st, int max);
int ac_stage_is_up(int type);
const char *ac_stage_type_name(int type);

/* Per-part sums of one rank's path (seed 003 Tables 3 and 4), ns. */
typedef struct {
    int64_t total;        /* exit - entry as measured (with arrival waits) */
    int64_t arrival_wait; /* sum of arrival waits */
    int64_t down_wait;    /* down stages with arrival waits */
    int64_t down_nowait;  /* down stages without them */
    int64_t up;
    int64_t host, cluster; /* vertex stages (no arrival waits), by subtree */
    int64_t net, local;    /* network and node-local edges (the paper's proxies) */
    int64_t core, wrapper; /* root down latency; entry + exit */
} ac_stage_parts_t;
void ac_stage_parts(const ac_stage_t *st, int n, int64_t total, ac_stage_parts_t *out);
/* The two identities of spec 7.2: total with arrival waits = down with arrival waits + up, and
 * total without arrival waits = down without arrival waits + up. Returns the largest absolute
 * deviation of the two (ns). */
int64_t ac_stage_identity_error(const ac_stage_parts_t *x);

/* Arrival and departure order (0 = first) of the children of vertex v (spec 7.1, Table 1);
 * ties keep position order. Children without a departure get dep_order -1. */
void ac_stage_orders(const ac_stage_vertex_t *v, int *arr_order, int *dep_order);

/* ------------------------------------------- stages of hierarchical calls (seed 003 §4) */

/* The vertex metrics of one tree run of a hierarchical call's stage (spec allreduce-trees.md
 * §7.2, src/trace/trace_part.c) from its part_tree record rec[0] and the part_child records
 * after it (AC_TK_PART_*, one rank's clock):
 *   reduce: arrival wait = last t1 - first t1, down latency = t2 - last t1 (a leaf: t2 - entry,
 *           its own value made ready); bcast: up latency = first t4 - t3, departure wait = last
 *           t4 - first t4 (a leaf: both 0); before = entry to t2 (reduce) or t3 (bcast), the
 *           time spent waiting for the children's values or the parent's.
 * Returns the number of records read (1 + children), or -1 with the reason in err. */
typedef struct {
    int stage, op;                      /* AC_HIER_*, AC_PART_* */
    int rank, parent;                   /* in the call's communicator; parent -1 at the root */
    int nch;                            /* children */
    int64_t before;                     /* entry -> t2 / t3 */
    int64_t arrival_wait, down_latency; /* reduce */
    int64_t up_latency, departure_wait; /* bcast */
} ac_part_vertex_t;
int ac_part_vertex(const ac_trace_rec_t *rec, size_t n, ac_part_vertex_t *v, char *err,
                   size_t errlen);

/* 1 when operation op (AC_PART_*) goes up (bcast, scatter), 0 down (reduce, gather, exchange). */
int ac_part_op_up(int op);
/* 1 when a tree of operation op carries values to its root (reduce, gather: t1, t2), 0 from it
 * (bcast, scatter: t3, t4). */
static inline int ac_part_op_gathers(int op) {
    return op == AC_PART_REDUCE || op == AC_PART_GATHER;
}
const char *ac_part_op_name(int op); /* NULL when not an operation */

/* The stages of one rank's path through one hierarchical call (seed 003 §4, spec
 * allreduce-trees.md §7.1 "stages of a leaf's path", on the rank's own clock), from rec[0], the
 * call's collective record, and rec[1..n-1], the rank's part records of that call in the order
 * written (per part: its part_tree / part_child records, then its part_step record):
 *   entry (call entry to the first part), then per part: local work since the previous part
 *   (PART_*, level 1; not before the first), its tree stages per run (reduce: child wait, arrival
 *   wait, down latency, or the core for the root of an inter-node reduce tree; a leaf: down
 *   latency from its tree entry; bcast: parent wait (not at the root), up latency, departure
 *   wait), the rest of the part (PART_*, level 0: outside the tree stamps, or the whole part
 *   when it ran no tree; CORE for an exchange without trees); then exit (last part to the call's
 *   exit). Each stage has vertex = operation, vkind = stage (AC_HIER_*), level as above.
 * The stages telescope: their sum is exit - entry (both identities of §7.2 with ac_stage_parts).
 * *neg counts stamps out of order (a stage of one clock below 0). Returns the number of stages,
 * or -1 with the reason in err (records of another kind or call, a step record missing, too
 * many stages for max). */
int ac_part_path(const ac_trace_rec_t *rec, size_t n, ac_stage_t *st, int max, int *neg, char *err,
                 size_t errlen);

enum { AC_PART_ORDER_MAX = 256 }; /* children of a vertex in ac_part_orders */
/* Table 1 at the root vertex of a tree that goes one way only (a reduce or gather tree without a
 * bcast or scatter tree over the same children at that rank, or the other way round; spec
 * allreduce-trees.md §7.1, docs/tracing.md "order matrices"), all times on one clock:
 *   reduce, gather: arrival of child i = t1,i at the vertex; departure = the child leaves the
 *     tree: the end of the child's part that ran it (its part_step's t_out), other[i];
 *   bcast, scatter: arrival of child i = its entry into its run of the tree (ready for the
 *     value), other[i]; departure = t4,i at the vertex.
 * rec[0] is the vertex's part_tree record, its part_child records follow (n records at most).
 * Fills arr[i] and dep[i] (0 = first, ties keep position order) for each child position i.
 * Returns the number of children, or -1 with the reason in err. */
int ac_part_orders(const ac_trace_rec_t *rec, size_t n, const int64_t *other, int *arr, int *dep,
                   char *err, size_t errlen);
/* The time other[i] of ac_part_orders for one child, from the child's records rec[0..n-1] of the
 * call (its collective record, then its part records in the order written): its run of (stage,
 * op) whose parent is `parent` (rank in the call's communicator); gathering trees: the t_out of
 * the part_step record that ends that run's part, spreading trees: the run's entry. Returns 0,
 * or -1 when there is no such run (or no step after it). */
int ac_part_child_time(const ac_trace_rec_t *rec, size_t n, int stage, int op, int parent,
                       int64_t *t);

/* ---------------------------------------------------------------- point-to-point analyses */

#include "predict.h"

/* 1 for a send request of spec 2.1 (MPI_Send .. MPI_Irsend, MPI_Sendrecv(_replace), the start of
 * a persistent send request). */
int ac_trace_is_send(const ac_trace_rec_t *r);

/* Pure inter-send computation times of spec 2.3 (src/trace/trace_pairs.c) of one process's
 * records rec[0..n-1] (oldest first), in ns: for each send request b with an identifier after
 * the first, t_in(b) - t_out(a) - sum of the durations of the other calls between them -
 * o_exit(a) - o_entry(b) - sum of their o_entry + o_exit (entry and exit per class
 * AC_WRAP_*, NULL: 0), at least 0; completion and stage records are not calls. gap[i] is that
 * of the i-th send (gap[0] = 0); gap may be NULL. Returns the number of sends. */
size_t ac_pure_gaps(const ac_trace_rec_t *rec, size_t n, const double *entry, const double *exit,
                    double *gap);

/* The events of the early-arrival analysis of spec 4.3 from the files of a run (format 2): times
 * in ns on rank 0's clock, ranks = world ranks, comm = the communicator key. */
typedef struct {
    ac_ea_send *s;
    size_t ns;
    ac_ea_recv *r;
    size_t nr;
    uint64_t unkeyed;    /* sends and receives without a shared key or a world rank: left out */
    uint64_t unresolved; /* wildcard nonblocking receives never completed, cancelled ones */
    uint64_t untimed;    /* nonblocking receives never completed, kept in the order */
    uint64_t persistent; /* starts not paired: of requests made before tracing, or of an older
                          * trace (receive starts without a serial) */
    uint64_t orphan;     /* completions whose receive is not in the file */
} ac_ea_input;
/* Returns 0, or -1 out of memory (out is then empty). */
int ac_early_input(const ac_trace_file_t *f, int nf, ac_ea_input *out);
void ac_early_input_free(ac_ea_input *in);

#endif
