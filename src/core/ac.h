/*
 * autocoll's core: the ground floor every layer stands on. Types of the registry (algorithms,
 * parameters, instances) and of a call (argument record, per-communicator context), the list of
 * collectives and the catalogue of restrictions, settings and process state, logs, datatypes,
 * the rank-invariant call description, tags.
 *
 * Layers (docs/registry.md, README): pmpi -> select -> coll -> sched -> core. Each layer
 * includes only the headers of the layers below it; core includes none (checked by
 * scripts/check-layers). Internal names start with ac_; the library is built with hidden
 * visibility and exports only what is marked AC_EXPORT (MPI_*, the Fortran mpi_* / MPI_* entry
 * points, autocoll_*).
 */
#ifndef AC_H
#define AC_H

#include <mpi.h>
#include <stddef.h>
#if defined(MPICH_VERSION) && defined(__GNUC__) && !defined(__clang__)
/* MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1 and its prototypes declare status arrays as
 * array parameters, which GCC 11+ reads as sized arrays: every call passing MPI_STATUSES_IGNORE
 * may be reported as an overflow of a region of size 0. Only with MPICH's header. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
#include <stdint.h>
#include <string.h>
#include "autocoll.h"

#define AC_EXPORT __attribute__((visibility("default")))

/* Thread-local data of the per-call path. SMPI runs every rank as a user-level thread of one
 * process and privatises global data per rank, not thread-local data: plain globals there.
 * Elsewhere the initial-exec model avoids a __tls_get_addr call per access (a few dozen bytes of
 * static TLS, also available when the library is dlopen'ed). */
#ifdef AC_SMPI
#define AC_TLS
#else
#define AC_TLS _Thread_local __attribute__((tls_model("initial-exec")))
#endif

/* ---------------------------------------------------------------- registry types */

enum {
    AC_MAX_PARAMS = 4,
    AC_MAX_CANDIDATES = 16,
    AC_NAME_LEN = 48,
    AC_MAX_ALGS = 128,
    AC_STR_LEN = 160
};

/* Parameter types: an integer in a range, the name of another collective's algorithm (the part
 * of a composite), or a free string (e.g. a reduction-tree specification; candidates are named
 * presets, any other value can be forced, quoted when it holds , : = ; or spaces). */
typedef enum { AC_PT_INT = 0, AC_PT_ALG, AC_PT_STR } ac_ptype_t;

struct ac_alg;

typedef struct {
    char name[AC_NAME_LEN];
    ac_ptype_t type;
    long min, max;                /* AC_PT_INT: accepted range */
    int ref_coll;                 /* AC_PT_ALG: which collective the value names an algorithm of */
    int ncand;                    /* candidate values (the first is the default) */
    long cand[AC_MAX_CANDIDATES]; /* AC_PT_INT */
    char cand_alg[AC_MAX_CANDIDATES][AC_NAME_LEN]; /* AC_PT_ALG and AC_PT_STR */
    const struct ac_alg
        *cand_ref[AC_MAX_CANDIDATES]; /* AC_PT_ALG: the records, set by the registry */
} ac_param_t;

typedef struct {
    long i;                   /* AC_PT_INT */
    const struct ac_alg *alg; /* AC_PT_ALG */
    char s[AC_STR_LEN];       /* AC_PT_STR */
} ac_pval_t;

/* One algorithm instance: registry entry plus one value per parameter. */
typedef struct ac_inst {
    const struct ac_alg *alg;
    ac_pval_t val[AC_MAX_PARAMS];
} ac_inst_t;

/* *dst = *src, copying only the parameter values in use (an instance is ~700 bytes, most of it
 * room for string values). */
static inline void ac_inst_copy(ac_inst_t *dst, const ac_inst_t *src);

struct ac_args;
struct ac_ctx;
typedef int (*ac_fn_t)(const struct ac_args *a, const ac_inst_t *in, struct ac_ctx *ctx);

typedef struct ac_alg {
    int coll;
    int index; /* position in its collective's list */
    const char *name;
    ac_fn_t fn;
    const char *group;
    unsigned flags; /* AUTOCOLL_R_* */
    const char *param_spec;
    const char *cost;
    const char *desc;
    int nparam;
    ac_param_t param[AC_MAX_PARAMS];
} ac_alg_t;

