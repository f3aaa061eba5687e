/*
 * The STAR-MPI state machine driven by an injected clock: P copies (one per simulated rank) run
 * in lockstep, each candidate has a controlled time per rank and call, the reductions are done
 * across the copies exactly as MPI would. Checks: the fastest candidate is chosen; after the
 * chosen candidate slows down for good it switches, after a transient spike it does not; every
 * copy runs the same candidate at every call; grouping needs fewer probe calls; the monitoring
 * factor doubles up to its cap; edge cases (one candidate, ITER = 1). Racing (cfg.race): a
 * clearly slower candidate is dropped after its first call while a close one is sampled to the
 * end; the no-regret rule runs the incumbent while the budget is spent, keeps the probes'
 * excess within the budget (plus one batch), replaces the incumbent once a candidate has
 * proven faster, and leaves a short run untouched; the first reduction of a key comes when the
 * budget covers the first batch of probes, and plans it; an entry that earns the budget back
 * with a pipelined choice pays for that choice's latency after the reduction; untried
 * candidates are probed in the order of the models' predictions calibrated by the samples of
 * their algorithm, and an instance calibrated far slower than the current choice is not probed.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "select/star.h"

enum { P = 5 };

typedef double (*clock_fn)(int cand, long call, int rank, void *arg);

typedef struct {
    ac_star_t s[P];
    long calls;
} world_t;

static void world_init(world_t *w, const ac_star_cfg_t *cfg, int n, const int *group) {
    w->calls = 0;
    for (int r = 0; r < P; r++)
        assert_int_equal(ac_star_init(&w->s[r], cfg, P, n, group), 0);
}

static void world_free(world_t *w) {
    for (int r = 0; r < P; r++)
        ac_star_free(&w->s[r]);
}

/* One collective call on every rank; returns the candidate all ranks ran. */
static int world_call(world_t *w, clock_fn f, void *arg) {
    int c0 = ac_star_next(&w->s[0]), need[P];
    for (int r = 0; r < P; r++) {
        int c = ac_star_next(&w->s[r]);
        assert_int_equal(c, c0); /* agreement */
        need[r] = ac_star_record(&w->s[r], f(c, w->calls, r, arg));
        assert_int_equal(need[r], need[0]);
    }
    if (need[0]) {
        int len, len0;
        long long *b0 = ac_star_buffer(&w->s[0], &len0), red[4096];
        assert_true(len0 <= 4096);
        for (int i = 0; i < len0; i++)
            red[i] = b0[i];
        for (int r = 1; r < P; r++) {
            long long *b = ac_star_buffer(&w->s[r], &len);
            assert_int_equal(len, len0);
            for (int i = 0; i < len; i++)
                red[i] = ac_star_op_max(&w->s[r]) ? (b[i] > red[i] ? b[i] : red[i]) : red[i] + b[i];
        }
        for (int r = 0; r < P; r++) {
            long long *b = ac_star_buffer(&w->s[r], &len);
            for (int i = 0; i < len; i++)
                b[i] = red[i];
            ac_star_decide(&w->s[r]);
        }
    }
    w->calls++;
    return c0;
}

/* Base times per candidate (ms), rank-dependent jitter of up to 3 %, optional change. */
typedef struct {
    double base[16];
    int slow_cand;   /* candidate that slows down */
    long slow_from;  /* from this call */
    long slow_until; /* until this call (exclusive) */
    double factor;
} scen_t;

static double scen_clock(int c, long call, int rank, void *arg) {
    scen_t *s = arg;
    double jitter = 1 + 0.03 * (double)((call * 7919 + rank * 104729 + c * 31) % 100) / 100.0;
    double t = s->base[c] * 1e-3 * jitter;
    if (c == s->slow_cand && call >= s->slow_from && call < s->slow_until) t *= s->factor;
    return t;
}

static const ac_star_cfg_t basic = {.iter = 10, .eps = 0.10, .delta_max = 64};

static void picks_fastest(void **st) {
    (void)st;
    scen_t sc = {{5, 3, 8, 1.2, 4, 9}, -1, 0, 0, 1};
    world_t w;
    world_init(&w, &basic, 6, NULL);
    int last = -1;
    for (int i = 0; i < 200; i++)
        last = world_call(&w, scen_clock, &sc);
    assert_int_equal(last, 3);
    assert_int_equal(w.s[0].probe_calls, 60); /* basic STAR: ITER x candidates */
    assert_int_equal(w.s[0].switches, 0);
    assert_int_equal(ac_star_runner_up(&w.s[0], 3), 1);
    world_free(&w);
}

static void stat_max_variant(void **st) {
    (void)st;
    ac_star_cfg_t cfg = basic;
    cfg.stat_max = 1;
    scen_t sc = {{5, 3, 8, 1.2}, -1, 0, 0, 1};
    world_t w;
    world_init(&w, &cfg, 4, NULL);
    int last = -1;
    for (int i = 0; i < 100; i++)
        last = world_call(&w, scen_clock, &sc);
    assert_int_equal(last, 3);
    world_free(&w);
}

