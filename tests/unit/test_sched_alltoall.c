/*
 * Block-level simulation of the alltoall schedules: every rank starts with the p blocks
 * (me -> d) and, following the same pure functions the algorithms call (src/sched/te.c,
 * a2a_sched.c and the shared sched.h patterns), must end with every block (s -> me) exactly once.
 * Covered: standard/combined total exchange (all admissible i), Bruck and k-port Bruck, ring,
 * pair, N-barrier placement, mesh and recursive-doubling row gathers, the hierarchical block
 * order; and TE3's cost formula against the corrected tables 5.5 and 5.6 of
 * spec/predictors-latency.md.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sched/a2a_sched.h"
#include "sched/sched.h"
#include "sched/te.h"

/* Process counts: every p up to `all`, then a spread of larger ones up to 2048. */
static const int big_p[] = {255,  256,  257,  384,  500,  511,  512, 768,
                            1000, 1023, 1024, 1536, 2000, 2047, 2048};
#define NBIG ((int)(sizeof big_p / sizeof big_p[0]))

static int pnext(int p, int all) {
    if (p < all) return p + 1;
    for (int x = 0; x < NBIG; x++)
        if (big_p[x] > p) return big_p[x];
    return 0;
}

/* Check that `got` (p entries per rank: got[r*p + s] = times block s -> r arrived) is all 1. */
static void check_all_once(const unsigned char *got, int p, const char *what, int param) {
    for (long x = 0; x < (long)p * p; x++)
        if (got[x] != 1) {
            print_error("%s p=%d param=%d: block %ld -> %ld arrived %d times\n", what, p, param,
                        x % p, x / p, got[x]);
            fail();
        }
}

/* ------------------------------------------------------------------ total exchange */

static void sim_te(int p, int i) {
    size_t P = (size_t)p;
    int *hold = malloc(P * P * sizeof(int)), *next = malloc(P * P * sizeof(int));
    unsigned char *got = calloc(P * P, 1);
    assert_non_null(hold);
    assert_non_null(next);
    assert_non_null(got);
    for (int r = 0; r < p; r++)
        for (int d = 0; d < p; d++)
            hold[r * P + d] = r * p + d;
    for (int s = 1; s <= i; s++) {
        size_t half = P / 2;
        for (int r = 0; r < p; r++) {
            int ur, uq, q = ac_te_partner(p, s, r, &ur);
            assert_true(q >= 0 && q < p && q != r);
            assert_int_equal(ac_te_partner(p, s, q, &uq), r);
            assert_int_not_equal(ur, uq);
            for (size_t t = 0; t < half; t++) {
                next[r * P + ac_te_keep_new_slot(p, s, r, t)] =
                    hold[r * P + ac_te_keep_slot(p, s, r, t)];
                /* the t-th packed block of q's message lands in slot recv_new_slot(t) */
                next[r * P + ac_te_recv_new_slot(p, s, r, t)] =
                    hold[q * P + ac_te_send_slot(p, s, q, t)];
            }
        }
        int *x = hold;
        hold = next;
        next = x;
        /* every slot must hold exactly the block the layout functions describe */
        for (int r = 0; r < p; r++)
            for (size_t sl = 0; sl < P; sl++) {
                int want = ac_te_slot_src(p, s, r, sl) * p + ac_te_slot_dst(p, s, r, sl);
                if (hold[r * P + sl] != want) {
                    print_error("te p=%d i=%d step %d rank %d slot %zu: %d != %d\n", p, i, s, r, sl,
                                hold[r * P + sl], want);
                    fail();
                }
            }
    }
    int G = p >> i;
    size_t nk = (size_t)1 << i;
    for (int r = 0; r < p; r++) {
        for (size_t k = 0; k < nk; k++) { /* own group column */
            int v = hold[r * P + ac_te_direct_send_slot(p, i, r, r, k)];
            assert_int_equal(v % p, r);
            assert_int_equal(v / p, ac_te_direct_recv_src(p, i, r, k));
            got[r * P + v / p]++;
        }
        for (int j = 1; j < G; j++) {
            int to, from, to2, from2;
            ac_te_direct_peers(p, i, r, j, &to, &from);
            ac_te_direct_peers(p, i, from, j, &to2, &from2);
            assert_int_equal(to2, r); /* from sends to me at step j */
            for (size_t k = 0; k < nk; k++) {
                int v = hold[from * P + ac_te_direct_send_slot(p, i, from, r, k)];
                assert_int_equal(v % p, r);
                assert_int_equal(v / p, ac_te_direct_recv_src(p, i, from, k));
                got[r * P + v / p]++;
            }
        }
    }
    check_all_once(got, p, "te", i);
    free(hold);
    free(next);
    free(got);
}

