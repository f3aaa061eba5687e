/*
 * Algorithm: contention-free all-to-all on the switch tree of AUTOCOLL_TOPOLOGY. The schedule
 *   of src/topo/aapc.c puts every ordered pair of ranks in one of L = |M_0| (|M| - |M_0|)
 *   phases, the AAPC load, and no two messages of a phase share a directed link. Each rank runs
 *   its own program phase by phase (spec 3.3): post the receive of the phase, wait for the
 *   tokens owed to its send, send, then send the tokens it owes; partial and barrier schemes
 *   add PMPI_Barrier after the phases ac_ts_barrier_after names. Parameter sync (Table 3.5,
 *   spec names without "ts_", the block size appended): nosync, dummy, sender, receiver,
 *   barrier, sender_part<bs>, receiver_part<bs>, bar_none<bs>, bar_sender<bs>,
 *   bar_receiver<bs>, bs in {2, 4, 8, 16}. Two registry lines share this body through two
 *   entries: topo_aapc runs every scheme; topo_aapc_notoken runs the schemes without tokens and
 *   takes a token scheme for an invalid value. Design notes below.
 * Cost: L (alpha + n beta) + (L - 1) theta with no contention (gamma = 0); + tokens delta_l
 *   (sender/receiver) or barriers delta_h (barrier: L - 1 of them; partial: (L-1)/bs); dummy:
 *   up to L more block transfers per rank, each inside one switch.
 *   n = bytes of one block, L = |M_0| (p - |M_0|) >= p - 1.
 *   Schedule build O(p^2) once per communicator (p = 1024: about 20 ms), token derivation
 *   once per (communicator, scheme): O(p^4 / 64) with the reduction (p <= 256), else
 *   O(sum of path lengths) per rank.
 * Restrictions: TOPOLOGY_FILE (a valid AUTOCOLL_TOPOLOGY covering the ranks). In place: the
 *   receive buffer is first copied (a2a_util.c). Memory: the schedule and programs (cached with
 *   the communicator), one request per token sent, one block for dummies.
 * Reference: seed 000 (Faraj 2006), §3.2.2 (Figure 3.5, Theorem 1) and §3.2.3 (Table 3.5);
 *   spec star-stage-ethernet.md sections 3.2 and 3.3.
 */
/*
 * Design notes.
 * - Tokens carry zero bytes on the synchronisation tag. A rank may await the tokens of another
 *   in a different order than they are sent (partial schemes), so each awaited token is known
 *   by its sequence number among the tokens of its sender to this rank (ac_topo_prog_t.wseq):
 *   the wait receives tokens of that sender until that many arrived.
 * - Dummy (spec 3.3): no-sync, plus in every phase where a rank has no send (no receive) the
 *   dummy of ac_aapc_dummies: one block to (from) an idle rank of the same switch, or a local
 *   copy of the rank's own block when none is idle, so that an idle rank does not run ahead.
 *   The dummy from x to y carries x's block for y (a dummy is a block of n bytes), whose size
 *   y knows from its own receive counts, so alltoallv calls (allreduce.topo_rab2's exchange,
 *   blocks of unequal sizes) run it too; a dummy whose block is empty is skipped at both ends
 *   alike. It travels on the data tag: both ends post their operations in phase order, so a
 *   dummy and a real message between the same two ranks match in order. It lands in a scratch
 *   buffer of the largest receive block.
 * - Token sets are reduced up to p = 256 (AC_AAPC_TOKEN_MAX_P, an N^2-bit matrix of the
 *   N = p(p-1) messages); above, each rank derives only the tokens it sends or awaits, without
 *   the reduction (ac_aapc_tokens_rank: more tokens, no rank holds the whole set). When a token
 *   set cannot be built (no memory on some rank: agreed at the scheme's first call on the
 *   communicator, so that the ranks never run different schemes), the barrier counterpart runs
 *   (sender, receiver -> barrier; partial -> bar_none with the same bs), and the job is told
 *   once.
 */
