/*
 * Algorithm: k-port ((k+1)-nomial) scatter on virtual ranks v = (rank - root) mod p: a holder
 *   of R blocks starting at v splits them into k+1 sub-ranges of R/(k+1) blocks and sends the
 *   sub-ranges j = 1..k to v + j R/(k+1) concurrently (k nonblocking sends, then wait), then
 *   repeats on its own sub-range; non-powers of k+1 are handled by clipping ranges at p.
 * Cost: log_{k+1}(p) alpha + ((p-1)/k) n beta under the k-port model.
 * Restrictions: none. Memory: size(v) blocks on inner nodes, k requests.
 * Reference: seed 004 (Afsahi 2000), §5.5 S2_Fk (k+1)-nomial scatter (spec predictors-latency
 *   sections 5.4 and 5.7: dummies skipped).
 */
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_scatter_kport(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    ac_tree_t t = ac_tree_make(AC_TREE_KNOMIAL, (int)ac_param_int(in, "k") + 1, a->size);
    return ac_tree_scatter(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root,
                           a->rank, a->comm, AC_TAG(a), &t);
}
