/*
 * Contention-free schedules of src/topo (spec star-stage-ethernet.md section 3.6), without MPI.
 * Paths, loads, subtree sizes and contention are recomputed here from the parent array, not
 * taken from the code under test.
 *  T1  AAPC root: every branch <= |M|/2 and a bottleneck link touches it;
 *  T2  L = |M_0|(|M| - |M_0|) phases = AAPC load; per phase <= 1 global sender and receiver per
 *      subtree;
 *  T3  rotate pattern: Table 3.2 exactly, all pairs covered, Lemma 6 spacing;
 *  T4  every ordered pair once, each phase contention free (no directed link twice) and 1-port,
 *      Table 3.4 exactly, group starts of the Figure 3.2 example;
 *  T5  DFS switch ring and LR1 contention free;
 *  T6  LR2 succeeds iff the degree condition holds, max path <= 2, contention free;
 *  T7  Lemma 8 both ways on random rings;
 *  T8  LR3 <= LR2, LR1; LR3 = brute force on trees up to 10 machines;
 *  T9  Algorithm 4 chain contention free;
 *  T10 sub-rings of contention-free rings are contention free;
 *  T11 every token scheme: a simulated execution (tokens, program order, barriers) orders every
 *      pair of contending messages the scheme must order; the token set equals a naive
 *      transitive reduction of the filtered dependence DAG on small trees; dummy phases.
 * The random trees: >= 200 from ac_topo_generate, 1..1024 machines, 1.5-16 machines per switch,
 * 1-4 ranks per machine. Also prints the cost of building the schedule at p = 1024.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "topo/aapc.h"
#include "topo/rings.h"
#include "topo/topo.h"

/* ------------------------------------------------------------------ helpers (independent) */
static ac_topo_t *mk(const char *text) {
    ac_topo_t *t = NULL;
    char *errs = NULL;
    if (ac_topo_parse(text, strlen(text), "mem", &t, &errs)) {
        print_message("%s", errs);
        fail();
    }
    return t;
}

static ac_topo_t *random_tree(ac_rng_t *rng, int maxm, int *nmach_out) {
    static const double means[] = {1.5, 2, 3, 4, 8, 16};
    /* log-uniform machine count in [1, maxm] */
    int n = 1;
    int bits = 0;
    while ((1 << bits) < maxm)
        bits++;
    int b = (int)ac_rng_below(rng, (uint32_t)bits + 1);
    n = (1 << b) / 2 + 1 + (int)ac_rng_below(rng, (uint32_t)((1 << b) / 2 + 1));
    if (n > maxm) n = maxm;
    int ppn = ac_rng_below(rng, 5) == 0 ? 1 + (int)ac_rng_below(rng, 4) : 1;
    if (n * ppn > maxm) ppn = 1;
    char *g = ac_topo_generate(n, means[ac_rng_below(rng, 6)], ac_rng_next(rng), ppn);
    ac_topo_t *t = mk(g);
    free(g);
    if (nmach_out) *nmach_out = n;
    return t;
}

/* Directed edges of path(u, v): 2x up from x, 2x+1 down into x. */
static int my_path(const ac_topo_t *t, int u, int v, int *e) {
    int a = u, b = v, n = 0, m = 0, tmp[4096];
    while (t->depth[a] > t->depth[b])
        e[n++] = 2 * a, a = t->parent[a];
    while (t->depth[b] > t->depth[a])
        tmp[m++] = 2 * b + 1, b = t->parent[b];
    while (a != b)
        e[n++] = 2 * a, a = t->parent[a], tmp[m++] = 2 * b + 1, b = t->parent[b];
    while (m)
        e[n++] = tmp[--m];
    return n;
}

static int my_hops(const ac_topo_t *t, int u, int v) {
    int e[4096];
    return my_path(t, u, v, e) - 1; /* rank to rank: edges - 1 vertices inside, all switches */
}

/* Subtree sizes in ranks, recomputed from the parent array. */
static int *leaves(const ac_topo_t *t) {
    int *c = calloc((size_t)t->nv, sizeof *c);
    for (int r = 0; r < t->nranks; r++)
        for (int x = r; x >= 0; x = t->parent[x])
            c[x]++;
    return c;
}

static int64_t my_load(const ac_topo_t *t, const int *c) {
    int64_t best = 0;
    for (int v = 0; v < t->nv; v++)
        if (t->parent[v] >= 0) {
            int64_t l = (int64_t)c[v] * (t->nranks - c[v]);
            if (l > best) best = l;
        }
    return best;
}

/* 1 if the messages (src[i] -> dst[i]) share no directed edge. */
static int contention_free(const ac_topo_t *t, const ac_pair_t *m, int n, char *used) {
    int e[4096], ok = 1;
    memset(used, 0, 2 * (size_t)t->nv);
    for (int i = 0; i < n && ok; i++) {
        if (m[i].src == m[i].dst) continue;
        int np = my_path(t, m[i].src, m[i].dst, e);
        for (int k = 0; k < np; k++) {
            if (used[e[k]]) ok = 0;
            used[e[k]] = 1;
        }
    }
    return ok;
}

/* ------------------------------------------------------------------ T3 */
static void test_rotate(void **state) {
    (void)state;
    /* Table 3.2: |M_i| = 6, |M_j| = 4. */
    static const int snd[24] = {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5,
                                1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0};
    static const int rcv[24] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3,
                                0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3};
    for (int q = 0; q < 24; q++) {
        int a, b;
        ac_aapc_rotate(6, 4, q, &a, &b);
        assert_int_equal(a, snd[q]);
        assert_int_equal(b, rcv[q]);
    }
    for (int mi = 1; mi <= 13; mi++)
        for (int mj = 1; mj <= 13; mj++) {
            char seen[13][13] = {{0}};
            int lasts[13], lastr[13];
            for (int x = 0; x < 13; x++)
                lasts[x] = lastr[x] = -1;
            for (int q = 0; q < mi * mj; q++) {
                int a, b;
                ac_aapc_rotate(mi, mj, q, &a, &b);
                assert_true(a >= 0 && a < mi && b >= 0 && b < mj);
                assert_false(seen[a][b]);
                seen[a][b] = 1;
                /* Lemma 6: each sender once in every aligned block of mi phases (a "round";
                 * rotations fall on block boundaries), each receiver once every mj phases */
                if (lasts[a] >= 0) assert_int_equal(q / mi - lasts[a] / mi, 1);
                if (lastr[b] >= 0) assert_int_equal(q - lastr[b], mj);
                lasts[a] = q, lastr[b] = q;
            }
        }
}

