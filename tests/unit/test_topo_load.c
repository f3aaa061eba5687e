/*
 * The per-communicator view of AUTOCOLL_TOPOLOGY (src/topo/load.c), without MPI:
 *  - ac_topo_subset: rank i of a sub-communicator sits on the machine of its world rank,
 *    switches and machines without ranks are pruned, a world rank outside the file is refused
 *    with a reason, and the contention-free schedules derived on the subset are valid (every
 *    ordered pair once, phases contention free, AAPC load recomputed here);
 *  - the cached views: schedule, token programs of every scheme (each token awaited by its
 *    receiver in the phase of the message it guards, sent by its sender in the phase of the
 *    message it certifies), the dummy programs, the logical ring and the Algorithm-5 trees;
 *  - above the bound on reduced token sets, programs built from each rank's own tokens, and
 *    the token lines applicable there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "topo/load.h"

/* Figure 3.2 of the spec with ranks placed cyclically (as tests/mpi/topo/p6.topo). */
static const char *FIG = "switch s0\nswitch s1\nswitch s2\nlink s1 s0\nlink s1 s2\n"
                         "machine n0 s0\nmachine n1 s0\nmachine n2 s0\n"
                         "machine n3 s2\nmachine n4 s2\nmachine n5 s1\n"
                         "rank 0 n0\nrank 1 n3\nrank 2 n5\nrank 3 n1\nrank 4 n4\nrank 5 n2\n";

static ac_topo_t *mk(const char *text) {
    ac_topo_t *t = NULL;
    char *errs = NULL;
    int n = ac_topo_parse(text, strlen(text), "t.topo", &t, &errs);
    if (n) print_message("%s", errs);
    assert_int_equal(n, 0);
    free(errs);
    return t;
}

/* Directed edges of path(u, v) from the parent array: 2x up from x, 2x+1 down into x. */
static int my_path(const ac_topo_t *t, int u, int v, int *e) {
    int n = 0, m = 0, tail[256];
    while (t->depth[u] > t->depth[v])
        e[n++] = 2 * u, u = t->parent[u];
    while (t->depth[v] > t->depth[u])
        tail[m++] = 2 * v + 1, v = t->parent[v];
    while (u != v)
        e[n++] = 2 * u, u = t->parent[u], tail[m++] = 2 * v + 1, v = t->parent[v];
    while (m > 0)
        e[n++] = tail[--m];
    return n;
}

static void check_aapc(const ac_topo_t *t, const ac_aapc_t *s) {
    int P = t->nranks;
    char *pair = calloc((size_t)P * P + 1, 1), *used = calloc(2 * (size_t)t->nv, 1);
    int64_t load = 0;
    for (int v = 0; v < t->nv; v++)
        if (t->parent[v] >= 0) {
            int x = 0;
            for (int r = 0; r < P; r++) {
                int y = r;
                while (y >= 0 && y != v)
                    y = t->parent[y];
                x += y == v;
            }
            if ((int64_t)x * (P - x) > load) load = (int64_t)x * (P - x);
        }
    assert_int_equal(s->nphases, load);
    for (int p = 0; p < s->nphases; p++) {
        memset(used, 0, 2 * (size_t)t->nv);
        for (int x = s->pstart[p]; x < s->pstart[p + 1]; x++) {
            int e[512], n = my_path(t, s->msg[x].src, s->msg[x].dst, e);
            for (int k = 0; k < n; k++) {
                assert_false(used[e[k]]);
                used[e[k]] = 1;
            }
            assert_false(pair[s->msg[x].src * P + s->msg[x].dst]);
            pair[s->msg[x].src * P + s->msg[x].dst] = 1;
        }
    }
    for (int a = 0; a < P; a++)
        for (int b = 0; b < P; b++)
            assert_int_equal(pair[a * P + b], a != b);
    free(pair), free(used);
}

