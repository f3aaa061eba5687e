/*
 * Shared-link cost and relay step of grid_adaptive (src/coll/bcast/grid_relay.c;
 * docs/grid-bcast.md, "Relays"). Expected costs are worked out by hand from the formulas of
 * the file's header (spec adaptive-bcast-grid.md section 5 with the sites' links shared).
 *
 * The instance: 4 nodes, each its own cluster; sites {0, 1} (0 the root), {2}, {3}; o = 0,
 * L = 0, m = 10 bytes. Bandwidths (bytes/s): 0<->1 100 (same site), 0->2 and 1->2 10, 0->3 and
 * 1->3 either 10 (no load) or 2 (node 3's uplink loaded), every other pair 1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>
#include "coll/bcast/grid_relay.h"

typedef struct {
    double o[4], L[16], B[16];
    ac_grid_model_t M;
} inst4_t;

static const int site4[4] = {0, 0, 1, 2};
static const int clus4[4] = {0, 1, 2, 3};

static void inst4(inst4_t *I, double b3) {
    memset(I, 0, sizeof *I);
    for (int k = 0; k < 16; k++)
        I->B[k] = 1;
    I->B[0 * 4 + 1] = I->B[1 * 4 + 0] = 100;
    I->B[0 * 4 + 2] = I->B[1 * 4 + 2] = 10;
    I->B[0 * 4 + 3] = I->B[1 * 4 + 3] = b3;
    I->M.n = 4;
    I->M.m = 10;
    I->M.o = I->o;
    I->M.L = I->L;
    I->M.B = I->B;
}

/* One sender out of every site: the shared cost is the plain one. Two senders out of site 0
 * (0 -> 2 and 1 -> 3, each of rate 10, cap 10): each edge gets max(10 - 10, 10 / 2) = 5 B/s.
 * Root: children 1 (tail 10 / 5 = 2) and 2 (tail 0), sends 0.1 and 2: cost max(0.1 + 2,
 * 2.1 + 0) = 2.1; the plain model has 1 s per WAN edge: max(0.1 + 1, 1.1) = 1.1. */
static void test_shared_cost(void **state) {
    (void)state;
    inst4_t I;
    inst4(&I, 10);
    ac_grid_shared_t *s = ac_grid_shared_new(&I.M, site4);
    assert_non_null(s);
    ac_grid_eval_t *e = ac_grid_eval_new(4);
    int flat[4] = {-1, 0, 0, 0};
    assert_true(fabs(ac_grid_shared_cost(s, flat) - ac_grid_cost(e, &I.M, flat)) < 1e-12);
    assert_true(fabs(ac_grid_shared_cost(s, flat) - 2.1) < 1e-12);
    int two[4] = {-1, 0, 0, 1};
    assert_true(fabs(ac_grid_cost(e, &I.M, two) - 1.1) < 1e-12);
    assert_true(fabs(ac_grid_shared_cost(s, two) - 2.1) < 1e-12);
    /* the workspace is restored: the same trees again give the same costs */
    assert_true(fabs(ac_grid_shared_cost(s, flat) - 2.1) < 1e-12);
    assert_true(fabs(ac_grid_shared_cost(s, two) - 2.1) < 1e-12);
    ac_grid_eval_free(e);
    ac_grid_shared_free(s);
}

/* Loaded (0->3, 1->3 at 2 B/s): the flat tree costs 0.1 + 1 + 5 = 6.1. With 3 under 1 the
 * senders out of site 0 are 0 (rate 10) and 1 (rate 2): 0 -> 2 gets max(10 - 2, 5) = 8 B/s
 * (1.25 s), 1 -> 3 min(2, max(10 - 10, 5)) = 2 B/s (5 s); root sends 1 (tail 5) then 2:
 * max(0.1 + 5, 1.35) = 5.1. With 2 under 1 the same 5.1 (0 -> 3 at 2 B/s, 5 s, after 0.1).
 * Either way the step ends at 5.1 with one of 2, 3 under 1. Unloaded, no move helps: the flat
 * tree (2.1) is kept. A gain of 0.2 demands less than 0.8 x 6.1 = 4.88: the loaded flat tree
 * is kept. */
static void test_relay_refine(void **state) {
    (void)state;
    inst4_t I;
    inst4(&I, 2);
    ac_grid_shared_t *s = ac_grid_shared_new(&I.M, site4);
    assert_non_null(s);
    int par[4] = {-1, 0, 0, 0};
    long ne = 0;
    double c = ac_grid_relay_refine(s, clus4, 8, 0.02, par, &ne);
    assert_true(fabs(c - 5.1) < 1e-12);
    assert_int_equal(par[0], -1);
    assert_int_equal(par[1], 0);
    assert_true((par[2] == 1 && par[3] == 0) || (par[2] == 0 && par[3] == 1));
    assert_true(ne > 1);
    assert_true(fabs(ac_grid_shared_cost(s, par) - 5.1) < 1e-12);
    int keep[4] = {-1, 0, 0, 0};
    c = ac_grid_relay_refine(s, clus4, 8, 0.2, keep, NULL);
    assert_true(fabs(c - 6.1) < 1e-12);
    assert_int_equal(keep[2], 0);
    assert_int_equal(keep[3], 0);
    ac_grid_shared_free(s);

    inst4(&I, 10);
    s = ac_grid_shared_new(&I.M, site4);
    assert_non_null(s);
    int flat[4] = {-1, 0, 0, 0};
    c = ac_grid_relay_refine(s, clus4, 8, 0.0, flat, NULL);
    assert_true(fabs(c - 2.1) < 1e-12);
    for (int v = 1; v < 4; v++)
        assert_int_equal(flat[v], 0);
    ac_grid_shared_free(s);
}

