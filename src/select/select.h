/*
 * The select layer: the algorithm registry, the selection policy and its state (forced
 * instances, the loaded tuning table), and the adaptive engine behind it.
 *
 * The interposition layer (src/pmpi) talks to select through this header only: the life cycle
 * (ac_select_setup, ac_select_teardown) and one choice record per call (ac_select,
 * ac_select_native, ac_select_done). Layers: pmpi -> select -> coll -> sched -> core.
 */
#ifndef AC_SELECT_H
#define AC_SELECT_H

#include "../core/ac.h"
#include "star.h"

/* ---------------------------------------------------------------- registry (registry.c) */

void ac_registry_init(void); /* idempotent; parses every param spec */
int ac_alg_count(int coll);
const ac_alg_t *ac_alg_get(int coll, int idx);
const ac_alg_t *ac_alg_find(int coll, const char *name);
int ac_param_spec_parse(const char *spec, ac_param_t *out, int max, char *err, size_t errlen);
/* Split "name[:k=v[,k=v...]]" and resolve it against the registry of coll. Returns 0 and fills
 * *inst, or -1 with a message in err. */
int ac_inst_parse(int coll, const char *spec, ac_inst_t *inst, char *err, size_t errlen);
/* 1 when running in on a context needs its node and leader communicators (ac_ctx_nodes): a
 * node-aware algorithm, or a composite running such a part with its own context. */
int ac_inst_node_aware(const ac_inst_t *in);
/* 1 when alg may run this call; otherwise 0 and the violated restriction in why. */
int ac_alg_applicable(const ac_alg_t *alg, const ac_args_t *a, const ac_ctx_t *ctx,
                      const char **why);

/* ---------------------------------------------------------------- the choice of one call */

typedef enum {
    AC_SRC_NATIVE_DEFAULT = 0, /* mode native, or nothing else answered */
    AC_SRC_FORCED,
    AC_SRC_FALLBACK, /* forced but unusable: policy AUTOCOLL_ON_ERROR */
    AC_SRC_TABLE,
    AC_SRC_MODEL,
    AC_SRC_ADAPTIVE,
    AC_SRC_PROBE,  /* adaptive engine, measurement round */
    AC_SRC_TRIVIAL /* one process or no data: the MPI library's collective, nothing recorded */
} ac_source_t;
const char *ac_source_name(ac_source_t s);

/* What the adaptive engine needs back after a call it chose (entry NULL: it did not choose). */
typedef struct ac_ticket {
    void *entry;
    int cand;
    int probe;     /* 1 during a measurement round */
    int timed;     /* 1 when the engine needs this call's time (ac_star_timed) */
    int settled;   /* 1 when the key is monitored: its choice can be kept by the context */
    double t_made; /* the clock when the engine had chosen (the end of its own bookkeeping) */
    double t_done; /* the clock when the call ended: set by the caller before ac_select_done */
} ac_ticket_t;

/* One call's choice. */
typedef struct {
    ac_inst_t inst;      /* the instance to run */
    ac_source_t src;     /* who chose it */
    int node_aware;      /* inst needs the context's node communicators (ac_inst_node_aware) */
    int forced_unusable; /* AC_SRC_FALLBACK because the forced instance cannot run this call */
    ac_ticket_t tk;
} ac_choice_t;

/* Chooses the instance for call a on ctx (agreed: every input is identical on every rank).
 * Returns MPI_SUCCESS, or an MPI error code when a forced instance cannot run and
 * AUTOCOLL_ON_ERROR=error (ch->src is then AC_SRC_FALLBACK). ac_select_done must follow the
 * call with its local time. */
static inline int ac_select(ac_ctx_t *ctx, const ac_args_t *a, ac_choice_t *ch);
void ac_select_done(ac_ctx_t *ctx, const ac_args_t *a, ac_choice_t *ch, double seconds);
/* Makes ch's instance the MPI library's own collective (no context needed); the engine's ticket
 * is left as it is (a call the engine chose and that fell back is still timed for it). */
void ac_select_native(int coll, ac_choice_t *ch);

/* ---------------------------------------------------------------- life cycle (setup.c) */

/* After ac_state_setup (settings known): registry, forced instances, AUTOCOLL_CANDIDATES_*,
 * the tuning table (collective over MPI_COMM_WORLD when collective is 1). */
void ac_select_setup(int collective);
/* Before ac_state_teardown, collective over MPI_COMM_WORLD: the engine's summary and learned
 * table, then the loaded table is freed. */
void ac_select_teardown(void);
/* AUTOCOLL_CANDIDATES_<COLL>: checks every entry of s->cand against the registry, keeps the good
 * ones in canonical form, and appends one line per problem to err. */
void ac_candidates_check(ac_settings_t *s, char *err, size_t errlen);