static void test_subset(void **state) {
    (void)state;
    ac_topo_t *w = mk(FIG);
    /* every rank but 0, and the even ranks reversed (tests/mpi/topo.c's sub-communicators) */
    static const int sub1[] = {1, 2, 3, 4, 5}, sub2[] = {4, 2, 0};
    static const char *host1[] = {"n3", "n5", "n1", "n4", "n2"}, *host2[] = {"n4", "n5", "n0"};
    const int *subs[] = {sub1, sub2};
    const char **hosts[] = {host1, host2};
    int ns[] = {5, 3};
    for (int k = 0; k < 2; k++) {
        ac_topo_t *s = ac_topo_subset(w, subs[k], ns[k], NULL);
        assert_non_null(s);
        assert_int_equal(s->nranks, ns[k]);
        for (int i = 0; i < ns[k]; i++)
            assert_string_equal(ac_topo_rank_host(s, i), hosts[k][i]);
        ac_aapc_t a;
        assert_int_equal(ac_aapc_build(s, &a), 0);
        check_aapc(s, &a);
        ac_aapc_free(&a);
        ac_topo_free(s);
    }
    /* n4 and n3 only: s0 and s1 carry no rank and are pruned: 2 ranks + s2 */
    {
        static const int only[] = {4, 1};
        ac_topo_t *s = ac_topo_subset(w, only, 2, NULL);
        assert_non_null(s);
        assert_int_equal(s->nv, 3);
        assert_int_equal(ac_topo_hops(s, 0, 1), 1);
        ac_topo_free(s);
    }
    /* a rank the file does not place */
    {
        static const int out[] = {0, 6};
        char *errs = NULL;
        assert_null(ac_topo_subset(w, out, 2, &errs));
        assert_non_null(errs);
        assert_non_null(strstr(errs, "not in the topology"));
        free(errs);
    }
    ac_topo_free(w);
}