/* ------------------------------------------------------------------ T4 on Table 3.4 */
/* Root s0 with t_0 = {n0,n1,n2} under s1, t_1 = {n3,n4} under s2, t_2 = n5 on s0. */
static const char *FIG32 = "switch s0\nswitch s1\nswitch s2\nlink s0 s1\nlink s0 s2\n"
                           "machine n0 s1\nmachine n1 s1\nmachine n2 s1\n"
                           "machine n3 s2\nmachine n4 s2\nmachine n5 s0\n";

static void test_table34(void **state) {
    (void)state;
    /* t0,i = n_i; t1,0 = n3, t1,1 = n4; t2,0 = n5 */
    static const int tab[9][4][2] = {
        {{0, 4}, {3, 5}, {5, 1}, {1, 0}},     {{1, 3}, {4, 5}, {5, 2}, {2, 1}},
        {{2, 4}, {5, 0}, {0, 2}, {-1, -1}},   {{0, 3}, {3, 2}, {2, 0}, {-1, -1}},
        {{1, 4}, {3, 0}, {0, 1}, {4, 3}},     {{2, 3}, {3, 1}, {1, 2}, {-1, -1}},
        {{0, 5}, {4, 0}, {-1, -1}, {-1, -1}}, {{1, 5}, {4, 1}, {5, 3}, {3, 4}},
        {{2, 5}, {4, 2}, {5, 4}, {-1, -1}},
    };
    int m[3] = {3, 2, 1};
    assert_int_equal(ac_aapc_group_start(m, 3, 1, 2), 0);
    assert_int_equal(ac_aapc_group_start(m, 3, 0, 2), 6);
    assert_int_equal(ac_aapc_group_start(m, 3, 2, 0), 0);
    assert_int_equal(ac_aapc_group_start(m, 3, 1, 0), 3);
    assert_int_equal(ac_aapc_group_start(m, 3, 2, 1), 7);
    assert_int_equal(ac_aapc_group_start(m, 3, 0, 1), 0);
    ac_topo_t *t = mk(FIG32);
    ac_aapc_t s;
    assert_int_equal(ac_aapc_build(t, &s), 0);
    assert_int_equal(s.nphases, 9);
    assert_int_equal(s.k, 3);
    assert_int_equal(t->kind[s.root], AC_TV_SWITCH);
    assert_string_equal(t->sw_name[t->orig[s.root]], "s0");
    for (int p = 0; p < 9; p++) {
        int n = 0;
        for (int e = 0; e < 4; e++)
            n += tab[p][e][0] >= 0;
        assert_int_equal(s.pstart[p + 1] - s.pstart[p], n);
        for (int e = 0; e < n; e++) {
            int found = 0;
            for (int x = s.pstart[p]; x < s.pstart[p + 1]; x++)
                found += s.msg[x].src == tab[p][e][0] && s.msg[x].dst == tab[p][e][1];
            if (found != 1)
                print_message("phase %d: %d -> %d missing\n", p, tab[p][e][0], tab[p][e][1]);
            assert_int_equal(found, 1);
        }
    }
    ac_aapc_free(&s);
    ac_topo_free(t);
}

/* ------------------------------------------------------------------ T1, T2, T4 random */
static void check_schedule(const ac_topo_t *t, const ac_aapc_t *s) {
    int P = t->nranks;
    int *c = leaves(t);
    assert_int_equal(s->pstart[s->nphases], P * (P - 1));
    if (P < 2) {
        assert_int_equal(s->nphases, 0);
        free(c);
        return;
    }
    /* T1 */
    int root = s->root;
    assert_true(root >= P && root < t->nv);
    int64_t load = my_load(t, c), touch = 0;
    if (t->parent[root] >= 0) {
        assert_true(2 * (P - c[root]) <= P);
        touch |= (int64_t)c[root] * (P - c[root]) == load;
    }
    for (int v = 0; v < t->nv; v++)
        if (t->parent[v] == root) {
            assert_true(2 * c[v] <= P);
            touch |= (int64_t)c[v] * (P - c[v]) == load;
        }
    assert_true(touch);
    /* subtree of every rank (independent): the root's neighbour on its path */
    int *sub = malloc((size_t)P * sizeof *sub);
    for (int r = 0; r < P; r++) {
        int x = r, prev = -1;
        while (x >= 0 && x != root)
            prev = x, x = t->parent[x];
        sub[r] = x == root ? prev : -1; /* -1: the parent side */
    }
    int m0 = 0;
    for (int r = 0; r < P; r++) {
        int n = 0;
        for (int q = 0; q < P; q++)
            n += sub[q] == sub[r];
        if (n > m0) m0 = n;
    }
    /* T2: L phases, = the AAPC load */
    assert_int_equal(s->nphases, (int64_t)m0 * (P - m0));
    assert_int_equal(s->nphases, load);
    assert_int_equal(ac_aapc_load(t), load);
    /* T4: every ordered pair once */
    char *pair = calloc((size_t)P * P, 1);
    for (int x = 0; x < P * (P - 1); x++) {
        int a = s->msg[x].src, b = s->msg[x].dst;
        assert_true(a != b && a >= 0 && b >= 0 && a < P && b < P);
        assert_false(pair[a * P + b]);
        pair[a * P + b] = 1;
    }
    /* per phase: contention free, 1-port, <= 1 global sender/receiver per subtree */
    char *used = malloc(2 * (size_t)t->nv), *snd = calloc((size_t)P, 1),
         *rcv = calloc((size_t)P, 1);
    int *gs = calloc((size_t)t->nv + 1, sizeof *gs), *gr = calloc((size_t)t->nv + 1, sizeof *gr);
    for (int p = 0; p < s->nphases; p++) {
        const ac_pair_t *m = s->msg + s->pstart[p];
        int n = s->pstart[p + 1] - s->pstart[p];
        assert_true(n >= 1);
        assert_true(contention_free(t, m, n, used));
        for (int i = 0; i < n; i++) {
            assert_false(snd[m[i].src]++);
            assert_false(rcv[m[i].dst]++);
            if (sub[m[i].src] != sub[m[i].dst]) {
                assert_false(gs[sub[m[i].src] + 1]++);
                assert_false(gr[sub[m[i].dst] + 1]++);
            }
        }
        for (int i = 0; i < n; i++) {
            snd[m[i].src] = rcv[m[i].dst] = 0;
            gs[sub[m[i].src] + 1] = gr[sub[m[i].dst] + 1] = 0;
        }
    }
    free(pair), free(used), free(snd), free(rcv), free(gs), free(gr), free(sub), free(c);
}

