/*
 * autocoll — empirically tuned MPI collectives.
 *
 * Public API. Every MPI collective that autocoll intercepts can also be called directly through
 * autocoll_<coll>() with the MPI prototype; those calls go through the same selector as the
 * intercepted MPI_<Coll>().
 *
 * Forcing (autocoll_force) and the settings read from AUTOCOLL_* variables are process-local:
 * every rank of a communicator must force the same instance before calling the collective,
 * exactly as every rank must pass the same root. Settings from the environment are read by rank
 * 0 of MPI_COMM_WORLD at MPI_Init and broadcast, so they agree by construction.
 */
#ifndef AUTOCOLL_H
#define AUTOCOLL_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AUTOCOLL_VERSION_MAJOR 0
#define AUTOCOLL_VERSION_MINOR 1
#define AUTOCOLL_VERSION_PATCH 0

/* Collectives: AUTOCOLL_ALLGATHER (0), AUTOCOLL_ALLGATHERV, AUTOCOLL_ALLTOALL, AUTOCOLL_ALLTOALLV,
 * AUTOCOLL_BCAST, AUTOCOLL_REDUCE, AUTOCOLL_ALLREDUCE, AUTOCOLL_REDUCE_SCATTER,
 * AUTOCOLL_REDUCE_SCATTER_BLOCK, AUTOCOLL_GATHER, AUTOCOLL_SCATTER, AUTOCOLL_BARRIER, in the order
 * of the list autocoll_colls.def (installed beside this header). Names: autocoll_coll_name(). */
typedef enum {
#define AC_COLL(ID, NAME, ROOTED, REDUCES, SIZE, SIDE, FN) AUTOCOLL_##ID,
#include "autocoll_colls.def"
#undef AC_COLL
    AUTOCOLL_NCOLL
} autocoll_coll_t;

/* Restriction flags of an algorithm: a call that violates one never enters it. */
enum {
    AUTOCOLL_R_POF2 = 1 << 0,          /* communicator size is a power of two */
    AUTOCOLL_R_EVEN_P = 1 << 1,        /* communicator size is even */
    AUTOCOLL_R_COMMUTATIVE = 1 << 2,   /* the reduction operation is commutative */
    AUTOCOLL_R_NO_INPLACE = 1 << 3,    /* MPI_IN_PLACE not supported (non-rooted collectives) */
    AUTOCOLL_R_MULTINODE = 1 << 4,     /* ranks span more than one node */
    AUTOCOLL_R_UNIFORM_PPN = 1 << 5,   /* every node holds the same number of ranks */
    AUTOCOLL_R_P2 = 1 << 6,            /* exactly two processes */
    AUTOCOLL_R_TOPOLOGY_FILE = 1 << 7, /* needs a switch-tree topology file */
    AUTOCOLL_R_NATIVE = 1 << 8,        /* the MPI library's own collective (always applicable) */
    AUTOCOLL_R_ANY_ORDER = 1 << 9      /* combines contributions in an order of its own, not
                                          x_0 op (x_1 op (... op x_{p-1})): excluded where
                                          AUTOCOLL_REPRODUCIBLE applies (docs/reproducible.md) */
};
/* Needs at least two clusters known from AUTOCOLL_GRID_CLUSTERS (grid bcast algorithms). */
enum { AUTOCOLL_R_GRID = 1 << 16 };

typedef struct {
    const char *coll;        /* collective name, e.g. "allgather" */
    const char *name;        /* algorithm name, e.g. "ring" (stable, used in env and tables) */
    const char *group;       /* STAR-MPI group */
    unsigned restrictions;   /* AUTOCOLL_R_* */
    const char *params;      /* parameter specification, "" when none (see docs/registry.md) */
    const char *cost;        /* alpha-beta cost formula */
    const char *description; /* one line, with the source (seed and section) */
} autocoll_alg_info_t;

const char *autocoll_version(void);

