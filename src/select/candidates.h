/*
 * The adaptive engine's candidates for a key (candidates.c): which instances it may try, in
 * which order, which are pruned by the cost models, and their STAR groups.
 */
#ifndef AC_CANDIDATES_H
#define AC_CANDIDATES_H

#include "select.h"
#include "model.h"

/* What predictions need to know of a communicator: p ranks on `nodes` nodes, at most ppn per
 * node, and its network (netmeasure.h). */
typedef struct {
    int p, nodes, ppn;
    ac_net_t net;
} ac_cand_env_t;

/* The candidates of call a on ctx, in probe order: every instance that can run the call (of
 * those named by AUTOCOLL_CANDIDATES_<COLL> when set), without those predicted more than
 * AUTOCOLL_PRUNE times slower than the best prediction, sorted by prediction (instances
 * without a model as early as the best one), ties in registry order. Fills the first (at most
 * max) into cand, pred (seconds; < 0: no model) and group (STAR group: the index of the
 * group's first candidate, its representative). Returns how many (0 when none);
 * *considered is the count before pruning. Identical on every rank; allocates nothing, so it
 * cannot fail on one rank only. Thread-safe. */
int ac_cand_build(const ac_ctx_t *ctx, const ac_args_t *a, const ac_cand_env_t *env, int max,
                  ac_inst_t *cand, double *pred, int *group, int *considered);

/* The candidate the cost models predict fastest (mode model): 0 and *out, or -1 when no
 * candidate has a model. */
int ac_cand_model_best(const ac_ctx_t *ctx, const ac_args_t *a, const ac_cand_env_t *env,
                       ac_inst_t *out);

#endif
