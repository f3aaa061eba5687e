/*
 * Candidates of a key for the adaptive engine (adapt.c).
 *
 * Every applicable instance (or those named by AUTOCOLL_CANDIDATES_<COLL>), with the MPI
 * library's own algorithm among them. Each gets a predicted time from the cost models
 * (model.c) using the alpha/beta measured once per communicator (netmeasure.c); candidates
 * predicted more than AUTOCOLL_PRUNE times slower than the best prediction are dropped, the
 * rest are probed in predicted order, so the best-predicted member of each STAR group
 * represents it. Instances without a model (native) are never pruned; node-aware instances
 * are left out when every node holds one rank (racing learner, candidates()), and so are
 * instances equivalent at the key's size to one listed before them (racing learner,
 * same_at_size). Everything here depends only on values identical on every rank, so every
 * rank builds the same list.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "candidates.h"

enum { AC_ALL_INST = 512 };

typedef struct {
    ac_inst_t in;
    double pred, order;
    int reg; /* registry position, for ties */
} ac_cand_t;

static int listed(const char *list, const ac_inst_t *in) {
    if (!list[0]) return 1;
    char name[256];
    ac_inst_format(in, name, sizeof name);
    size_t an = strlen(in->alg->name);
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if ((n == an && !strncmp(p, in->alg->name, n)) ||
            (n == strlen(name) && !strncmp(p, name, n)))
            return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

static double predict(const ac_cand_env_t *env, const ac_args_t *a, const ac_inst_t *in) {
    ac_mcase_t c = {env->p, env->nodes, env->ppn, (double)a->bytes, a->commutative};
    return ac_model_predict(in, &c, &env->net);
}

/* 1 when instances a and b of one algorithm run the same messages for a key of `bytes` bytes:
 * their parameters are equal but for "seg", and both seg values are at least `bytes`. Every
 * algorithm with a parameter seg cuts a message of at most the key's bytes (the buffer of a
 * bcast, reduce or allreduce; one block of a gather) into pieces of seg bytes, so any seg of
 * at least that size sends the message whole (docs/adaptive.md, "Equivalent instances"). */
static int same_at_size(const ac_inst_t *a, const ac_inst_t *b, size_t bytes) {
    if (a->alg != b->alg) return 0;
    int seg = 0;
    for (int i = 0; i < a->alg->nparam; i++) {
        const ac_param_t *pm = &a->alg->param[i];
        const ac_pval_t *x = &a->val[i], *y = &b->val[i];
        if (pm->type == AC_PT_INT && !strcmp(pm->name, "seg") && x->i >= (long)bytes &&
            y->i >= (long)bytes) {
            seg = 1;
            continue;
        }
        if (pm->type == AC_PT_INT   ? x->i != y->i
            : pm->type == AC_PT_ALG ? x->alg != y->alg
                                    : strcmp(x->s, y->s) != 0)
            return 0;
    }
    return seg;
}

static int cand_cmp(const void *x, const void *y) {
    const ac_cand_t *a = x, *b = y;
    if (a->order != b->order) return a->order < b->order ? -1 : 1;
    return a->reg - b->reg;
}

/* Every applicable (and listed) instance with its prediction, pruned and sorted. out holds
 * AC_ALL_INST. */
static int candidates(const ac_cand_env_t *env, const ac_ctx_t *ctx, const ac_args_t *a,
                      ac_cand_t *out, int *considered) {
    int n = 0, c = a->coll;
    /* One rank per node: a node-aware instance is its inter-node part, which is a candidate
     * of its own, plus the set-up of the node and leader communicators (two splits, paid by
     * its first call: 9 ms on the 16-node switch, 18 calls of a 256 B bcast). The racing
     * learner leaves it out, and so does the models' choice that uses this list (the classic
     * learner keeps STAR's list). */
    int one_per_node = ac_g.set.learn && env->ppn == 1 && env->nodes > 1;
    double best = INFINITY;
    for (int k = 0; k < ac_alg_count(c); k++) {
        const ac_alg_t *alg = ac_alg_get(c, k);
        if (!ac_alg_applicable(alg, a, ctx, NULL)) continue;
        for (int i = 0; i < ac_inst_count(alg) && n < AC_ALL_INST; i++) {
            ac_inst_nth(alg, i, &out[n].in);
            if (!listed(ac_g.set.cand[c], &out[n].in)) continue;
            if (one_per_node && ac_inst_node_aware(&out[n].in)) continue;
            int dup = 0; /* the first of equivalent instances (registry order) stands for all */
            for (int j = n - 1; ac_g.set.learn && j >= 0 && out[j].in.alg == alg && !dup; j--)
                dup = same_at_size(&out[j].in, &out[n].in, a->bytes);
            if (dup) continue;
            out[n].pred = predict(env, a, &out[n].in);
            out[n].reg = n;
            if (out[n].pred >= 0 && out[n].pred < best) best = out[n].pred;
            n++;
        }
    }
    *considered = n;
    int kept = 0;
    for (int i = 0; i < n; i++) {
        double pr = out[i].pred;
        if (pr >= 0 && ac_g.set.prune > 0 && isfinite(best) && pr > ac_g.set.prune * best) continue;
        out[kept] = out[i];
        /* No model: probe it as early as the best prediction. */
        out[kept].order = pr >= 0 ? pr : (isfinite(best) ? best : 0);
        kept++;
    }
    qsort(out, (size_t)kept, sizeof *out, cand_cmp);
    return kept;
}

/* The instances considered for one key, in static storage so that listing them cannot fail
 * on one rank only (the engine creates keys without communicating, adapt.c), under its own
 * lock (keys of several communicators may be created by several threads at once). */
static ac_cand_t all[AC_ALL_INST];
static pthread_mutex_t all_mtx = PTHREAD_MUTEX_INITIALIZER;

int ac_cand_build(const ac_ctx_t *ctx, const ac_args_t *a, const ac_cand_env_t *env, int max,
                  ac_inst_t *cand, double *pred, int *group, int *considered) {
    pthread_mutex_lock(&all_mtx);
    *considered = 0;
    int n = candidates(env, ctx, a, all, considered);
    if (n > max) n = max;
    for (int i = 0; i < n; i++) {
        cand[i] = all[i].in;
        pred[i] = all[i].pred;
        group[i] = i;
        for (int j = 0; j < i; j++)
            if (!strcmp(all[j].in.alg->group, all[i].in.alg->group)) {
                group[i] = group[j];
                break;
            }
    }
    pthread_mutex_unlock(&all_mtx);
    return n;
}

int ac_cand_model_best(const ac_ctx_t *ctx, const ac_args_t *a, const ac_cand_env_t *env,
                       ac_inst_t *out) {
    pthread_mutex_lock(&all_mtx);
    int considered, best = -1, n = candidates(env, ctx, a, all, &considered);
    for (int i = 0; i < n && best < 0; i++)
        if (all[i].pred >= 0) best = i;
    if (best >= 0) *out = all[best].in;
    pthread_mutex_unlock(&all_mtx);
    return best >= 0 ? 0 : -1;
}