/* Collectives: what the library knows of each (autocoll_colls.def). */
enum {
    AUTOCOLL_SIZE_NONE = 0, /* no data (barrier): 0 */
    AUTOCOLL_SIZE_BLOCK,    /* bytes of one rank's block */
    AUTOCOLL_SIZE_TOTAL,    /* bytes of the whole result vector (sum of the receive counts) */
    AUTOCOLL_SIZE_BUFFER,   /* bytes of the buffer */
    AUTOCOLL_SIZE_LOCAL     /* this rank's send bytes: differs between ranks, never selected on */
};
typedef struct {
    const char *name;     /* "allgather" */
    const char *mpi_name; /* the MPI function it replaces, "MPI_Allgather" */
    int rooted;           /* the call has a root */
    int reduces;          /* the call takes an MPI_Op */
    int size;             /* AUTOCOLL_SIZE_*: how the selection size is computed */
} autocoll_coll_info_t;
int autocoll_coll_info(int coll, autocoll_coll_info_t *info); /* MPI_SUCCESS/MPI_ERR_ARG */
/* The selection size of a call of coll on p processes in which every block (every rank's
 * contribution) holds `block` bytes (docs/tuning-table.md). */
unsigned long long autocoll_selection_size(int coll, unsigned long long block, int p);

/* The situation of a call, for the restriction checks. */
typedef struct {
    int p;           /* communicator size */
    int nodes;       /* nodes the communicator spans */
    int uniform_ppn; /* every node holds the same number of ranks */
    int commutative; /* the operation commutes (1 when the collective takes none) */
    int inplace;     /* MPI_IN_PLACE in a non-rooted collective */
    int topology;    /* a switch-tree topology file is loaded */
    int fixed_order; /* the call must combine in rank order: AUTOCOLL_REPRODUCIBLE=1 and a
                        floating-point (or user-defined) reduction */
} autocoll_situation_t;
/* NULL when an algorithm with these restrictions (AUTOCOLL_R_*) may run in situation s, else the
 * first restriction violated, in words ("needs a power-of-two number of processes"). */
const char *autocoll_restriction_reason(unsigned restrictions, const autocoll_situation_t *s);
/* What one restriction flag needs, in words ("" for AUTOCOLL_R_NATIVE; NULL for a bit that is no
 * restriction). */
const char *autocoll_restriction_text(unsigned flag);

/* The node layout the library uses for comm (MPI shared-memory domains, or the emulation set by
 * AUTOCOLL_NODE_LAYOUT). Collective over comm the first time the library sees comm. */
typedef struct {
    int p;              /* communicator size */
    int nodes;          /* nodes spanned */
    int ppn;            /* ranks per node when uniform, else the largest node */
    int uniform;        /* every node holds the same number of ranks */
    char placement[16]; /* "single", "sequential", "cyclic" or "other" */
} autocoll_layout_t;
int autocoll_layout(MPI_Comm comm, autocoll_layout_t *l); /* MPI_SUCCESS or an MPI error */
/* 1 when the switch-tree topology loaded from AUTOCOLL_TOPOLOGY covers comm, so that the
 * topology algorithms (restriction AUTOCOLL_R_TOPOLOGY_FILE) may run on it; 0 when no valid file
 * is loaded, before MPI_Init or after MPI_Finalize (docs/topology.md). Collective over comm the
 * first time the library sees comm. */
int autocoll_topology_applies(MPI_Comm comm);

/* Names and listing. */
const char *autocoll_coll_name(int coll);  /* NULL when out of range */
int autocoll_coll_from_name(const char *); /* -1 when unknown */
int autocoll_alg_count(int coll);
int autocoll_alg_info(int coll, int alg, autocoll_alg_info_t *info); /* MPI_SUCCESS/MPI_ERR_ARG */
/* Parameter instances of an algorithm: the cartesian product of every parameter's candidate
 * values. Writes "name" or "name:p=v,q=w" into buf (truncated to len, always terminated).
 * Returns the number of instances; buf is written only when 0 <= i < count. */
int autocoll_instance_count(int coll, int alg);
int autocoll_instance_name(int coll, int alg, int i, char *buf, int len);
/* Writes into buf the restrictions of an algorithm as "POF2|COMMUTATIVE" ("-" when none). */
int autocoll_restrictions_string(unsigned restrictions, char *buf, int len);

/* Forcing. spec is "name" or "name:param=value,...". NULL or "" removes the forcing.
 * Returns MPI_SUCCESS, or MPI_ERR_ARG with a message in the verbose log when spec is invalid. */
