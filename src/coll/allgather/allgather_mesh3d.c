/*
 * Algorithm: 3D mesh: the ranks form an x-by-y-by-z grid (x = largest divisor of p not above
 *   floor(cbrt p), (y, z) = the 2D shape of p/x; r at (r mod x, (r div x) mod y, r div xy);
 *   e.g. 8 = 2x2x2, 12 = 2x2x3, 16 = 2x2x4, 18 = 2x3x3, prime p = 1x1xp). Three phases, one per
 *   dimension, exactly as allgather_mesh2d.c: in phase d a rank exchanges everything it holds
 *   with the g_d - 1 ranks differing only in coordinate d (spreading order). Dimensions of size
 *   1 are skipped.
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b] (ag_common.h).
 * Cost: 3(cbrt(p)-1) alpha + (p-1) n beta + 2 theta; n = bytes of a block.
 *   allgatherv: 3(cbrt(p)-1) alpha + sum n_j beta; n_j = bytes of block j.
 * Restrictions: none. Memory: 2(g_d - 1) requests, block lists.
 * Reference: seed 000 (Faraj 2006) section 4.1.1.1; spec star-stage-ethernet.md 2.1 (dims3).
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include "ag_common.h"

int ac_allgather_mesh3d(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_agx_mesh(a, 3);
}
