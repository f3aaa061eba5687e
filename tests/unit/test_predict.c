/*
 * Communication predictors and latency-hiding models (src/trace/predict*.c).
 *
 * - Every worked example of spec predictors-latency.md §3.6 (E1-E6), transcribed row by row:
 *   the prediction made before each step, the hit pattern and the hit count, for every row.
 * - The memory formulas of spec §3.5 on those examples (E3 and E6 values stated by the spec,
 *   the others derived by hand below) and the true peak.
 * - The reconfiguration-hiding test vector of spec §4.2.
 * - The early-arrival analysis of spec §4.3 on a small hand-made stream (answer derived by
 *   hand in test_early_arrival).
 * - Properties stated in spec §3.2-3.4 on periodic and pseudo-random streams, the bounds
 *   (lmax, hmax, smax), names, and bad input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include "trace/predict.h"

/* ---- spec §3.6 tables ---------------------------------------------------------------------
 * A row is the spec's text: its label ("Single-cycle pred", "LRU k=2", "LRU/FIFO/LFU k=1"),
 * the prediction row (NULL for window rows, which show only hits), the hit row and the count. */
typedef struct {
    const char *label, *pred, *hits;
    int nhits;
} row_t;

typedef struct {
    const char *name, *request;
    row_t rows[12];
} example_t;

static const example_t examples[] = {
    {"E1",
     "1  2  3  1  2  3  1  2  3",
     {
         {"Single-cycle pred", "-  -  -  -  2  3  1  2  3", ".  .  .  .  H  H  H  H  H", 5},
         {"Single-cycle2 pred", "-  1  2  3  2  3  1  2  3", ".  .  .  .  H  H  H  H  H", 5},
         {"Better-cycle pred", "-  -  -  -  2  3  1  2  3", ".  .  .  .  H  H  H  H  H", 5},
         {"Better-cycle2 pred", "-  1  2  3  2  3  1  2  3", ".  .  .  .  H  H  H  H  H", 5},
         {"LRU/FIFO/LFU k=1", NULL, ".  .  .  .  .  .  .  .  .", 0},
         {"LRU k=2", NULL, ".  .  .  .  .  .  .  .  .", 0},
         {"FIFO k=2", NULL, ".  .  .  .  .  .  .  .  .", 0},
         {"LFU k=2", NULL, ".  .  .  .  .  .  .  .  .", 0},
         {"LRU k=4", NULL, ".  .  .  H  H  H  H  H  H", 6},
         {"LFU k=4", NULL, ".  .  .  H  H  H  H  H  H", 6},
     }},
    {"E2",
     "1  2  1  2  7  7  7  7  1  2  1  2",
     {
         {"Single-cycle pred", "-  -  -  2  1  -  7  7  7  -  -  2",
          ".  .  .  H  .  .  H  H  .  .  .  H", 4},
         {"Single-cycle2 pred", "-  1  2  2  1  7  7  7  7  1  2  2",
          ".  .  .  H  .  H  H  H  .  .  .  H", 5},
         {"Better-cycle pred", "-  -  -  2  1  -  7  7  7  2  1  2",
          ".  .  .  H  .  .  H  H  .  H  H  H", 6},
         {"Better-cycle2 pred", "-  1  2  2  1  7  7  7  7  2  1  2",
          ".  .  .  H  .  H  H  H  .  H  H  H", 7},
         {"LRU/FIFO/LFU k=1", NULL, ".  .  .  .  .  H  H  H  .  .  .  .", 3},
         {"LRU k=2", NULL, ".  .  H  H  .  H  H  H  .  .  H  H", 7},
         {"FIFO k=2", NULL, ".  .  H  H  .  H  H  H  .  .  H  H", 7},
         {"LFU k=2", NULL, ".  .  H  H  .  H  H  H  .  .  .  .", 5},
         {"LRU k=4", NULL, ".  .  H  H  .  H  H  H  H  H  H  H", 9},
         {"LFU k=4", NULL, ".  .  H  H  .  H  H  H  H  H  H  H", 9},
     }},
    {"E3",
     "1  3  5  6  1  3  5  6  7  7  7  1  3  2  1  3  2  1  3  2",
     {
         {"Single-cycle pred", "-  -  -  -  -  3  5  6  1  -  7  7  -  -  -  3  2  1  3  2",
          ".  .  .  .  .  H  H  H  .  .  H  .  .  .  .  H  H  H  H  H", 9},
         {"Single-cycle2 pred", "-  1  3  5  6  3  5  6  1  7  7  7  1  3  2  3  2  1  3  2",
          ".  .  .  .  .  H  H  H  .  H  H  .  .  .  .  H  H  H  H  H", 10},
         {"Better-cycle pred", "-  -  -  -  -  3  5  6  1  -  7  7  3  5  -  3  2  1  3  2",
          ".  .  .  .  .  H  H  H  .  .  H  .  H  .  .  H  H  H  H  H", 10},
         {"Better-cycle2 pred", "-  1  3  5  6  3  5  6  1  7  7  7  3  5  2  3  2  1  3  2",
          ".  .  .  .  .  H  H  H  .  H  H  .  H  .  .  H  H  H  H  H", 11},
         {"LRU/FIFO/LFU k=1", NULL, ".  .  .  .  .  .  .  .  .  H  H  .  .  .  .  .  .  .  .  .",
          2},
         {"LRU k=2", NULL, ".  .  .  .  .  .  .  .  .  H  H  .  .  .  .  .  .  .  .  .", 2},
         {"FIFO k=2", NULL, ".  .  .  .  .  .  .  .  .  H  H  .  .  .  .  .  .  .  .  .", 2},
         {"LFU k=2", NULL, ".  .  .  .  .  .  .  .  .  H  H  .  .  .  .  H  .  .  H  .", 4},
         {"LRU k=4", NULL, ".  .  .  .  H  H  H  H  .  H  H  .  .  .  H  H  H  H  H  H", 12},
         {"LFU k=4", NULL, ".  .  .  .  H  H  H  H  .  H  H  .  .  .  H  H  H  H  H  H", 12},
     }},
    {"E4",
     "A0 B1 B2 B3 A0 B1 B2 B3 A0 B1 B2 B3",
     {
         {"Tagging pred", "-  -  1  2  0  3  1  2  0  3  1  2",
          ".  .  .  .  H  .  .  .  H  .  .  .", 2},
         {"Tag-cycle pred", "-  -  -  -  -  -  2  3  0  1  2  3",
          ".  .  .  .  .  .  H  H  H  H  H  H", 6},
         {"Tag-cycle2 pred", "-  -  1  2  0  3  2  3  0  1  2  3",
          ".  .  .  .  H  .  H  H  H  H  H  H", 7},
         {"Tag-bettercycle pred", "-  -  -  -  -  -  2  3  0  1  2  3",
          ".  .  .  .  .  .  H  H  H  H  H  H", 6},
         {"Tag-bettercycle2 pred", "-  -  1  2  0  3  2  3  0  1  2  3",
          ".  .  .  .  H  .  H  H  H  H  H  H", 7},
         {"Single-cycle pred", "-  -  -  -  -  1  2  3  0  1  2  3",
          ".  .  .  .  .  H  H  H  H  H  H  H", 7},
         {"Better-cycle2 pred", "-  0  1  2  3  1  2  3  0  1  2  3",
          ".  .  .  .  .  H  H  H  H  H  H  H", 7},
     }},
    {"E5",
     "A0 B1 B2 A0 B3 B1 A0 B2 B3 A0 B1 B2 A0 B3 B1 A0 B2 B3",
     {
         {"Tagging pred", "-  -  1  0  2  3  0  1  2  0  3  1  0  2  3  0  1  2",
          ".  .  .  H  .  .  H  .  .  H  .  .  H  .  .  H  .  .", 5},
         {"Tag-cycle pred", "-  -  -  -  -  -  0  2  3  0  1  2  0  3  1  0  2  3",
          ".  .  .  .  .  .  H  H  H  H  H  H  H  H  H  H  H  H", 12},
         {"Tag-cycle2 pred", "-  -  1  0  2  3  0  2  3  0  1  2  0  3  1  0  2  3",
          ".  .  .  H  .  .  H  H  H  H  H  H  H  H  H  H  H  H", 13},
         {"Tag-bettercycle pred", "-  -  -  -  -  -  0  2  3  0  1  2  0  3  1  0  2  3",
          ".  .  .  .  .  .  H  H  H  H  H  H  H  H  H  H  H  H", 12},
         {"Tag-bettercycle2 pred", "-  -  1  0  2  3  0  2  3  0  1  2  0  3  1  0  2  3",
          ".  .  .  H  .  .  H  H  H  H  H  H  H  H  H  H  H  H", 13},
         {"Single-cycle pred", "-  -  -  -  1  -  -  -  -  1  -  -  -  1  -  -  -  -",
          ".  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .", 0},
         {"Better-cycle2 pred", "-  0  1  2  1  3  1  0  2  1  1  2  0  1  1  0  2  3",
          ".  .  .  .  .  .  .  .  .  .  H  H  H  .  H  H  H  H", 7},
     }},
    {"E6",
     "B1 B2 B1 B2 B5 B5 B1 B2 B1 B2 B5 B5 B1 B2",
     {
         {"Tagging pred", "-  1  2  1  2  5  5  1  2  1  2  5  5  1",
          ".  .  .  .  .  H  .  .  .  .  .  H  .  .", 2},
         {"Tag-cycle pred", "-  -  -  2  1  -  5  -  -  2  1  -  5  -",
          ".  .  .  H  .  .  .  .  .  H  .  .  .  .", 2},
         {"Tag-cycle2 pred", "-  1  2  2  1  5  5  1  2  2  1  5  5  1",
          ".  .  .  H  .  H  .  .  .  H  .  H  .  .", 4},
         {"Tag-bettercycle pred", "-  -  -  2  1  -  5  2  1  2  1  5  5  2",
          ".  .  .  H  .  .  .  H  H  H  .  H  .  H", 6},
         {"Tag-bettercycle2 pred", "-  1  2  2  1  5  5  2  1  2  1  5  5  2",
          ".  .  .  H  .  H  .  H  H  H  .  H  .  H", 7},
         {"Single-cycle pred", "-  -  -  2  1  -  5  -  -  2  1  -  5  -",
          ".  .  .  H  .  .  .  .  .  H  .  .  .  .", 2},
         {"Better-cycle2 pred", "-  1  2  2  1  5  5  2  1  2  1  5  5  2",
          ".  .  .  H  .  H  .  H  H  H  .  H  .  H", 7},
     }},
};

