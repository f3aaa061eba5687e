/*
 * Tree and pipeline shapes of src/sched/tree.h, checked without MPI:
 *  - every KNOMIAL (binomial, k-nomial, flat) and KARY (chain, binary, k-ary) tree reaches each
 *    rank exactly once, from every root, for every p up to 2048 (all roots up to p = 160, the
 *    roots 0, 1, p/2, p-1 above), parent and child agree, subtree sizes are right and KNOMIAL
 *    subtrees are contiguous virtual ranges (what scatter/gather forward);
 *  - the k-port grouping of children by digit position;
 *  - pipelined delivery: a segment-level simulation of the broadcast executor's order;
 *  - reductions combine adjacent rank ranges in rank order: the KNOMIAL and chain trees rooted
 *    at rank 0 (ac_tree_reduce with inorder) and the in-order binary tree for every root,
 *    simulated on symbolic intervals; the binary heap tree is shown NOT to be rank-ordered (the
 *    checker can fail);
 *  - split-binary pairing: every rank gets both halves exactly once;
 *  - segment arithmetic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sched/tree.h"

enum { PMAX = 2048, ALLROOTS = 160 };

typedef struct {
    ac_tree_kind_t kind;
    int k; /* 0: k = p */
} shape_t;

static const shape_t shapes[] = {
    {AC_TREE_KNOMIAL, 2}, {AC_TREE_KNOMIAL, 3}, {AC_TREE_KNOMIAL, 4},
    {AC_TREE_KNOMIAL, 8}, {AC_TREE_KNOMIAL, 0}, {AC_TREE_KARY, 1},
    {AC_TREE_KARY, 2},    {AC_TREE_KARY, 3},    {AC_TREE_KARY, 4},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

static ac_tree_t mk(const shape_t *s, int p) {
    return ac_tree_make(s->kind, s->k ? s->k : p, p);
}

/* Structural check in virtual ranks; returns 0 when fine. */
static int check_shape(const ac_tree_t *t, int *seen, int *queue, int *sub) {
    int p = t->p, head = 0, tail = 0;
    memset(seen, 0, (size_t)p * sizeof *seen);
    if (ac_tree_parent(t, 0) != -1) return 1;
    queue[tail++] = 0;
    seen[0] = 1;
    while (head < tail) {
        int v = queue[head++], n = ac_tree_nchildren(t, v), prev = v;
        for (int i = 0; i < n; i++) {
            int c = ac_tree_child(t, v, i);
            if (c <= prev || c >= p) return 2;       /* increasing, in range */
            if (ac_tree_parent(t, c) != v) return 3; /* parent and child agree */
            if (seen[c]++) return 4;                 /* reached once */
            queue[tail++] = c;
            prev = c;
        }
        if (ac_tree_child(t, v, n) != -1) return 5;
    }
    if (tail != p) return 6; /* every rank reached */
    for (int v = 0; v < p; v++)
        sub[v] = 1;
    for (int i = p - 1; i > 0; i--)
        sub[ac_tree_parent(t, queue[i])] += sub[queue[i]];
    for (int v = 0; v < p; v++) {
        if (ac_tree_subtree(t, v) != sub[v]) return 7;
        if (t->kind == AC_TREE_KNOMIAL && v > 0) {
            /* contiguous: v's last descendant range ends at v + size; parent's range holds it */
            int par = ac_tree_parent(t, v);
            if (v + sub[v] > par + sub[par] || v < par) return 8;
        }
    }
    if (t->kind == AC_TREE_KNOMIAL) {
        /* Children tile [v+1, v+size) in order: the ranges are contiguous and adjacent. */
        for (int v = 0; v < p; v++) {
            int at = v + 1, n = ac_tree_nchildren(t, v);
            for (int i = 0; i < n; i++) {
                int c = ac_tree_child(t, v, i);
                if (c != at) return 9;
                at += sub[c];
                if (i > 0 && ac_tree_child_level(t, v, i) < ac_tree_child_level(t, v, i - 1))
                    return 10;
                if (ac_tree_child_level(t, v, i) < 0) return 11;
            }
            if (at != v + sub[v]) return 12;
        }
    }
    return 0;
}

static void test_shapes_all_p(void **state) {
    (void)state;
    int *seen = malloc(PMAX * sizeof(int)), *queue = malloc(PMAX * sizeof(int)),
        *sub = malloc(PMAX * sizeof(int));
    for (size_t s = 0; s < NSHAPES; s++)
        for (int p = 1; p <= PMAX; p++) {
            ac_tree_t t = mk(&shapes[s], p);
            int rc = check_shape(&t, seen, queue, sub);
            if (rc) fail_msg("shape %zu (kind %d k %d) p=%d: check %d", s, t.kind, t.k, p, rc);
        }
    free(seen);
    free(queue);
    free(sub);
}

/* Broadcast in REAL ranks from a root: every rank informed exactly once, by an informed rank. */
static int bcast_real(const ac_tree_t *t, int root, int *got, int *queue) {
    int p = t->p, head = 0, tail = 0;
    memset(got, 0, (size_t)p * sizeof *got);
    got[root] = 1;
    queue[tail++] = root;
    while (head < tail) {
        int r = queue[head++], v = ac_tree_vrank(r, root, p);
        if (ac_tree_rank(v, root, p) != r) return 1;
        for (int i = 0; i < ac_tree_nchildren(t, v); i++) {
            int c = ac_tree_rank(ac_tree_child(t, v, i), root, p);
            if (c < 0 || c >= p || got[c]++) return 2;
            queue[tail++] = c;
        }
    }
    return tail == p ? 0 : 3;
}

static void test_every_root(void **state) {
    (void)state;
    int *got = malloc(PMAX * sizeof(int)), *queue = malloc(PMAX * sizeof(int));
    for (size_t s = 0; s < NSHAPES; s++)
        for (int p = 1; p <= PMAX; p++) {
            ac_tree_t t = mk(&shapes[s], p);
            int roots[4] = {0, 1 % p, p / 2, p - 1};
            int nr = p <= ALLROOTS ? p : 4;
            for (int j = 0; j < nr; j++) {
                int root = p <= ALLROOTS ? j : roots[j];
                int rc = bcast_real(&t, root, got, queue);
                if (rc) fail_msg("shape %zu p=%d root=%d: %d", s, p, root, rc);
            }
        }
    free(got);
    free(queue);
}

/* Segment-level simulation of ac_tree_bcast: in each round a rank that holds segment s and has
 * forwarded segments < s sends s to all its children (one round per segment: 1-port per child
 * link). Checks that every rank receives each segment exactly once and in order, and that the
 * rounds match (nseg + height - 1) for the chain. */
static void test_pipeline(void **state) {
    (void)state;
    const int ps[] = {1, 2, 3, 5, 8, 13, 64, 100, 257};
    for (size_t s = 0; s < NSHAPES; s++)
        for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++)
            for (int nseg = 1; nseg <= 5; nseg++) {
                int p = ps[pi];
                ac_tree_t t = mk(&shapes[s], p);
                int *have = calloc((size_t)p, sizeof(int)); /* segments received, in order */
                int *sent = calloc((size_t)p, sizeof(int)); /* segments forwarded */
                int *nhave = calloc((size_t)p, sizeof(int));
                have[0] = nseg;
                int rounds = 0, done = 0;
                while (!done) {
                    rounds++;
                    int *delta = calloc((size_t)p, sizeof(int));
                    for (int v = 0; v < p; v++)
                        if (sent[v] < have[v]) {
                            for (int i = 0; i < ac_tree_nchildren(&t, v); i++) {
                                int c = ac_tree_child(&t, v, i);
                                if (have[c] + delta[c] != sent[v])
                                    fail_msg("segment order p=%d v=%d", p, v);
                                delta[c]++;
                                nhave[c]++;
                            }
                            sent[v]++;
                        }
                    done = 1;
                    for (int v = 0; v < p; v++) {
                        have[v] += delta[v];
                        if (have[v] < nseg) done = 0;
                    }
                    free(delta);
                    if (rounds > nseg + p + 2) fail_msg("pipeline stuck p=%d", p);
                }
                for (int v = 1; v < p; v++)
                    assert_int_equal(nhave[v], nseg);
                if (p > 1) assert_int_equal(rounds, nseg + ac_tree_height(&t) - 1);
                free(have);
                free(sent);
                free(nhave);
            }
}

