/*
 * Network-aware broadcast trees for multi-cluster grids (seed 002, Gupta & Vadhiyar; spec
 * adaptive-bcast-grid.md sections 4.4, 5-10). Pure computation, no MPI: the stored network
 * description and its parser, the store-and-forward cost model with its child order and
 * critical path, simulated annealing (basicSA, driverSA), bandwidth pools and clusteredSA, and
 * the advisor's pieces (history regression, size buckets, budget plan, app_file reading, tree
 * store). Everything is deterministic given a seed and an evaluation budget.
 *
 * Node IDs are 0..n-1 (ranks of the broadcast communicator). Matrices are row-major n x n:
 * L[u * n + v] is the latency (s) from u to v, B[u * n + v] the bandwidth (bytes/s).
 * User guide: docs/grid-bcast.md.
 */
#ifndef AC_GRID_TREE_H
#define AC_GRID_TREE_H
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ random numbers */

/* splitmix64: one 64-bit state word, full period 2^64, same sequence on every platform. */
typedef struct {
    uint64_t s;
} ac_grid_rng_t;

void ac_grid_rng_seed(ac_grid_rng_t *r, uint64_t seed);
uint64_t ac_grid_rng_next(ac_grid_rng_t *r);
double ac_grid_rng_unif(ac_grid_rng_t *r);      /* uniform in [0, 1), 53 bits */
int ac_grid_rng_below(ac_grid_rng_t *r, int k); /* uniform in 0..k-1, k >= 1 */

/* ------------------------------------------------------------------ model and trees */

/* Node-level inputs of the cost model for one message size m (bytes). */
typedef struct {
    int n;
    double m;
    const double *o; /* o[v]: initiation cost (s) */
    const double *L; /* n x n latency (s) */
    const double *B; /* n x n bandwidth (bytes/s), > 0 off the diagonal */
} ac_grid_model_t;

/* A broadcast tree: parent array (parent[root] = -1) and the child lists in send order, in
 * CSR form (children of v are child[first[v] .. first[v+1]-1]). */
typedef struct {
    int n, root;
    int *parent; /* n */
    int *first;  /* n + 1 */
    int *child;  /* n - 1 (at least 1 slot) */
} ac_grid_tree_t;

int ac_grid_tree_alloc(ac_grid_tree_t *t, int n); /* 0 or -1 (out of memory) */
void ac_grid_tree_free(ac_grid_tree_t *t);

/* Structural check of a parent array: exactly one root (parent -1), every parent in range, every
 * node reached from the root exactly once (no cycle). Returns the root, or -1 with a reason. */
int ac_grid_check_parent(int n, const int *parent, char *err, size_t errlen);

/* Cost evaluator with its own workspace (no allocation per evaluation). */
typedef struct ac_grid_eval ac_grid_eval_t;
ac_grid_eval_t *ac_grid_eval_new(int n);
void ac_grid_eval_free(ac_grid_eval_t *e);

/*
 * cost(T) of section 5: children sorted by decreasing tail q(c) = L[v][c] + D(c) (ties: lower
 * ID first), D(v) = max_j (C_j + q(c_j)), cost = D(root); then R(v) top-down and the critical
 * leaf (largest R, ties lowest ID). parent must be a valid tree (ac_grid_check_parent).
 * O(n log n). Returns cost(T) in seconds.
 */
double ac_grid_cost(ac_grid_eval_t *e, const ac_grid_model_t *M, const int *parent);

/* Results of the last ac_grid_cost on e. */
const double *ac_grid_eval_R(const ac_grid_eval_t *e); /* R(v), n entries */
const double *ac_grid_eval_D(const ac_grid_eval_t *e); /* D(v), n entries */
int ac_grid_eval_critical_leaf(const ac_grid_eval_t *e);
/* Copy the sorted child order (CSR) of the last evaluation into t (t->parent too). */
void ac_grid_eval_tree(const ac_grid_eval_t *e, const int *parent, ac_grid_tree_t *t);

/* Random recursive tree over 0..n-1 rooted at root (section 8.1): parent array out. */
void ac_grid_random_tree(ac_grid_rng_t *r, int n, int root, int *parent);

/* ------------------------------------------------------------------ search settings */

enum { AC_GRID_DELTA_RELATIVE = 0, AC_GRID_DELTA_MS = 1 }; /* AUTOCOLL_SA_DELTA */
enum {
    AC_GRID_BUDGET_NONE = 0,
    AC_GRID_BUDGET_TIME = 1,
    AC_GRID_BUDGET_EVALS = 2
}; /* _SA_BUDGET */
enum { AC_GRID_MAX_PCTS = 8, AC_GRID_GOOD_CAP = 64, AC_GRID_MAX_LEVELS = 4 };

