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
#include "select/select.h"

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

/* The list of collectives and the catalogue of restrictions, through the public API: what MPI
 * says of each collective, the selection size of uniform calls, and each restriction's
 * condition at the edge of where it holds. */
static void colls_and_restrictions(void **st) {
    (void)st;
    static const char *rooted[] = {"bcast", "reduce", "gather", "scatter"};
    static const char *reduces[] = {"reduce", "allreduce", "reduce_scatter",
                                    "reduce_scatter_block"};
    for (int c = 0; c < AUTOCOLL_NCOLL; c++) {
        autocoll_coll_info_t ci;
        assert_int_equal(autocoll_coll_info(c, &ci), MPI_SUCCESS);
        assert_string_equal(ci.name, autocoll_coll_name(c));
        assert_true(!strncmp(ci.mpi_name, "MPI_", 4) && !strcasecmp(ci.mpi_name + 4, ci.name));
        int r = 0, d = 0;
        for (int k = 0; k < 4; k++)
            r |= !strcmp(ci.name, rooted[k]), d |= !strcmp(ci.name, reduces[k]);
        assert_int_equal(ci.rooted, r);
        assert_int_equal(ci.reduces, d);
        assert_int_equal(ac_coll_rooted(c), r);
        assert_int_equal(ac_coll_reduces(c), d);
        /* per-rank blocks of 100 B on 8 processes */
        unsigned long long b = autocoll_selection_size(c, 100, 8);
        if (c == AUTOCOLL_BARRIER)
            assert_int_equal(b, 0);
        else if (c == AUTOCOLL_ALLGATHERV || c == AUTOCOLL_ALLTOALLV ||
                 c == AUTOCOLL_REDUCE_SCATTER)
            assert_int_equal(b, 800);
        else
            assert_int_equal(b, 100);
    }
    assert_int_equal(autocoll_coll_info(AUTOCOLL_NCOLL, &(autocoll_coll_info_t){0}), MPI_ERR_ARG);

    autocoll_situation_t ok = {
        .p = 2, .nodes = 2, .uniform_ppn = 1, .commutative = 1, .inplace = 0, .topology = 1};
    unsigned all = 0;
    for (unsigned b = 0; b < 32; b++)
        if (autocoll_restriction_text(1u << b)) all |= 1u << b;
    assert_int_equal(all, ((unsigned)AUTOCOLL_R_ANY_ORDER * 2 - 1) |
                              (unsigned)AUTOCOLL_R_GRID); /* every flag, nothing else */
    /* GRID depends on the settings (AUTOCOLL_GRID_CLUSTERS, none here): refused, with its text */
    assert_null(autocoll_restriction_reason(all & ~(unsigned)AUTOCOLL_R_GRID, &ok));
    assert_string_equal(autocoll_restriction_reason(AUTOCOLL_R_GRID, &ok),
                        autocoll_restriction_text(AUTOCOLL_R_GRID));
    struct {
        unsigned flag;
        autocoll_situation_t s;
    } bad[] = {
        {AUTOCOLL_R_POF2, {6, 2, 1, 1, 0, 1, 0}},
        {AUTOCOLL_R_EVEN_P, {7, 2, 1, 1, 0, 1, 0}},
        {AUTOCOLL_R_P2, {4, 2, 1, 1, 0, 1, 0}},
        {AUTOCOLL_R_COMMUTATIVE, {8, 2, 1, 0, 0, 1, 0}},
        {AUTOCOLL_R_NO_INPLACE, {8, 2, 1, 1, 1, 1, 0}},
        {AUTOCOLL_R_MULTINODE, {8, 1, 1, 1, 0, 1, 0}},
        {AUTOCOLL_R_UNIFORM_PPN, {8, 2, 0, 1, 0, 1, 0}},
        {AUTOCOLL_R_TOPOLOGY_FILE, {8, 2, 1, 1, 0, 0, 0}},
        {AUTOCOLL_R_ANY_ORDER, {8, 2, 1, 1, 0, 1, 1}},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const char *why = autocoll_restriction_reason(bad[k].flag, &bad[k].s);
        assert_non_null(why);
        assert_string_equal(why, autocoll_restriction_text(bad[k].flag));
        /* and holds where every restriction holds */
        assert_null(autocoll_restriction_reason(bad[k].flag, &ok));
    }
    assert_null(autocoll_restriction_reason(AUTOCOLL_R_POF2 | AUTOCOLL_R_EVEN_P,
                                            &(autocoll_situation_t){.p = 2}));
    assert_null(autocoll_restriction_reason(AUTOCOLL_R_NATIVE, &(autocoll_situation_t){0}));
    char names[128];
    autocoll_restrictions_string(AUTOCOLL_R_P2 | AUTOCOLL_R_POF2, names, sizeof names);
    assert_string_equal(names, "POF2|P2");
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
            assert_int_equal(
                a->flags & ~(((unsigned)AUTOCOLL_R_ANY_ORDER * 2 - 1) | (unsigned)AUTOCOLL_R_GRID),
                0);
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

/* Issue 22 A: a part that cannot run in its stage is refused when the instance is parsed (env,
 * tables, autocoll_force, autocoll-info --check), with the reason. */
static void parts_refused(void **st) {
    (void)st;
    static const struct {
        int coll;
        const char *spec, *why;
    } bad[] = {
        {AUTOCOLL_ALLGATHER, "hier:inter=hier", "node-aware"},
        {AUTOCOLL_ALLGATHERV, "hier:inter=hier", "itself"},
        {AUTOCOLL_ALLGATHER, "hier:inter=pair", "power-of-two"},
        {AUTOCOLL_ALLGATHER, "hier:inter=nbx", "even number"},
        {AUTOCOLL_ALLGATHERV, "hier:inter=p2", "exactly two"},
        {AUTOCOLL_ALLREDUCE, "rab1:ag=rdb", "power-of-two"},
        {AUTOCOLL_ALLREDUCE, "ag_reduce:ag=pair", "power-of-two"},
        {AUTOCOLL_ALLREDUCE, "rab2:a2a=pair", "power-of-two"},
        {AUTOCOLL_ALLREDUCE, "hierarchical:inter=hierarchical", "itself"},
        {AUTOCOLL_ALLREDUCE, "hierarchical:bcast=native,inter=recursive_doubling,bcast=hier",
         "more than once"},
        {AUTOCOLL_ALLREDUCE, "reduce_bcast:reduce=rab", "commutative"},
        {AUTOCOLL_ALLREDUCE, "reduce_bcast:reduce=hier", "commutative"},
        {AUTOCOLL_BCAST, "hier:inter=hier", "itself"},
        {AUTOCOLL_BCAST, "hier:intra=native", "MPI library"},
        {AUTOCOLL_REDUCE, "hier:inter=native", "MPI library"},
        {AUTOCOLL_REDUCE, "hier:intra=hier", "itself"},
        {AUTOCOLL_REDUCE_SCATTER, "reduce_scatterv:reduce=rab", "commutative"},
        {AUTOCOLL_REDUCE_SCATTER_BLOCK, "reduce_scatterv:reduce=pipe_binary", "commutative"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ac_inst_t in;
        char err[256] = "";
        if (ac_inst_parse(bad[i].coll, bad[i].spec, &in, err, sizeof err) != -1)
            fail_msg("%s %s accepted", ac_coll_name(bad[i].coll), bad[i].spec);
        if (!strstr(err, bad[i].why))
            fail_msg("%s %s: '%s' does not say '%s'", ac_coll_name(bad[i].coll), bad[i].spec, err,
                     bad[i].why);
    }
    /* Parts that do run: on the composite's own communicator a node-aware part sees the right
     * layout; allreduce.hierarchical gives its stages their own contexts and communicators. */
    static const struct {
        int coll;
        const char *spec;
    } good[] = {
        {AUTOCOLL_ALLGATHER, "hier:inter=native"},
        {AUTOCOLL_ALLGATHER, "hier:inter=kbruck"},
        {AUTOCOLL_ALLREDUCE, "ag_reduce:ag=hier"},
        {AUTOCOLL_ALLREDUCE, "ag_reduce:ag=native"},
        {AUTOCOLL_ALLREDUCE, "hierarchical:inter=native"},
        {AUTOCOLL_ALLREDUCE, "hierarchical:inter=tree,reduce=hier,bcast=hier"},
        {AUTOCOLL_ALLREDUCE, "hierarchical:inter=reduce_bcast"},
        {AUTOCOLL_BCAST, "hier:inter=pipe_chain,intra=flat"},
        {AUTOCOLL_REDUCE, "hier:inter=rab"},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        ac_inst_t in;
        char err[256] = "";
        if (ac_inst_parse(good[i].coll, good[i].spec, &in, err, sizeof err) != 0)
            fail_msg("%s %s refused: %s", ac_coll_name(good[i].coll), good[i].spec, err);
    }
}

/* Issue 22 C: a parameter given twice is refused (which value would win is not obvious). */
static void inst_duplicate_param(void **st) {
    (void)st;
    ac_inst_t in;
    char err[256] = "";
    assert_int_equal(
        ac_inst_parse(AUTOCOLL_BCAST, "pipe_chain:seg=512,seg=1024", &in, err, sizeof err), -1);
    assert_non_null(strstr(err, "seg given more than once"));
    assert_int_equal(ac_inst_parse(AUTOCOLL_BCAST, "pipe_chain:seg=512", &in, err, sizeof err), 0);
    assert_int_equal(ac_param_int(&in, "seg"), 512);
}

/* Issue 22 C: AUTOCOLL_CANDIDATES_<COLL> entries are checked one by one; bad ones are reported
 * by name and dropped, good ones kept in the form the engine compares. */
static void settings_candidates(void **st) {
    (void)st;
    ac_settings_t s;
    char err[4096];
    ac_settings_parse(&s,
                      "AUTOCOLL_CANDIDATES_ALLGATHER= ring, nosuch ,kbruck:k=3,kbruck:k=5,"
                      "hier:inter=hier,ring_nbar:n=2,ring,bruck:x=1\n"
                      "AUTOCOLL_CANDIDATES_ALLREDUCE=reduce_bcast:reduce=binomial,bcast=binomial,"
                      "rab1\n"
                      "AUTOCOLL_CANDIDATES_BCAST=nope\n",
                      err, sizeof err);
    assert_string_equal(err, ""); /* the lists are checked against the registry by select: */
    ac_candidates_check(&s, err, sizeof err);
    assert_string_equal(s.cand[AUTOCOLL_ALLGATHER], "ring,kbruck:k=3,ring_nbar:n=2");
    assert_non_null(strstr(err, "AUTOCOLL_CANDIDATES_ALLGATHER: 'nosuch': unknown allgather"));
    assert_non_null(strstr(err, "'kbruck:k=5': not one of the instances"));
    assert_non_null(strstr(err, "'hier:inter=hier': hier: inter=hier cannot run as a part"));
    assert_non_null(strstr(err, "'bruck:x=1': bruck has no parameter 'x'"));
    assert_string_equal(s.cand[AUTOCOLL_ALLREDUCE], "rab1");
    assert_non_null(strstr(err, "'reduce_bcast:reduce=binomial,bcast=binomial': cannot be listed"));
    assert_string_equal(s.cand[AUTOCOLL_BCAST], "");
    assert_non_null(strstr(err, "AUTOCOLL_CANDIDATES_BCAST: 'nope': unknown bcast algorithm"));
    assert_non_null(strstr(err, "AUTOCOLL_CANDIDATES_BCAST: no usable entry"));
    ac_settings_parse(&s, "AUTOCOLL_CANDIDATES_ALLTOALL=ring,pair,linear_bounded:n=8\n", err,
                      sizeof err);
    assert_string_equal(err, "");
    ac_candidates_check(&s, err, sizeof err);
    assert_string_equal(err, "");
    assert_string_equal(s.cand[AUTOCOLL_ALLTOALL], "ring,pair,linear_bounded:n=8");
}

/* Issue 22 C: more problems than the buffer holds end with "... and N more". */
static void settings_many_problems(void **st) {
    (void)st;
    enum { N = 200 };
    static char block[N * 64];
    size_t used = 0;
    for (int i = 0; i < N; i++)
        used += (size_t)snprintf(block + used, sizeof block - used, "AUTOCOLL_TYPO_%03d=1\n", i);
    ac_settings_t s;
    char err[4096];
    ac_settings_parse(&s, block, err, sizeof err);
    int shown = 0, more = -1;
    for (const char *p = err; (p = strstr(p, "unknown variable")); p++)
        shown++;
    const char *tail = strstr(err, "... and ");
    assert_non_null(tail);
    assert_int_equal(sscanf(tail, "... and %d more", &more), 1);
    assert_true(shown > 10);
    assert_int_equal(shown + more, N);
    assert_true(strlen(err) < sizeof err);
    assert_int_equal(err[strlen(err) - 1], '\n');
}

/* Issue 22 C: numbers are decimal for integer and floating-point settings alike. */
static void settings_numbers(void **st) {
    (void)st;
    ac_settings_t s;
    char err[1024];
    ac_settings_parse(&s, "AUTOCOLL_GROUP_MARGIN=0x10\nAUTOCOLL_PRUNE=inf\nAUTOCOLL_ITER=0x10\n",
                      err, sizeof err);
    assert_true(s.margin == 0.25);
    assert_true(s.prune == 4.0);
    assert_int_equal(s.iter, 10);
    assert_non_null(strstr(err, "AUTOCOLL_GROUP_MARGIN='0x10'"));
    assert_non_null(strstr(err, "AUTOCOLL_PRUNE='inf'"));
    assert_non_null(strstr(err, "AUTOCOLL_ITER='0x10'"));
    ac_settings_parse(&s,
                      "AUTOCOLL_EPSILON=1e-2\nAUTOCOLL_GROUP_MARGIN= .5 \nAUTOCOLL_ITER= 12 \n"
                      "AUTOCOLL_PRUNE=+3\n",
                      err, sizeof err);
    assert_string_equal(err, "");
    assert_true(s.eps == 0.01);
    assert_true(s.margin == 0.5);
    assert_int_equal(s.iter, 12);
    assert_true(s.prune == 3.0);
}

/* Issue 22 C: mode table without a table is said (it runs the MPI library's algorithms). */
static void settings_mode_table(void **st) {
    (void)st;
    ac_settings_t s;
    char err[1024];
    ac_settings_parse(&s, "AUTOCOLL_MODE=table\n", err, sizeof err);
    assert_non_null(strstr(err, "AUTOCOLL_MODE=table without AUTOCOLL_TABLE"));
    ac_settings_parse(&s, "AUTOCOLL_MODE=table\nAUTOCOLL_TABLE=t.json\n", err, sizeof err);
    assert_string_equal(err, "");
}

/* Issue 17: the learning settings, their defaults and bad values. */
static void settings_learn(void **st) {
    (void)st;
    ac_settings_t s;
    char err[1024];
    ac_settings_parse(&s, "", err, sizeof err);
    assert_int_equal(s.learn, 1);
    assert_true(s.explore == 0.10);
    assert_true(s.race_margin == 0.10);
    assert_int_equal(s.race_iter, 3);
    ac_settings_parse(&s,
                      "AUTOCOLL_LEARN=classic\nAUTOCOLL_EXPLORE=0.05\nAUTOCOLL_RACE_MARGIN=0.2\n"
                      "AUTOCOLL_RACE_ITER=5\n",
                      err, sizeof err);
    assert_string_equal(err, "");
    assert_int_equal(s.learn, 0);
    assert_true(s.explore == 0.05);
    assert_true(s.race_margin == 0.2);
    assert_int_equal(s.race_iter, 5);
    ac_settings_parse(&s,
                      "AUTOCOLL_LEARN=fast\nAUTOCOLL_EXPLORE=0\nAUTOCOLL_RACE_MARGIN=-1\n"
                      "AUTOCOLL_RACE_ITER=65\n",
                      err, sizeof err);
    assert_int_equal(s.learn, 1);
    assert_true(s.explore == 0.10);
    assert_true(s.race_margin == 0.10);
    assert_int_equal(s.race_iter, 3);
    assert_non_null(strstr(err, "AUTOCOLL_LEARN='fast'"));
    assert_non_null(strstr(err, "AUTOCOLL_EXPLORE='0'"));
    assert_non_null(strstr(err, "AUTOCOLL_RACE_MARGIN='-1'"));
    assert_non_null(strstr(err, "AUTOCOLL_RACE_ITER='65'"));
    ac_settings_parse(&s, "AUTOCOLL_LEARN=race\nAUTOCOLL_RACE_ITER=x\n", err, sizeof err);
    assert_int_equal(s.learn, 1);
    assert_int_equal(s.race_iter, 3);
    assert_non_null(strstr(err, "AUTOCOLL_RACE_ITER='x'"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(settings_defaults),
        cmocka_unit_test(settings_values),
        cmocka_unit_test(settings_garbage),
        cmocka_unit_test(param_spec),
        cmocka_unit_test(inst_spec),
        cmocka_unit_test(str_param),
        cmocka_unit_test(inst_roundtrip),
        cmocka_unit_test(registry_consistent),
        cmocka_unit_test(colls_and_restrictions),
        cmocka_unit_test(size_class),
        cmocka_unit_test(parts_refused),
        cmocka_unit_test(inst_duplicate_param),
        cmocka_unit_test(settings_candidates),
        cmocka_unit_test(settings_many_problems),
        cmocka_unit_test(settings_numbers),
        cmocka_unit_test(settings_mode_table),
        cmocka_unit_test(settings_learn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
