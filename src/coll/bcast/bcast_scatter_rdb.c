/*
 * Algorithm: scatter + recursive-doubling allgather. The buffer is cut into p pieces of
 *   c = ceil(count/p) elements (the last ones short or empty); piece i belongs to virtual rank
 *   i = (rank - root) mod p. Binomial scatter: v receives pieces [v, v + subtree(v)) from its
 *   parent and passes each child c its range [c, c + subtree(c)). Allgather: with p' the largest
 *   power of two <= p and r = p - p', virtual ranks v >= p' first hand their piece to v - p';
 *   ranks v < p' then exchange with v xor 2^j (j = 0, 1, ...) everything they hold, i.e. the
 *   aligned group [g, g + 2^j) of pieces and its partner pieces [g + p', g + p' + 2^j); at the
 *   end v < r sends the whole buffer to v + p'.
 * Cost: scatter lg p alpha + ((p-1)/p) n beta; allgather lg p' alpha + n beta, plus 2(alpha +
 *   n beta) when p is not a power of two.
 * Restrictions: none. Memory: none.
 * Reference: seed 000 (Faraj 2006), §4.1.1.1 scatter-allgather broadcast (spec
 *   star-stage-ethernet section 2.5, bcast.scatter_ag, rdb instance; fold from section 2.1).
 */
#include "../../core/ac.h"
#include "../../sched/sched.h"
#include "../../sched/tree.h"

int ac_bcast_scatter_rdb(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    ac_pieces_t pc;
    int err = MPI_SUCCESS, p = a->size, pp = ac_floor_pof2(p), r = p - pp;
    if (p == 1 || a->rcount == 0) return MPI_SUCCESS;
    AC_CHECK(ac_pieces_scatter(&pc, a->rbuf, a->rcount, a->rtype, a->root, a->rank, p, a->comm,
                               AC_TAG(a)));
    /* Recursive-doubling allgather with fold (virtual ranks). */
    int v = pc.v;
    if (v >= pp) {
        AC_CHECK(ac_pieces_send(&pc, v, v + 1, v - pp));
        AC_CHECK(ac_pieces_recv(&pc, 0, p, v - pp));
        goto fn_exit;
    }
    if (v < r) AC_CHECK(ac_pieces_recv(&pc, v + pp, v + pp + 1, v + pp));
    for (int mask = 1; mask < pp; mask <<= 1) {
        /* my aligned group of pieces, then its folded partners [+ p'], against u's */
        int u = v ^ mask, g = v & ~(mask - 1), gu = u & ~(mask - 1);
        for (int sh = 0; sh <= pp; sh += pp)
            AC_CHECK(ac_pieces_sendrecv(&pc, g + sh, g + sh + mask, u, gu + sh, gu + sh + mask, u));
    }
    if (v < r) AC_CHECK(ac_pieces_send(&pc, 0, p, v + pp));
fn_exit:
    return err;
}