#include <stdlib.h>
#include <string.h>
#include "a2a_util.h"
#include "topo_aapc.h"
#include "../../topo/load.h"

/* "sender_part8" -> ts_sender_part:bs=8; 0, or -1 when the name is not a scheme. */
static int sync_of(const char *v, ac_ts_t *ts) {
    char name[64];
    size_t n = v ? strlen(v) : 0, d = n;
    if (!n || n > 32) return -1;
    while (d > 0 && v[d - 1] >= '0' && v[d - 1] <= '9')
        d--;
    if (d < n)
        snprintf(name, sizeof name, "ts_%.*s:bs=%s", (int)d, v, v + d);
    else
        snprintf(name, sizeof name, "ts_%s", v);
    return ac_ts_parse(name, ts) != 0 ? -1 : 0;
}

/* The barrier counterpart of a token scheme (used when its tokens cannot be built). */
static ac_ts_t barrier_twin(ac_ts_t ts) {
    ac_ts_t b = {AC_TS_BARRIER, 0};
    if (ts.bs) b = (ac_ts_t){AC_TS_BAR_NONE, ts.bs};
    return b;
}

/* This rank's program of scheme ts, or NULL on every rank when some rank could not build its
 * own (no memory): the first call of a scheme on a communicator agrees on it with one
 * allreduce, so that the ranks never run different schemes. */
static const ac_topo_prog_t *agreed_program(ac_topo_comm_t *tc, ac_ts_t ts, const ac_args_t *a) {
    const ac_topo_prog_t *g = ac_topo_program(tc, ts, a->rank);
    signed char *st = &tc->prog_agreed[ac_topo_agreed_slot(ts)];
    if (*st == 0) {
        int ok = g != NULL;
        PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, a->comm);
        *st = ok ? 1 : -1;
    }
    return *st > 0 ? g : NULL;
}

int ac_alltoall_topo_aapc(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    return ac_a2a_topo_phases(a, ac_param_str(in, "sync"), 1, ctx);
}

/* topo_aapc_notoken: the schemes without tokens only */
int ac_alltoall_topo_aapc_notoken(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    return ac_a2a_topo_phases(a, ac_param_str(in, "sync"), 0, ctx);
}

