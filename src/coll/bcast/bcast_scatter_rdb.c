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
#include "../../sched/tree.h"

/* Elements [off, off + n) of pieces [lo, hi) of c elements each, clipped to count. */
static void range(int lo, int hi, int c, int count, int *off, int *n) {
    long long a = (long long)lo * c, b = (long long)hi * c;
    if (a > count) a = count;
    if (b > count) b = count;
    *off = (int)a;
    *n = b > a ? (int)(b - a) : 0;
}

int ac_bcast_scatter_rdb(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, root = a->root, tag = AC_TAG(a);
    int count = a->rcount, off, n, off2, n2;
    MPI_Datatype t = a->rtype;
    char *buf = a->rbuf;
    if (p == 1 || count == 0) return MPI_SUCCESS;
    int c = (count + p - 1) / p, v = ac_tree_vrank(a->rank, root, p);
    ac_tree_t tr = ac_tree_make(AC_TREE_KNOMIAL, 2, p);
    /* Binomial scatter of piece ranges. */
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
    /* Recursive-doubling allgather with fold. */
    int pp = 1;
    while (pp * 2 <= p)
        pp *= 2;
    int r = p - pp;
    if (v >= pp) {
        range(v, v + 1, c, count, &off, &n);
        AC_CHECK(PMPI_Send(ac_dt_at(buf, t, (size_t)off), n, t, ac_tree_rank(v - pp, root, p), tag,
                           a->comm));
        AC_CHECK(PMPI_Recv(buf, count, t, ac_tree_rank(v - pp, root, p), tag, a->comm,
                           MPI_STATUS_IGNORE));
        goto fn_exit;
    }
    if (v < r) {
        range(v + pp, v + pp + 1, c, count, &off, &n);
        AC_CHECK(PMPI_Recv(ac_dt_at(buf, t, (size_t)off), n, t, ac_tree_rank(v + pp, root, p), tag,
                           a->comm, MPI_STATUS_IGNORE));
    }
    for (int mask = 1; mask < pp; mask <<= 1) {
        int u = v ^ mask, pr = ac_tree_rank(u, root, p);
        int g = v & ~(mask - 1), gu = u & ~(mask - 1);
        for (int part = 0; part < 2; part++) {
            int sh = part ? pp : 0;
            int slo = g + sh, shi = g + sh + mask, rlo = gu + sh, rhi = gu + sh + mask;
            if (shi > p) shi = p;
            if (slo > p) slo = p;
            if (rhi > p) rhi = p;
            if (rlo > p) rlo = p;
            range(slo, shi, c, count, &off, &n);
            range(rlo, rhi, c, count, &off2, &n2);
            AC_CHECK(PMPI_Sendrecv(ac_dt_at(buf, t, (size_t)off), n, t, pr, tag,
                                   ac_dt_at(buf, t, (size_t)off2), n2, t, pr, tag, a->comm,
                                   MPI_STATUS_IGNORE));
        }
    }
    if (v < r) AC_CHECK(PMPI_Send(buf, count, t, ac_tree_rank(v + pp, root, p), tag, a->comm));
fn_exit:
    return err;
}
