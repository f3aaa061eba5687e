/*
 * Tuning tables without an MPI runtime: round trip (write -> load -> same rules, provenance and
 * lookups), matching order, and every class of malformed input. Each malformed input must be
 * reported with a JSON location, must not crash, and must keep the good rules next to it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>
#include "select/table.h"

/* ---------------------------------------------------------------- problem collector */

typedef struct {
    int n;
    char text[64][320]; /* "where: msg" */
} reports_t;

static void collect(void *arg, const char *where, const char *msg) {
    reports_t *r = arg;
    if (r->n < 64) snprintf(r->text[r->n], sizeof r->text[0], "%s: %s", where, msg);
    r->n++;
}

static int reported(const reports_t *r, const char *needle) {
    for (int i = 0; i < r->n && i < 64; i++)
        if (strstr(r->text[i], needle)) return 1;
    return 0;
}

static void dump(const reports_t *r) {
    for (int i = 0; i < r->n && i < 64; i++)
        fprintf(stderr, "  | %s\n", r->text[i]);
}

static autocoll_table_t *parse(const char *json, reports_t *r, int *np) {
    memset(r, 0, sizeof *r);
    return autocoll_table_parse(json, strlen(json), collect, r, np);
}

#define HEAD "{\"schema\":\"autocoll-tuning-table\",\"version\":1,"
#define GOOD                                                                                       \
    "{\"collective\":\"allgather\",\"comm_size\":[4,4],\"nodes\":0,\"ppn\":0,"                     \
    "\"bytes\":[0,null],\"algorithm\":\"bruck\"}"

/* One bad rule between two good ones: the file loads, the bad rule is reported at rules[1]
 * with where/what, and both good rules survive. */
static void bad_rule(const char *rule, const char *where, const char *what) {
    char json[4096];
    reports_t r;
    int np = -1;
    snprintf(json, sizeof json, HEAD "\"rules\":[%s,%s,%s]}", GOOD, rule, GOOD);
    autocoll_table_t *t = parse(json, &r, &np);
    if (!t || np < 1 || !reported(&r, where) || !reported(&r, what) ||
        autocoll_table_rule_count(t) != 2) {
        fprintf(stderr, "rule %s: expected '%s' ... '%s'; %d problems:\n", rule, where, what, np);
        dump(&r);
    }
    assert_non_null(t);
    assert_true(np >= 1);
    assert_int_equal(np, r.n);
    assert_true(reported(&r, where));
    assert_true(reported(&r, what));
    assert_int_equal(autocoll_table_rule_count(t), 2);
    autocoll_table_free(t);
}

/* The whole file is refused, with a located message. */
static void bad_file(const char *json, size_t len, const char *where) {
    reports_t r;
    memset(&r, 0, sizeof r);
    int np = -1;
    autocoll_table_t *t = autocoll_table_parse(json, len, collect, &r, &np);
    if (t || np < 1 || !reported(&r, where)) {
        fprintf(stderr, "file %.80s: expected refusal at '%s'\n", json, where);
        dump(&r);
    }
    assert_null(t);
    assert_true(np >= 1);
    assert_true(reported(&r, where));
}

/* ---------------------------------------------------------------- round trip */

