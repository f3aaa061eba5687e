/*
 * Block-level simulation of the allgather schedules of src/sched: for every step and rank, each
 * block sent is already held by its sender, the receiver expects exactly the blocks the sender
 * sends (same order: messages match in posting order), no block arrives twice, and every rank
 * ends with all p blocks. Plus the tables of spec/sparbit.md (blocks per step) and the mesh
 * shapes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sched/sched.h"

/* One step of a schedule as seen by rank r: up to MAXM sends and receives with block lists. */
enum { MAXM = 40 };
typedef struct {
    int nsend, nrecv;
    int to[MAXM], from[MAXM];
    int ns[MAXM], nr[MAXM];
    int *sb[MAXM], *rb[MAXM]; /* block lists, room for p each */
} step_t;

typedef struct {
    const char *name;
    int (*nsteps)(int p, int k);
    /* fills st for rank r at step s; returns 0 */
    void (*describe)(int p, int k, int r, int s, step_t *st);
} sched_t;

static void step_alloc(step_t *st, int p) {
    for (int m = 0; m < MAXM; m++) {
        st->sb[m] = malloc((size_t)p * sizeof(int));
        st->rb[m] = malloc((size_t)p * sizeof(int));
    }
}
static void step_free(step_t *st) {
    for (int m = 0; m < MAXM; m++) {
        free(st->sb[m]);
        free(st->rb[m]);
    }
}

/* ---------------------------------------------------------------- schedule descriptions */

static int sp_nsteps(int p, int k) {
    (void)k;
    return ac_sparbit_nsteps(p);
}
static void sp_describe(int p, int k, int r, int s, step_t *st) {
    (void)k;
    int d, n;
    ac_sparbit_step(p, s, &d, &n);
    st->nsend = st->nrecv = 1;
    st->to[0] = ac_mod((long long)r + d, p);
    st->from[0] = ac_mod((long long)r - d, p);
    st->ns[0] = st->nr[0] = n;
    for (int j = 0; j < n; j++) {
        st->sb[0][j] = ac_sparbit_send_block(r, p, d, j);
        st->rb[0][j] = ac_sparbit_recv_block(r, p, d, j);
    }
}

static int kb_nsteps(int p, int k) {
    return ac_kbruck_nsteps(p, k);
}
static void kb_describe(int p, int k, int r, int s, step_t *st) {
    st->nsend = st->nrecv = 0;
    for (int j = 1; j <= k; j++) {
        int o, c;
        if (!ac_kbruck_part(p, k, s, j, &o, &c)) continue;
        int m = st->nsend++;
        st->nrecv++;
        st->to[m] = ac_mod((long long)r - o, p);
        st->from[m] = ac_mod((long long)r + o, p);
        st->ns[m] = st->nr[m] = c;
        for (int t = 0; t < c; t++) {
            st->sb[m][t] = ac_mod((long long)r + t, p);
            st->rb[m][t] = ac_mod((long long)r + o + t, p);
        }
    }
}

/* mesh: k = number of dimensions; step = (dimension d, peer index j) flattened. Each phase sends
 * all blocks held to all peers of dimension d in spreading order. */
static int mesh_nsteps(int p, int k) {
    (void)p;
    return k;
}
static int *mesh_tmp;
static void mesh_describe(int p, int k, int r, int s, step_t *st) {
    int dims[3];
    ac_mesh_dims(p, k, dims);
    st->nsend = st->nrecv = 0;
    int nh = ac_mesh_held(r, k, dims, s, mesh_tmp);
    for (int j = 1; j < dims[s]; j++) {
        int m = st->nsend++;
        st->nrecv++;
        assert_true(m < MAXM || dims[s] - 1 <= MAXM);
        st->to[m] = ac_mesh_peer(r, k, dims, s, j);
        st->from[m] = ac_mesh_peer(r, k, dims, s, -j);
        st->ns[m] = nh;
        memcpy(st->sb[m], mesh_tmp, (size_t)nh * sizeof(int));
        st->nr[m] = ac_mesh_held(st->from[m], k, dims, s, st->rb[m]);
    }
}

