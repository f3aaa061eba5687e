/*
 * Algorithm: Sparbit (stripe parallel binomial trees): L = ceil(log2 p) steps with distances
 *   d = 2^(L-1), ..., 2, 1 (halving, the reverse of Bruck). Before step i rank r holds
 *   h = ceil(p/2d) blocks r, r-2d, r-4d, ...; it sends n = h - z of them, block (r - 2jd) mod p
 *   for j = 0..n-1, one message per block, to (r+d) mod p, and receives blocks (r - (2j+1)d)
 *   mod p, same order, from (r-d) mod p, straight into their slots. Ignore rule: z = 1 (the
 *   last held block is withheld, it would reach a rank that has it) exactly when
 *   ((p-1) & d) == 0 (spec sparbit.md 1.3). Step schedule: src/sched/sparbit.c (worked
 *   example there). ac_agx_sparbit is also the body of sparbit_packed.
 *   allgatherv runs the same function on blocks of rcounts[b] elements at rdispls[b]
 *   (ag_common.h). Blocks whose byte size is zero (rcounts[b] * size(rtype) == 0, the same on
 *   every rank) are skipped on both sides, so matching by posting order still holds; with a
 *   single non-empty block the algorithm is a binomial broadcast from its owner.
 * Cost: (p-1-L) tau + L alpha + (p-1) n beta; n = bytes of a block, tau = issue cost.
 *   allgatherv: (p'-1-L) tau + L alpha + sum n_j beta, p' = non-empty blocks; n_j = bytes of
 *   block j.
 * Restrictions: none. Memory: 2 floor(p/2) requests.
 * Reference: seed 001 (Loch 2021) section 4.2, Algorithm 1 (corrected); spec sparbit.md 1.2-1.5
 *   and 2.
 *   allgatherv form: spec star-stage-ethernet.md 2.3.
 */
#include <stdlib.h>
#include "ag_common.h"

int ac_agx_sparbit(const ac_args_t *a, int packed) {
    ac_agb_t g;
    int err = ac_agb_setup(a, &g), p = a->size, me = a->rank;
    if (err != MPI_SUCCESS || p == 1) return err;
    int *sb = malloc((size_t)p * sizeof *sb), *rb = malloc((size_t)p * sizeof *rb);
    MPI_Request *req = malloc((2 * (size_t)(p / 2) + 2) * sizeof *req);
    if (!sb || !rb || !req) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    int L = ac_sparbit_nsteps(p);
    for (int i = 0; i < L; i++) {
        int d, n, nreq = 0, ns = 0, nr = 0;
        ac_sparbit_step(p, i, &d, &n);
        int to = ac_mod((long long)me + d, p), from = ac_mod((long long)me - d, p);
        for (int j = 0; j < n; j++) {
            int s = ac_sparbit_send_block(me, p, d, j), r = ac_sparbit_recv_block(me, p, d, j);
            if (!ac_agb_empty(&g, s)) sb[ns++] = s;
            if (!ac_agb_empty(&g, r)) rb[nr++] = r;
        }
        if (packed) {
            /* one message per step: an indexed type over the step's blocks */
            if (nr) AC_CHECK(ac_agb_irecv(&g, rb, nr, from, &req[nreq++]));
            if (ns) AC_CHECK(ac_agb_isend(&g, sb, ns, to, &req[nreq++]));
        } else {
            for (int j = 0; j < nr; j++)
                AC_CHECK(ac_agb_irecv(&g, &rb[j], 1, from, &req[nreq++]));
            for (int j = 0; j < ns; j++)
                AC_CHECK(ac_agb_isend(&g, &sb[j], 1, to, &req[nreq++]));
        }
        AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    }
fn_exit:
    free(sb);
    free(rb);
    free(req);
    return err;
}

int ac_allgather_sparbit(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    (void)ctx;
    return ac_agx_sparbit(a, 0);
}