/* The cached programs: per rank and scheme, tokens awaited / sent in the right phases. */
static void test_programs(void **state) {
    (void)state;
    ac_topo_comm_t tc;
    memset(&tc, 0, sizeof tc);
    tc.t = mk(FIG);
    const ac_aapc_t *s = ac_topo_aapc(&tc);
    assert_non_null(s);
    assert_int_equal(s->nphases, 9); /* Table 3.4: |M_0| = 3, L = 3 * 3 */
    static const char *schemes[] = {"ts_nosync",  "ts_sender",           "ts_receiver",
                                    "ts_barrier", "ts_sender_part:bs=2", "ts_bar_receiver:bs=4"};
    int P = tc.t->nranks;
    for (int k = 0; k < 6; k++) {
        ac_ts_t ts;
        assert_int_equal(ac_ts_parse(schemes[k], &ts), 0);
        const ac_token_t *tok = NULL;
        int ntok = -1;
        assert_int_equal(ac_topo_tokens(&tc, ts, &tok, &ntok), 0);
        if (ac_ts_token_kind(ts) == 0) assert_int_equal(ntok, 0);
        if (ts.scheme == AC_TS_SENDER || ts.scheme == AC_TS_RECEIVER) assert_true(ntok > 0);
        int waited = 0, sent = 0;
        for (int me = 0; me < P; me++) {
            const ac_topo_prog_t *g = ac_topo_program(&tc, ts, me);
            assert_non_null(g);
            assert_int_equal(g->nphases, 9);
            for (int p = 0; p < 9; p++) {
                int to = -1, from = -1;
                for (int x = s->pstart[p]; x < s->pstart[p + 1]; x++) {
                    if (s->msg[x].src == me) to = s->msg[x].dst;
                    if (s->msg[x].dst == me) from = s->msg[x].src;
                }
                assert_int_equal(g->to[p], to);
                assert_int_equal(g->from[p], from);
                /* a token awaited in phase p guards my send of phase p */
                if (g->wstart[p + 1] > g->wstart[p]) assert_true(to >= 0);
                for (int w = g->wstart[p]; w < g->wstart[p + 1]; w++) {
                    int found = 0;
                    for (int j = 0; j < ntok; j++)
                        found += tok[j].to == me && tok[j].from == g->wsrc[w] &&
                                 s->msg[tok[j].m2].src == me && tok[j].m2 >= s->pstart[p] &&
                                 tok[j].m2 < s->pstart[p + 1];
                    assert_true(found >= 1);
                }
                waited += g->wstart[p + 1] - g->wstart[p];
                sent += g->sstart[p + 1] - g->sstart[p];
            }
        }
        assert_int_equal(waited, ntok);
        assert_int_equal(sent, ntok);
    }
    const int *R = ac_topo_ring(&tc);
    assert_non_null(R);
    char seen[6] = {0};
    for (int i = 0; i < P; i++)
        seen[R[i]]++;
    for (int i = 0; i < P; i++)
        assert_int_equal(seen[i], 1);
    assert_true(ac_ring_contention_free(tc.t, R, P));
    /* s1 has one machine and two sub-switches: no 2-hop ring (Theorem 3); n0 n1 n2 n5 n3 n4
     * closes through s2, s1, s0: 3 switches, the best possible */
    assert_false(ac_ring_lr2_possible(tc.t));
    assert_int_equal(tc.ring_len, 3);
    for (int root = 0; root < P; root++) {
        const int *c = ac_topo_bintree(&tc, root);
        assert_non_null(c);
        int reach[6] = {0}, n = 0, stack[6], top = 0;
        stack[top++] = root;
        while (top) {
            int v = stack[--top];
            assert_false(reach[v]++);
            n++;
            for (int j = 0; j < 2; j++)
                if (c[2 * v + j] >= 0) stack[top++] = c[2 * v + j];
        }
        assert_int_equal(n, P);
    }
    /* dummy scheme (Table 3.5): every rank has a send and a receive in every phase (real,
     * dummy, or a dummy to itself), and the two ends of every dummy agree */
    ac_ts_t dts;
    assert_int_equal(ac_ts_parse("ts_dummy", &dts), 0);
    int ndummy = 0;
    for (int me = 0; me < P; me++) {
        const ac_topo_prog_t *g = ac_topo_program(&tc, dts, me);
        assert_non_null(g);
        assert_non_null(g->dto);
        assert_int_equal(g->wstart[g->nphases], 0);
        assert_int_equal(g->sstart[g->nphases], 0);
        int dto[9], dfrom[9], self[9];
        for (int p = 0; p < 9; p++)
            dto[p] = g->dto[p], dfrom[p] = g->dfrom[p], self[p] = g->dself[p];
        for (int p = 0; p < 9; p++) {
            assert_true(g->to[p] >= 0 || dto[p] >= 0 || self[p]);
            assert_true(g->from[p] >= 0 || dfrom[p] >= 0 || self[p]);
            if (g->to[p] >= 0) assert_int_equal(dto[p], -1); /* a dummy only when idle */
            if (g->from[p] >= 0) assert_int_equal(dfrom[p], -1);
            assert_true(dto[p] != me && dfrom[p] != me);
            ndummy += dto[p] >= 0;
            if (dto[p] >= 0) { /* the receiver's program names me in the same phase */
                const ac_topo_prog_t *h = ac_topo_program(&tc, dts, dto[p]);
                assert_int_equal(h->dfrom[p], me);
                assert_int_equal(tc.t->parent[me], tc.t->parent[dto[p]]); /* one switch */
                g = ac_topo_program(&tc, dts, me);
            }
        }
    }
    assert_true(ndummy > 0);
    /* freed as a context frees it */
    ac_topo_comm_t *heap = malloc(sizeof *heap);
    *heap = tc;
    ac_topo_comm_free(heap);
}

/* Token sets are reduced up to AC_AAPC_TOKEN_MAX_P ranks; above, each rank derives its own
 * tokens only, so the token lines (alltoall topo_aapc, allreduce topo_rab2_token) carry no bound
 * of their own: at p = 257 they are as applicable as the lines without tokens, and a rank's
 * program is built without the whole set (its entry's set stays unbuilt) from exactly its part
 * of it. */