static int nbx_nsteps(int p, int k) {
    (void)k;
    return ac_nbx_nsteps(p);
}
static void nbx_describe(int p, int k, int r, int s, step_t *st) {
    (void)k;
    st->nsend = st->nrecv = 1;
    st->to[0] = st->from[0] = ac_nbx_peer(r, p, s);
    int nb = ac_nbx_nblocks(s);
    st->ns[0] = st->nr[0] = nb;
    for (int t = 0; t < nb; t++) {
        st->sb[0][t] = ac_mod((long long)ac_nbx_send_start(r, p, s) + t, p);
        st->rb[0][t] = ac_mod((long long)ac_nbx_recv_start(r, p, s) + t, p);
    }
}

/* ---------------------------------------------------------------- generic checkers */

/* All ranks simulated; returns number of violations (0 = correct). */
static long check_full(const sched_t *S, int p, int k) {
    long bad = 0;
    unsigned char *held = calloc((size_t)p * p, 1), *got = calloc((size_t)p * p, 1);
    step_t *st = malloc((size_t)p * sizeof *st);
    for (int r = 0; r < p; r++) {
        held[(size_t)r * p + r] = 1;
        step_alloc(&st[r], p);
    }
    int L = S->nsteps(p, k);
    for (int s = 0; s < L; s++) {
        for (int r = 0; r < p; r++)
            S->describe(p, k, r, s, &st[r]);
        memset(got, 0, (size_t)p * p);
        for (int r = 0; r < p; r++) {
            for (int m = 0; m < st[r].nsend; m++) {
                int q = st[r].to[m];
                if (q < 0 || q >= p || q == r) {
                    bad++;
                    continue;
                }
                for (int t = 0; t < st[r].ns[m]; t++) {
                    int b = st[r].sb[m][t];
                    if (b < 0 || b >= p || !held[(size_t)r * p + b]) bad++;
                }
                /* q must expect exactly this list from r */
                int found = 0;
                for (int x = 0; x < st[q].nrecv; x++) {
                    if (st[q].from[x] != r) continue;
                    found++;
                    if (st[q].nr[x] != st[r].ns[m]) {
                        bad++;
                        continue;
                    }
                    for (int t = 0; t < st[r].ns[m]; t++)
                        if (st[q].rb[x][t] != st[r].sb[m][t]) bad++;
                }
                if (found != 1) bad++;
            }
            for (int x = 0; x < st[r].nrecv; x++)
                for (int t = 0; t < st[r].nr[x]; t++) {
                    int b = st[r].rb[x][t];
                    if (b < 0 || b >= p) {
                        bad++;
                        continue;
                    }
                    if (held[(size_t)r * p + b] || got[(size_t)r * p + b]) bad++;
                    got[(size_t)r * p + b] = 1;
                }
        }
        for (size_t i = 0; i < (size_t)p * p; i++)
            held[i] |= got[i];
    }
    for (size_t i = 0; i < (size_t)p * p; i++)
        if (!held[i]) bad++;
    for (int r = 0; r < p; r++)
        step_free(&st[r]);
    free(st);
    free(held);
    free(got);
    return bad;
}

/* Rank-symmetric schedules (every index relative to the rank): simulate rank 0 only; the blocks
 * held by rank q are rank 0's shifted by q. Also checks the symmetry on a few ranks. */
