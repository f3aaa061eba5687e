/*
 * Algorithm: scatter + ring allgather. The buffer is cut into p pieces of c = ceil(count/p)
 *   elements (the last ones short or empty: any count works); piece i belongs to virtual rank
 *   i = (rank - root) mod p. Binomial scatter as in scatter_rdb, then p-1 ring steps: at step s
 *   v sends piece (v - s) mod p to v+1 and receives piece (v - s - 1) mod p from v-1.
 * Cost: scatter lg p alpha + ((p-1)/p) n beta; ring (p-1)(alpha + (n/p) beta).
 * Restrictions: none. Memory: none.
 * Reference: seed 000 (Faraj 2006), §4.1.1.1 scatter-allgather broadcast with the logical ring
 *   allgather (spec star-stage-ethernet section 2.5, bcast.scatter_ag, LR resolution).
 */
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_bcast_scatter_ring(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    ac_pieces_t pc;
    int err = MPI_SUCCESS, p = a->size;
    if (p == 1 || a->rcount == 0) return MPI_SUCCESS;
    AC_CHECK(ac_pieces_scatter(&pc, a->rbuf, a->rcount, a->rtype, a->root, a->rank, p, a->comm,
                               AC_TAG(a)));
    for (int s = 0, v = pc.v; s < p - 1; s++) {
        int sp = (v - s + p) % p, rp = (v - s - 1 + 2 * p) % p;
        AC_CHECK(ac_pieces_sendrecv(&pc, sp, sp + 1, (v + 1) % p, rp, rp + 1, (v - 1 + p) % p));
    }
fn_exit:
    return err;
}
