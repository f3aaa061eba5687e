/*
 * Algorithm: tree barrier: empty messages climb the binomial tree rooted at rank 0 (a rank
 *   reports to its parent once all its children have reported), then the release descends
 *   the same tree (ac_tree_* shapes, radix 2).
 * Cost: 2 ceil(lg p) alpha.
 * Restrictions: none. Memory: none.
 * Reference: seed 000 (Faraj 2006), §4.1.1.1 binomial trees (gather then broadcast of empty
 *   messages; spec star-stage-ethernet sections 2.2 gather-bcast and 2.5).
 */
#include "../../core/ac.h"
#include "../../sched/tree.h"

int ac_barrier_tree(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, me = a->rank, tag = AC_TAG(a);
    ac_tree_t t = ac_tree_make(AC_TREE_KNOMIAL, 2, a->size);
    int parent = ac_tree_parent(&t, me), nch = ac_tree_nchildren(&t, me);
    for (int i = 0; i < nch; i++)
        AC_CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, ac_tree_child(&t, me, i), tag, a->comm,
                           MPI_STATUS_IGNORE));
    if (parent >= 0) {
        AC_CHECK(PMPI_Send(NULL, 0, MPI_BYTE, parent, tag, a->comm));
        AC_CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, parent, tag, a->comm, MPI_STATUS_IGNORE));
    }
    for (int i = nch - 1; i >= 0; i--)
        AC_CHECK(PMPI_Send(NULL, 0, MPI_BYTE, ac_tree_child(&t, me, i), tag, a->comm));
fn_exit:
    return err;
}
