/*
 * Simulated annealing over broadcast trees (seed 002, Gupta & Vadhiyar, §2.2-2.3, Fig. 1-2;
 * spec adaptive-bcast-grid.md sections 6 and 8): the good list, basicSA and driverSA.
 *
 * basicSA: temperatures 100, 80, ..., 100 * 0.8^20 (21 levels, minimum 1), at most 80
 * transforms per level, a level ends early after 20 acceptances, annealing stops when a level
 * accepts <= 2 moves without a new best. One run therefore evaluates at most 21 x 80 = 1,680
 * transformed trees plus its starting tree, each O(n log n) (grid_cost.c), and one transform is
 * O(n) (critical path, subtree marking, candidate parents).
 * Move: prune-and-regraft of a non-root node of the critical path (with its whole subtree)
 * under a uniformly drawn node outside that subtree other than its current parent: the result
 * is always a spanning tree with the same root.
 * Acceptance: a new best always; otherwise u < exp(-delta / temp) with delta the relative
 * change in percent (default) or the difference in milliseconds.
 *
 * driverSA: fixed mode runs 50 randomised basicSA runs sharing one good list, then 25
 * refinement runs cycling over the good list as it stood (each with a discarded scratch list).
 * Timed modes leave randomisation once the time since the good list's minimum last improved
 * reaches 1.5 x the remaining budget, and refine while budget remains (tested before each
 * run). The budget clock is wall time or a count of cost evaluations (bit-exact reruns).
 */
#include "grid_tree.h"
#include "grid_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ good list */

int ac_grid_good_init(ac_grid_good_t *g, int n) {
    memset(g, 0, sizeof *g);
    g->n = n;
    g->min = INFINITY;
    g->parent = malloc((size_t)AC_GRID_GOOD_CAP * (size_t)n * sizeof(int));
    return g->parent ? 0 : -1;
}

void ac_grid_good_free(ac_grid_good_t *g) {
    free(g->parent);
    g->parent = NULL;
    g->count = 0;
}

static void good_reset(ac_grid_good_t *g) {
    g->count = 0;
    g->min = INFINITY;
    g->min_stamp = 0;
}

static int *good_entry(const ac_grid_good_t *g, int i) {
    return g->parent + (size_t)i * (size_t)g->n;
}

int ac_grid_good_offer(ac_grid_good_t *g, const int *parent, double cost) {
    int newmin = cost < g->min;
    size_t bytes = (size_t)g->n * sizeof(int);
    if (newmin) { /* drop the entries that leave the band */
        g->min = cost;
        int k = 0;
        for (int i = 0; i < g->count; i++) {
            if (g->cost[i] <= 1.10 * g->min) {
                if (k != i) {
                    memcpy(good_entry(g, k), good_entry(g, i), bytes);
                    g->cost[k] = g->cost[i];
                }
                k++;
            }
        }
        g->count = k;
    }
    if (cost > 1.10 * g->min) return newmin;
    for (int i = 0; i < g->count; i++)
        if (!memcmp(good_entry(g, i), parent, bytes)) return newmin;
    int slot = g->count;
    if (slot == AC_GRID_GOOD_CAP) { /* full: evict the most expensive if this one is cheaper */
        slot = 0;
        for (int i = 1; i < g->count; i++)
            if (g->cost[i] > g->cost[slot]) slot = i;
        if (g->cost[slot] <= cost) return newmin;
    } else {
        g->count++;
    }
    memcpy(good_entry(g, slot), parent, bytes);
    g->cost[slot] = cost;
    return newmin;
}

/* ------------------------------------------------------------------ search context */

void ac_grid_opts_default(ac_grid_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->delta = AC_GRID_DELTA_RELATIVE;
    o->strict = 0;
    o->pool_max = 16;
    o->npcts = 4;
    o->pcts[0] = 10;
    o->pcts[1] = 25;
    o->pcts[2] = 50;
    o->pcts[3] = 75;
    o->fixed_random = 50;
    o->fixed_refine = 25;
}

ac_grid_search_t *ac_grid_search_new(const ac_grid_model_t *M, const ac_grid_opts_t *opt) {
    if (M->n < 1) return NULL;
    ac_grid_search_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->M = *M;
    s->opt = *opt;
    ac_grid_rng_seed(&s->rng, opt->seed);
    size_t z = (size_t)M->n;
    s->ev = ac_grid_eval_new(M->n);
    s->cur = malloc(z * sizeof(int));
    s->nw = malloc(z * sizeof(int));
    s->best = malloc(z * sizeof(int));
    s->tmp = malloc(z * sizeof(int));
    s->path = malloc(z * sizeof(int));
    s->mark = malloc(z * sizeof(char));
    if (!s->ev || !s->cur || !s->nw || !s->best || !s->tmp || !s->path || !s->mark) {
        ac_grid_search_free(s);
        return NULL;
    }
    return s;
}