static void test_random_aapc(void **state) {
    (void)state;
    ac_rng_t rng = {2026};
    int count = 0, big = 0;
    for (int it = 0; it < 220; it++) {
        ac_topo_t *t = random_tree(&rng, it < 140 ? 256 : 1024, NULL);
        ac_aapc_t s;
        assert_int_equal(ac_aapc_build(t, &s), 0);
        check_schedule(t, &s);
        count++;
        big += t->nranks > 512;
        ac_aapc_free(&s);
        ac_topo_free(t);
    }
    /* and at p = 1024 on a few shapes, timed */
    static const double means[] = {8, 16, 2};
    for (int k = 0; k < 3; k++) {
        char *g = ac_topo_generate(1024, means[k], 77 + (uint64_t)k, 1);
        ac_topo_t *t = mk(g);
        free(g);
        ac_aapc_t s;
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        assert_int_equal(ac_aapc_build(t, &s), 0);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double ms = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
        print_message("AAPC schedule p=1024, mean %g machines/switch (%d switches): %d phases, "
                      "%d subtrees, built in %.1f ms\n",
                      means[k], t->nsw, s.nphases, s.k, ms);
        check_schedule(t, &s);
        count++;
        ac_aapc_free(&s);
        ac_topo_free(t);
    }
    /* a single switch: the ring schedule, |M| - 1 phases */
    ac_topo_t *t = mk("switch s\nmachine a s\nmachine b s\nmachine c s\nmachine d s\n");
    ac_aapc_t s;
    assert_int_equal(ac_aapc_build(t, &s), 0);
    assert_int_equal(s.nphases, 3);
    check_schedule(t, &s);
    ac_aapc_free(&s);
    ac_topo_free(t);
    print_message("AAPC checked on %d trees (%d above 512 ranks)\n", count, big);
}

/* ------------------------------------------------------------------ T11 */
static int in_block_rule(ac_ts_t ts, int p1, int p2) {
    /* 1 if the scheme must order contending messages of phases p1 < p2; for the schemes that
     * order nothing, every pair is checked (to show that the simulation can fail) */
    switch (ts.scheme) {
    case AC_TS_NOSYNC:
    case AC_TS_DUMMY:
    case AC_TS_SENDER:
    case AC_TS_RECEIVER:
    case AC_TS_BARRIER:
    case AC_TS_BAR_SENDER:
    case AC_TS_BAR_RECEIVER:
        return 1;
    case AC_TS_SENDER_PART:
    case AC_TS_RECEIVER_PART:
    case AC_TS_BAR_NONE:
        return p1 / ts.bs != p2 / ts.bs;
    default:
        return 0;
    }
}

/* Bitsets over messages. */
typedef struct {
    size_t w;
} bs_t;
#define BSET(b, i) ((b)[(i) / 64] |= (uint64_t)1 << ((i) % 64))
#define BGET(b, i) ((b)[(i) / 64] >> ((i) % 64) & 1)

/* share[x*N+y] = 1 if messages x and y use a common directed link (via per-link user lists). */
static char *share_matrix(const ac_topo_t *t, const ac_aapc_t *s) {
    int N = s->pstart[s->nphases], ne = 2 * t->nv, e[4096];
    char *sh = calloc((size_t)N * N + 1, 1);
    int *cnt = calloc((size_t)ne, sizeof *cnt), **users = calloc((size_t)ne, sizeof *users);
    for (int x = 0; x < N; x++) {
        int np = my_path(t, s->msg[x].src, s->msg[x].dst, e);
        for (int k = 0; k < np; k++) {
            users[e[k]] = realloc(users[e[k]], (size_t)(cnt[e[k]] + 1) * sizeof **users);
            users[e[k]][cnt[e[k]]++] = x;
        }
    }
    for (int k = 0; k < ne; k++) {
        for (int i = 0; i < cnt[k]; i++)
            for (int j = 0; j < cnt[k]; j++)
                sh[(size_t)users[k][i] * N + users[k][j]] = 1;
        free(users[k]);
    }
    free(cnt), free(users);
    return sh;
}

/* Simulates the program of spec 3.3: K = messages known finished before an event. Checks that
 * every pair the scheme must order is ordered; returns the number of violations. */
static int simulate(const char *sh, const ac_aapc_t *s, ac_ts_t ts, const ac_token_t *tok,
                    int ntok) {
    int P = s->nranks, L = s->nphases, N = s->pstart[L], kind = ac_ts_token_kind(ts);
    size_t W = ((size_t)N + 63) / 64;
    uint64_t *cur = calloc((size_t)P * W, 8), *start = calloc((size_t)N * W, 8);
    uint64_t *tokset = calloc((size_t)(ntok ? ntok : 1) * W, 8), *before = calloc((size_t)P * W, 8);
    int *phase = malloc((size_t)N * sizeof *phase);
    for (int p = 0; p < L; p++)
        for (int x = s->pstart[p]; x < s->pstart[p + 1]; x++)
            phase[x] = p;
    for (int k = 0; k < ntok; k++) {
        assert_true(tok[k].m1 < tok[k].m2 && phase[tok[k].m1] < phase[tok[k].m2]);
        assert_int_equal(tok[k].to, s->msg[tok[k].m2].src);
        assert_int_equal(tok[k].from, kind == 1 ? s->msg[tok[k].m1].src : s->msg[tok[k].m1].dst);
    }
    for (int p = 0; p < L; p++) {
        memcpy(before, cur, (size_t)P * W * 8);
        /* sends start after the awaited tokens */
        for (int x = s->pstart[p]; x < s->pstart[p + 1]; x++) {
            int a = s->msg[x].src;
            for (int k = 0; k < ntok; k++)
                if (tok[k].m2 == x)
                    for (size_t w = 0; w < W; w++)
                        cur[a * W + w] |= tokset[k * W + w];
            memcpy(start + x * W, cur + a * W, W * 8);
        }
        /* completions */
        for (int x = s->pstart[p]; x < s->pstart[p + 1]; x++) {
            int a = s->msg[x].src, b = s->msg[x].dst;
            if (kind == 1) BSET(cur + a * W, (size_t)x); /* sender knows its send is done */
            for (size_t w = 0; w < W; w++)
                cur[b * W + w] |= start[x * W + w];
            BSET(cur + b * W, (size_t)x);
        }
        /* tokens sent in this phase: snapshot of what the sender of the token knew then */
        for (int k = 0; k < ntok; k++) {
            int x = tok[k].m1;
            if (phase[x] != p) continue;
            uint64_t *d = tokset + k * W;
            if (kind == 1) { /* after the isend completed */
                memcpy(d, start + x * W, W * 8);
                BSET(d, (size_t)x);
            } else { /* after the irecv completed */
                memcpy(d, before + (size_t)s->msg[x].dst * W, W * 8);
                for (size_t w = 0; w < W; w++)
                    d[w] |= start[x * W + w];
                BSET(d, (size_t)x);
            }
        }
        if (ac_ts_barrier_after(ts, p, L)) {
            uint64_t *all = calloc(W, 8);
            for (int r = 0; r < P; r++)
                for (size_t w = 0; w < W; w++)
                    all[w] |= cur[r * W + w];
            for (int r = 0; r < P; r++)
                memcpy(cur + r * W, all, W * 8);
            free(all);
        }
    }
    /* every contending pair the scheme orders */
    int bad = 0;
    for (int x = 0; x < N; x++)
        for (int y = s->pstart[phase[x] + 1]; y < N; y++)
            if (sh[(size_t)x * N + y] && in_block_rule(ts, phase[x], phase[y]) &&
                !BGET(start + (size_t)y * W, (size_t)x))
                bad++;
    free(cur), free(start), free(tokset), free(before), free(phase);
    return bad;
}