static void test_te_delivery(void **state) {
    (void)state;
    for (int p = 1; p; p = pnext(p, 130)) {
        assert_true(ac_te_valid(p, 0));
        assert_false(ac_te_valid(p, ac_te_max_i(p) + 1));
        for (int i = 0; i <= ac_te_max_i(p); i++) {
            assert_int_equal(p % (1 << i), 0);
            if (p > 600 && i > 0 && i < ac_te_max_i(p) - 1) continue; /* time: ends + 0 */
            sim_te(p, i);
        }
    }
}

/* Tables 5.5 and 5.6 of spec/predictors-latency.md (5.6 with the corrected d = 50 value). */
static void test_te3_cost_tables(void **state) {
    (void)state;
    static const double dts[4] = {2, 5, 20, 50};
    static const double t55[4][11] = {
        {3069, 2558, 2558, 2812, 3190, 3624, 4074, 4508, 4886, 5140, 5140},
        {6138, 4094, 3329, 3202, 3391, 3732, 4137, 4550, 4919, 5170, 5170},
        {21483, 11774, 7184, 5152, 4396, 4272, 4452, 4760, 5084, 5320, 5320},
        {52173, 27134, 14894, 9052, 6406, 5352, 5082, 5180, 5414, 5620, 5620}};
    static const double te2_55[4] = {5140, 5170, 5320, 5620};
    static const int best55[4] = {1, 3, 5, 6};
    static const double t56[4][6] = {{1023, 768, 894, 1104, 1290, 1290},
                                     {2046, 1026, 963, 1128, 1305, 1305},
                                     {7161, 2316, 1308, 1248, 1380, 1380},
                                     {17391, 4896, 1998, 1488, 1530, 1530}};
    static const double te2_56[4] = {1290, 1305, 1380, 1530};
    for (int x = 0; x < 4; x++) {
        for (int i = 0; i <= 10; i++)
            assert_float_equal(ac_te3_cost(1024, 1, i, dts[x]), t55[x][i], 1e-9);
        assert_float_equal(ac_te1_cost(1024, 1, dts[x]), t55[x][0], 1e-9);
        assert_float_equal(ac_te2_cost(1024, 1, dts[x]), te2_55[x], 1e-9);
        assert_int_equal(ac_te3_best_i(1024, dts[x]), best55[x]);
        for (int i = 0; i <= 5; i++)
            assert_float_equal(ac_te3_cost(1024, 3, i, dts[x]), t56[x][i], 1e-9);
        assert_float_equal(ac_te1_cost(1024, 3, dts[x]), t56[x][0], 1e-9);
        assert_float_equal(ac_te2_cost(1024, 3, dts[x]), te2_56[x], 1e-9);
    }
    /* worked example: N = 8, i = 1 costs 4d + 10 */
    assert_float_equal(ac_te3_cost(8, 1, 1, 3.0), 22.0, 1e-9);
    /* i beyond the divisibility of N is not a schedule */
    assert_true(ac_te3_cost(12, 1, 3, 1.0) < 0);
    assert_true(ac_te3_cost(1024, 1, 11, 1.0) < 0);
    /* mixed radix: p = 12 = 2^2 * 3: 2 (d + 6) + 2 (d + 4) */
    assert_float_equal(ac_te3_cost(12, 1, 2, 1.0), 2 * 7.0 + 2 * 5.0, 1e-9);
    /* huge start-up: as few messages as possible; zero start-up: direct exchange */
    assert_int_equal(ac_te3_best_i(1024, ac_te_dtilde(1.0, 1e-9, 0)), 9);
    assert_int_equal(ac_te3_best_i(1024, 0.0), 0);
    assert_int_equal(ac_te3_best_i(7, 100.0), 0);
}

/* ------------------------------------------------------------------ Bruck, k ports */