void ac_grid_search_free(ac_grid_search_t *s) {
    if (!s) return;
    ac_grid_eval_free(s->ev);
    free(s->cur);
    free(s->nw);
    free(s->best);
    free(s->tmp);
    free(s->path);
    free(s->mark);
    free(s);
}

const ac_grid_stats_t *ac_grid_search_stats(const ac_grid_search_t *s) {
    return &s->st;
}

double ac_grid_eval_count(ac_grid_search_t *s, const int *parent) {
    s->st.evals++;
    return ac_grid_cost(s->ev, &s->M, parent);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Budget clock of the current driverSA call: seconds or evaluations since its start. */
static double elapsed(const ac_grid_search_t *s) {
    if (s->bmode == AC_GRID_BUDGET_TIME) {
        double t = now_s() - s->t0;
        if (s->bcap > 0) {
            double e = (double)(s->st.evals - s->e0) * s->bamount / s->bcap;
            if (e > t) t = e;
        }
        return t;
    }
    return (double)(s->st.evals - s->e0);
}

/* ------------------------------------------------------------------ basicSA */

/* Mark u's subtree in s->mark (1 inside, 2 outside) by walking up with memoisation: O(n). */
static void mark_subtree(ac_grid_search_t *s, const int *par, int u) {
    int n = s->M.n;
    memset(s->mark, 0, (size_t)n);
    s->mark[u] = 1;
    for (int v = 0; v < n; v++) {
        int w = v, k = 0;
        while (s->mark[w] == 0 && par[w] >= 0 && k < n) { /* k < n: never loop forever */
            s->path[k++] = w;                             /* path[] is free scratch here */
            w = par[w];
        }
        char c = s->mark[w] ? s->mark[w] : 2; /* reached the root unmarked: outside */
        while (k > 0)
            s->mark[s->path[--k]] = c;
        if (s->mark[w] == 0) s->mark[w] = 2;
    }
}

/* transform(T, root) of section 6.2 from s->cur (critical leaf crit) into s->nw. */
static void transform(ac_grid_search_t *s, int crit) {
    int n = s->M.n;
    memcpy(s->nw, s->cur, (size_t)n * sizeof(int));
    int *onpath = s->tmp, k = 0;
    for (int v = crit; v >= 0 && s->cur[v] >= 0; v = s->cur[v])
        onpath[k++] = v; /* non-root nodes of the critical path, leaf first */
    if (k == 0) return;
    for (int tries = 0; tries < n; tries++) {
        int u = onpath[ac_grid_rng_below(&s->rng, k)];
        mark_subtree(s, s->cur, u);
        int ncand = 0;
        for (int v = 0; v < n; v++)
            if (s->mark[v] == 2 && v != s->cur[u]) ncand++;
        if (ncand == 0) continue;
        int pick = ac_grid_rng_below(&s->rng, ncand);
        for (int v = 0; v < n; v++) {
            if (s->mark[v] == 2 && v != s->cur[u] && pick-- == 0) {
                s->nw[u] = v;
                return;
            }
        }
    }
}

static double delta(const ac_grid_search_t *s, double cnew, double ccur) {
    if (s->opt.delta == AC_GRID_DELTA_MS) return 1000.0 * (cnew - ccur);
    if (ccur <= 0) return cnew > ccur ? INFINITY : 0.0;
    return 100.0 * (cnew - ccur) / ccur;
}

double ac_grid_basic_sa(ac_grid_search_t *s, int *parent_io, ac_grid_good_t *good) {
    int n = s->M.n;
    size_t bytes = (size_t)n * sizeof(int);
    s->st.basic_runs++;
    int root = ac_grid_check_parent(n, parent_io, NULL, 0);
    if (root < 0) return INFINITY; /* not a tree: nothing to anneal */
    memcpy(s->cur, parent_io, bytes);
    double ccur = ac_grid_eval_count(s, s->cur);
    int crit = ac_grid_eval_critical_leaf(s->ev);
    memcpy(s->best, s->cur, bytes);
    double cbest = ccur;
    long moves = 0;
    for (double temp = 100.0; temp > 1.0; temp *= 0.8) {
        int acc = 0, improved = 0;
        for (int i = 0; i < 80; i++) {
            transform(s, crit);
            double cnew = ac_grid_eval_count(s, s->nw);
            moves++;
            if (good && ac_grid_good_offer(good, s->nw, cnew)) good->min_stamp = elapsed(s);
            int take = 0;
            if (cnew < cbest) {
                memcpy(s->best, s->nw, bytes);
                cbest = cnew;
                improved = 1;
                take = 1;
            } else if (ac_grid_rng_unif(&s->rng) < exp(-delta(s, cnew, ccur) / temp)) {
                take = 1;
            }
            if (take) {
                int *x = s->cur; /* swap current and new */
                s->cur = s->nw;
                s->nw = x;
                ccur = cnew;
                crit = ac_grid_eval_critical_leaf(s->ev);
                acc++;
            }
            if (acc == 20) break;
        }
        if (acc <= 2 && !improved) break;
    }
    if (moves > s->st.max_moves) s->st.max_moves = moves;
    if (s->best[root] != -1) s->st.root_moved = 1;
    memcpy(parent_io, s->best, bytes);
    return cbest;
}

/* ------------------------------------------------------------------ driverSA */

static void progress(ac_grid_search_t *s, int phase, double best) {
    if (s->opt.progress) s->opt.progress(s->opt.progress_arg, phase, elapsed(s), best);
}

double ac_grid_driver_sa(ac_grid_search_t *s, int root, ac_grid_budget_t budget, int *parent) {
    int n = s->M.n;
    size_t bytes = (size_t)n * sizeof(int);
    s->st.driver_calls++;
    if (n == 1) {
        parent[0] = -1;
        return 0.0;
    }
    s->bmode = budget.mode;
    s->bamount = budget.amount;
    s->bcap = budget.mode == AC_GRID_BUDGET_TIME ? budget.cap : 0;
    s->t0 = now_s();
    s->e0 = s->st.evals;
    int timed = budget.mode != AC_GRID_BUDGET_NONE;
    ac_grid_good_t good = {0}, scratch = {0}, snap = {0};
    int *tree = malloc(bytes);
    double best = INFINITY;
    if (ac_grid_good_init(&good, n) || ac_grid_good_init(&scratch, n) ||
        ac_grid_good_init(&snap, n) || !tree) {
        /* Out of memory: still return a valid tree (a star from the root). */
        for (int v = 0; v < n; v++)
            parent[v] = v == (root >= 0 ? root : 0) ? -1 : (root >= 0 ? root : 0);
        best = ac_grid_eval_count(s, parent);
        goto fn_exit;
    }
    /* Randomisation phase. */
    for (long runs = 1;; runs++) {
        int r = root >= 0 ? root : ac_grid_rng_below(&s->rng, n);
        ac_grid_random_tree(&s->rng, n, r, tree);
        double c = ac_grid_basic_sa(s, tree, &good);
        if (c < best) {
            best = c;
            memcpy(parent, tree, bytes);
        }
        progress(s, AC_GRID_PHASE_RANDOM, best);
        if (!timed) {
            if (runs >= s->opt.fixed_random) break;
        } else {
            double el = elapsed(s), remaining = budget.amount - el, stagnant = el - good.min_stamp;
            if (stagnant >= 1.5 * remaining) break;
        }
    }
    /* Refinement phase over a snapshot of the good list. */
    memcpy(snap.parent, good.parent, (size_t)good.count * bytes);
    memcpy(snap.cost, good.cost, (size_t)good.count * sizeof(double));
    snap.count = good.count;
    if (snap.count == 0) { /* nothing in the band (cannot happen with n > 1): refine the best */
        memcpy(snap.parent, parent, bytes);
        snap.count = 1;
    }
    double spent0 = elapsed(s);
    for (long j = 0;; j++) {
        if (!timed) {
            if (j >= s->opt.fixed_refine) break;
        } else {
            double el = elapsed(s), remaining = budget.amount - el;
            if (remaining <= 0) break;
            if (s->opt.strict && j > 0 && (el - spent0) / (double)j > remaining) break;
        }
        memcpy(tree, good_entry(&snap, (int)(j % snap.count)), bytes);
        good_reset(&scratch);
        double c = ac_grid_basic_sa(s, tree, &scratch);
        if (c < best) {
            best = c;
            memcpy(parent, tree, bytes);
        }
        progress(s, AC_GRID_PHASE_REFINE, best);
    }
fn_exit:
    free(tree);
    ac_grid_good_free(&good);
    ac_grid_good_free(&scratch);
    ac_grid_good_free(&snap);
    return best;
}
