/*
 * Alpha-beta(-gamma) cost models of every registered algorithm (model.c, models.def).
 *
 * A prediction is the time of one call under a 1-port alpha-beta model with two classes of
 * pairs (same node: a_intra, b_intra; different nodes: a_inter, b_inter), one NIC per node
 * shared by the node's ranks, sequential placement, and gamma seconds per byte reduced. The
 * model is used to order and prune candidates before measuring and as the default choice; it
 * never replaces a measurement. See the header of model.c for the variables, the terms and
 * the limits.
 */
#ifndef AC_MODEL_H
#define AC_MODEL_H

#include "select.h"

/* Network parameters. alpha: seconds per message; beta: seconds per byte; for pairs on
 * different nodes (inter) and on the same node (intra); gamma: seconds per byte reduced.
 * sync: measured cost of one PMPI_Barrier on the communicator (delta_h), 0 = derive it from
 * alpha (dissemination barrier). */
typedef struct {
    double a_inter, b_inter, a_intra, b_intra, gamma, sync;
} ac_net_t;

/* One case: p ranks on `nodes` nodes, at most ppn ranks per node, n = selection bytes of the
 * call (core/coll.c: a block for allgather/alltoall/gather/scatter/reduce_scatter_block, the
 * whole vector for bcast/reduce/allreduce, the total for allgatherv/reduce_scatter, this
 * rank's send bytes for alltoallv, 0 for barrier), commutative = the operation is. */
typedef struct {
    int p, nodes, ppn;
    double n;
    int commutative;
} ac_mcase_t;

/* Predicted seconds of one call of instance in on case c, or a negative value when there is
 * no model (native, or a part without model). Composite instances (parameters of type
 * alg(coll)) recurse into the part's model with the part's case. p <= 1 predicts 0. */
double ac_model_predict(const ac_inst_t *in, const ac_mcase_t *c, const ac_net_t *net);

/* Lower bound of collective coll on case c (latency ceil(log2 p) alpha with at least one
 * inter-node alpha on several nodes; the larger of the bandwidth of the busiest endpoint or
 * NIC and the reduction work spread over all ranks), for efficiency reports. Every model
 * predicts at least this much. */
double ac_model_bound(int coll, const ac_mcase_t *c, const ac_net_t *net);

/* Plausible defaults before anything is measured: intra a = 0.5 us, b = 1/10 GB/s; inter
 * a = 5 us, b = 1/5 GB/s; gamma = 1/5 GB/s; sync = 0 (derived). */
void ac_net_default(ac_net_t *net);

/* Fill a case; nodes and ppn are clamped to a consistent layout (1 <= nodes <= p, ppn >= the
 * average; ppn <= 0 means ceil(p / nodes)). */
void ac_mcase_set(ac_mcase_t *c, int p, int nodes, int ppn, double n, int commutative);

/* 1 when algorithm number alg of coll has a model. */
int ac_model_exists(int coll, int alg);

/* The entries of models.def in file order (for the coverage test): count, and entry i's
 * collective and algorithm name. Returns 0, or -1 when i is out of range. */
int ac_model_count(void);
int ac_model_entry(int i, int *coll, const char **name);

#endif