static void sim_bruck(int p, int k) {
    size_t P = (size_t)p;
    int *hold = malloc(P * P * sizeof(int)), *next = malloc(P * P * sizeof(int));
    int *slots = malloc(P * sizeof(int));
    unsigned char *seen = malloc(P);
    assert_non_null(hold);
    assert_non_null(next);
    assert_non_null(slots);
    assert_non_null(seen);
    for (int r = 0; r < p; r++)
        for (int t = 0; t < p; t++)
            hold[r * P + t] = r * p + (r + t) % p;
    int ns = ac_kbruck_nsteps(p, k);
    for (int s = 0; s < ns; s++) {
        memcpy(next, hold, P * P * sizeof(int));
        memset(seen, 0, P);
        for (int j = 1; j <= k; j++) {
            int o = 0, c = 0, n = ac_a2a_bruck_slots(p, k, s, j, slots);
            int has = ac_kbruck_part(p, k, s, j, &o, &c);
            if (!has) {
                assert_int_equal(n, 0); /* no slot may be left behind */
                continue;
            }
            for (int x = 0; x < n; x++) {
                assert_true(slots[x] > 0 && slots[x] < p);
                assert_int_equal(seen[slots[x]], 0); /* ports of one step are disjoint */
                seen[slots[x]] = 1;
                for (int r = 0; r < p; r++)
                    next[r * P + slots[x]] = hold[ac_ring_from(r, p, o) * P + slots[x]];
            }
        }
        int *x = hold;
        hold = next;
        next = x;
    }
    for (int r = 0; r < p; r++)
        for (int t = 0; t < p; t++)
            if (hold[r * P + t] != ac_mod((long long)r - t, p) * p + r) {
                print_error("bruck p=%d k=%d rank %d slot %d holds %d -> %d\n", p, k, r, t,
                            hold[r * P + t] / p, hold[r * P + t] % p);
                fail();
            }
    free(hold);
    free(next);
    free(slots);
    free(seen);
}

static void test_bruck_delivery(void **state) {
    (void)state;
    static const int ks[] = {1, 2, 3, 4, 7};
    for (int p = 1; p; p = pnext(p, 200))
        for (int x = 0; x < 5; x++) {
            if (p > 600 && ks[x] > 2) continue;
            sim_bruck(p, ks[x]);
        }
}

/* ------------------------------------------------------------------ ring, pair, barriers */

static void test_ring_pair(void **state) {
    (void)state;
    for (int p = 1; p; p = pnext(p, 300)) {
        size_t P = (size_t)p;
        unsigned char *got = calloc(P * P, 1);
        assert_non_null(got);
        for (int r = 0; r < p; r++) {
            got[r * P + r]++;
            for (int s = 1; s < p; s++) {
                int from = ac_ring_from(r, p, s);
                assert_int_equal(ac_ring_to(from, p, s), r); /* from sends its block for r */
                got[r * P + from]++;
            }
        }
        check_all_once(got, p, "ring", 0);
        if (ac_is_pof2(p)) {
            memset(got, 0, P * P);
            for (int r = 0; r < p; r++) {
                got[r * P + r]++;
                for (int s = 1; s < p; s++) {
                    int q = ac_pair_peer(r, s);
                    assert_true(q >= 0 && q < p);
                    assert_int_equal(ac_pair_peer(q, s), r);
                    got[r * P + q]++;
                }
            }
            check_all_once(got, p, "pair", 0);
        }
        for (int N = 0; N <= 9; N++) {
            int tot = 0;
            for (int s = 0; s < p; s++)
                tot += ac_nbar_count(s, p - 1, N);
            assert_int_equal(tot, N);
        }
        free(got);
    }
}

/* ------------------------------------------------------------------ row gathers (mesh, rdb) */

/* rows[r*p + o] = times rank r received (or started with) the whole send buffer of o. */
static void test_mesh_rows(void **state) {
    (void)state;
    for (int p = 1; p; p = pnext(p, 150)) {
        if (p > 1100) break;
        size_t P = (size_t)p;
        int *l = malloc(P * sizeof(int));
        unsigned char *rows = calloc(P * P, 1);
        assert_non_null(l);
        assert_non_null(rows);
        for (int nd = 2; nd <= 3; nd++) {
            int dims[3];
            ac_mesh_dims(p, nd, dims);
            memset(rows, 0, P * P);
            for (int r = 0; r < p; r++)
                rows[r * P + r] = 1;
            for (int d = 0; d < nd; d++)
                for (int r = 0; r < p; r++)
                    for (int j = 1; j < dims[d]; j++) {
                        int from = ac_mesh_peer(r, nd, dims, d, -j);
                        assert_int_equal(ac_mesh_peer(from, nd, dims, d, j), r);
                        int n = ac_mesh_held(from, nd, dims, d, l);
                        for (int x = 0; x < n; x++) {
                            if (x > 0) assert_int_equal(l[x], l[x - 1] + 1); /* one run */
                            rows[r * P + l[x]]++;
                        }
                    }
            check_all_once(rows, p, nd == 2 ? "mesh2d" : "mesh3d", 0);
        }
        free(l);
        free(rows);
    }
}

