/*
 * Algorithm: 2D mesh: all-gather of whole send buffers over an x by y grid (x = largest divisor
 *   of p <= sqrt p, coordinates c0 = r mod x, c1 = r div x; ac_mesh_* in src/sched/mesh.c), then
 *   every rank copies out block `me` of every rank's buffer. Phase d exchanges everything held so
 *   far (the rows of the ranks equal to me in coordinates >= d, a contiguous rank range) with all
 *   peers of dimension d, posted in spreading order c_d + 1, c_d + 2, ...; prime p is one phase.
 * Cost: 2(sqrt p - 1) alpha + (p - 1) p n beta + theta + gamma; n = bytes of one block.
 * Restrictions: none. In place: works on copies. Memory: p^2 blocks.
 * Reference: seed 000 (Faraj 2006), section 4.1.1.1, STAR-MPI alltoall "2D mesh" (spec
 *   star-stage-ethernet.md 2.1, mesh algorithms).
 */
#include "a2a_util.h"

int ac_alltoall_mesh2d(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_a2a_gather_all(a, 2);
}