/* A budget: NONE (fixed mode: 50 + 25 basicSA runs per driverSA call), wall-clock seconds, or a
 * number of cost evaluations (bit-exact reruns). */
typedef struct {
    int mode;
    double amount; /* seconds (TIME) or evaluations (EVALS) */
    /* TIME only, optional (0: none): evaluations that use up the whole budget even if the clock
     * has not moved (the budget clock is the larger of the time and the evaluation share), so
     * that a timed search ends even where the clock stands still (simulated time). */
    double cap;
} ac_grid_budget_t;

/* Phases reported to the progress hook. */
enum { AC_GRID_PHASE_RANDOM = 0, AC_GRID_PHASE_REFINE = 1 };

typedef struct {
    uint64_t seed; /* AUTOCOLL_SA_SEED (1) */
    int delta;     /* AUTOCOLL_SA_DELTA (relative) */
    int strict;    /* AUTOCOLL_SA_DEADLINE_STRICT (0) */
    int pool_max;  /* AUTOCOLL_POOL_MAX (16) */
    int npcts;     /* AUTOCOLL_POOL_PCTS (10,25,50,75) */
    int pcts[AC_GRID_MAX_PCTS];
    int fixed_random, fixed_refine; /* fixed-mode run counts (50, 25) */
    /* Optional (ngroups 0: none): levels of declared groups, each an array of n group numbers
     * (e.g. level 0 the declared clusters, level 1 the sites). clusteredSA then splits a set
     * at recursion depth d that spans two or more groups of level d by those groups alone
     * (whatever its size) instead of the bandwidth pool sets, so every group is entered by one
     * edge: the model cannot see that edges leaving or entering one cluster or site share its
     * uplink, and bandwidth pools cannot separate clusters that reach each other at LAN speed.
     * Not owned. */
    const int *groups[AC_GRID_MAX_LEVELS];
    int ngroups;
    /* clusteredSA only: EVALS budgets and TIME caps count node-evaluations (an evaluation of a
     * k-node tree counts k), as the assumed rate of spec 16.4 is per evaluation per node; a
     * driverSA call over k nodes then gets amount / k evaluations. 0: plain evaluations. */
    int evals_per_node;
    /* Optional: called after every basicSA run of driverSA with the phase, the elapsed budget
     * (seconds or evaluations) and the best cost of this driverSA call so far. */
    void (*progress)(void *arg, int phase, double elapsed, double best);
    void *progress_arg;
} ac_grid_opts_t;

void ac_grid_opts_default(ac_grid_opts_t *o);

/* Counters over a search. */
typedef struct {
    long evals;        /* cost evaluations, all included */
    long basic_runs;   /* basicSA calls */
    long driver_calls; /* driverSA calls that ran SA (pools of 1 node do not) */
    long max_moves;    /* largest number of transforms in one basicSA run (<= 1680) */
    int root_moved;    /* set if any basicSA run returned a tree with another root */
} ac_grid_stats_t;

/* ------------------------------------------------------------------ good list (section 6.5) */

typedef struct {
    int n, count;
    double min;       /* lowest cost ever offered (+inf when none) */
    double min_stamp; /* budget clock when min last improved */
    int *parent;      /* AC_GRID_GOOD_CAP x n */
    double cost[AC_GRID_GOOD_CAP];
} ac_grid_good_t;

int ac_grid_good_init(ac_grid_good_t *g, int n); /* 0 or -1 */
void ac_grid_good_free(ac_grid_good_t *g);
/* Returns 1 when the cost is a new minimum, else 0. */
int ac_grid_good_offer(ac_grid_good_t *g, const int *parent, double cost);

/* ------------------------------------------------------------------ searches */

/* Search context: model, settings, PRNG, evaluator and counters. */
typedef struct ac_grid_search ac_grid_search_t;
ac_grid_search_t *ac_grid_search_new(const ac_grid_model_t *M, const ac_grid_opts_t *opt);
void ac_grid_search_free(ac_grid_search_t *s);
const ac_grid_stats_t *ac_grid_search_stats(const ac_grid_search_t *s);

/* basicSA (section 6.4) from parent_io (the tree's root never moves); on return parent_io holds
 * the best tree. good may be NULL (no list). Returns the best cost, or +inf (parent_io
 * unchanged) when parent_io is not a tree. */
double ac_grid_basic_sa(ac_grid_search_t *s, int *parent_io, ac_grid_good_t *good);

/* driverSA (section 8) on the whole model: root in 0..n-1, or -1 for "not in this node set"
 * (each random tree then gets a uniformly drawn root). Returns the best cost, tree in parent. */
