/* Unit tests of the per-stage analysis of reduction trees (src/trace/trace_stage.c; seed 003 §4,
 * spec allreduce-trees.md §7.1 formulas and §7.2 identities) on a hand-made call: p = 4 on two
 * nodes (ranks 0, 1 on node 0; 2, 3 on node 1), host vertices v0 = (leaf0 leaf1) owned by 0 and
 * v1 = (leaf2 leaf3) owned by 2, root v2 = (v0 v1) owned by 0. Every expected stage below is
 * computed by hand from the spec's formulas on the times of the records. */
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

enum { P = 4, NV = 3 };
#define AC_RT_LEAF_ITEM(r) (-(r)-1)

typedef struct {
    ac_trace_rec_t r[P][16];
    size_t n[P];
} call_t;

static void coll(call_t *c, int r, int64_t in, int64_t out) {
    ac_trace_rec_t *x = &c->r[r][c->n[r]++];
    ac_trace_rec_clear(x, AUTOCOLL_ALLREDUCE);
    x->t_in = in;
    x->t_out = out;
    x->seq = 7;
}

static void rank_rec(call_t *c, int r, int node, int64_t ready, int64_t fin) {
    ac_trace_rec_t *x = &c->r[r][c->n[r]++];
    ac_trace_rec_clear(x, AC_TK_TREE_RANK);
    x->t_in = ready;
    x->t_out = fin;
    x->ident = r;
    x->count = P;
    x->tag = node;
    x->status_tag = NV;
}

static void vertex(call_t *c, int r, int v, int parent, int kind, int64_t t2, int64_t t3) {
    ac_trace_rec_t *x = &c->r[r][c->n[r]++];
    ac_trace_rec_clear(x, AC_TK_TREE_VERTEX);
    x->t_in = t2;
    x->t_out = t3;
    x->ident = v;
    x->count = 2;
    x->tag = parent;
    x->status_source = kind;
    x->status_tag = 0;
}

static void child(call_t *c, int r, int v, int pos, int item, int owner, int64_t a, int64_t d) {
    ac_trace_rec_t *x = &c->r[r][c->n[r]++];
    ac_trace_rec_clear(x, AC_TK_TREE_CHILD);
    x->t_in = a;
    x->t_out = d;
    x->ident = v;
    x->count = pos;
    x->tag = item;
    x->status_source = owner;
    x->status_tag = 1;
}

/* The hand-made call (ns on one clock). */
static void make(call_t *c) {
    memset(c, 0, sizeof *c);
    coll(c, 0, 0, 580);
    coll(c, 1, 100, 590);
    coll(c, 2, 50, 640);
    coll(c, 3, 300, 720);
    rank_rec(c, 0, 0, 20, 530);
    rank_rec(c, 1, 0, 130, 580);
    rank_rec(c, 2, 1, 60, 600);
    rank_rec(c, 3, 1, 320, 700);
    vertex(c, 0, 0, 2, 0, 200, 530);
    child(c, 0, 0, 0, AC_RT_LEAF_ITEM(0), 0, 20, 560);  /* own leaf: departs after the sends */
    child(c, 0, 0, 1, AC_RT_LEAF_ITEM(1), 1, 180, 550); /* rank 1's value seen at 180 */
    vertex(c, 0, 2, -1, 1, 530, 530);                   /* root: t2 = t3 */
    child(c, 0, 2, 0, 0, 0, 200, 560);                  /* own vertex: a = t2(v0) */
    child(c, 0, 2, 1, 1, 2, 500, 540);                  /* to rank 2 first (remote first) */
    vertex(c, 2, 1, 2, 0, 420, 600);
    child(c, 2, 1, 0, AC_RT_LEAF_ITEM(2), 2, 60, 615);
    child(c, 2, 1, 1, AC_RT_LEAF_ITEM(3), 3, 400, 610);
}
static int build(call_t *c, ac_stage_call_t *sc, char *err) {
    const ac_trace_rec_t *rp[P];
    for (int r = 0; r < P; r++)
        rp[r] = c->r[r];
    return ac_stage_call_build(sc, P, rp, c->n, err, 256);
}

