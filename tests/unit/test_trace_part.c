/* Unit tests of the vertex metrics of hierarchical calls' trees (src/trace/trace_part.c; seed 003
 * §4, spec allreduce-trees.md §7.2) on hand-made part_tree / part_child records. Every expected
 * value is computed by hand from the spec's formulas on the times below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "core/ac.h"
#include "trace/trace.h"

/* A tree record of rank 4 (parent 3) at stage, op, entry `in`, t2/t3 `mid`. */
static void tree(ac_trace_rec_t *x, int stage, int op, int64_t in, int64_t mid) {
    ac_trace_rec_clear(x, AC_TK_PART_TREE);
    x->seq = 9;
    x->t_in = in;
    x->t_out = mid;
    x->peer = 4;
    x->root = 3;
    x->ident = 1;
    x->count = 3;
    x->tag = 0;
    x->status_source = stage;
    x->status_tag = op;
}

/* Child i of tree t: reduce, gather t1 = at (t_out t2); bcast, scatter t4 = at (t_in t3). */
static void child(ac_trace_rec_t *x, const ac_trace_rec_t *t, int i, int64_t at) {
    *x = *t;
    x->kind = AC_TK_PART_CHILD;
    x->count = i;
    x->tag = 2 + i;
    x->root = 5 + i;
    if (ac_part_op_gathers(t->status_tag)) {
        x->t_in = at;
        x->t_out = t->t_out;
    } else {
        x->t_in = t->t_out;
        x->t_out = at;
    }
}

static void part_metrics_hand(void **state) {
    (void)state;
    ac_trace_rec_t r[8];
    ac_part_vertex_t v;
    char err[128];
    /* Reduce, intra-node: entry 50, children seen at 100, 250, 180, t2 = 300:
     * arrival wait 250 - 100 = 150, down latency 300 - 250 = 50, before 300 - 50 = 250. */
    tree(&r[0], AC_HIER_INTRA, AC_PART_REDUCE, 50, 300);
    child(&r[1], &r[0], 0, 100);
    child(&r[2], &r[0], 1, 250);
    child(&r[3], &r[0], 2, 180);
    tree(&r[4], AC_HIER_INTER, AC_PART_BCAST, 310, 400); /* the next run stops the first */
    assert_int_equal(ac_part_vertex(r, 5, &v, err, sizeof err), 4);
    assert_int_equal(v.stage, AC_HIER_INTRA);
    assert_int_equal(v.op, AC_PART_REDUCE);
    assert_int_equal(v.rank, 4);
    assert_int_equal(v.parent, 3);
    assert_int_equal(v.nch, 3);
    assert_int_equal(v.arrival_wait, 150);
    assert_int_equal(v.down_latency, 50);
    assert_int_equal(v.before, 250);
    assert_int_equal(v.up_latency, 0);
    assert_int_equal(v.departure_wait, 0);
    /* Bcast, inter-node: entry 310, t3 = 400, departures 420, 450:
     * up latency 420 - 400 = 20, departure wait 450 - 420 = 30, before 400 - 310 = 90. */
    child(&r[5], &r[4], 0, 420);
    child(&r[6], &r[4], 1, 450);
    assert_int_equal(ac_part_vertex(r + 4, 3, &v, err, sizeof err), 3);
    assert_int_equal(v.stage, AC_HIER_INTER);
    assert_int_equal(v.op, AC_PART_BCAST);
    assert_int_equal(v.up_latency, 20);
    assert_int_equal(v.departure_wait, 30);
    assert_int_equal(v.before, 90);
    assert_int_equal(v.arrival_wait, 0);
    /* Leaves: a reduce leaf's down latency is t2 - entry (70 - 60); a bcast leaf has none. */
    tree(&r[0], AC_HIER_INTRA, AC_PART_REDUCE, 60, 70);
    assert_int_equal(ac_part_vertex(r, 1, &v, err, sizeof err), 1);
    assert_int_equal(v.down_latency, 10);
    assert_int_equal(v.arrival_wait, 0);
    tree(&r[0], AC_HIER_INTRA, AC_PART_BCAST, 60, 95);
    assert_int_equal(ac_part_vertex(r, 1, &v, err, sizeof err), 1);
    assert_int_equal(v.before, 35);
    assert_int_equal(v.up_latency + v.departure_wait, 0);
    /* A gather tree is measured as a reduce tree (children at 120 and 100, t2 = 130: arrival
     * wait 20, down latency 10), a scatter tree as a bcast tree (t3 = 40, departures 45 and
     * 60: up latency 5, departure wait 15). */
    tree(&r[0], AC_HIER_INTRA, AC_PART_GATHER, 90, 130);
    child(&r[1], &r[0], 0, 120);
    child(&r[2], &r[0], 1, 100);
    assert_int_equal(ac_part_vertex(r, 3, &v, err, sizeof err), 3);
    assert_int_equal(v.op, AC_PART_GATHER);
    assert_int_equal(v.arrival_wait, 20);
    assert_int_equal(v.down_latency, 10);
    tree(&r[0], AC_HIER_INTRA, AC_PART_SCATTER, 30, 40);
    child(&r[1], &r[0], 0, 45);
    child(&r[2], &r[0], 1, 60);
    assert_int_equal(ac_part_vertex(r, 3, &v, err, sizeof err), 3);
    assert_int_equal(v.up_latency, 5);
    assert_int_equal(v.departure_wait, 15);
    assert_int_equal(v.arrival_wait + v.down_latency, 0);
}

