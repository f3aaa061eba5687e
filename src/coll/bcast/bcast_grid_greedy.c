/*
 * Algorithm: earliest-arrival broadcast tree ("mateescu-approx"), the dynamic model-driven
 *   baseline of the source. From the matrices the root measured (grid_state.c), the root builds
 *   the tree greedily: with free(u) the time tree node u is next free (free(root) = 0), it
 *   repeatedly attaches the outside node v under the tree node u minimising
 *   free(u) + o[u] + L[u][v] + m/B[u][v], gives v that arrival time and advances free(u) by
 *   o[u] + m/B[u][v]; children are sent to in the order they were attached. The tree is rebuilt
 *   per size bucket when new matrices arrive and travels with the data exactly as in
 *   grid_adaptive (same header, packing, sequence tags and measurement sweeps); before the
 *   first sweep the static G2 tree is used.
 * Cost: the arrival time of the last node in the contention-free model of spec section 5,
 *   plus the header bytes; O(p^3) at the root per rebuild. Like Mateescu's trees it ignores
 *   shared WAN paths and tends to put several edges on one inter-site path.
 * Restrictions: AUTOCOLL_R_GRID. Memory: as grid_adaptive.
 * Reference: seed 002 (Gupta & Vadhiyar), §2.1 and §3 (Mateescu's heuristic); spec
 *   adaptive-bcast-grid.md section 12.
 */
#include "grid_bcast.h"

int ac_bcast_grid_greedy(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    return ac_grid_bcast_carried(a, ctx, AC_GRID_KIND_GREEDY);
}
