/*
 * Algorithm: split binary tree. On the binary tree of virtual ranks v = (rank - root) mod p
 *   (children 2v+1, 2v+2) the root sends the first half of the buffer (h0, ceil(count/2)
 *   elements) into the subtree of v = 1 and the second half (h1) into the subtree of v = 2;
 *   each rank forwards its half to its children. Then the i-th rank of the left subtree and the
 *   i-th rank of the right subtree (both listed in increasing v) swap halves; left ranks beyond
 *   the size of the right subtree (orphans) receive h1 from the root (ac_tree_split_pair /
 *   _orphans in src/sched/tree.c). The root sends the orphans h1 right after its two first
 *   sends, while the halves still travel down the tree.
 * Cost: floor(lg p) 2(alpha + (n/2) beta) + (alpha + (n/2) beta) + orphans at the root.
 * Restrictions: none. Memory: requests for the root's orphan sends.
 * Reference: seed 000 (Faraj 2006), §3.4.1 binary tree broadcast; the halves split
 *   follows the split-binary tree of the broadcast repositories compared there (spec
 *   star-stage-ethernet section 2.5).
 *
 * Worked example, p = 8, root 0 (virtual = real ranks). Left subtree 1, 3, 4, 7; right subtree
 * 2, 5, 6: pairs 1-2, 3-5, 4-6, orphan 7. "h0 >3,4": sends half 0 to ranks 3 and 4; "h0 <1":
 * receives half 0 from rank 1; "h0 <> 2": sends half 0 to rank 2 and receives half 1 from it.
 *
 *   rank | level 1       | level 2    | level 3   | exchange
 *   -----+---------------+------------+-----------+------------
 *      0 | h0 >1, h1 >2  |            |           | h1 >7
 *      1 | h0 <0         | h0 >3,4    |           | h0 <> 2
 *      2 | h1 <0         | h1 >5,6    |           | h1 <> 1
 *      3 |               | h0 <1      | h0 >7     | h0 <> 5
 *      4 |               | h0 <1      |           | h0 <> 6
 *      5 |               | h1 <2      |           | h1 <> 3
 *      6 |               | h1 <2      |           | h1 <> 4
 *      7 |               |            | h0 <3     | h1 <0
 */
#include <stdlib.h>
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_bcast_split_binary(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, root = a->root, tag = AC_TAG(a);
    int count = a->rcount, nreq = 0;
    MPI_Datatype t = a->rtype;
    int *orph = NULL;
    MPI_Request req[2];
    if (p == 1 || count == 0) return MPI_SUCCESS;
    int h[2] = {(count + 1) / 2, count - (count + 1) / 2};
    char *half[2] = {a->rbuf, ac_dt_at(a->rbuf, t, (size_t)h[0])};
    ac_tree_t tr = ac_tree_make(AC_TREE_KARY, 2, p);
    int v = ac_tree_vrank(a->rank, root, p);
    if (v == 0) {
        for (int s = 0; s < 2 && s + 1 < p; s++)
            AC_CHECK(PMPI_Isend(half[s], h[s], t, ac_tree_rank(s + 1, root, p), tag, a->comm,
                                &req[nreq++]));
        AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
        nreq = 0;
        int no = ac_tree_split_orphans(p, NULL, 0);
        orph = malloc((size_t)(no + 1) * sizeof *orph);
        if (!orph) {
            err = MPI_ERR_NO_MEM;
            goto fn_exit;
        }
        ac_tree_split_orphans(p, orph, no);
        for (int i = 0; i < no; i++)
            AC_CHECK(PMPI_Send(half[1], h[1], t, ac_tree_rank(orph[i], root, p), tag, a->comm));
        goto fn_exit;
    }
    int side, partner;
    ac_tree_split_pair(p, v, &side, &partner);
    AC_CHECK(PMPI_Recv(half[side], h[side], t, ac_tree_rank(ac_tree_parent(&tr, v), root, p), tag,
                       a->comm, MPI_STATUS_IGNORE));
    for (int i = 0; i < ac_tree_nchildren(&tr, v); i++)
        AC_CHECK(PMPI_Isend(half[side], h[side], t, ac_tree_rank(ac_tree_child(&tr, v, i), root, p),
                            tag, a->comm, &req[nreq++]));
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    nreq = 0;
    if (partner > 0) {
        int pr = ac_tree_rank(partner, root, p);
        AC_CHECK(PMPI_Sendrecv(half[side], h[side], t, pr, tag, half[1 - side], h[1 - side], t, pr,
                               tag, a->comm, MPI_STATUS_IGNORE));
    } else {
        AC_CHECK(PMPI_Recv(half[1 - side], h[1 - side], t, root, tag, a->comm, MPI_STATUS_IGNORE));
    }
fn_exit:
    if (err != MPI_SUCCESS && nreq > 0) PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    free(orph);
    return err;
}
