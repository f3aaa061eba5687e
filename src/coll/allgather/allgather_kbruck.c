/*
 * Algorithm: k-port Bruck / (k+1)-group dissemination: ceil(log_{k+1} p) steps. Before step s
 *   rank r holds the D = (k+1)^s blocks r, r+1, ..., r+D-1 (mod p). At step s, for each port
 *   j = 1..k with o = jD < p, r sends its first c = min(D, p-o) held blocks to r-o and receives
 *   blocks r+o .. r+o+c-1 from r+o (ac_kbruck_part); all 2k messages of a step are in flight
 *   together. Blocks are received straight into their final slots (a wrapped range is one
 *   message with an indexed datatype), so the rotation of the original Bruck is not needed.
 *   For p = (k+1)^L it moves (k+1)^s blocks per port and step, like the (k+1)-group algorithm
 *   G2_Fk; partners are shifts r +/- jD (the shift form) and any p works without padding.
 *   bruck is this function without parameter k (k = 1): ceil(log2 p) steps; before step s rank
 *   r holds blocks r .. r+2^s-1 (mod p); at step s it sends its first c = min(2^s, p-2^s) held
 *   blocks to r-2^s and receives blocks r+2^s .. r+2^s+c-1 from r+2^s.
 *   allgatherv runs the same function (both names) on blocks of rcounts[b] elements at
 *   rdispls[b] (ag_common.h).
 * Cost: ceil(log_{k+1} p) alpha + ((p-1)/k) n beta under the k-port model; (p-1) n beta for a
 *   single port; n = bytes of a block. bruck: ceil(log2 p) alpha + (p-1) n beta.
 *   allgatherv: n beta -> sum n_j beta / k (bruck: sum n_j beta); n_j = bytes of block j.
 * Restrictions: none. Memory: 2k requests, block lists. Parameter k = ports.
 * Reference: seed 004 (Afsahi 2000) section 5.6 (spec predictors-latency.md 5.3, G2_Fk);
 *   Bruck et al. 1997 as summarised in seed 001 (Loch 2021) section 2.4.4 (spec sparbit.md 3.4);
 *   seed 000 (Faraj 2006) section 4.1.1.1 (spec star-stage-ethernet.md 2.2, 2.3).
 */
#include <stdlib.h>
#include "ag_common.h"

int ac_allgather_kbruck(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    ac_agb_t g;
    int err = ac_agb_setup(a, &g), p = a->size, me = a->rank;
    int k = (int)ac_param_int(in, "k"); /* -1: bruck, no parameter k */
    if (err != MPI_SUCCESS || p == 1) return err;
    if (k < 1) k = 1;
    int *blk = malloc(2 * (size_t)p * sizeof *blk);
    MPI_Request *req = malloc(2 * (size_t)k * sizeof *req);
    if (!blk || !req) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    int L = ac_kbruck_nsteps(p, k);
    for (int s = 0; s < L; s++) {
        int nreq = 0, o, c, *sb = blk, *rb = blk + p;
        /* receives first; each port's list is disjoint so all fit in rb */
        for (int j = 1, used = 0; j <= k && ac_kbruck_part(p, k, s, j, &o, &c); j++) {
            ac_agb_range(rb + used, me + o, c, p);
            AC_CHECK(ac_agb_irecv(&g, rb + used, c, ac_mod((long long)me + o, p), &req[nreq++]));
            used += c;
        }
        for (int j = 1; j <= k && ac_kbruck_part(p, k, s, j, &o, &c); j++) {
            ac_agb_range(sb, me, c, p);
            AC_CHECK(ac_agb_isend(&g, sb, c, ac_mod((long long)me - o, p), &req[nreq++]));
        }
        AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    }
fn_exit:
    free(blk);
    free(req);
    return err;
}
