/* Unit tests of the per-invocation arrival statistics that the adaptive engine's summary uses
 * (src/trace/trace_summary.c, ac_arrival_calls; seed 000 §4.2.1, spec star-stage-ethernet.md
 * §6.1) on hand-made samples at p = 3, T = alpha + beta n = 2 us + 1 ns/B x 1000 B = 3 us:
 *  call 1 (probe):    arrivals 0, 3, 12 us: mean 5, |a - mean| = 5, 2, 7: average-case
 *                     imbalance 14/3 us, factor 14/9; worst-case 12 us, factor 4;
 *  call 2 (adaptive): arrivals 6, 0, 0 us: mean 2, |a - mean| = 4, 2, 2: average 8/3 us,
 *                     factor 8/9; worst 6 us, factor 2;
 *  call 3 (adaptive): rank 2's sample missing: incomplete, left out;
 *  call 4 (forced):   complete, left out by the filter (kept without it).
 * Samples are given out of order (the function sorts them). */
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

enum { SRC_FORCED = 1, SRC_ADAPTIVE = 5, SRC_PROBE = 6 };

static void put(ac_arr_sample_t *x, uint64_t seq, int r, int64_t t_in_us, int src) {
    memset(x, 0, sizeof *x);
    x->leader = 1;
    x->comm = 4;
    x->seq = seq;
    x->kind = AUTOCOLL_BCAST;
    x->crank = r;
    x->csize = 3;
    x->world = r;
    x->bytes = 1000;
    x->root = 2;
    x->src = (uint8_t)src;
    x->flags = 0;
    x->t_in = 1000000000 + (int64_t)seq * 100000000 + t_in_us * 1000;
    x->t_out = x->t_in + 50000;
}

static size_t make(ac_arr_sample_t *s) {
    size_t n = 0;
    const int64_t a[4][3] = {{0, 3, 12}, {6, 0, 0}, {0, 1, -1}, {0, 0, 0}};
    const int src[4] = {SRC_PROBE, SRC_ADAPTIVE, SRC_ADAPTIVE, SRC_FORCED};
    for (int r = 2; r >= 0; r--) /* out of order */
        for (int c = 3; c >= 0; c--)
            if (a[c][r] >= 0) put(&s[n++], (uint64_t)c + 1, r, a[c][r], src[c]);
    return n;
}

static int engine(int src) {
    return src == SRC_ADAPTIVE || src == SRC_PROBE;
}

static void calls_hand(void **state) {
    (void)state;
    ac_arr_sample_t s[12];
    size_t n = make(s), nc = 0;
    ac_arr_callstat_t *c = NULL;
    assert_int_equal(ac_arrival_calls(s, n, 2e-6, 1e-9, engine, &c, &nc), 0);
    assert_int_equal(nc, 2);
    assert_int_equal(c[0].src, SRC_PROBE);
    assert_int_equal(c[0].leader, 1);
    assert_int_equal(c[0].comm, 4);
    assert_int_equal(c[0].kind, AUTOCOLL_BCAST);
    assert_int_equal(c[0].root, 2);
    assert_int_equal(c[0].bytes, 1000);
    assert_true(fabs(c[0].worst_imb - 12e-6) < 1e-12);
    assert_true(fabs(c[0].worst_factor - 4.0) < 1e-9);
    assert_true(fabs(c[0].avg_factor - 14.0 / 9.0) < 1e-9);
    assert_int_equal(c[1].src, SRC_ADAPTIVE);
    assert_true(fabs(c[1].worst_imb - 6e-6) < 1e-12);
    assert_true(fabs(c[1].worst_factor - 2.0) < 1e-9);
    assert_true(fabs(c[1].avg_factor - 8.0 / 9.0) < 1e-9);
    free(c);
    /* no filter: the forced call too (balanced: factor 0) */
    n = make(s);
    assert_int_equal(ac_arrival_calls(s, n, 2e-6, 1e-9, NULL, &c, &nc), 0);
    assert_int_equal(nc, 3);
    assert_int_equal(c[2].src, SRC_FORCED);
    assert_true(c[2].worst_factor == 0.0);
    free(c);
}

static void calls_bad(void **state) {
    (void)state;
    ac_arr_sample_t s[12];
    size_t n = make(s), nc = 7;
    ac_arr_callstat_t *c = (ac_arr_callstat_t *)s;
    assert_int_equal(ac_arrival_calls(s, n, 0, 1e-9, NULL, &c, &nc), -1); /* alpha <= 0 */
    assert_null(c);
    assert_int_equal(nc, 0);
    assert_int_equal(ac_arrival_calls(NULL, 3, 1e-6, 0, NULL, &c, &nc), -1);
    assert_int_equal(ac_arrival_calls(s, 0, 1e-6, 0, NULL, &c, &nc), 0); /* none */
    assert_int_equal(nc, 0);
    free(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(calls_hand), cmocka_unit_test(calls_bad)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
