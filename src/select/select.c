/*
 * Selection policy: forced (AUTOCOLL_<COLL> or autocoll_force) > model/table/adaptive (later
 * layers) > native. Returns one algorithm instance.
 *
 * Agreement: every input used here is identical on every rank (registry, settings broadcast at
 * MPI_Init, communicator size and layout, collective, op commutativity, non-rooted in-place flag,
 * selection size), so every rank returns the same instance.
 *
 * A forced instance that cannot run a call (a restriction is violated) or that did not parse is
 * reported once on rank 0 of the communicator, then the policy AUTOCOLL_ON_ERROR applies:
 * "native" (default) runs the MPI library's collective, "error" fails the call with MPI_ERR_ARG
 * through the communicator's error handler.
 */
#include <stdio.h>
#include "../core/ac.h"

static int rooted(int coll) {
    return coll == AUTOCOLL_BCAST || coll == AUTOCOLL_REDUCE || coll == AUTOCOLL_GATHER ||
           coll == AUTOCOLL_SCATTER;
}

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
    else if ((f & AUTOCOLL_R_NO_INPLACE) && a->inplace && !rooted(a->coll))
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

int ac_select(ac_ctx_t *ctx, const ac_args_t *a, ac_inst_t *out, ac_source_t *src) {
    int c = a->coll;
    const char *why = NULL;
    char key[256];
    ac_lock();
    int have = ac_g.have_forced[c], bad = ac_g.forced_bad[c];
    ac_inst_t forced = ac_g.forced[c];
    ac_unlock();

    if (have && ac_alg_applicable(forced.alg, a, ctx, &why)) {
        *out = forced;
        *src = AC_SRC_FORCED;
        return MPI_SUCCESS;
    }
    ac_inst_default(ac_alg_find(c, "native"), out);
    *src = AC_SRC_NATIVE_DEFAULT;
    if (!have && !bad) return MPI_SUCCESS;

    *src = AC_SRC_FALLBACK;
    if (have && ctx->rank == 0) {
        char name[128];
        ac_inst_format(&forced, name, sizeof name);
        snprintf(key, sizeof key, "restr %ld %d %s %d", ctx->id, c, name, a->size);
        ac_log_once(key, "%s %s cannot run on this call (p=%d): %s; %s", ac_coll_name(c), name,
                    a->size, why,
                    ac_g.set.on_error == AC_ONERR_ERROR
                        ? "failing the call (AUTOCOLL_ON_ERROR=error)"
                        : "using the MPI library's algorithm");
    }
    return ac_g.set.on_error == AC_ONERR_ERROR ? MPI_ERR_ARG : MPI_SUCCESS;
}