double ac_grid_driver_sa(ac_grid_search_t *s, int root, ac_grid_budget_t budget, int *parent);

/* clusteredSA (section 9) over all n nodes from the broadcast root. Returns the cost of the
 * returned tree (parent array) on the full model. */
double ac_grid_clustered_sa(ac_grid_search_t *s, int root, ac_grid_budget_t budget, int *parent);

/* Number of driverSA calls clusteredSA will make (its dry run, section 9). */
long ac_grid_clustered_calls(const ac_grid_model_t *M, const ac_grid_opts_t *opt, int root);

/* ------------------------------------------------------------------ pools (section 7) */

/* Greedy sequential complete linkage on Bsym = min(B[u][v], B[v][u]) over the node set set[0..k-1]
 * (ascending IDs), threshold pct% of the largest entry including the diagonal. pool_of[i] is
 * the pool index (creation order) of set[i]. Returns the number of pools. O(k^2). */
int ac_grid_pools(const double *B, int n, const int *set, int k, int pct, int *pool_of);

/* ------------------------------------------------------------------ network file (section 4.4) */

enum { AC_GRID_NBUCKETS = 12 }; /* o_s buckets 1 KiB .. 2 MiB */

typedef struct {
    long version;
    double timestamp;
    int nc;       /* clusters */
    char **name;  /* nc names */
    double *Lc;   /* nc x nc latency (s) */
    double *Bc;   /* nc x nc bandwidth (bytes/s) */
    int np;       /* nodes */
    int *cluster; /* np: node -> cluster */
    int *nos;     /* np: 1 or AC_GRID_NBUCKETS o_s values given */
    double *os;   /* np x AC_GRID_NBUCKETS (seconds) */
} ac_grid_net_t;

void ac_grid_net_free(ac_grid_net_t *net);
/* Parse; on error returns -1 with "path:line: reason" in err. */
int ac_grid_net_read(const char *path, ac_grid_net_t *net, char *err, size_t errlen);
int ac_grid_net_parse(const char *text, const char *name, ac_grid_net_t *net, char *err,
                      size_t errlen);
/* Write atomically (temporary file in the same folder, then rename). 0 or -1 with err. */
int ac_grid_net_write(const char *path, const ac_grid_net_t *net, char *err, size_t errlen);

/* Node-level model of section 4.1 for size m: L, B (np x np) and o (np), caller-allocated. */
void ac_grid_net_expand(const ac_grid_net_t *net, double m, double *o, double *L, double *B);
/* o_s of node v at size m: linear in log2(m) between buckets, clamped at the ends. */
double ac_grid_net_os(const ac_grid_net_t *net, int v, double m);

/* ------------------------------------------------------------------ advisor (section 10) */

/* Size bucket b = round(log2(m)), m >= 1. */
int ac_grid_bucket(double m);

typedef struct {
    double t; /* call time (s) */
    double m; /* bytes */
} ac_grid_call_t;

enum { AC_GRID_GAP_LINEAR = 0, AC_GRID_GAP_LOG = 1 }; /* AUTOCOLL_ADV_GAPMODEL */

typedef struct {
    double size; /* clamped to [1, 2 x largest size seen] */
    double gap;  /* clamped to [0.05, 600] s */
    int bucket;  /* ac_grid_bucket(size) */
} ac_grid_pred_t;

/* Prediction from the history h[0..nh-1] (oldest first) over the last `window` records.
 * Returns 0 with no record (idle mode), else 1. */
int ac_grid_predict(const ac_grid_call_t *h, int nh, int window, int gapmodel, ac_grid_pred_t *out);

/* One step of the application-mode cycle: step 0, 1, 2 of the first cycle get 0.6G, 0.2G, 0.2G
 * of G = 0.9 x gap for buckets b, b+1, b-1; later steps G/3 each. */
typedef struct {
    int bucket;
    double size;   /* 2^bucket */
    double budget; /* seconds */
} ac_grid_plan_t;
void ac_grid_plan_step(const ac_grid_pred_t *p, long step, ac_grid_plan_t *out);
/* Idle mode: step k -> bucket 10 + (k mod 12) (1 KiB .. 2 MiB), no budget (fixed mode). */
void ac_grid_plan_idle(long step, ac_grid_plan_t *out);

/* Safe choice between the stored tree, a new search result and the static G2 tree, all costed
 * on the current matrices: the cheaper of new and stored (new on a tie only if strictly cheaper)
 * when it is below (1 - margin) x c_g2, else G2. margin outside [0, 1) counts as 0. */
enum { AC_GRID_PICK_G2 = 0, AC_GRID_PICK_NEW = 1, AC_GRID_PICK_OLD = 2 };
int ac_grid_safe_choice(double c_new, double c_old, double c_g2, double margin);