static void test_round_trip(void **state) {
    (void)state;
    autocoll_table_t *t = autocoll_table_new();
    assert_non_null(t);
    assert_int_equal(autocoll_table_set_info(t, "mpi_library", "Open MPI v4.1.4"), MPI_SUCCESS);
    assert_int_equal(autocoll_table_set_info(t, "p", "16"), MPI_SUCCESS);
    assert_int_equal(autocoll_table_set_info(t, "p", "sixteen"), MPI_ERR_ARG);
    assert_int_equal(autocoll_table_set_info(t, "hosts", "n0,n1,n2"), MPI_SUCCESS);
    assert_int_equal(autocoll_table_set_info(t, "timing", "mpptest+barrier"), MPI_SUCCESS);
    assert_int_equal(autocoll_table_set_info(t, "note \"quoted\"", "a\nb"), MPI_SUCCESS);
    assert_int_equal(autocoll_table_set_info(t, "gone", "x"), MPI_SUCCESS);
    assert_int_equal(autocoll_table_set_info(t, "gone", NULL), MPI_SUCCESS);

    struct {
        int coll, pmin, pmax, nodes, ppn;
        unsigned long long lo, hi;
        const char *inst;
    } rules[] = {
        {AUTOCOLL_ALLGATHER, 16, 16, 2, 8, 0, 8718, "linear"},
        {AUTOCOLL_ALLGATHER, 16, 16, 0, 0, 8718, 31718, "pair_lb"},
        {AUTOCOLL_ALLGATHER, 16, 16, 0, 0, 31718, 72032, "pair_nbar:n=4"},
        {AUTOCOLL_ALLGATHER, 16, 16, 0, 0, 72032, 0, "pair_mpib"},
        {AUTOCOLL_BCAST, 1, INT_MAX, 0, 0, 0, 0, "pipe_kary:k=3,seg=2048"},
        {AUTOCOLL_ALLREDUCE, 2, 64, 0, 0, 0, 0, "tree:spec=\"quad\""},
        {AUTOCOLL_ALLTOALLV, 4, 8, 0, 0, 0, 0, "ring_nbar:n=2"},
        {AUTOCOLL_BARRIER, 3, 3, 0, 0, 0, 0, "dissemination"},
        {AUTOCOLL_REDUCE, 1, 1, 0, 0, 0, 1ULL << 62, "hier:inter=rab,intra=flat"},
    };
    int n = (int)(sizeof rules / sizeof rules[0]);
    for (int i = 0; i < n; i++)
        assert_int_equal(autocoll_table_add_rule(t, rules[i].coll, rules[i].pmin, rules[i].pmax,
                                                 rules[i].nodes, rules[i].ppn, rules[i].lo,
                                                 rules[i].hi, rules[i].inst),
                         MPI_SUCCESS);
    /* Invalid additions change nothing. */
    assert_int_equal(autocoll_table_add_rule(t, 99, 1, 2, 0, 0, 0, 0, "ring"), MPI_ERR_ARG);
    assert_int_equal(autocoll_table_add_rule(t, AUTOCOLL_BCAST, 5, 4, 0, 0, 0, 0, "binomial"),
                     MPI_ERR_ARG);
    assert_int_equal(autocoll_table_add_rule(t, AUTOCOLL_BCAST, 0, 4, 0, 0, 0, 0, "binomial"),
                     MPI_ERR_ARG);
    assert_int_equal(autocoll_table_add_rule(t, AUTOCOLL_BCAST, 1, 4, 0, 0, 10, 10, "binomial"),
                     MPI_ERR_ARG);
    assert_int_equal(autocoll_table_add_rule(t, AUTOCOLL_BCAST, 1, 4, 0, 0, 0, 0, "nope"),
                     MPI_ERR_ARG);
    assert_int_equal(
        autocoll_table_add_rule(t, AUTOCOLL_BCAST, 1, 4, 0, 0, 0, 0, "pipe_chain:seg=0"),
        MPI_ERR_ARG);
    assert_int_equal(autocoll_table_add_rule(t, AUTOCOLL_ALLTOALLV, 1, 4, 0, 0, 0, 100, "ring"),
                     MPI_ERR_ARG);
    assert_int_equal(autocoll_table_rule_count(t), n);

    char path[] = "/tmp/ac_table_testXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(autocoll_table_write(t, path), MPI_SUCCESS);

    reports_t r;
    memset(&r, 0, sizeof r);
    int np = -1;
    autocoll_table_t *u = autocoll_table_load(path, collect, &r, &np);
    if (np) dump(&r);
    assert_non_null(u);
    assert_int_equal(np, 0);
    assert_int_equal(autocoll_table_rule_count(u), n);
    for (int i = 0; i < n; i++) {
        const ac_rule_t *a = &t->rules[i], *b = &u->rules[i];
        char sa[512], sb[512];
        assert_int_equal(a->coll, b->coll);
        assert_int_equal(a->pmin, b->pmin);
        assert_int_equal(a->pmax, b->pmax);
        assert_int_equal(a->nodes, b->nodes);
        assert_int_equal(a->ppn, b->ppn);
        assert_true(a->lo == b->lo && a->hi == b->hi);
        ac_inst_format(&a->inst, sa, sizeof sa);
        ac_inst_format(&b->inst, sb, sizeof sb);
        assert_string_equal(sa, sb);
    }
    assert_string_equal(autocoll_table_get_info(u, "mpi_library"), "Open MPI v4.1.4");
    assert_string_equal(autocoll_table_get_info(u, "p"), "16");
    assert_string_equal(autocoll_table_get_info(u, "hosts"), "n0,n1,n2");
    assert_string_equal(autocoll_table_get_info(u, "note \"quoted\""), "a\nb");
    assert_null(autocoll_table_get_info(u, "gone"));

    /* Lookups on the loaded table: the STAGE-MPI example of spec section 4.3. */
    char buf[128];
    assert_int_equal(autocoll_table_lookup(u, AUTOCOLL_ALLGATHER, 16, 2, 8, 0, buf, sizeof buf), 1);
    assert_string_equal(buf, "linear");
    assert_int_equal(autocoll_table_lookup(u, AUTOCOLL_ALLGATHER, 16, 2, 8, 8717, buf, sizeof buf),
                     1);
    assert_string_equal(buf, "linear");
    /* linear is only for 2 x 8: any other layout falls through to the next range, none at 0. */
    assert_int_equal(autocoll_table_lookup(u, AUTOCOLL_ALLGATHER, 16, 4, 4, 100, buf, sizeof buf),
                     0);
    assert_int_equal(autocoll_table_lookup(u, AUTOCOLL_ALLGATHER, 16, 2, 8, 8718, buf, sizeof buf),
                     1);
    assert_string_equal(buf, "pair_lb");
    assert_int_equal(
        autocoll_table_lookup(u, AUTOCOLL_ALLGATHER, 16, 1, 16, 40000, buf, sizeof buf), 1);
    assert_string_equal(buf, "pair_nbar:n=4");
    assert_int_equal(
        autocoll_table_lookup(u, AUTOCOLL_ALLGATHER, 16, 0, 0, 1ULL << 40, buf, sizeof buf), 1);
    assert_string_equal(buf, "pair_mpib");
    assert_int_equal(autocoll_table_lookup(u, AUTOCOLL_ALLGATHER, 15, 0, 0, 100, buf, sizeof buf),
                     0);
    assert_int_equal(autocoll_table_lookup(u, AUTOCOLL_BCAST, 1000000, 0, 0, 7, buf, sizeof buf),
                     1);
    assert_string_equal(buf, "pipe_kary:k=3,seg=2048");
    assert_int_equal(autocoll_table_lookup(u, AUTOCOLL_ALLREDUCE, 8, 0, 0, 7, buf, sizeof buf), 1);
    assert_string_equal(buf, "tree:spec=quad");
    assert_int_equal(autocoll_table_lookup(u, AUTOCOLL_REDUCE, 1, 0, 0, 1ULL << 62, buf, 8), 0);
    /* Truncated output is still terminated. */
    assert_int_equal(autocoll_table_lookup(u, AUTOCOLL_BCAST, 3, 0, 0, 7, buf, 6), 1);
    assert_string_equal(buf, "pipe_");

    /* Writing the loaded table again gives the same bytes. */
    char path2[] = "/tmp/ac_table_test2XXXXXX";
    fd = mkstemp(path2);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(autocoll_table_write(u, path2), MPI_SUCCESS);
    FILE *f1 = fopen(path, "rb"), *f2 = fopen(path2, "rb");
    assert_non_null(f1);
    assert_non_null(f2);
    static char b1[65536], b2[65536];
    size_t l1 = fread(b1, 1, sizeof b1, f1), l2 = fread(b2, 1, sizeof b2, f2);
    fclose(f1);
    fclose(f2);
    assert_int_equal(l1, l2);
    assert_memory_equal(b1, b2, l1);
    unlink(path);
    unlink(path2);
    assert_int_equal(autocoll_table_write(u, "/nonexistent-dir/x.json"), MPI_ERR_FILE);
    autocoll_table_free(t);
    autocoll_table_free(u);
}