static long check_symmetric(const sched_t *S, int p, int k) {
    long bad = 0;
    unsigned char *held = calloc((size_t)p, 1), *got = calloc((size_t)p, 1);
    step_t st, sq;
    step_alloc(&st, p);
    step_alloc(&sq, p);
    held[0] = 1;
    int L = S->nsteps(p, k);
    for (int s = 0; s < L; s++) {
        S->describe(p, k, 0, s, &st);
        memset(got, 0, (size_t)p);
        for (int x = 0; x < st.nrecv; x++) {
            int q = st.from[x];
            S->describe(p, k, q, s, &sq);
            int found = 0;
            for (int m = 0; m < sq.nsend; m++) {
                if (sq.to[m] != 0) continue;
                found++;
                if (sq.ns[m] != st.nr[x]) {
                    bad++;
                    continue;
                }
                for (int t = 0; t < sq.ns[m]; t++) {
                    int b = sq.sb[m][t];
                    /* q holds b iff rank 0 holds b - q */
                    if (!held[ac_mod((long long)b - q, p)]) bad++;
                    if (b != st.rb[x][t]) bad++;
                }
            }
            if (found != 1) bad++;
            for (int t = 0; t < st.nr[x]; t++) {
                int b = st.rb[x][t];
                if (b < 0 || b >= p || held[b] || got[b]) {
                    bad++;
                    continue;
                }
                got[b] = 1;
            }
        }
        for (int i = 0; i < p; i++)
            held[i] |= got[i];
        /* symmetry: rank q's step is rank 0's shifted by q */
        for (int q = 1; q < p; q += 1 + p / 3) {
            S->describe(p, k, q, s, &sq);
            if (sq.nsend != st.nsend) {
                bad++;
                continue;
            }
            for (int m = 0; m < st.nsend; m++) {
                if (sq.to[m] != ac_mod((long long)st.to[m] + q, p)) bad++;
                for (int t = 0; t < st.ns[m]; t++)
                    if (sq.sb[m][t] != ac_mod((long long)st.sb[m][t] + q, p)) bad++;
            }
        }
    }
    for (int i = 0; i < p; i++)
        if (!held[i]) bad++;
    step_free(&st);
    step_free(&sq);
    free(held);
    free(got);
    return bad;
}

static const sched_t SPARBIT = {"sparbit", sp_nsteps, sp_describe};
static const sched_t KBRUCK = {"kbruck", kb_nsteps, kb_describe};
static const sched_t MESH = {"mesh", mesh_nsteps, mesh_describe};
static const sched_t NBX = {"nbx", nbx_nsteps, nbx_describe};

/* ---------------------------------------------------------------- tests */

static void test_arith(void **state) {
    (void)state;
    assert_int_equal(ac_ceil_log2(1), 0);
    assert_int_equal(ac_ceil_log2(2), 1);
    assert_int_equal(ac_ceil_log2(5), 3);
    assert_int_equal(ac_ceil_log2(1 << 29), 29);
    assert_int_equal(ac_ceil_log2((1 << 29) + 1), 30);
    assert_int_equal(ac_floor_pof2(1), 1);
    assert_int_equal(ac_floor_pof2(7), 4);
    assert_int_equal(ac_floor_pof2(8), 8);
    assert_int_equal(ac_mod(-1, 5), 4);
    assert_int_equal(ac_mod(-10, 5), 0);
    assert_true(ac_is_pof2(64));
    assert_false(ac_is_pof2(12));
}

static void test_sparbit_full_small(void **state) {
    (void)state;
    for (int p = 1; p <= 160; p++)
        assert_int_equal(check_full(&SPARBIT, p, 1), 0);
}

static void test_sparbit_all_p(void **state) {
    (void)state;
    for (int p = 1; p <= 5000; p++) {
        long bad = check_symmetric(&SPARBIT, p, 1);
        if (bad) fail_msg("sparbit p=%d: %ld violations", p, bad);
        /* invariants of spec/sparbit.md 1.2 */
        int L = ac_sparbit_nsteps(p), sum = 0, prev = 0;
        for (int i = 0; i < L; i++) {
            int d, n;
            ac_sparbit_step(p, i, &d, &n);
            assert_int_equal(d, 1 << (L - 1 - i));
            assert_true(n >= prev);
            /* ignore rule: z = ((p-1) & d) == 0 ; n = held - z, held = ceil(p / 2d) */
            int held = (int)(((long long)p + 2LL * d - 1) / (2LL * d));
            int z = ((unsigned)(p - 1) & (unsigned)d) == 0;
            assert_int_equal(n, held - z);
            prev = n;
            sum += n;
        }
        assert_int_equal(sum, p - 1);
        if (p > 1) assert_int_equal(prev, p / 2);
    }
}