static void part_metrics_rejects(void **state) {
    (void)state;
    ac_trace_rec_t r[4];
    ac_part_vertex_t v;
    char err[128];
    tree(&r[0], AC_HIER_INTRA, AC_PART_REDUCE, 50, 300);
    child(&r[1], &r[0], 0, 100);
    child(&r[2], &r[0], 1, 250);
    /* Not starting with a tree record. */
    assert_int_equal(ac_part_vertex(r + 1, 2, &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "part_tree"));
    /* Positions out of order. */
    r[2].count = 2;
    assert_int_equal(ac_part_vertex(r, 3, &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "position"));
    /* A child of another rank's tree. */
    child(&r[2], &r[0], 1, 250);
    r[2].peer = 7;
    assert_int_equal(ac_part_vertex(r, 3, &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "belong"));
    /* A reduce child seen after the partial result left. */
    child(&r[2], &r[0], 1, 301);
    r[2].t_out = 300;
    assert_int_equal(ac_part_vertex(r, 3, &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "t1 after t2"));
    /* Unknown stage and operation. */
    child(&r[2], &r[0], 1, 250);
    r[0].status_source = 2;
    assert_int_equal(ac_part_vertex(r, 3, &v, err, sizeof err), -1);
    r[0].status_source = AC_HIER_INTRA;
    r[0].status_tag = 5;
    assert_int_equal(ac_part_vertex(r, 3, &v, err, sizeof err), -1);
    assert_int_equal(ac_part_vertex(NULL, 0, &v, err, sizeof err), -1);
}

/* A step record of call 9 at stage, op over [in, out]. */
static void step(ac_trace_rec_t *x, int stage, int op, int64_t in, int64_t out) {
    ac_trace_rec_clear(x, AC_TK_PART_STEP);
    x->seq = 9;
    x->t_in = in;
    x->t_out = out;
    x->peer = 4;
    x->status_source = stage;
    x->status_tag = op;
}

static int64_t sum_type(const ac_stage_t *st, int n, int type) {
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        s += st[i].type == type ? st[i].ns : 0;
    return s;
}

/* A node leader in allreduce `hierarchical` (call 9 from 0 to 1000 ns):
 *   intra-node reduce part 5..65, its tree entered at 10 as the node's root, children seen at
 *   30 and 50, result at 60; the leaders' exchange 70..200 (no tree); intra-node bcast part
 *   205..300, tree entered at 210 as the root, departures at 220 and 240.
 * By hand (spec 7.1 stages): entry 5; child wait 30 - 10 = 20, arrival wait 50 - 30 = 20, down
 * latency 60 - 50 = 10, rest of the part (10 - 5) + (65 - 60) = 10; local 70 - 65 = 5, core
 * 200 - 70 = 130; local 205 - 200 = 5, up latency 220 - 210 = 10, departure wait 240 - 220 =
 * 20, rest (210 - 205) + (300 - 240) = 65; exit 1000 - 300 = 700.
 * Parts: down with waits 5+20+20+10+10+5+130 = 200, arrival waits 20, down without 180, up
 * 5+10+20+65+700 = 800; core 130, entry and exit 705, intra-node 140, inter-node 5. */
