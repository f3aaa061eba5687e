/*
 * Algorithm: ring: step s = 0 .. p-2: rank r sends block r - s - 1 to r + 1, receives block r - s -
 * 2 from r - 1 and combines it (received op own), so after p - 1 steps rank r holds block r
 *   reduced; the combination order follows the ring.
 * Cost: (p-1) alpha + ((p-1)/p) N (beta + gamma); N = whole vector.
 * Restrictions: COMMUTATIVE. Memory: one copy of the vector and one block.
 * Reference: seed 000 (Faraj 2006), ring family of spec star-stage-ethernet.md section 2.3/2.4
 * (reduce-scatter ring).
 */
#include <stdlib.h>
#include "../algs.h"
#include "../../sched/rs_core.h"

int ac_reduce_scatter_ring(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    (void)in;
    return ac_rs_rsc_ring(a, a->rcounts);
}
