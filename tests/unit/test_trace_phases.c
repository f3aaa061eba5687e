/* Unit tests of the phased arrival statistics (src/trace/trace_summary.c,
 * ac_arrival_groups_windows; seed 000 §4.2.4, spec star-stage-ethernet.md §6.3 finding 5) on
 * hand-made samples: one alltoall call site at p = 2, T = 10 us, 30 calls where rank 1 arrives
 * 1 us late in calls 1-10, 100 us late in calls 11-20 and 0.5 us late in calls 21-30. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include "core/ac.h"
#include "trace/trace.h"

enum { NCALL = 30 };

static size_t make(ac_arr_sample_t *s, int ncall) {
    size_t n = 0;
    for (int c = 1; c <= ncall; c++) {
        int64_t late = c <= 10 ? 1000 : c <= 20 ? 100000 : 500; /* ns */
        int64_t t0 = (int64_t)c * 10000000;
        for (int r = 0; r < 2; r++) {
            ac_arr_sample_t *x = &s[n++];
            memset(x, 0, sizeof *x);
            x->leader = 0;
            x->comm = 0;
            x->seq = (uint64_t)c;
            x->kind = AUTOCOLL_ALLTOALL;
            x->crank = r;
            x->csize = 2;
            x->world = r;
            x->bytes = 8;
            x->site = 42;
            x->inst = 7;
            x->t_in = t0 + (r ? late : 0);
            x->t_out = t0 + late + 2000;
        }
    }
    return n;
}

static void phases_hand(void **state) {
    (void)state;
    ac_arr_sample_t s[2 * NCALL];
    size_t n = make(s, NCALL), ng = 0;
    ac_arr_group_t *g = NULL;
    /* alpha = 10 us, beta = 0: T = 10 us; worst-case factors 0.1, 10 and 0.05. */
    assert_int_equal(ac_arrival_groups_windows(s, n, 10e-6, 0, 10, &g, &ng), 0);
    assert_int_equal(ng, 1);
    assert_int_equal(g[0].calls, NCALL);
    assert_int_equal(g[0].nwin, 3);
    assert_int_equal(g[0].window, 10);
    const ac_arr_window_t *w = g[0].win;
    assert_int_equal(w[0].first_seq, 1);
    assert_int_equal(w[0].last_seq, 10);
    assert_int_equal(w[1].first_seq, 11);
    assert_int_equal(w[2].last_seq, 30);
    assert_true(fabs(w[0].worst_factor - 0.1) < 1e-9);
    assert_true(fabs(w[1].worst_factor - 10) < 1e-9);
    assert_true(fabs(w[2].worst_factor - 0.05) < 1e-9);
    assert_true(fabs(w[1].worst_imb - 100e-6) < 1e-12);
    assert_true(fabs(w[1].avg_imb - 50e-6) < 1e-12); /* mean |a_i - mean| of {0, 100} us */
    assert_int_equal(w[0].balanced, 10);
    assert_int_equal(w[1].balanced, 0);
    assert_int_equal(w[1].late_rank, 1);
    assert_int_equal(w[1].late_count, 10);
    /* Mean per-node time in window 2: rank 0 stays 102 us, rank 1 2 us: 52 us. */
    assert_true(fabs(w[1].elapsed - 52e-6) < 1e-12);
    assert_true(fabs(g[0].win_median - 0.1) < 1e-9);
    assert_int_equal(w[0].spike, 0);
    assert_int_equal(w[1].spike, 1);
    assert_int_equal(w[2].spike, 0);
    assert_int_equal(g[0].nspike, 1);
    /* The per-call factors in call order (the report's CDFs and histograms): worst 0.1, 10,
     * 0.05 and average (half of it at p = 2) 0.05, 5, 0.025 per block of 10 calls. */
    double wf[NCALL], af[NCALL];
    assert_int_equal(ac_arrival_group_factors(&g[0], wf, af), NCALL);
    for (int c = 0; c < NCALL; c++) {
        double e = c < 10 ? 0.1 : c < 20 ? 10 : 0.05;
        assert_true(fabs(wf[c] - e) < 1e-9);
        assert_true(fabs(af[c] - e / 2) < 1e-9);
    }
    assert_int_equal(ac_arrival_group_factors(&g[0], NULL, NULL), NCALL);
    ac_arrival_groups_free(g, ng);

    /* Windows of 7: 5 windows, the last of 2 calls; calls 8-14 and 15-21 hold imbalanced ones. */
    n = make(s, NCALL);
    assert_int_equal(ac_arrival_groups_windows(s, n, 10e-6, 0, 7, &g, &ng), 0);
    assert_int_equal(g[0].nwin, 5);
    assert_int_equal(g[0].win[4].calls, 2);
    assert_int_equal(g[0].win[4].first_seq, 29);
    assert_int_equal(g[0].win[1].balanced, 3); /* calls 8, 9, 10 balanced; 11-14 not */
    ac_arrival_groups_free(g, ng);

    /* Automatic window: max(10, ceil(30 / 10)) = 10. */
    n = make(s, NCALL);
    assert_int_equal(ac_arrival_groups_windows(s, n, 10e-6, 0, 0, &g, &ng), 0);
    assert_int_equal(g[0].window, 10);
    assert_int_equal(g[0].nwin, 3);
    ac_arrival_groups_free(g, ng);

    /* A balanced run has no spike even when one window is relatively worse. */
    n = make(s, 10);
    for (size_t i = 0; i < n; i++)
        if (s[i].crank == 1 && s[i].seq >= 6) s[i].t_in -= 800; /* 0.2 us late: factor 0.02 */
    assert_int_equal(ac_arrival_groups_windows(s, n, 10e-6, 0, 5, &g, &ng), 0);
    assert_int_equal(g[0].nwin, 2);
    assert_int_equal(g[0].nspike, 0);
    ac_arrival_groups_free(g, ng);

    /* Without phases, no windows. */
    n = make(s, NCALL);
    assert_int_equal(ac_arrival_groups(s, n, 10e-6, 0, &g, &ng), 0);
    assert_null(g[0].win);
    assert_int_equal(g[0].nwin, 0);
    assert_int_equal(ac_arrival_group_factors(&g[0], NULL, NULL), 0);
    ac_arrival_groups_free(g, ng);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(phases_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