static inline void ac_inst_copy(ac_inst_t *dst, const ac_inst_t *src) {
    dst->alg = src->alg;
    if (src->alg && src->alg->nparam)
        memcpy(dst->val, src->val, (size_t)src->alg->nparam * sizeof src->val[0]);
}

/* ---------------------------------------------------------------- call arguments */

/* The argument record built by the interposition layer. Fields that a collective does not use
 * are zero/NULL. sbuf keeps MPI_IN_PLACE as the user passed it; inplace says so explicitly.
 * bytes is the selection size, identical on every rank (ac_args_finish, core/coll.c). */
typedef struct ac_args {
    int coll;
    const void *sbuf;
    void *rbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    const int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Op op;
    int root;
    int inplace;
    int commutative;
    int fixed_order; /* combine in rank order only: AUTOCOLL_REPRODUCIBLE on an order-sensitive
                        reduction (ac_args_finish; restriction AUTOCOLL_R_ANY_ORDER) */
    MPI_Comm ucomm;  /* the user's communicator (native path only) */
    MPI_Comm comm;   /* the private duplicate: all library traffic */
    int rank, size;
    size_t bytes;
    int bytes_local; /* 1 when bytes differs between ranks (alltoallv): never select on it */
    void *site;      /* return address of the MPI_<Coll> call */
    int tag_base;    /* this call's tag range on comm (AC_TAG) */
} ac_args_t;

/* ---------------------------------------------------------------- per-communicator context */

typedef enum {
    AC_PLACE_SINGLE = 0,
    AC_PLACE_SEQUENTIAL,
    AC_PLACE_CYCLIC,
    AC_PLACE_OTHER
} ac_place_t;

typedef struct {
    int valid, inplace, commutative, fixed_order, src, node_aware;
    unsigned gen; /* the select layer's generation when chosen */
    size_t bytes;
    ac_inst_t inst;
} ac_chosen_t;

/* The choice of a settled adaptive key kept with the inputs of its key (src/select/select.h):
 * its entry (opaque here; NULL: an empty way) and candidate; native: the MPI library's
 * algorithm when that is the candidate, else NULL. */
enum { AC_KEPT_WAYS = 4 };
typedef struct {
    void *entry;
    void *star; /* the entry's STAR state (ac_star_t, src/select/star.h) */
    const ac_alg_t *native;
    size_t bytes;
    MPI_Op op;
    int root, inplace, commutative, fixed_order, cand, node_aware;
    int raw; /* the key's inputs follow from the raw arguments alone: the operation is none or
                predefined, the order free (ac_raw_native, src/pmpi/dispatch.c) */
    unsigned gen;
} ac_kept_t;