static void sort_ints(int *l, int n) {
    for (int x = 1; x < n; x++)
        for (int y = x; y > 0 && l[y - 1] > l[y]; y--) {
            int t = l[y];
            l[y] = l[y - 1];
            l[y - 1] = t;
        }
}

static void test_rdb_rows(void **state) {
    (void)state;
    for (int p = 1; p; p = pnext(p, 200)) {
        size_t P = (size_t)p;
        int pp = ac_floor_pof2(p), e = p - pp;
        int *l = malloc(2 * P * sizeof(int));
        unsigned char *rows = calloc(P * P, 1);
        assert_non_null(l);
        assert_non_null(rows);
        for (int u = 0; u < pp; u++) {
            rows[u * P + u] = 1;
            if (u < e) rows[u * P + u + pp] = 1; /* fold: u + p' hands over its buffer */
        }
        for (int k = 0; (1 << k) < pp; k++)
            for (int u = 0; u < pp; u++) {
                int q = u ^ (1 << k);
                int n = ac_rdb_fold_blocks(p, ac_rdb_start(q, k), 1 << k, l);
                sort_ints(l, n);
                for (int x = 0; x < n; x++)
                    rows[u * P + l[x]]++;
            }
        /* folded ranks get their column from u: count it as all rows once */
        for (int u = 0; u < e; u++)
            for (int o = 0; o < p; o++)
                rows[(u + pp) * P + o] = rows[u * P + o];
        check_all_once(rows, p, "rdb", 0);
        free(l);
        free(rows);
    }
}

/* ------------------------------------------------------------------ hierarchical block order */

static void sim_hier(int p, const int *node_of, int nnodes) {
    size_t P = (size_t)p;
    unsigned char *got = calloc(P * P, 1);
    int *ma = malloc(P * sizeof(int)), *mb = malloc(P * sizeof(int));
    assert_non_null(got);
    assert_non_null(ma);
    assert_non_null(mb);
    int tot = 0;
    for (int A = 0; A < nnodes; A++) {
        int na = ac_a2a_node_members(node_of, p, A, ma);
        tot += na;
        for (int x = 1; x < na; x++)
            assert_true(ma[x] > ma[x - 1]);
        for (int B = 0; B < nnodes; B++) {
            int nb = ac_a2a_node_members(node_of, p, B, mb);
            for (size_t t = 0; t < (size_t)na * (size_t)nb; t++) {
                int s, d;
                ac_a2a_hier_block(ma, na, mb, t, &s, &d);
                if (node_of[s] != A || node_of[d] != B) fail();
                got[(size_t)d * P + (size_t)s]++;
            }
        }
    }
    assert_int_equal(tot, p);
    check_all_once(got, p, "hier", nnodes);
    free(got);
    free(ma);
    free(mb);
}

static void test_hier_blocks(void **state) {
    (void)state;
    int *node_of = malloc(2048 * sizeof(int));
    assert_non_null(node_of);
    for (int p = 1; p && p <= 512; p = pnext(p, 40)) {
        for (int nn = 1; nn <= p && nn <= 9; nn++) {
            /* sequential (blocks of ceil(p/nn)), cyclic, and uneven (node of r = r^2 mod nn,
             * renumbered by lowest rank) */
            int per = (p + nn - 1) / nn, used = 0;
            for (int r = 0; r < p; r++)
                node_of[r] = r / per;
            for (int r = 0; r < p; r++)
                used = node_of[r] + 1 > used ? node_of[r] + 1 : used;
            sim_hier(p, node_of, used);
            for (int r = 0; r < p; r++)
                node_of[r] = r % nn;
            sim_hier(p, node_of, nn);
            int map[9], nmap = 0;
            for (int x = 0; x < 9; x++)
                map[x] = -1;
            for (int r = 0; r < p; r++) {
                int raw = (int)(((long long)r * r) % nn);
                if (map[raw] < 0) map[raw] = nmap++;
                node_of[r] = map[raw];
            }
            sim_hier(p, node_of, nmap);
        }
    }
    free(node_of);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_te3_cost_tables), cmocka_unit_test(test_te_delivery),
        cmocka_unit_test(test_bruck_delivery),  cmocka_unit_test(test_ring_pair),
        cmocka_unit_test(test_mesh_rows),       cmocka_unit_test(test_rdb_rows),
        cmocka_unit_test(test_hier_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