/* Symbolic reduction: each node's value is a rank interval [lo, hi); combining a op b is legal
 * only when a.hi == b.lo (adjacent, left operand first). Simulates ac_tree_reduce's order on
 * the tree rooted at rank 0: acc = mine op c_0 op c_1 ... (increasing children), evaluated
 * right to left. Returns 0 when every combination joins adjacent ranges and the root ends with
 * [0, p). */
static int reduce_rank_ordered(const ac_tree_t *t, int *lo, int *hi) {
    int p = t->p;
    /* children before parents: process in decreasing virtual rank (children > parent) */
    for (int v = p - 1; v >= 0; v--) {
        int n = ac_tree_nchildren(t, v);
        int alo = -1, ahi = -1;
        for (int i = n - 1; i >= 0; i--) {
            int c = ac_tree_child(t, v, i);
            if (alo < 0) {
                alo = lo[c];
                ahi = hi[c];
            } else { /* in = R(c), inout = acc: acc = R(c) op acc */
                if (hi[c] != alo) return 1;
                alo = lo[c];
            }
        }
        if (alo < 0) {
            lo[v] = v;
            hi[v] = v + 1;
        } else {
            if (v + 1 != alo) return 2; /* mine op acc */
            lo[v] = v;
            hi[v] = ahi;
        }
    }
    return lo[0] == 0 && hi[0] == p ? 0 : 3;
}