static void part_path_hand(void **state) {
    (void)state;
    ac_trace_rec_t r[12];
    ac_stage_t st[32];
    char err[128];
    int neg = -1;
    ac_trace_rec_clear(&r[0], AUTOCOLL_ALLREDUCE);
    r[0].seq = 9;
    r[0].t_in = 0;
    r[0].t_out = 1000;
    tree(&r[1], AC_HIER_INTRA, AC_PART_REDUCE, 10, 60);
    r[1].root = r[1].tag = -1;
    child(&r[2], &r[1], 0, 30);
    child(&r[3], &r[1], 1, 50);
    step(&r[4], AC_HIER_INTRA, AC_PART_REDUCE, 5, 65);
    step(&r[5], AC_HIER_INTER, AC_PART_EXCHANGE, 70, 200);
    tree(&r[6], AC_HIER_INTRA, AC_PART_BCAST, 210, 210);
    r[6].root = r[6].tag = -1;
    child(&r[7], &r[6], 0, 220);
    child(&r[8], &r[6], 1, 240);
    step(&r[9], AC_HIER_INTRA, AC_PART_BCAST, 205, 300);
    int n = ac_part_path(r, 10, st, 32, &neg, err, sizeof err);
    assert_int_equal(n, 12);
    assert_int_equal(neg, 0);
    static const int type[12] = {AC_ST_ENTRY,          AC_ST_CHILD_WAIT, AC_ST_ARRIVAL_WAIT,
                                 AC_ST_DOWN,           AC_ST_PART_DOWN,  AC_ST_PART_DOWN,
                                 AC_ST_CORE,           AC_ST_PART_UP,    AC_ST_UP,
                                 AC_ST_DEPARTURE_WAIT, AC_ST_PART_UP,    AC_ST_EXIT};
    static const int64_t ns[12] = {5, 20, 20, 10, 10, 5, 130, 5, 10, 20, 65, 700};
    static const int level[12] = {0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        assert_int_equal(st[i].type, type[i]);
        assert_int_equal(st[i].ns, ns[i]);
        assert_int_equal(st[i].level, level[i]);
    }
    assert_int_equal(st[6].vkind, AC_HIER_INTER);
    assert_int_equal(st[6].vertex, AC_PART_EXCHANGE);
    assert_int_equal(st[9].vertex, AC_PART_BCAST);
    ac_stage_parts_t x;
    ac_stage_parts(st, n, 1000, &x);
    assert_int_equal(x.down_wait, 200);
    assert_int_equal(x.arrival_wait, 20);
    assert_int_equal(x.down_nowait, 180);
    assert_int_equal(x.up, 800);
    assert_int_equal(x.core, 130);
    assert_int_equal(x.wrapper, 705);
    assert_int_equal(x.host, 140);
    assert_int_equal(x.cluster, 5);
    assert_int_equal(ac_stage_identity_error(&x), 0);
    /* Measured total 1003 (3 ns of clock correction): both identities off by 3. */
    ac_stage_parts(st, n, 1003, &x);
    assert_int_equal(ac_stage_identity_error(&x), 3);

    /* The root of an inter-node reduce tree:
     * inter-node reduce part 100..400, tree entered at 110 as the root with one child seen at
     * 300, result at 350: child wait 190, arrival wait 0, core 50, rest 10 + 50 = 60; a
     * bcast leaf part 400..500, tree entered at 420, value at 480: parent wait 60, rest 20 +
     * 20 = 40. Entry 100 (call from 0), exit 600 - 500 = 100. */
    r[0].t_out = 600;
    tree(&r[1], AC_HIER_INTER, AC_PART_REDUCE, 110, 350);
    r[1].root = r[1].tag = -1;
    child(&r[2], &r[1], 0, 300);
    step(&r[3], AC_HIER_INTER, AC_PART_REDUCE, 100, 400);
    tree(&r[4], AC_HIER_INTRA, AC_PART_BCAST, 420, 480);
    step(&r[5], AC_HIER_INTRA, AC_PART_SCATTER, 400, 500);
    n = ac_part_path(r, 6, st, 32, &neg, err, sizeof err);
    assert_int_equal(n, 9);
    assert_int_equal(sum_type(st, n, AC_ST_ENTRY), 100);
    assert_int_equal(sum_type(st, n, AC_ST_CHILD_WAIT), 190);
    assert_int_equal(sum_type(st, n, AC_ST_ARRIVAL_WAIT), 0);
    assert_int_equal(sum_type(st, n, AC_ST_CORE), 50);
    assert_int_equal(sum_type(st, n, AC_ST_DOWN), 0);
    assert_int_equal(sum_type(st, n, AC_ST_PART_DOWN), 60);
    assert_int_equal(sum_type(st, n, AC_ST_PARENT_WAIT), 60);
    assert_int_equal(sum_type(st, n, AC_ST_PART_UP), 0 + 40);
    assert_int_equal(sum_type(st, n, AC_ST_EXIT), 100);
    ac_stage_parts(st, n, 600, &x);
    assert_int_equal(x.down_wait, 100 + 190 + 50 + 60);
    assert_int_equal(x.up, 60 + 40 + 100);
    assert_int_equal(ac_stage_identity_error(&x), 0);

    /* A gather part (0..100) with its tree (entered at 10, children at 40 and 60, t2 at 70):
     * entry 0, child wait 30, arrival wait 20, down latency 10, rest 10 + 30 = 40 (down); no
     * core (only a reduce root is the core). Exit 150 - 100 = 50. */
    ac_trace_rec_t g[6];
    g[0] = r[0];
    g[0].t_out = 150;
    tree(&g[1], AC_HIER_INTRA, AC_PART_GATHER, 10, 70);
    g[1].root = -1;
    child(&g[2], &g[1], 0, 40);
    child(&g[3], &g[1], 1, 60);
    step(&g[4], AC_HIER_INTRA, AC_PART_GATHER, 0, 100);
    n = ac_part_path(g, 5, st, 32, &neg, err, sizeof err);
    assert_int_equal(n, 6);
    assert_int_equal(sum_type(st, n, AC_ST_CHILD_WAIT), 30);
    assert_int_equal(sum_type(st, n, AC_ST_ARRIVAL_WAIT), 20);
    assert_int_equal(sum_type(st, n, AC_ST_DOWN), 10);
    assert_int_equal(sum_type(st, n, AC_ST_CORE), 0);
    assert_int_equal(sum_type(st, n, AC_ST_PART_DOWN), 40);
    ac_stage_parts(st, n, 150, &x);
    assert_int_equal(x.down_wait, 100);
    assert_int_equal(x.up, 50);
    assert_int_equal(ac_stage_identity_error(&x), 0);

    /* Stamps out of order: the step starts before the previous one ended (one negative
     * local stage). */
    r[5].t_in = 390;
    n = ac_part_path(r, 6, st, 32, &neg, err, sizeof err);
    assert_int_equal(neg, 1);
    ac_stage_parts(st, n, 600, &x);
    assert_int_equal(ac_stage_identity_error(&x), 0);
}

