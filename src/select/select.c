/*
 * Selection policy (DESIGN.md), an ordered table of stages (`stages` below), the first that
 * answers chooses: forced (AUTOCOLL_<COLL> or autocoll_force) > tuning table (AUTOCOLL_TABLE,
 * first matching rule whose algorithm can run the call) > cost-model prediction (mode model) >
 * adaptive engine (mode adaptive, the default) > the MPI library's algorithm. Mode native
 * ignores the table too. Returns one algorithm instance in a choice record.
 *
 * Before the stages: one process or no data has one right answer (the MPI library's, unless an
 * instance is forced; no key, no engine state), and a forced or table choice made for the same
 * inputs on this context is reused (ctx->chosen: the per-call path skips the stages).
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
 *
 * Reproducible mode (AUTOCOLL_REPRODUCIBLE=1, docs/reproducible.md): an order-sensitive
 * reduction (a->fixed_order) may run only instances that combine as x_0 op (x_1 op (... op
 * x_{p-1})); the restriction AUTOCOLL_R_ANY_ORDER excludes the others, the MPI library's own
 * included, in every stage. All qualifying instances give the same bits, so the engine may still
 * choose among them by time. Where the policy would fall back to the MPI library, such a call
 * runs a qualifying instance instead (the model's best, else the first in the registry).
 */
#include <string.h>
#include <stdio.h>
#include "select.h"
#include "adapt.h"
#include "table.h"