static void test_reduce_order(void **state) {
    (void)state;
    int *lo = malloc(PMAX * sizeof(int)), *hi = malloc(PMAX * sizeof(int));
    for (int p = 1; p <= PMAX; p++) {
        const shape_t ordered[] = {{AC_TREE_KNOMIAL, 2}, {AC_TREE_KNOMIAL, 3}, {AC_TREE_KNOMIAL, 4},
                                   {AC_TREE_KNOMIAL, 8}, {AC_TREE_KNOMIAL, 0}, {AC_TREE_KARY, 1}};
        for (size_t s = 0; s < sizeof ordered / sizeof ordered[0]; s++) {
            ac_tree_t t = mk(&ordered[s], p);
            int rc = reduce_rank_ordered(&t, lo, hi);
            if (rc) fail_msg("ordered shape %zu p=%d: %d", s, p, rc);
        }
        /* The binary heap interleaves subtrees: not rank-ordered from p = 4 on. */
        ac_tree_t b = ac_tree_make(AC_TREE_KARY, 2, p);
        if (p >= 4) assert_int_not_equal(reduce_rank_ordered(&b, lo, hi), 0);
    }
    free(lo);
    free(hi);
}

/* In-order binary tree over real ranks: simulate L op x_m op R on intervals. */
static int inorder_check(int p, int root, int *lo, int *hi, int *order, int *seen) {
    int head = 0, tail = 0;
    memset(seen, 0, (size_t)p * sizeof *seen);
    order[tail++] = root;
    seen[root] = 1;
    while (head < tail) { /* top-down listing; every rank reached once */
        int par, l, r, a, b, m = order[head++];
        ac_inorder_node(p, root, m, &par, &l, &r, &a, &b);
        if (a > m || b <= m) return 1;
        int kids[2] = {l, r};
        for (int i = 0; i < 2; i++) {
            if (kids[i] < 0) continue;
            int pp, l2, r2, a2, b2;
            ac_inorder_node(p, root, kids[i], &pp, &l2, &r2, &a2, &b2);
            if (pp != m || seen[kids[i]]++) return 2;
            order[tail++] = kids[i];
        }
    }
    if (tail != p) return 3;
    for (int i = p - 1; i >= 0; i--) { /* bottom-up combination */
        int par, l, r, a, b, m = order[i];
        ac_inorder_node(p, root, m, &par, &l, &r, &a, &b);
        int clo = m, chi = m + 1;
        if (r >= 0) { /* acc = x_m op R */
            if (lo[r] != chi) return 4;
            chi = hi[r];
        }
        if (l >= 0) { /* acc = L op acc */
            if (hi[l] != clo) return 5;
            clo = lo[l];
        }
        if (clo != a || chi != b) return 6;
        lo[m] = clo;
        hi[m] = chi;
    }
    return lo[root] == 0 && hi[root] == p ? 0 : 7;
}

static void test_inorder(void **state) {
    (void)state;
    int *lo = malloc(PMAX * sizeof(int)), *hi = malloc(PMAX * sizeof(int)),
        *order = malloc(PMAX * sizeof(int)), *seen = malloc(PMAX * sizeof(int));
    for (int p = 1; p <= PMAX; p++) {
        int roots[4] = {0, 1 % p, p / 2, p - 1};
        int nr = p <= ALLROOTS ? p : 4;
        for (int j = 0; j < nr; j++) {
            int root = p <= ALLROOTS ? j : roots[j];
            int rc = inorder_check(p, root, lo, hi, order, seen);
            if (rc) fail_msg("inorder p=%d root=%d: %d", p, root, rc);
        }
    }
    /* depth stays logarithmic: root in the middle of 1024 ranks */
    int par, l, r, a, b, d = 0, m = 1023;
    for (;;) {
        ac_inorder_node(1024, 512, m, &par, &l, &r, &a, &b);
        if (par < 0) break;
        m = par;
        d++;
    }
    assert_true(d <= 11);
    free(lo);
    free(hi);
    free(order);
    free(seen);
}

