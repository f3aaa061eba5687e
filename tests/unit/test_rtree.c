/*
 * Reduction-tree specifications (src/sched/rtree.c): parser errors, presets, structural
 * coverage (every rank a leaf exactly once) on many node layouts, the paper's split4W
 * placement, links, and a message-level simulation of the allreduce `tree` engine protocol
 * (pre-posted receive order equals send order per pair; every rank gets the final value once).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "sched/rtree.h"

/* Node layouts: ranks per node, in node order; cyclic = ranks dealt round-robin. */
typedef struct {
    int nn, ppn[40], cyclic;
} layout_t;

static int make_layout(const layout_t *l, int *node_of) {
    int p = 0;
    for (int n = 0; n < l->nn; n++)
        p += l->ppn[n];
    if (!l->cyclic) {
        int r = 0;
        for (int n = 0; n < l->nn; n++)
            for (int i = 0; i < l->ppn[n]; i++)
                node_of[r++] = n;
    } else {
        for (int r = 0; r < p; r++)
            node_of[r] = r % l->nn; /* uniform ppn only */
    }
    return p;
}

static const layout_t layouts[] = {
    {1, {1}, 0},
    {1, {2}, 0},
    {1, {11}, 0},
    {4, {8, 8, 8, 8}, 0},
    {8, {4, 4, 4, 4, 4, 4, 4, 4}, 0},
    {30,
     {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2},
     0},
    {10, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 0},
    {3, {3, 5, 1}, 0},
    {4, {4, 4, 4, 4}, 1},
    {2, {7, 4}, 0},
    {5, {1, 2, 3, 4, 5}, 0},
};
#define NLAYOUTS (int)(sizeof layouts / sizeof layouts[0])

static void build_ok(const char *spec, int p, const int *node_of, ac_rt_tree_t *t) {
    ac_rt_spec_t s;
    char err[256] = "";
    if (ac_rt_parse(spec, &s, err, sizeof err)) fail_msg("parse '%s': %s", spec, err);
    if (ac_rt_build(&s, p, node_of, t, err, sizeof err))
        fail_msg("build '%s' p=%d: %s", spec, p, err);
    if (ac_rt_check(t, err, sizeof err)) fail_msg("check '%s' p=%d: %s", spec, p, err);
}

/* ------------------------------------------------------------ engine protocol simulation */

/* Mirrors src/coll/allreduce/allreduce_tree.c: sends of rank x in program order, and the
 * receives rank y posts, per pair; reduce-phase messages carry the item key (leaves by rank,
 * then p + vertex). Checks that for every pair the receive order equals the send order and that
 * every rank obtains the final value exactly once from a rank that holds it. */
static void simulate(const ac_rt_tree_t *t, const int *node_of, int order) {
    int p = t->p;
    /* expected[x][y]: keys x sends to y in the reduce phase, in order; got likewise for y. */
    int *sent = calloc((size_t)p * (size_t)p, sizeof(int)),
        *posted = calloc((size_t)p * (size_t)p, sizeof(int));
    int cap = t->nv + p + 1;
    int *sk = malloc((size_t)p * (size_t)p * (size_t)cap * sizeof(int));
    int *rk = malloc((size_t)p * (size_t)p * (size_t)cap * sizeof(int));
    assert_non_null(sk);
    assert_non_null(rk);
#define SK(x, y) (sk + ((size_t)(x) * (size_t)p + (size_t)(y)) * (size_t)cap)
#define RK(x, y) (rk + ((size_t)(x) * (size_t)p + (size_t)(y)) * (size_t)cap)
    for (int x = 0; x < p; x++) {
        int lp = t->leaf_parent[x];
        if (lp >= 0 && t->v[lp].owner != x) {
            int y = t->v[lp].owner;
            SK(x, y)[sent[x * p + y]++] = x;
        }
        for (int v = 0; v < t->nv; v++) {
            if (t->v[v].owner != x) continue;
            int par = t->v[v].parent;
            if (par >= 0 && t->v[par].owner != x) {
                int y = t->v[par].owner;
                SK(x, y)[sent[x * p + y]++] = p + v;
            }
        }
    }
    for (int y = 0; y < p; y++) {
        /* Receives sorted by key: collect all remote children keys, then sort per source. */
        for (int key = 0; key < p + t->nv; key++) {
            int it = key < p ? AC_RT_LEAF(key) : key - p;
            int par = ac_rt_parent(t, it);
            if (par < 0 || t->v[par].owner != y) continue;
            int x = ac_rt_owner(t, it);
            if (x == y) continue;
            RK(x, y)[posted[x * p + y]++] = key;
        }
    }
    for (int x = 0; x < p; x++)
        for (int y = 0; y < p; y++) {
            assert_int_equal(sent[x * p + y], posted[x * p + y]);
            for (int i = 0; i < sent[x * p + y]; i++)
                assert_int_equal(SK(x, y)[i], RK(x, y)[i]);
        }
    /* Broadcast: process ranks in an order where a sender already holds the value. */
    int *has = calloc((size_t)p, sizeof(int)), *recv = calloc((size_t)p, sizeof(int));
    int root_owner = ac_rt_owner(t, t->root);
    has[root_owner] = 1;
    for (int round = 0; round < p; round++)
        for (int y = 0; y < p; y++) {
            int top = ac_rt_top(t, y), par = ac_rt_parent(t, top);
            if (par < 0) {
                assert_int_equal(y, root_owner);
                continue;
            }
            int x = t->v[par].owner;
            assert_int_not_equal(x, y);
            if (has[x] && !has[y]) {
                has[y] = 1;
                recv[y]++;
            }
        }
    for (int y = 0; y < p; y++) {
        assert_true(has[y]);
        assert_true(recv[y] == (y != root_owner));
    }
    (void)node_of;
    (void)order;
    free(has);
    free(recv);
    free(sent);
    free(posted);
    free(sk);
    free(rk);
#undef SK
#undef RK
}

