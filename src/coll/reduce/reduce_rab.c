/*
 * Algorithm: Rabenseifner: reduce-scatter by recursive halving, then a binomial gather of the
 *   blocks to the root. Fold first: with p' the largest power of two <= p and r = p - p', among
 *   ranks i < 2r the even one sends its vector to i+1 and idles, the odd one combines and takes
 *   new rank i/2; ranks i >= 2r take new rank i - r. The vector is cut into p' blocks
 *   (block b: floor(n/p') elements, one more when b < n mod p'). Halving: for mask = p'/2 .. 1
 *   new rank u swaps half of its block range [lo, hi) with u xor mask (the lower half stays
 *   with the rank whose mask bit is 0) and combines; u ends with block u. Gather to the new
 *   rank t of the root (or of its partner i+1 when the root idles): at step mask = 1, 2, ...
 *   ranks agreeing with t on the bits below mask pair up with u xor mask; the one agreeing with
 *   t on the mask bit receives the aligned block range [q & ~(mask-1), +mask) of its partner q.
 *   An idle root finally receives the result from its partner.
 * Cost: 2 lg(p') alpha + 2 ((p'-1)/p') n beta + ((p'-1)/p') n gamma (+ 2(alpha + n beta) fold).
 * Restrictions: COMMUTATIVE. Memory: two vectors per rank.
 * Reference: seed 000 (Faraj 2006), §4.1.1.1 MPICH Rab reduce (spec star-stage-ethernet
 *   sections 2.4 (halving, fold) and 2.6, reduce.rab).
 *
 * Worked example, p = 6, root 0: p' = 4, r = 2; ranks 0 and 2 fold into 1 and 3 (new ranks
 * u = 0, 1), ranks 4, 5 become u = 2, 3; the vector is cut into blocks b0..b3. The root idles,
 * so the gather goes to its partner's new rank t = 0 (rank 1). "x >1": the whole vector to rank
 * 1; "x <0": the whole vector from rank 0, combined; "b2-3 >4, b0-1 <4": blocks 2..3 to rank 4,
 * blocks 0..1 from it (combined into the kept half); "b1 <3": block 1 from rank 3 (gather).
 *
 *   rank | fold      | halving, mask 2  | mask 1       | gather, mask 1 | mask 2  | to the root
 *   -----+-----------+------------------+--------------+----------------+---------+-------------
 *      0 | x >1      |                  |              |                |         | all <1
 *      1 | u=0, x <0 | b2-3 >4, b0-1 <4 | b1 >3, b0 <3 | b1 <3          | b2-3 <4 | all >0
 *      2 | x >3      |                  |              |                |         |
 *      3 | u=1, x <2 | b2-3 >5, b0-1 <5 | b0 >1, b1 <1 | b1 >1          |         |
 *      4 | u=2       | b0-1 >1, b2-3 <1 | b3 >5, b2 <5 | b3 <5          | b2-3 >1 |
 *      5 | u=3       | b0-1 >3, b2-3 <3 | b2 >4, b3 <4 | b3 >4          |         |
 */
#include <stdlib.h>
#include "../../core/ac.h"

static int blk_start(int b, int n, int g) {
    return b * (n / g) + (b < n % g ? b : n % g);
}
static int real_rank(int u, int r) {
    return u < r ? 2 * u + 1 : u + r;
}
static int new_rank(int i, int r) {
    return i < 2 * r ? (i % 2 ? i / 2 : -1) : i - r;
}

int ac_reduce_rab(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, n = a->rcount, root = a->root;
    int tag = AC_TAG(a);
    MPI_Datatype t = a->rtype;
    const void *mine = a->inplace ? a->rbuf : a->sbuf;
    void *accbase = NULL, *tmpbase = NULL;
    char *acc = NULL, *tmp = NULL;
    if (n == 0) return MPI_SUCCESS;
    if (p == 1) return ac_dt_copy(mine, n, t, a->rbuf, n, t);
    acc = ac_dt_alloc(t, (size_t)n, &accbase);
    tmp = ac_dt_alloc(t, (size_t)n, &tmpbase);
    if (!acc || !tmp) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    AC_CHECK(ac_dt_copy(mine, n, t, acc, n, t));
    int pp = 1;
    while (pp * 2 <= p)
        pp *= 2;
    int r = p - pp, u = new_rank(me, r);
    int tnew = new_rank(root, r) >= 0 ? new_rank(root, r) : root / 2;
    if (me < 2 * r) {
        if (u < 0) {
            AC_CHECK(PMPI_Send(acc, n, t, me + 1, tag, a->comm));
        } else {
            AC_CHECK(PMPI_Recv(tmp, n, t, me - 1, tag, a->comm, MPI_STATUS_IGNORE));
            AC_CHECK(PMPI_Reduce_local(tmp, acc, n, t, a->op));
        }
    }
    if (u >= 0) {
        int lo = 0, hi = pp;
        for (int mask = pp / 2; mask >= 1; mask /= 2) {
            int q = real_rank(u ^ mask, r), mid = (lo + hi) / 2;
            int klo = (u & mask) ? mid : lo, khi = (u & mask) ? hi : mid;
            int slo = (u & mask) ? lo : mid, shi = (u & mask) ? mid : hi;
            int ks = blk_start(klo, n, pp), kn = blk_start(khi, n, pp) - ks;
            int ss = blk_start(slo, n, pp), sn = blk_start(shi, n, pp) - ss;
            AC_CHECK(PMPI_Sendrecv(ac_dt_at(acc, t, (size_t)ss), sn, t, q, tag,
                                   ac_dt_at(tmp, t, (size_t)ks), kn, t, q, tag, a->comm,
                                   MPI_STATUS_IGNORE));
            AC_CHECK(PMPI_Reduce_local(ac_dt_at(tmp, t, (size_t)ks), ac_dt_at(acc, t, (size_t)ks),
                                       kn, t, a->op));
            lo = klo;
            hi = khi;
        }
        for (int mask = 1; mask < pp; mask <<= 1) {
            if ((u ^ tnew) & (mask - 1)) break;
            int q = u ^ mask;
            if (((u ^ tnew) & mask) == 0) {
                int b0 = q & ~(mask - 1), s0 = blk_start(b0, n, pp);
                int cnt = blk_start(b0 + mask, n, pp) - s0;
                AC_CHECK(PMPI_Recv(ac_dt_at(acc, t, (size_t)s0), cnt, t, real_rank(q, r), tag,
                                   a->comm, MPI_STATUS_IGNORE));
            } else {
                int b0 = u & ~(mask - 1), s0 = blk_start(b0, n, pp);
                int cnt = blk_start(b0 + mask, n, pp) - s0;
                AC_CHECK(
                    PMPI_Send(ac_dt_at(acc, t, (size_t)s0), cnt, t, real_rank(q, r), tag, a->comm));
                break;
            }
        }
        if (u == tnew) {
            if (me == root)
                AC_CHECK(ac_dt_copy(acc, n, t, a->rbuf, n, t));
            else
                AC_CHECK(PMPI_Send(acc, n, t, root, tag, a->comm));
        }
    }
    if (me == root && u < 0)
        AC_CHECK(PMPI_Recv(a->rbuf, n, t, real_rank(tnew, r), tag, a->comm, MPI_STATUS_IGNORE));
fn_exit:
    free(accbase);
    free(tmpbase);
    return err;
}