/* The policy's state, shared by the stages of select.c. */
typedef struct {
    int have_forced[AUTOCOLL_NCOLL];
    int forced_bad[AUTOCOLL_NCOLL]; /* AUTOCOLL_<COLL> did not parse */
    ac_inst_t forced[AUTOCOLL_NCOLL];
    autocoll_table_t *table; /* AUTOCOLL_TABLE, identical on every rank (NULL: none) */
    unsigned gen;            /* bumped by autocoll_force: choices cached by contexts are stale */
    /* The MPI library's algorithm when every call of the collective runs it with nothing for
     * the library to record (setup.c, native_only_update): forced to native, or mode native
     * with nothing forced, and no AUTOCOLL_VERBOSE, AUTOCOLL_CHECK or AUTOCOLL_REPRODUCIBLE.
     * NULL otherwise. Such a choice depends on no argument of the call, so the interposition
     * layer sends these calls straight to PMPI_<Coll> (ac_pass) and every rank agrees. */
    const ac_alg_t *native_only[AUTOCOLL_NCOLL];
} ac_sel_state_t;
extern ac_sel_state_t ac_sel;

/* The stages of the policy (select.c), behind the per-context cache below. */
int ac_select_full(ac_ctx_t *ctx, const ac_args_t *a, ac_choice_t *ch);

/* The choice of a settled adaptive key kept by the context (adapt.c): the engine's ticket for
 * this call, or the full selection when the key no longer monitors that choice. */
int ac_adapt_kept(ac_ctx_t *ctx, const ac_args_t *a, ac_choice_t *ch, ac_kept_t *k);
/* The STAR state of an engine entry (adapt.c), kept with its choice (ac_kept_t.star). */
void *ac_adapt_star(void *entry);
/* 1 when the key of k still monitors k's choice and does not time this call: the call is
 * counted, nothing is left to record. 0: nothing done. Inline: the per-call path of a settled
 * key. */
static inline __attribute__((always_inline)) int ac_kept_skip(ac_kept_t *k) {
    ac_star_t *s = k->star;
    if (s->stage != AC_STAR_MONITOR || s->awaiting || s->cur != k->cand || ac_star_timed(s))
        return 0;
    ac_star_skip(s);
    return 1;
}

/* The way of the context's kept choices (below) for the inputs of a, NULL: none. */
static inline __attribute__((always_inline)) ac_kept_t *
ac_kept_find(ac_ctx_t *ctx, const ac_args_t *a, unsigned gen) {
    for (int i = 0; i < AC_KEPT_WAYS; i++) {
        ac_kept_t *k = &ctx->kept[a->coll][i];
        if (k->entry && k->bytes == a->bytes && k->root == a->root && k->op == a->op &&
            k->inplace == a->inplace && k->commutative == a->commutative &&
            k->fixed_order == a->fixed_order && k->gen == gen)
            return k;
    }
    return NULL;
}

/* A forced or table choice (or mode native's) is kept per context and collective with what it
 * was chosen for; the same inputs give the same choice (the context's size and layout are fixed,
 * a changed forcing bumps ac_sel.gen), so the per-call path skips the stages. So are the choices
 * of the last settled adaptive keys (AC_KEPT_WAYS per collective), with the inputs of their key
 * (selection size, root, operation, in-place, commutativity, order): the same inputs map to the
 * same key, so the engine's key lookup is skipped too. A rank that misses where another hits
 * reaches the same entry through the full path, which for an existing key communicates
 * nothing: hits need no agreement. The two kinds never hold the same inputs: the forced and
 * table stages answer from those inputs alone (ac_alg_applicable), so inputs they answered
 * never reach the engine. Inline: this is most calls of a program in steady state. */
static inline __attribute__((always_inline)) int ac_select(ac_ctx_t *ctx, const ac_args_t *a,
                                                           ac_choice_t *ch) {
    const ac_chosen_t *kept = &ctx->chosen[a->coll];
    unsigned gen = __atomic_load_n(&ac_sel.gen, __ATOMIC_ACQUIRE);
    if (kept->valid && kept->gen == gen && kept->bytes == a->bytes && kept->inplace == a->inplace &&
        kept->commutative == a->commutative && kept->fixed_order == a->fixed_order) {
        ac_inst_copy(&ch->inst, &kept->inst);
        ch->src = (ac_source_t)kept->src;
        ch->node_aware = kept->node_aware;
        ch->forced_unusable = 0;
        ch->tk.entry = NULL;
        ch->tk.timed = 0;
        return MPI_SUCCESS;
    }
    ac_kept_t *k = ac_kept_find(ctx, a, gen);
    return k ? ac_adapt_kept(ctx, a, ch, k) : ac_select_full(ctx, a, ch);
}

/* The MPI library's algorithm when call a is an untimed call of a settled key that chose it
 * (counted by the engine: the caller runs it and records nothing), else NULL. The most common
 * steady state of the adaptive engine, where the MPI library's own collective wins. */
static inline __attribute__((always_inline)) const ac_alg_t *
ac_select_kept_native(ac_ctx_t *ctx, const ac_args_t *a) {
    ac_kept_t *k = ac_kept_find(ctx, a, __atomic_load_n(&ac_sel.gen, __ATOMIC_ACQUIRE));
    return k && k->native && ac_kept_skip(k) ? k->native : NULL;
}

#endif
