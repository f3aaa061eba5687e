/* Unit tests (no MPI runtime): settings, parameter specifications, instance specifications and
 * the registry's own consistency. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "core/ac.h"

static void settings_defaults(void **st) {
    (void)st;
    ac_settings_t s;
    char err[512];
    ac_settings_parse(&s, "", err, sizeof err);
    assert_int_equal(s.verbose, 0);
    assert_int_equal(s.on_error, AC_ONERR_NATIVE);
    assert_int_equal(s.disable, 0);
    assert_string_equal(err, "");
    ac_settings_parse(&s, NULL, err, sizeof err);
    assert_int_equal(s.verbose, 0);
}

static void settings_values(void **st) {
    (void)st;
    ac_settings_t s;
    char err[512];
    ac_settings_parse(&s,
                      "AUTOCOLL_VERBOSE=2\nAUTOCOLL_ON_ERROR=error\nAUTOCOLL_DISABLE=yes\n"
                      "AUTOCOLL_ALLGATHER=linear\nAUTOCOLL_REDUCE_SCATTER_BLOCK=native\n",
                      err, sizeof err);
    assert_string_equal(err, "");
    assert_int_equal(s.verbose, 2);
    assert_int_equal(s.on_error, AC_ONERR_ERROR);
    assert_int_equal(s.disable, 1);
    assert_string_equal(s.forced[AUTOCOLL_ALLGATHER], "linear");
    assert_string_equal(s.forced[AUTOCOLL_REDUCE_SCATTER_BLOCK], "native");
    assert_string_equal(s.forced[AUTOCOLL_BCAST], "");
    assert_int_equal(s.node_layout, AC_LAYOUT_AUTO);
    ac_settings_parse(&s, "AUTOCOLL_NODE_LAYOUT=cyclic:3\n", err, sizeof err);
    assert_int_equal(s.node_layout, AC_LAYOUT_CYCLIC);
    assert_int_equal(s.node_param, 3);
    ac_settings_parse(&s, "AUTOCOLL_NODE_LAYOUT=block:16\n", err, sizeof err);
    assert_int_equal(s.node_layout, AC_LAYOUT_BLOCK);
    assert_int_equal(s.node_param, 16);
    const char *bad[] = {"block:0", "block:", "cyclic:x", "ring:3", "block:3x", "cyclic:-2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char line[64];
        snprintf(line, sizeof line, "AUTOCOLL_NODE_LAYOUT=%s\n", bad[i]);
        ac_settings_parse(&s, line, err, sizeof err);
        assert_int_equal(s.node_layout, AC_LAYOUT_AUTO);
        assert_non_null(strstr(err, "AUTOCOLL_NODE_LAYOUT"));
    }
}

static void settings_garbage(void **st) {
    (void)st;
    ac_settings_t s;
    char err[1024];
    ac_settings_parse(&s,
                      "AUTOCOLL_VERBOSE=lots\nAUTOCOLL_ON_ERROR=panic\nAUTOCOLL_DISABLE=2\n"
                      "AUTOCOLL_FROBNICATE=1\nAUTOCOLL_VERBOSE=99999999999999999999\nnot a line\n",
                      err, sizeof err);
    assert_int_equal(s.verbose, 0);
    assert_int_equal(s.on_error, AC_ONERR_NATIVE);
    assert_int_equal(s.disable, 0);
    assert_non_null(strstr(err, "AUTOCOLL_VERBOSE='lots'"));
    assert_non_null(strstr(err, "AUTOCOLL_ON_ERROR='panic'"));
    assert_non_null(strstr(err, "AUTOCOLL_DISABLE='2'"));
    assert_non_null(strstr(err, "AUTOCOLL_FROBNICATE: unknown variable"));
    assert_non_null(strstr(err, "99999999999999999999"));
    /* A tiny error buffer truncates but never overflows. */
    char tiny[8];
    ac_settings_parse(&s, "AUTOCOLL_VERBOSE=x\nAUTOCOLL_VERBOSE=y\n", tiny, sizeof tiny);
    assert_true(strlen(tiny) < sizeof tiny);
    /* An overlong value is refused, not truncated into something else. */
    char big[2000] = "AUTOCOLL_BCAST=";
    memset(big + strlen(big), 'x', 1500);
    big[1515] = '\0';
    ac_settings_parse(&s, big, err, sizeof err);
    assert_string_equal(s.forced[AUTOCOLL_BCAST], "");
    assert_non_null(strstr(err, "too long"));
}