int autocoll_force(int coll, const char *spec);

/* The instance that served the last call of coll on comm from this process ("" when none). */
int autocoll_last_choice(MPI_Comm comm, int coll, char *buf, int len);

/* What the adaptive engine knows about one key of a communicator: the collective at a selection
 * size (docs/tuning-table.md defines it per collective; any value for alltoallv). Times are in
 * seconds; scores are the engine's (minimum over calls of the mean over ranks). */
typedef struct {
    long calls;       /* calls of the key so far */
    long probe_calls; /* calls spent in measurement rounds */
    long switches, decisions;
    long settled_at; /* call count when the first choice was made (0: still probing) */
    int candidates;  /* probed or probeable after pruning */
    int considered;  /* applicable before pruning */
    char chosen[128], runner_up[128];
    double chosen_time, runner_up_time;
    double probe_time;                     /* local time spent in probe calls */
    double bookkeeping_time, monitor_time; /* local time spent in the engine itself */
} autocoll_adaptive_info_t;
/* MPI_SUCCESS and *info filled when the engine has a key for (coll, bytes) on comm (the first
 * one found when several roots or operations share the size), MPI_ERR_ARG otherwise. Local. */
int autocoll_adaptive_info(MPI_Comm comm, int coll, unsigned long long bytes,
                           autocoll_adaptive_info_t *info);

/* ---------------------------------------------------------------- tuning tables
 * A tuning table (docs/tuning-table.md) is a JSON file of rules
 *   collective, communicator size range, nodes x ppn, message-size range -> algorithm instance
 * plus provenance. autocoll-tune and the adaptive engine write it; AUTOCOLL_TABLE=FILE loads it
 * (rank 0 reads the file and broadcasts it, so every rank holds the same rules).
 * Sizes are the per-collective selection size of docs/tuning-table.md, half-open [lo, hi);
 * hi == 0 means no upper bound. nodes == 0 or ppn == 0 means any. */
typedef struct autocoll_table autocoll_table_t;

/* Receives one problem found while loading or checking: where is a JSON path such as
 * "rules[3].algorithm" (or "file"), msg says what is wrong. */
typedef void (*autocoll_table_report_fn)(void *arg, const char *where, const char *msg);

autocoll_table_t *autocoll_table_new(void); /* NULL when out of memory */
void autocoll_table_free(autocoll_table_t *t);
/* Provenance: string key/value pairs ("mpi_library", "date", "timing", "hosts", ...). */
int autocoll_table_set_info(autocoll_table_t *t, const char *key, const char *value);
const char *autocoll_table_get_info(const autocoll_table_t *t, const char *key); /* NULL: unset */
/* Adds a rule; instance is "name" or "name:param=value,...". MPI_ERR_ARG when the collective,
 * the algorithm, a parameter or a range is invalid (nothing is added). */
int autocoll_table_add_rule(autocoll_table_t *t, int coll, int pmin, int pmax, int nodes, int ppn,
                            unsigned long long lo, unsigned long long hi, const char *instance);
int autocoll_table_rule_count(const autocoll_table_t *t);
/* Writes the table as JSON (atomically: a temporary file renamed over path). */
int autocoll_table_write(const autocoll_table_t *t, const char *path);
/* Reads and validates a table. Every problem goes to report (may be NULL); rules with a problem
 * are dropped, the others kept. Returns the table, or NULL when the file cannot be used at all
 * (unreadable, not JSON, wrong schema or version). *nproblems (may be NULL) counts problems. */
autocoll_table_t *autocoll_table_load(const char *path, autocoll_table_report_fn report, void *arg,
                                      int *nproblems);
/* The same from a buffer of len bytes (need not be terminated). */
autocoll_table_t *autocoll_table_parse(const char *buf, unsigned long long len,
                                       autocoll_table_report_fn report, void *arg, int *nproblems);
/* The instance the table chooses for a call, written into buf; 1 when a rule matches, else 0. */
int autocoll_table_lookup(const autocoll_table_t *t, int coll, int p, int nodes, int ppn,
                          unsigned long long bytes, char *buf, int len);
