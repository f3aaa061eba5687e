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

/* Child i of tree t: reduce t1 = at (t_out t2), bcast t4 = at (t_in t3). */
static void child(ac_trace_rec_t *x, const ac_trace_rec_t *t, int i, int64_t at) {
    *x = *t;
    x->kind = AC_TK_PART_CHILD;
    x->count = i;
    x->tag = 2 + i;
    x->root = 5 + i;
    if (t->status_tag == AC_PART_REDUCE) {
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(part_metrics_hand),
        cmocka_unit_test(part_metrics_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