static void switches_after_sustained_change(void **st) {
    (void)st;
    /* Candidate 1 is best, then becomes 4x slower for good from call 300. */
    scen_t sc = {{5, 2, 3, 6}, 1, 300, 1L << 40, 4};
    world_t w;
    world_init(&w, &basic, 4, NULL);
    int at299 = -1, last = -1;
    long switched_at = -1;
    for (int i = 0; i < 1000; i++) {
        last = world_call(&w, scen_clock, &sc);
        if (i == 299) at299 = last;
        if (i >= 300 && last == 2 && switched_at < 0) switched_at = i;
    }
    assert_int_equal(at299, 1);
    assert_int_equal(last, 2);
    assert_int_equal(w.s[0].switches, 1);
    /* Detected within one capped monitoring period. */
    assert_true(switched_at > 300 && switched_at < 300 + 64 * 10 + 10);
    world_free(&w);
}

static void transient_spike_does_not_switch(void **st) {
    (void)st;
    /* A spike over 5 calls that are not in the last ITER calls of a period: no switch. */
    scen_t sc = {{5, 2, 3, 6}, 1, 41, 46, 20};
    world_t w;
    world_init(&w, &basic, 4, NULL);
    int last = -1;
    for (int i = 0; i < 400; i++)
        last = world_call(&w, scen_clock, &sc);
    assert_int_equal(last, 1);
    assert_int_equal(w.s[0].switches, 0);
    world_free(&w);
}

static void delta_doubles_to_cap(void **st) {
    (void)st;
    scen_t sc = {{5, 2, 3}, -1, 0, 0, 1};
    ac_star_cfg_t cfg = basic;
    cfg.delta_max = 16;
    world_t w;
    world_init(&w, &cfg, 3, NULL);
    for (int i = 0; i < 30 + 20 + 40 + 80 + 160 + 160; i++)
        world_call(&w, scen_clock, &sc);
    assert_int_equal(w.s[0].delta, 16);
    /* Decisions: 1 measurement + monitoring periods of 20, 40, 80, 160, 160. */
    assert_int_equal(w.s[0].decisions, 6);
    world_free(&w);
}

/* Sampled monitoring (star.h): each period of delta x ITER calls times its last ITER calls and
 * every (delta/2)-th call before them, the same calls on every rank; the time of any other
 * call is ignored; decisions come at the same calls as when every call is timed. */
typedef struct {
    scen_t sc;
    long settled; /* the first monitored call */
    int untimed;  /* calls told not to be timed (that get the huge time below) */
} samp_t;

static double samp_clock(int c, long call, int rank, void *arg) {
    samp_t *x = arg;
    (void)rank;
    if (x->settled >= 0 && call >= x->settled) {
        /* Every rank's copy says the same (checked by the caller); an untimed call reports a
         * time that would force a switch if it were counted. */
        return x->untimed ? 1000.0 : scen_clock(c, call, rank, &x->sc);
    }
    return scen_clock(c, call, rank, &x->sc);
}

static void sampled_monitoring(void **st) {
    (void)st;
    samp_t x = {{{5, 2, 3}, -1, 0, 0, 1}, -1, 0};
    world_t w;
    world_init(&w, &basic, 3, NULL);
    long timed_in_period = 0, period_calls = 0;
    int periods = 0, delta = 0;
    for (int i = 0; i < 30 + 20 + 40 + 80 + 160 + 320 + 640 + 640 + 640; i++) {
        ac_star_t *s0 = &w.s[0];
        if (x.settled < 0 && s0->stage == AC_STAR_MONITOR) x.settled = i;
        int t0 = ac_star_timed(s0);
        for (int r = 1; r < P; r++)
            assert_int_equal(ac_star_timed(&w.s[r]), t0); /* agreed */
        if (s0->stage == AC_STAR_MONITOR) {
            if (period_calls == 0) delta = s0->delta;
            /* Within the last ITER calls of its period, a call is always timed. */
            if (period_calls >= (delta - 1) * 10) assert_true(t0);
            timed_in_period += t0;
            period_calls++;
        } else {
            assert_true(t0); /* measuring: every call */
        }
        x.untimed = !t0;
        long before = s0->decisions;
        world_call(&w, samp_clock, &x);
        if (w.s[0].decisions != before && period_calls > 0) {
            /* A period ended: delta x ITER calls; timed: every (delta/2)-th of the first
             * (delta - 1) x ITER, and the last ITER (all 20 at delta = 2, 30 at 32 and 64). */
            long step = delta / 2 > 1 ? delta / 2 : 1, early = (delta - 1) * 10;
            assert_int_equal(period_calls, delta * 10);
            assert_int_equal(timed_in_period, (early + step - 1) / step + 10);
            assert_true(timed_in_period <= 30);
            periods++;
            timed_in_period = period_calls = 0;
        }
    }
    assert_true(x.settled > 0);
    assert_int_equal(w.s[0].cur, 1);
    assert_int_equal(w.s[0].switches, 0); /* the huge untimed times were not counted */
    assert_int_equal(w.s[0].delta, 64);
    assert_int_equal(periods, 8); /* the same periods as timing every call: 20 .. 640 calls */
    world_free(&w);
}

static void grouping_needs_fewer_probes(void **st) {
    (void)st;
    /* 12 candidates in 4 groups of 3; the best (0.9) is in group 2. */
    int group[12] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
    scen_t sc = {{4, 4.5, 5, 3, 3.2, 3.1, 1.0, 0.9, 1.4, 6, 7, 8}, -1, 0, 0, 1};
    ac_star_cfg_t g = basic;
    g.grouping = 1;
    world_t wb, wg;
    world_init(&wb, &basic, 12, group);
    world_init(&wg, &g, 12, group);
    int lb = -1, lg = -1;
    for (int i = 0; i < 500; i++) {
        lb = world_call(&wb, scen_clock, &sc);
        lg = world_call(&wg, scen_clock, &sc);
    }
    assert_int_equal(lb, 7);
    assert_int_equal(lg, 7);
    assert_int_equal(wb.s[0].probe_calls, 120);
    assert_int_equal(wg.s[0].probe_calls, 10 * (4 + 2)); /* representatives + rest of group 2 */
    world_free(&wb);
    world_free(&wg);
}

