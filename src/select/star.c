/*
 * STAR-MPI dynamic AEOS state machine (see star.h; seed 000 section 4.3, Figure 4.24 with the
 * corrections of spec/star-stage-ethernet.md 5.3: the monitoring counter advances on every call,
 * period averages use the reduced sums divided by nprocs, scores are kept per candidate, delta
 * returns to 2 after any slow period and is capped).
 *
 * Times cross ranks as integer nanoseconds so that the reduction is exact and order-free.
 *
 * Racing (cfg.race; star.h; docs/adaptive.md "Learning cost"): the measurement runs in
 * batches of (candidate, calls) entries; the batch's buffer holds each rank's summed time per
 * entry, with and without the entry's first call, and is reduced with MAX, so a sample is the
 * slowest rank's time over the entry's calls (the completion-time statistic). The first call
 * of an entry absorbs the skew that the previous candidate or the reduction left between ranks:
 * a candidate's score is its mean without the first call of each entry once it has such calls,
 * else the mean of its single-call samples; an entry of more than ITER calls (the current
 * choice earning budget, at most 4 x ITER calls) replaces its score with what it costs now.
 * The key starts with one entry of the incumbent, as long as the budget needs to cover the
 * first batch of probes (race_first_calls). After each batch: samples are added; candidates
 * clearly slower than the best mean are dropped (race_margin + the best's relative spread,
 * capped at 0.25); a candidate with race_iter samples and a better mean than the current
 * choice becomes it; the next batch is planned: the pending probes in order (survivors by
 * mean, then unsampled ones by the models' predictions calibrated by the samples of their
 * algorithm, far slower ones left out (race_calibrate), and probe order, those marked late
 * last) while their expected excess over the current choice's time b (unsampled: the mean
 * first sample of the probes so far minus b, at least b / 2; sampled: their measured excess,
 * at least b / 10, per remaining sample; a survivor gets its remaining samples in one entry)
 * fits the budget explore x total - regret, where regret is what the other candidates' calls
 * cost beyond as many calls of the initial incumbent (so fast probes and a better choice earn
 * budget; the incumbent's own calls are the reference and add none). At least AC_RACE_BATCH
 * probes go into a batch (fewer only when fewer are pending); while they do not fit, the
 * current choice runs for as many calls as it takes to earn them (and pay for the first call
 * of its entry).
 * Cost per key: one call per dropped candidate, race_iter per survivor, one reduction per
 * batch; O(n^2) work per decision (race_calibrate). Every quantity above is a reduced
 * (agreed) number or a call count, so every rank plans the same batches.
 *
 * Transfer (ac_star_transfer, before the first call; the caller passes the same arguments on
 * every rank): the key starts on another candidate, which becomes the incumbent (the
 * reference of the budget); untried candidates are probed by level (late: 0, or 2 when dropped
 * at a neighbouring key; 1 is free for a caller) and within a level by hint (a neighbouring
 * key's means), ties by the calibrated models and probe order; prune 2 takes a candidate
 * out (a confirmation between two neighbours that settled on the same instance). Unbiased
 * rooted probes (cfg.clean_probe): an untried candidate's entry runs two calls, so its score
 * is its second call (the first pays for the skew the previous candidate left) and its
 * expected cost counts two calls.
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
    s->mon = s->nmon = s->tnext = 0;
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

/* ---------------------------------------------------------------- racing (cfg.race) */

enum { AC_RACE_BATCH = 3 }; /* probes per reduction, at least (fewer only at the end) */

static int race_batch(ac_star_t *s, const int *cand, const int *calls, int k) {
    for (int i = 0; i < k; i++) {
        s->rplan[i] = cand[i];
        s->rcalls[i] = calls[i];
        s->buf[2 * i] = s->buf[2 * i + 1] = 0;
    }
    s->nplan = k;
    s->pidx = s->it = 0;
    s->stage = AC_STAR_MEASURE;
    return 0;
}

/* Calls of the key's first entry (the start candidate alone): as many as the budget needs
 * before it covers the first batch of probes, so that the first reduction already plans it.
 * At the first decision every pending probe is untried and nothing has been explored, so each
 * costs b / 2 (two calls' worth with clean probes: race_cost) and the budget is explore x
 * (calls so far) x b: the count does not depend on b, and deciding after race_iter calls, as
 * the key did before, only planned this many more calls of the start (one reduction more per
 * key, for nothing). 5 % more, since the first call (in the time so far, not in b) can be
 * the faster one. At least race_iter calls (the start's samples), at most 4 x ITER (the key
 * decides again at least that often). */
