/* Unit tests of the point-to-point analyses over trace records (src/trace/trace_pairs.c) on
 * hand-made records: the pure inter-send time of spec predictors-latency.md §2.3 with the
 * appendix example of seed 004 (App. A), with and without wrapper overheads, and the pairing of
 * sends and receives of the early-arrival analysis of spec §4.3 across two processes' files
 * (clock offsets, nonblocking receives completed out of order, a wildcard resolved by its
 * status, one never completed, an unkeyed send, a persistent start, an orphan completion), and
 * persistent send and receive starts paired through their completion records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include "core/ac.h"
#include "trace/trace.h"

static ac_trace_rec_t rec(int kind, int64_t t_in, int64_t t_out) {
    ac_trace_rec_t r;
    ac_trace_rec_clear(&r, kind);
    r.t_in = t_in;
    r.t_out = t_out;
    return r;
}

/* Seed 004 App. A: send a ends at t2, Irecv over (t3, t4), Wait over (t5, t6), send b starts at
 * t7: pure = t7 - t2 - ((t4 - t3) + (t6 - t5)). With t2 = 150, t3 = 200, t4 = 230, t5 = 300,
 * t6 = 420, t7 = 500 ns: 500 - 150 - (30 + 120) = 200. The completion record of the Irecv (same
 * interval as the Wait) and a tree stage record are not calls and must not be subtracted. With
 * overheads (entry/exit) send 7/11, recv 5/13, other 3/17: 200 - (11 + 7 + 5 + 13 + 3 + 17) =
 * 144. */
static void appendix_example(void **st) {
    (void)st;
    ac_trace_rec_t r[6];
    r[0] = rec(AC_TK_SEND, 100, 150);
    r[1] = rec(AC_TK_IRECV, 200, 230);
    r[2] = rec(AC_TK_WAIT, 300, 420);
    r[3] = rec(AC_TK_RECV_DONE, 300, 420);
    r[4] = rec(AC_TK_TREE_RANK, 310, 400);
    r[5] = rec(AC_TK_SEND, 500, 520);
    r[0].ident = r[5].ident = 0;
    r[1].ident = 0;
    double gap[6] = {-1, -1, -1, -1, -1, -1};
    assert_int_equal(ac_pure_gaps(r, 6, NULL, NULL, gap), 2);
    assert_true(gap[0] == 0 && gap[1] == 200);
    double in[AC_WRAP_NCLASS] = {7, 5, 3}, out[AC_WRAP_NCLASS] = {11, 13, 17};
    assert_int_equal(ac_pure_gaps(r, 6, in, out, gap), 2);
    assert_true(gap[1] == 144);
    /* a gap shorter than the overheads is clamped at 0 (a lower bound, spec 2.3) */
    r[5].t_in = r[5].t_out = 380 + 60;
    r[2].t_out = r[3].t_out = 300;
    assert_int_equal(ac_pure_gaps(r, 6, in, out, gap), 2);
    assert_true(gap[1] == 440 - 150 - 30 - 0 - 56 && gap[1] > 0);
    r[5].t_in = r[5].t_out = 200; /* 200 - 150 - 68 - 18 < 0 */
    ac_pure_gaps(r, 6, in, out, gap);
    assert_true(gap[1] == 0);
}

/* The appendix example with persistent requests: send a is the start of a persistent send
 * (MPI_Start), the Irecv is the receive-side half of an MPI_Startall that also starts send b
 * (records tiling the call: receive 200-230, send 230-260): the receive start is another call
 * (its 30 ns subtracted), a persistent send start is a send, and a start of a request the
 * tracer does not know (no persistent flag) is neither. pure(a, b) = 230 - 150 - 30 = 50. */
static void persistent_starts(void **st) {
    (void)st;
    ac_trace_rec_t r[4];
    r[0] = rec(AC_TK_START, 100, 150);
    r[0].flags = AC_TF_PERSISTENT;
    r[1] = rec(AC_TK_STARTALL, 200, 230);
    r[1].flags = AC_TF_PERSISTENT | AC_TF_RECV_SIDE;
    r[2] = rec(AC_TK_STARTALL, 230, 260);
    r[2].flags = AC_TF_PERSISTENT;
    r[3] = rec(AC_TK_START, 300, 310); /* not known: a duration */
    r[0].ident = r[1].ident = r[2].ident = 0;
    assert_true(ac_trace_is_send(&r[0]) && ac_trace_is_send(&r[2]));
    assert_false(ac_trace_is_send(&r[1]) || ac_trace_is_send(&r[3]));
    double gap[4] = {-1, -1, -1, -1};
    assert_int_equal(ac_pure_gaps(r, 4, NULL, NULL, gap), 2);
    assert_true(gap[0] == 0 && gap[1] == 50);
}