/* Hedge: the unloaded instance costed with lambda = 0.1 x its cost on the loaded one (node
 * 3's uplink at 2 B/s). Flat tree: 2.1 + 0.1 x 6.1 = 2.71. With 2 (or 3) under 1: 2.1 + 0.1 x
 * 5.1 = 2.61, below 0.98 x 2.71 = 2.6558, so the step takes it (unhedged it keeps the flat
 * tree: test_relay_refine). Removing the hedge gives back the plain shared cost. */
static void test_relay_hedge(void **state) {
    (void)state;
    inst4_t I, W;
    inst4(&I, 10);
    inst4(&W, 2);
    ac_grid_shared_t *s = ac_grid_shared_new(&I.M, site4), *h = ac_grid_shared_new(&W.M, site4);
    assert_non_null(s);
    assert_non_null(h);
    ac_grid_shared_hedge(s, h, 0.1);
    int par[4] = {-1, 0, 0, 0};
    assert_true(fabs(ac_grid_shared_cost(s, par) - 2.71) < 1e-12);
    double c = ac_grid_relay_refine(s, clus4, 8, 0.02, par, NULL);
    assert_true(fabs(c - 2.61) < 1e-12);
    assert_true((par[2] == 1 && par[3] == 0) || (par[2] == 0 && par[3] == 1));
    ac_grid_shared_hedge(s, NULL, 0);
    assert_true(fabs(ac_grid_shared_cost(s, par) - 2.1) < 1e-12);
    ac_grid_shared_free(s);
    ac_grid_shared_free(h);
}

/* Rotation: 3 nodes, 0 (the root) alone in site 0, clusters {1} and {2} in site 1; o = L = 0,
 * m = 10; 0 -> 1 at 1 B/s, 0 -> 2, 1 -> 2 and 2 -> 1 at 10 B/s. The tree 0 -> 1 -> 2 costs
 * 10 + 1 = 11; moving 2 under 0 costs max(10, 10 + 1) = 11 as well (no reparent move helps),
 * while 2 entering the site first (0 -> 2 -> 1) costs 1 + 1 = 2. */
static void test_relay_rotate(void **state) {
    (void)state;
    double o[3] = {0}, L[9] = {0}, B[9] = {1, 1, 10, 10, 1, 10, 10, 10, 1};
    const int site[3] = {0, 1, 1}, clus[3] = {0, 1, 2};
    ac_grid_model_t M = {3, 10, o, L, B};
    ac_grid_shared_t *s = ac_grid_shared_new(&M, site);
    assert_non_null(s);
    int par[3] = {-1, 0, 1};
    assert_true(fabs(ac_grid_shared_cost(s, par) - 11) < 1e-12);
    double c = ac_grid_relay_refine(s, clus, 8, 0.02, par, NULL);
    assert_true(fabs(c - 2) < 1e-12);
    assert_int_equal(par[1], 2);
    assert_int_equal(par[2], 0);
    ac_grid_shared_free(s);
}

/* The step keeps a spanning tree rooted at the root on a larger instance: 3 sites of 2
 * clusters of 4 nodes, random bandwidths, from a chain through the clusters. */
static void test_relay_tree(void **state) {
    (void)state;
    enum { N = 24 };
    static double o[N], L[N * N], B[N * N];
    int site[N], clus[N], par[N];
    uint64_t x = 12345;
    for (int v = 0; v < N; v++) {
        clus[v] = v / 4;
        site[v] = v / 8;
        o[v] = 1e-4;
    }
    for (int k = 0; k < N * N; k++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(x >> 11) / 9007199254740992.0;
        int a = k / N, b = k % N;
        B[k] = site[a] == site[b] ? 1e7 : 1e6 * (1 + 4 * u);
        L[k] = a == b ? 0 : site[a] == site[b] ? 1e-4 : 1e-2;
    }
    ac_grid_model_t M = {N, 1 << 20, o, L, B};
    for (int v = 0; v < N; v++)
        par[v] = v == 0 ? -1 : v % 4 == 0 ? v - 4 : v - v % 4;
    ac_grid_shared_t *s = ac_grid_shared_new(&M, site);
    assert_non_null(s);
    double c0 = ac_grid_shared_cost(s, par);
    double c = ac_grid_relay_refine(s, clus, 8, 0.0, par, NULL);
    assert_true(c <= c0);
    char err[128];
    assert_int_equal(ac_grid_check_parent(N, par, err, sizeof err), 0);
    for (int v = 1; v < N; v++) /* every cluster still entered by one edge */
        if (clus[par[v]] != clus[v]) assert_int_equal(v % 4, 0);
    ac_grid_shared_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_cost), cmocka_unit_test(test_relay_refine),
        cmocka_unit_test(test_relay_hedge), cmocka_unit_test(test_relay_rotate),
        cmocka_unit_test(test_relay_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