static int race_first_calls(const ac_star_t *s) {
    int np = 0;
    for (int c = 0; c < s->n; c++)
        np += s->alive[c] && c != s->cur;
    int k = np < AC_RACE_BATCH ? np : AC_RACE_BATCH, m = s->cfg.race_iter;
    double need = 0.5 * k * (1 + (s->cfg.clean_probe != 0)), cap = 4.0 * s->cfg.iter;
    if (k > 0 && s->cfg.explore > 0 && need > s->cfg.explore * m)
        m = (int)fmin(cap, ceil(1.05 * need / s->cfg.explore));
    return m > s->cfg.race_iter ? m : s->cfg.race_iter;
}

static int race_init(ac_star_t *s) {
    s->buf = s->rbuf;
    s->buflen = (int)(sizeof s->rbuf / sizeof s->rbuf[0]);
    for (int c = 0; c < s->n; c++)
        s->alive[c] = 1;
    /* The incumbent first, in one entry: its time without the first call, which absorbs what
     * came before (the communicator's set-up, the application's skew). */
    s->cur = s->cfg.incumbent;
    int cand = s->cur, calls = race_first_calls(s);
    return race_batch(s, &cand, &calls, 1);
}

/* Best mean among live sampled candidates with at least min samples (-1: none). */
static int race_best(const ac_star_t *s, long min) {
    int b = -1;
    for (int c = 0; c < s->n; c++)
        if (s->alive[c] && s->nsamp[c] >= min && s->nsamp[c] > 0 &&
            (b < 0 || s->score[c] < s->score[b]))
            b = c;
    return b;
}

/* Expected excess over the current choice (time b) of c's pending samples. An unsampled
 * candidate: the mean time of the first probes so far minus b, at least b / 2 (as if it were
 * 1.5 times slower): where the probes have been costly, the next ones are expected to be too,
 * and exploration slows down instead of overrunning the budget batch after batch. A sampled
 * candidate: its measured excess, at least b / 10, per remaining sample. */
static double race_cost(const ac_star_t *s, int c, double b) {
    if (s->nsamp[c] == 0) {
        double x = s->nfirst ? s->first / (double)s->nfirst - b : 0;
        return (x > 0.5 * b ? x : 0.5 * b) * (1 + (s->cfg.clean_probe != 0));
    }
    double x = s->score[c] - b;
    return (x < 0.1 * b ? 0.1 * b : x) * (double)(s->cfg.race_iter - s->nsamp[c]);
}

/* The models, calibrated per algorithm (its instances differ in parameters only, and the
 * models' error is much the same across them; across algorithms it is not, even within a STAR
 * group: a latency model is 4x off for a pipelined reduce on the 8W SMP cluster and 1.6x
 * for a tree). The most optimistic correction seen for an algorithm is the smallest ratio of
 * measured to predicted time among its sampled instances; an algorithm without samples gets
 * the smallest over all. An untried candidate's calibrated prediction (cal) orders the probes
 * within a level and hint: after an algorithm's first instances measure far slower than the
 * models said, its other instances wait behind those of algorithms not yet disproved. An
 * untried instance of an algorithm with samples whose calibrated prediction is more than
 * AC_RACE_PRUNE times the current choice's time is left out (dropped without a probe). The
 * factor is large because the models can be off by a factor between the parameters of one
 * algorithm (allreduce knomial at 64 B on the 16-node switch: k = 4 predicted as fast as
 * k = 3, measured 1.8x faster); at 2 the size sweeps lost winners, and so did calibrating per
 * STAR group or pruning on the ratio of other algorithms (docs/reports/learning.md).
 * Candidates without a model keep 0 (first, as candidates.c places them). O(n^2) per
 * decision, n <= 64. */
enum { AC_RACE_PRUNE = 4 }; /* race_calibrate: an untried instance is left out above this */

