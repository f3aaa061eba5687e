/*
 * STAR-MPI dynamic AEOS state machine (see star.h; seed 000 section 4.3, Figure 4.24 with the
 * corrections of spec/star-stage-ethernet.md 5.3: the monitoring counter advances on every call,
 * period averages use the reduced sums divided by nprocs, scores are kept per candidate, delta
 * returns to 2 after any slow period and is capped).
 *
 * Times cross ranks as integer nanoseconds so that the reduction is exact and order-free.
 */
#include "star.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static long long to_ns(double s) {
    return s <= 0 ? 0 : s > 9e9 ? 9000000000000000000LL : (long long)(s * 1e9 + 0.5);
}

static int set_plan(ac_star_t *s, const int *plan, int nplan) {
    int len = nplan * s->cfg.iter;
    if (len < 2) len = 2;
    if (len > s->buflen) {
        long long *b = realloc(s->buf, (size_t)len * sizeof *b);
        if (!b) return -1;
        s->buf = b;
        s->buflen = len;
    }
    memcpy(s->plan, plan, (size_t)nplan * sizeof *plan);
    s->nplan = nplan;
    s->pidx = s->it = 0;
    s->stage = AC_STAR_MEASURE;
    return 0;
}

/* Untimed members of group g, in probe order. */
static int untimed_of_group(const ac_star_t *s, int g, int *plan) {
    int k = 0;
    for (int c = 0; c < s->n; c++)
        if (s->group[c] == g && s->score[c] < 0) plan[k++] = c;
    return k;
}

static void start_monitor(ac_star_t *s) {
    s->stage = AC_STAR_MONITOR;
    s->delta = 2;
    s->mon = 0;
    s->tot_all = s->tot_last = 0;
}

static int best_timed(const ac_star_t *s, int except) {
    int b = -1;
    for (int c = 0; c < s->n; c++)
        if (c != except && s->score[c] >= 0 && (b < 0 || s->score[c] < s->score[b])) b = c;
    return b;
}

int ac_star_runner_up(const ac_star_t *s, int c) {
    return best_timed(s, c);
}

int ac_star_init(ac_star_t *s, const ac_star_cfg_t *cfg, int nprocs, int n, const int *group) {
    memset(s, 0, sizeof *s);
    if (n < 1 || n > AC_STAR_MAX) return -1;
    s->cfg = *cfg;
    if (s->cfg.iter < 1) s->cfg.iter = 1;
    if (s->cfg.delta_max < 2) s->cfg.delta_max = 2;
    s->nprocs = nprocs > 0 ? nprocs : 1;
    s->n = n;
    s->round2 = !s->cfg.grouping;
    int plan[AC_STAR_MAX], k = 0;
    for (int c = 0; c < n; c++) {
        s->group[c] = group ? group[c] : c;
        s->score[c] = -1;
    }
    if (n == 1) {
        /* Nothing to choose: run it, never measure. */
        s->score[0] = 0;
        s->cur = 0;
        start_monitor(s);
        return 0;
    }
    for (int c = 0; c < n; c++) {
        int first = 1;
        if (s->cfg.grouping)
            for (int d = 0; d < c; d++)
                if (s->group[d] == s->group[c]) first = 0;
        if (first) plan[k++] = c;
    }
    return set_plan(s, plan, k);
}

void ac_star_free(ac_star_t *s) {
    free(s->buf);
    s->buf = NULL;
    s->buflen = 0;
}

int ac_star_next(const ac_star_t *s) {
    return s->stage == AC_STAR_MEASURE ? s->plan[s->pidx] : s->cur;
}

