/*
 * Grid broadcasts (seed 002, Gupta & Vadhiyar; spec adaptive-bcast-grid.md sections 4, 10-12):
 * per-communicator state (site/cluster layout, measured cluster matrices, advisor history and
 * the tree store kept in memory), the measurement sweep between cluster representatives, the
 * advisor step, and the transport that carries a tree with the data. docs/grid-bcast.md.
 */
#ifndef AC_GRID_BCAST_H
#define AC_GRID_BCAST_H
#include "../../core/ac.h"
#include "../../sched/grid_tree.h"

enum { AC_GRID_KIND_ADAPTIVE = 0, AC_GRID_KIND_GREEDY = 1, AC_GRID_NKIND = 2 };
enum { AC_GRID_NB = 48, AC_GRID_HIST = 64 };

typedef struct {
    ac_grid_tree_t t;
    int valid, searched; /* a tree is held; a search ran at `version` */
    int looked;          /* AUTOCOLL_GRID_TREE_DIR was looked at for this slot */
    long version;        /* matrix version the tree was judged on */
    double cost;         /* model cost at that version */
} ac_grid_slot_t;

typedef struct ac_grid_comm {
    int p, nc;
    int netprobe; /* the state of autocoll-netprobe's processes, not of a communicator's */
    int *site, *cluster, *rep, *second; /* rep/second: lowest two ranks of each cluster */
    /* Measurements, held by the rank that was root when they were taken. */
    long version; /* 0: none yet */
    double probe_time;
    double *Lc, *Bc, *oc; /* nc x nc, nc x nc, nc */
    double *L, *B, *o;    /* node-level expansion (spec section 4.1) */
    ac_grid_tree_t g2;    /* the static tree of the last root it was built for */
    int g2_root;
    ac_grid_slot_t slot[AC_GRID_NKIND][AC_GRID_NB]; /* per bucket, for root slot_root */
    int slot_root;
    ac_grid_call_t hist[AC_GRID_HIST]; /* broadcasts rooted here (time, bytes), oldest first */
    int nh;
    long calls;     /* grid broadcasts on this communicator */
    double adv_cpu; /* advisor CPU seconds spent (root side) */
    long adv_runs;  /* searches run */
    long probes;    /* sweeps run */
    /* AUTOCOLL_GRID_TREE_DIR: file key of this communicator (its context's creation number at
     * the root), trees written and read, files refused, 1 after a failed write (no more). */
    uint64_t comm_id;
    long trees_written, trees_read, trees_refused;
    int store_off;
    /* Load response (AUTOCOLL_PROBE_EARLY): a sweep is due at the root's next broadcast because
     * one of its own sends departed from the model; early sweeps run. */
    int probe_due;
    long early;
    /* AUTOCOLL_GRID_NET (root): identity of the file last looked at (inode, size, mtime in
     * ns), the version of it installed (-1: none), versions taken, files refused, 1 while it
     * is missing. */
    uint64_t net_ino, net_size, net_mtime;
    long net_version, net_taken, net_refused;
    int net_missing;
    ac_grid_eval_t *ev; /* evaluator of the per-call safe choice (AUTOCOLL_GRID_MARGIN) */
    /* Edge reports (AUTOCOLL_PROBE_EARLY, root): last bandwidth seen on each edge u -> v,
     * bytes / (time - o - L), p x p, 0 where never seen; reports received; sweeps they called. */
    double *seen_bw;
    /* Lowest bandwidth each node pair had in any published matrices (p x p, root): the hedge
     * of the relay step (grid_relay.h, AC_GRID_HEDGE). */
    double *Bmin;
    long reports, report_early;
    /* Reports of the root's last broadcast, received in the background and checked at the
     * next grid broadcast on this communicator (or when the state goes): pend_n requests
     * from pend_who[i], 2 pend_cnt[i] doubles at pend_rec + pend_off[i]; the tree's parent
     * array and the message bytes of that call. */
    int pend_n;
    MPI_Request *pend_rq;
    int *pend_who, *pend_off, *pend_cnt, *pend_parent;
    double *pend_rec, pend_bytes;
} ac_grid_comm_t;

/* The state of ctx, made on first use and kept in ctx->grid (freed with the context: when the
 * user frees the communicator, or at MPI_Finalize for the predefined ones). NULL when out of
 * memory or no clusters are declared. */
ac_grid_comm_t *ac_grid_comm_get(ac_ctx_t *ctx);
/* The same state for p ranks of a given layout (clusters numbered 0..nc-1 by lowest rank), not
 * tied to a context (autocoll-netprobe), freed by ac_grid_comm_free. NULL when out of memory. */
ac_grid_comm_t *ac_grid_comm_new(int p, uint64_t id, const int *site, const int *cluster, int nc);
void ac_grid_comm_free(ac_grid_comm_t *g);