static void race_calibrate(ac_star_t *s, double *cal) {
    double qall = -1, q[AC_STAR_MAX];
    for (int g = 0; g < s->n; g++)
        q[g] = -1;
    for (int d = 0; d < s->n; d++)
        if (s->nsamp[d] > 0 && s->pred[d] > 0) {
            double r = s->score[d] / s->pred[d];
            int g = s->fam[d];
            if (q[g] < 0 || r < q[g]) q[g] = r;
            if (qall < 0 || r < qall) qall = r;
        }
    double lim = AC_RACE_PRUNE * s->score[s->cur];
    for (int c = 0; c < s->n; c++) {
        double f = q[s->fam[c]] > 0 ? q[s->fam[c]] : qall > 0 ? qall : 1;
        cal[c] = s->pred[c] > 0 ? s->pred[c] * f : 0;
        if (q[s->fam[c]] > 0 && s->alive[c] && s->nsamp[c] == 0 && c != s->cur && cal[c] > lim) {
            s->alive[c] = 0;
            s->drops++;
        }
    }
}

static void race_decide(ac_star_t *s) {
    for (int i = 0; i < s->nplan; i++) {
        int c = s->rplan[i], k = s->rcalls[i];
        double v = (double)s->buf[2 * i] * 1e-9, mean = v / k;
        if (k > s->cfg.iter) {
            /* A long run of the current choice: its score becomes what it costs now (as
             * STAR's monitoring does), so a slowdown is seen and the others are preferred. */
            s->csum[c] = (double)s->buf[2 * i + 1] * 1e-9;
            s->ncln[c] = k - 1;
        } else if (k > 1) {
            s->csum[c] += (double)s->buf[2 * i + 1] * 1e-9;
            s->ncln[c] += k - 1;
        }
        if (k > 1 && s->ntotal > 0) { /* the key's first entry pays for its set-up */
            double rest = (double)s->buf[2 * i + 1] * 1e-9, x = v - rest - rest / (k - 1);
            s->skew[c] += x > 0 ? x : 0;
            s->nskew[c]++;
        }
        if (s->nsamp[c] == 0 && c != s->cfg.incumbent) {
            s->first += mean;
            s->nfirst++;
        }
        if (s->nsamp[c] == 0 || mean < s->smin[c]) s->smin[c] = mean;
        if (s->nsamp[c] == 0 || mean > s->smax[c]) s->smax[c] = mean;
        s->tsum[c] += v;
        s->nsamp[c] += k;
        s->score[c] =
            s->ncln[c] ? s->csum[c] / (double)s->ncln[c] : s->tsum[c] / (double)s->nsamp[c];
        s->total += v;
        s->ntotal += k;
        if (c != s->cfg.incumbent) {
            s->xsum += v;
            s->xn += k;
        }
    }
    /* Successive elimination against the best mean, with the noise seen on it. */
    int best = race_best(s, 1);
    double spread = s->smin[best] > 0 ? (s->smax[best] - s->smin[best]) / s->smin[best] : 0;
    double lim = s->score[best] * (1 + s->cfg.race_margin + (spread < 0.25 ? spread : 0.25));
    for (int c = 0; c < s->n; c++)
        if (s->alive[c] && s->nsamp[c] > 0 && c != best && c != s->cur && s->score[c] > lim) {
            s->alive[c] = 0;
            s->drops++;
        }
    /* No regret: a candidate replaces the incumbent once proven (race_iter samples). */
    int proven = race_best(s, s->cfg.race_iter);
    if (proven >= 0 && s->score[proven] < s->score[s->cur]) s->cur = proven;
    /* Pending probes: survivors by mean, then unsampled ones in probe order. */
    int pend[AC_STAR_MAX], np = 0;
    for (int c = 0; c < s->n; c++)
        if (s->alive[c] && s->nsamp[c] > 0 && s->nsamp[c] < s->cfg.race_iter) {
            int j = np++;
            while (j > 0 && s->score[pend[j - 1]] > s->score[c]) {
                pend[j] = pend[j - 1];
                j--;
            }
            pend[j] = c;
        }
    /* Untried ones by level, then hint (a neighbouring key's times), then the calibrated
     * models, then probe order. */
    double cal[AC_STAR_MAX];
    race_calibrate(s, cal);
    for (int late = 0; late < 3; late++)
        for (int c = 0; c < s->n; c++)
            if (s->alive[c] && s->nsamp[c] == 0 && s->late[c] == late) {
                int j = np++;
                while (j > 0 && s->nsamp[pend[j - 1]] == 0 && s->late[pend[j - 1]] == late &&
                       (s->hint[pend[j - 1]] > s->hint[c] ||
                        (s->hint[pend[j - 1]] == s->hint[c] && cal[pend[j - 1]] > cal[c]))) {
                    pend[j] = pend[j - 1];
                    j--;
                }
                pend[j] = c;
            }
    if (np == 0) {
        s->cur = race_best(s, 1);
        start_monitor(s);
        return;
    }
    /* Regret: what the calls of other candidates cost beyond as many calls of the initial
     * incumbent (the MPI library's algorithm); savings of a better incumbent or of fast probes
     * fund exploration. The incumbent's own calls are the reference: they add no regret, even
     * the first call of an entry that absorbs the skew of a reduction. */
    double inc = s->score[s->cfg.incumbent];
    s->regret = s->xsum - (double)s->xn * inc;
    double b = s->score[s->cur], avail = s->cfg.explore * s->total - s->regret, need = 0;
    int cand[2 * AC_STAR_MAX], calls[2 * AC_STAR_MAX], k = 0;
    for (int i = 0; i < np && i < AC_RACE_BATCH; i++)
        need += race_cost(s, pend[i], b);
    if (need > avail) {
        /* Earn a batch (one reduction per AC_RACE_BATCH probes at least, fewer only when
         * fewer are pending): m calls of the current choice add explore x m x b to the budget,
         * and m (inc - b) less regret when it is not the initial incumbent; its entry's first
         * call then adds to the regret what first calls of its entries have cost beyond the
         * others (the mean seen so far: the skew the reduction leaves, or the latency of a
         * pipelined candidate, paid again after every reduction). Without that term an entry
         * too short to pay for its own first call leaves the budget where it was, and the
         * key reduces every few calls without ever probing again. */
        int c = s->cur;
        double gain = s->cfg.explore * b + (inc > b ? inc - b : 0);
        double skew = c != s->cfg.incumbent && s->nskew[c] ? s->skew[c] / s->nskew[c] : 0;
        double m = gain > 0 ? ceil((need - avail + skew) / gain) : 1e9;
        cand[0] = s->cur;
        /* At most 4 x ITER calls per entry: the key decides again at least that often, so a
         * change of the network during a long wait is seen (its times enter the current
         * choice's score and the budget). */
        double cap = 4.0 * s->cfg.iter;
        calls[0] = m < 1 ? 1 : m > cap ? (int)cap : (int)m;
        k = 1;
    } else {
        for (int i = 0; i < np; i++) {
            int c = pend[i];
            double cost = race_cost(s, c, b);
            if (cost > avail) break;
            avail -= cost;
            cand[k] = c;
            calls[k++] = s->nsamp[c] == 0 ? 1 + (s->cfg.clean_probe != 0)
                                          : s->cfg.race_iter - (int)s->nsamp[c];
        }
    }
    race_batch(s, cand, calls, k);
}