static void part_path_rejects(void **state) {
    (void)state;
    ac_trace_rec_t r[6];
    ac_stage_t st[32];
    char err[128];
    int neg;
    ac_trace_rec_clear(&r[0], AUTOCOLL_REDUCE);
    r[0].seq = 9;
    r[0].t_out = 100;
    tree(&r[1], AC_HIER_INTRA, AC_PART_REDUCE, 10, 60);
    step(&r[2], AC_HIER_INTRA, AC_PART_REDUCE, 5, 65);
    assert_int_equal(ac_part_path(r, 3, st, 32, &neg, err, sizeof err), 4);
    /* The step record missing. */
    assert_int_equal(ac_part_path(r, 2, st, 32, &neg, err, sizeof err), -1);
    assert_non_null(strstr(err, "part_step"));
    /* A step of another call. */
    r[2].seq = 8;
    assert_int_equal(ac_part_path(r, 3, st, 32, &neg, err, sizeof err), -1);
    assert_non_null(strstr(err, "call 8"));
    r[2].seq = 9;
    /* Unknown operation. */
    r[2].status_tag = AC_PART_NOPS;
    assert_int_equal(ac_part_path(r, 3, st, 32, &neg, err, sizeof err), -1);
    r[2].status_tag = AC_PART_REDUCE;
    /* A tree of another stage than its part. */
    r[1].status_source = AC_HIER_INTER;
    assert_int_equal(ac_part_path(r, 3, st, 32, &neg, err, sizeof err), -1);
    r[1].status_source = AC_HIER_INTRA;
    /* Too little room. */
    assert_int_equal(ac_part_path(r, 3, st, 3, &neg, err, sizeof err), -1);
    assert_non_null(strstr(err, "stages"));
    /* Not a call record first. */
    assert_int_equal(ac_part_path(r + 1, 2, st, 32, &neg, err, sizeof err), -1);
}

/* Table 1 at a vertex of a tree that goes one way (ac_part_orders): orders worked out by hand
 * from the times below (0 = first; ties keep position order). */