#define MAXN 64

/* "A0 B1 ..." or "1 2 ...": identifiers and sites (letter - 'A' + 1, or 0 without letter). */
static int parse_request(const char *s, ac_id *x, uint64_t *site) {
    int n = 0;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s) break;
        site[n] = 0;
        if (*s >= 'A' && *s <= 'Z') site[n] = (uint64_t)(*s++ - 'A' + 1);
        char *end;
        x[n++] = (ac_id)strtol(s, &end, 10);
        s = end;
    }
    return n;
}

/* "- 2 3": AC_ID_NONE for "-". */
static int parse_pred(const char *s, ac_id *p) {
    int n = 0;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s) break;
        if (*s == '-') {
            p[n++] = AC_ID_NONE;
            s++;
        } else {
            char *end;
            p[n++] = (ac_id)strtol(s, &end, 10);
            s = end;
        }
    }
    return n;
}

static int parse_hits(const char *s, unsigned char *h) {
    int n = 0;
    for (; *s; s++)
        if (*s == 'H' || *s == '.') h[n++] = *s == 'H';
    return n;
}

/* Run one kind on one example row and compare every step. */
static void check_row(const example_t *ex, const row_t *r, const char *kname, int k) {
    ac_id x[MAXN], want_pred[MAXN], pred[MAXN];
    uint64_t site[MAXN];
    unsigned char want_hit[MAXN], hit[MAXN];
    int n = parse_request(ex->request, x, site);
    assert_int_equal(parse_hits(r->hits, want_hit), n);
    int kind = ac_pred_parse(kname);
    assert_true(kind >= 0);
    ac_pred_params prm;
    ac_pred_params_default(&prm);
    prm.window = k;
    ac_pred_stats st;
    assert_int_equal(ac_pred_run((ac_pred_kind)kind, &prm, x, site, (size_t)n, hit, pred, &st), 0);
    int hits = 0;
    for (int t = 0; t < n; t++) {
        if (hit[t] != want_hit[t])
            fail_msg("%s %s (k=%d) step %d: hit %d, spec %d", ex->name, kname, k, t + 1, hit[t],
                     want_hit[t]);
        hits += want_hit[t];
    }
    assert_int_equal(hits, r->nhits); /* the table's own count agrees with its pattern */
    assert_int_equal((int)st.hits, r->nhits);
    assert_int_equal((int)st.events, n);
    if (r->pred) {
        assert_int_equal(parse_pred(r->pred, want_pred), n);
        int made = 0;
        for (int t = 0; t < n; t++) {
            if (pred[t] != want_pred[t])
                fail_msg("%s %s step %d: predicted %d, spec %d", ex->name, kname, t + 1, pred[t],
                         want_pred[t]);
            made += want_pred[t] != AC_ID_NONE;
        }
        assert_int_equal((int)st.predictions, made);
    }
}