int ac_star_transfer(ac_star_t *s, int start, const double *hint, const int *prune) {
    if (!s->cfg.race || s->n < 2 || s->calls != 0 || s->decisions != 0 || start < 0 ||
        start >= s->n)
        return -1;
    s->cfg.incumbent = s->cur = s->rplan[0] = start;
    for (int c = 0; c < s->n; c++) {
        if (hint) s->hint[c] = hint[c];
        if (!prune || c == start) continue;
        if (prune[c] == 1) s->late[c] = 2;
        if (prune[c] == 2) s->alive[c] = 0;
    }
    s->rcalls[0] = race_first_calls(s);
    return 0;
}

int ac_star_init(ac_star_t *s, const ac_star_cfg_t *cfg, int nprocs, int n, const int *group) {
    memset(s, 0, sizeof *s);
    if (n < 1 || n > AC_STAR_MAX) return -1;
    s->cfg = *cfg;
    if (s->cfg.iter < 1) s->cfg.iter = 1;
    if (s->cfg.delta_max < 2) s->cfg.delta_max = 2;
    s->nprocs = nprocs > 0 ? nprocs : 1;
    s->n = n;
    if (s->cfg.race) {
        s->cfg.grouping = 0; /* racing replaces the grouping's rounds */
        if (s->cfg.race_iter < 1) s->cfg.race_iter = 1;
        if (s->cfg.race_iter > AC_STAR_MAX) s->cfg.race_iter = AC_STAR_MAX;
        if (s->cfg.incumbent < 0 || s->cfg.incumbent >= n) s->cfg.incumbent = 0;
    }
    s->round2 = !s->cfg.grouping;
    int plan[AC_STAR_MAX], k = 0;
    for (int c = 0; c < n; c++) {
        s->group[c] = group ? group[c] : c;
        s->fam[c] = c;
        s->score[c] = -1;
    }
    if (n == 1) {
        /* Nothing to choose: run it, never measure. */
        s->score[0] = 0;
        s->cur = 0;
        start_monitor(s);
        return 0;
    }
    if (s->cfg.race) return race_init(s);
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
    if (s->buf != s->rbuf) free(s->buf);
    s->buf = NULL;
    s->buflen = 0;
}

