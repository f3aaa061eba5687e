/*
 * Shared-link charge and relay step of grid_adaptive's trees (seed 002 §2.2-§2.4, spec
 * adaptive-bcast-grid.md sections 5 and 9; autocoll's extension). Pure computation on the
 * node-level model, no MPI. docs/grid-bcast.md, "Relays".
 */
#ifndef AC_GRID_RELAY_H
#define AC_GRID_RELAY_H
#include "../../sched/grid_tree.h"

/* grid_adaptive's relay step: at most 8 moves, taken when 2 % cheaper in the shared cost. */
#define AC_GRID_RELAY_PASSES 8
#define AC_GRID_RELAY_GAIN 0.02
/* Weight of the hedge: the cost on the lowest bandwidths ever measured. */
#define AC_GRID_HEDGE 0.1

/* Workspace of the shared-link cost for one model and one site labelling (not owned). */
typedef struct ac_grid_shared ac_grid_shared_t;

/* site[v]: site of node v (0..n-1 labels). NULL when out of memory. O(n^2) (site capacities). */
ac_grid_shared_t *ac_grid_shared_new(const ac_grid_model_t *M, const int *site);
void ac_grid_shared_free(ac_grid_shared_t *s);

/* Cost of section 5 with the sites' links shared: where two or more distinct nodes of a site
 * send out of it (or two or more distinct senders send into it), every such edge gets at most
 * max(cap - sum of the other senders' rates, cap / k) bytes/s, cap the largest bandwidth
 * measured out of (into) the site, k the number of senders, a sender's rate its fastest edge
 * across the site's border. Trees with one sender out of and one edge into every site (the
 * G2 family) cost exactly ac_grid_cost. parent must be a valid tree. */
double ac_grid_shared_cost(ac_grid_shared_t *s, const int *parent);

/* Hedge (may be NULL to remove): ac_grid_shared_cost(s, .) then returns its own cost plus
 * lambda x ac_grid_shared_cost(h, .), h a workspace on other bandwidths of the same nodes and
 * sites (grid_adaptive: the lowest bandwidth each edge ever had in a sweep). Not owned. */
void ac_grid_shared_hedge(ac_grid_shared_t *s, ac_grid_shared_t *h, double lambda);

/* Bandwidth of the edge parent[y] -> y in the tree `parent` after the charge above (the
 * model's bandwidth when the edge stays in one site or nothing is charged); 0 at the root. */
double ac_grid_shared_bw(ac_grid_shared_t *s, const int *parent, int y);

/* Relay step: for each edge u->v entering a cluster (cluster[u] != cluster[v]), try as v's
 * parent every node w outside v's cluster and v's subtree, and each child f of v in another
 * cluster in v's place (f under u, v under f); take the move that lowers the shared cost
 * most, repeat (at most `passes` moves). parent is changed only when the final
 * shared cost is below (1 - gain) x the starting one. Returns the shared cost of the tree in
 * parent; *evals (may be NULL) receives the number of evaluations made. */
double ac_grid_relay_refine(ac_grid_shared_t *s, const int *cluster, int passes, double gain,
                            int *parent, long *evals);

#endif