static void test_first_match_wins(void **state) {
    (void)state;
    reports_t r;
    int np;
    autocoll_table_t *t = parse(
        HEAD "\"rules\":["
             "{\"collective\":\"bcast\",\"comm_size\":[4,8],\"bytes\":[0,1024],\"algorithm\":"
             "\"binomial\"},"
             "{\"collective\":\"bcast\",\"bytes\":[0,null],\"algorithm\":\"scatter_ring\"},"
             "{\"collective\":\"bcast\",\"comm_size\":[4,8],\"bytes\":[0,null],\"algorithm\":"
             "\"flat\"},"
             "{\"collective\":\"bcast\",\"comm_size\":[1,null],\"nodes\":2,\"ppn\":4,\"bytes\":"
             "[10,20],\"algorithm\":\"linear\"}]}",
        &r, &np);
    assert_non_null(t);
    assert_int_equal(np, 0);
    const ac_rule_t *m[8];
    assert_int_equal(ac_table_matches(t, AUTOCOLL_BCAST, 4, 2, 4, 0, m, 8), 3);
    assert_string_equal(m[0]->inst.alg->name, "binomial");
    assert_string_equal(m[1]->inst.alg->name, "scatter_ring");
    assert_string_equal(m[2]->inst.alg->name, "flat");
    assert_int_equal(ac_table_matches(t, AUTOCOLL_BCAST, 4, 2, 4, 15, m, 8), 4);
    assert_string_equal(m[3]->inst.alg->name, "linear");
    assert_int_equal(ac_table_matches(t, AUTOCOLL_BCAST, 4, 2, 4, 15, m, 2), 2);
    assert_int_equal(ac_table_matches(t, AUTOCOLL_BCAST, 9, 2, 4, 1024, m, 8), 1);
    assert_string_equal(m[0]->inst.alg->name, "scatter_ring");
    assert_int_equal(ac_table_matches(t, AUTOCOLL_REDUCE, 4, 2, 4, 0, m, 8), 0);
    assert_int_equal(ac_table_matches(NULL, AUTOCOLL_BCAST, 4, 2, 4, 0, m, 8), 0);
    autocoll_table_free(t);
}

