/*
 * Latency-hiding broadcast models and schedule (seed 004 section 5.3, spec
 * predictors-latency.md 5.5-5.6); formulas and the schema are in lhbcast.h.
 *
 * Counting: all counts are long long and saturate at AC_LHB_MAX, so N(S) for large S and
 * N(k-1)+1 for large N stay defined. The schedule is generated step by step from each node's
 * receive step t (a node sends at S > t with (S - t - 1) mod (d+1) == 0, which is the set
 * T(S) = T(S-d-1) u R(S-1) of eq. 5.36): O(N x steps) time, O(N) memory.
 */
#include "lhbcast.h"
#include <stdlib.h>

static long long sat_add(long long a, long long b) {
    return a > AC_LHB_MAX - b ? AC_LHB_MAX : a + b;
}

static long long sat_mul(long long a, long long b) {
    if (a == 0 || b == 0) return 0;
    return a > AC_LHB_MAX / b ? AC_LHB_MAX : a * b;
}

/* Smallest L >= 0 with base^L >= x (base >= 2, x >= 1). */
static long long ceil_log(long long x, long long base) {
    long long L = 0, v = 1;
    while (v < x) {
        v = sat_mul(v, base);
        L++;
    }
    return L;
}

long long ac_lhb_count(int k, int d, int S) {
    if (k < 1 || d < 0 || S < 0) return -1;
    /* ring of the last d+1 values: N(S-d-1) .. N(S-1) */
    long long *h = malloc(sizeof *h * ((size_t)d + 2));
    if (!h) return -1;
    long long n = 1;
    h[0] = 1;
    for (int s = 1; s <= S; s++) {
        long long older = s <= d + 1 ? 1 : h[(s - d - 1) % (d + 2)];
        n = sat_add(sat_mul(k, n), older);
        h[s % (d + 2)] = n;
    }
    free(h);
    return n;
}

long long ac_lhb_new(int k, int d, int S) {
    if (S < 1) return -1;
    long long a = ac_lhb_count(k, d, S), b = ac_lhb_count(k, d, S - 1);
    return a < 0 || b < 0 ? -1 : a - b;
}

static int bad(long long N, int k, int d) {
    return N < 1 || N > AC_LHB_MAX || k < 1 || d < 0;
}

long long ac_lhb_kary_depth(long long N, int k) {
    if (bad(N, k, 0)) return -1;
    if (k == 1) return N - 1;
    return ceil_log(sat_add(sat_mul(N, k - 1), 1), k) - 1;
}

long long ac_lhb_b1(long long N, int k, int d) {
    if (bad(N, k, d)) return -1;
    return sat_mul(d + 1, ac_lhb_kary_depth(N, k));
}

long long ac_lhb_b2(long long N, int k, int d) {
    if (bad(N, k, d)) return -1;
    return sat_mul(d + 1, ceil_log(N, (long long)k + 1));
}

long long ac_lhb_b3(long long N, int k, int d) {
    if (bad(N, k, d)) return -1;
    return N == 1 ? 0 : sat_add(d, ac_lhb_kary_depth(N, k));
}

long long ac_lhb_b4(long long N, int k, int d) {
    if (bad(N, k, d)) return -1;
    /* N(S) >= S + 1, so the loop ends; incremental form of ac_lhb_count */
    long long *h = malloc(sizeof *h * ((size_t)d + 2));
    if (!h) return -1;
    long long n = 1;
    int s = 0;
    h[0] = 1;
    while (n < N) {
        s++;
        long long older = s <= d + 1 ? 1 : h[(s - d - 1) % (d + 2)];
        n = sat_add(sat_mul(k, n), older);
        h[s % (d + 2)] = n;
    }
    free(h);
    return s;
}

long long ac_lhb_best(long long N, int k) {
    if (bad(N, k, 0)) return -1;
    return ceil_log(N, (long long)k + 1);
}

long long ac_lhb_mb1(long long N, int k, int d, long long M) {
    long long b4 = ac_lhb_b4(N, k, d);
    if (b4 < 0 || M < 1) return -1;
    return sat_mul(M, d + b4);
}

long long ac_lhb_mb2(long long N, int k, int d, long long M) {
    if (bad(N, k, d) || M < 1) return -1;
    return sat_add(d, sat_mul(M, ac_lhb_kary_depth(N, k)));
}

int ac_lhb_schedule(int N, int k, int d, int root, ac_lhb_msg *out) {
    if (N < 1 || N > (1 << 24) || k < 1 || d < 0 || root < 0 || root >= N || (N > 1 && !out))
        return -1;
    int *got = malloc(sizeof *got * (size_t)N); /* step at which virtual id v was informed */
    if (!got) return -1;
    got[0] = 0;
    int informed = 1, step = 0, m = 0;
    while (informed < N) {
        step++;
        int before = informed; /* ids informed at this step do not send at it */
        for (int v = 0; v < before && informed < N; v++) {
            if (got[v] >= step || (step - got[v] - 1) % (d + 1) != 0) continue;
            for (int j = 0; j < k && informed < N; j++) {
                got[informed] = step;
                out[m].step = step;
                out[m].from = (v + root) % N;
                out[m].to = (informed + root) % N;
                m++;
                informed++;
            }
        }
    }
    free(got);
    return step;
}