int ac_star_record(ac_star_t *s, double t) {
    s->calls++;
    if (s->stage == AC_STAR_MEASURE) {
        s->probe_calls++;
        s->probe_time += t;
        s->buf[s->pidx * s->cfg.iter + s->it] = to_ns(t);
        if (++s->it == s->cfg.iter) {
            if (s->cfg.stat_max) {
                /* This rank's mean over the calls, in the first slot. The first call absorbs
                 * the skew the previous candidate left between ranks: it is not counted. */
                long long *b = s->buf + s->pidx * s->cfg.iter, sum = 0;
                int skip = s->cfg.iter > 2;
                for (int k = 0; k < s->cfg.iter; k++) {
                    if (k >= skip) sum += b[k];
                    b[k] = 0;
                }
                b[0] = sum / (s->cfg.iter - skip);
            }
            s->it = 0;
            s->pidx++;
        }
        return s->pidx == s->nplan;
    }
    if (s->n == 1) return 0;
    s->tot_all += t;
    if (s->mon >= (s->delta - 1) * s->cfg.iter) s->tot_last += t; /* last ITER calls */
    s->mon++;                                                     /* on every call */
    if (s->mon < s->delta * s->cfg.iter) return 0;
    s->buf[0] = to_ns(s->tot_all);
    s->buf[1] = to_ns(s->tot_last);
    return 1;
}

long long *ac_star_buffer(ac_star_t *s, int *len) {
    *len = s->stage == AC_STAR_MEASURE ? s->nplan * s->cfg.iter : 2;
    return s->buf;
}

int ac_star_op_max(const ac_star_t *s) {
    return s->cfg.stat_max;
}

/* Reduced nanoseconds to seconds per rank (mean over ranks, or the max as it is). */
static double per_rank(const ac_star_t *s, long long v) {
    return (double)v * 1e-9 / (s->cfg.stat_max ? 1 : s->nprocs);
}

/* After cur changed: time the untimed members of its group first (grouping), else monitor. */
static void settle(ac_star_t *s) {
    int plan[AC_STAR_MAX];
    int k = s->cfg.grouping ? untimed_of_group(s, s->group[s->cur], plan) : 0;
    if (k == 0 || set_plan(s, plan, k) != 0) start_monitor(s);
}

void ac_star_decide(ac_star_t *s) {
    s->decisions++;
    if (s->stage == AC_STAR_MEASURE) {
        for (int i = 0; i < s->nplan; i++) {
            double best = INFINITY;
            for (int k = 0; k < s->cfg.iter; k++) {
                double v = per_rank(s, s->buf[i * s->cfg.iter + k]);
                if (v < best) best = v;
            }
            /* max: the slowest rank's mean over the calls (the other slots hold 0) */
            s->score[s->plan[i]] = s->cfg.stat_max ? per_rank(s, s->buf[i * s->cfg.iter]) : best;
        }
        s->cur = best_timed(s, -1);
        if (s->cfg.grouping && s->cfg.margin > 0 && !s->round2) {
            /* Second round: the winning group and the groups that came close. */
            int plan[AC_STAR_MAX], k = 0;
            double lim = s->score[s->cur] * (1 + s->cfg.margin);
            for (int c = 0; c < s->n; c++) {
                if (s->score[c] >= 0) continue;
                int g = s->group[c], close = 0;
                for (int d = 0; d < s->n && !close; d++)
                    close = s->group[d] == g && s->score[d] >= 0 && s->score[d] <= lim;
                if (close) plan[k++] = c;
            }
            s->round2 = 1;
            if (k > 0 && set_plan(s, plan, k) == 0) return;
        }
        settle(s);
        return;
    }
    double avg_all = per_rank(s, s->buf[0]) / s->mon;
    double avg_last = per_rank(s, s->buf[1]) / s->cfg.iter;
    int alt = best_timed(s, s->cur);
    double second = alt < 0 ? INFINITY : s->score[alt];
    double limit = (1 + s->cfg.eps) * second;
    if (avg_all < limit) {
        s->delta = s->delta * 2 > s->cfg.delta_max ? s->cfg.delta_max : s->delta * 2;
    } else if (avg_last >= limit) {
        /* Sustained: the current algorithm's score becomes what it costs now. */
        s->score[s->cur] = avg_all;
        s->cur = best_timed(s, -1);
        s->switches++;
        s->delta = 2;
        s->mon = 0;
        s->tot_all = s->tot_last = 0;
        settle(s);
        return;
    } else {
        s->delta = 2; /* transient: watch more closely */
    }
    s->mon = 0;
    s->tot_all = s->tot_last = 0;
}