static void param_spec(void **st) {
    (void)st;
    ac_param_t q[AC_MAX_PARAMS];
    char err[256];
    assert_int_equal(ac_param_spec_parse("", q, AC_MAX_PARAMS, err, sizeof err), 0);
    assert_int_equal(
        ac_param_spec_parse("seg=int[1..65536]:1024,512,8192", q, AC_MAX_PARAMS, err, sizeof err),
        1);
    assert_string_equal(q[0].name, "seg");
    assert_int_equal(q[0].ncand, 3);
    assert_int_equal(q[0].cand[0], 1024);
    assert_int_equal(q[0].min, 1);
    assert_int_equal(q[0].max, 65536);
    assert_int_equal(ac_param_spec_parse("k=int[2..64]:2,4;inner=alg(bcast):linear,native", q,
                                         AC_MAX_PARAMS, err, sizeof err),
                     2);
    assert_int_equal(q[1].type, AC_PT_ALG);
    assert_int_equal(q[1].ref_coll, AUTOCOLL_BCAST);
    assert_string_equal(q[1].cand_alg[1], "native");
    const char *bad[] = {"seg",
                         "seg=",
                         "seg=int[1..2]",
                         "seg=int[1..2]:3",
                         "seg=int[5..2]:3",
                         "seg=float:1",
                         "x=alg(nope):a",
                         "x=int[1..9]:1;",
                         "x=int[1..9]:1,",
                         "x=int[1..9]:1;y=int[0..1]:0;z=int[0..1]:0;w=int[0..1]:0;v=int[0..1]:0",
                         "=int[1..2]:1",
                         "x=int[1..9]:1x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(ac_param_spec_parse(bad[i], q, AC_MAX_PARAMS, err, sizeof err), -1);
        assert_true(strlen(err) > 0);
    }
}

/* String parameters: preset names as candidates, any string forced, quoted when it holds the
 * instance syntax's separators; formatting and parsing are inverse. */