/* Exports for users who do not load autocoll: rules whose algorithm has a native twin.
 * Open MPI: a coll/tuned dynamic rules file; MPICH: a collective-selection (csel) JSON file.
 * Returns the number of rules exported, or -1 on error. */
int autocoll_table_export_ompi(const autocoll_table_t *t, const char *path);
int autocoll_table_export_mpich(const autocoll_table_t *t, const char *path);

/* Process arrival patterns (docs/tracing.md; needs AUTOCOLL_TRACE=collectives or all): per
 * (communicator, collective, call site) the statistics of seed 000's arrival patterns over the
 * traced calls so far. Times in seconds on rank 0's clock; T, the time of one message of the
 * call's size, is alpha + beta x bytes measured at MPI_Init. */
typedef struct {
    int coll;        /* autocoll_coll_t */
    int comm_leader; /* MPI_COMM_WORLD rank of the communicator's rank 0 */
    long comm_id;    /* that rank's number of the communicator (as in trace files) */
    int comm_size;
    char site[128];                /* call site of the communicator's rank 0: module+0xoffset */
    char instance[128];            /* instance of the first call */
    unsigned long long calls;      /* calls seen on every rank (the statistics are over these) */
    unsigned long long incomplete; /* calls missing on some rank (ring overwritten) */
    unsigned long long balanced;   /* calls with worst-case factor < 1; calls - balanced are
                                    * imbalanced */
    double bytes;                  /* mean selection size */
    double mean_time;              /* mean average per-node time of a call */
    double avg_imbalance;          /* mean of mean |a_i - mean a| */
    double worst_imbalance;        /* mean of max a_i - min a_i */
    double max_worst_imbalance;    /* largest max a_i - min a_i */
    double avg_factor, worst_factor, max_worst_factor; /* the same divided by T */
    int latest_rank;                 /* rank (in the communicator) most often last to arrive */
    unsigned long long latest_calls; /* how often it was */
} autocoll_arrival_t;
/* Collective over MPI_COMM_WORLD: every rank gets the same first max entries in out and the
 * number of groups in *count. MPI_ERR_OTHER when collective tracing is off, MPI_ERR_ARG on bad
 * arguments, MPI_ERR_NO_MEM when some rank ran out of memory. */
int autocoll_arrival_patterns(autocoll_arrival_t *out, int max, int *count);

/* Phases of the arrival patterns (docs/tracing.md): the calls of group `group` (its index in
 * the order of autocoll_arrival_patterns) cut into windows of `window` consecutive complete
 * calls (window <= 0: automatic, max(10, ceil(calls / 10))), with the statistics above per
 * window. A window is a spike when its mean worst-case factor is at least 1 and more than twice
 * the median over the group's windows. */
typedef struct {
    unsigned long long first_call, last_call; /* call numbers on the communicator, from 1 */
    unsigned long long calls, balanced;
    double mean_time, avg_imbalance, worst_imbalance, max_worst_imbalance;
    double avg_factor, worst_factor;
    int latest_rank; /* -1 none */
    unsigned long long latest_calls;
    int spike;
} autocoll_arrival_window_t;
/* Collective over MPI_COMM_WORLD, like autocoll_arrival_patterns: every rank gets the first max
 * windows and their number in *count. MPI_ERR_ARG also when group is not a group index. */
int autocoll_arrival_windows(int group, int window, autocoll_arrival_window_t *out, int max,
                             int *count);

/* Direct entry points (same prototypes and semantics as MPI). */
int autocoll_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                       MPI_Datatype rtype, MPI_Comm comm);
int autocoll_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                        const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm);
int autocoll_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                      MPI_Datatype rtype, MPI_Comm comm);
int autocoll_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                       MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[],
                       MPI_Datatype rtype, MPI_Comm comm);
int autocoll_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int autocoll_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                    MPI_Comm comm);
int autocoll_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm);
int autocoll_reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type,
                            MPI_Op op, MPI_Comm comm);
int autocoll_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type,
                                  MPI_Op op, MPI_Comm comm);
int autocoll_gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                    MPI_Datatype rtype, int root, MPI_Comm comm);
int autocoll_scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                     MPI_Datatype rtype, int root, MPI_Comm comm);
int autocoll_barrier(MPI_Comm comm);

#ifdef __cplusplus
}
#endif
#endif