static void part_orders_hand(void **state) {
    (void)state;
    ac_trace_rec_t r[4];
    int arr[3], dep[3];
    char err[128];
    /* Reduce: t1 of the children at positions 0..2 at 100, 250, 180: arrival orders 0, 2, 1;
     * their parts end at 90, 120, 300: departure orders 0, 1, 2. */
    tree(&r[0], AC_HIER_INTRA, AC_PART_REDUCE, 50, 300);
    child(&r[1], &r[0], 0, 100);
    child(&r[2], &r[0], 1, 250);
    child(&r[3], &r[0], 2, 180);
    int64_t leave[3] = {90, 120, 300};
    assert_int_equal(ac_part_orders(r, 4, leave, arr, dep, err, sizeof err), 3);
    assert_int_equal(arr[0], 0);
    assert_int_equal(arr[1], 2);
    assert_int_equal(arr[2], 1);
    assert_int_equal(dep[0], 0);
    assert_int_equal(dep[1], 1);
    assert_int_equal(dep[2], 2);
    /* Ties: parts ending at 120, 120, 50: position 2 first, then 0 before 1. */
    int64_t tie[3] = {120, 120, 50};
    assert_int_equal(ac_part_orders(r, 4, tie, arr, dep, err, sizeof err), 3);
    assert_int_equal(dep[0], 1);
    assert_int_equal(dep[1], 2);
    assert_int_equal(dep[2], 0);
    /* Bcast: t3 = 400, t4 to positions 0..2 at 420, 450, 410: departure orders 1, 2, 0; the
     * children entered the tree at 380, 200, 390: arrival orders 1, 0, 2. */
    tree(&r[0], AC_HIER_INTER, AC_PART_BCAST, 310, 400);
    child(&r[1], &r[0], 0, 420);
    child(&r[2], &r[0], 1, 450);
    child(&r[3], &r[0], 2, 410);
    int64_t enter[3] = {380, 200, 390};
    assert_int_equal(ac_part_orders(r, 4, enter, arr, dep, err, sizeof err), 3);
    assert_int_equal(arr[0], 1);
    assert_int_equal(arr[1], 0);
    assert_int_equal(arr[2], 2);
    assert_int_equal(dep[0], 1);
    assert_int_equal(dep[1], 2);
    assert_int_equal(dep[2], 0);
    /* Bad records, no times. */
    assert_int_equal(ac_part_orders(r + 1, 3, enter, arr, dep, err, sizeof err), -1);
    assert_non_null(strstr(err, "part_tree"));
    assert_int_equal(ac_part_orders(r, 4, NULL, arr, dep, err, sizeof err), -1);
}

/* The child's side of Table 1 from its own records (ac_part_child_time). */
static void part_child_time_hand(void **state) {
    (void)state;
    ac_trace_rec_t r[6];
    int64_t t = -1;
    ac_trace_rec_clear(&r[0], AUTOCOLL_REDUCE);
    r[0].t_in = 10;
    r[0].t_out = 200;
    /* A reduce run under parent 7 (part ends at 80), then one under parent 3 (entry 85,
     * t2 90, part ends at 95). */
    tree(&r[1], AC_HIER_INTRA, AC_PART_REDUCE, 20, 70);
    r[1].root = 7;
    ac_trace_rec_clear(&r[2], AC_TK_PART_STEP);
    r[2].t_in = 15;
    r[2].t_out = 80;
    tree(&r[3], AC_HIER_INTER, AC_PART_REDUCE, 85, 90);
    ac_trace_rec_clear(&r[4], AC_TK_PART_STEP);
    r[4].t_in = 80;
    r[4].t_out = 95;
    assert_int_equal(ac_part_child_time(r, 5, AC_HIER_INTER, AC_PART_REDUCE, 3, &t), 0);
    assert_int_equal(t, 95);
    assert_int_equal(ac_part_child_time(r, 5, AC_HIER_INTRA, AC_PART_REDUCE, 7, &t), 0);
    assert_int_equal(t, 80);
    /* No run under parent 5, none of that stage, and a run without its step. */
    assert_int_equal(ac_part_child_time(r, 5, AC_HIER_INTER, AC_PART_REDUCE, 5, &t), -1);
    assert_int_equal(ac_part_child_time(r, 5, AC_HIER_INTRA, AC_PART_REDUCE, 3, &t), -1);
    assert_int_equal(ac_part_child_time(r, 4, AC_HIER_INTER, AC_PART_REDUCE, 3, &t), -1);
    /* A bcast run: its entry (85). */
    r[3].status_tag = AC_PART_BCAST;
    assert_int_equal(ac_part_child_time(r, 5, AC_HIER_INTER, AC_PART_BCAST, 3, &t), 0);
    assert_int_equal(t, 85);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(part_metrics_hand), cmocka_unit_test(part_metrics_rejects),
        cmocka_unit_test(part_path_hand),    cmocka_unit_test(part_path_rejects),
        cmocka_unit_test(part_orders_hand),  cmocka_unit_test(part_child_time_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