/* The overhead string of a file. */
static void wrap_string(void **st) {
    (void)st;
    char s1[] = "#net alpha=1e-06 beta=1e-09", s2[] = "#wrap send=7.5/11 recv=5/13 other=3/17";
    char *strs[2] = {s1, s2};
    ac_trace_file_t t;
    memset(&t, 0, sizeof t);
    t.nstr = 2;
    t.str = strs;
    double in[AC_WRAP_NCLASS], out[AC_WRAP_NCLASS];
    assert_int_equal(ac_trace_file_wrap(&t, in, out), 0);
    assert_true(in[AC_WRAP_SEND] == 7.5 && out[AC_WRAP_SEND] == 11 && in[AC_WRAP_RECV] == 5 &&
                out[AC_WRAP_RECV] == 13 && in[AC_WRAP_OTHER] == 3 && out[AC_WRAP_OTHER] == 17);
    t.nstr = 1;
    assert_int_equal(ac_trace_file_wrap(&t, in, out), -1);
    assert_true(in[0] == 0 && out[2] == 0);
    char s3[] = "#wrap send=-1/2 recv=1/2 other=1/2";
    strs[0] = s3;
    assert_int_equal(ac_trace_file_wrap(&t, in, out), -1);
    assert_int_equal(ac_trace_wrap_class(AC_TK_SENDRECV), AC_WRAP_SEND);
    assert_int_equal(ac_trace_wrap_class(AC_TK_IRECV), AC_WRAP_RECV);
    assert_int_equal(ac_trace_wrap_class(AC_TK_WAITALL), AC_WRAP_OTHER);
    assert_int_equal(ac_trace_wrap_class(AC_TK_RECV_DONE), -1);
    assert_int_equal(ac_trace_wrap_class(AUTOCOLL_BCAST), -1);
}

enum { K = 1234, K2 = 999 };

static ac_trace_rec_t p2p(int kind, int64_t t, int64_t key, int root, int tag) {
    ac_trace_rec_t r = rec(kind, t, t + 10);
    r.seq = (uint64_t)key;
    r.root = root;
    r.tag = tag;
    r.ident = 0;
    return r;
}

/* Rank 0 (clock = rank 0's): sends to 1 on K tag 7 at 5000 and 9000, on K2 tag 7 at 6000, on K
 * tag 8 at 100, and one send without a key. Rank 1, whose clock reads 1000 ns less than rank
 * 0's (offset +1000 at both estimates): Irecv serial 4 from 0 tag 7 on K (posted at 1000),
 * Irecv serial 5 wildcard on K, completion of 5 (from 0, tag 7) at 7000, completion of 4 at
 * 5500, Recv on K2 from 0 tag 7 at 5500 (status world rank in inst), Irecv serial 6 from 0 tag 8
 * never completed, Irecv serial 7 wildcard never completed, a persistent start, a completion of
 * serial 99 (no such receive).
 * On rank 0's clock: stream (0 -> 1, K, 7): receives serial 4 at 6500, serial 5 at 8000 (posting
 * order) against sends at 5000 and 9000: late, early. (0 -> 1, K2, 7): 6500 against 6000: late.
 * (0 -> 1, K, 8): serial 6 paired without a time. Rank 1: 4 receives, 3 timed pairs, 1 early,
 * 1 untimed: 33.3 %. Without the offsets the K2 receive (5500 < 6000) would be early; with the
 * posting times serial 4 (2000 < 5000) would be. */