/* Expand a label: "Better-cycle2 pred", "LFU k=2", "LRU/FIFO/LFU k=1". */
static int run_row(const example_t *ex, const row_t *r) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s", r->label);
    int k = 1;
    char *sp = strchr(buf, ' ');
    if (sp) {
        if (strncmp(sp, " k=", 3) == 0) k = atoi(sp + 3);
        *sp = 0;
    }
    int count = 0;
    for (char *tok = strtok(buf, "/"); tok; tok = strtok(NULL, "/")) {
        check_row(ex, r, tok, k);
        count++;
    }
    return count;
}

static void test_worked_examples(void **state) {
    (void)state;
    int checked = 0;
    for (size_t e = 0; e < sizeof examples / sizeof *examples; e++)
        for (const row_t *r = examples[e].rows; r->label; r++)
            checked += run_row(&examples[e], r);
    /* E1-E3: 4 cycle rows + 3 (k = 1) + 5 window runs each; E4-E6: 7 rows each. */
    assert_int_equal(checked, 3 * 12 + 3 * 7);
}

/* ---- spec §3.5 memory ---------------------------------------------------------------------- */

static void run_example(const char *ex, const char *kname, ac_pred_stats *st) {
    ac_id x[MAXN];
    uint64_t site[MAXN];
    const example_t *e = NULL;
    for (size_t i = 0; i < sizeof examples / sizeof *examples; i++)
        if (strcmp(examples[i].name, ex) == 0) e = &examples[i];
    assert_non_null(e);
    int n = parse_request(e->request, x, site);
    assert_int_equal(
        ac_pred_run((ac_pred_kind)ac_pred_parse(kname), NULL, x, site, (size_t)n, NULL, NULL, st),
        0);
}

typedef struct {
    const char *ex, *kind;
    int64_t len, heads, sites, mem;
} mem_case;