typedef struct {
    int type, edge;
    int64_t ns;
} exp_t;

static void check_path(const ac_stage_call_t *sc, int r, const exp_t *e, int ne) {
    ac_stage_t st[32];
    int n = ac_stage_path(sc, r, st, 32);
    assert_int_equal(n, ne);
    for (int i = 0; i < ne; i++) {
        if (st[i].type != e[i].type || st[i].ns != e[i].ns)
            fail_msg("rank %d stage %d: %s %lld, expected %s %lld", r, i,
                     ac_stage_type_name(st[i].type), (long long)st[i].ns,
                     ac_stage_type_name(e[i].type), (long long)e[i].ns);
        if (st[i].type == AC_ST_EDGE_DOWN || st[i].type == AC_ST_EDGE_UP)
            assert_int_equal(st[i].edge, e[i].edge);
    }
}

static void stage_paths_hand(void **state) {
    (void)state;
    call_t c;
    ac_stage_call_t sc;
    char err[256];
    make(&c);
    assert_int_equal(build(&c, &sc, err), 0);
    /* Rank 3: entry 320-300; edge leaf3->v1 (rank 3 -> 2, same node) 400-320; arrival wait at v1
     * max(60,400)-400; down latency 420-400; edge v1->v2 (node 1 -> 0) 500-420; arrival wait
     * 500-500; core 530-500. Up: v2 up latency min(560,540)-530, departure wait 540-540, edge to
     * rank 2 600-540; v1 up latency min(615,610)-600, departure wait 610-610, edge to rank 3
     * 700-610; exit 720-700. */
    const exp_t r3[] = {{AC_ST_ENTRY, 0, 20},
                        {AC_ST_EDGE_DOWN, AC_EDGE_NODE, 80},
                        {AC_ST_ARRIVAL_WAIT, 0, 0},
                        {AC_ST_DOWN, 0, 20},
                        {AC_ST_EDGE_DOWN, AC_EDGE_NET, 80},
                        {AC_ST_ARRIVAL_WAIT, 0, 0},
                        {AC_ST_CORE, 0, 30},
                        {AC_ST_UP, 0, 10},
                        {AC_ST_DEPARTURE_WAIT, 0, 0},
                        {AC_ST_EDGE_UP, AC_EDGE_NET, 60},
                        {AC_ST_UP, 0, 10},
                        {AC_ST_DEPARTURE_WAIT, 0, 0},
                        {AC_ST_EDGE_UP, AC_EDGE_NODE, 90},
                        {AC_ST_EXIT, 0, 20}};
    check_path(&sc, 3, r3, (int)(sizeof r3 / sizeof *r3));
    /* Rank 1: entry 30; edge 180-130; arrival wait 0; down 200-180; (v0 -> v2 same owner: no
     * edge) arrival wait at v2 500-200; core 30. Up: v0 up latency min(560,550)-530, departure
     * wait 550-550, edge 580-550; exit 590-580. */
    const exp_t r1[] = {{AC_ST_ENTRY, 0, 30},
                        {AC_ST_EDGE_DOWN, AC_EDGE_NODE, 50},
                        {AC_ST_ARRIVAL_WAIT, 0, 0},
                        {AC_ST_DOWN, 0, 20},
                        {AC_ST_ARRIVAL_WAIT, 0, 300},
                        {AC_ST_CORE, 0, 30},
                        {AC_ST_UP, 0, 20},
                        {AC_ST_DEPARTURE_WAIT, 0, 0},
                        {AC_ST_EDGE_UP, AC_EDGE_NODE, 30},
                        {AC_ST_EXIT, 0, 10}};
    check_path(&sc, 1, r1, (int)(sizeof r1 / sizeof *r1));
    /* Rank 0 (owns v0 and the root): own leaf's up latency 550-530, departure wait 560-550. */
    const exp_t r0[] = {{AC_ST_ENTRY, 0, 20},          {AC_ST_ARRIVAL_WAIT, 0, 160},
                        {AC_ST_DOWN, 0, 20},           {AC_ST_ARRIVAL_WAIT, 0, 300},
                        {AC_ST_CORE, 0, 30},           {AC_ST_UP, 0, 20},
                        {AC_ST_DEPARTURE_WAIT, 0, 10}, {AC_ST_EXIT, 0, 20}};
    check_path(&sc, 0, r0, (int)(sizeof r0 / sizeof *r0));

    /* Parts and both identities for every rank. */
    for (int r = 0; r < P; r++) {
        ac_stage_t st[32];
        int n = ac_stage_path(&sc, r, st, 32);
        assert_true(n > 0);
        ac_stage_parts_t x;
        ac_stage_parts(st, n, sc.exit[r] - sc.entry[r], &x);
        assert_int_equal(ac_stage_identity_error(&x), 0);
        assert_int_equal(x.down_wait, 530 - sc.entry[r]); /* to t2(root) */
        assert_int_equal(x.up, sc.exit[r] - 530);         /* from t3(root) */
        assert_int_equal(x.host + x.cluster + x.net + x.local + x.core + x.wrapper,
                         x.total - x.arrival_wait);
    }
    ac_stage_t st[32];
    ac_stage_parts_t x;
    int n = ac_stage_path(&sc, 3, st, 32);
    ac_stage_parts(st, n, 420, &x);
    assert_int_equal(x.wrapper, 40);
    assert_int_equal(x.net, 140);
    assert_int_equal(x.local, 170);
    assert_int_equal(x.host, 30);
    assert_int_equal(x.cluster, 10);
    assert_int_equal(x.core, 30);
    assert_int_equal(x.arrival_wait, 0);
    n = ac_stage_path(&sc, 1, st, 32);
    ac_stage_parts(st, n, 490, &x);
    assert_int_equal(x.arrival_wait, 300);
    assert_int_equal(x.down_nowait, 130);
    assert_int_equal(x.up, 60);
    /* A wrong total breaks the identities by exactly the difference. */
    ac_stage_parts(st, n, 495, &x);
    assert_int_equal(ac_stage_identity_error(&x), 5);
    /* Too small an output array. */
    assert_int_equal(ac_stage_path(&sc, 3, st, 5), -1);
    assert_int_equal(ac_stage_path(&sc, 4, st, 32), -1);

    /* Arrival and departure orders at v0 (Table 1 of seed 003): leaf0 arrived first and left
     * last. */
    int ao[2], dor[2];
    ac_stage_orders(&sc.v[0], ao, dor);
    assert_int_equal(ao[0], 0);
    assert_int_equal(ao[1], 1);
    assert_int_equal(dor[0], 1);
    assert_int_equal(dor[1], 0);
    ac_stage_call_free(&sc);
}

