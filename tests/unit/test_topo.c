/*
 * Topology files (src/topo/topo.h), checked without MPI:
 *  - every error kind of the validator (syntax, duplicate, unknown id, cycle, rank without
 *    machine, disconnected machine, missing rank) is reported with its file:line, several errors
 *    of one file are all reported;
 *  - the derived tree: pruning of leaf switches, machines with several ranks as NIC switches,
 *    path lengths of the spec 1.2 example (n0 -> n3 through s0, s1, s3 has length 3);
 *  - canonical text round trips (hand-written file with attributes, generated trees);
 *  - the random generator: machine and switch counts, determinism per seed, every machine
 *    reachable, ranks per machine;
 *  - the SimGrid writer: hosts, routers, links and routes of a small tree, host file;
 *  - mutation fuzzing: random edits of valid files never crash and every error line is located.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "topo/topo.h"

static int parse_str(const char *text, ac_topo_t **t, char **errs) {
    return ac_topo_parse(text, strlen(text), "t.topo", t, errs);
}

/* The file must fail with an error at `line` whose text contains `what`. */
static void expect_error(const char *text, int line, const char *what) {
    ac_topo_t *t = (ac_topo_t *)1;
    char *errs = NULL;
    int n = parse_str(text, &t, &errs);
    char head[64];
    snprintf(head, sizeof head, "t.topo:%d: ", line);
    if (n < 1 || t != NULL || !errs || !strstr(errs, head) || !strstr(errs, what)) {
        print_message("input:\n%s\nerrors (%d):\n%s\nexpected %s%s\n", text, n,
                      errs ? errs : "(none)", head, what);
        fail();
    }
    /* the located line carries the expected reason */
    const char *l = strstr(errs, head);
    const char *eol = strchr(l, '\n');
    const char *w = strstr(l, what);
    assert_true(w && eol && w < eol);
    free(errs);
}

static void test_errors(void **state) {
    (void)state;
    expect_error("switch\n", 1, "syntax");
    expect_error("switch s0\n\n# comment\nhub h0\n", 4, "syntax: unknown record");
    expect_error("switch s0 extra\n", 1, "syntax");
    expect_error("switch s0\nmachine n0 s0 bw=fast\n", 2, "syntax: bad value");
    expect_error("switch s0\nmachine n0 s0 color=red\n", 2, "syntax: unknown attribute");
    expect_error("switch s0\nmachine n0 s0\nrank x n0\n", 3, "syntax: bad rank");
    expect_error("switch s0\nmachine n<0> s0\n", 2, "syntax: bad id");
    expect_error("switch s0\nmachine n0 s0\nrank 0 n0 bw=1MBps\n", 3, "syntax");
    expect_error("switch s0\nswitch s0\n", 2, "duplicate");
    expect_error("switch s0\nmachine s0 s0\n", 2, "duplicate");
    expect_error("switch a\nswitch b\nlink a b\nlink b a\nmachine n0 a\n", 4, "duplicate");
    expect_error("switch s0\nmachine n0 s0\nmachine n1 s0\nrank 0 n0\nrank 0 n1\nrank 1 n1\n", 5,
                 "duplicate");
    expect_error("switch s0\nmachine n0 s9\n", 2, "unknown id");
    expect_error("switch s0\nmachine n0 s0\nlink s0 s7\n", 3, "unknown id");
    expect_error("switch s0\nswitch s1\nmachine n0 s0\nlink s0 n0\n", 4, "unknown id");
    expect_error("switch a\nswitch b\nswitch c\nlink a b\nlink b c\nlink c a\nmachine n a\n", 6,
                 "cycle");
    expect_error("switch a\nlink a a\nmachine n a\n", 2, "cycle");
    expect_error("switch s0\nmachine n0 s0\nrank 0 n0\nrank 1 n9\n", 4, "rank without machine");
    expect_error("switch s0\nmachine n0 s0\nrank 0 s0\n", 3, "rank without machine");
    expect_error("switch a\nswitch b\nmachine n0 a\nmachine n1 b\n", 4, "disconnected machine");
    expect_error("switch s0\nmachine n0 s0\nrank 0 n0\nrank 2 n0\n", 4, "rank 1 is missing");
    expect_error("# empty\n", 1, "no machine");
    {
        static const char nul[] = "switch s0\nmachine n0\0 s0\n";
        char *errs = NULL;
        ac_topo_t *t = NULL;
        assert_true(ac_topo_parse(nul, sizeof nul - 1, "t.topo", &t, &errs) >= 1);
        assert_non_null(strstr(errs, "t.topo:2: syntax"));
        free(errs);
    }
    /* every error of a file is reported, each on its line */
    {
        const char *bad = "switch a\nswitch a\nmachine n0 zz\nlink a q\nbogus\nrank 0 nx\n";
        char *errs = NULL;
        ac_topo_t *t = NULL;
        int n = parse_str(bad, &t, &errs);
        assert_int_equal(n, 5);
        assert_non_null(strstr(errs, "t.topo:2: duplicate"));
        assert_non_null(strstr(errs, "t.topo:3: unknown id"));
        assert_non_null(strstr(errs, "t.topo:4: unknown id"));
        assert_non_null(strstr(errs, "t.topo:5: syntax"));
        assert_non_null(strstr(errs, "t.topo:6: rank without machine"));
        free(errs);
    }
    /* unreadable file */
    {
        char *errs = NULL;
        ac_topo_t *t = NULL;
        assert_int_equal(ac_topo_load("/nonexistent/x.topo", &t, &errs), 1);
        assert_null(t);
        assert_non_null(strstr(errs, "/nonexistent/x.topo:0: cannot read"));
        free(errs);
    }
}