typedef struct ac_ctx {
    MPI_Comm comm; /* private duplicate of the user's communicator */
    int rank, size;
    long id; /* creation number in this process (for logs) */

    /* Node layout (MPI_Comm_split_type SHARED). Nodes are numbered by their lowest rank. */
    MPI_Comm node_comm;   /* ranks on my node, ordered as in comm (made by ac_ctx_nodes) */
    MPI_Comm leader_comm; /* lowest rank of every node; MPI_COMM_NULL on non-leaders (idem) */
    int node_rank, node_size;
    int nnodes, node_id;
    int ppn_uniform; /* 1 when every node holds node_size ranks */
    ac_place_t placement;
    int *node_of;   /* node index of every rank of comm */
    int *leader_of; /* comm rank of the leader of every node */

    /* Scratch memory reused across calls (grown on demand, freed with the context). */
    void *scratch;
    size_t scratch_size;

    /* Last instance served per collective (for autocoll_last_choice and tests; alg NULL: none). */
    ac_inst_t last[AUTOCOLL_NCOLL];

    void *sel; /* the select layer's state of this context (the adaptive engine's), opaque here:
                * freed by the hook set with ac_ctx_set_free_hook */

    int slot;  /* calls dispatched on this communicator, modulo ac_g.tag_slots (AC_TAG) */
    int nodes; /* node_comm and leader_comm: 0 not made yet, 1 made, -1 failed */

    /* Tracing (src/pmpi/dispatch.c, trace_mpi.c): the call number of traced calls on this
     * communicator, and its key, the same on every member (0: not agreed yet). */
    unsigned long long calls;
    long long trace_key;

    /* The last forced or table choice per collective and what it was chosen for: the same
     * inputs (selection size, in-place, commutativity; communicator and settings fixed) give
     * the same choice (kept and read by src/select/select.h). */
    ac_chosen_t chosen[AUTOCOLL_NCOLL];
    /* The choices of up to AC_KEPT_WAYS settled adaptive keys per collective (select.h),
     * replaced in turn (kept_next). */
    ac_kept_t kept[AUTOCOLL_NCOLL][AC_KEPT_WAYS];
    int kept_next[AUTOCOLL_NCOLL];
    /* The last predefined datatype whose size the raw path asked (src/pmpi/dispatch.c,
     * ac_pass_raw), and that size: predefined types are never freed, so the handle names it. */
    MPI_Datatype raw_type;
    size_t raw_tsize;

    /* The switch-tree topology of this communicator and what is derived from it (src/topo/,
     * opaque here); NULL when no valid topology covers its ranks. Freed with topo_free. */
    void *topo;
    void (*topo_free)(void *topo);

    /* The grid broadcasts' state of this communicator (src/coll/bcast/grid_state.c, opaque
     * here), made by the first grid broadcast; freed with grid_free when the context goes. */
    void *grid;
    void (*grid_free)(void *grid);
} ac_ctx_t;

/* ---------------------------------------------------------------- core services */