int ac_star_next(const ac_star_t *s) {
    if (s->stage != AC_STAR_MEASURE) return s->cur;
    return s->cfg.race ? s->rplan[s->pidx] : s->plan[s->pidx];
}

int ac_star_probing(const ac_star_t *s) {
    return s->stage == AC_STAR_MEASURE && (!s->cfg.race || s->rplan[s->pidx] != s->cur);
}

int ac_star_record(ac_star_t *s, double t) {
    if (!ac_star_timed(s)) {
        ac_star_skip(s);
        return 0;
    }
    s->calls++;
    if (s->stage == AC_STAR_MEASURE && s->cfg.race) {
        if (s->rplan[s->pidx] != s->cur) {
            s->probe_calls++;
            s->probe_time += t;
        }
        long long ns = to_ns(t);
        s->buf[2 * s->pidx] += ns;
        if (s->it > 0) s->buf[2 * s->pidx + 1] += ns; /* without the entry's first call */
        if (++s->it == s->rcalls[s->pidx]) {
            s->it = 0;
            s->pidx++;
        }
        return s->awaiting = s->pidx == s->nplan;
    }
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
        return s->awaiting = s->pidx == s->nplan;
    }
    /* A timed call (above). The next one: the following call within the last ITER calls, else
     * delta/2 calls on, but not past the start of the last ITER calls. */
    int last = (s->delta - 1) * s->cfg.iter, step = s->delta / 2 > 1 ? s->delta / 2 : 1;
    /* The period's first call follows a decision, a reduction over all ranks: it pays the
     * refilling of a pipelined or rooted collective that the reduction drained. The scores it
     * is compared with leave out the first call of each entry (racing, and the classic
     * measurement with the max statistic), so the period's mean does too; counted, it made a
     * settled choice look 10 % slower than its equals and switch among them at every period,
     * which kept delta at 2 (a decision every 20 calls). */
    if (s->mon > 0 || !(s->cfg.race || s->cfg.stat_max)) {
        s->tot_all += t;
        s->nmon++;
    }
    if (s->mon >= last) s->tot_last += t; /* last ITER calls */
    s->tnext = s->mon + 1 >= last ? s->mon + 1 : s->mon + step < last ? s->mon + step : last;
    s->mon++; /* on every call */
    if (s->mon < s->delta * s->cfg.iter) return 0;
    s->buf[0] = to_ns(s->tot_all);
    s->buf[1] = to_ns(s->tot_last);
    return s->awaiting = 1;
}

long long *ac_star_buffer(ac_star_t *s, int *len) {
    *len = s->stage != AC_STAR_MEASURE ? 2 : s->cfg.race ? 2 * s->nplan : s->nplan * s->cfg.iter;
    return s->buf;
}

int ac_star_op_max(const ac_star_t *s) {
    return s->cfg.stat_max || (s->cfg.race && s->stage == AC_STAR_MEASURE);
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
    s->awaiting = 0;
    if (s->stage == AC_STAR_MEASURE && s->cfg.race) {
        race_decide(s);
        return;
    }
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
    double avg_all = per_rank(s, s->buf[0]) / s->nmon;
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
        s->mon = s->nmon = s->tnext = 0;
        s->tot_all = s->tot_last = 0;
        settle(s);
        return;
    } else {
        s->delta = 2; /* transient: watch more closely */
    }
    s->mon = s->nmon = s->tnext = 0;
    s->tot_all = s->tot_last = 0;
}
