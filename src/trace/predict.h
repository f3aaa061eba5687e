/*
 * Communication predictors and latency-hiding models (MPI-free).
 *
 * Source: seed 004 (Afsahi 2000) §3.3-3.5, §4.3, §4.4, §6.5-6.7; spec predictors-latency.md
 * §3 (predictors), §4.2 (reconfiguration-delay hiding) and §4.3 (early-arrival analysis).
 *
 * Stream model (spec §3.1). A predictor sees one process's request stream (x_t, site_t),
 * t = 1..n: x_t is a dense non-negative identifier (send side: one per <dest, comm>; receive
 * side: one per 6-tuple, spec §2.2) and site_t the call-site tag, read only by the tag-based
 * kinds. Before x_t it holds a prediction p_t (an identifier or AC_ID_NONE); the step is a hit
 * iff p_t != AC_ID_NONE and p_t == x_t. A step without prediction is a miss. Hit ratio =
 * hits / events. The window heuristics predict a set; their hit is membership of x_t in the set
 * held before the update. Tag-based predictions are taken as if pre-connect(site_t) had reached
 * the predictor before request t, i.e. from site_t before the update.
 *
 * Use. Online, a wrapper calls ac_pred_feed(p, x, site) once per request (ac_pred_next(p, site)
 * gives the prediction the next feed will be judged against, e.g. to act on it before the
 * request); offline, ac_pred_run() replays a whole stream. Nothing here calls MPI, reads the
 * environment or keeps global state: one object per stream, not thread-safe by itself.
 *
 * Kinds (each cites its section; time per event, memory in identifiers):
 *   LRU, FIFO, LFU        window heuristics, spec §3.2: a set of at most k identifiers.
 *                         O(k) per event, k entries (+ one counter per distinct identifier
 *                         for LFU with persistent counts).
 *   Single-cycle(2),      the cycle engine, spec §3.3 (pseudo-code transcribed): O(1) per
 *   Better-cycle(2)       event except a miss in the prediction phase (O(H) head lookup, H <=
 *                         hmax heads) and closing/revising a cycle (O(L) copy, L <= lmax).
 *                         Memory: one cycle (Single) or one cycle per head (Better), plus the
 *                         buffer of the cycle under formation.
 *   Tagging               spec §3.4: site -> last identifier; O(1) expected (hash map).
 *   Tag-cycle(2),         spec §3.4: site -> private cycle engine of the matching plain kind,
 *   Tag-bettercycle(2)    fed only with that site's requests; O(1) expected for the site
 *                         lookup plus the engine's cost.
 *
 * Memory accounting (spec §3.5, eqs. 3.1-3.5), in entries of one identifier, with every
 * factor measured on the predictor's own run (spec §2.5 note):
 *   Single-cycle(2)        max cycle length
 *   Better-cycle(2)        max cycle length x max number of heads held at once
 *   Tagging                max number of sites
 *   Tag-cycle(2)           max number of sites x max cycle length of any site
 *   Tag-bettercycle(2)     Tag-cycle factor x max number of heads of any site
 *   LRU/FIFO/LFU           the window k.
 * "max cycle length" is the longest cycle ever stored (closed or revised); a cycle still being
 * formed is not a stored cycle. The true peak (extension of §3.5) is the largest number of
 * identifiers held at once: stored cycles plus the buffers of cycles under formation/revision
 * (cycle kinds), sites (Tagging), occupied window slots (window kinds).
 *
 * Design choices.
 *  - The cycle engine follows the spec §3.3 pseudo-code state for state (phases START, FORM,
 *    PRED, PNEW, REVISE), including its reconstructions (a)-(c); the "2" variants predict the
 *    previous request (of the same site for the tag kinds) during formation and revision.
 *  - Bounds (spec §3.3 extension): a cycle longer than lmax restarts formation with the current
 *    request as head; a Better engine keeps at most hmax heads and evicts the least recently
 *    used one (a head is used when it is stored or looked up). Cycles are stored at their exact
 *    length, so lmax costs nothing until used.
 *  - Tag kinds track at most smax sites (0 = no limit). A site beyond the limit is not stored:
 *    its requests get no prediction (misses). This bounds memory under a hint API fed with
 *    arbitrary tags; real programs have few call sites.
 *  - LFU (reconstruction, §3.2): one counter per identifier kept across evictions and
 *    incremented on every occurrence; the smallest count is evicted, ties go to the least
 *    recently used. lfu_reset = 1 selects in-cache counts reset on eviction.
 *  - ac_pred_next of a window kind returns the most recently used member (with k = 1 all three
 *    are "last value", the single-port baseline of seed 004 §4.3); ac_pred_predict_set gives
 *    the whole set, which is what the hit metric uses.
 *  - Identifiers must be >= 0 (AC_ID_NONE is -1); ac_pred_feed rejects others with -1 and
 *    leaves the predictor unchanged. On allocation failure it returns -1 too; the predictor
 *    stays usable (the failed step is counted, it may just forget a cycle).
 */