/* ---------------------------------------------------------------- malformed files */

static void test_refused_files(void **state) {
    (void)state;
    bad_file("", 0, "line");
    bad_file("hello", 5, "line 1");
    bad_file("{\"schema\":", 10, "line");
    bad_file("[]", 2, "file");
    bad_file("42", 2, "line"); /* jansson refuses a non-container at the top level */
    bad_file(HEAD "\"rules\":[]}", 5, "line 1");
    bad_file("{\"schema\":\"other\",\"version\":1,\"rules\":[]}", 41, "schema");
    bad_file("{\"version\":1,\"rules\":[]}", 24, "schema");
    bad_file("{\"schema\":1,\"version\":1,\"rules\":[]}", 35, "schema");
    bad_file("{\"schema\":\"autocoll-tuning-table\",\"version\":2,\"rules\":[]}", 57, "version");
    bad_file("{\"schema\":\"autocoll-tuning-table\",\"version\":\"1\",\"rules\":[]}", 59,
             "version");
    bad_file("{\"schema\":\"autocoll-tuning-table\",\"version\":1.0,\"rules\":[]}", 59, "version");
    bad_file("{\"schema\":\"autocoll-tuning-table\",\"version\":1}", 46, "rules");
    bad_file(HEAD "\"rules\":{}}", strlen(HEAD "\"rules\":{}}"), "rules");
    bad_file(HEAD "\"rules\":\"x\"}", strlen(HEAD "\"rules\":\"x\"}"), "rules");
    /* Duplicate keys, integers beyond 64 bits and NUL bytes are JSON-level refusals. */
    const char *dup = HEAD "\"version\":1,\"rules\":[]}";
    bad_file(dup, strlen(dup), "line 1");
    const char *dup2 = HEAD "\"rules\":[{\"collective\":\"bcast\",\"collective\":\"bcast\","
                            "\"algorithm\":\"flat\"}]}";
    bad_file(dup2, strlen(dup2), "line 1");
    const char *big = HEAD "\"rules\":[{\"collective\":\"bcast\",\"bytes\":[0,"
                           "1180591620717411303424],\"algorithm\":\"flat\"}]}";
    bad_file(big, strlen(big), "line 1");
    const char nul[] = HEAD "\"rules\":[]\0}";
    bad_file(nul, sizeof nul - 1, "line 1");

    /* Truncated at every length: never a table, always a located message. */
    char full[2048];
    snprintf(full, sizeof full,
             HEAD "\"provenance\":{\"p\":4,\"hosts\":[\"a\",\"b\"]},\"rules\":[%s,%s]}", GOOD,
             GOOD);
    size_t len = strlen(full);
    for (size_t cut = 0; cut < len; cut++) {
        reports_t r;
        memset(&r, 0, sizeof r);
        int np = 0;
        autocoll_table_t *t = autocoll_table_parse(full, cut, collect, &r, &np);
        assert_null(t);
        assert_true(np >= 1);
        assert_true(reported(&r, "line") || reported(&r, "file"));
    }
    reports_t r;
    int np;
    autocoll_table_t *t = parse(full, &r, &np);
    assert_non_null(t);
    assert_int_equal(np, 0);
    assert_int_equal(autocoll_table_rule_count(t), 2);
    autocoll_table_free(t);

    /* Deep nesting: refused by jansson's depth limit, anywhere. */
    size_t deep = 10000;
    char *d = malloc(deep + 256);
    assert_non_null(d);
    memset(d, '[', deep);
    bad_file(d, deep, "line 1");
    int k = sprintf(d, HEAD "\"rules\":[");
    memset(d + k, '[', deep);
    bad_file(d, (size_t)k + deep, "line 1");
    free(d);

    /* No data, missing file. */
    memset(&r, 0, sizeof r);
    assert_null(autocoll_table_parse(NULL, 0, collect, &r, &np));
    assert_int_equal(np, 1);
    assert_null(autocoll_table_load("/nonexistent/table.json", collect, &r, &np));
    assert_int_equal(np, 1);
    assert_null(autocoll_table_load("/nonexistent/table.json", NULL, NULL, NULL));
    /* A directory is not a table. */
    memset(&r, 0, sizeof r);
    assert_null(autocoll_table_load("/tmp", collect, &r, &np));
    assert_true(np >= 1);
}