static void pairing(void **st) {
    (void)st;
    ac_trace_rec_t r0[5], r1[9];
    r0[0] = p2p(AC_TK_SEND, 5000, K, 1, 7);
    r0[1] = p2p(AC_TK_ISEND, 6000, K2, 1, 7);
    r0[2] = p2p(AC_TK_SEND, 9000, K, 1, 7);
    r0[3] = p2p(AC_TK_SEND, 100, K, 1, 8);
    r0[4] = p2p(AC_TK_SEND, 200, 0, 1, 8); /* unkeyed */
    r1[0] = p2p(AC_TK_IRECV, 1000, K, 0, 7);
    r1[0].inst = 4;
    r1[1] = p2p(AC_TK_IRECV, 1100, K, AC_TRACE_NONE, -1);
    r1[1].inst = 5;
    r1[1].flags = AC_TF_WILDCARD;
    r1[2] = p2p(AC_TK_RECV_DONE, 7000, K, 0, AC_TRACE_NONE);
    r1[2].inst = 5;
    r1[2].status_source = 0;
    r1[2].status_tag = 7;
    r1[3] = p2p(AC_TK_RECV_DONE, 5500, K, 0, AC_TRACE_NONE);
    r1[3].inst = 4;
    r1[3].status_source = 0;
    r1[3].status_tag = 7;
    r1[4] = p2p(AC_TK_RECV, 5500, K2, 0, 7);
    r1[4].inst = 0;
    r1[4].status_source = 0;
    r1[4].status_tag = 7;
    r1[5] = p2p(AC_TK_IRECV, 8000, K, 0, 8);
    r1[5].inst = 6;
    r1[6] = p2p(AC_TK_IRECV, 8100, K, AC_TRACE_NONE, 8);
    r1[6].inst = 7;
    r1[6].flags = AC_TF_WILDCARD;
    r1[7] = rec(AC_TK_START, 8200, 8300);
    r1[8] = p2p(AC_TK_RECV_DONE, 8400, K, 0, AC_TRACE_NONE);
    r1[8].inst = 99;
    r1[8].status_tag = 7;
    ac_trace_file_t f[2];
    memset(f, 0, sizeof f);
    for (int i = 0; i < 2; i++) {
        f[i].rank = i;
        f[i].nprocs = 2;
        f[i].clock[0] = (ac_trace_clock_t){0, i ? 1000 : 0, i ? 5 : 0};
        f[i].clock[1] = (ac_trace_clock_t){100000, i ? 1000 : 0, i ? 5 : 0};
    }
    f[0].rec = r0;
    f[0].nrec = 5;
    f[1].rec = r1;
    f[1].nrec = 9;
    ac_ea_input in;
    assert_int_equal(ac_early_input(f, 2, &in), 0);
    assert_int_equal(in.ns, 4);
    assert_int_equal(in.nr, 4);
    assert_int_equal(in.unkeyed, 1);
    assert_int_equal(in.unresolved, 1);
    assert_int_equal(in.untimed, 1);
    assert_int_equal(in.persistent, 1);
    assert_int_equal(in.orphan, 1);
    /* receives in posting order, resolved */
    assert_true(in.r[0].src == 0 && in.r[0].tag == 7 && in.r[0].comm == K && in.r[0].t == 6500);
    assert_true(in.r[1].src == 0 && in.r[1].tag == 7 && in.r[1].t == 8000);
    assert_true(in.r[2].comm == K2 && in.r[2].t == 6500);
    assert_true(in.r[3].tag == 8 && isnan(in.r[3].t));
    ac_ea_proc pp[2];
    double avg = 0;
    assert_int_equal(ac_early_arrival(in.s, in.ns, in.r, in.nr, 2, pp, &avg, NULL), 0);
    assert_int_equal(pp[0].recvs, 0);
    assert_int_equal(pp[1].recvs, 4);
    assert_int_equal(pp[1].matched, 3);
    assert_int_equal(pp[1].early, 1);
    assert_int_equal(pp[1].untimed, 1);
    assert_true(fabs(avg - 100.0 / 3) < 1e-9);
    ac_early_input_free(&in);
    /* a global clock: no correction (the K2 receive at 5500 is then early) */
    f[1].flags = f[0].flags = AC_TRACE_FLAG_GLOBAL_CLOCK;
    assert_int_equal(ac_early_input(f, 2, &in), 0);
    assert_int_equal(ac_early_arrival(in.s, in.ns, in.r, in.nr, 2, pp, &avg, NULL), 0);
    assert_int_equal(pp[1].early, 2);
    ac_early_input_free(&in);
    /* a peer world rank out of range is left out, never passed on */
    f[1].flags = f[0].flags = 0;
    r0[0].root = 5;
    assert_int_equal(ac_early_input(f, 2, &in), 0);
    assert_int_equal(in.ns, 3);
    assert_int_equal(in.unkeyed, 2);
    assert_int_equal(ac_early_arrival(in.s, in.ns, in.r, in.nr, 2, pp, &avg, NULL), 0);
    ac_early_input_free(&in);
}

