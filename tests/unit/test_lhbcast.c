/*
 * Latency-hiding broadcast (src/sched/lhbcast.c; spec predictors-latency.md 5.5-5.6, seed 004
 * section 5.3): the recurrence against the spec's test vectors and against the corrected closed
 * form (kept here only, as the spec asks), Tables 5.1-5.4 exactly as corrected, the grouping
 * schema's worked example and its four generator properties for every k <= 4, d <= 4, N < 400,
 * and the d = 0 schedule against the library's k-nomial tree of radix k+1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sched/lhbcast.h"
#include "sched/tree.h"

static void vec(int k, int d, const long long *want, int n) {
    for (int s = 0; s < n; s++) {
        long long got = ac_lhb_count(k, d, s);
        if (got != want[s]) {
            print_error("k=%d d=%d N(%d) = %lld, want %lld\n", k, d, s, got, want[s]);
            fail();
        }
    }
}

static void test_recurrence_vectors(void **state) {
    (void)state;
    static const long long k2d1[] = {1,   3,    7,    17,   41,    99,    239,
                                     577, 1393, 3363, 8119, 19601, 47321, 114243};
    static const long long k4d3[] = {1, 5, 21, 85, 341, 1369, 5497, 22073, 88633};
    static const long long k1d3[] = {1, 2, 3, 4, 5, 7, 10, 14, 19, 26, 36, 50, 69};
    vec(2, 1, k2d1, 14);
    vec(4, 3, k4d3, 9);
    vec(1, 3, k1d3, 13);
    assert_int_equal(ac_lhb_count(1, 3, 21), 1252);
    assert_int_equal(ac_lhb_count(1, 3, 27), 8657);
    assert_int_equal(ac_lhb_count(1, 3, 34), 82629);
    /* k = 1, d = 1: Fibonacci numbers F(S+2) with F(1) = F(2) = 1 */
    long long a = 1, b = 2;
    for (int s = 0; s < 60; s++) {
        assert_int_equal(ac_lhb_count(1, 1, s), a);
        long long c = a + b;
        a = b;
        b = c;
    }
    /* newly informed per step, k = 2, d = 1: r = 2, 4, 10, 24, 58, 140 */
    static const long long r[] = {2, 4, 10, 24, 58, 140};
    for (int s = 1; s <= 6; s++)
        assert_int_equal(ac_lhb_new(2, 1, s), r[s - 1]);
    /* saturation and bad arguments */
    assert_int_equal(ac_lhb_count(6, 0, 200), AC_LHB_MAX);
    assert_int_equal(ac_lhb_count(0, 1, 3), -1);
    assert_int_equal(ac_lhb_count(2, -1, 3), -1);
    assert_int_equal(ac_lhb_b4(0, 2, 1), -1);
}

__extension__ typedef __int128 i128;

/* Corrected closed form (eqs. 5.28/5.30 for k >= 2, 5.35 for k = 1) in exact integers. */
static i128 binom(int n, int r) {
    if (r < 0 || r > n) return 0;
    i128 c = 1;
    for (int i = 1; i <= r; i++)
        c = c * (n - r + i) / i;
    return c;
}

static i128 ipow(int k, int e) {
    i128 v = 1;
    while (e-- > 0)
        v *= k;
    return v;
}

static i128 closed(int k, int d, int S) {
    int gens = (S + d) / (d + 1) - 1; /* ceil(S/(d+1)) - 1 */
    i128 n = k == 1 ? S + 1 : (ipow(k, S + 1) - 1) / (k - 1);
    for (int i = 1; i <= gens; i++)
        for (int j = 1; j <= S - i * (d + 1); j++) {
            i128 c = binom(j + i - 2, i - 1);
            if (k == 1)
                n += c * (S - i * (d + 1) + 1 - j);
            else
                n += c * (ipow(k, S - i * (d + 1) + 1) - ipow(k, j)) / (k - 1);
        }
    return n;
}

static void test_closed_form(void **state) {
    (void)state;
    for (int k = 1; k <= 6; k++)
        for (int d = 0; d <= 6; d++)
            for (int S = 0; S <= 22; S++) {
                long long rec = ac_lhb_count(k, d, S);
                i128 cf = closed(k, d, S);
                if ((i128)rec != cf) {
                    print_error("k=%d d=%d S=%d: recurrence %lld, closed form %lld\n", k, d, S, rec,
                                (long long)cf);
                    fail();
                }
            }
    /* the spec's counter-example of the printed form: k = 2, d = 1, S = 5 is 99 */
    assert_true(closed(2, 1, 5) == 99);
}