static void test_memory_formulas(void **state) {
    (void)state;
    /* E3 and E6: values stated by spec §3.6. The others by hand from the phase rules:
     *  E1: one cycle {1,2,3}: length 3, one head.
     *  E2: Single keeps {1,2} then {7} then {1,2}: max 2. Better stores heads 1 ({1,2}) and 7
     *      ({7}): 2 x 2 = 4.
     *  E3: longest cycle {1,3,5,6} = 4; Better heads 1 and 7: 4 x 2 = 8 (spec).
     *  E4: sites A (cycle {0}) and B (cycle {1,2,3}): Tagging 2, Tag-cycle 2 x 3 = 6, one head
     *      per site so Tag-bettercycle 6 too.
     *  E6: one site, cycles {1,2} and {5}: Tag-cycle 1 x 2 = 2, Tag-bettercycle 1 x 2 x 2 = 4
     *      (spec). */
    static const mem_case cases[] = {
        {"E1", "Single-cycle", 3, 1, 0, 3},     {"E1", "Better-cycle2", 3, 1, 0, 3},
        {"E2", "Single-cycle", 2, 1, 0, 2},     {"E2", "Better-cycle", 2, 2, 0, 4},
        {"E3", "Single-cycle", 4, 1, 0, 4},     {"E3", "Single-cycle2", 4, 1, 0, 4},
        {"E3", "Better-cycle", 4, 2, 0, 8},     {"E3", "Better-cycle2", 4, 2, 0, 8},
        {"E4", "Tagging", 0, 0, 2, 2},          {"E4", "Tag-cycle", 3, 1, 2, 6},
        {"E4", "Tag-cycle2", 3, 1, 2, 6},       {"E4", "Tag-bettercycle2", 3, 1, 2, 6},
        {"E6", "Tagging", 0, 0, 1, 1},          {"E6", "Tag-cycle", 2, 1, 1, 2},
        {"E6", "Tag-cycle2", 2, 1, 1, 2},       {"E6", "Tag-bettercycle", 2, 2, 1, 4},
        {"E6", "Tag-bettercycle2", 2, 2, 1, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ac_pred_stats st;
        run_example(cases[i].ex, cases[i].kind, &st);
        if (st.max_cycle_len != cases[i].len || st.max_heads != cases[i].heads ||
            st.max_sites != cases[i].sites || st.mem != cases[i].mem)
            fail_msg("%s %s: len %lld heads %lld sites %lld mem %lld", cases[i].ex, cases[i].kind,
                     (long long)st.max_cycle_len, (long long)st.max_heads, (long long)st.max_sites,
                     (long long)st.mem);
    }
}

static void test_memory_peak(void **state) {
    (void)state;
    ac_pred_stats st;
    /* E3 Single-cycle: {1,3,5,6} stored (4) while {7} is formed (1): 5 at step 9. */
    run_example("E3", "Single-cycle", &st);
    assert_int_equal(st.peak, 5);
    /* E3 Better-cycle: heads 1 (4) and 7 (1) stored while head 1's revision buffer holds
     * [1,3,2] at step 14: 8. */
    run_example("E3", "Better-cycle", &st);
    assert_int_equal(st.peak, 8);
    /* E4 Tagging: one identifier per site. */
    run_example("E4", "Tagging", &st);
    assert_int_equal(st.peak, 2);
    /* Window: occupancy, formula = k. */
    ac_id x[] = {1, 2, 1};
    ac_pred_params prm;
    ac_pred_params_default(&prm);
    prm.window = 4;
    assert_int_equal(ac_pred_run(AC_PRED_LRU, &prm, x, NULL, 3, NULL, NULL, &st), 0);
    assert_int_equal(st.peak, 2);
    assert_int_equal(st.mem, 4);
}

/* ---- properties ----------------------------------------------------------------------------- */

static uint64_t rng = 88172645463325252ULL;
static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static const ac_pred_kind cycle_kinds[] = {
    AC_PRED_SINGLE_CYCLE, AC_PRED_SINGLE_CYCLE2, AC_PRED_BETTER_CYCLE,    AC_PRED_BETTER_CYCLE2,
    AC_PRED_TAG_CYCLE,    AC_PRED_TAG_CYCLE2,    AC_PRED_TAG_BETTERCYCLE, AC_PRED_TAG_BETTERCYCLE2,
};

/* A period of c distinct identifiers in random order, repeated: every cycle predictor hits
 * every step from the second period on (formation takes c steps and the head's return closes
 * the cycle at step c+1, after which the walk never misses); windows of k >= c hit every
 * repeat, i.e. all steps after the first c. */
static void test_periodic(void **state) {
    (void)state;
    enum { N = 400 };
    static ac_id x[N];
    static unsigned char hit[N];
    for (int c = 1; c <= 40; c++) {
        ac_id per[40];
        for (int i = 0; i < c; i++)
            per[i] = (ac_id)(i * 7 + 3);
        for (int i = c - 1; i > 0; i--) {
            int j = (int)(rnd() % (uint32_t)(i + 1));
            ac_id t = per[i];
            per[i] = per[j];
            per[j] = t;
        }
        for (int t = 0; t < N; t++)
            x[t] = per[t % c];
        for (size_t k = 0; k < sizeof cycle_kinds / sizeof *cycle_kinds; k++) {
            ac_pred_stats st;
            assert_int_equal(ac_pred_run(cycle_kinds[k], NULL, x, NULL, N, hit, NULL, &st), 0);
            for (int t = c + 1; t < N; t++)
                if (!hit[t])
                    fail_msg("%s period %d: miss at step %d", ac_pred_name(cycle_kinds[k]), c,
                             t + 1);
            assert_int_equal(st.max_cycle_len, c);
            assert_true(st.hits >= (uint64_t)(N - c - 1));
        }
        for (int kind = AC_PRED_LRU; kind <= AC_PRED_LFU; kind++) {
            ac_pred_params prm;
            ac_pred_params_default(&prm);
            prm.window = c + (int)(rnd() % 3);
            ac_pred_stats st;
            assert_int_equal(ac_pred_run((ac_pred_kind)kind, &prm, x, NULL, N, hit, NULL, &st), 0);
            for (int t = 0; t < N; t++)
                assert_int_equal(hit[t], t >= c);
        }
    }
}

/* LRU with a window at least the number of distinct identifiers hits every repeat, on any
 * stream; with k = 1 the three windows are last value (spec §3.2). */
static void test_window_properties(void **state) {
    (void)state;
    enum { N = 500 };
    static ac_id x[N];
    static unsigned char h[3][N];
    for (int trial = 0; trial < 50; trial++) {
        int alpha = 1 + (int)(rnd() % 12);
        for (int t = 0; t < N; t++)
            x[t] = (ac_id)(rnd() % (uint32_t)alpha);
        ac_pred_params prm;
        ac_pred_params_default(&prm);
        prm.window = alpha;
        assert_int_equal(ac_pred_run(AC_PRED_LRU, &prm, x, NULL, N, h[0], NULL, NULL), 0);
        int seen[12] = {0};
        for (int t = 0; t < N; t++) {
            assert_int_equal(h[0][t], seen[x[t]]);
            seen[x[t]] = 1;
        }
        prm.window = 1;
        for (int kind = AC_PRED_LRU; kind <= AC_PRED_LFU; kind++) {
            ac_id pred[N];
            ac_pred_stats st;
            assert_int_equal(ac_pred_run((ac_pred_kind)kind, &prm, x, NULL, N, h[kind], pred, &st),
                             0);
            assert_int_equal(st.predictions, N - 1); /* the set is empty only before step 1 */
            for (int t = 0; t < N; t++) {
                assert_int_equal(h[kind][t], t > 0 && x[t] == x[t - 1]);
                assert_int_equal(pred[t], t > 0 ? x[t - 1] : AC_ID_NONE);
            }
        }
    }
}

/* Spec §3.4 properties 1, 2 and 4 on pseudo-random streams; property 3's counter-example. */
static void test_cycle_properties(void **state) {
    (void)state;
    enum { N = 200 };
    static ac_id x[N];
    static unsigned char sc[N], sc2[N], bc[N], bc2[N], tg[N], tmp[N];
    static ac_id pa[N], pb[N];
    for (int trial = 0; trial < 2000; trial++) {
        int alpha = 1 + (int)(rnd() % 6), n = 1 + (int)(rnd() % N);
        for (int t = 0; t < n; t++)
            x[t] = (ac_id)(rnd() % (uint32_t)alpha);
        ac_pred_stats s1, s2, b1, b2;
        assert_int_equal(ac_pred_run(AC_PRED_SINGLE_CYCLE, NULL, x, NULL, n, sc, NULL, &s1), 0);
        assert_int_equal(ac_pred_run(AC_PRED_SINGLE_CYCLE2, NULL, x, NULL, n, sc2, NULL, &s2), 0);
        assert_int_equal(ac_pred_run(AC_PRED_BETTER_CYCLE, NULL, x, NULL, n, bc, NULL, &b1), 0);
        assert_int_equal(ac_pred_run(AC_PRED_BETTER_CYCLE2, NULL, x, NULL, n, bc2, NULL, &b2), 0);
        /* 1: a "2" variant hits wherever its base does (same state transitions). */
        for (int t = 0; t < n; t++) {
            assert_true(sc2[t] >= sc[t]);
            assert_true(bc2[t] >= bc[t]);
            /* 2: Better-cycle hits wherever Single-cycle does. */
            assert_true(bc[t] >= sc[t]);
        }
        assert_true(s2.hits >= s1.hits && b2.hits >= b1.hits && b1.hits >= s1.hits);
        /* 4: with a single site, Tag-X = X and Tagging = last value. */
        const ac_pred_kind plain[] = {AC_PRED_SINGLE_CYCLE, AC_PRED_SINGLE_CYCLE2,
                                      AC_PRED_BETTER_CYCLE, AC_PRED_BETTER_CYCLE2};
        const ac_pred_kind tag[] = {AC_PRED_TAG_CYCLE, AC_PRED_TAG_CYCLE2, AC_PRED_TAG_BETTERCYCLE,
                                    AC_PRED_TAG_BETTERCYCLE2};
        for (int k = 0; k < 4; k++) {
            assert_int_equal(ac_pred_run(plain[k], NULL, x, NULL, n, tmp, pa, NULL), 0);
            assert_int_equal(ac_pred_run(tag[k], NULL, x, NULL, n, tg, pb, NULL), 0);
            assert_memory_equal(pa, pb, (size_t)n * sizeof *pa);
            assert_memory_equal(tmp, tg, (size_t)n);
        }
        assert_int_equal(ac_pred_run(AC_PRED_TAGGING, NULL, x, NULL, n, tg, pb, NULL), 0);
        for (int t = 0; t < n; t++)
            assert_int_equal(pb[t], t ? x[t - 1] : AC_ID_NONE);
    }
    /* 3: Better-cycle2 is not always better than Single-cycle2: on 0 2 0 0 0, 1 hit vs 0. */
    ac_id cx[] = {0, 2, 0, 0, 0};
    ac_pred_stats st;
    assert_int_equal(ac_pred_run(AC_PRED_SINGLE_CYCLE2, NULL, cx, NULL, 5, NULL, NULL, &st), 0);
    assert_int_equal(st.hits, 1);
    assert_int_equal(ac_pred_run(AC_PRED_BETTER_CYCLE2, NULL, cx, NULL, 5, NULL, NULL, &st), 0);
    assert_int_equal(st.hits, 0);
}

/* Directed cycle-engine cases derived by hand from the spec §3.3 rules.
 * (1) Revision closed by the head itself (reconstruction (a), second sentence), Better-cycle on
 *     1 2 3 1 2 3 4 4 1 2 1 2 1 2: {1,2,3} closes at step 4; 4 misses and forms {4} (closed at
 *     step 8); 1 at step 9 misses but is a known head, so the pass over {1,2,3} predicts 2
 *     (hit) then 3; the head 1 arrives instead, so the revised cycle is the confirmed prefix
 *     {1,2}, closed at once, and steps 12-14 walk it. Heads 1 and 4, longest cycle 3: mem 6;
 *     peak 4 (cycle {1,2,3} plus the buffer [4] at step 7).
 * (2) Head eviction (hmax = 2) of the least recently used head, Better-cycle on
 *     1 1 2 2 1 1 3 3 2 2 1 1: heads 1 (stored step 2) and 2 (step 4); head 1 is looked up at
 *     step 5 (pass confirmed at step 6); head 3 closes at step 8 and evicts head 2, the least
 *     recently used; so 2 at step 9 is unknown and forms again (no prediction at step 10);
 *     closing {2} at step 10 evicts head 1 (used at step 5 < head 3 at step 8); 1 at step 11
 *     forms again. With hmax = 64 steps 10 and 12 are hits of the known-head passes instead.
 *     Memory: cycles of length 1; hmax = 2 holds at most 2 heads (mem 2), hmax = 64 holds 3
 *     (mem 3); both peak at 3 identifiers (two stored cycles plus the buffer [3] at step 7). */
static void test_cycle_directed(void **state) {
    (void)state;
    static const struct {
        const char *req, *pred, *hits;
        int hmax;
        int64_t mem, peak;
    } cases[] = {
        {"1 2 3 1 2 3 4 4 1 2 1 2 1 2", "- - - - 2 3 1 - 4 2 3 2 1 2",
         ". . . . H H . . . H . H H H", 64, 6, 4},
        {"1 1 2 2 1 1 3 3 2 2 1 1", "- - 1 - 2 1 1 - 3 - 2 -", ". . . . . H . . . . . .", 2, 2, 3},
        {"1 1 2 2 1 1 3 3 2 2 1 1", "- - 1 - 2 1 1 - 3 2 2 1", ". . . . . H . . . H . H", 64, 3, 3},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        ac_id x[MAXN], want[MAXN], pred[MAXN];
        uint64_t site[MAXN];
        unsigned char wh[MAXN], hit[MAXN];
        int n = parse_request(cases[c].req, x, site);
        assert_int_equal(parse_pred(cases[c].pred, want), n);
        assert_int_equal(parse_hits(cases[c].hits, wh), n);
        ac_pred_params prm;
        ac_pred_params_default(&prm);
        prm.hmax = cases[c].hmax;
        ac_pred_stats st;
        assert_int_equal(
            ac_pred_run(AC_PRED_BETTER_CYCLE, &prm, x, NULL, (size_t)n, hit, pred, &st), 0);
        for (int t = 0; t < n; t++)
            if (pred[t] != want[t] || hit[t] != wh[t])
                fail_msg("case %zu step %d: predicted %d hit %d, expected %d %d", c, t + 1, pred[t],
                         hit[t], want[t], wh[t]);
        assert_int_equal(st.mem, cases[c].mem);
        assert_int_equal(st.peak, cases[c].peak);
    }
}

/* LFU details (spec §3.2 reconstruction): persistent counts (default) vs in-cache counts reset
 * on eviction (option lfu_reset). */
static void test_lfu_counts(void **state) {
    (void)state;
    ac_pred_params prm;
    ac_pred_params_default(&prm);
    prm.window = 2;
    ac_pred_stats st;
    /* 5 5 1 2 1 2 5 with k = 2.
     * Persistent: 5(miss {5:1}) 5(hit, 5:2) 1(miss, {5,1}) 2(miss: evict 1 (count 1 < 2)
     * -> {5,2}) 1(miss: 1 count now 2, evict 2 (count 1) -> {5,1}) 2(miss: 2 count 2; members 5:2,
     * 1:2 tie -> evict the least recently used, 5 -> {1,2}) 5(miss, 5 count 3: members 1:2, 2:2
     * tie -> evict 1). Hits: 1.
     * Reset: in-cache counts 5:2, then 1 and 2 enter with 1 each; at step 6, members 5:2, 1:1 ->
     * evict 1 -> {5,2}; step 7: 5 hits. Hits: 2. */
    ac_id x[] = {5, 5, 1, 2, 1, 2, 5};
    unsigned char h[7];
    assert_int_equal(ac_pred_run(AC_PRED_LFU, &prm, x, NULL, 7, h, NULL, &st), 0);
    static const unsigned char persistent[7] = {0, 1, 0, 0, 0, 0, 0};
    assert_memory_equal(h, persistent, 7);
    prm.lfu_reset = 1;
    assert_int_equal(ac_pred_run(AC_PRED_LFU, &prm, x, NULL, 7, h, NULL, &st), 0);
    static const unsigned char reset[7] = {0, 1, 0, 0, 0, 0, 1};
    assert_memory_equal(h, reset, 7);
}

/* FIFO differs from LRU: k = 2 on 1 2 1 3 1: LRU keeps 1 (refreshed) and hits at step 5; FIFO
 * evicts 1 (oldest insertion) at step 4 and misses. */
static void test_fifo_vs_lru(void **state) {
    (void)state;
    ac_pred_params prm;
    ac_pred_params_default(&prm);
    prm.window = 2;
    ac_id x[] = {1, 2, 1, 3, 1};
    unsigned char h[5];
    static const unsigned char lru[5] = {0, 0, 1, 0, 1}, fifo[5] = {0, 0, 1, 0, 0};
    assert_int_equal(ac_pred_run(AC_PRED_LRU, &prm, x, NULL, 5, h, NULL, NULL), 0);
    assert_memory_equal(h, lru, 5);
    assert_int_equal(ac_pred_run(AC_PRED_FIFO, &prm, x, NULL, 5, h, NULL, NULL), 0);
    assert_memory_equal(h, fifo, 5);
    /* The set, most recent first, after 1 2 1 3 under LRU: {3, 1}. */
    ac_pred *p = ac_pred_create(AC_PRED_LRU, &prm);
    assert_non_null(p);
    for (int t = 0; t < 4; t++)
        ac_pred_feed(p, x[t], 0);
    ac_id set[4];
    assert_int_equal(ac_pred_predict_set(p, 0, set, 4), 2);
    assert_int_equal(set[0], 3);
    assert_int_equal(set[1], 1);
    assert_int_equal(ac_pred_next(p, 0), 3);
    ac_pred_free(p);
    /* A large window (sorted through a heap copy): 0..99 fed, most recent first. */
    prm.window = 100;
    p = ac_pred_create(AC_PRED_FIFO, &prm);
    assert_non_null(p);
    for (int t = 0; t < 100; t++)
        ac_pred_feed(p, t, 0);
    ac_id big[100];
    assert_int_equal(ac_pred_predict_set(p, 0, big, 100), 100);
    for (int t = 0; t < 100; t++)
        assert_int_equal(big[t], 99 - t);
    assert_int_equal(ac_pred_predict_set(p, 0, big, 3), 100); /* size, 3 written */
    assert_int_equal(big[2], 97);
    ac_pred_free(p);
}

/* Bounds: lmax, hmax, smax; multi-step-ahead. */
static void test_bounds_and_ahead(void **state) {
    (void)state;
    ac_pred_params prm;
    ac_pred_params_default(&prm);
    ac_pred_stats st;
    ac_id x[12];
    for (int t = 0; t < 12; t++)
        x[t] = t % 3 + 1; /* 1 2 3 1 2 3 ... */
    /* lmax = 2 < period 3: formation restarts on overflow and never stores a cycle. */
    prm.lmax = 2;
    assert_int_equal(ac_pred_run(AC_PRED_SINGLE_CYCLE, &prm, x, NULL, 12, NULL, NULL, &st), 0);
    assert_int_equal(st.hits, 0);
    assert_int_equal(st.max_cycle_len, 0);
    prm.lmax = 3;
    assert_int_equal(ac_pred_run(AC_PRED_SINGLE_CYCLE, &prm, x, NULL, 12, NULL, NULL, &st), 0);
    assert_int_equal(st.hits, 12 - 4);
    /* hmax = 1: E3 under Better-cycle keeps one head at a time. */
    prm.lmax = 1024;
    prm.hmax = 1;
    ac_id e3[MAXN];
    uint64_t site[MAXN];
    int n = parse_request(examples[2].request, e3, site);
    assert_int_equal(ac_pred_run(AC_PRED_BETTER_CYCLE, &prm, e3, NULL, (size_t)n, NULL, NULL, &st),
                     0);
    assert_int_equal(st.max_heads, 1);
    /* With one head, head 1 was evicted by head 7 at step 10, so step 12 starts a formation
     * like Single-cycle: same 9 hits. */
    assert_int_equal(st.hits, 9);
    /* smax = 1: the second site gets no prediction and no storage. */
    prm.hmax = 64;
    prm.smax = 1;
    ac_id tx[] = {4, 9, 4, 9, 4, 9};
    uint64_t ts[] = {1, 2, 1, 2, 1, 2};
    assert_int_equal(ac_pred_run(AC_PRED_TAGGING, &prm, tx, ts, 6, NULL, NULL, &st), 0);
    assert_int_equal(st.hits, 2);
    assert_int_equal(st.max_sites, 1);
    /* Ahead: E1 under Single-cycle after five requests (1 2 3 1 2) walks 3 1 2 3. */
    ac_pred *p = ac_pred_create(AC_PRED_SINGLE_CYCLE, NULL);
    assert_non_null(p);
    ac_id out[4];
    assert_int_equal(ac_pred_ahead(p, 0, 4, out), 0);
    for (int t = 0; t < 5; t++)
        ac_pred_feed(p, x[t], 0);
    assert_int_equal(ac_pred_ahead(p, 0, 4, out), 4);
    const ac_id want[4] = {3, 1, 2, 3};
    assert_memory_equal(out, want, sizeof want);
    ac_pred_free(p);
    /* Last-value kinds look one step ahead only; a tag kind looks at the given site. */
    p = ac_pred_create(AC_PRED_TAG_CYCLE2, NULL);
    assert_non_null(p);
    ac_pred_feed(p, 6, 42);
    assert_int_equal(ac_pred_ahead(p, 42, 4, out), 1);
    assert_int_equal(out[0], 6);
    assert_int_equal(ac_pred_ahead(p, 43, 4, out), 0);
    ac_pred_feed(p, 6, 42); /* closes {6} at site 42 */
    assert_int_equal(ac_pred_ahead(p, 42, 3, out), 3);
    assert_true(out[0] == 6 && out[1] == 6 && out[2] == 6);
    ac_pred_free(p);
}

static void test_names_and_bad_input(void **state) {
    (void)state;
    for (int k = 0; k < AC_PRED_NKINDS; k++) {
        assert_non_null(ac_pred_name((ac_pred_kind)k));
        assert_non_null(ac_pred_desc((ac_pred_kind)k));
        assert_int_equal(ac_pred_parse(ac_pred_name((ac_pred_kind)k)), k);
    }
    assert_int_equal(ac_pred_parse("tag-BetterCycle2"), AC_PRED_TAG_BETTERCYCLE2);
    assert_int_equal(ac_pred_parse("lru"), AC_PRED_LRU);
    assert_int_equal(ac_pred_parse("Tag-cycle3"), -1);
    assert_int_equal(ac_pred_parse("Tag"), -1);
    assert_int_equal(ac_pred_parse(""), -1);
    assert_int_equal(ac_pred_parse(NULL), -1);
    assert_null(ac_pred_name(AC_PRED_NKINDS));
    assert_true(ac_pred_is_window(AC_PRED_LFU) && !ac_pred_is_window(AC_PRED_SINGLE_CYCLE));
    assert_true(ac_pred_is_tagged(AC_PRED_TAGGING) && !ac_pred_is_tagged(AC_PRED_BETTER_CYCLE2));

    ac_pred_params prm;
    ac_pred_params_default(&prm);
    prm.window = 0;
    assert_null(ac_pred_create(AC_PRED_LRU, &prm));
    ac_pred_params_default(&prm);
    prm.lmax = 0;
    assert_null(ac_pred_create(AC_PRED_SINGLE_CYCLE, &prm));
    assert_null(ac_pred_create(AC_PRED_NKINDS, NULL));
    assert_null(ac_pred_create((ac_pred_kind)-1, NULL));

    for (int k = 0; k < AC_PRED_NKINDS; k++) {
        ac_pred *p = ac_pred_create((ac_pred_kind)k, NULL);
        assert_non_null(p);
        assert_int_equal(ac_pred_kind_of(p), k);
        assert_int_equal(ac_pred_feed(p, 3, 7), 0);
        assert_int_equal(ac_pred_feed(p, -1, 7), -1); /* rejected, nothing counted */
        assert_int_equal(ac_pred_feed(p, AC_ID_NONE, 7), -1);
        ac_pred_stats st;
        ac_pred_get_stats(p, &st);
        assert_int_equal(st.events, 1);
        ac_pred_free(p);
    }
    ac_pred_free(NULL);
    ac_id bad[] = {1, -5};
    assert_int_equal(ac_pred_run(AC_PRED_LRU, NULL, bad, NULL, 2, NULL, NULL, NULL), -1);
    assert_int_equal(ac_pred_run(AC_PRED_LRU, NULL, NULL, NULL, 3, NULL, NULL, NULL), -1);
    ac_pred_stats st;
    assert_int_equal(ac_pred_run(AC_PRED_LRU, NULL, NULL, NULL, 0, NULL, NULL, &st), 0);
    assert_int_equal(st.events, 0);

    double v[] = {0.5, NAN, 0.25, 1.0}, lo, avg, hi;
    assert_int_equal(ac_pred_summary(v, 4, &lo, &avg, &hi), 3);
    assert_true(lo == 0.25 && hi == 1.0 && fabs(avg - 1.75 / 3) < 1e-15);
    assert_int_equal(ac_pred_summary(v + 1, 1, &lo, &avg, &hi), 0);
    assert_true(isnan(lo) && isnan(avg) && isnan(hi));
}

/* Many sites and identifiers: exercises the hash-map growth and all frees (checked by the
 * sanitizer/valgrind builds). Tagging on a per-site constant stream hits after each site's
 * first request. */
static void test_many_sites(void **state) {
    (void)state;
    enum { N = 20000, S = 3000 };
    static ac_id x[N];
    static uint64_t site[N];
    for (int t = 0; t < N; t++) {
        site[t] = (uint64_t)(rnd() % S) * 0x9e3779b97f4a7c15ULL;
        x[t] = (ac_id)(site[t] % 1000003);
    }
    ac_pred_stats st;
    assert_int_equal(ac_pred_run(AC_PRED_TAGGING, NULL, x, site, N, NULL, NULL, &st), 0);
    assert_int_equal(st.hits, (uint64_t)N - (uint64_t)st.max_sites);
    for (int k = AC_PRED_TAG_CYCLE; k <= AC_PRED_TAG_BETTERCYCLE2; k++) {
        assert_int_equal(ac_pred_run((ac_pred_kind)k, NULL, x, site, N, NULL, NULL, &st), 0);
        assert_int_equal(st.max_cycle_len, 1);
    }
    ac_pred_params prm;
    ac_pred_params_default(&prm);
    prm.window = 8;
    assert_int_equal(ac_pred_run(AC_PRED_LFU, &prm, x, NULL, N, NULL, NULL, &st), 0);
    assert_int_equal(st.events, N);
}

/* ---- spec §4.2 --------------------------------------------------------------------------- */

static void test_reconf_vector(void **state) {
    (void)state;
    /* Rows (I, size of previous message, hit): (30, 4000, H), (8, 2000, H), (15, 0, M),
     * (3, 5000, H), (12, 1000, H): six sends, gaps 1..5. */
    const double gap[6] = {0, 30, 8, 15, 3, 12};
    const double size[6] = {4000, 2000, 0, 5000, 1000, 777};
    const unsigned char hit[6] = {0, 1, 1, 0, 1, 1};
    ac_reconf_result r;
    assert_int_equal(ac_reconf_hide(6, gap, size, hit, 10, 1000, 1, &r), 0);
    assert_true(fabs(r.new_cost - 24) < 1e-9 && fabs(r.orig_cost - 50) < 1e-9);
    assert_true(fabs(r.ratio - 0.48) < 1e-12);
    assert_int_equal(r.gaps, 5);
    assert_int_equal(r.hidden, 2);    /* rows 1 and 5 */
    assert_int_equal(r.partial, 1);   /* row 2: 10 - 6 */
    assert_int_equal(r.missed, 1);    /* row 3 */
    assert_int_equal(r.too_short, 1); /* row 4: 3 - 5 < 0 */
    assert_int_equal(ac_reconf_hide(6, gap, size, hit, 1, 1000, 1, &r), 0);
    assert_true(fabs(r.ratio - 0.4) < 1e-12);
    assert_int_equal(ac_reconf_hide(6, gap, size, hit, 25, 1000, 1, &r), 0);
    assert_true(fabs(r.ratio - 0.664) < 1e-12);
    assert_int_equal(ac_reconf_hide(6, gap, size, hit, 10, 1000, 10, &r), 0);
    assert_true(fabs(r.new_cost - 49.8) < 1e-9);
    assert_true(fabs(r.ratio - 0.996) < 1e-12);
    /* No gap: nothing to hide, ratio undefined. */
    assert_int_equal(ac_reconf_hide(1, gap, size, hit, 10, 1000, 1, &r), 0);
    assert_true(r.gaps == 0 && isnan(r.ratio));
    assert_int_equal(ac_reconf_hide(0, NULL, NULL, NULL, 10, 1000, 1, &r), 0);
    /* Bad parameters. */
    assert_int_equal(ac_reconf_hide(6, gap, size, hit, -1, 1000, 1, &r), -1);
    assert_int_equal(ac_reconf_hide(6, gap, size, hit, 10, 0, 1, &r), -1);
    assert_int_equal(ac_reconf_hide(6, gap, size, hit, 10, 1000, 0, &r), -1);
    assert_int_equal(ac_reconf_hide(6, gap, size, hit, NAN, 1000, 1, &r), -1);
    assert_int_equal(ac_reconf_hide(6, NULL, size, hit, 10, 1000, 1, &r), -1);
    assert_int_equal(ac_reconf_hide(6, gap, size, hit, 10, 1000, 1, NULL), -1);
}

/* ---- spec §4.3 --------------------------------------------------------------------------- */

static void test_early_arrival(void **state) {
    (void)state;
    /* Four processes; each array lists every process's events in its issue order, with the
     * processes interleaved.
     *   sends (from->to comm tag @time)   receives (at <- from comm tag @time)   pairs with
     *   s3 1->0 c0 t7 @3                  r7 3 <- 2 c0 t5 @1                     no send
     *   s5 0->1 c1 t5 @8                  r1 1 <- 2 c0 t5 @11                    s2 @12: early
     *   s0 0->1 c0 t5 @10                 r0 1 <- 0 c0 t5 @15                    s0 @10: late
     *   s2 2->1 c0 t5 @12                 r3 0 <- 1 c0 t7 @3                     s3 @3: equal, late
     *   s4 0->2 c0 t1 @40                 r2 1 <- 0 c0 t5 @18                    s1 @20: early
     *   s1 0->1 c0 t5 @20                 r5 2 <- 0 c0 t9 @50                    no send
     *                                     r4 2 <- 0 c0 t1 @30                    s4 @40: early
     *                                     r6 1 <- 0 c1 t5 @50                    s5 @8: late
     * r7 waits for a message from 2 to 3 that is never sent (a key without the receiver would
     * pair it with s2). r0 is the first receive at 1 from 0 on (c0, t5), so it pairs with s0,
     * the first such send, and r2 with s1 (a key without the sender would pair r1 with s0:
     * late). s5 is on another communicator and pairs with r6 only. r5 (tag 9) pairs with
     * nothing although it precedes r4 at rank 2 (a key without the tag would pair it with s4).
     * Per process: rank 0:
     * 1 receive, 1 matched, 0 early (0 %); rank 1: 4, 4, 2 (50 %); rank 2: 2, 1, 1 (100 %);
     * rank 3: 1, 0, 0 (no matched receive: left out of the mean). Mean: (0 + 50 + 100) / 3 =
     * 50 %. */
    const ac_ea_send s[] = {{1, 0, 0, 7, 3},  {0, 1, 1, 5, 8},  {0, 1, 0, 5, 10},
                            {2, 1, 0, 5, 12}, {0, 2, 0, 1, 40}, {0, 1, 0, 5, 20}};
    const ac_ea_recv r[] = {{3, 2, 0, 5, 1},  {1, 2, 0, 5, 11}, {1, 0, 0, 5, 15}, {0, 1, 0, 7, 3},
                            {1, 0, 0, 5, 18}, {2, 0, 0, 9, 50}, {2, 0, 0, 1, 30}, {1, 0, 1, 5, 50}};
    ac_ea_proc out[4];
    double avg;
    int64_t bad;
    assert_int_equal(ac_early_arrival(s, 6, r, 8, 4, out, &avg, &bad), 0);
    const int64_t want[4][3] = {{1, 1, 0}, {4, 4, 2}, {2, 1, 1}, {1, 0, 0}};
    for (int p = 0; p < 4; p++) {
        assert_int_equal(out[p].recvs, want[p][0]);
        assert_int_equal(out[p].matched, want[p][1]);
        assert_int_equal(out[p].early, want[p][2]);
    }
    assert_true(fabs(avg - 50.0) < 1e-9);
    /* Pairing follows issue order, not time: an Irecv whose Wait comes late gets a late
     * receive time. With r0 @30 and r2 @15, r0 still pairs with s0 (30 vs 10: late) and r2 with
     * s1 (15 vs 20: early); with r1 early and r6 late, rank 1 has 2 early receives. (Pairing by
     * time would give r2-s0 and r0-s1, both late: 1.) */
    ac_ea_recv r2[8];
    memcpy(r2, r, sizeof r);
    r2[2].t = 30;
    r2[4].t = 15;
    assert_int_equal(ac_early_arrival(s, 6, r2, 8, 4, out, &avg, NULL), 0);
    assert_int_equal(out[1].early, 2);
    /* Nothing matched: NaN mean. */
    assert_int_equal(ac_early_arrival(s, 0, r, 8, 4, out, &avg, NULL), 0);
    assert_true(isnan(avg) && out[1].recvs == 4 && out[1].matched == 0);
    /* Bad ranks are reported by index. */
    ac_ea_send sb[] = {{0, 4, 0, 0, 0}};
    assert_int_equal(ac_early_arrival(sb, 1, r, 8, 4, out, &avg, &bad), -1);
    assert_int_equal(bad, 0);
    ac_ea_recv rb[] = {{0, 1, 0, 0, 0}, {-1, 0, 0, 0, 0}};
    assert_int_equal(ac_early_arrival(s, 6, rb, 2, 4, out, &avg, &bad), -1);
    assert_int_equal(bad, -2);
    assert_int_equal(ac_early_arrival(s, 6, r, 8, 4, NULL, &avg, &bad), -1);
}

/* The prediction hit flags feed the reconfiguration model (spec §4.2 uses Better-cycle2 and
 * Tag-bettercycle2): E1 under Better-cycle2, every gap 20 us, no bytes, d = 10. Gaps 1-8 are
 * steps 2-9; steps 2-4 miss (3 x 10), steps 5-9 hit with 20 >= d (hidden): 30 / 80. */
static void test_pipeline(void **state) {
    (void)state;
    ac_id x[MAXN];
    uint64_t site[MAXN];
    unsigned char hit[MAXN];
    int n = parse_request(examples[0].request, x, site);
    assert_int_equal(ac_pred_run(AC_PRED_BETTER_CYCLE2, NULL, x, NULL, (size_t)n, hit, NULL, NULL),
                     0);
    double gap[MAXN], size[MAXN];
    for (int i = 0; i < n; i++)
        gap[i] = 20, size[i] = 0;
    ac_reconf_result r;
    assert_int_equal(ac_reconf_hide((size_t)n, gap, size, hit, 10, 1000, 1, &r), 0);
    assert_int_equal(r.gaps, 8);
    assert_int_equal(r.missed, 3);
    assert_true(fabs(r.ratio - 30.0 / 80) < 1e-12);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_examples),   cmocka_unit_test(test_memory_formulas),
        cmocka_unit_test(test_memory_peak),       cmocka_unit_test(test_periodic),
        cmocka_unit_test(test_window_properties), cmocka_unit_test(test_cycle_properties),
        cmocka_unit_test(test_lfu_counts),        cmocka_unit_test(test_fifo_vs_lru),
        cmocka_unit_test(test_bounds_and_ahead),  cmocka_unit_test(test_names_and_bad_input),
        cmocka_unit_test(test_many_sites),        cmocka_unit_test(test_reconf_vector),
        cmocka_unit_test(test_early_arrival),     cmocka_unit_test(test_pipeline),
        cmocka_unit_test(test_cycle_directed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
