/*
 * Algorithm: in-order binary tree for non-commutative operations, over REAL ranks: the root r
 *   covers [0, p); its children are the middles of [0, r) and [r+1, p); a node m covering
 *   [lo, hi) has children mid[lo, m) and mid[m+1, hi) (mid[a, b) = a + (b-a)/2). Every subtree
 *   is a contiguous rank range containing its node, so m computes L op x_m op R (R first:
 *   acc = x_m op R, then acc = L op acc) and sends it up; the root ends with x_0 op ... op
 *   x_{p-1}. No final hop to the root is needed.
 * Cost: (ceil(lg max(r, p-r-1)) + 1) levels of 2(alpha + n beta + n gamma).
 * Restrictions: none. Memory: two vectors on inner nodes.
 * Reference: seed 000 (Faraj 2006), §4.1.1.1 tree reductions; rank-ordered combination as MPI
 *   requires for non-commutative operations (spec star-stage-ethernet section 2.4, operand
 *   order; ac_inorder_node in src/sched/tree.h).
 */
#include "../../core/ac.h"
#include "../../sched/tree.h"
#include <stdlib.h>

int ac_reduce_inorder(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, n = a->rcount, tag = AC_TAG(a);
    int parent, left, right, lo, hi;
    MPI_Datatype t = a->rtype;
    const void *mine = a->inplace ? a->rbuf : a->sbuf;
    void *accbase = NULL, *tmpbase = NULL;
    char *acc = NULL, *tmp = NULL;
    if (n == 0) return MPI_SUCCESS;
    ac_inorder_node(a->size, a->root, a->rank, &parent, &left, &right, &lo, &hi);
    const void *out = mine;
    if (left >= 0 || right >= 0) {
        acc = ac_dt_alloc(t, (size_t)n, &accbase);
        tmp = ac_dt_alloc(t, (size_t)n, &tmpbase);
        if (!acc || !tmp) {
            err = MPI_ERR_NO_MEM;
            goto fn_exit;
        }
        if (right >= 0) {
            AC_CHECK(PMPI_Recv(acc, n, t, right, tag, a->comm, MPI_STATUS_IGNORE));
            AC_CHECK(PMPI_Reduce_local(mine, acc, n, t, a->op));
        } else {
            AC_CHECK(ac_dt_copy(mine, n, t, acc, n, t));
        }
        if (left >= 0) {
            AC_CHECK(PMPI_Recv(tmp, n, t, left, tag, a->comm, MPI_STATUS_IGNORE));
            AC_CHECK(PMPI_Reduce_local(tmp, acc, n, t, a->op));
        }
        out = acc;
    }
    if (parent >= 0)
        AC_CHECK(PMPI_Send(out, n, t, parent, tag, a->comm));
    else
        AC_CHECK(ac_dt_copy(out, n, t, a->rbuf, n, t));
fn_exit:
    free(accbase);
    free(tmpbase);
    return err;
}