static void test_bad_rules(void **state) {
    (void)state;
    /* Unknown names. */
    bad_rule("{\"collective\":\"allgatherz\",\"algorithm\":\"ring\"}", "rules[1].collective",
             "unknown collective 'allgatherz'");
    bad_rule("{\"collective\":\"allgather\",\"algorithm\":\"foo\"}", "rules[1].algorithm",
             "unknown allgather algorithm 'foo'");
    bad_rule("{\"collective\":\"bcast\",\"algorithm\":\"pipe_chain:segment=8\"}",
             "rules[1].algorithm", "no parameter 'segment'");
    bad_rule("{\"collective\":\"bcast\",\"algorithm\":\"pipe_chain:seg=0\"}", "rules[1].algorithm",
             "not an integer in");
    bad_rule("{\"collective\":\"bcast\",\"algorithm\":\"pipe_chain:seg=99999999999999999999\"}",
             "rules[1].algorithm", "not an integer in");
    bad_rule("{\"collective\":\"bcast\",\"algorithm\":\"pipe_chain:seg=12x\"}",
             "rules[1].algorithm", "not an integer in");
    bad_rule("{\"collective\":\"bcast\",\"algorithm\":\"hier:inter=ring\"}", "rules[1].algorithm",
             "not a bcast algorithm");
    bad_rule("{\"collective\":\"bcast\",\"algorithm\":\"\"}", "rules[1].algorithm", "unknown");
    bad_rule("{\"collective\":\"allreduce\",\"algorithm\":\"tree:spec=quad\\\"\"}",
             "rules[1].algorithm", "must not contain");
    /* Missing fields, unknown keys. */
    bad_rule("{\"algorithm\":\"ring\"}", "rules[1].collective", "missing");
    bad_rule("{\"collective\":\"bcast\"}", "rules[1].algorithm", "missing");
    bad_rule("{\"collective\":\"bcast\",\"algorithm\":\"flat\",\"byte\":[0,1]}", "rules[1].byte",
             "unknown key");
    bad_rule("{}", "rules[1].collective", "missing");
    /* Wrong types at every field. */
    bad_rule("[]", "rules[1]", "expected an object, got an array");
    bad_rule("null", "rules[1]", "expected an object, got null");
    bad_rule("\"bcast flat\"", "rules[1]", "expected an object, got a string");
    bad_rule("{\"collective\":4,\"algorithm\":\"flat\"}", "rules[1].collective",
             "expected a string, got an integer");
    bad_rule("{\"collective\":\"bcast\",\"algorithm\":[\"flat\"]}", "rules[1].algorithm",
             "got an array");
    bad_rule("{\"collective\":\"bcast\",\"algorithm\":{\"name\":\"flat\"}}", "rules[1].algorithm",
             "got an object");
    bad_rule("{\"collective\":\"bcast\",\"comm_size\":4,\"algorithm\":\"flat\"}",
             "rules[1].comm_size", "expected an array [min, max]");
    bad_rule("{\"collective\":\"bcast\",\"comm_size\":[4],\"algorithm\":\"flat\"}",
             "rules[1].comm_size", "another length");
    bad_rule("{\"collective\":\"bcast\",\"comm_size\":[1,2,3],\"algorithm\":\"flat\"}",
             "rules[1].comm_size", "another length");
    bad_rule("{\"collective\":\"bcast\",\"comm_size\":[\"1\",2],\"algorithm\":\"flat\"}",
             "rules[1].comm_size[0]", "got a string");
    bad_rule("{\"collective\":\"bcast\",\"comm_size\":[null,2],\"algorithm\":\"flat\"}",
             "rules[1].comm_size[0]", "got null");
    bad_rule("{\"collective\":\"bcast\",\"comm_size\":[1,2.5],\"algorithm\":\"flat\"}",
             "rules[1].comm_size[1]", "fraction or exponent");
    bad_rule("{\"collective\":\"bcast\",\"comm_size\":[1,true],\"algorithm\":\"flat\"}",
             "rules[1].comm_size[1]", "boolean");
    bad_rule("{\"collective\":\"bcast\",\"nodes\":\"2\",\"algorithm\":\"flat\"}", "rules[1].nodes",
             "got a string");
    bad_rule("{\"collective\":\"bcast\",\"nodes\":2.0,\"algorithm\":\"flat\"}", "rules[1].nodes",
             "fraction or exponent");
    bad_rule("{\"collective\":\"bcast\",\"ppn\":null,\"algorithm\":\"flat\"}", "rules[1].ppn",
             "got null");
    bad_rule("{\"collective\":\"bcast\",\"ppn\":[1],\"algorithm\":\"flat\"}", "rules[1].ppn",
             "got an array");
    bad_rule("{\"collective\":\"bcast\",\"bytes\":{\"lo\":0},\"algorithm\":\"flat\"}",
             "rules[1].bytes", "expected an array");
    bad_rule("{\"collective\":\"bcast\",\"bytes\":[0,\"inf\"],\"algorithm\":\"flat\"}",
             "rules[1].bytes[1]", "got a string");
    /* Huge numbers and negatives. */
    bad_rule("{\"collective\":\"bcast\",\"bytes\":[0,1e300],\"algorithm\":\"flat\"}",
             "rules[1].bytes[1]", "fraction or exponent");
    bad_rule("{\"collective\":\"bcast\",\"bytes\":[-1,10],\"algorithm\":\"flat\"}",
             "rules[1].bytes[0]", "out of range");
    bad_rule("{\"collective\":\"bcast\",\"comm_size\":[1,4294967296],\"algorithm\":\"flat\"}",
             "rules[1].comm_size[1]", "out of range");
    bad_rule("{\"collective\":\"bcast\",\"comm_size\":[-4,4],\"algorithm\":\"flat\"}",
             "rules[1].comm_size[0]", "out of range");
    bad_rule("{\"collective\":\"bcast\",\"comm_size\":[0,4],\"algorithm\":\"flat\"}",
             "rules[1].comm_size[0]", "out of range");
    bad_rule("{\"collective\":\"bcast\",\"nodes\":-1,\"algorithm\":\"flat\"}", "rules[1].nodes",
             "out of range");
    bad_rule("{\"collective\":\"bcast\",\"ppn\":9223372036854775807,\"algorithm\":\"flat\"}",
             "rules[1].ppn", "out of range");
    bad_rule("{\"collective\":\"bcast\",\"bytes\":[0,-9223372036854775808],\"algorithm\":"
             "\"flat\"}",
             "rules[1].bytes[1]", "out of range");
    /* Inconsistent ranges. */
    bad_rule("{\"collective\":\"bcast\",\"comm_size\":[8,4],\"algorithm\":\"flat\"}", "rules[1]",
             "minimum is larger than its maximum");
    bad_rule("{\"collective\":\"bcast\",\"bytes\":[10,10],\"algorithm\":\"flat\"}", "rules[1]",
             "empty range");
    bad_rule("{\"collective\":\"bcast\",\"bytes\":[11,10],\"algorithm\":\"flat\"}", "rules[1]",
             "empty range");
    bad_rule("{\"collective\":\"alltoallv\",\"bytes\":[0,1024],\"algorithm\":\"ring\"}", "rules[1]",
             "alltoallv rules must use bytes [0, null)");
    bad_rule("{\"collective\":\"alltoallv\",\"bytes\":[1,null],\"algorithm\":\"ring\"}", "rules[1]",
             "alltoallv");
    /* Several problems in one rule: each is reported. */
    reports_t r;
    int np;
    autocoll_table_t *t =
        parse(HEAD "\"rules\":[{\"collective\":\"bcast\",\"nodes\":-1,\"ppn\":1.5,\"bytes\":"
                   "[0],\"algorithm\":\"nope\",\"x\":1}]}",
              &r, &np);
    assert_non_null(t);
    assert_int_equal(autocoll_table_rule_count(t), 0);
    assert_int_equal(np, 5);
    assert_true(reported(&r, "rules[0].nodes"));
    assert_true(reported(&r, "rules[0].ppn"));
    assert_true(reported(&r, "rules[0].bytes"));
    assert_true(reported(&r, "rules[0].algorithm"));
    assert_true(reported(&r, "rules[0].x"));
    autocoll_table_free(t);
}