/* Incremental sweep: 1 when a check of a cluster pair (median round trips t1 of 1 byte and tm
 * of M bytes) departs by more than thr (fraction) from 2L and 2L + M/B, or L, B are unusable. */
int ac_grid_probe_changed(double t1, double tm, double M, double L, double B, double thr);

/* app_file (section 10.3, 11): BEGIN/END/BCAST lines. */
typedef struct {
    int app_mode; /* a BEGIN without its END */
    int comm_size, root_hint;
    int nh;            /* BCAST records since the BEGIN of the open session */
    ac_grid_call_t *h; /* (time, size) */
    int *root;         /* root of each record */
} ac_grid_app_t;
void ac_grid_app_free(ac_grid_app_t *a);
int ac_grid_app_read(const char *path, ac_grid_app_t *a, char *err, size_t errlen);
int ac_grid_app_parse(const char *text, const char *name, ac_grid_app_t *a, char *err,
                      size_t errlen);

/* Tree store (section 10.4): one file per key in a folder. */
typedef struct {
    int root, n, bucket;
    uint64_t comm_id;
} ac_grid_key_t;

typedef struct {
    long matrix_version;
    double created, cost;
} ac_grid_meta_t;

/* File name of a key inside dir. 0 or -1 (too long). */
int ac_grid_store_path(const char *dir, const ac_grid_key_t *k, char *out, size_t outlen);
/* Write t (parent and send order) atomically. 0 or -1 with err. */
int ac_grid_store_write(const char *dir, const ac_grid_key_t *k, const ac_grid_meta_t *meta,
                        const ac_grid_tree_t *t, char *err, size_t errlen);
/* Read and validate (key, spanning tree rooted at root, CSR consistent with parent).
 * Returns 0, 1 when no file exists, -1 with "path:line: reason". t is allocated here. */
int ac_grid_store_read(const char *dir, const ac_grid_key_t *k, ac_grid_meta_t *meta,
                       ac_grid_tree_t *t, char *err, size_t errlen);
/* Replacement rule of section 10.2: re-evaluate the stored tree with the current model and write
 * t only if its cost is lower (or nothing valid is stored). Returns 1 written, 0 kept, -1 error. */
int ac_grid_store_offer(const char *dir, const ac_grid_key_t *k, const ac_grid_model_t *M,
                        long matrix_version, double now, const int *parent, char *err,
                        size_t errlen);

/* ------------------------------------------------------------------ baselines and transport */

/* MPICH-G2-style static tree (spec section 12) over ranks 0..n-1 with site[] and cluster[]
 * labels (a cluster lies in one site): the root sends to the lowest rank of every other site
 * (site order = order of lowest ranks), each site's entry node (the root in its own site) to
 * the lowest rank of every other cluster of its site, and each cluster's entry node runs a
 * binomial tree over the cluster's ranks (in rank order, rotated to the entry). Children in
 * send order: other sites, other clusters of the site, then binomial children largest subtree
 * first. t must be allocated for n. O(n^2) in the worst case, O(n) per cluster. */
void ac_grid_g2_tree(int n, int root, const int *site, const int *cluster, ac_grid_tree_t *t);

/* Earliest-arrival approximation of Mateescu's tree (spec section 12, "mateescu-approx"):
 * free(root) = 0; repeatedly attach the outside node v under the tree node u minimising
 * free(u) + o[u] + L[u][v] + m/B[u][v] (ties: lowest u, then lowest v), set R(v) = free(v) to
 * that value and advance free(u) by o[u] + m/B[u][v]. Children in the order attached, which is
 * their send order. O(n^3). Returns the arrival time of the last node. */
double ac_grid_greedy_tree(const ac_grid_model_t *M, int root, ac_grid_tree_t *t);

/* Preorder description of a tree carried with a broadcast (spec section 11.4): pairs
 * (rank, number of children), the subtree of v first, then each child's subtree in send order.
 * ac_grid_pre_encode writes the subtree of v into out (2 x its size int32 values) and returns
 * the number of pairs. */
int ac_grid_pre_encode(const ac_grid_tree_t *t, int v, int32_t *out);
/* Splits a received preorder description pre[0..npairs-1] (pairs) whose first node is me:
 * for each child k, its rank, the first pair of its slice and the slice's length in pairs.
 * Checks ranks in 0..n-1, counts consistent, the whole description used. Returns the number
 * of children, or -1 when the description is malformed. */
int ac_grid_pre_split(const int32_t *pre, int npairs, int n, int me, int *crank, int *cfirst,
                      int *clen);

#endif
