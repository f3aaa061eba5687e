/*
 * Algorithm: k-port Bruck / (k+1)-group dissemination: ceil(log_{k+1} p) steps. Before step s
 *   rank r holds the D = (k+1)^s blocks r, r+1, ..., r+D-1 (mod p). At step s, for each port
 *   j = 1..k with o = jD < p, r sends its first c = min(D, p-o) held blocks to r-o and receives
 *   blocks r+o .. r+o+c-1 from r+o (ac_kbruck_part); all 2k messages of a step are in flight
 *   together. Blocks are received straight into their final slots (a wrapped range is one
 *   message with an indexed datatype), so the rotation of the original Bruck is not needed.
 *   For p = (k+1)^L it moves (k+1)^s blocks per port and step, like the (k+1)-group algorithm
 *   G2_Fk; partners are shifts r +/- jD (the shift form) and any p works without padding.
 * Cost: ceil(log_{k+1} p) alpha + ((p-1)/k) n beta under the k-port model; (p-1) n beta for a
 *   single port; n = bytes of a block.
 * Restrictions: none. Memory: 2k requests. Parameter k = ports (k = 1 is allgather_bruck).
 * Reference: seed 004 (Afsahi 2000) section 5.6 (spec predictors-latency.md 5.3, G2_Fk);
 *   Bruck et al. 1997 as summarised in seed 001 (Loch 2021) section 2.4.4 (spec sparbit.md 3.4).
 */
#include <stdlib.h>
#include "ag_common.h"

int ac_agx_kbruck(const ac_args_t *a, int k) {
    ac_agb_t g;
    int err = ac_agb_setup(a, &g), p = a->size, me = a->rank;
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

int ac_allgather_kbruck(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    return ac_agx_kbruck(a, (int)ac_param_int(in, "k"));
}