/* Naive reduction: full DAG of contending pairs kept by the filter, transitive closure by
 * repeated relaxation, edges with a longer path removed; returns the number of non-free edges. */
static int naive_tokens(const char *sh, const ac_aapc_t *s, ac_ts_t ts) {
    int L = s->nphases, N = s->pstart[L], kind = ac_ts_token_kind(ts);
    int *phase = malloc((size_t)N * sizeof *phase);
    for (int p = 0; p < L; p++)
        for (int x = s->pstart[p]; x < s->pstart[p + 1]; x++)
            phase[x] = p;
    char *E = calloc((size_t)N * N, 1), *R = calloc((size_t)N * N, 1);
    int bs = ts.bs ? ts.bs : 1;
    for (int x = 0; x < N; x++)
        for (int y = 0; y < N; y++) {
            if (phase[x] >= phase[y]) continue;
            int same = phase[x] / bs == phase[y] / bs;
            if ((ts.scheme == AC_TS_SENDER_PART || ts.scheme == AC_TS_RECEIVER_PART) && same)
                continue;
            if ((ts.scheme == AC_TS_BAR_SENDER || ts.scheme == AC_TS_BAR_RECEIVER) && !same)
                continue;
            E[x * N + y] = sh[(size_t)x * N + y];
        }
    /* R = paths of length >= 2: R = E.E*, computed in reverse order of x */
    char *C = calloc((size_t)N * N, 1); /* closure (length >= 1) */
    for (int x = N - 1; x >= 0; x--)
        for (int y = x + 1; y < N; y++)
            if (E[x * N + y]) {
                C[x * N + y] = 1;
                for (int z = y + 1; z < N; z++)
                    if (C[y * N + z]) C[x * N + z] = 1, R[x * N + z] = 1;
            }
    int n = 0;
    for (int x = 0; x < N; x++)
        for (int y = 0; y < N; y++)
            if (E[x * N + y] && !R[x * N + y]) {
                const ac_pair_t *a = &s->msg[x], *b = &s->msg[y];
                int fr = kind == 1 ? (a->src == b->src || a->dst == b->src) : a->dst == b->src;
                n += !fr;
            }
    free(phase), free(E), free(R), free(C);
    return n;
}