static void margin_covers_close_groups(void **st) {
    (void)st;
    /* Group 1's representative (3.0) misjudges its group: its member 4 (0.8) is the best.
     * Group 0 wins the first round (1.0); 3.0 is not within 25 % of it, so plain grouping
     * misses 4. Group 2's representative (1.1) is within 25 %: its members are timed too. */
    int group[6] = {0, 0, 1, 1, 2, 2};
    scen_t sc = {{1.0, 1.5, 3.0, 0.8, 1.1, 0.95}, -1, 0, 0, 1};
    ac_star_cfg_t g = basic, m = basic;
    g.grouping = m.grouping = 1;
    m.margin = 0.25;
    world_t wg, wm;
    world_init(&wg, &g, 6, group);
    world_init(&wm, &m, 6, group);
    int lg = -1, lm = -1;
    for (int i = 0; i < 200; i++) {
        lg = world_call(&wg, scen_clock, &sc);
        lm = world_call(&wm, scen_clock, &sc);
    }
    assert_int_equal(lg, 0);           /* STAR grouping: best of groups 0 */
    assert_int_equal(lm, 5);           /* margin: group 2's member found */
    assert_true(wm.s[0].score[3] < 0); /* group 1 (not close) never fully timed */
    assert_int_equal(wm.s[0].probe_calls, 10 * (3 + 2));
    world_free(&wg);
    world_free(&wm);
}

static void switch_into_group_probes_its_members(void **st) {
    (void)st;
    int group[6] = {0, 0, 0, 1, 1, 1};
    /* Group 0's representative wins; from call 200 it slows down, group 1's untimed members
     * (4, 5) must then be timed, and 5 is the fastest of all. */
    scen_t sc = {{1.0, 2.0, 2.2, 1.5, 1.6, 1.2}, 0, 200, 1L << 40, 10};
    ac_star_cfg_t g = basic;
    g.grouping = 1;
    world_t w;
    world_init(&w, &g, 6, group);
    int last = -1;
    for (int i = 0; i < 1200; i++)
        last = world_call(&w, scen_clock, &sc);
    assert_int_equal(last, 5);
    assert_true(w.s[0].score[4] > 0 && w.s[0].score[5] > 0);
    world_free(&w);
}

static void single_candidate_never_reduces(void **st) {
    (void)st;
    scen_t sc = {{1}, -1, 0, 0, 1};
    world_t w;
    world_init(&w, &basic, 1, NULL);
    for (int i = 0; i < 100; i++)
        assert_int_equal(world_call(&w, scen_clock, &sc), 0);
    assert_int_equal(w.s[0].decisions, 0);
    assert_int_equal(w.s[0].probe_calls, 0);
    world_free(&w);
}

static void iter_one_and_bad_init(void **st) {
    (void)st;
    ac_star_cfg_t cfg = basic;
    cfg.iter = 1;
    scen_t sc = {{3, 2, 1}, -1, 0, 0, 1};
    world_t w;
    world_init(&w, &cfg, 3, NULL);
    int last = -1;
    for (int i = 0; i < 50; i++)
        last = world_call(&w, scen_clock, &sc);
    assert_int_equal(last, 2);
    world_free(&w);
    ac_star_t s;
    assert_int_equal(ac_star_init(&s, &basic, 4, 0, NULL), -1);
    assert_int_equal(ac_star_init(&s, &basic, 4, AC_STAR_MAX + 1, NULL), -1);
}

static const ac_star_cfg_t racing = {.iter = 10,
                                     .eps = 0.10,
                                     .delta_max = 64,
                                     .stat_max = 1,
                                     .race = 1,
                                     .race_margin = 0.10,
                                     .explore = 0.10,
                                     .race_iter = 3,
                                     .incumbent = 0};

/* The first call of a monitoring period follows the reduction that closed the previous one
 * and pays the refilling of a pipelined or rooted collective (here 4x its time). The racing
 * scores leave out an entry's first call, so the period's mean must too: counted, it put a
 * settled choice above 1.1x its runner-up at every period, and delta stayed at 2. */
typedef struct {
    scen_t sc;
    int first; /* this call follows a decision, in monitoring */
} refill_t;

static double refill_clock(int c, long call, int rank, void *arg) {
    refill_t *x = arg;
    return scen_clock(c, call, rank, &x->sc) * (x->first ? 4 : 1);
}

static void monitoring_leaves_out_refill(void **st) {
    (void)st;
    world_t w;
    refill_t x = {{{2, 1.0, 1.02}, -1, 0, 0, 1}, 0};
    world_init(&w, &racing, 3, NULL);
    long seen = 0, mon_decisions = 0;
    for (int i = 0; i < 3000; i++) {
        x.first = w.s[0].stage == AC_STAR_MONITOR && w.s[0].decisions != seen;
        seen = w.s[0].decisions;
        int before = w.s[0].stage == AC_STAR_MONITOR;
        world_call(&w, refill_clock, &x);
        mon_decisions += before && w.s[0].decisions != seen;
    }
    assert_int_equal(w.s[0].stage, AC_STAR_MONITOR);
    assert_int_equal(w.s[0].cur, 1);
    assert_int_equal(w.s[0].switches, 0);
    assert_int_equal(w.s[0].delta, 64);
    /* Periods of 20, 40, .., 640 calls: at most 9 in 3000 calls (at delta 2: one per 20). */
    assert_true(mon_decisions <= 9);
    world_free(&w);
}