int ac_a2a_topo_phases(const ac_args_t *a, const char *sync, int tokens, ac_ctx_t *ctx) {
    ac_topo_comm_t *tc = ac_topo_of(ctx);
    ac_ts_t ts;
    if (!tc || a->comm != ctx->comm || tc->t->nranks != a->size || sync_of(sync, &ts) != 0 ||
        (!tokens && ac_ts_token_kind(ts)))
        return MPI_ERR_ARG;
    const ac_topo_prog_t *g = agreed_program(tc, ts, a);
    if (!g && ac_ts_token_kind(ts)) {
        char want[64], got[64];
        ac_ts_name(ts, want, sizeof want);
        ts = barrier_twin(ts);
        ac_ts_name(ts, got, sizeof got);
        if (ac_g.world_rank == 0)
            ac_log_once("topo_aapc twin",
                        "alltoall topo_aapc: the token set of %s could not be built (p=%d, no "
                        "memory); running %s",
                        want, a->size, got);
        g = agreed_program(tc, ts, a);
    }
    if (!g) return MPI_ERR_NO_MEM; /* on every rank alike */
    const int stag = AC_A2A_SYNC_TAG(a), kind = ac_ts_token_kind(ts);
    const int ntok = g->nphases > 0 ? g->sstart[g->nphases] : 0;
    MPI_Request *treq = malloc(((size_t)ntok + 1) * sizeof *treq);
    int *got = calloc((size_t)a->size, sizeof *got); /* tokens received from each rank */
    ac_a2a_view_t v;
    void *dbase = NULL;
    char *dbuf = NULL; /* where dummies land */
    int err = ac_a2a_view_init(&v, a), nt = 0, me = a->rank;
    if ((!treq || !got) && err == MPI_SUCCESS) err = MPI_ERR_NO_MEM;
    if (err != MPI_SUCCESS) goto fn_exit;
    if (g->dto) { /* scratch for the largest block a dummy can bring (alltoallv: any sender's) */
        int big = 0;
        for (int j = 0; j < a->size; j++)
            if (ac_a2a_rbytes(&v, j) && ac_a2a_rcnt(&v, j) > big) big = ac_a2a_rcnt(&v, j);
        if (big && !(dbuf = ac_dt_alloc(v.rtype, (size_t)big, &dbase))) {
            err = MPI_ERR_NO_MEM;
            goto fn_exit;
        }
    }
    AC_CHECK(ac_a2a_self_copy(&v));
    for (int p = 0; p < g->nphases; p++) {
        MPI_Request rr = MPI_REQUEST_NULL, sr = MPI_REQUEST_NULL;
        int to = g->to[p], from = g->from[p];
        if (from >= 0 && ac_a2a_rbytes(&v, from))
            AC_CHECK(PMPI_Irecv(ac_a2a_rptr(&v, from), ac_a2a_rcnt(&v, from), v.rtype, from,
                                AC_TAG(a), a->comm, &rr));
        if (g->dto) { /* dummy scheme: a dummy replaces a missing send or receive */
            int dto = g->dto[p], dfrom = g->dfrom[p];
            if (g->dself[p] && ac_a2a_rbytes(&v, me))
                AC_CHECK(ac_dt_copy(ac_a2a_sptr(&v, me), ac_a2a_scnt(&v, me), v.stype, dbuf,
                                    ac_a2a_rcnt(&v, me), v.rtype));
            if (dfrom >= 0 && ac_a2a_rbytes(&v, dfrom))
                AC_CHECK(PMPI_Irecv(dbuf, ac_a2a_rcnt(&v, dfrom), v.rtype, dfrom, AC_TAG(a),
                                    a->comm, &rr));
            if (dto >= 0 && ac_a2a_sbytes(&v, dto))
                AC_CHECK(PMPI_Isend(ac_a2a_sptr(&v, dto), ac_a2a_scnt(&v, dto), v.stype, dto,
                                    AC_TAG(a), a->comm, &sr));
        }
        for (int w = g->wstart[p]; w < g->wstart[p + 1]; w++)
            for (int src = g->wsrc[w]; got[src] <= g->wseq[w]; got[src]++)
                AC_CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, src, stag, a->comm, MPI_STATUS_IGNORE));
        if (to >= 0 && ac_a2a_sbytes(&v, to))
            AC_CHECK(PMPI_Isend(ac_a2a_sptr(&v, to), ac_a2a_scnt(&v, to), v.stype, to, AC_TAG(a),
                                a->comm, &sr));
        /* the tokens owed go out as soon as the operation they certify is complete */
        AC_CHECK(PMPI_Wait(kind == 2 ? &rr : &sr, MPI_STATUS_IGNORE));
        for (int k = g->sstart[p]; k < g->sstart[p + 1]; k++)
            AC_CHECK(PMPI_Isend(NULL, 0, MPI_BYTE, g->sdst[k], stag, a->comm, &treq[nt++]));
        AC_CHECK(PMPI_Wait(kind == 2 ? &sr : &rr, MPI_STATUS_IGNORE));
        if (ac_ts_barrier_after(ts, p, g->nphases)) AC_CHECK(PMPI_Barrier(a->comm));
    }
fn_exit:
    if (treq && nt) {
        int e2 = PMPI_Waitall(nt, treq, MPI_STATUSES_IGNORE);
        if (err == MPI_SUCCESS) err = e2;
    }
    free(treq);
    free(got);
    free(dbase);
    ac_a2a_view_free(&v);
    return err;
}