/* Tables 5.1 (k = 2, d = 1) and 5.2 (k = 4, d = 3, N corrected to 22073): N, B1..B4, best. */
static void test_tables_51_52(void **state) {
    (void)state;
    static const long long t51[][6] = {{99, 12, 10, 7, 5, 5},
                                       {1393, 20, 14, 11, 8, 7},
                                       {19601, 28, 18, 15, 11, 9},
                                       {114243, 32, 22, 17, 13, 11}};
    static const long long t52[][6] = {{85, 12, 12, 6, 3, 3},
                                       {1369, 24, 20, 9, 5, 5},
                                       {22073, 32, 28, 11, 7, 7},
                                       {88633, 36, 32, 12, 8, 8}};
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < 4; i++) {
            const long long *row = t ? t52[i] : t51[i];
            int k = t ? 4 : 2, d = t ? 3 : 1;
            long long N = row[0];
            assert_int_equal(ac_lhb_b1(N, k, d), row[1]);
            assert_int_equal(ac_lhb_b2(N, k, d), row[2]);
            assert_int_equal(ac_lhb_b3(N, k, d), row[3]);
            assert_int_equal(ac_lhb_b4(N, k, d), row[4]);
            assert_int_equal(ac_lhb_best(N, k), row[5]);
        }
    /* the printed N = 22703 would need 8 steps */
    assert_int_equal(ac_lhb_b4(22703, 4, 3), 8);
}

/* Table 5.3 (single port, d = 3): binomial (d+1) ceil(log2 N) = B2 with k = 1, B_F1 = B4 with
 * k = 1, best ceil(log2 N); Table 5.4 (k = 4, d = 3, M = 10): MB1, MB2. */
static void test_tables_53_54(void **state) {
    (void)state;
    static const long long t53[][4] = {
        {69, 28, 12, 7}, {1252, 44, 21, 11}, {8657, 56, 27, 14}, {82629, 68, 34, 17}};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(ac_lhb_b2(t53[i][0], 1, 3), t53[i][1]);
        assert_int_equal(ac_lhb_b4(t53[i][0], 1, 3), t53[i][2]);
        assert_int_equal(ac_lhb_best(t53[i][0], 1), t53[i][3]);
    }
    static const long long t54[][3] = {
        {85, 60, 33}, {1369, 80, 63}, {22073, 100, 83}, {88633, 110, 93}};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(ac_lhb_mb1(t54[i][0], 4, 3, 10), t54[i][1]);
        assert_int_equal(ac_lhb_mb2(t54[i][0], 4, 3, 10), t54[i][2]);
    }
    assert_int_equal(ac_lhb_mb1(22703, 4, 3, 10), 110);
    /* k = 1: the k-ary tree is a chain */
    assert_int_equal(ac_lhb_b1(10, 1, 2), 27);
    assert_int_equal(ac_lhb_b3(10, 1, 2), 11);
    assert_int_equal(ac_lhb_mb2(10, 1, 2, 3), 29);
}

/* Spec 5.5 example: N = 17, k = 2, d = 1 finishes at step 3. */
static void test_example_17(void **state) {
    (void)state;
    static const int want[16][3] = {{1, 0, 1},  {1, 0, 2},  {2, 1, 3},  {2, 1, 4},
                                    {2, 2, 5},  {2, 2, 6},  {3, 0, 7},  {3, 0, 8},
                                    {3, 3, 9},  {3, 3, 10}, {3, 4, 11}, {3, 4, 12},
                                    {3, 5, 13}, {3, 5, 14}, {3, 6, 15}, {3, 6, 16}};
    ac_lhb_msg m[16];
    assert_int_equal(ac_lhb_schedule(17, 2, 1, 0, m), 3);
    for (int i = 0; i < 16; i++) {
        assert_int_equal(m[i].step, want[i][0]);
        assert_int_equal(m[i].from, want[i][1]);
        assert_int_equal(m[i].to, want[i][2]);
    }
    /* root 5: the same schedule shifted by 5 mod 17 */
    assert_int_equal(ac_lhb_schedule(17, 2, 1, 5, m), 3);
    assert_int_equal(m[8].from, 8);
    assert_int_equal(m[8].to, 14);
    assert_int_equal(m[15].to, 4);
    assert_int_equal(ac_lhb_schedule(1, 2, 1, 0, NULL), 0);
    assert_int_equal(ac_lhb_schedule(17, 2, 1, 17, m), -1);
    assert_int_equal(ac_lhb_schedule(17, 0, 1, 0, m), -1);
}

/* Generator properties of spec 5.5, every k <= 4, d <= 4, 1 <= N < 400, root 0 and N/3:
 * senders informed before they send, at most k sends per step, send steps of a node at least
 * d+1 apart, every node informed exactly once, finish = min{S : N(S) >= N}; and the per-step
 * number of senders |T(S)| = r(S-1) + |T(S-d-1)| with |T(1)| = 1. */