/* Calls per candidate, counted by the test from what the copies ran. */
static void race_run(world_t *w, scen_t *sc, int calls, long *ran) {
    for (int i = 0; i < calls; i++)
        ran[world_call(w, scen_clock, sc)]++;
}

static void race_drops_slow_after_one_call(void **st) {
    (void)st;
    /* Incumbent 0 (2 ms); 1 is the best (1 ms); 4 is within 5 % of it; 2, 3, 5 are at least
     * 5 times slower: each must cost exactly one call. An ample budget isolates the racing. */
    scen_t sc = {{2, 1, 5, 6, 1.05, 8}, -1, 0, 0, 1};
    ac_star_cfg_t cfg = racing;
    cfg.explore = 100;
    world_t w;
    world_init(&w, &cfg, 6, NULL);
    long ran[6] = {0};
    race_run(&w, &sc, 300, ran);
    assert_int_equal(w.s[0].stage, AC_STAR_MONITOR);
    assert_int_equal(ac_star_next(&w.s[0]), 1);
    assert_int_equal(ran[2], 1);
    assert_int_equal(ran[3], 1);
    assert_int_equal(ran[5], 1);
    assert_true(w.s[0].drops >= 3);
    assert_true(!w.s[0].alive[2] && !w.s[0].alive[3] && !w.s[0].alive[5]);
    /* The close one is not dropped on its first call: it gets all its samples. */
    assert_int_equal(w.s[0].nsamp[4], cfg.race_iter);
    /* Far fewer probe calls than ITER per candidate (classic: 50). */
    assert_true(w.s[0].probe_calls <= 1 + 1 + 1 + 3 + 3);
    world_free(&w);
}

static void race_first_reduction_plans_probes(void **st) {
    (void)st;
    /* The start runs until the budget covers the first batch of probes, and the first
     * reduction already plans it: with explore 0.10, 3 untried probes of b / 2 each need
     * 1.5 b, earned in 15 calls of the start (16 with the 5 % margin); no reduction before. */
    scen_t sc = {{1, 0.5, 3, 3, 3, 3, 3, 3, 3}, -1, 0, 0, 1};
    world_t w;
    world_init(&w, &racing, 9, NULL);
    for (int i = 0; i < 16; i++) {
        assert_int_equal(w.s[0].decisions, 0);
        assert_int_equal(world_call(&w, scen_clock, &sc), 0);
    }
    assert_int_equal(w.s[0].decisions, 1);
    assert_int_equal(w.s[0].probe_calls, 0);
    assert_int_not_equal(world_call(&w, scen_clock, &sc), 0); /* the first probe */
    world_free(&w);
    /* Two-call probes need twice the budget (32 calls); an ample budget none (race_iter); a
     * confirmation (only the MPI library's algorithm left to probe, b / 2) 6 calls; a small
     * budget the cap (4 x ITER). */
    struct {
        double explore;
        int clean, confirm;
        long first;
    } cases[] = {{0.10, 1, 0, 32}, {100, 0, 0, 3}, {0.10, 0, 1, 6}, {0.01, 0, 0, 40}};
    for (int t = 0; t < 4; t++) {
        ac_star_cfg_t cfg = racing;
        cfg.explore = cases[t].explore;
        cfg.clean_probe = cases[t].clean;
        int prune[9] = {1, 0, 2, 2, 2, 2, 2, 2, 2};
        world_init(&w, &cfg, 9, NULL);
        if (cases[t].confirm)
            for (int r = 0; r < P; r++)
                assert_int_equal(ac_star_transfer(&w.s[r], 1, NULL, prune), 0);
        long at = 0;
        while (w.s[0].decisions == 0)
            world_call(&w, scen_clock, &sc), at++;
        assert_int_equal(at, cases[t].first);
        world_free(&w);
    }
}