static void lines_applicable(int coll, const char *tokens, const char *free_line,
                             const autocoll_situation_t *sit) {
    int seen = 0;
    for (int i = 0; i < autocoll_alg_count(coll); i++) {
        autocoll_alg_info_t info;
        assert_int_equal(autocoll_alg_info(coll, i, &info), MPI_SUCCESS);
        if (!strcmp(info.name, tokens) || !strcmp(info.name, free_line)) {
            seen++;
            assert_null(autocoll_restriction_reason(info.restrictions, sit));
        }
    }
    assert_int_equal(seen, 2);
}

static void test_token_bound(void **state) {
    (void)state;
    for (int P = AC_AAPC_TOKEN_MAX_P; P <= AC_AAPC_TOKEN_MAX_P + 1; P++) {
        size_t cap = 64 + (size_t)P * 40;
        char *txt = malloc(cap);
        size_t n = (size_t)snprintf(txt, cap, "switch s0\nswitch s1\nlink s0 s1\n");
        for (int i = 0; i < P; i++)
            n += (size_t)snprintf(txt + n, cap - n, "machine m%d s%d\n", i, i % 2);
        ac_topo_comm_t *tc = calloc(1, sizeof *tc);
        tc->t = mk(txt);
        free(txt);
        const ac_aapc_t *s = ac_topo_aapc(tc);
        assert_non_null(s);
        ac_ts_t ts;
        assert_int_equal(ac_ts_parse("ts_sender", &ts), 0);
        if (P > AC_AAPC_TOKEN_MAX_P) {
            ac_token_t *tok = NULL;
            int ntok = 0;
            /* the reduction is refused before any allocation */
            assert_int_equal(ac_aapc_tokens_opt(tc->t, s, ts, 1, &tok, &ntok), -2);
            assert_null(tok);
            /* the unreduced derivation works: at least one token per message that crosses
             * the s0-s1 link after the first (P/2 * P/2 each way, minus the first) */
            assert_int_equal(ac_aapc_tokens(tc->t, s, ts, &tok, &ntok), 0);
            assert_true(ntok >= 2 * ((P / 2) * ((P + 1) / 2) - 1));
            /* rank 1's program, per rank: its sends and waits are its tokens of the set */
            const ac_topo_prog_t *g = ac_topo_program(tc, ts, 1);
            assert_non_null(g);
            assert_int_equal(tc->toksets[0].ntok, -2); /* the whole set was not built */
            int sent = 0, awaited = 0;
            for (int k = 0; k < ntok; k++)
                sent += tok[k].from == 1, awaited += tok[k].to == 1;
            assert_true(sent > 0 && awaited > 0);
            assert_int_equal(g->sstart[g->nphases], sent);
            assert_int_equal(g->wstart[g->nphases], awaited);
            free(tok);
        } else {
            assert_non_null(ac_topo_program(tc, ts, 1));
            assert_true(tc->toksets[0].ntok > 0); /* cut from the reduced set, kept */
        }
        ac_topo_comm_free(tc);
        autocoll_situation_t sit = {
            .p = P, .nodes = 2, .uniform_ppn = 1, .commutative = 1, .topology = 1};
        lines_applicable(AUTOCOLL_ALLTOALL, "topo_aapc", "topo_aapc_notoken", &sit);
        lines_applicable(AUTOCOLL_ALLREDUCE, "topo_rab2_token", "topo_rab2", &sit);
    }
}

/* Tokens are matched by sequence number: for every awaited token (from a, number s, in phase
 * q of the waiting rank c), the s-th token a sends to c is sent in a phase p for which a token
 * a -> c guards a message of phase q from one of phase p; the numbers of one pair are 0..n-1.
 * Partial schemes send and await in different orders on such trees (counted, must occur). */