static void test_generator_properties(void **state) {
    (void)state;
    ac_lhb_msg *m = malloc(sizeof *m * 400);
    int *when = malloc(sizeof *when * 400), *last = malloc(sizeof *last * 400);
    int *sends = malloc(sizeof *sends * 400);
    assert_non_null(m);
    assert_non_null(when);
    assert_non_null(last);
    assert_non_null(sends);
    for (int k = 1; k <= 4; k++)
        for (int d = 0; d <= 4; d++)
            for (int N = 1; N < 400; N++) {
                int root = N / 3;
                int fin = ac_lhb_schedule(N, k, d, root, m);
                assert_int_equal(fin, ac_lhb_b4(N, k, d));
                for (int v = 0; v < N; v++)
                    when[v] = -1, last[v] = -1000, sends[v] = 0;
                when[root] = 0;
                for (int i = 0; i < N - 1; i++) {
                    int f = m[i].from, t = m[i].to, s = m[i].step;
                    if (i) assert_true(s >= m[i - 1].step);
                    assert_true(s >= 1 && s <= fin);
                    assert_true(when[f] >= 0 && when[f] < s); /* informed before it sends */
                    assert_int_equal(when[t], -1);            /* informed once */
                    when[t] = s;
                    if (last[f] == s) {
                        assert_true(++sends[f] <= k); /* at most k ports per step */
                    } else {
                        assert_true(s - last[f] >= d + 1);
                        last[f] = s;
                        sends[f] = 1;
                    }
                }
                for (int v = 0; v < N; v++)
                    assert_true(when[v] >= 0);
                if (N > 1) assert_int_equal(m[N - 2].step, fin);
            }
    /* |T(S)| for k = 2, d = 1 with N large enough to leave every step full */
    static const int T[] = {1, 2, 5, 12, 29, 70};
    int N = (int)ac_lhb_count(2, 1, 6);
    ac_lhb_msg *big = malloc(sizeof *big * (size_t)N);
    assert_non_null(big);
    assert_int_equal(ac_lhb_schedule(N, 2, 1, 0, big), 6);
    for (int s = 1; s <= 6; s++) {
        int senders = 0, prev = -1;
        for (int i = 0; i < N - 1; i++)
            if (big[i].step == s && big[i].from != prev) senders++, prev = big[i].from;
        assert_int_equal(senders, T[s - 1]);
    }
    free(big);
    free(m);
    free(when);
    free(last);
    free(sends);
}

/* d = 0: every informed node sends to k new nodes per step, the k-nomial tree of radix k+1 of
 * src/sched/tree.h, numbered differently: same number of steps (the root's digit positions) and, for N a power
 * of k+1, the same multiset of child counts. */
static int cmp_int(const void *a, const void *b) {
    return *(const int *)a - *(const int *)b;
}

static void test_d0_is_knomial(void **state) {
    (void)state;
    for (int k = 1; k <= 4; k++)
        for (int N = 2; N <= 300; N++) {
            ac_tree_t t = ac_tree_make(AC_TREE_KNOMIAL, k + 1, N);
            ac_lhb_msg *m = malloc(sizeof *m * (size_t)N);
            int *a = calloc((size_t)N, sizeof *a), *b = calloc((size_t)N, sizeof *b);
            assert_non_null(m);
            assert_non_null(a);
            assert_non_null(b);
            int fin = ac_lhb_schedule(N, k, 0, 0, m);
            /* rounds of the k-port k-nomial tree: the digit positions of the root's children */
            int nc = ac_tree_nchildren(&t, 0);
            assert_int_equal(fin, ac_tree_child_level(&t, 0, nc - 1) + 1);
            assert_int_equal(fin, ac_lhb_best(N, k));
            long long pw = 1;
            while (pw < N)
                pw *= k + 1;
            if (pw == N) {
                for (int i = 0; i < N - 1; i++)
                    a[m[i].from]++;
                for (int v = 0; v < N; v++)
                    b[v] = ac_tree_nchildren(&t, v);
                qsort(a, (size_t)N, sizeof *a, cmp_int);
                qsort(b, (size_t)N, sizeof *b, cmp_int);
                assert_memory_equal(a, b, sizeof *a * (size_t)N);
            }
            free(m);
            free(a);
            free(b);
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recurrence_vectors), cmocka_unit_test(test_closed_form),
        cmocka_unit_test(test_tables_51_52),       cmocka_unit_test(test_tables_53_54),
        cmocka_unit_test(test_example_17),         cmocka_unit_test(test_generator_properties),
        cmocka_unit_test(test_d0_is_knomial),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