static void race_no_regret(void **st) {
    (void)st;
    /* Incumbent 0 (1 ms); 1 is the best (0.5 ms), probed first; 2..8 cost 3 ms. */
    scen_t sc = {{1, 0.5, 3, 3, 3, 3, 3, 3, 3}, -1, 0, 0, 1};
    ac_star_cfg_t cfg = racing;
    cfg.explore = 0.05;
    world_t w;
    world_init(&w, &cfg, 9, NULL);
    /* A short run is not explored at all: the budget (5 % of the time so far) does not yet
     * cover a batch of probes. */
    for (int i = 0; i < 30; i++)
        assert_int_equal(world_call(&w, scen_clock, &sc), 0);
    assert_int_equal(w.s[0].probe_calls, 0);
    /* Long run: at every call the time spent beyond what the incumbent alone would have cost
     * (1 ms a call, up to 3 % jitter) stays within the budget plus one batch of probes
     * (3 x 2 ms), computed here from the clock. */
    double total = 0.030;
    long n = 30;
    int proven_while_measuring = 0, old_after_proven = 0;
    for (long i = 30; i < 3000; i++) {
        int c = world_call(&w, scen_clock, &sc);
        total += sc.base[c] * 1e-3;
        n++;
        assert_true(total - n * 1.03e-3 <= cfg.explore * total + 3 * 2e-3 * 1.03);
        /* Once proven faster (race_iter samples), 1 runs instead of 0 while the others are
         * still being explored, and 0 never runs again. */
        if (w.s[0].stage == AC_STAR_MEASURE && w.s[0].cur == 1 && c == 1) proven_while_measuring++;
        if (w.s[0].cur == 1 && c == 0) old_after_proven++;
    }
    assert_true(proven_while_measuring > 0);
    assert_int_equal(old_after_proven, 0);
    assert_int_equal(w.s[0].cur, 1);
    assert_int_equal(w.s[0].stage, AC_STAR_MONITOR);
    long before = w.s[0].calls;
    for (int i = 0; i < 100; i++)
        assert_int_equal(world_call(&w, scen_clock, &sc), 1);
    assert_int_equal(w.s[0].calls, before + 100);
    world_free(&w);
    /* Nothing beats the incumbent: exploring costs at most the budget (plus one batch) at
     * every call, and all of it is done within 3000 calls. */
    scen_t worse = {{1, 3, 3, 3, 3, 3, 3, 3, 3}, -1, 0, 0, 1};
    world_init(&w, &cfg, 9, NULL);
    total = 0;
    for (n = 1; n <= 3000; n++) {
        total += worse.base[world_call(&w, scen_clock, &worse)] * 1e-3;
        assert_true(total - n * 1.03e-3 <= cfg.explore * total + 3 * 2e-3 * 1.03);
    }
    assert_int_equal(w.s[0].cur, 0);
    assert_int_equal(w.s[0].stage, AC_STAR_MONITOR);
    assert_int_equal(w.s[0].probe_calls, 8);
    world_free(&w);
}

static void race_picks_fastest(void **st) {
    (void)st;
    /* The fastest (4, 0.95 ms) comes late in probe order, after candidates within 10-40 % of
     * it; the incumbent (0) is twice as slow. With the default budget the engine must end on 4
     * and keep it. */
    scen_t sc = {{2, 1.3, 1.1, 1.25, 0.95, 3, 1.05}, -1, 0, 0, 1};
    world_t w;
    world_init(&w, &racing, 7, NULL);
    int last = -1, settled_on = -1;
    for (int i = 0; i < 2000; i++) {
        last = world_call(&w, scen_clock, &sc);
        if (settled_on < 0 && w.s[0].stage == AC_STAR_MONITOR) settled_on = w.s[0].cur;
    }
    /* Chosen by the racing itself, not by a later switch of the monitoring. */
    assert_int_equal(settled_on, 4);
    assert_int_equal(w.s[0].switches, 0);
    assert_int_equal(last, 4);
    assert_int_equal(w.s[0].cur, 4);
    /* Every live candidate was sampled race_iter times; the chosen one beats each of them. */
    for (int c = 0; c < 7; c++)
        if (w.s[0].alive[c]) {
            assert_true(w.s[0].nsamp[c] >= racing.race_iter);
            assert_true(w.s[0].score[4] <= w.s[0].score[c]);
        }
    world_free(&w);
}

/* Rank-dependent times: on rank r candidate r % 5 is the fastest by far, so a rank deciding on
 * its own times would pick a different candidate than the others. */
static double split_clock(int c, long call, int rank, void *arg) {
    (void)arg;
    double t = c == rank % 5 ? 0.2 : 1.0 + 0.15 * c;
    return 1e-3 * t * (1 + 0.05 * (double)((call * 7919 + rank * 104729 + c * 31) % 100) / 100.0);
}

static void race_ranks_cannot_diverge(void **st) {
    (void)st;
    /* world_call checks at every call that all copies run the same candidate and reduce at the
     * same call; here every copy's whole decision state must also stay identical. */
    ac_star_cfg_t cfg = racing;
    cfg.explore = 0.5;
    world_t w;
    world_init(&w, &cfg, 7, NULL);
    for (int i = 0; i < 1500; i++) {
        world_call(&w, split_clock, NULL);
        for (int r = 1; r < P; r++) {
            assert_int_equal(w.s[r].stage, w.s[0].stage);
            assert_int_equal(w.s[r].cur, w.s[0].cur);
            assert_int_equal(w.s[r].nplan, w.s[0].nplan);
            assert_int_equal(w.s[r].drops, w.s[0].drops);
            for (int c = 0; c < 7; c++) {
                assert_int_equal(w.s[r].alive[c], w.s[0].alive[c]);
                assert_int_equal(w.s[r].nsamp[c], w.s[0].nsamp[c]);
                assert_true(w.s[r].score[c] == w.s[0].score[c]);
            }
            assert_true(w.s[r].total == w.s[0].total);
        }
    }
    assert_int_equal(w.s[0].stage, AC_STAR_MONITOR);
    /* Completion time: the slowest rank decides, so each candidate 0..4 costs 1 + 0.15 c ms
     * (its 0.2 ms on one rank does not count) and 5, 6 cost more: 0 is the choice. */
    assert_int_equal(w.s[0].cur, 0);
    world_free(&w);
}