static void test_empty_and_other(void **state) {
    (void)state;
    reports_t r;
    int np;
    /* Empty rules: usable but reported. */
    autocoll_table_t *t = parse(HEAD "\"rules\":[]}", &r, &np);
    assert_non_null(t);
    assert_int_equal(np, 1);
    assert_true(reported(&r, "rules: empty"));
    autocoll_table_free(t);
    /* Unknown top-level key: reported, table kept. */
    t = parse(HEAD "\"rulez\":[],\"rules\":[" GOOD "]}", &r, &np);
    assert_non_null(t);
    assert_int_equal(np, 1);
    assert_true(reported(&r, "rulez: unknown top-level key"));
    assert_int_equal(autocoll_table_rule_count(t), 1);
    autocoll_table_free(t);
    /* Provenance: wrong types reported per key; unknown keys kept silently. */
    t = parse(HEAD "\"provenance\":{\"p\":\"16\",\"nodes\":-2,\"ppn\":1e300,\"hosts\":[\"a\",3],"
                   "\"date\":5,\"site\":{\"room\":[1,2]},\"extra\":\"x\"},\"rules\":[" GOOD "]}",
              &r, &np);
    assert_non_null(t);
    if (np != 5) dump(&r);
    assert_int_equal(np, 5);
    assert_true(reported(&r, "provenance.p: expected an integer"));
    assert_true(reported(&r, "provenance.nodes: -2 is out of range"));
    assert_true(reported(&r, "provenance.ppn"));
    assert_true(reported(&r, "provenance.hosts[1]"));
    assert_true(reported(&r, "provenance.date"));
    assert_null(autocoll_table_get_info(t, "p"));
    assert_string_equal(autocoll_table_get_info(t, "site"), "{\"room\":[1,2]}");
    assert_string_equal(autocoll_table_get_info(t, "extra"), "x");
    autocoll_table_free(t);
    t = parse(HEAD "\"provenance\":[],\"rules\":[" GOOD "]}", &r, &np);
    assert_non_null(t);
    assert_int_equal(np, 1);
    assert_true(reported(&r, "provenance: expected an object"));
    autocoll_table_free(t);
    /* No report callback: only counted. */
    const char *j = HEAD "\"rules\":[1,2,3]}";
    t = autocoll_table_parse(j, strlen(j), NULL, NULL, &np);
    assert_non_null(t);
    assert_int_equal(np, 3);
    autocoll_table_free(t);
    t = autocoll_table_parse(j, strlen(j), NULL, NULL, NULL);
    autocoll_table_free(t);
    autocoll_table_free(NULL);
    assert_int_equal(autocoll_table_rule_count(NULL), 0);
    assert_null(autocoll_table_get_info(NULL, "p"));
}

