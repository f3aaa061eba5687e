/* Unit test of the trace clock on the time-stamp counter (src/trace/trace.c,
 * ac_trace_tsc_calibrate; docs/tracing.md, cost): once calibrated, ac_trace_now follows
 * CLOCK_MONOTONIC within 50 us over 0.2 s and never goes backwards; switched off, it is
 * CLOCK_MONOTONIC. Where the counter is not usable (not x86_64, not invariant) calibration says
 * so and the clock stays CLOCK_MONOTONIC. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "core/ac.h"
#include "trace/trace.h"

static int64_t llabs64(int64_t v) {
    return v < 0 ? -v : v;
}

static void tsc_follows_monotonic(void **state) {
    (void)state;
    int on = ac_trace_tsc_calibrate();
    if (!on) {
        assert_int_equal(ac_trace_tsc.mult, 0);
        int64_t a = ac_trace_mono(), b = ac_trace_now(), c = ac_trace_mono();
        assert_true(a <= b && b <= c);
        return;
    }
    assert_true(ac_trace_tsc.mult > 0);
    int64_t prev = ac_trace_now(), worst = 0;
    for (int k = 0; k < 20; k++) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        int64_t m0 = ac_trace_mono(), t = ac_trace_now(), m1 = ac_trace_mono();
        int64_t mid = m0 + (m1 - m0) / 2, e = llabs64(t - mid) - (m1 - m0) / 2;
        if (e > worst) worst = e;
        assert_true(t >= prev);
        prev = t;
    }
    printf("tsc clock: largest distance to CLOCK_MONOTONIC over 0.2 s: %lld ns\n",
           (long long)worst);
    assert_true(worst < 50000);
    ac_trace_tsc_off();
    int64_t a = ac_trace_mono(), b = ac_trace_now(), c = ac_trace_mono();
    assert_true(a <= b && b <= c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tsc_follows_monotonic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