static void race_late_probed_last(void **st) {
    (void)st;
    /* Candidate 1 is marked late (a one-time set-up on its first call): every other candidate
     * is tried before it; it is still tried, and chosen when it is the fastest. */
    scen_t sc = {{2, 0.9, 1.2, 1.5, 1.3, 1.4}, -1, 0, 0, 1};
    ac_star_cfg_t cfg = racing;
    cfg.explore = 100;
    world_t w;
    world_init(&w, &cfg, 6, NULL);
    for (int r = 0; r < P; r++)
        w.s[r].late[1] = 1;
    long first[6];
    for (int c = 0; c < 6; c++)
        first[c] = -1;
    for (long i = 0; i < 300; i++) {
        int c = world_call(&w, scen_clock, &sc);
        if (first[c] < 0) first[c] = i;
    }
    for (int c = 2; c < 6; c++)
        assert_true(first[c] >= 0 && first[c] < first[1]);
    assert_int_equal(w.s[0].stage, AC_STAR_MONITOR);
    assert_int_equal(w.s[0].cur, 1);
    world_free(&w);
}

static void race_sees_change_while_measuring(void **st) {
    (void)st;
    /* A small budget keeps the key measuring for long, running the incumbent (0). From call
     * 300 the incumbent is 10 times slower for good: within a few long runs (at most 4 x ITER
     * calls each) the key must leave it, although most of its samples are from before. */
    scen_t sc = {{1, 1.5, 3, 3, 3, 3, 3, 3}, 0, 300, 1L << 40, 10};
    ac_star_cfg_t cfg = racing;
    cfg.explore = 0.02;
    world_t w;
    world_init(&w, &cfg, 8, NULL);
    long left = -1;
    for (long i = 0; i < 600; i++) {
        int c = world_call(&w, scen_clock, &sc);
        if (i == 299) assert_int_equal(c, 0);
        if (i >= 300 && left < 0 && w.s[0].cur != 0) left = i;
    }
    assert_true(left >= 300 && left < 300 + 3 * 4 * cfg.iter);
    world_free(&w);
}

/* ---------------------------------------------------------------- transfer between keys */

/* A neighbouring size: the same ranking as sc, every candidate 1.3 times slower. */
static double scaled_clock(int c, long call, int rank, void *arg) {
    return 1.3 * scen_clock(c, call, rank, arg);
}

/* Order in which candidates are first run within calls [0, calls). */
static int first_order(world_t *w, clock_fn f, void *arg, int calls, int n, int *order) {
    int seen[AC_STAR_MAX] = {0}, k = 0;
    for (int i = 0; i < calls; i++) {
        int c = world_call(w, f, arg);
        if (!seen[c] && c < n) {
            seen[c] = 1;
            order[k++] = c;
        }
    }
    return k;
}

static void transfer_orders_next_key(void **st) {
    (void)st;
    /* Key A (a size) is learned from the MPI library's algorithm (0, 2 ms): the best is 5
     * (0.8 ms), then 3 (0.82 ms) and 6 (0.85 ms), within the drop margin; 0, 1, 2, 4, 7 are
     * clearly slower and are dropped. */
    scen_t sc = {{2, 4, 5, 0.82, 6, 0.8, 0.85, 4.5}, -1, 0, 0, 1};
    ac_star_cfg_t cfg = racing;
    world_t a, b, plain;
    world_init(&a, &cfg, 8, NULL);
    for (int i = 0; i < 3000; i++)
        world_call(&a, scen_clock, &sc);
    assert_int_equal(a.s[0].stage, AC_STAR_MONITOR);
    assert_int_equal(a.s[0].cur, 5);
    /* Key B (the next size) takes A's state as adapt.c does: A's choice as its start, A's
     * measured means as the order of its probes, what A dropped last. */
    double hint[8];
    int prune[8];
    for (int c = 0; c < 8; c++) {
        hint[c] = a.s[0].nsamp[c] > 0 ? a.s[0].score[c] : 1e30;
        prune[c] = !a.s[0].alive[c];
    }
    world_init(&b, &cfg, 8, NULL);
    world_init(&plain, &cfg, 8, NULL);
    for (int r = 0; r < P; r++)
        assert_int_equal(ac_star_transfer(&b.s[r], a.s[0].cur, hint, prune), 0);
    /* B starts on A's choice from its first call. */
    assert_int_equal(ac_star_next(&b.s[0]), 5);
    int order[8], k = first_order(&b, scaled_clock, &sc, 3000, 8, order);
    /* Then A's ranking: 3, 6; what A dropped only after them, fastest at A first (the MPI
     * library's 0, then 1, 7, 2, 4). */
    for (int c = 0; c < 8; c++)
        assert_int_equal(prune[c], c != 3 && c != 5 && c != 6);
    assert_true(k == 8);
    const int want[8] = {5, 3, 6, 0, 1, 7, 2, 4};
    for (int i = 0; i < 8; i++)
        assert_int_equal(order[i], want[i]);
    assert_int_equal(b.s[0].cur, 5);
    assert_int_equal(b.s[0].stage, AC_STAR_MONITOR);
    /* In a short run (50 calls) B costs less than the same key started on the MPI library's
     * algorithm (the clock is deterministic: the totals are exact). */
    world_free(&b);
    world_init(&b, &cfg, 8, NULL);
    for (int r = 0; r < P; r++)
        ac_star_transfer(&b.s[r], 5, hint, prune);
    double tb = 0, tp = 0;
    for (int i = 0; i < 50; i++) {
        tb += scaled_clock(world_call(&b, scaled_clock, &sc), i, 0, &sc);
        tp += scaled_clock(world_call(&plain, scaled_clock, &sc), i, 0, &sc);
    }
    assert_true(tb < 0.6 * tp);
    world_free(&a);
    world_free(&b);
    world_free(&plain);
}

