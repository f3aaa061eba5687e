/*
 * Algorithm: k-port Bruck: Bruck's rotation, then ceil(log_{k+1} p) steps; at step s, for each
 *   port j = 1..k with offset o = j (k+1)^s < p, the slots t whose base-(k+1) digit s equals j are
 *   packed and sent to me + o while the same slots arrive from me - o (all k ports of a step are
 *   posted together, then waited for); finally slot t holds the block from rank me - t. Step
 *   offsets: ac_kbruck_part; slot selection: ac_a2a_bruck_slots (src/sched/a2a_sched.c).
 *   bruck is this function without parameter k (k = 1): (1) rotate: slot t = my block for rank
 *   (me + t) mod p; (2) for every bit k = 1, 2, 4, ... < p send the slots t with (t & k) != 0,
 *   packed, to me + k and receive the same slots from me - k into place; a block thus moves by
 *   t in total; (3) inverse rotation: slot t holds the block from rank (me - t) mod p.
 * Cost: ceil(log_{k+1} p) (alpha + (p/(k+1)) n beta) with k ports in parallel (k-port model);
 *   single port: k ceil(log_{k+1} p) alpha + about k p/(k+1) log_{k+1} p n beta; n = block bytes.
 *   bruck: ceil(lg p) alpha + (n p / 2) ceil(lg p) beta + (lg p - 1) theta + gamma (p a power
 *   of two; about the same otherwise).
 * Restrictions: none. In place: works on copies. Memory: 3p blocks, 2k requests.
 * Reference: seed 004 (Afsahi 2000), chapter 5 (k-port model Fk, spec predictors-latency.md
 *   5.1) applied to the Bruck alltoall of seed 000 (Faraj 2006), 4.1.1.1 (spec
 *   star-stage-ethernet.md 2.1, schedule "bruck").
 */
#include <stdlib.h>
#include "a2a_util.h"
#include "../../sched/sched.h"
#include "../../sched/a2a_sched.h"

int ac_alltoall_bruck_kport(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    int k = (int)ac_param_int(in, "k"); /* -1: bruck, no parameter k */
    if (k < 1) k = 1;
    ac_a2a_view_t v;
    ac_a2a_blk_t b;
    int err, p = a->size, me = a->rank, nreq = 0;
    void *wb = NULL, *spb = NULL, *rpb = NULL;
    int *slots = malloc((size_t)p * sizeof(int)), *first = malloc(((size_t)k + 1) * sizeof(int));
    MPI_Request *req = malloc(2 * (size_t)k * sizeof *req);
    const int tag = AC_TAG(a);
    MPI_Datatype mt = MPI_DATATYPE_NULL;
    ac_a2a_blk_init(&b, a);
    err = ac_a2a_view_init(&v, a);
    if (err != MPI_SUCCESS) goto fn_exit;
    char *w = ac_a2a_blk_alloc(&b, (size_t)p, &wb);
    char *sp = ac_a2a_blk_alloc(&b, (size_t)p, &spb), *rp = ac_a2a_blk_alloc(&b, (size_t)p, &rpb);
    if (!w || !sp || !rp || !slots || !first || !req) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    /* Rotation: slot t = my block for rank me + t. */
    for (int t = 0; t < p; t++)
        AC_CHECK(ac_a2a_blk_from_send(&b, &v, (me + t) % p, ac_a2a_blk_at(&b, w, t)));
    int nsteps = ac_kbruck_nsteps(p, k);
    for (int s = 0; s < nsteps; s++) {
        /* Ports j = 1..k: pack the slots with digit s == j one after another in sp. */
        int off = 0;
        nreq = 0;
        for (int j = 1; j <= k; j++) {
            int o, c, cnt;
            first[j] = off;
            if (!ac_kbruck_part(p, k, s, j, &o, &c)) continue;
            int n = ac_a2a_bruck_slots(p, k, s, j, slots + off);
            for (int x = off; x < off + n; x++)
                AC_CHECK(
                    ac_a2a_blk_copy(&b, ac_a2a_blk_at(&b, w, slots[x]), ac_a2a_blk_at(&b, sp, x)));
            AC_CHECK(ac_a2a_blk_msg(&b, (size_t)n, &cnt, &mt));
            AC_CHECK(PMPI_Irecv(ac_a2a_blk_at(&b, rp, off), cnt, mt, ac_ring_from(me, p, o), tag,
                                a->comm, &req[nreq++]));
            AC_CHECK(PMPI_Isend(ac_a2a_blk_at(&b, sp, off), cnt, mt, ac_ring_to(me, p, o), tag,
                                a->comm, &req[nreq++]));
            off += n;
        }
        AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
        nreq = 0;
        for (int x = 0; x < off; x++)
            AC_CHECK(ac_a2a_blk_copy(&b, ac_a2a_blk_at(&b, rp, x), ac_a2a_blk_at(&b, w, slots[x])));
    }
    /* Inverse rotation: slot t holds the block from rank me - t. */
    for (int t = 0; t < p; t++)
        AC_CHECK(
            ac_a2a_blk_copy(&b, ac_a2a_blk_at(&b, w, t), ac_a2a_rptr(&v, ac_ring_from(me, p, t))));
fn_exit:
    ac_a2a_blk_free(&b);
    if (err != MPI_SUCCESS && nreq > 0) PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    free(wb);
    free(spb);
    free(rpb);
    free(slots);
    free(first);
    free(req);
    ac_a2a_view_free(&v);
    return err;
}