static void test_sparbit_table(void **state) {
    (void)state;
    static const int tab[][8] = {
        {5, 1, 1, 2},
        {6, 1, 1, 3},
        {8, 1, 2, 4},
        {10, 1, 1, 2, 5},
        {12, 1, 1, 3, 6},
        {21, 1, 1, 3, 5, 10},
        {33, 1, 1, 2, 4, 8, 16},
        {84, 1, 1, 3, 5, 10, 21, 42},
    };
    for (size_t t = 0; t < sizeof tab / sizeof tab[0]; t++) {
        int p = tab[t][0], L = ac_sparbit_nsteps(p);
        for (int i = 0; i < L; i++) {
            int d, n;
            ac_sparbit_step(p, i, &d, &n);
            if (n != tab[t][1 + i])
                fail_msg("sparbit p=%d step %d: n=%d, expected %d", p, i, n, tab[t][1 + i]);
        }
    }
    /* worked example p = 5, rank 0 (spec 1.7): step 2 sends [0, 3] and receives [4, 2] */
    int d, n;
    ac_sparbit_step(5, 2, &d, &n);
    assert_int_equal(d, 1);
    assert_int_equal(ac_sparbit_send_block(0, 5, d, 1), 3);
    assert_int_equal(ac_sparbit_recv_block(0, 5, d, 0), 4);
    assert_int_equal(ac_sparbit_recv_block(0, 5, d, 1), 2);
}

static void test_bruck_table(void **state) {
    (void)state;
    /* spec/sparbit.md 1.8: Bruck blocks per step */
    static const int tab[][8] = {
        {6, 1, 2, 2},        {10, 1, 2, 4, 2},        {12, 1, 2, 4, 4},
        {21, 1, 2, 4, 8, 5}, {33, 1, 2, 4, 8, 16, 1}, {84, 1, 2, 4, 8, 16, 32, 20},
    };
    for (size_t t = 0; t < sizeof tab / sizeof tab[0]; t++) {
        int p = tab[t][0];
        assert_int_equal(ac_bruck_nsteps(p), ac_kbruck_nsteps(p, 1));
        for (int s = 0; s < ac_bruck_nsteps(p); s++) {
            int o, c;
            assert_true(ac_kbruck_part(p, 1, s, 1, &o, &c));
            assert_int_equal(o, 1 << s);
            assert_int_equal(c, tab[t][1 + s]);
            assert_false(ac_kbruck_part(p, 1, s, 2, &o, &c));
        }
    }
    assert_int_equal(ac_kbruck_nsteps(9, 2), 2);
    assert_int_equal(ac_kbruck_nsteps(10, 2), 3);
    assert_int_equal(ac_kbruck_nsteps(1, 3), 0);
}

static void test_bruck_all_p(void **state) {
    (void)state;
    for (int k = 1; k <= 4; k++) {
        for (int p = 1; p <= 100; p++)
            if (check_full(&KBRUCK, p, k)) fail_msg("kbruck k=%d p=%d (full)", k, p);
        for (int p = 1; p <= 5000; p += (k == 1 ? 1 : 7))
            if (check_symmetric(&KBRUCK, p, k)) fail_msg("kbruck k=%d p=%d", k, p);
    }
}