/* Spec 1.2 example shape: s0 - s1 - s3 with n0 on s0 and n3 on s3; s2 hangs off s1 empty
 * (a leaf switch, pruned), n1 and n2 share machine m12 (two ranks: NIC switch). */
static const char *EXAMPLE = "# example\n"
                             "switch s0\nswitch s1\nswitch s2\nswitch s3\n"
                             "link s0 s1 bw=125MBps lat=5us\nlink s1 s2\nlink s1 s3\n"
                             "machine n0 s0 bw=12.5MBps lat=30us speed=2Gf\n"
                             "machine m12 s1\nmachine n3 s3\n"
                             "rank 0 n0\nrank 1 m12\nrank 2 m12\nrank 3 n3\n";

static void test_tree(void **state) {
    (void)state;
    ac_topo_t *t = NULL;
    char *errs = NULL;
    assert_int_equal(parse_str(EXAMPLE, &t, &errs), 0);
    assert_null(errs);
    assert_int_equal(t->nranks, 4);
    /* vertices: 4 ranks, s0 s1 s3 (s2 pruned), NIC of m12 */
    assert_int_equal(t->nv, 8);
    assert_int_equal(t->root, 4);
    int nsw = 0, nnic = 0;
    for (int v = 0; v < t->nv; v++) {
        nsw += t->kind[v] == AC_TV_SWITCH;
        nnic += t->kind[v] == AC_TV_NIC;
        if (t->kind[v] == AC_TV_SWITCH) assert_true(strcmp(t->sw_name[t->orig[v]], "s2") != 0);
    }
    assert_int_equal(nsw, 3);
    assert_int_equal(nnic, 1);
    assert_int_equal(t->kind[t->parent[1]], AC_TV_NIC);
    assert_int_equal(t->parent[1], t->parent[2]);
    assert_int_equal(ac_topo_hops(t, 0, 3), 3); /* s0, s1, s3 */
    assert_int_equal(ac_topo_hops(t, 1, 2), 1); /* through the NIC only */
    assert_int_equal(ac_topo_hops(t, 0, 1), 3); /* s0, s1, NIC */
    int path[32];
    int np = ac_topo_path(t, 0, 3, path);
    assert_int_equal(np, 4);
    assert_int_equal(path[0], 0);         /* up from rank 0 */
    assert_int_equal(path[3], 2 * 3 + 1); /* down into rank 3 */
    for (int v = 0; v < t->nv; v++)
        assert_true(t->nleaves[v] >= 1);
    assert_int_equal(t->nleaves[t->root], 4);
    assert_string_equal(ac_topo_rank_host(t, 2), "m12");
    ac_topo_free(t);
}