static void transfer_confirmation_only(void **st) {
    (void)st;
    /* Both neighbouring sizes settled on 4: the key confirms 4; only the MPI library's
     * algorithm (0, prune 1: last) may still be probed, nothing else ever runs. */
    scen_t sc = {{2, 1.5, 1.2, 3, 1, 0.9, 4}, -1, 0, 0, 1};
    int prune[7] = {1, 2, 2, 2, 0, 2, 2};
    world_t w;
    world_init(&w, &racing, 7, NULL);
    for (int r = 0; r < P; r++)
        assert_int_equal(ac_star_transfer(&w.s[r], 4, NULL, prune), 0);
    long ran[7] = {0};
    race_run(&w, &sc, 500, ran);
    for (int c = 1; c < 7; c++)
        if (c != 4) assert_int_equal(ran[c], 0);
    assert_true(ran[0] <= racing.race_iter);
    assert_int_equal(w.s[0].stage, AC_STAR_MONITOR);
    assert_int_equal(w.s[0].cur, 4);
    world_free(&w);
}

static void transfer_refused(void **st) {
    (void)st;
    scen_t sc = {{2, 1}, -1, 0, 0, 1};
    world_t w;
    world_init(&w, &racing, 2, NULL);
    assert_int_equal(ac_star_transfer(&w.s[0], 2, NULL, NULL), -1); /* out of range */
    assert_int_equal(ac_star_transfer(&w.s[0], -1, NULL, NULL), -1);
    world_call(&w, scen_clock, &sc);
    assert_int_equal(ac_star_transfer(&w.s[0], 1, NULL, NULL), -1); /* after the first call */
    assert_int_equal(w.s[0].cfg.incumbent, 0);
    world_free(&w);
    ac_star_t s;
    assert_int_equal(ac_star_init(&s, &basic, 4, 3, NULL), 0);
    assert_int_equal(ac_star_transfer(&s, 1, NULL, NULL), -1); /* classic: no transfer */
    ac_star_free(&s);
}

/* ---------------------------------------------------------------- unbiased rooted probes */

/* A rooted collective: the first call of a candidate after another one pays for the skew the
 * previous one left (skew[prev] ms), whatever the candidate; later calls cost base[c]. The
 * copies call the clock for every rank of a call, so the switch is detected per call. */
typedef struct {
    double base[8], skew[8];
    long seen;
    int prev, cur;
} skew_t;

static double skew_clock(int c, long call, int rank, void *arg) {
    skew_t *k = arg;
    (void)rank;
    if (call != k->seen) {
        k->prev = k->cur;
        k->cur = c;
        k->seen = call;
    }
    return 1e-3 * (k->base[c] + (k->prev != c ? k->skew[k->prev] : 0));
}

static void rooted_probe_unbiased(void **st) {
    (void)st;
    /* The incumbent 0 (2 ms) leaves 3 ms of skew: a single-call probe of 1 (0.8 ms back to
     * back) after it measures 3.8 ms and is dropped; scored by its second call it is chosen. */
    for (int clean = 0; clean < 2; clean++) {
        skew_t k = {{2, 0.8, 2.5, 3}, {3, 0, 0, 0}, -1, -1, -1};
        ac_star_cfg_t cfg = racing;
        cfg.explore = 100;
        cfg.clean_probe = clean;
        world_t w;
        world_init(&w, &cfg, 4, NULL);
        for (int i = 0; i < 400; i++)
            world_call(&w, skew_clock, &k);
        assert_int_equal(w.s[0].stage, AC_STAR_MONITOR);
        assert_int_equal(w.s[0].cur, clean ? 1 : 0);
        if (clean) {
            /* The score is what the candidate costs back to back. */
            assert_true(fabs(w.s[0].score[1] - 0.8e-3) < 1e-9);
            assert_true(w.s[0].alive[1]);
        } else {
            assert_true(!w.s[0].alive[1]);
        }
        world_free(&w);
    }
}

/* A pipelined candidate: cheap back to back, but its first call after a reduction pays the
 * pipeline's latency (lat, ms) again. */
typedef struct {
    double base[9], lat[9];
    const world_t *w;
    long decisions;
} pipe_t;

static double pipe_clock(int c, long call, int rank, void *arg) {
    pipe_t *k = arg;
    (void)call;
    (void)rank;
    double t = k->base[c];
    if (k->w->s[0].decisions != k->decisions) t += k->lat[c];
    return 1e-3 * t;
}

static void race_earning_pays_first_call(void **st) {
    (void)st;
    /* 1 (0.4 ms back to back, 4 ms of latency after each reduction) replaces the incumbent
     * 0 (1 ms); the last probe, 8, costs 30 ms and spends the budget. Every entry that runs
     * the current choice to earn it back must earn more than its first call costs: the budget
     * grows from one such entry to the next (planned too short, the key reduces every other
     * call and the budget stands still). */
    pipe_t k = {{1, 0.4, 3, 3, 3, 3, 3, 3, 30}, {0.5, 4, 0, 0, 0, 0, 0, 0, 0}, NULL, 0};
    ac_star_cfg_t cfg = racing;
    cfg.clean_probe = 1; /* as for a rooted collective: 1 is scored by its second call */
    world_t w;
    world_init(&w, &cfg, 9, NULL);
    k.w = &w;
    double last = 0;
    int earning = 0, grew = 0;
    for (int i = 0; i < 3000 && w.s[0].stage == AC_STAR_MEASURE; i++) {
        long d = w.s[0].decisions;
        world_call(&w, pipe_clock, &k);
        k.decisions = d;
        if (w.s[0].decisions == d) continue;
        double avail = cfg.explore * w.s[0].total - w.s[0].regret;
        if (earning) {
            assert_true(avail > last);
            grew++;
        }
        /* The batch just planned: one entry of the current choice, not the incumbent. */
        earning = w.s[0].nplan == 1 && w.s[0].rplan[0] == w.s[0].cur && w.s[0].cur != 0;
        last = avail;
    }
    assert_true(grew > 0);
    assert_int_equal(w.s[0].stage, AC_STAR_MONITOR);
    assert_int_equal(w.s[0].cur, 1);
    world_free(&w);
}