/* The cluster matrices of g as the network file of spec 4.4 at path (one o_s per node, its
 * cluster's; clusters named c0, c1, ...), replaced atomically. 0, or -1 with the reason. */
int ac_grid_net_save(const ac_grid_comm_t *g, const char *path, char *err, size_t errlen);

/* Root only, AUTOCOLL_GRID_NET=FILE: when the file changed since it was last looked at (inode,
 * size, modification time), read it and, if its version is new, take its cluster matrices as
 * this communicator's (a new matrix version). A file that cannot be read or does not describe
 * this communicator's clusters gives one message per change of the file and is not used. */
void ac_grid_net_load(ac_grid_comm_t *g);

/* autocoll-netprobe (grid_netprobe.c): the measurement of spec section 4 in processes of their
 * own, so that no broadcast pays for it. ac_grid_netprobe_new is collective over comm (one or
 * two ranks per cluster, laid out by map, "map:S.C,..."); each ac_grid_netprobe_sweep, also
 * collective, runs one sweep (full first, then incremental) and rank 0 writes the network file
 * (docs/grid-bcast.md, "Network file") at path, atomically, whenever the matrices changed. */
typedef struct ac_grid_netprobe ac_grid_netprobe_t;
int ac_grid_netprobe_new(MPI_Comm comm, const char *map, const char *path, ac_grid_netprobe_t **out,
                         char *why, size_t len);
int ac_grid_netprobe_sweep(ac_grid_netprobe_t *np);
void ac_grid_netprobe_free(ac_grid_netprobe_t *np);

/* Measurement sweep of spec section 4.2 coordinated by root, on a->comm with AC_TAG_SYNC(a);
 * every rank calls it (ranks that hold no representative role return at once). The root ends
 * with new matrices (version + 1). */
int ac_grid_probe(ac_grid_comm_t *g, const ac_args_t *a);

/* Root only: the tree to use for m bytes (kind adaptive: the stored tree of bucket(m), else of
 * bucket(m) +- 1, else the static tree; greedy: built on demand per bucket and matrix version).
 * *version receives the matrix version the tree belongs to (0 for the static tree). */
const ac_grid_tree_t *ac_grid_tree_for(ac_grid_comm_t *g, int kind, int root, double m,
                                       long *version);

/* Root only, after its sends: record the call and, for kind adaptive, spend at most
 * AUTOCOLL_ADV_FRACTION of the time since the previous broadcast on searching the predicted
 * buckets (spec section 10.2); nothing when the trees already match the current matrices. */
void ac_grid_advise(ac_grid_comm_t *g, int root, double m, double now);

/* Root only: its blocking send of `bytes` to `child` took `secs` (a message above the packing
 * limit, so the send ended at delivery). When that departs from the model's o + L + bytes/B by
 * more than AUTOCOLL_PROBE_CHANGE, a sweep is made due at the next broadcast
 * (AUTOCOLL_PROBE_EARLY=1). */
void ac_grid_edge_seen(ac_grid_comm_t *g, int root, int child, double bytes, double secs);

/* Root only, AUTOCOLL_VERBOSE=2: log the tree of this call with its model cost and G2's. */
void ac_grid_log_choice(ac_grid_comm_t *g, int root, double m, const ac_grid_tree_t *t);

/* Root only: the other senders' reports of one call, edges u[i] -> v[i] of tree t that took
 * secs[i] for `bytes` (above the packing limit, so each send ended at delivery). A sweep is
 * made due at the next broadcast (AUTOCOLL_PROBE_EARLY=1) when an edge departs by more than
 * AUTOCOLL_PROBE_CHANGE both from the model (below its time with the plain bandwidth, above it
 * with the bandwidth charged for shared site links, grid_relay.h) and from the bandwidth
 * seen on the same edge before (if it was seen), so that a lasting mismatch of the model
 * calls no sweep after the first. */
void ac_grid_reports_seen(ac_grid_comm_t *g, const int *parent, int ne, const int *u, const int *v,
                          const double *secs, double bytes);

/* Root, after its sends: post the receives of the reports of every other node of tree t that
 * sends into another cluster (they are checked by ac_grid_reports_finish). */
int ac_grid_reports_post(ac_grid_comm_t *g, const ac_args_t *a, const ac_grid_tree_t *t,
                         double bytes);
/* Complete and check the reports posted at an earlier broadcast (no-op when none). The
 * reporters sent them during that broadcast, so the wait cannot block on a later call. */
int ac_grid_reports_finish(ac_grid_comm_t *g);

/* The transport of spec section 11 for kinds adaptive and greedy. */
int ac_grid_bcast_carried(const ac_args_t *a, ac_ctx_t *ctx, int kind);

#endif