static void test_rule_limit(void **state) {
    (void)state;
    int n = AC_TABLE_MAX_RULES + 3;
    const char *rule = "{\"collective\":\"barrier\",\"algorithm\":\"tree\"},";
    size_t rl = strlen(rule), hl = strlen(HEAD "\"rules\":[");
    char *j = malloc(hl + (size_t)n * rl + 8);
    assert_non_null(j);
    memcpy(j, HEAD "\"rules\":[", hl);
    for (int i = 0; i < n; i++)
        memcpy(j + hl + (size_t)i * rl, rule, rl);
    size_t len = hl + (size_t)n * rl - 1; /* drop the last ',' */
    memcpy(j + len, "]}", 2);
    reports_t r;
    memset(&r, 0, sizeof r);
    int np;
    autocoll_table_t *t = autocoll_table_parse(j, len + 2, collect, &r, &np);
    free(j);
    assert_non_null(t);
    assert_int_equal(np, 1);
    assert_true(reported(&r, "more than 100000 rules"));
    assert_int_equal(autocoll_table_rule_count(t), AC_TABLE_MAX_RULES);
    autocoll_table_free(t);
}

/* ---------------------------------------------------------------- exports */

/* Every MPICH csel node is either a container ({"algorithm=NAME": {params}}) or a list of
 * operator keys tried in order, the last one always matching (=any, or the second of a
 * yes/no, intra/inter pair) so that the search always ends at a container. */
static int mpich_node_ok(json_t *o, int depth) {
    const char *key;
    json_t *v;
    size_t n = json_object_size(o), i = 0;
    if (!json_is_object(o) || n == 0 || depth > 12) return 0;
    json_object_foreach(o, key, v) {
        i++;
        if (!strncmp(key, "algorithm=MPIR_", 15)) {
            if (n != 1 || !json_is_object(v)) return 0;
            continue;
        }
        static const char *ops[] = {
            "collective=",       "comm_type=",      "comm_size",           "avg_msg_size",
            "total_msg_size",    "is_commutative=", "is_sendbuf_inplace=", "count",
            "is_block_regular=", "is_op_built_in="};
        int known = 0;
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
            known |= !strncmp(key, ops[k], strlen(ops[k]));
        if (!known) return 0;
        /* MPICH 4.0 reads "=any" after these only (yes/no conditions end with "=no") */
        if (strstr(key, "=any") && strncmp(key, "comm_size", 9) && strncmp(key, "avg_msg", 7) &&
            strncmp(key, "total_msg", 9) && strncmp(key, "count", 5))
            return 0;
        if (i == n && depth > 0 && !strstr(key, "=any") && !strstr(key, "=inter") &&
            !strstr(key, "=no"))
            return 0;
        if (!mpich_node_ok(v, depth + 1)) return 0;
    }
    return 1;
}