static void test_token_order(void **state) {
    (void)state;
    static const char *schemes[] = {"ts_sender", "ts_receiver", "ts_sender_part:bs=4",
                                    "ts_receiver_part:bs=2", "ts_bar_sender:bs=4"};
    long crossed = 0;
    /* it >= 12: the same trees with every program derived per rank from the unreduced set (as
     * above AC_AAPC_TOKEN_MAX_P ranks), checked against that whole set */
    for (int it = 0; it < 24; it++) {
        char *g =
            ac_topo_generate(6 + 3 * (it % 12), 2 + it % 4, 500 + (uint64_t)(it % 12), 1 + it % 2);
        ac_topo_comm_t tc;
        memset(&tc, 0, sizeof tc);
        if (it >= 12) tc.reduce_max_p = 1;
        tc.t = mk(g);
        free(g);
        int P = tc.t->nranks;
        const ac_aapc_t *s = ac_topo_aapc(&tc);
        assert_non_null(s);
        int L = s->nphases;
        for (int k = 0; k < 5; k++) {
            ac_ts_t ts;
            assert_int_equal(ac_ts_parse(schemes[k], &ts), 0);
            const ac_token_t *tok = NULL;
            int ntok = 0;
            assert_int_equal(ac_topo_tokens(&tc, ts, &tok, &ntok), 0);
            /* sphase[a][c][i]: phase of the i-th token a sends to c */
            int *cnt = calloc((size_t)P * P, sizeof *cnt),
                *sph = malloc(((size_t)ntok + 1) * sizeof *sph),
                *start = calloc((size_t)P * P + 1, sizeof *start);
            for (int a = 0; a < P; a++) {
                const ac_topo_prog_t *ga = ac_topo_program(&tc, ts, a);
                assert_non_null(ga);
                for (int p = 0; p < L; p++)
                    for (int x = ga->sstart[p]; x < ga->sstart[p + 1]; x++)
                        start[a * P + ga->sdst[x] + 1]++;
            }
            for (int i = 0; i < P * P; i++)
                start[i + 1] += start[i];
            assert_int_equal(start[P * P], ntok); /* every token sent once */
            int awaited = 0;
            for (int a = 0; a < P; a++) {
                const ac_topo_prog_t *ga = ac_topo_program(&tc, ts, a);
                for (int p = 0; p < L; p++)
                    for (int x = ga->sstart[p]; x < ga->sstart[p + 1]; x++) {
                        int c = ga->sdst[x];
                        sph[start[a * P + c] + cnt[a * P + c]++] = p;
                    }
            }
            memset(cnt, 0, (size_t)P * P * sizeof *cnt);
            for (int c = 0; c < P; c++) {
                const ac_topo_prog_t *gc = ac_topo_program(&tc, ts, c);
                char *seen = calloc((size_t)ntok + 1, 1);
                for (int q = 0; q < L; q++)
                    for (int w = gc->wstart[q]; w < gc->wstart[q + 1]; w++) {
                        int a = gc->wsrc[w], sq = gc->wseq[w],
                            n = start[a * P + c + 1] - start[a * P + c];
                        assert_true(sq >= 0 && sq < n);
                        assert_false(seen[start[a * P + c] + sq]++);
                        int p = sph[start[a * P + c] + sq], found = 0;
                        for (int j = 0; j < ntok && !found; j++)
                            found = tok[j].from == a && tok[j].to == c &&
                                    tok[j].m1 >= s->pstart[p] && tok[j].m1 < s->pstart[p + 1] &&
                                    tok[j].m2 >= s->pstart[q] && tok[j].m2 < s->pstart[q + 1];
                        assert_true(found);
                        crossed += sq != cnt[a * P + c]++; /* awaited out of send order */
                        awaited++;
                    }
                free(seen);
            }
            assert_int_equal(awaited, ntok); /* and awaited once */
            free(cnt), free(sph), free(start);
        }
        ac_topo_comm_t *heap = malloc(sizeof *heap);
        *heap = tc;
        ac_topo_comm_free(heap);
    }
    print_message("tokens awaited out of their send order: %ld\n", crossed);
    assert_true(crossed > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_subset),
        cmocka_unit_test(test_programs),
        cmocka_unit_test(test_token_order),
        cmocka_unit_test(test_token_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