/* ------------------------------------------------------------ tests */

static void test_presets_cover_every_rank(void **state) {
    (void)state;
    assert_true(ac_rt_npresets() >= 16);
    assert_null(ac_rt_preset_spec(ac_rt_npresets()));
    int node_of[256];
    for (int i = 0; i < ac_rt_npresets(); i++)
        for (int l = 0; l < NLAYOUTS; l++) {
            int p = make_layout(&layouts[l], node_of);
            ac_rt_tree_t t;
            build_ok(ac_rt_preset_spec(i), p, node_of, &t);
            simulate(&t, node_of, 0);
            ac_rt_free(&t);
        }
}

static void test_more_specs(void **state) {
    (void)state;
    static const char *specs[] = {
        "host=3;cluster=3",
        "host=2,3*;cluster=5*",
        "host=flat;cluster=2;links=3",
        "host=2*;cluster=flat;links=all;spread=off",
        "host=2,2;cluster=2*;split=2:own",
        "host=4;host@1-2=2*;cluster=3,2;order=static",
        "host=2*;cluster=2*;rootnode=1;split=5",
        "cluster=flat",
    };
    int node_of[256];
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        for (int l = 3; l < NLAYOUTS; l++) { /* multi-node layouts (rootnode=1 needs 2 nodes) */
            int p = make_layout(&layouts[l], node_of);
            ac_rt_tree_t t;
            build_ok(specs[i], p, node_of, &t);
            simulate(&t, node_of, 0);
            ac_rt_free(&t);
        }
}

static void expect_error(const char *spec, const char *needle) {
    ac_rt_spec_t s;
    char err[256] = "";
    int rc = ac_rt_parse(spec, &s, err, sizeof err);
    if (rc != -1) fail_msg("'%s' was accepted", spec ? spec : "(null)");
    if (!strstr(err, needle)) fail_msg("'%s': message '%s' lacks '%s'", spec, err, needle);
}

static void test_malformed(void **state) {
    (void)state;
    expect_error("", "empty tree specification");
    expect_error(NULL, "empty tree specification");
    expect_error("host=", "empty fan-in list");
    expect_error("host=1", "below 2");
    expect_error("host=abc", "bad fan-in 'abc'");
    expect_error("host=2,,2", "bad fan-in");
    expect_error("host=2,", "trailing ','");
    expect_error("host=2*,2", "'*' may only follow the last");
    expect_error("bogus=3", "unknown key 'bogus'");
    expect_error("host", "has no '='");
    expect_error("host=2;;cluster=2", "empty item");
    expect_error("host=2;", "trailing ';'");
    expect_error("links=0", "links");
    expect_error("links=many", "links");
    expect_error("split=3:sideways", "not 'own' or 'shift'");
    expect_error("split=x", "split: expected a count");
    expect_error("host@5-2=flat", "empty range");
    expect_error("host@5=flat", "bad node range");
    expect_error("spread=maybe", "spread");
    expect_error("order=arrival", "not supported");
    expect_error("order=sideways", "unknown value");
    expect_error("(0.0 r0 r1)", "not supported");
    expect_error("0-64:host=flat|65-:host=2", "not supported");
    expect_error("host=99999999999", "bad fan-in");
}

static void test_rootnode_out_of_range(void **state) {
    (void)state;
    ac_rt_spec_t s;
    ac_rt_tree_t t;
    char err[256] = "";
    int node_of[4] = {0, 0, 1, 1};
    assert_int_equal(ac_rt_parse("host=flat;rootnode=2", &s, err, sizeof err), 0);
    assert_int_equal(ac_rt_build(&s, 4, node_of, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "rootnode=2"));
}

/* Network links crossed on the way from rank r's leaf to the root. */
static int hops(const ac_rt_tree_t *t, const int *node_of, int r) {
    int h = 0, it = AC_RT_LEAF(r);
    while (ac_rt_parent(t, it) >= 0) {
        int par = ac_rt_parent(t, it);
        if (node_of[ac_rt_owner(t, it)] != node_of[t->v[par].owner]) h++;
        it = par;
    }
    return h;
}