/* settings.c */
typedef enum { AC_ONERR_NATIVE = 0, AC_ONERR_ERROR } ac_onerr_t;
typedef struct {
    int verbose;         /* AUTOCOLL_VERBOSE: 0 quiet, 1 decisions + summary, 2 every call */
    ac_onerr_t on_error; /* AUTOCOLL_ON_ERROR */
    int disable;         /* AUTOCOLL_DISABLE: pass every call to the MPI library */
    /* AUTOCOLL_NODE_LAYOUT: how ranks are grouped into nodes. AC_LAYOUT_AUTO asks MPI
     * (shared-memory domains); BLOCK groups node_param consecutive ranks, CYCLIC deals the ranks
     * over node_param nodes (to emulate a hierarchy, e.g. sockets, or to test on one machine). */
    enum { AC_LAYOUT_AUTO = 0, AC_LAYOUT_BLOCK, AC_LAYOUT_CYCLIC } node_layout;
    int node_param;
    char forced[AUTOCOLL_NCOLL][256]; /* AUTOCOLL_<COLL> as given */

    /* Selection mode and the adaptive engine (docs/settings.md, src/select/adapt.c). */
    enum { AC_MODE_ADAPTIVE = 0, AC_MODE_TABLE, AC_MODE_MODEL, AC_MODE_NATIVE } mode;
    char table[512];     /* AUTOCOLL_TABLE: tuning table to load ("" none) */
    char table_out[512]; /* AUTOCOLL_TABLE_OUT: where to write what was learned */
    int iter;            /* AUTOCOLL_ITER: timed calls per candidate and round (10) */
    double eps;          /* AUTOCOLL_EPSILON: monitoring tolerance (0.10) */
    int delta_max;       /* AUTOCOLL_DELTA_MAX: cap of the monitoring factor (64) */
    int stat;            /* AUTOCOLL_STAT: 0 auto (= max), 1 mean, 2 max */
    int grouping;        /* AUTOCOLL_GROUPING: probe group representatives first (1) */
    double margin;       /* AUTOCOLL_GROUP_MARGIN: also probe groups this close (0.25) */
    double prune;        /* AUTOCOLL_PRUNE: skip candidates predicted > K x the best (4; 0 off) */
    int exact_sizes;     /* AUTOCOLL_EXACT_SIZES: exact-size keys per collective (4) */
    int sites;           /* AUTOCOLL_SITES: per-call-site keys, checked at every call (0) */
    int check;           /* AUTOCOLL_CHECK: verify at every call that all ranks agree (0) */
    int reproducible;    /* AUTOCOLL_REPRODUCIBLE: floating-point reductions in rank order (0) */
    int fault;           /* AUTOCOLL_TEST_FAULT: collective whose results get corrupted (-1) */
    char cand[AUTOCOLL_NCOLL][512]; /* AUTOCOLL_CANDIDATES_<COLL>: comma list ("" = all) */
    char topology[512];             /* AUTOCOLL_TOPOLOGY: switch-tree topology file ("" none) */
    /* AUTOCOLL_TRACE, AUTOCOLL_TRACE_RECORDS, AUTOCOLL_TRACE_DIR as given: parsed and checked by
     * the trace layer (ac_trace_cfg_parse, src/trace/trace.c; docs/tracing.md) */
    char trace[64];
    char trace_records[32];
    char trace_dir[512];
    /* The adaptive engine's learning (docs/adaptive.md, "Learning cost"). */
    int learn;          /* AUTOCOLL_LEARN: 1 race (racing + no-regret), 0 classic (STAR's) (1) */
    double explore;     /* AUTOCOLL_EXPLORE: exploration budget, fraction of a key's time (0.10) */
    double race_margin; /* AUTOCOLL_RACE_MARGIN: base drop margin of the racing (0.10) */
    int race_iter;      /* AUTOCOLL_RACE_ITER: samples before a candidate can be chosen (3) */
    int transfer;       /* AUTOCOLL_TRANSFER: start keys from neighbouring sizes and shapes (1) */
    int rooted_probe;   /* AUTOCOLL_ROOTED_PROBE: two-call first probes, rooted collectives (0) */
    int defer;          /* AUTOCOLL_DEFER: decisions' reductions nonblocking, completed at the
                           key's next call (1) */
    /* Grid broadcast (seed 002, docs/grid-bcast.md, spec adaptive-bcast-grid.md section 17). */
    char grid_map[2048]; /* AUTOCOLL_GRID_CLUSTERS: "" none, "nodes", or "map:S.C,..." */
    int grid_map_n;      /* entries of a map (0: nodes or none) */
    int grid_map_nc;     /* distinct clusters of a map */
    double probe_period; /* AUTOCOLL_PROBE_PERIOD: seconds between measurement sweeps (300) */
    int probe_bytes;     /* AUTOCOLL_PROBE_BYTES: M of the bandwidth probe (262144) */
    int probe_reps;      /* AUTOCOLL_PROBE_REPS: round trips per median (10) */
    int sa_seed;         /* AUTOCOLL_SA_SEED (1) */
    int sa_delta_ms;     /* AUTOCOLL_SA_DELTA: 0 relative, 1 ms */
    int sa_budget_evals; /* AUTOCOLL_SA_BUDGET: 0 time, 1 evals */
    int sa_strict;       /* AUTOCOLL_SA_DEADLINE_STRICT (0) */
    int pool_max;        /* AUTOCOLL_POOL_MAX (16) */
    int npool_pcts;      /* AUTOCOLL_POOL_PCTS (10,25,50,75) */
    int pool_pcts[8];
    int adv_window;      /* AUTOCOLL_ADV_WINDOW (8) */
    int adv_gaplog;      /* AUTOCOLL_ADV_GAPMODEL: 0 linear, 1 log */
    double adv_fraction; /* AUTOCOLL_ADV_FRACTION: share of the gap the root may search (0.05) */
    int pack_max;        /* AUTOCOLL_BCAST_PACK_MAX (65536) */
    int grid_random;     /* AUTOCOLL_GRID_RANDOM_TREES: test aid, a random tree per call (0) */
    int prepost;         /* AUTOCOLL_PREPOST: receive pre-posting (0; docs/prepost.md) */
    /* AUTOCOLL_GRID_TREE_DIR: folder of the grid advisor's trees ("" none) */
    char grid_tree_dir[512];
    /* AUTOCOLL_GRID_NET: network file written by autocoll-netprobe ("" none: the broadcasts
     * measure in their own calls) */
    char grid_net[512];
    int probe_check;     /* AUTOCOLL_PROBE_CHECK: round trips of a sweep's check (1; 0 full) */
    double probe_change; /* AUTOCOLL_PROBE_CHANGE: departure that re-measures a pair (0.1) */
    double grid_margin;  /* AUTOCOLL_GRID_MARGIN: predicted gain needed over G2 (0.1) */
    int probe_early;     /* AUTOCOLL_PROBE_EARLY: a root's slow or fast send calls a sweep (1) */
} ac_settings_t;