static void test_mesh_dims(void **state) {
    (void)state;
    int d[3];
    ac_mesh_dims(12, 2, d);
    assert_int_equal(d[0], 3);
    assert_int_equal(d[1], 4);
    ac_mesh_dims(16, 2, d);
    assert_int_equal(d[0] * 10 + d[1], 44);
    ac_mesh_dims(7, 2, d);
    assert_int_equal(d[0] * 10 + d[1], 17);
    ac_mesh_dims(8, 3, d);
    assert_int_equal(d[0] * 100 + d[1] * 10 + d[2], 222);
    ac_mesh_dims(12, 3, d);
    assert_int_equal(d[0] * 100 + d[1] * 10 + d[2], 223);
    ac_mesh_dims(11, 3, d);
    assert_int_equal(d[0] * 100 + d[1] * 10 + d[2], 121);
    for (int p = 1; p <= 2000; p++)
        for (int nd = 1; nd <= 3; nd++) {
            ac_mesh_dims(p, nd, d);
            int prod = 1;
            for (int i = 0; i < nd; i++) {
                assert_true(d[i] >= 1);
                prod *= d[i];
            }
            assert_int_equal(prod, p);
            for (int r = 0; r < p; r += 1 + p / 5) {
                int c[3];
                ac_mesh_coords(r, nd, d, c);
                assert_int_equal(ac_mesh_rank(nd, d, c), r);
            }
        }
}

static void test_mesh_coverage(void **state) {
    (void)state;
    mesh_tmp = malloc(600 * sizeof(int));
    for (int nd = 2; nd <= 3; nd++)
        for (int p = 1; p <= 200; p++) {
            int d[3];
            ac_mesh_dims(p, nd, d);
            int maxg = 0;
            for (int i = 0; i < nd; i++)
                maxg = d[i] > maxg ? d[i] : maxg;
            if (maxg - 1 > MAXM) continue; /* too many peers for the step record */
            if (check_full(&MESH, p, nd)) fail_msg("mesh%dd p=%d", nd, p);
        }
    free(mesh_tmp);
}

static void test_nbx_coverage(void **state) {
    (void)state;
    for (int p = 2; p <= 600; p += 2)
        if (check_full(&NBX, p, 0)) fail_msg("neighbour exchange p=%d", p);
}

static void test_nbar(void **state) {
    (void)state;
    for (int S = 1; S <= 64; S++)
        for (int N = 0; N <= S + 3; N++) {
            int tot = 0;
            for (int s = 0; s <= S; s++)
                tot += ac_nbar_count(s, S, N);
            assert_int_equal(tot, N);
            assert_int_equal(ac_nbar_count(S, S, N), 0); /* never after the last step */
        }
    /* 7 steps, 1 barrier: halves 1..3 and 4..7 */
    assert_int_equal(ac_nbar_count(3, 7, 1), 1);
}

static void test_rdb_fold(void **state) {
    (void)state;
    for (int p = 1; p <= 300; p++) {
        int pp = ac_floor_pof2(p), *out = malloc((size_t)p * sizeof(int));
        unsigned char *seen = calloc((size_t)p, 1);
        int n = ac_rdb_fold_blocks(p, 0, pp, out);
        assert_int_equal(n, p);
        for (int i = 0; i < n; i++) {
            assert_true(out[i] >= 0 && out[i] < p && !seen[out[i]]);
            seen[out[i]] = 1;
        }
        free(out);
        free(seen);
    }
    assert_int_equal(ac_rdb_start(13, 2), 12);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arith),
        cmocka_unit_test(test_sparbit_table),
        cmocka_unit_test(test_sparbit_full_small),
        cmocka_unit_test(test_sparbit_all_p),
        cmocka_unit_test(test_bruck_table),
        cmocka_unit_test(test_bruck_all_p),
        cmocka_unit_test(test_mesh_dims),
        cmocka_unit_test(test_mesh_coverage),
        cmocka_unit_test(test_nbx_coverage),
        cmocka_unit_test(test_nbar),
        cmocka_unit_test(test_rdb_fold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