static void str_param(void **st) {
    (void)st;
    ac_param_t q[AC_MAX_PARAMS];
    char err[256], buf[512];
    assert_int_equal(ac_param_spec_parse("spec=str:flat,binary", q, AC_MAX_PARAMS, err, sizeof err),
                     1);
    assert_int_equal(q[0].type, AC_PT_STR);
    assert_int_equal(q[0].ncand, 2);
    const ac_alg_t *tree = ac_alg_find(AUTOCOLL_ALLREDUCE, "tree");
    assert_non_null(tree);
    ac_inst_t in, back;
    assert_int_equal(ac_inst_parse(AUTOCOLL_ALLREDUCE, "tree", &in, err, sizeof err), 0);
    assert_string_equal(ac_param_str(&in, "spec"), tree->param[0].cand_alg[0]);
    assert_int_equal(ac_inst_parse(AUTOCOLL_ALLREDUCE,
                                   "tree:spec=\"host=2,2;cluster=2*;split=3:shift\"", &in, err,
                                   sizeof err),
                     0);
    assert_string_equal(ac_param_str(&in, "spec"), "host=2,2;cluster=2*;split=3:shift");
    ac_inst_format(&in, buf, sizeof buf);
    assert_string_equal(buf, "tree:spec=\"host=2,2;cluster=2*;split=3:shift\"");
    assert_int_equal(ac_inst_parse(AUTOCOLL_ALLREDUCE, buf, &back, err, sizeof err), 0);
    assert_string_equal(ac_param_str(&back, "spec"), ac_param_str(&in, "spec"));
    assert_int_equal(ac_inst_parse(AUTOCOLL_ALLREDUCE, "tree:spec=split4W", &in, err, sizeof err),
                     0);
    ac_inst_format(&in, buf, sizeof buf);
    assert_string_equal(buf, "tree:spec=split4W");
    const char *bad[] = {"tree:spec=", "tree:spec=\"host=2", "tree:spec=\"a\"b", "tree:spec",
                         "tree:spec=a\"b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(ac_inst_parse(AUTOCOLL_ALLREDUCE, bad[i], &in, err, sizeof err), -1);
    char longv[300] = "tree:spec=";
    memset(longv + 10, 'x', 200);
    longv[210] = '\0';
    assert_int_equal(ac_inst_parse(AUTOCOLL_ALLREDUCE, longv, &in, err, sizeof err), -1);
}

static void inst_spec(void **st) {
    (void)st;
    ac_inst_t in;
    char err[256], buf[256];
    assert_int_equal(ac_inst_parse(AUTOCOLL_BCAST, "linear", &in, err, sizeof err), 0);
    assert_string_equal(in.alg->name, "linear");
    ac_inst_format(&in, buf, sizeof buf);
    assert_string_equal(buf, "linear");
    assert_int_equal(ac_inst_parse(AUTOCOLL_BCAST, "nope", &in, err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown bcast algorithm 'nope'"));
    assert_int_equal(ac_inst_parse(AUTOCOLL_BCAST, "linear:x=1", &in, err, sizeof err), -1);
    assert_int_equal(ac_inst_parse(AUTOCOLL_BCAST, "linear:", &in, err, sizeof err), 0);
    assert_int_equal(ac_inst_parse(AUTOCOLL_BCAST, NULL, &in, err, sizeof err), -1);
    char big[400];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(ac_inst_parse(AUTOCOLL_BCAST, big, &in, err, sizeof err), -1);
}

/* Every parameterised algorithm in the registry: forcing each instance by its printed name
 * gives back the same instance, and out-of-range values are refused. */
static void inst_roundtrip(void **st) {
    (void)st;
    for (int c = 0; c < AUTOCOLL_NCOLL; c++)
        for (int i = 0; i < ac_alg_count(c); i++) {
            const ac_alg_t *a = ac_alg_get(c, i);
            for (int j = 0; j < ac_inst_count(a); j++) {
                ac_inst_t in, back;
                char name[256], again[256], err[256];
                ac_inst_nth(a, j, &in);
                ac_inst_format(&in, name, sizeof name);
                assert_int_equal(ac_inst_parse(c, name, &back, err, sizeof err), 0);
                ac_inst_format(&back, again, sizeof again);
                assert_string_equal(name, again);
            }
            for (int k = 0; k < a->nparam; k++) {
                if (a->param[k].type != AC_PT_INT) continue;
                char spec[256], err[256];
                ac_inst_t in;
                snprintf(spec, sizeof spec, "%s:%s=%ld", a->name, a->param[k].name,
                         a->param[k].max + 1);
                if (a->param[k].max < 2147483647L)
                    assert_int_equal(ac_inst_parse(c, spec, &in, err, sizeof err), -1);
                snprintf(spec, sizeof spec, "%s:%s=abc", a->name, a->param[k].name);
                assert_int_equal(ac_inst_parse(c, spec, &in, err, sizeof err), -1);
            }
        }
}

/* The registry itself: unique names, a native entry first, complete descriptions, parameter
 * specs that parse, restriction flags that exist. */
static void registry_consistent(void **st) {
    (void)st;
    for (int c = 0; c < AUTOCOLL_NCOLL; c++) {
        assert_non_null(ac_coll_name(c));
        assert_int_equal(ac_coll_from_name(ac_coll_name(c)), c);
        assert_true(ac_alg_count(c) >= 2);
        assert_string_equal(ac_alg_get(c, 0)->name, "native");
        for (int i = 0; i < ac_alg_count(c); i++) {
            const ac_alg_t *a = ac_alg_get(c, i);
            assert_int_equal(a->coll, c);
            assert_int_equal(a->index, i);
            assert_true(a->nparam >= 0);
            assert_true(ac_inst_count(a) >= 1);
            assert_true(strlen(a->cost) > 0);
            assert_true(strlen(a->desc) > 0);
            assert_true(strlen(a->group) > 0);
            assert_true(strlen(a->name) < AC_NAME_LEN);
            assert_int_equal(a->flags & ~((unsigned)AUTOCOLL_R_NATIVE * 2 - 1), 0);
            for (int j = 0; j < i; j++)
                assert_string_not_equal(ac_alg_get(c, j)->name, a->name);
        }
    }
    assert_int_equal(ac_coll_from_name("nope"), -1);
    assert_null(ac_alg_get(AUTOCOLL_NCOLL, 0));
    assert_null(ac_alg_get(0, 100000));
}

static void size_class(void **st) {
    (void)st;
    assert_int_equal(ac_size_class(0), 0);
    assert_int_equal(ac_size_class(1), 1);
    assert_int_equal(ac_size_class(3), 2);
    assert_int_equal(ac_size_class(1024), 1024);
    assert_int_equal(ac_size_class(1025), 1024);
    assert_int_equal(ac_size_class((size_t)1 << 40), (size_t)1 << 40);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(settings_defaults), cmocka_unit_test(settings_values),
        cmocka_unit_test(settings_garbage),  cmocka_unit_test(param_spec),
        cmocka_unit_test(inst_spec),         cmocka_unit_test(str_param),
        cmocka_unit_test(inst_roundtrip),    cmocka_unit_test(registry_consistent),
        cmocka_unit_test(size_class),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
