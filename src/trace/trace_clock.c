/*
 * Clock offsets to rank 0 by the minimum round-trip method, and their use.
 *
 * Source: issue 20 and spec star-stage-ethernet.md §6.2 (seed 000 §4.2.2.3 compares MPI_Wtime
 * values of different nodes without discussing offsets; autocoll estimates each rank's offset to
 * rank 0 with a minimum-RTT ping-pong, corrects timestamps and reports the residual).
 *
 * Method. A ping-pong gives local t0 (send), rank 0's tr (its answer) and local t1 (answer
 * received). If the forward and backward one-way delays are d1 and d2 (t1 - t0 = d1 + d2 plus
 * rank 0's turnaround), rank 0 stamped tr at local time t0 + d1 + (its part of the turnaround),
 * so theta = tr - (t0 + t1) / 2 differs from the true offset by (d1 - d2) / 2 at most in
 * magnitude, which is below (t1 - t0) / 2 whatever the split. The sample with the smallest
 * round trip has the smallest such bound: its theta is the estimate and (t1 - t0) / 2 the
 * residual. Cost: n ping-pongs (the callback's), O(n) arithmetic.
 *
 * Drift: estimates at init and at finalize are both kept in the file; a time between them is
 * corrected by linear interpolation of the offset (ac_trace_clock_correct).
 */
#include "trace.h"
#include <math.h>

int ac_trace_clock_offset(ac_trace_pingpong_fn fn, void *arg, int n, double *offset,
                          double *residual) {
    double best_rtt = INFINITY, best = 0;
    *offset = 0;
    *residual = -1;
    if (!fn || n < 1) return -1;
    for (int i = 0; i < n; i++) {
        double t0 = 0, tr = 0, t1 = 0;
        if (fn(arg, &t0, &tr, &t1) != 0) return -1;
        double rtt = t1 - t0;
        if (!isfinite(t0) || !isfinite(tr) || !isfinite(t1) || rtt < 0) continue;
        if (rtt < best_rtt) {
            best_rtt = rtt;
            best = tr - 0.5 * (t0 + t1);
        }
    }
    if (!isfinite(best_rtt)) return -1;
    *offset = best;
    *residual = 0.5 * best_rtt;
    return 0;
}

int64_t ac_trace_clock_correct(const ac_trace_clock_t c[2], int64_t t) {
    int ok0 = c[0].residual >= 0, ok1 = c[1].residual >= 0;
    if (ok0 && ok1 && c[1].at != c[0].at) {
        /* offset(t) = o0 + (o1 - o0) (t - at0) / (at1 - at0), in double: the slope is tiny */
        double w = (double)(t - c[0].at) / (double)(c[1].at - c[0].at);
        return t + c[0].offset + (int64_t)llround(w * (double)(c[1].offset - c[0].offset));
    }
    if (ok0) return t + c[0].offset;
    if (ok1) return t + c[1].offset;
    return t;
}