static int preset(const char *name) {
    for (int i = 0; i < ac_rt_npresets(); i++)
        if (!strcmp(ac_rt_preset_name(i), name)) return i;
    fail_msg("no preset %s", name);
    return -1;
}

static void test_split4W(void **state) {
    (void)state;
    int node_of[32];
    int p = make_layout(&layouts[4], node_of); /* 8 nodes x 4 */
    ac_rt_tree_t t;
    build_ok(ac_rt_preset_spec(preset("split4W")), p, node_of, &t);
    int two = 0, has_cluster[8] = {0}, empty = 0;
    for (int r = 0; r < p; r++)
        two += hops(&t, node_of, r) == 2;
    for (int v = 0; v < t.nv; v++)
        if (t.v[v].kind == AC_RT_CLUSTER) has_cluster[node_of[t.v[v].owner]] = 1;
    for (int n = 0; n < 8; n++)
        empty += !has_cluster[n];
    assert_int_equal(two, 24);  /* seed 003 section 6.2: 24 threads gained a proxy */
    assert_int_equal(empty, 4); /* four hosts hold no cluster-root vertex */
    for (int n = 4; n < 8; n++)
        assert_false(has_cluster[n]);
    ac_rt_free(&t);
    /* Without the split every leaf crosses at most one link. */
    build_ok(ac_rt_preset_spec(preset("binary4W")), p, node_of, &t);
    for (int r = 0; r < p; r++)
        assert_true(hops(&t, node_of, r) <= 1);
    ac_rt_free(&t);
}

static void test_links_all(void **state) {
    (void)state;
    int node_of[32];
    int p = make_layout(&layouts[3], node_of); /* 4 nodes x 8 */
    ac_rt_tree_t t;
    build_ok("host=2,2,2;cluster=flat;links=all", p, node_of, &t);
    /* Every vertex runs on the root node: each leaf of another node crosses exactly once. */
    for (int v = 0; v < t.nv; v++)
        assert_int_equal(node_of[t.v[v].owner], 0);
    for (int r = 0; r < p; r++)
        assert_int_equal(hops(&t, node_of, r), node_of[r] ? 1 : 0);
    ac_rt_free(&t);
    build_ok("host=2,2,2;cluster=flat;links=2", p, node_of, &t);
    /* Nodes 1-3 send their two level-2 partial results: two vertices per node move. */
    int cross = 0;
    for (int v = 0; v < t.nv; v++)
        for (int c = 0; c < t.v[v].nchild; c++)
            if (node_of[ac_rt_owner(&t, t.v[v].child[c])] != node_of[t.v[v].owner]) cross++;
    assert_int_equal(cross, 6);
    ac_rt_free(&t);
}

static void test_shapes(void **state) {
    (void)state;
    int node_of[32];
    int p = make_layout(&layouts[3], node_of); /* 4 nodes x 8 */
    ac_rt_tree_t t;
    /* nary: one flat vertex per host plus one flat cluster vertex with 4 children. */
    build_ok(ac_rt_preset_spec(preset("flat")), p, node_of, &t);
    assert_int_equal(t.nv, 5);
    assert_int_equal(t.v[t.root].nchild, 4);
    ac_rt_free(&t);
    /* binary8W: 7 host vertices per node (8 leaves) and 3 cluster vertices. */
    build_ok(ac_rt_preset_spec(preset("binary8W")), p, node_of, &t);
    assert_int_equal(t.nv, 4 * 7 + 3);
    for (int v = 0; v < t.nv; v++)
        assert_int_equal(t.v[v].nchild, 2);
    ac_rt_free(&t);
    /* quad8W: fan-in 4 then 2 in each host. */
    build_ok(ac_rt_preset_spec(preset("quad8W")), p, node_of, &t);
    assert_int_equal(t.nv, 4 * 3 + 1);
    ac_rt_free(&t);
    /* Spread: cluster vertices of binary8W land on distinct ranks of node 0 first. */
    build_ok(ac_rt_preset_spec(preset("binary8W")), p, node_of, &t);
    for (int v = 0; v < t.nv; v++)
        if (t.v[v].kind == AC_RT_CLUSTER) assert_int_equal(node_of[t.v[v].owner], 0);
    ac_rt_free(&t);
}

static void test_check_detects_bad_trees(void **state) {
    (void)state;
    int node_of[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    ac_rt_tree_t t;
    char err[256];
    build_ok("host=2*", 8, node_of, &t);
    int saved = t.v[0].child[1];
    t.v[0].child[1] = t.v[0].child[0]; /* one rank twice, another missing */
    assert_int_equal(ac_rt_check(&t, err, sizeof err), -1);
    assert_non_null(strstr(err, "more than once"));
    t.v[0].child[1] = saved;
    assert_int_equal(ac_rt_check(&t, err, sizeof err), 0);
    t.v[0].owner = 8;
    assert_int_equal(ac_rt_check(&t, err, sizeof err), -1);
    ac_rt_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_presets_cover_every_rank),
        cmocka_unit_test(test_more_specs),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_rootnode_out_of_range),
        cmocka_unit_test(test_split4W),
        cmocka_unit_test(test_links_all),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_check_detects_bad_trees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