/* Persistent requests in the pairing, on one clock (offsets 0). Rank 0 starts a persistent send
 * to 1 (K, tag 3) at 1000 (MPI_Start), 3000 (MPI_Startall) and 5000. Rank 1 starts a persistent
 * receive from 0 (K, tag 3) three times: serial 0 at 500, completed at 2000 (its wait's entry);
 * serial 1 at 2500, completed at 2600; serial 2 at 4000, never completed; plus a start of a
 * request made before tracing (no persistent flag: left out). Pairs: (1000, 2000) late, (3000,
 * 2600) early, (5000, -) paired without a time: 3 sends, 3 receives, 2 timed, 1 early (50 %),
 * 1 left out. When a receive start has no serial (an older trace), every persistent start is
 * left out: 0 sends and receives, 7 starts counted. */
static void persistent_pairing(void **st) {
    (void)st;
    ac_trace_rec_t r0[3], r1[6];
    int64_t ts[3] = {1000, 3000, 5000};
    for (int i = 0; i < 3; i++) {
        r0[i] = p2p(i == 1 ? AC_TK_STARTALL : AC_TK_START, ts[i], K, 1, 3);
        r0[i].flags = AC_TF_PERSISTENT;
    }
    int64_t tr[3] = {500, 2500, 4000};
    for (int i = 0; i < 3; i++) {
        r1[2 * i] = p2p(i == 1 ? AC_TK_STARTALL : AC_TK_START, tr[i], K, 0, 3);
        r1[2 * i].flags = AC_TF_PERSISTENT | AC_TF_RECV_SIDE;
        r1[2 * i].inst = (uint32_t)i;
    }
    r1[1] = p2p(AC_TK_RECV_DONE, 2000, K, 0, AC_TRACE_NONE);
    r1[1].inst = 0;
    r1[1].status_source = 0;
    r1[1].status_tag = 3;
    r1[3] = p2p(AC_TK_RECV_DONE, 2600, K, 0, AC_TRACE_NONE);
    r1[3].inst = 1;
    r1[3].status_source = 0;
    r1[3].status_tag = 3;
    r1[5] = rec(AC_TK_START, 4500, 4600); /* a request made before tracing */
    ac_trace_file_t f[2];
    memset(f, 0, sizeof f);
    for (int i = 0; i < 2; i++) {
        f[i].rank = i;
        f[i].nprocs = 2;
        f[i].clock[1].at = 100000;
    }
    f[0].rec = r0;
    f[0].nrec = 3;
    f[1].rec = r1;
    f[1].nrec = 6;
    ac_ea_input in;
    assert_int_equal(ac_early_input(f, 2, &in), 0);
    assert_int_equal(in.ns, 3);
    assert_int_equal(in.nr, 3);
    assert_int_equal(in.persistent, 1);
    assert_int_equal(in.untimed, 1);
    assert_int_equal(in.orphan, 0);
    assert_true(in.r[0].src == 0 && in.r[0].tag == 3 && in.r[0].t == 2000);
    assert_true(in.r[1].t == 2600 && isnan(in.r[2].t));
    ac_ea_proc pp[2];
    double avg = 0;
    assert_int_equal(ac_early_arrival(in.s, in.ns, in.r, in.nr, 2, pp, &avg, NULL), 0);
    assert_int_equal(pp[1].recvs, 3);
    assert_int_equal(pp[1].matched, 2);
    assert_int_equal(pp[1].early, 1);
    assert_int_equal(pp[1].untimed, 1);
    assert_true(fabs(avg - 50.0) < 1e-9);
    ac_early_input_free(&in);
    r1[2].inst = AC_TRACE_NOID; /* an older trace */
    assert_int_equal(ac_early_input(f, 2, &in), 0);
    assert_int_equal(in.ns, 0);
    assert_int_equal(in.nr, 0);
    assert_int_equal(in.persistent, 7);
    ac_early_input_free(&in);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(appendix_example),   cmocka_unit_test(persistent_starts),
        cmocka_unit_test(wrap_string),        cmocka_unit_test(pairing),
        cmocka_unit_test(persistent_pairing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