#ifndef AC_TRACE_PREDICT_H
#define AC_TRACE_PREDICT_H
#include <stddef.h>
#include <stdint.h>

typedef int32_t ac_id;
#define AC_ID_NONE ((ac_id)-1)

/* Kinds. The order and the names are an interface (reports, options): append only. */
#define AC_PRED_KINDS(X)                                                                           \
    X(LRU, "LRU", "window: evict least recently used (spec 3.2)")                                  \
    X(FIFO, "FIFO", "window: evict oldest insertion (spec 3.2)")                                   \
    X(LFU, "LFU", "window: evict least frequently used, ties LRU (spec 3.2)")                      \
    X(SINGLE_CYCLE, "Single-cycle", "one cycle, no prediction while forming (spec 3.3)")           \
    X(SINGLE_CYCLE2, "Single-cycle2", "one cycle, last value while forming (spec 3.3)")            \
    X(BETTER_CYCLE, "Better-cycle", "one cycle per head, revision (spec 3.3)")                     \
    X(BETTER_CYCLE2, "Better-cycle2", "Better-cycle, last value while forming (spec 3.3)")         \
    X(TAGGING, "Tagging", "site -> last identifier (spec 3.4)")                                    \
    X(TAG_CYCLE, "Tag-cycle", "Single-cycle per site (spec 3.4)")                                  \
    X(TAG_CYCLE2, "Tag-cycle2", "Single-cycle2 per site (spec 3.4)")                               \
    X(TAG_BETTERCYCLE, "Tag-bettercycle", "Better-cycle per site (spec 3.4)")                      \
    X(TAG_BETTERCYCLE2, "Tag-bettercycle2", "Better-cycle2 per site (spec 3.4)")

typedef enum {
#define AC_PRED_ENUM_(id, name, desc) AC_PRED_##id,
    AC_PRED_KINDS(AC_PRED_ENUM_)
#undef AC_PRED_ENUM_
        AC_PRED_NKINDS
} ac_pred_kind;

/* Name of a kind (NULL if out of range), its one-line description, and the kind of a name
 * (case-insensitive; -1 if unknown). */
const char *ac_pred_name(ac_pred_kind kind);
const char *ac_pred_desc(ac_pred_kind kind);
int ac_pred_parse(const char *name);
int ac_pred_is_window(ac_pred_kind kind);
int ac_pred_is_tagged(ac_pred_kind kind);

typedef struct {
    int window;    /* k of the window kinds, >= 1 (default 1) */
    int lmax;      /* longest storable cycle, >= 1 (default 1024) */
    int hmax;      /* heads per Better engine, >= 1 (default 64) */
    int smax;      /* sites of a tag kind, 0 = unlimited (default 0) */
    int lfu_reset; /* LFU: 0 persistent counts (default), 1 reset on eviction */
} ac_pred_params;

/* The defaults above. */
void ac_pred_params_default(ac_pred_params *prm);

typedef struct {
    uint64_t events;      /* requests fed */
    uint64_t predictions; /* steps with a prediction (non-empty set for windows) */
    uint64_t hits;
    /* memory factors of spec 3.5, measured on this run */
    int64_t max_cycle_len; /* longest stored cycle (any head, any site) */
    int64_t max_heads;     /* most heads held at once by one engine (1 for Single kinds) */
    int64_t max_sites;     /* most sites held (tag kinds) */
    int64_t mem;           /* the spec 3.5 formula, in identifiers */
    int64_t peak;          /* true peak of identifiers held at once */
} ac_pred_stats;

typedef struct ac_pred ac_pred;

/* New predictor (prm NULL = defaults); NULL on bad kind/parameters or out of memory. */
ac_pred *ac_pred_create(ac_pred_kind kind, const ac_pred_params *prm);
void ac_pred_free(ac_pred *p);
ac_pred_kind ac_pred_kind_of(const ac_pred *p);

/* The prediction for the next request if it comes from `site` (ignored by non-tag kinds):
 * an identifier or AC_ID_NONE. */
ac_id ac_pred_next(const ac_pred *p, uint64_t site);
/* The predicted set (windows: all members, most recent first; others: 0 or 1 identifier).
 * Writes at most max entries and returns the set size. */