static void test_exports(void **state) {
    (void)state;
    const char *j = HEAD "\"rules\":["
                         "{\"collective\":\"allgather\",\"comm_size\":[4,4],\"bytes\":[0,1024],"
                         "\"algorithm\":\"lr\"},"
                         "{\"collective\":\"allgather\",\"comm_size\":[3,6],\"bytes\":[1024,null],"
                         "\"algorithm\":\"bruck\"},"
                         "{\"collective\":\"allgather\",\"algorithm\":\"sparbit\"},"
                         "{\"collective\":\"bcast\",\"bytes\":[0,4096],\"algorithm\":\"binomial\"},"
                         "{\"collective\":\"bcast\",\"algorithm\":\"pipe_chain:seg=8192\"},"
                         "{\"collective\":\"reduce\",\"comm_size\":[1,1000],\"bytes\":[0,100],"
                         "\"algorithm\":\"rab\"},"
                         "{\"collective\":\"reduce_scatter_block\",\"comm_size\":[2,1000000],"
                         "\"bytes\":[0,100],\"algorithm\":\"butterfly\"},"
                         "{\"collective\":\"barrier\",\"algorithm\":\"dissemination\"},"
                         "{\"collective\":\"alltoallv\",\"algorithm\":\"ring\"}]}";
    reports_t r;
    int np;
    autocoll_table_t *t = parse(j, &r, &np);
    assert_non_null(t);
    assert_int_equal(np, 0);
    char path[] = "/tmp/ac_export_testXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);

    /* Open MPI. The file is whitespace-separated integers with
     * the structure ncoll, {coll, ncomm, {size, nmsg, {msg alg faninout segsize}}}. */
    /* all but sparbit have a twin; butterfly is size-bounded over a million sizes of p,
     * which cannot be converted (block x p) without splitting them all: not exported */
    assert_int_equal(autocoll_table_export_ompi(t, path), 7);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    long ncoll, id, ncomm, size, nmsg, msg, alg, fan, seg, prev_size, prev_msg;
    assert_int_equal(fscanf(f, "%ld", &ncoll), 1);
    assert_int_equal(ncoll, 5); /* allgather, alltoallv, barrier, bcast, reduce */
    for (long c = 0; c < ncoll; c++) {
        assert_int_equal(fscanf(f, "%ld %ld", &id, &ncomm), 2);
        assert_true(id >= 0 && id <= 15 && ncomm >= 1);
        prev_size = -1;
        for (long k = 0; k < ncomm; k++) {
            assert_int_equal(fscanf(f, "%ld %ld", &size, &nmsg), 2);
            assert_true(size > prev_size && nmsg >= 1);
            if (k == 0) assert_int_equal(size, 1);
            prev_size = size;
            prev_msg = -1;
            for (long m = 0; m < nmsg; m++) {
                assert_int_equal(fscanf(f, "%ld %ld %ld %ld", &msg, &alg, &fan, &seg), 4);
                if (m == 0) assert_int_equal(msg, 0); /* Open MPI needs a rule at size 0 */
                assert_true(msg > prev_msg && alg >= 0 && fan >= 0 && seg >= 0);
                prev_msg = msg;
                if (id == 7 && alg == 3) assert_int_equal(seg, 8192); /* bcast pipeline */
            }
        }
    }
    assert_int_equal(fscanf(f, "%ld", &msg), EOF);
    fclose(f);

    /* MPICH: valid JSON, every collective it searches, csel structure. */
    /* lr, bruck, binomial, rab, dissemination */
    assert_int_equal(autocoll_table_export_mpich(t, path), 5);
    json_error_t e;
    json_t *root = json_load_file(path, 0, &e);
    assert_non_null(root);
    assert_true(json_object_size(root) >= 40);
    assert_true(mpich_node_ok(root, 0));
    const char *colls[] = {"allgather", "allgatherv",     "alltoall",
                           "alltoallv", "bcast",          "reduce",
                           "allreduce", "reduce_scatter", "reduce_scatter_block",
                           "gather",    "scatter",        "barrier",
                           "scan",      "ibcast",         "neighbor_alltoallw"};
    for (size_t i = 0; i < sizeof colls / sizeof colls[0]; i++) {
        char key[64];
        snprintf(key, sizeof key, "collective=%s", colls[i]);
        assert_non_null(json_object_get(root, key));
    }
    /* allgather at p = 4: total_msg_size = 4 x the block, so [0, 1024) -> <= 4095. */
    json_t *ag = json_object_get(json_object_get(root, "collective=allgather"), "comm_type=intra");
    json_t *p4 = json_object_get(ag, "comm_size<=4");
    assert_non_null(p4);
    assert_non_null(json_object_get(json_object_get(p4, "total_msg_size<=4095"),
                                    "algorithm=MPIR_Allgather_intra_ring"));
    assert_non_null(json_object_get(json_object_get(p4, "total_msg_size=any"),
                                    "algorithm=MPIR_Allgather_intra_brucks"));
    json_decref(root);
    unlink(path);
    assert_int_equal(autocoll_table_export_ompi(t, "/nonexistent-dir/x"), -1);
    assert_int_equal(autocoll_table_export_mpich(NULL, path), -1);
    autocoll_table_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),      cmocka_unit_test(test_first_match_wins),
        cmocka_unit_test(test_refused_files),   cmocka_unit_test(test_bad_rules),
        cmocka_unit_test(test_empty_and_other), cmocka_unit_test(test_rule_limit),
        cmocka_unit_test(test_exports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