/* Where problems with settings go: whole lines appended to buf; lines that no longer fit are
 * counted, and ac_errs_end then adds a last line saying how many were left out. */
typedef struct {
    char *buf;
    size_t len;
    int dropped;
} ac_errs_t;
void ac_errs_add(ac_errs_t *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ac_errs_end(ac_errs_t *e);

/* Parse a block of "NAME=VALUE\n" lines (the AUTOCOLL_* environment) into s. Problems are
 * appended to err (one per line) and the default is kept for that setting. */
void ac_settings_parse(ac_settings_t *s, const char *env_block, char *err, size_t errlen);
/* The AUTOCOLL_* variables of this process as a "NAME=VALUE\n" block (malloc'ed). */
char *ac_settings_env_block(void);
/* Clusters known for a communicator of p ranks on `nodes` nodes (AUTOCOLL_GRID_CLUSTERS): the
 * node count for "nodes", the map's cluster count when the map has p entries, else 0. */
int ac_grid_nclusters(int p, int nodes);
/* Site and cluster of every rank of ctx (numbered 0.. in order of their lowest rank). Returns
 * the number of clusters, 0 when none are declared for ctx. */
int ac_grid_layout(const struct ac_ctx *ctx, int *site, int *cluster);
/* Site and cluster of p ranks from a "map:S.C,..." value (the syntax of AUTOCOLL_GRID_CLUSTERS,
 * numbered the same way): the number of clusters, or -1 with the reason in why. */
int ac_grid_map_layout(const char *map, int p, int *site, int *cluster, char *why, size_t len);

/* state.c: process-wide state */
typedef struct {
    int initialized; /* MPI_Init seen (or lazily set up) */
    int finalized;
    int thread_level;
    ac_settings_t set;
    int world_rank;
    int tag_slots; /* call tag ranges available below MPI_TAG_UB (AC_TAG) */
} ac_state_t;
extern ac_state_t ac_g;
void ac_lock(void);
void ac_unlock(void);
/* After PMPI_Init: settings (rank 0's for everyone when collective is 1), tags, context keys.
 * The caller sets ac_g.initialized once the layers above are set up too. */
void ac_state_setup(int collective_settings);
/* The bytes of a regular file (malloc'ed, at most max bytes; a FIFO or device is refused, never
 * opened for blocking), or NULL with the reason in why. */
char *ac_file_read(const char *path, size_t max, size_t *len, char *why, size_t whylen);
/* The same file for every rank: world rank 0 reads it (every rank itself when collective is 0)
 * and broadcasts the bytes, NUL-terminated; NULL everywhere, with the reason on rank 0, when it
 * cannot be read or a rank is out of memory. Collective over MPI_COMM_WORLD when collective. */
char *ac_file_read_world(const char *path, size_t max, int collective, size_t *len, char *why,
                         size_t whylen);
void ac_state_teardown(void); /* before PMPI_Finalize */

/* log.c: messages go to stderr, prefixed "autocoll[rank]". */
void ac_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Log once per distinct key string in this process. */
void ac_log_once(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* context.c */
int ac_ctx_get(MPI_Comm comm, ac_ctx_t **ctx); /* creates on first use (collective) */
void ac_ctx_free_all(void);
int ac_ctx_init_keyval(void);
int ac_ctx_keyval(void);
/* The context of comm when it has one, else NULL; *inter is set for an intercommunicator
 * (tested on the first call only). No communication. */
ac_ctx_t *ac_ctx_peek(MPI_Comm comm, int *inter);
/* The last context found by this thread (ac_ctx_peek) and the generation of contexts then
 * (bumped whenever a context is destroyed: a cached pair of an earlier generation may name a
 * freed communicator whose handle was reused). */
typedef struct {
    MPI_Comm comm;
    ac_ctx_t *ctx;
    unsigned gen;
} ac_ctx_seen_t;
extern AC_TLS ac_ctx_seen_t ac_ctx_seen;
extern unsigned ac_ctx_gen;
/* ac_ctx_peek's answer when comm is the communicator this thread found last, else NULL. */
static inline __attribute__((always_inline)) ac_ctx_t *ac_ctx_peek_last(MPI_Comm comm) {
    return ac_ctx_seen.comm == comm &&
                   ac_ctx_seen.gen == __atomic_load_n(&ac_ctx_gen, __ATOMIC_ACQUIRE)
               ? ac_ctx_seen.ctx
               : NULL;
}
/* The context of comm when it has one (no communication), else NULL. */
ac_ctx_t *ac_ctx_lookup(MPI_Comm comm);
void *ac_ctx_scratch(ac_ctx_t *ctx, size_t bytes); /* NULL when out of memory */
/* Called with every context before it is freed (the layers above keep state in ctx->sel). */
void ac_ctx_set_free_hook(void (*fn)(ac_ctx_t *ctx));
/* Called with every new context once it is complete, on every rank (no communication allowed:
 * the layers above attach what they derive locally, e.g. the topology, src/topo/load.c). */
void ac_ctx_set_create_hook(void (*fn)(ac_ctx_t *ctx));
/* Makes node_comm and leader_comm (collective over ctx->comm, agreed); MPI_SUCCESS when they
 * exist. A failure is remembered: node-aware algorithms are then not run on this context. */
int ac_ctx_nodes(ac_ctx_t *ctx);
/* The ranks in group `to` of ranks 0..n-1 of group `from` (MPI_UNDEFINED where not in it), into
 * out[n]; ac_comm_ranks the same for the groups of two communicators. MPI_SUCCESS or an MPI
 * error code (MPI_ERR_NO_MEM). */
int ac_group_ranks(MPI_Group from, int n, MPI_Group to, int *out);
int ac_comm_ranks(MPI_Comm from, int n, MPI_Comm to, int *out);

/* coll.c: the argument record */
void ac_args_finish(ac_args_t *a);  /* computes bytes, inplace, commutative */
size_t ac_size_class(size_t bytes); /* lower bound of the power-of-two class */
int ac_op_predefined(MPI_Op o);     /* one of MPI's predefined reduction operations */
/* qsort comparator of doubles, ascending */
int ac_dbl_cmp(const void *x, const void *y);

/* coll.c: the list of collectives (include/autocoll_colls.def) and the catalogue of restrictions
 * (restrictions.def) */
const char *ac_coll_name(int coll);      /* NULL when out of range */
int ac_coll_from_name(const char *name); /* -1 when unknown */
int ac_coll_rooted(int coll);            /* bcast, reduce, gather, scatter */
int ac_coll_reduces(int coll);           /* takes an MPI_Op */
/* NULL when every restriction in flags holds in s, else the reason of the first that fails. */
const char *ac_restriction_reason(unsigned flags, const autocoll_situation_t *s);

/* inst.c: instances, read from the ac_alg_t records alone (no registry lookup) */
int ac_inst_count(const ac_alg_t *alg); /* 0 when its parameter spec is malformed */
void ac_inst_nth(const ac_alg_t *alg, int i, ac_inst_t *out);
void ac_inst_default(const ac_alg_t *alg, ac_inst_t *out);
/* "name" or "name:k=v,..." with every parameter written. */
void ac_inst_format(const ac_inst_t *in, char *buf, size_t len);
long ac_param_int(const ac_inst_t *in, const char *name);            /* -1 when missing */
const ac_alg_t *ac_param_alg(const ac_inst_t *in, const char *name); /* NULL when missing */
const char *ac_param_str(const ac_inst_t *in, const char *name);     /* NULL when missing */

/* dtype.c: datatype helpers, all byte arithmetic in size_t / MPI_Aint */
size_t ac_dt_size(MPI_Datatype t);
MPI_Aint ac_dt_extent(MPI_Datatype t);
/* Bytes spanned by count elements: true_extent + (count-1)*extent (0 when count == 0). */
size_t ac_dt_span(MPI_Datatype t, size_t count, MPI_Aint *true_lb);
int ac_dt_is_contig(MPI_Datatype t); /* size == extent == true extent, lb == true_lb == 0 */
/* Address of element number idx of a buffer of type t. */
static inline void *ac_dt_at(const void *buf, MPI_Datatype t, size_t idx) {
    return (char *)buf + (MPI_Aint)idx * ac_dt_extent(t);
}
/* Buffer able to hold count elements of t; *base is what to free. Returns the address to pass
 * as the buffer argument (adjusted by the true lower bound), NULL when out of memory. */
void *ac_dt_alloc(MPI_Datatype t, size_t count, void **base);
/* Copy (scount, stype) at src into (dcount, dtype) at dst; the type signatures must match
 * (any two type maps). Local only. */
int ac_dt_copy(const void *src, int scount, MPI_Datatype stype, void *dst, int dcount,
               MPI_Datatype dtype);

/* sig.c: the rank-invariant description of a non-reducing collective's data (see there). */
enum { AC_SIG_NBUF = 2 };
typedef struct {
    char *user; /* the caller's buffer */
    MPI_Datatype type;
    int nb, count; /* nb blocks of count x type */
    char *tmp;     /* packed copy */
    int out;       /* unpack into user at the end */
} ac_sig_buf_t;
typedef struct {
    int active;
    ac_args_t orig; /* the caller's description */
    int lg;         /* unit = 2^lg bytes */
    MPI_Datatype unit;
    int nbuf;
    ac_sig_buf_t buf[AC_SIG_NBUF];
    char *vtmp;     /* allgatherv: packed receive buffer */
    int *cnt, *dsp; /* allgatherv: counts and displacements in units */
} ac_sig_t;
int ac_sig_applies(int coll);
/* Rewrites *a (a copy of the caller's record) so that every buffer is described in the same
 * unit on every rank, packing non-contiguous inputs. Sets *native when no common unit exists
 * (the same on every rank): run the MPI library's collective with the original record. Returns
 * an MPI error code (out of memory, a failed copy). ac_sig_end unpacks the outputs and frees. */
int ac_sig_begin(ac_args_t *a, ac_sig_t *s, int *native);
int ac_sig_end(ac_sig_t *s, int err);
void ac_sig_teardown(void);

/* Tags on the private communicator. Every call on a communicator has its own tag range, drawn
 * from the communicator's call sequence (ac_ctx_t.slot, the same on every rank because MPI
 * orders the collectives of a communicator identically everywhere), so messages left over by
 * one call (after an error or an erroneous description) can never match a later call's
 * receives. Inside a call, each collective (the parts of a composite) has a data tag and a
 * synchronisation tag (tokens of light barriers). See docs/messages.md. */
enum { AC_TAG_BASE = 8192, AC_TAG_STRIDE = 2 * 16 };
_Static_assert(AUTOCOLL_NCOLL <= AC_TAG_STRIDE / 2, "two tags per collective in a call range");
#define AC_TAG(a) ((a)->tag_base + 2 * (a)->coll)
#define AC_TAG_SYNC(a) ((a)->tag_base + 2 * (a)->coll + 1)

/* Return on MPI error in algorithm code: `AC_CHECK(PMPI_Send(...));` jumps to fn_exit. */
#define AC_CHECK(call)                                                                             \
    do {                                                                                           \
        err = (call);                                                                              \
        if (err != MPI_SUCCESS) goto fn_exit;                                                      \
    } while (0)

/* state.c: 0 when the running MPI library is of the family this library was compiled for (or
 * when that cannot be told); otherwise 1 (stay dormant: pass every call through) or 2 (stop the
 * program) with the explanation in why ("" on ranks other than 0). Makes no MPI call but
 * MPI_Get_library_version (allowed before MPI_Init): call it first in MPI_Init and
 * MPI_Init_thread, before PMPI_Init. */
int ac_mpi_abi_check(char *why, size_t len);

#endif