static void stage_build_rejects(void **state) {
    (void)state;
    call_t c;
    ac_stage_call_t sc;
    char err[256];
    /* A missing child record. */
    make(&c);
    c.n[2]--;
    assert_int_equal(build(&c, &sc, err), -1);
    assert_non_null(strstr(err, "vertex 1: no record of child 1"));
    ac_stage_call_free(&sc);
    /* A child whose parent is another vertex. */
    make(&c);
    c.r[2][2].tag = 0; /* v1 says its parent is v0 */
    assert_int_equal(build(&c, &sc, err), -1);
    ac_stage_call_free(&sc);
    /* No collective record on rank 1. */
    make(&c);
    c.r[1][0].kind = AC_TK_TREE_CHILD;
    assert_int_equal(build(&c, &sc, err), -1);
    ac_stage_call_free(&sc);
    /* Ranks disagreeing on the vertex count. */
    make(&c);
    c.r[3][1].status_tag = 4;
    assert_int_equal(build(&c, &sc, err), -1);
    assert_non_null(strstr(err, "vertices"));
    ac_stage_call_free(&sc);
    /* A departure missing where the result was sent: the path cannot be formed. */
    make(&c);
    c.r[2][4].status_tag = 0; /* leaf3 at v1 */
    assert_int_equal(build(&c, &sc, err), 0);
    ac_stage_t st[32];
    assert_int_equal(ac_stage_path(&sc, 3, st, 32), -1);
    ac_stage_call_free(&sc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stage_paths_hand),
        cmocka_unit_test(stage_build_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