/* A racing world of 7 candidates with the models' predictions and algorithms given. */
static void calib_world(world_t *w, const double *pred, const int *fam) {
    world_init(w, &racing, 7, NULL);
    for (int r = 0; r < P; r++) {
        memcpy(w->s[r].pred, pred, 7 * sizeof *pred);
        memcpy(w->s[r].fam, fam, 7 * sizeof *fam);
    }
}

static void race_calibrated_order(void **st) {
    (void)st;
    /* Two algorithms, their instances interleaved in predicted order: A (1, 3, 5; predicted
     * 1.0, 1.2, 1.4 ms) runs 3 times its prediction (calibrated, its last instance is 3.8
     * times B's best: not left out), B (2, 4, 6; 1.1, 1.3, 1.5 ms) at it; the
     * incumbent 0 has no model. The first batch probes 1, 2 and 3; after it B's untried
     * instances come before A's (calibrated 1.3 and 1.5 against 4.2), where the raw
     * predictions put 5 before 6; A's last instance is still probed (3.8 is under the factor
     * of 4), and B's best is chosen. */
    scen_t sc = {{2, 3.0, 1.1, 3.6, 1.3, 4.2, 1.5}, -1, 0, 0, 1};
    int fam[7] = {0, 1, 2, 1, 2, 1, 2};
    double pred[7] = {0, 1.0e-3, 1.1e-3, 1.2e-3, 1.3e-3, 1.4e-3, 1.5e-3};
    world_t w;
    calib_world(&w, pred, fam);
    long ran[7] = {0};
    int seen = 0;
    for (int i = 0; i < 3000; i++) {
        long d = w.s[0].decisions;
        ran[world_call(&w, scen_clock, &sc)]++;
        if (w.s[0].decisions == d || seen) continue;
        /* The batch after the first probes: 6 planned before 5. */
        int at5 = -1, at6 = -1;
        for (int j = 0; j < w.s[0].nplan; j++) {
            if (w.s[0].rplan[j] == 5) at5 = j;
            if (w.s[0].rplan[j] == 6) at6 = j;
        }
        if (at5 < 0 && at6 < 0) continue;
        seen = 1;
        assert_true(at6 >= 0);
        assert_true(at5 < 0 || at6 < at5);
    }
    assert_true(seen);
    assert_true(ran[5] >= 1);
    assert_int_equal(w.s[0].stage, AC_STAR_MONITOR);
    assert_int_equal(w.s[0].cur, 2);
    world_free(&w);
    /* A runs 10 times its prediction: its last instance, calibrated to 14 ms, is more than 4
     * times the current choice and is left out without a probe; B's are all probed. */
    scen_t far = {{2, 10, 1.1, 12, 1.3, 14, 1.5}, -1, 0, 0, 1};
    calib_world(&w, pred, fam);
    long ran2[7] = {0};
    for (int i = 0; i < 3000; i++)
        ran2[world_call(&w, scen_clock, &far)]++;
    assert_int_equal(ran2[5], 0);
    assert_true(!w.s[0].alive[5]);
    assert_true(ran2[4] >= 1 && ran2[6] >= 1);
    assert_int_equal(w.s[0].stage, AC_STAR_MONITOR);
    assert_int_equal(w.s[0].cur, 2);
    world_free(&w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(picks_fastest),
        cmocka_unit_test(stat_max_variant),
        cmocka_unit_test(switches_after_sustained_change),
        cmocka_unit_test(transient_spike_does_not_switch),
        cmocka_unit_test(delta_doubles_to_cap),
        cmocka_unit_test(sampled_monitoring),
        cmocka_unit_test(monitoring_leaves_out_refill),
        cmocka_unit_test(grouping_needs_fewer_probes),
        cmocka_unit_test(margin_covers_close_groups),
        cmocka_unit_test(switch_into_group_probes_its_members),
        cmocka_unit_test(single_candidate_never_reduces),
        cmocka_unit_test(iter_one_and_bad_init),
        cmocka_unit_test(race_drops_slow_after_one_call),
        cmocka_unit_test(race_first_reduction_plans_probes),
        cmocka_unit_test(race_no_regret),
        cmocka_unit_test(race_picks_fastest),
        cmocka_unit_test(race_ranks_cannot_diverge),
        cmocka_unit_test(race_late_probed_last),
        cmocka_unit_test(race_sees_change_while_measuring),
        cmocka_unit_test(transfer_orders_next_key),
        cmocka_unit_test(transfer_confirmation_only),
        cmocka_unit_test(transfer_refused),
        cmocka_unit_test(rooted_probe_unbiased),
        cmocka_unit_test(race_earning_pays_first_call),
        cmocka_unit_test(race_calibrated_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