static void test_tokens(void **state) {
    (void)state;
    static const char *names[] = {"ts_nosync",
                                  "ts_dummy",
                                  "ts_sender",
                                  "ts_sender_part:bs=2",
                                  "ts_sender_part:bs=4",
                                  "ts_receiver",
                                  "ts_receiver_part:bs=8",
                                  "ts_barrier",
                                  "ts_bar_none:bs=4",
                                  "ts_bar_sender:bs=2",
                                  "ts_bar_sender:bs=16",
                                  "ts_bar_receiver:bs=4",
                                  "ts_receiver_part:bs=16"};
    ac_ts_t ts;
    assert_int_equal(ac_ts_parse("ts_sender_part", &ts), -1);
    assert_int_equal(ac_ts_parse("ts_sender:bs=2", &ts), -1);
    assert_int_equal(ac_ts_parse("ts_bar_none:bs=3", &ts), -1);
    assert_int_equal(ac_ts_parse("ts_foo", &ts), -1);
    ac_rng_t rng = {99};
    int trees = 0, violations_nosync = 0;
    for (int it = 0; it < 40; it++) {
        ac_topo_t *t = random_tree(&rng, it < 30 ? 10 : 24, NULL);
        ac_aapc_t s;
        assert_int_equal(ac_aapc_build(t, &s), 0);
        char *sh = share_matrix(t, &s);
        for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
            assert_int_equal(ac_ts_parse(names[k], &ts), 0);
            char back[64];
            ac_ts_name(ts, back, sizeof back);
            assert_string_equal(back, names[k]);
            ac_token_t *tok = NULL;
            int ntok = 0;
            assert_int_equal(ac_aapc_tokens(t, &s, ts, &tok, &ntok), 0);
            if (!ac_ts_token_kind(ts)) assert_int_equal(ntok, 0);
            int bad = simulate(sh, &s, ts, tok, ntok);
            if (ts.scheme == AC_TS_NOSYNC || ts.scheme == AC_TS_DUMMY) {
                violations_nosync += bad;
            } else {
                if (bad)
                    print_message("%s: %d unordered contending pairs (p=%d)\n", names[k], bad,
                                  t->nranks);
                assert_int_equal(bad, 0);
            }
            if (ac_ts_token_kind(ts) && t->nranks <= 10)
                assert_int_equal(ntok, naive_tokens(sh, &s, ts));
            /* the derivation without the reduction (used above AC_AAPC_TOKEN_MAX_P ranks):
             * a superset of orderings, every contending pair still ordered */
            ac_token_t *tok2 = NULL;
            int ntok2 = 0;
            assert_int_equal(ac_aapc_tokens_opt(t, &s, ts, 0, &tok2, &ntok2), 0);
            if (ts.scheme != AC_TS_SENDER_PART && ts.scheme != AC_TS_RECEIVER_PART)
                assert_true(ntok2 >= ntok); /* partial: pruned by program order instead */
            if (ac_ts_token_kind(ts)) assert_int_equal(simulate(sh, &s, ts, tok2, ntok2), 0);
            free(tok2);
            free(tok);
        }
        /* dummies: every rank sends and receives every phase, phases stay contention free */
        int *ds;
        ac_pair_t *dum;
        assert_int_equal(ac_aapc_dummies(t, &s, &ds, &dum), 0);
        char *used = malloc(2 * (size_t)t->nv);
        for (int p = 0; p < s.nphases; p++) {
            int n = s.pstart[p + 1] - s.pstart[p], nd = ds[p + 1] - ds[p];
            ac_pair_t *all = malloc((size_t)(n + nd) * sizeof *all);
            memcpy(all, s.msg + s.pstart[p], (size_t)n * sizeof *all);
            memcpy(all + n, dum + ds[p], (size_t)nd * sizeof *all);
            assert_true(contention_free(t, all, n + nd, used));
            for (int r = 0; r < t->nranks; r++) {
                int ns = 0, nr = 0;
                for (int i = 0; i < n + nd; i++)
                    ns += all[i].src == r, nr += all[i].dst == r;
                assert_true(ns >= 1 && nr >= 1);
            }
            for (int i = n; i < n + nd; i++) /* dummies stay under one switch */
                assert_int_equal(t->parent[all[i].src], t->parent[all[i].dst]);
            /* a rank without a send talks to itself only if no rank of its switch lacks a
             * receive (greedy pairing) */
            for (int i = n; i < n + nd; i++) {
                int x = all[i].src, busy = 0;
                if (all[i].dst != x) continue;
                for (int j = 0; j < n; j++)
                    busy |= all[j].src == x;
                if (busy) continue;
                for (int y = 0; y < t->nranks; y++) {
                    if (y == x || t->parent[y] != t->parent[x]) continue;
                    int got = 0;
                    for (int j = 0; j < n + nd; j++)
                        got |= all[j].dst == y && all[j].src != y;
                    assert_true(got);
                }
            }
            free(all);
        }
        free(used), free(ds), free(dum), free(sh);
        ac_aapc_free(&s);
        ac_topo_free(t);
        trees++;
    }
    /* without synchronisation nothing is ordered: the simulation does see unordered pairs */
    assert_true(violations_nosync > 0);
    /* cost of the token derivation at a moderate size */
    char *g = ac_topo_generate(64, 8, 5, 1);
    ac_topo_t *t = mk(g);
    free(g);
    ac_aapc_t s;
    assert_int_equal(ac_aapc_build(t, &s), 0);
    ac_token_t *tok;
    int ntok;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    assert_int_equal(ac_ts_parse("ts_sender", &ts), 0);
    assert_int_equal(ac_aapc_tokens(t, &s, ts, &tok, &ntok), 0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    print_message("tokens ts_sender p=64: %d phases, %d tokens for %d messages, %.1f ms\n",
                  s.nphases, ntok, s.pstart[s.nphases],
                  (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
    free(tok);
    ac_aapc_free(&s);
    ac_topo_free(t);
}

/* ------------------------------------------------------------------ rings */
/* Lemma 8 rooted at switch `rootsw`: every subtree's ranks consecutive in the ring, cyclically.
 * The subtrees of the tree re-rooted at rootsw are: for every vertex v != rootsw, the side of
 * the edge (v, parent(v)) that does not contain rootsw. */
static int lemma8(const ac_topo_t *t, const int *ring, int n, int rootsw) {
    int P = t->nranks;
    char *in = malloc((size_t)P);
    int ok = 1;
    for (int v = 0; v < t->nv && ok; v++) {
        if (t->parent[v] < 0) continue;
        /* side below v; if rootsw is below v, the other side */
        int below_root = 0;
        for (int x = rootsw; x >= 0; x = t->parent[x])
            below_root |= x == v;
        for (int r = 0; r < P; r++) {
            int under = 0;
            for (int x = r; x >= 0; x = t->parent[x])
                under |= x == v;
            in[r] = (char)(under ^ below_root);
        }
        /* count boundaries in the cyclic ring of the members present */
        int changes = 0, members = 0;
        for (int i = 0; i < n; i++) {
            members += in[ring[i]];
            changes += in[ring[i]] != in[ring[(i + 1) % n]];
        }
        if (members > 0 && members < n && changes > 2) ok = 0;
    }
    free(in);
    return ok;
}

static int my_maxpath(const ac_topo_t *t, const int *ring, int n) {
    int best = 0;
    for (int i = 0; n > 1 && i < n; i++) {
        int h = my_hops(t, ring[i], ring[(i + 1) % n]);
        if (h > best) best = h;
    }
    return best;
}

static int ring_cf(const ac_topo_t *t, const int *ring, int n) {
    ac_pair_t *m = malloc((size_t)n * sizeof *m);
    char *used = malloc(2 * (size_t)t->nv);
    for (int i = 0; i < n; i++)
        m[i] = (ac_pair_t){ring[i], ring[(i + 1) % n]};
    int ok = n < 2 || contention_free(t, m, n, used);
    free(m), free(used);
    return ok;
}

static int is_perm(const int *ring, int n) {
    char seen[4096] = {0};
    for (int i = 0; i < n; i++) {
        if (ring[i] < 0 || ring[i] >= n || seen[ring[i]]) return 0;
        seen[ring[i]] = 1;
    }
    return 1;
}

/* Brute force: every ring with ring[0] = 0, backtracking on link use. */
static int bf_best;
static void bf(const ac_topo_t *t, int *ring, int k, char *usedr, char *usede, int cur) {
    int P = t->nranks, e[4096];
    if (cur >= bf_best) return;
    if (k == P) {
        int np = my_path(t, ring[P - 1], ring[0], e), ok = 1;
        for (int i = 0; i < np; i++)
            ok &= !usede[e[i]];
        int h = my_hops(t, ring[P - 1], ring[0]);
        if (ok && (h > cur ? h : cur) < bf_best) bf_best = h > cur ? h : cur;
        return;
    }
    for (int r = 1; r < P; r++) {
        if (usedr[r]) continue;
        int np = my_path(t, ring[k - 1], r, e), ok = 1;
        for (int i = 0; i < np; i++)
            ok &= !usede[e[i]];
        if (!ok) continue;
        for (int i = 0; i < np; i++)
            usede[e[i]] = 1;
        usedr[r] = 1, ring[k] = r;
        int h = np - 1;
        bf(t, ring, k + 1, usedr, usede, h > cur ? h : cur);
        usedr[r] = 0;
        for (int i = 0; i < np; i++)
            usede[e[i]] = 0;
    }
}

static int degree_condition(const ac_topo_t *t) {
    for (int v = 0; v < t->nv; v++) {
        if (v < t->nranks) continue;
        int mach = 0, sw = t->parent[v] >= 0;
        for (int c = 0; c < t->nv; c++)
            if (t->parent[c] == v) *(c < t->nranks ? &mach : &sw) += 1;
        if (mach < sw) return 0;
    }
    return 1;
}

/* Timed simulation of the executor (alltoall_topo_aapc.c) on a token set, for sizes where the
 * exact simulation above (N^2 bits) is out of reach: random durations, a message begins when
 * its send is posted (after the sender's previous phase and its awaited tokens) and its
 * receive is posted (after the receiver's previous phase); tokens leave when the operation
 * they certify completes (sender-based: the send, taken as the end of the transfer as the
 * scheme assumes; receiver-based: the receive; a sender then completes its send at once,
 * the pessimistic eager case) and arrive after a random delay; barriers where the scheme puts
 * them. Then on every directed link each user must begin after the users the scheme orders it
 * after have ended (consecutive users; partial: every user of the link's previous non-empty
 * block; combined: consecutive users of one block). Returns the number of violations. */
static long timed_check(const ac_topo_t *t, const ac_aapc_t *s, ac_ts_t ts, const ac_token_t *tok,
                        int ntok, ac_rng_t *rng) {
    int P = s->nranks, L = s->nphases, N = s->pstart[L], kind = ac_ts_token_kind(ts);
    int bs = ts.bs ? ts.bs : 1,
        part = ts.scheme == AC_TS_SENDER_PART || ts.scheme == AC_TS_RECEIVER_PART;
    int comb = ts.scheme == AC_TS_BAR_SENDER || ts.scheme == AC_TS_BAR_RECEIVER;
    double *beg = malloc((size_t)N * sizeof *beg), *end = malloc((size_t)N * sizeof *end);
    double *ready = calloc((size_t)N, sizeof *ready); /* latest token arrival per message */
    double *entry = calloc((size_t)P, sizeof *entry), *exit_ = malloc((size_t)P * sizeof *exit_);
    int *phase = malloc((size_t)N * sizeof *phase);
    assert_non_null(beg), assert_non_null(end), assert_non_null(ready);
    assert_non_null(entry), assert_non_null(exit_), assert_non_null(phase);
    for (int p = 0; p < L; p++)
        for (int x = s->pstart[p]; x < s->pstart[p + 1]; x++)
            phase[x] = p;
    int *byx = malloc(((size_t)ntok + 1) * sizeof *byx), *xs = calloc((size_t)N + 1, sizeof *xs);
    for (int i = 0; i < ntok; i++) {
        assert_true(tok[i].m1 < tok[i].m2 && phase[tok[i].m1] < phase[tok[i].m2]);
        assert_int_equal(tok[i].to, s->msg[tok[i].m2].src);
        assert_int_equal(tok[i].from, kind == 1 ? s->msg[tok[i].m1].src : s->msg[tok[i].m1].dst);
        xs[tok[i].m1 + 1]++;
    }
    for (int x = 0; x < N; x++)
        xs[x + 1] += xs[x];
    int *fillx = malloc(((size_t)N + 1) * sizeof *fillx);
    memcpy(fillx, xs, ((size_t)N + 1) * sizeof *fillx);
    for (int i = 0; i < ntok; i++)
        byx[fillx[tok[i].m1]++] = i;
    for (int p = 0; p < L; p++) {
        for (int r = 0; r < P; r++)
            exit_[r] = entry[r];
        for (int x = s->pstart[p]; x < s->pstart[p + 1]; x++) {
            int a = s->msg[x].src, b = s->msg[x].dst;
            double post = entry[a] > ready[x] ? entry[a] : ready[x];
            beg[x] = post > entry[b] ? post : entry[b];
            end[x] = beg[x] + 1.0 + (double)ac_rng_below(rng, 1000) / 100.0;
            double sdone = kind == 2 ? post : end[x];
            if (sdone > exit_[a]) exit_[a] = sdone;
            if (end[x] > exit_[b]) exit_[b] = end[x];
        }
        for (int x = s->pstart[p]; x < s->pstart[p + 1]; x++)
            for (int i = xs[x]; i < xs[x + 1]; i++) {
                int y = tok[byx[i]].m2;
                double arr = end[x] + (double)ac_rng_below(rng, 300) / 100.0;
                if (arr > ready[y]) ready[y] = arr;
            }
        double all = 0;
        for (int r = 0; r < P; r++)
            if (exit_[r] > all) all = exit_[r];
        for (int r = 0; r < P; r++)
            entry[r] = ac_ts_barrier_after(ts, p, L) ? all : exit_[r];
    }
    /* chains of every directed link */
    int ne = 2 * t->nv, H = ac_topo_height(t);
    int *cs = calloc((size_t)ne + 1, sizeof *cs),
        *path = malloc((2 * (size_t)H + 2) * sizeof *path);
    for (int x = 0; x < N; x++) {
        int np = ac_topo_path(t, s->msg[x].src, s->msg[x].dst, path);
        for (int e = 0; e < np; e++)
            cs[path[e] + 1]++;
    }
    for (int e = 0; e < ne; e++)
        cs[e + 1] += cs[e];
    int *chain = malloc(((size_t)cs[ne] + 1) * sizeof *chain),
        *fl = malloc(((size_t)ne + 1) * sizeof *fl);
    memcpy(fl, cs, (size_t)ne * sizeof *fl);
    for (int x = 0; x < N; x++) {
        int np = ac_topo_path(t, s->msg[x].src, s->msg[x].dst, path);
        for (int e = 0; e < np; e++)
            chain[fl[path[e]]++] = x;
    }
    long bad = 0;
    for (int e = 0; e < ne; e++) {
        int lo = cs[e], hi = cs[e + 1];
        if (!part) {
            for (int c = lo; c + 1 < hi; c++) {
                int x = chain[c], y = chain[c + 1];
                if (comb && phase[x] / bs != phase[y] / bs) continue;
                bad += beg[y] < end[x];
            }
            continue;
        }
        double prev_end = -1; /* latest end of the previous non-empty block */
        int g0 = lo;
        while (g0 < hi) {
            int g1 = g0;
            double mx = 0;
            while (g1 < hi && phase[chain[g1]] / bs == phase[chain[g0]] / bs) {
                bad += beg[chain[g1]] < prev_end;
                if (end[chain[g1]] > mx) mx = end[chain[g1]];
                g1++;
            }
            prev_end = mx;
            g0 = g1;
        }
    }
    free(beg), free(end), free(ready), free(entry), free(exit_), free(phase), free(byx), free(xs);
    free(fillx), free(cs), free(path), free(chain), free(fl);
    return bad;
}

/* Token schemes above AC_AAPC_TOKEN_MAX_P ranks: derived without the reduction, in memory
 * linear in the sum of path lengths, checked by the timed simulation on random trees up to
 * 1024 machines; without the tokens the same simulation sees contention. A rank's own tokens
 * (ac_aapc_tokens_rank, what the collectives use there) are exactly its part of that set. */
static void test_tokens_large(void **state) {
    (void)state;
    static const struct {
        int n, mean, seed;
        const char *ts;
    } cases[] = {
        {300, 8, 1, "ts_sender"},
        {300, 8, 1, "ts_receiver_part:bs=4"},
        {300, 8, 1, "ts_bar_receiver:bs=8"},
        {400, 4, 2, "ts_sender_part:bs=16"},
        {1024, 16, 3, "ts_sender"},
        {1024, 16, 3, "ts_receiver_part:bs=8"},
        {1024, 32, 4, "ts_bar_sender:bs=4"},
    };
    ac_rng_t rng = {7};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char *g = ac_topo_generate(cases[c].n, cases[c].mean, (uint64_t)cases[c].seed, 1);
        ac_topo_t *t = mk(g);
        free(g);
        ac_aapc_t s;
        ac_ts_t ts;
        assert_int_equal(ac_aapc_build(t, &s), 0);
        assert_int_equal(ac_ts_parse(cases[c].ts, &ts), 0);
        ac_token_t *tok = NULL;
        int ntok = 0;
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        assert_int_equal(ac_aapc_tokens(t, &s, ts, &tok, &ntok), 0); /* p > 256: unreduced */
        clock_gettime(CLOCK_MONOTONIC, &b);
        assert_true(ntok > 0);
        long bad = timed_check(t, &s, ts, tok, ntok, &rng);
        long bad0 = timed_check(t, &s, ts, tok, 0, &rng);
        print_message("tokens %s p=%d: %d phases, %d tokens for %d messages (%.0f per message), "
                      "%.0f ms; violations %ld, without tokens %ld\n",
                      cases[c].ts, t->nranks, s.nphases, ntok, s.pstart[s.nphases],
                      (double)ntok / s.pstart[s.nphases],
                      (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6, bad, bad0);
        assert_int_equal(bad, 0);
        assert_true(bad0 > 0);
        ac_token_t *tr = NULL;
        int ntr = 0;
        assert_int_equal(ac_aapc_tokens_opt(t, &s, ts, 1, &tr, &ntr), -2); /* no N^2 reduction */
        assert_null(tr);
        /* what the collectives derive: each rank's own tokens, the subsequence of the whole set
         * it sends or awaits (ranks 0, p-1 and a few more) */
        double worst_ms = 0;
        int most = 0;
        for (int k = 0; k < 6; k++) {
            int me = k == 0   ? 0
                     : k == 1 ? t->nranks - 1
                              : (int)ac_rng_below(&rng, (uint32_t)t->nranks);
            clock_gettime(CLOCK_MONOTONIC, &a);
            assert_int_equal(ac_aapc_tokens_rank(t, &s, ts, me, &tr, &ntr), 0);
            clock_gettime(CLOCK_MONOTONIC, &b);
            double ms = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
            if (ms > worst_ms) worst_ms = ms;
            if (ntr > most) most = ntr;
            int j = 0;
            for (int i = 0; i < ntok; i++)
                if (tok[i].from == me || tok[i].to == me) {
                    assert_true(j < ntr);
                    assert_memory_equal(&tok[i], &tr[j], sizeof *tr);
                    j++;
                }
            assert_int_equal(j, ntr);
            free(tr);
        }
        print_message("  per rank: at most %d tokens (%.1f KiB), %.0f ms\n", most,
                      most * sizeof *tok / 1024.0, worst_ms);
        assert_int_equal(ac_aapc_tokens_rank(t, &s, ts, t->nranks, &tr, &ntr), -1);
        free(tok);
        ac_aapc_free(&s);
        ac_topo_free(t);
    }
}

static void test_rings(void **state) {
    (void)state;
    ac_rng_t rng = {4242};
    int bintrees = 0, binsum = 0;
    int trees = 0, lr2ok = 0, lr3done = 0, lr3skip = 0, bfdone = 0, lr3better = 0, lemma_cf = 0;
    double lr3ms = 0;
    for (int it = 0; it < 260; it++) {
        int maxm = it < 120 ? 10 : it < 230 ? 128 : 1024;
        ac_topo_t *t = random_tree(&rng, maxm, NULL);
        int P = t->nranks;
        int *r1 = malloc((size_t)P * sizeof *r1), *r2 = malloc((size_t)P * sizeof *r2);
        int *r3 = malloc((size_t)P * sizeof *r3), *x = malloc((size_t)P * sizeof *x);
        /* T5: the DFS switch ring, and LR1 */
        {
            int *sw = malloc((size_t)t->nv * sizeof *sw), ns = 0;
            /* LR1's switch order is the order in which its machines appear */
            assert_int_equal(ac_ring_lr1(t, r1), 0);
            assert_true(is_perm(r1, P));
            for (int i = 0; i < P; i++) {
                int s = t->parent[r1[i]];
                if (!ns || sw[ns - 1] != s) sw[ns++] = s;
            }
            /* switches without machines are skipped by LR1; the ring of the switches that
             * have machines is a sub-pattern of the DFS switch ring */
            ac_pair_t *m = malloc((size_t)(ns ? ns : 1) * sizeof *m);
            for (int i = 0; i < ns; i++)
                m[i] = (ac_pair_t){sw[i], sw[(i + 1) % ns]};
            char *used = malloc(2 * (size_t)t->nv);
            if (ns > 1) assert_true(contention_free(t, m, ns, used));
            free(m), free(used), free(sw);
            assert_true(ring_cf(t, r1, P));
            assert_int_equal(ac_ring_contention_free(t, r1, P), 1);
        }
        int l1 = my_maxpath(t, r1, P);
        assert_int_equal(ac_ring_maxpath(t, r1, P), l1);
        /* T6 */
        int cond = degree_condition(t);
        assert_int_equal(ac_ring_lr2_possible(t), cond);
        int rc2 = ac_ring_lr2(t, r2), l2 = -1;
        assert_int_equal(rc2 == 0, cond);
        if (cond) {
            lr2ok++;
            assert_true(is_perm(r2, P));
            assert_true(ring_cf(t, r2, P));
            l2 = my_maxpath(t, r2, P);
            assert_true(l2 <= 2);
        }
        /* T8 */
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        int l3 = ac_ring_lr3(t, r3);
        clock_gettime(CLOCK_MONOTONIC, &b);
        if (l3 == -2) {
            lr3skip++;
        } else {
            lr3ms += (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
            assert_true(l3 >= 0);
            lr3done++;
            assert_true(is_perm(r3, P));
            assert_true(ring_cf(t, r3, P));
            assert_int_equal(my_maxpath(t, r3, P), l3);
            assert_true(l3 <= l1);
            if (cond) assert_true(l3 <= l2);
            lr3better += l3 < l1;
            if (P <= 10) {
                char usedr[16] = {0}, *usede = calloc(2 * (size_t)t->nv, 1);
                int ring[16] = {0};
                bf_best = 1 << 20;
                usedr[0] = 1;
                if (P == 1)
                    bf_best = 0;
                else
                    bf(t, ring, 1, usedr, usede, 0);
                free(usede);
                assert_int_equal(l3, bf_best);
                bfdone++;
            }
        }
        /* T9: Algorithm 4 chain from a few roots */
        for (int k = 0; k < 3; k++) {
            int root = (int)ac_rng_below(&rng, (uint32_t)P);
            assert_int_equal(ac_bcast_chain(t, root, x), 0);
            assert_int_equal(x[0], root);
            assert_true(is_perm(x, P));
            ac_pair_t *m = malloc((size_t)P * sizeof *m);
            for (int i = 0; i + 1 < P; i++)
                m[i] = (ac_pair_t){x[i], x[i + 1]};
            char *used = malloc(2 * (size_t)t->nv);
            assert_true(P < 2 || contention_free(t, m, P - 1, used));
            free(m), free(used);
        }
        /* T9: Algorithm 5 binary tree: spans every rank, <= 2 children, height as returned,
         * messages of different senders never contend; >= the complete binary tree height */
        if (P <= 128) {
            int root = (int)ac_rng_below(&rng, (uint32_t)P);
            int *c1 = malloc((size_t)P * sizeof *c1), *c2 = malloc((size_t)P * sizeof *c2);
            int h = ac_bcast_bintree(t, root, c1, c2);
            assert_true(h >= 0);
            int *dep = malloc((size_t)P * sizeof *dep), *q = malloc((size_t)P * sizeof *q);
            for (int r = 0; r < P; r++)
                dep[r] = -1;
            int head = 0, tail = 0, hmax = 0, nmsg = 0;
            ac_pair_t *m = malloc((size_t)P * sizeof *m);
            dep[root] = 0, q[tail++] = root;
            while (head < tail) {
                int v = q[head++];
                int cs[2] = {c1[v], c2[v]};
                assert_true(cs[1] < 0 || cs[0] >= 0);
                for (int k = 0; k < 2; k++) {
                    if (cs[k] < 0) continue;
                    assert_int_equal(dep[cs[k]], -1);
                    dep[cs[k]] = dep[v] + 1;
                    if (dep[cs[k]] > hmax) hmax = dep[cs[k]];
                    q[tail++] = cs[k];
                    m[nmsg++] = (ac_pair_t){v, cs[k]};
                }
            }
            assert_int_equal(tail, P);
            assert_int_equal(hmax, h);
            int lg = 0;
            while ((2 << lg) <= P)
                lg++; /* floor(log2 P) */
            assert_true(h >= lg);
            if (t->nv == P + 1) assert_int_equal(h, lg); /* one switch: complete binary tree */
            bintrees++;
            binsum += h - lg;
            for (int a = 0; a < nmsg; a++) {
                int ea[4096], na = my_path(t, m[a].src, m[a].dst, ea);
                for (int b = a + 1; b < nmsg; b++) {
                    if (m[a].src == m[b].src) continue;
                    int eb[4096], nb = my_path(t, m[b].src, m[b].dst, eb);
                    for (int i = 0; i < na; i++)
                        for (int j = 0; j < nb; j++)
                            assert_int_not_equal(ea[i], eb[j]);
                }
            }
            free(c1), free(c2), free(dep), free(q), free(m);
        }
        /* T7: Lemma 8 both ways, rooted at a random switch; rings: LR3, perturbed LR3, random */
        if (P <= 256) {
            for (int k = 0; k < 6; k++) {
                memcpy(x, r3, (size_t)P * sizeof *x);
                if (k >= 1 && P > 1) /* swap two */
                    for (int s = 0; s < (k < 4 ? 1 : P); s++) {
                        int i = (int)ac_rng_below(&rng, (uint32_t)P),
                            j = (int)ac_rng_below(&rng, (uint32_t)P);
                        int y = x[i];
                        x[i] = x[j], x[j] = y;
                    }
                int sw = t->nranks + (int)ac_rng_below(&rng, (uint32_t)(t->nv - t->nranks));
                int cf = ring_cf(t, x, P), l8 = lemma8(t, x, P, sw);
                assert_int_equal(cf, l8);
                lemma_cf += cf;
                /* T10: deleting machines keeps a contention-free ring contention free */
                if (cf) {
                    int n = 0;
                    for (int i = 0; i < P; i++)
                        if (ac_rng_below(&rng, 3)) x[n++] = x[i];
                    assert_true(ring_cf(t, x, n));
                    assert_true(lemma8(t, x, n, sw));
                }
            }
        }
        free(r1), free(r2), free(r3), free(x);
        ac_topo_free(t);
        trees++;
    }
    print_message("rings on %d trees: LR2 applicable %d, LR3 %d (%d skipped, %.1f ms total, "
                  "shorter than LR1 on %d), brute force %d, contention-free rings in T7 %d\n",
                  trees, lr2ok, lr3done, lr3skip, lr3ms, lr3better, bfdone, lemma_cf);
    print_message("Algorithm 5 trees: %d, mean height above floor(log2 P): %.2f\n", bintrees,
                  bintrees ? (double)binsum / bintrees : 0.0);
    assert_true(lr2ok > 10 && lr2ok < trees && bfdone >= 100 && lr3better > 0 && bintrees >= 200);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rotate),       cmocka_unit_test(test_table34),
        cmocka_unit_test(test_random_aapc),  cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_tokens_large), cmocka_unit_test(test_rings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