static void round_trip(const char *text) {
    ac_topo_t *a = NULL, *b = NULL;
    char *errs = NULL;
    assert_int_equal(parse_str(text, &a, &errs), 0);
    char *f1 = ac_topo_format(a);
    assert_int_equal(parse_str(f1, &b, &errs), 0);
    char *f2 = ac_topo_format(b);
    assert_string_equal(f1, f2);
    assert_int_equal(a->nv, b->nv);
    assert_memory_equal(a->parent, b->parent, (size_t)a->nv * sizeof *a->parent);
    free(f1), free(f2);
    ac_topo_free(a), ac_topo_free(b);
}

static void test_round_trip(void **state) {
    (void)state;
    round_trip(EXAMPLE);
    assert_non_null(strstr(EXAMPLE, "bw=125MBps"));
    {
        ac_topo_t *a = NULL;
        assert_int_equal(parse_str(EXAMPLE, &a, NULL), 0);
        char *f = ac_topo_format(a);
        assert_non_null(strstr(f, "link s0 s1 bw=125MBps lat=5us\n"));
        assert_non_null(strstr(f, "machine n0 s0 bw=12.5MBps lat=30us speed=2Gf\n"));
        assert_non_null(strstr(f, "rank 2 m12\n"));
        free(f);
        ac_topo_free(a);
    }
    for (int k = 0; k < 40; k++) {
        char *g = ac_topo_generate(1 + k * 13, 1.0 + k % 9, (uint64_t)k, 1 + k % 3);
        assert_non_null(g);
        round_trip(g);
        free(g);
    }
}

static void test_generator(void **state) {
    (void)state;
    for (int k = 0; k < 60; k++) {
        int n = 1 + (k * 37) % 1024;
        double mean = (k % 4 == 0) ? 8 : (k % 4 == 1) ? 16 : (k % 4 == 2) ? 3 : 1.5;
        int ppn = 1 + k % 4;
        char *g = ac_topo_generate(n, mean, 1000 + (uint64_t)k, ppn);
        char *g2 = ac_topo_generate(n, mean, 1000 + (uint64_t)k, ppn);
        char *g3 = ac_topo_generate(n, mean, 2000 + (uint64_t)k, ppn);
        assert_string_equal(g, g2);                                  /* deterministic */
        if (n > 20 && mean < n / 2) assert_true(strcmp(g, g3) != 0); /* seed matters */
        ac_topo_t *t = NULL;
        char *errs = NULL;
        assert_int_equal(parse_str(g, &t, &errs), 0);
        assert_int_equal(t->nmach, n);
        assert_int_equal(t->nranks, n * ppn);
        long ns = lround(n / mean);
        if (ns < 1) ns = 1;
        if (ns > n) ns = n;
        assert_int_equal(t->nsw, ns);
        assert_int_equal(t->nlink, ns - 1);
        for (int r = 0; r < t->nranks; r++)
            assert_int_equal(t->rank_mach[r], r / ppn);
        /* derived tree: connected, every rank a leaf, no switch leaf */
        assert_int_equal(t->nleaves[t->root], t->nranks);
        for (int v = t->nranks; v < t->nv; v++)
            assert_true(t->cstart[v + 1] > t->cstart[v]);
        for (int r = 0; r < t->nranks; r++)
            assert_int_equal(t->cstart[r + 1], t->cstart[r]);
        ac_topo_free(t);
        free(g), free(g2), free(g3);
    }
    assert_null(ac_topo_generate(0, 8, 1, 1));
    assert_null(ac_topo_generate(10, 0, 1, 1));
}

