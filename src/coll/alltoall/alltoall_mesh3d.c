/*
 * Algorithm: 3D mesh: all-gather of whole send buffers over an x by y by z grid (x = largest
 *   divisor of p <= cbrt p, (y, z) the 2D shape of p / x; c0 = r mod x, c1 = (r div x) mod y,
 *   c2 = r div xy; ac_mesh_* in src/sched/mesh.c), one phase per dimension exchanging all rows
 *   held so far with the peers of that dimension; then every rank copies out block `me` of every
 *   rank's buffer.
 * Cost: 3(cbrt p - 1) alpha + (p - 1) p n beta + 2 theta + gamma; n = bytes of one block.
 * Restrictions: none. In place: works on copies. Memory: p^2 blocks.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1, STAR-MPI alltoall "3D mesh" (spec
 *   star-stage-ethernet.md 2.1, mesh algorithms).
 */
#include "a2a_util.h"

int ac_alltoall_mesh3d(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_a2a_gather_all(a, 3);
}
