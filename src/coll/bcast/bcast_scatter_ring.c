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

static void range(int lo, int hi, int c, int count, int *off, int *n) {
    long long a = (long long)lo * c, b = (long long)hi * c;
    if (a > count) a = count;
    if (b > count) b = count;
    *off = (int)a;
    *n = b > a ? (int)(b - a) : 0;
}

int ac_bcast_scatter_ring(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, root = a->root, tag = AC_TAG(a);
    int count = a->rcount, off, n, off2, n2;
    MPI_Datatype t = a->rtype;
    char *buf = a->rbuf;
    if (p == 1 || count == 0) return MPI_SUCCESS;
    int c = (count + p - 1) / p, v = ac_tree_vrank(a->rank, root, p);
    ac_tree_t tr = ac_tree_make(AC_TREE_KNOMIAL, 2, p);
    if (v != 0) {
        range(v, v + ac_tree_subtree(&tr, v), c, count, &off, &n);
        AC_CHECK(PMPI_Recv(ac_dt_at(buf, t, (size_t)off), n, t,
                           ac_tree_rank(ac_tree_parent(&tr, v), root, p), tag, a->comm,
                           MPI_STATUS_IGNORE));
    }
    for (int i = ac_tree_nchildren(&tr, v) - 1; i >= 0; i--) {
        int ch = ac_tree_child(&tr, v, i);
        range(ch, ch + ac_tree_subtree(&tr, ch), c, count, &off, &n);
        AC_CHECK(PMPI_Send(ac_dt_at(buf, t, (size_t)off), n, t, ac_tree_rank(ch, root, p), tag,
                           a->comm));
    }
    int right = ac_tree_rank((v + 1) % p, root, p), left = ac_tree_rank((v - 1 + p) % p, root, p);
    for (int s = 0; s < p - 1; s++) {
        int sp = (v - s + p) % p, rp = (v - s - 1 + 2 * p) % p;
        range(sp, sp + 1, c, count, &off, &n);
        range(rp, rp + 1, c, count, &off2, &n2);
        AC_CHECK(PMPI_Sendrecv(ac_dt_at(buf, t, (size_t)off), n, t, right, tag,
                               ac_dt_at(buf, t, (size_t)off2), n2, t, left, tag, a->comm,
                               MPI_STATUS_IGNORE));
    }
fn_exit:
    return err;
}
