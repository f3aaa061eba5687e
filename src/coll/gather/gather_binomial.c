/*
 * Algorithm: binomial gather on virtual ranks v = (rank - root) mod p: the subtree of v is the
 *   contiguous range [v, v + size(v)); v collects its children's ranges into a buffer in
 *   virtual order (its own block first) and sends it to its parent in one message. A range that
 *   wraps past rank p-1 is sent to the root as two messages, which the root receives straight
 *   into rbuf (blocks of ranks r..p-1, then 0..).
 * Cost: lg(p) alpha + (p-1) n beta.
 * Restrictions: none. Memory: size(v) blocks on inner nodes.
 * Reference: seed 000 (Faraj 2006), §4.1.1.1 (binomial gather inside gather-bcast; corrected
 *   estimate lg(p) alpha + (p-1) n beta, spec star-stage-ethernet section 2.2); seed 004
 *   (Afsahi 2000) §5.5 S2 reversed.
 */
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_gather_binomial(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    ac_tree_t t = ac_tree_make(AC_TREE_KNOMIAL, 2, a->size);
    return ac_tree_gather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root,
                          a->rank, a->comm, AC_TAG(a), &t);
}