const char *ac_source_name(ac_source_t s) {
    static const char *names[] = {"default", "forced",   "fallback",       "table",
                                  "model",   "adaptive", "adaptive probe", "trivial"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

void ac_select_native(int coll, ac_choice_t *ch) {
    ac_inst_default(ac_alg_find(coll, "native"), &ch->inst);
    ch->src = AC_SRC_NATIVE_DEFAULT;
    ch->node_aware = ch->forced_unusable = 0;
}

/* The default of an order-sensitive reduction in reproducible mode, where others take the MPI
 * library's: the model's best qualifying instance, else the first qualifying algorithm of the
 * registry (every reducing collective has one: its linear algorithm). */
static void reproducible_default(ac_ctx_t *ctx, const ac_args_t *a, ac_choice_t *ch) {
    if (ac_adapt_model_best(ctx, a, &ch->inst) == 0 &&
        ac_alg_applicable(ch->inst.alg, a, ctx, NULL))
        return;
    for (int i = 0; i < ac_alg_count(a->coll); i++)
        if (ac_alg_applicable(ac_alg_get(a->coll, i), a, ctx, NULL)) {
            ac_inst_default(ac_alg_get(a->coll, i), &ch->inst);
            return;
        }
    ac_select_native(a->coll, ch); /* not reached: the registry test checks it */
}

/* ---------------------------------------------------------------- the stages
 * Each returns 1 when it chose (ch->inst, ch->src), 0 to pass to the next stage, -1 to stop:
 * the call then falls back (a forced instance that cannot run it or did not parse). */

static int from_forced(ac_ctx_t *ctx, const ac_args_t *a, ac_choice_t *ch, const char **why) {
    int c = a->coll;
    /* autocoll_force may change the forced instance from another thread only under
     * MPI_THREAD_MULTIPLE: the lock is needed then only. */
    int locked = ac_g.thread_level == MPI_THREAD_MULTIPLE;
    if (locked) ac_lock();
    int have = ac_sel.have_forced[c], bad = ac_sel.forced_bad[c];
    if (have) ac_inst_copy(&ch->inst, &ac_sel.forced[c]);
    if (locked) ac_unlock();
    if (!have) return bad ? -1 : 0;
    if (!ac_alg_applicable(ch->inst.alg, a, ctx, why)) return -1;
    ch->src = AC_SRC_FORCED;
    return 1;
}

/* First rule of the loaded table that matches the call and whose instance can run it. */
static int from_table(ac_ctx_t *ctx, const ac_args_t *a, ac_choice_t *ch, const char **why) {
    (void)why;
    if (ac_g.set.mode == AC_MODE_NATIVE || !ac_sel.table) return 0;
    const ac_rule_t *r[16];
    int ppn = (ctx->size + ctx->nnodes - 1) / ctx->nnodes;
    int n = ac_table_matches(ac_sel.table, a->coll, a->size, ctx->nnodes, ppn, a->bytes, r, 16);
    for (int i = 0; i < n; i++)
        if (ac_alg_applicable(r[i]->inst.alg, a, ctx, NULL)) {
            ac_inst_copy(&ch->inst, &r[i]->inst);
            ch->src = AC_SRC_TABLE;
            return 1;
        }
    return 0;
}

static int from_model(ac_ctx_t *ctx, const ac_args_t *a, ac_choice_t *ch, const char **why) {
    (void)why;
    if (ac_g.set.mode != AC_MODE_MODEL || ac_adapt_model_best(ctx, a, &ch->inst) != 0) return 0;
    ch->src = AC_SRC_MODEL;
    return 1;
}

static int from_engine(ac_ctx_t *ctx, const ac_args_t *a, ac_choice_t *ch, const char **why) {
    (void)why;
    if (ac_g.set.mode != AC_MODE_ADAPTIVE ||
        ac_adapt_select(ctx, a, &ch->inst, &ch->tk) != MPI_SUCCESS)
        return 0;
    ch->src = ch->tk.probe ? AC_SRC_PROBE : AC_SRC_ADAPTIVE;
    return 1;
}

typedef int (*ac_stage_fn)(ac_ctx_t *, const ac_args_t *, ac_choice_t *, const char **);
static const ac_stage_fn stages[] = {from_forced, from_table, from_model, from_engine};

/* A forced instance that cannot run the call: say so (see the header) and apply the policy. */
static int fall_back(const ac_ctx_t *ctx, const ac_args_t *a, const ac_inst_t *forced,
                     const char *why) {
    int c = a->coll;
    char key[256];
    if (forced) {
        const char *policy =
            ac_g.set.on_error == AC_ONERR_ERROR ? "failing the call (AUTOCOLL_ON_ERROR=error)"
            : a->fixed_order ? "using a rank-ordered instance (AUTOCOLL_REPRODUCIBLE)"
                             : "using the MPI library's algorithm";
        char name[128];
        ac_inst_format(forced, name, sizeof name);
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

/* A settled key's choice: kept by the context (select.h) in the way that holds its entry, else
 * in an empty way, else in the next way in turn. */
static void keep_settled(ac_ctx_t *ctx, const ac_args_t *a, const ac_choice_t *ch, unsigned gen) {
    ac_kept_t *ways = ctx->kept[a->coll], *k = NULL;
    for (int i = 0; i < AC_KEPT_WAYS && !k; i++)
        if (ways[i].entry == ch->tk.entry) k = &ways[i];
    for (int i = 0; i < AC_KEPT_WAYS && !k; i++)
        if (!ways[i].entry) k = &ways[i];
    if (!k) {
        k = &ways[ctx->kept_next[a->coll]];
        ctx->kept_next[a->coll] = (ctx->kept_next[a->coll] + 1) % AC_KEPT_WAYS;
    }
    *k = (ac_kept_t){.entry = ch->tk.entry,
                     .star = ac_adapt_star(ch->tk.entry),
                     .native = ch->inst.alg->flags & AUTOCOLL_R_NATIVE ? ch->inst.alg : NULL,
                     .bytes = a->bytes,
                     .op = a->op,
                     .root = a->root,
                     .inplace = a->inplace,
                     .commutative = a->commutative,
                     .fixed_order = a->fixed_order,
                     .cand = ch->tk.cand,
                     .node_aware = ch->node_aware,
                     .raw = !a->fixed_order && (a->op == MPI_OP_NULL || ac_op_predefined(a->op)),
                     .gen = gen};
}

int ac_select_full(ac_ctx_t *ctx, const ac_args_t *a, ac_choice_t *ch) {
    int c = a->coll;
    ch->tk.entry = NULL;
    ch->tk.timed = ch->tk.settled = 0;
    ch->node_aware = ch->forced_unusable = 0;
    /* One process, or no data (sizes agree on every rank): one right answer, which the MPI
     * library gives; no key, no probing, no engine state, unless an instance is forced. */
    if ((a->size == 1 || (a->bytes == 0 && !a->bytes_local && c != AUTOCOLL_BARRIER)) &&
        !ac_sel.have_forced[c] && !ac_sel.forced_bad[c]) {
        ac_select_native(c, ch);
        ch->src = AC_SRC_TRIVIAL;
        return MPI_SUCCESS;
    }
    unsigned gen = __atomic_load_n(&ac_sel.gen, __ATOMIC_ACQUIRE);
    ac_chosen_t *kept = &ctx->chosen[c];
    const char *why = NULL;
    int r = 0;
    for (size_t i = 0; r == 0 && i < sizeof stages / sizeof stages[0]; i++)
        r = stages[i](ctx, a, ch, &why);
    if (r < 0) { /* a forced instance that did not parse or cannot run this call */
        ac_inst_t forced;
        int unusable = ac_sel.have_forced[c];
        if (unusable) ac_inst_copy(&forced, &ch->inst);
        ac_select_native(c, ch);
        if (a->fixed_order) reproducible_default(ctx, a, ch);
        ch->src = AC_SRC_FALLBACK;
        ch->forced_unusable = unusable;
        int err = fall_back(ctx, a, unusable ? &forced : NULL, why);
        if (!err && a->fixed_order) ch->node_aware = ac_inst_node_aware(&ch->inst);
        return err;
    }
    if (r == 0) {
        ac_select_native(c, ch);
        if (a->fixed_order && ac_g.set.mode != AC_MODE_NATIVE) reproducible_default(ctx, a, ch);
    }
    ch->node_aware = !(ch->inst.alg->flags & AUTOCOLL_R_NATIVE) && ac_inst_node_aware(&ch->inst);
    /* Forced and table choices (and mode native's) depend only on the inputs above; the engine
     * decides per call. */
    if (ch->tk.settled) keep_settled(ctx, a, ch, gen);
    kept->valid = ch->src == AC_SRC_FORCED || ch->src == AC_SRC_TABLE ||
                  (ch->src == AC_SRC_NATIVE_DEFAULT && ac_g.set.mode == AC_MODE_NATIVE);
    if (kept->valid) {
        kept->gen = gen;
        kept->bytes = a->bytes;
        kept->inplace = a->inplace;
        kept->commutative = a->commutative;
        kept->fixed_order = a->fixed_order;
        kept->src = ch->src;
        kept->node_aware = ch->node_aware;
        ac_inst_copy(&kept->inst, &ch->inst);
    }
    return MPI_SUCCESS;
}

void ac_select_done(ac_ctx_t *ctx, const ac_args_t *a, ac_choice_t *ch, double seconds) {
    if (ch->tk.entry) ac_adapt_record(ctx, a, &ch->tk, seconds);
}
