/*
 * Network parameters for the cost models (netmeasure.c): alpha and beta measured by ping-pong
 * on a communicator, gamma by a local reduction. Used by the adaptive engine to predict, order
 * and prune its candidates (candidates.h).
 */
#ifndef AC_NETMEASURE_H
#define AC_NETMEASURE_H

#include "select.h"
#include "model.h"

/* Measures ctx's communicator: alpha/beta between rank 0 and the first rank on its node
 * (intra-node) and the first rank on another node (inter-node), one pair standing for both when
 * only one exists (defaults of ac_net_default when neither does); gamma from a local reduction
 * on rank 0. Rank 0's figures are broadcast, so every rank gets the same *net. Collective over
 * ctx->comm; at AUTOCOLL_VERBOSE >= 1 rank 0 logs the figures. light: fewer and smaller
 * round trips (the racing learner's; netmeasure.c). known (non-NULL on every rank or on none,
 * read on rank 0 only): no measurement, rank 0's *known is broadcast instead. The figures are
 * kept in the process for ac_net_lookup. */
void ac_net_measure(const ac_ctx_t *ctx, ac_net_t *net, int light, const ac_net_t *known);

/* 1 and *out when this process kept figures of a communicator of ctx's shape (size, nodes,
 * ranks per node) measured the same way (light), else 0. Local. */
int ac_net_lookup(const ac_ctx_t *ctx, int light, ac_net_t *out);

#endif