int ac_pred_predict_set(const ac_pred *p, uint64_t site, ac_id *out, int max);
/* Multi-step-ahead (seed 004 §7.1 item 3): the next m predictions assuming each one hits.
 * Cycle kinds in a prediction phase walk their cycle; other states give 1 or 0 entries (a
 * last-value guess is only good for one step). Returns the number written (<= m). */
int ac_pred_ahead(const ac_pred *p, uint64_t site, int m, ac_id *out);

/* Judge the current prediction against x (from site), then learn x. Returns 1 on a hit, 0 on
 * a miss, -1 on x < 0 (predictor unchanged) or out of memory (step counted). */
int ac_pred_feed(ac_pred *p, ac_id x, uint64_t site);

void ac_pred_get_stats(const ac_pred *p, ac_pred_stats *st);

/* Offline: run a fresh predictor over x[0..n) (site NULL = all sites 0). hit (may be NULL)
 * receives the per-step hit flags, pred (may be NULL) the single prediction made before each
 * step (windows: the most recent member). Returns 0, or -1 on bad input/out of memory. */
int ac_pred_run(ac_pred_kind kind, const ac_pred_params *prm, const ac_id *x, const uint64_t *site,
                size_t n, unsigned char *hit, ac_id *pred, ac_pred_stats *st);

/* min, mean and max of the finite values of v[0..n) (NaN entries are skipped: processes
 * with no requests, spec 3.1). Returns the number of values used; 0 leaves NaN in all three. */
size_t ac_pred_summary(const double *v, size_t n, double *min, double *avg, double *max);

/*
 * Reconfiguration-delay hiding (seed 004 §4.3, spec §4.2). Sends i = 0..n-1 of one process;
 * gap[i] = pure inter-send computation time between send i-1 and send i (gap[0] unused),
 * size[i] = bytes of send i, hit[i] = predictor hit flag of send i. For each gap i >= 1 the
 * set-up time left is avail = gap[i]/cpu - size[i-1]/bw (the previous message occupies the
 * link during the gap) and the cost is d if avail < 0 (case c) or on a miss, d - avail if the
 * hit is only partly hidden (case b), 0 if fully hidden (case a). orig = d per gap.
 * Units: gap and d in the same time unit, bw in bytes per that unit. O(n), no memory.
 */
typedef struct {
    double new_cost, orig_cost;
    double ratio; /* new_cost / orig_cost, smaller is better; NaN when orig_cost is 0 */
    size_t gaps, hidden, partial, too_short, missed; /* cases a, b, c and misses */
} ac_reconf_result;

/* Returns 0, or -1 on NULL arrays with n >= 2, d < 0, bw <= 0 or cpu <= 0. */
int ac_reconf_hide(size_t n, const double *gap, const double *size, const unsigned char *hit,
                   double d, double bw, double cpu, ac_reconf_result *out);

/*
 * Receive-side early-arrival analysis (seed 004 §4.4, spec §4.3). Input on a common clock:
 * sends (sender src, destination dst, communicator id, MPI tag, send time = entry of the send)
 * and receives (receiver rank, source and tag as matched - wildcards resolved by the caller from
 * the completion status -, communicator id, receive time = entry of MPI_Recv or of the
 * completion call of a nonblocking receive). Each array lists the events of any one process in
 * issue order (processes may interleave). The j-th send s -> r on (comm, tag) pairs with the
 * j-th receive at r from s on (comm, tag) (MPI non-overtaking). A receive is early when its
 * time is strictly before its send's time. Per receiving process: receives, matched, early;
 * avg_pct = mean over processes with >= 1 matched receive of 100 * early / matched (NaN if
 * none). A receive with a NaN time is paired (it keeps the order) but counted as untimed, not
 * matched. O((S + R) log(S + R)) time, O(S + R) memory.
 */
typedef struct {
    int src, dst;
    int64_t comm;
    int tag;
    double t;
} ac_ea_send;
typedef struct {
    int rank, src;
    int64_t comm;
    int tag;
    double t;
} ac_ea_recv;
typedef struct {
    int64_t recvs, matched, early;
    int64_t untimed; /* paired receives with a NaN time (kept for the order, not compared) */
} ac_ea_proc;

/* out has nprocs entries. Returns 0, or -1 on a rank outside [0, nprocs), NULL arrays or out
 * of memory (then *bad, if not NULL, is the index of the offending send (>= 0) or receive
 * (-1 - index), or INT64_MIN for other errors). */
int ac_early_arrival(const ac_ea_send *s, size_t ns, const ac_ea_recv *r, size_t nr, int nprocs,
                     ac_ea_proc *out, double *avg_pct, int64_t *bad);

#endif