static void test_split_binary(void **state) {
    (void)state;
    int *orph = malloc(PMAX * sizeof(int)), *isorph = malloc(PMAX * sizeof(int));
    for (int p = 1; p <= PMAX; p++) {
        ac_tree_t t = ac_tree_make(AC_TREE_KARY, 2, p);
        int no = ac_tree_split_orphans(p, orph, PMAX);
        memset(isorph, 0, (size_t)p * sizeof *isorph);
        for (int i = 0; i < no; i++) {
            assert_true(orph[i] > 0 && orph[i] < p);
            if (i) assert_true(orph[i] > orph[i - 1]);
            isorph[orph[i]] = 1;
        }
        for (int v = 1; v < p; v++) {
            int side, partner, top = v;
            ac_tree_split_pair(p, v, &side, &partner);
            while (top > 2)
                top = ac_tree_parent(&t, top);
            assert_int_equal(side, top - 1); /* side = subtree of 1 (0) or of 2 (1) */
            if (partner == 0) {
                assert_int_equal(isorph[v], 1); /* second half from the root */
                assert_int_equal(side, 0);
            } else {
                int s2, p2;
                assert_int_equal(isorph[v], 0);
                ac_tree_split_pair(p, partner, &s2, &p2);
                assert_int_equal(s2, 1 - side); /* partner has the other half */
                assert_int_equal(p2, v);        /* and pairs back */
            }
        }
        int side, partner;
        ac_tree_split_pair(p, 0, &side, &partner);
        assert_int_equal(partner, -1);
    }
    free(orph);
    free(isorph);
}

static void test_segments(void **state) {
    (void)state;
    assert_int_equal(ac_seg_elems(1024, 4, 65537), 256);
    assert_int_equal(ac_seg_elems(1024, 4, 10), 10);
    assert_int_equal(ac_seg_elems(2, 8, 100), 1); /* at least one element */
    assert_int_equal(ac_seg_elems(512, 0, 7), 7);
    assert_int_equal(ac_seg_elems(512, 4, 0), 1);
    assert_int_equal(ac_seg_count(0, 5), 0);
    assert_int_equal(ac_seg_count(65537, 256), 257);
    for (size_t n = 0; n < 300; n++)
        for (size_t seg = 1; seg < 40; seg++) {
            size_t ns = ac_seg_count(n, seg), total = 0;
            for (size_t s = 0; s < ns; s++) {
                size_t len = n - s * seg < seg ? n - s * seg : seg;
                assert_true(len >= 1);
                total += len;
            }
            assert_int_equal(total, n);
        }
}

static void test_known_shapes(void **state) {
    (void)state;
    ac_tree_t b = ac_tree_make(AC_TREE_KNOMIAL, 2, 8);
    assert_int_equal(ac_tree_nchildren(&b, 0), 3);
    assert_int_equal(ac_tree_child(&b, 0, 2), 4);
    assert_int_equal(ac_tree_parent(&b, 6), 4);
    assert_int_equal(ac_tree_parent(&b, 5), 4);
    assert_int_equal(ac_tree_subtree(&b, 4), 4);
    assert_int_equal(ac_tree_height(&b), 3);
    ac_tree_t k = ac_tree_make(AC_TREE_KNOMIAL, 3, 10); /* 0 -> 1,2,3,6,9 */
    assert_int_equal(ac_tree_nchildren(&k, 0), 5);
    assert_int_equal(ac_tree_child(&k, 0, 4), 9);
    assert_int_equal(ac_tree_child_level(&k, 0, 4), 2);
    assert_int_equal(ac_tree_parent(&k, 8), 6);
    ac_tree_t c = ac_tree_make(AC_TREE_KARY, 1, 5);
    assert_int_equal(ac_tree_height(&c), 4);
    ac_tree_t f = ac_tree_make(AC_TREE_KNOMIAL, 100, 7); /* flat */
    assert_int_equal(ac_tree_nchildren(&f, 0), 6);
    assert_int_equal(ac_tree_height(&f), 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_shapes), cmocka_unit_test(test_shapes_all_p),
        cmocka_unit_test(test_every_root),   cmocka_unit_test(test_pipeline),
        cmocka_unit_test(test_reduce_order), cmocka_unit_test(test_inorder),
        cmocka_unit_test(test_split_binary), cmocka_unit_test(test_segments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