static void test_simgrid(void **state) {
    (void)state;
    ac_topo_t *t = NULL;
    assert_int_equal(parse_str(EXAMPLE, &t, NULL), 0);
    char *x = NULL, *h = NULL;
    size_t xl = 0, hl = 0;
    FILE *fx = open_memstream(&x, &xl), *fh = open_memstream(&h, &hl);
    assert_int_equal(ac_topo_write_simgrid(t, "ex", fx, fh), 0);
    fclose(fx), fclose(fh);
    assert_non_null(strstr(x, "<platform version=\"4.1\">"));
    assert_non_null(strstr(x, "<zone id=\"ex\" routing=\"Floyd\">"));
    assert_non_null(strstr(x, "<host id=\"n0\" speed=\"2Gf\" core=\"1\"/>"));
    assert_non_null(strstr(x, "<host id=\"m12\" speed=\"1Gf\" core=\"2\"/>"));
    assert_non_null(strstr(x, "<router id=\"s3\"/>"));
    assert_null(strstr(x, "\"s2\"")); /* pruned */
    assert_non_null(strstr(x, "<link id=\"nic0\" bandwidth=\"12.5MBps\" latency=\"30us\""));
    assert_non_null(strstr(x, "<link id=\"isl0\" bandwidth=\"125MBps\" latency=\"5us\""));
    assert_non_null(strstr(x, "<link id=\"isl2\" bandwidth=\"12.5MBps\" latency=\"10us\""));
    assert_non_null(strstr(x, "<route src=\"n0\" dst=\"s0\" symmetrical=\"NO\"><link_ctn "
                              "id=\"nic0\" direction=\"UP\"/></route>"));
    assert_non_null(strstr(x, "<route src=\"s3\" dst=\"s1\" symmetrical=\"NO\"><link_ctn "
                              "id=\"isl2\" direction=\"DOWN\"/></route>"));
    /* routes: 2 per machine with ranks (3) + 2 per kept link (2) */
    int nroute = 0;
    for (const char *p = x; (p = strstr(p, "<route ")); p++)
        nroute++;
    assert_int_equal(nroute, 10);
    assert_string_equal(h, "n0\nm12\nm12\nn3\n");
    free(x), free(h);
    ac_topo_free(t);
}

/* Mutations of valid files: must never crash; every reported error is located. */
static void test_fuzz(void **state) {
    (void)state;
    ac_rng_t rng = {12345};
    static const char *pieces[] = {"switch",      "machine", "link", "rank",      " ",  "\n", "#",
                                   "=",           "bw=",     "lat=", "s0",        "n1", "0",  "-1",
                                   "99999999999", "\t",      "\r",   "speed=1Gf", "x"};
    char *base = ac_topo_generate(12, 3, 7, 2);
    size_t bl = strlen(base);
    char *buf = malloc(bl + 4096);
    int ok = 0, bad = 0;
    for (int it = 0; it < 4000; it++) {
        memcpy(buf, base, bl);
        size_t n = bl;
        int edits = 1 + (int)ac_rng_below(&rng, 6);
        for (int e = 0; e < edits; e++) {
            size_t at = ac_rng_below(&rng, (uint32_t)n + 1);
            switch (ac_rng_below(&rng, 4)) {
            case 0: /* delete a span */
            {
                size_t len = ac_rng_below(&rng, 20);
                if (at + len > n) len = n - at;
                memmove(buf + at, buf + at + len, n - at - len);
                n -= len;
            } break;
            case 1: /* random byte */
                if (at < n) buf[at] = (char)ac_rng_below(&rng, 256);
                break;
            default: /* insert a piece */
            {
                const char *p = pieces[ac_rng_below(&rng, sizeof pieces / sizeof *pieces)];
                size_t len = strlen(p);
                if (n + len > bl + 4000) break;
                memmove(buf + at + len, buf + at, n - at);
                memcpy(buf + at, p, len);
                n += len;
            }
            }
        }
        ac_topo_t *t = NULL;
        char *errs = NULL;
        int ne = ac_topo_parse(buf, n, "f", &t, &errs);
        if (ne == 0) {
            assert_non_null(t);
            assert_int_equal(t->nleaves[t->root], t->nranks);
            ok++;
        } else {
            assert_null(t);
            assert_non_null(errs);
            for (const char *l = errs; *l; l = strchr(l, '\n') + 1)
                assert_true(l[0] == 'f' && l[1] == ':');
            bad++;
        }
        ac_topo_free(t);
        free(errs);
    }
    assert_true(ok > 0 && bad > 0);
    free(buf), free(base);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors),     cmocka_unit_test(test_tree),
        cmocka_unit_test(test_round_trip), cmocka_unit_test(test_generator),
        cmocka_unit_test(test_simgrid),    cmocka_unit_test(test_fuzz),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
