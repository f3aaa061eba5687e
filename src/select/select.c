/*
 * Selection policy (DESIGN.md): forced (AUTOCOLL_<COLL> or autocoll_force) > tuning table
 * (AUTOCOLL_TABLE, first matching rule whose algorithm can run the call) > by AUTOCOLL_MODE:
 * adaptive engine (default), cost-model prediction (model), the MPI library's algorithm
 * (table, native). Mode native ignores the table too. Returns one algorithm instance.
 *
 * Agreement: every input used here is identical on every rank (registry, settings broadcast at
 * MPI_Init, communicator size and layout, collective, op commutativity, non-rooted in-place flag,
 * selection size), so every rank returns the same instance.
 *
 * A forced instance that did not parse is reported at MPI_Init. One that cannot run a call (a
 * restriction is violated) is reported once per job and reason, by rank 0 of MPI_COMM_WORLD only
 * (what it sees itself: no communication per call), and counted on the communicator's rank 0 for
 * the summary at MPI_Finalize (AUTOCOLL_VERBOSE >= 1; log.c); AUTOCOLL_VERBOSE >= 2 reports it
 * once per communicator, by the communicator's rank 0. Then the policy AUTOCOLL_ON_ERROR applies:
 * "native" (default) runs the MPI library's collective, "error" fails the call with MPI_ERR_ARG
 * through the communicator's error handler.
 */
#include <string.h>
#include <stdio.h>
#include "../core/ac.h"
#include "adapt.h"
#include "table.h"

int ac_alg_applicable(const ac_alg_t *alg, const ac_args_t *a, const ac_ctx_t *ctx,
                      const char **why) {
    unsigned f = alg->flags;
    int p = a->size;
    const char *w = NULL;
    if (alg->nparam < 0)
        w = "malformed parameter specification";
    else if ((f & AUTOCOLL_R_POF2) && (p & (p - 1)))
        w = "needs a power-of-two number of processes";
    else if ((f & AUTOCOLL_R_EVEN_P) && (p % 2))
        w = "needs an even number of processes";
    else if ((f & AUTOCOLL_R_P2) && p != 2)
        w = "needs exactly two processes";
    else if ((f & AUTOCOLL_R_COMMUTATIVE) && !a->commutative)
        w = "needs a commutative operation";
    else if ((f & AUTOCOLL_R_NO_INPLACE) && a->inplace && !ac_coll_rooted(a->coll))
        w = "does not support MPI_IN_PLACE";
    else if ((f & AUTOCOLL_R_MULTINODE) && ctx->nnodes < 2)
        w = "needs ranks on more than one node";
    else if ((f & AUTOCOLL_R_UNIFORM_PPN) && !ctx->ppn_uniform)
        w = "needs the same number of ranks on every node";
    else if (f & AUTOCOLL_R_TOPOLOGY_FILE)
        w = "needs a topology file (none loaded)";
    if (why) *why = w;
    return w == NULL;
}

const char *ac_source_name(ac_source_t s) {
    static const char *names[] = {"default", "forced",   "fallback",      "table",
                                  "model",   "adaptive", "adaptive probe"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

/* First rule of the loaded table that matches the call and whose instance can run it. */
static int from_table(const ac_ctx_t *ctx, const ac_args_t *a, ac_inst_t *out) {
    const ac_rule_t *r[16];
    int ppn = (ctx->size + ctx->nnodes - 1) / ctx->nnodes;
    int n = ac_table_matches(ac_g.table, a->coll, a->size, ctx->nnodes, ppn, a->bytes, r, 16);
    for (int i = 0; i < n; i++)
        if (ac_alg_applicable(r[i]->inst.alg, a, ctx, NULL)) {
            ac_inst_copy(out, &r[i]->inst);
            return 1;
        }
    return 0;
}

int ac_select(ac_ctx_t *ctx, const ac_args_t *a, ac_inst_t *out, ac_source_t *src,
              ac_ticket_t *tk) {
    int c = a->coll;
    const char *why = NULL;
    char key[256];
    tk->entry = NULL;
    /* autocoll_force may change the forced instance from another thread only under
     * MPI_THREAD_MULTIPLE: the lock is needed then only. */
    int locked = ac_g.thread_level == MPI_THREAD_MULTIPLE;
    if (locked) ac_lock();
    int have = ac_g.have_forced[c], bad = ac_g.forced_bad[c];
    ac_inst_t forced;
    if (have) ac_inst_copy(&forced, &ac_g.forced[c]);
    if (locked) ac_unlock();

    if (have && ac_alg_applicable(forced.alg, a, ctx, &why)) {
        ac_inst_copy(out, &forced);
        *src = AC_SRC_FORCED;
        return MPI_SUCCESS;
    }
    if (!have && !bad) {
        int mode = ac_g.set.mode;
        /* alltoallv sizes differ per rank: a table rule can only cover every size of it. */
        if (mode != AC_MODE_NATIVE && ac_g.table && from_table(ctx, a, out)) {
            *src = AC_SRC_TABLE;
            return MPI_SUCCESS;
        }
        if (mode == AC_MODE_MODEL && ac_adapt_model_best(ctx, a, out) == 0) {
            *src = AC_SRC_MODEL;
            return MPI_SUCCESS;
        }
        if (mode == AC_MODE_ADAPTIVE && ac_adapt_select(ctx, a, out, tk) == MPI_SUCCESS) {
            *src = tk->probe ? AC_SRC_PROBE : AC_SRC_ADAPTIVE;
            return MPI_SUCCESS;
        }
    }
    ac_inst_default(ac_alg_find(c, "native"), out);
    *src = AC_SRC_NATIVE_DEFAULT;
    if (!have && !bad) return MPI_SUCCESS;
    *src = AC_SRC_FALLBACK;
    if (have) {
        const char *policy = ac_g.set.on_error == AC_ONERR_ERROR
                                 ? "failing the call (AUTOCOLL_ON_ERROR=error)"
                                 : "using the MPI library's algorithm";
        char name[128];
        ac_inst_format(&forced, name, sizeof name);
        if (ctx->rank == 0) ac_stats_fallback(c); /* once per call of the communicator */
        if (ac_g.set.verbose >= 2 && ctx->rank == 0) {
            snprintf(key, sizeof key, "restr %ld %d %s %d", ctx->id, c, name, a->size);
            ac_log_once(key, "%s %s cannot run on this call (comm %ld, p=%d): %s; %s",
                        ac_coll_name(c), name, ctx->id, a->size, why, policy);
        } else if (ac_g.set.verbose < 2 && ac_g.world_rank == 0) {
            snprintf(key, sizeof key, "restr %d %s %s", c, name, why);
            ac_log_once(key,
                        "%s %s cannot run on this call (p=%d): %s; %s (reported once per job; "
                        "%s)",
                        ac_coll_name(c), name, a->size, why, policy,
                        ac_g.set.verbose >= 1 ? "the summary at MPI_Finalize counts every such call"
                                              : "AUTOCOLL_VERBOSE=1 counts them at MPI_Finalize");
        }
    }
    return ac_g.set.on_error == AC_ONERR_ERROR ? MPI_ERR_ARG : MPI_SUCCESS;
}

void ac_select_done(ac_ctx_t *ctx, const ac_args_t *a, ac_ticket_t *tk, double seconds) {
    if (tk->entry) ac_adapt_record(ctx, a, tk, seconds);
}
