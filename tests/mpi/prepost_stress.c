/*
 * Stress test of receive pre-posting (docs/prepost.md), run with and without AUTOCOLL_PREPOST=1
 * by prepost.sh, which compares the digests. Every iteration, on MPI_COMM_WORLD or on a
 * duplicate freed at its end:
 *   ring   3 fixed-size messages left -> right, tag 1, received by Recv(left, 1), Irecv+Wait,
 *          Recv(ANY_SOURCE, 1) or Recv(left, ANY_TAG): the predictable stream;
 *   mixed  4 messages to each of rank+1 and rank+2, random tags 2..4 and lengths (0, 5..204
 *          or 2000..9999 ints: beyond the eager limit, so that receives can match before they
 *          complete and a cancel can lose the race), Isend or Issend; the receiver consumes them in a random order that MPI's
 *          non-overtaking rule makes deterministic, with specific and wildcard source and tag,
 *          short buffers (truncation, blocking and Irecv+Wait), Irecv with Wait, Test or Request_get_status, and on some
 *          iterations Probe, Iprobe, Mprobe+Mrecv, Improbe+Imrecv; one cancelled receive;
 *   pair   partner rank^1: Ssend/Send then Recv, Sendrecv or Sendrecv_replace;
 *   long   (every 12th iteration, on a duplicate) one message left -> right, tag 6, much longer
 *          than any earlier receive: 30,000 ints (more than twice the largest earlier receive),
 *          1.5 MiB + 68 B (also past 1 MiB), or at iteration 139 8 MiB + 64 B; sent before a
 *          barrier, so it is there before its receive (Recv or Irecv+Wait, buffer large enough),
 *          right after the ring has made "left" the predicted source, on a duplicate with the
 *          hint (so its capture receives it at once). It must arrive whole: a
 *          speculative receive sized from earlier receives would truncate it;
 *   outside (every 6th iteration from 5, on a duplicate with the hint) rank 0 -> 1: a long message captured
 *          before its MPI_Irecv while its sender waits outside MPI for that MPI_Irecv to return
 *          (which must not wait for the sender), then completed by one of eight wait/test
 *          calls over it and a later short message (see outside());
 *   sync   (every 12th iteration from 2, on a duplicate without the hint) rank 0 -> 1: an
 *          MPI_Ssend, short (64 B) or long (120,000 B) in turn, captured while its receiver stays
 *          in MPI before receiving: it must not complete before the receive is called (see
 *          syncsend());
 *   persist (every 6th iteration from 4, on a duplicate, with and without the hint in turn)
 *          rank 0 -> 1: a message captured before the persistent receive that takes it is
 *          created, then started and completed by one of nine calls (see persist()).
 *   probed (every 6th iteration from 1, on a duplicate with the hint) rank 0 -> 1: a long
 *          message captured (received at once) before a matched probe finds it, then a short
 *          one (see probed()).
 * Duplicates whose iteration is not 2 mod 4 carry the hint autocoll_prepost_early (MPI_Comm_set_info):
 * there pre-posting receives long captures at once, elsewhere it only holds them.
 * Each message carries its sender, tag and sequence numbers; every receive is checked (source,
 * tag, count, error class, data, and that it is the message MPI's order prescribes) and hashed
 * into a per-rank digest printed at the end. Exit 1 on any failure; SIGALRM after --timeout
 * seconds aborts (no hang).
 */
#define _POSIX_C_SOURCE 200809L
/* MPICH's mpi.h declares MPI_Waitall's status array with an access attribute, and its
 * MPI_STATUSES_IGNORE is the address 1: GCC then sees a write to a region of size 0. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { NMIX = 4, BIGLEN = 2000, MAXLEN = 10000, RINGLEN = 64, PAIRLEN = 32 };

static int rank, p, fails;
static uint64_t digest = 1469598103934665603ull;

static void mix(uint64_t v) {
    digest = (digest ^ v) * 1099511628211ull;
}

static uint64_t rng_state;
static void rng_seed(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
    rng_state = a * 0x9e3779b97f4a7c15ull ^ b * 0xbf58476d1ce4e5b9ull ^ c * 0x94d049bb133111ebull ^
                d * 0x2545f4914f6cdd1dull ^ 0x1234567;
}
static unsigned rnd(unsigned n) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

static int word(int src, int gseq, int i) {
    return src * 1000003 + gseq * 7919 + i * 31 + 17;
}

static void fill(int *b, int len, int src, int tag, int gseq) {
    for (int i = 0; i < len; i++)
        b[i] = word(src, gseq, i);
    if (len >= 5) {
        b[0] = src;
        b[1] = tag;
        b[2] = gseq;
        b[4] = len;
    }
}

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "rank %d: ", rank);                                                        \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        fails++;                                                                                   \
    } while (0)

/* Check one completed receive against the message expected there. */
static void check(const char *what, int rc, const MPI_Status *st, const int *b, int cap, int src,
                  int tag, int gseq, int len) {
    int cls = MPI_SUCCESS, cnt = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    int trunc = len > cap;
    if (trunc ? cls != MPI_ERR_TRUNCATE : cls != MPI_SUCCESS)
        FAIL("%s: error class %d, expected %s", what, cls, trunc ? "truncation" : "success");
    if (st->MPI_SOURCE != src || st->MPI_TAG != tag)
        FAIL("%s: status source %d tag %d, expected %d %d", what, st->MPI_SOURCE, st->MPI_TAG, src,
             tag);
    MPI_Get_count(st, MPI_INT, &cnt);
    if (!trunc && cnt != len) FAIL("%s: count %d, expected %d", what, cnt, len);
    int n = len < cap ? len : cap;
#ifdef MPICH_VERSION
    /* MPICH leaves a truncated receive's buffer and status count as they were (the standard
     * defines neither) */
    if (trunc) n = 0, cnt = -1;
#endif
    for (int i = 0; i < n; i++) {
        int want = word(src, gseq, i);
        if (len >= 5 && i < 5 && i != 3) want = i == 0 ? src : i == 1 ? tag : i == 2 ? gseq : len;
        if (b[i] != want) {
            FAIL("%s: word %d of message %d from %d is %d, expected %d", what, i, gseq, src, b[i],
                 want);
            break;
        }
    }
    if (getenv("PPDBG"))
        fprintf(stderr, "r%d %s src %d tag %d g %d cls %d cnt %d len %d cap %d\n", rank, what, src,
                tag, gseq, cls, cnt, len, cap);
    mix((uint64_t)src << 40 ^ (uint64_t)tag << 32 ^ (uint64_t)gseq << 16 ^ (uint64_t)(cls & 0xff));
    mix((uint64_t)(uint32_t)cnt);
}

static void ring(MPI_Comm c, int it) {
    int right = (rank + 1) % p, left = (rank + p - 1) % p;
    int sb[3][RINGLEN], rb[RINGLEN];
    MPI_Request q[3];
    for (int k = 0; k < 3; k++) {
        fill(sb[k], RINGLEN, rank, 1, k);
        MPI_Isend(sb[k], RINGLEN, MPI_INT, right, 1, c, &q[k]);
    }
    for (int k = 0; k < 3; k++) {
        MPI_Status st;
        MPI_Request r;
        int rc;
        switch (it % 4) {
        case 0:
            rc = MPI_Recv(rb, RINGLEN, MPI_INT, left, 1, c, &st);
            break;
        case 1:
            MPI_Irecv(rb, RINGLEN, MPI_INT, left, 1, c, &r);
            rc = MPI_Wait(&r, &st);
            break;
        case 2:
            rc = MPI_Recv(rb, RINGLEN, MPI_INT, MPI_ANY_SOURCE, 1, c, &st);
            break;
        default:
            rc = MPI_Recv(rb, RINGLEN, MPI_INT, left, MPI_ANY_TAG, c, &st);
            break;
        }
        check("ring", rc, &st, rb, RINGLEN, left, 1, k, RINGLEN);
    }
    MPI_Waitall(3, q, MPI_STATUSES_IGNORE);
}

typedef struct {
    int tag, len, done;
} msg_t;

/* The messages from src to dst in one iteration (both sides compute the same list). */
static int plan(int it, int src, int dst, msg_t *m) {
    if (src == dst || (dst != (src + 1) % p && dst != (src + 2) % p)) return 0;
    rng_seed((uint64_t)it, (uint64_t)src, (uint64_t)dst, 7);
    for (int k = 0; k < NMIX; k++) {
        m[k].tag = 2 + (int)rnd(3);
        unsigned kind = rnd(10);
        m[k].len = kind == 0   ? 0
                   : kind == 1 ? BIGLEN + (int)rnd(MAXLEN - BIGLEN)
                               : 5 + (int)rnd(200);
        m[k].done = 0;
    }
    return NMIX;
}

static void mixed(MPI_Comm c, int it, int probes) {
    static int sbuf[2][NMIX][MAXLEN], rb[MAXLEN + 8];
    MPI_Request sq[2 * NMIX];
    int nsq = 0;
    for (int j = 1; j <= 2; j++) {
        int d = (rank + j) % p;
        msg_t m[NMIX];
        if (j == 2 && d == (rank + 1) % p) break; /* p = 2: one destination */
        int n = plan(it, rank, d, m);
        rng_seed((uint64_t)it, (uint64_t)rank, (uint64_t)d, 11);
        for (int k = 0; k < n; k++) {
            fill(sbuf[j - 1][k], m[k].len, rank, m[k].tag, k);
            if (rnd(3) == 0)
                MPI_Issend(sbuf[j - 1][k], m[k].len, MPI_INT, d, m[k].tag, c, &sq[nsq++]);
            else
                MPI_Isend(sbuf[j - 1][k], m[k].len, MPI_INT, d, m[k].tag, c, &sq[nsq++]);
        }
    }
    /* incoming */
    int srcs[2], ns = 0;
    msg_t in[2][NMIX];
    for (int j = 1; j <= 2; j++) {
        int s = (rank + p - j) % p;
        if (j == 2 && s == (rank + p - 1) % p) break;
        if (plan(it, s, rank, in[ns])) srcs[ns++] = s;
    }
    rng_seed((uint64_t)it, (uint64_t)rank, 99, 13);
    /* one receive that never matches, cancelled */
    {
        MPI_Request r;
        MPI_Status st;
        int canc = 0;
        MPI_Irecv(rb, 1, MPI_INT, srcs[0], 99, c, &r);
        MPI_Cancel(&r);
        MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &canc);
        if (!canc) FAIL("cancel: receive not cancelled");
    }
    for (;;) {
        int left = 0;
        for (int i = 0; i < ns; i++)
            for (int k = 0; k < NMIX; k++)
                left += !in[i][k].done;
        if (!left) break;
        int i = (int)rnd((unsigned)ns);
        int first = -1;
        for (int k = 0; k < NMIX && first < 0; k++)
            if (!in[i][k].done) first = k;
        if (first < 0) continue;
        int s = srcs[i];
        /* a random tag among the unconsumed ones: its first message is what (s, tag) gets */
        int k = first + (int)rnd((unsigned)(NMIX - first));
        while (in[i][k].done)
            k--;
        int tag = in[i][k].tag, j = k;
        for (int x = 0; x < k; x++)
            if (!in[i][x].done && in[i][x].tag == tag) {
                j = x;
                break;
            }
        /* the tag alone names the source when no other source has it pending */
        int unique = 1;
        for (int o = 0; o < ns; o++)
            for (int x = 0; x < NMIX && o != i; x++)
                if (!in[o][x].done && in[o][x].tag == tag) unique = 0;
        int op = (int)rnd(probes ? 12 : 8), rc = MPI_SUCCESS, cap = in[i][j].len + (int)rnd(4);
        int rsrc = s, rtag = tag, flag = 0;
        MPI_Status st;
        MPI_Request r;
        MPI_Message msg;
        if (op == 0) { /* ANY_TAG takes the oldest pending message from s */
            j = first;
            rtag = MPI_ANY_TAG;
            cap = in[i][j].len;
        }
        if (op == 1 && unique) rsrc = MPI_ANY_SOURCE;
        if ((op == 2 || op == 3) && in[i][j].len > 5) cap = in[i][j].len - 3; /* truncation */
        switch (op) {
        case 0:
        case 1:
        case 2:
            rc = MPI_Recv(rb, cap, MPI_INT, rsrc, rtag, c, &st);
            break;
        case 3:
            MPI_Irecv(rb, cap, MPI_INT, rsrc, rtag, c, &r);
            rc = MPI_Wait(&r, &st);
            break;
        case 4:
            MPI_Irecv(rb, cap, MPI_INT, rsrc, rtag, c, &r);
            do
                rc = MPI_Test(&r, &flag, &st);
            while (!flag && rc == MPI_SUCCESS);
            break;
        case 5:
            MPI_Irecv(rb, cap, MPI_INT, rsrc, rtag, c, &r);
            do
                MPI_Request_get_status(r, &flag, &st);
            while (!flag);
            rc = MPI_Wait(&r, &st);
            break;
        case 6: { /* Sendrecv to self-free peer: send nothing (PROC_NULL) */
            rc = MPI_Sendrecv(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, rb, cap, MPI_INT, rsrc, rtag, c,
                              &st);
            break;
        }
        case 7:
            MPI_Irecv(rb, cap, MPI_INT, rsrc, rtag, c, &r);
            rc = MPI_Waitall(1, &r, &st);
            if (rc == MPI_ERR_IN_STATUS) rc = st.MPI_ERROR;
            break;
        case 8: { /* probe, then receive exactly what it saw */
            int cnt = 0;
            MPI_Probe(rsrc, rtag, c, &st);
            MPI_Get_count(&st, MPI_INT, &cnt);
            if (st.MPI_SOURCE != s || st.MPI_TAG != tag || cnt != in[i][j].len)
                FAIL("probe: source %d tag %d count %d, expected %d %d %d", st.MPI_SOURCE,
                     st.MPI_TAG, cnt, s, tag, in[i][j].len);
            rc = MPI_Recv(rb, cap, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, c, &st);
            break;
        }
        case 9:
            do
                MPI_Iprobe(rsrc, rtag, c, &flag, &st);
            while (!flag);
            rc = MPI_Recv(rb, cap, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, c, &st);
            break;
        case 10:
            MPI_Mprobe(rsrc, rtag, c, &msg, &st);
            rc = MPI_Mrecv(rb, cap, MPI_INT, &msg, &st);
            break;
        default:
            do
                MPI_Improbe(rsrc, rtag, c, &flag, &msg, &st);
            while (!flag);
            MPI_Imrecv(rb, cap, MPI_INT, &msg, &r);
            rc = MPI_Wait(&r, &st);
            break;
        }
        char what[64];
        snprintf(what, sizeof what, "mixed it %d op %d", it, op);
        check(what, rc, &st, rb, cap, s, in[i][j].tag, j, in[i][j].len);
        in[i][j].done = 1;
    }
    MPI_Waitall(nsq, sq, MPI_STATUSES_IGNORE);
}

static void pair(MPI_Comm c, int it, int sync) {
    int q = rank ^ 1, sb[PAIRLEN], rb[PAIRLEN];
    if (q >= p) return;
    MPI_Status st;
    int rc;
    fill(sb, PAIRLEN, rank, 5, it);
    if (it % 5 == 0) {
        memcpy(rb, sb, sizeof sb);
        rc = MPI_Sendrecv_replace(rb, PAIRLEN, MPI_INT, q, 5, q, 5, c, &st);
    } else if (it % 2) {
        rc = MPI_Sendrecv(sb, PAIRLEN, MPI_INT, q, 5, rb, PAIRLEN, MPI_INT, q, 5, c, &st);
    } else if (rank % 2 == 0) {
        if (sync)
            MPI_Ssend(sb, PAIRLEN, MPI_INT, q, 5, c);
        else
            MPI_Send(sb, PAIRLEN, MPI_INT, q, 5, c);
        rc = MPI_Recv(rb, PAIRLEN, MPI_INT, q, 5, c, &st);
    } else {
        rc = MPI_Recv(rb, PAIRLEN, MPI_INT, q, 5, c, &st);
        if (sync)
            MPI_Ssend(sb, PAIRLEN, MPI_INT, q, 5, c);
        else
            MPI_Send(sb, PAIRLEN, MPI_INT, q, 5, c);
    }
    check("pair", rc, &st, rb, PAIRLEN, q, 5, it, PAIRLEN);
}

static void longmsg(MPI_Comm c, int it) {
    int right = (rank + 1) % p, left = (rank + p - 1) % p;
    int len = it % 144 == 139 ? 2097152 + 16 : (it / 12) % 2 ? 393216 + 17 : 30000, cap = len + 8;
    int *sb = malloc((size_t)len * sizeof *sb), *rb = malloc((size_t)cap * sizeof *rb);
    if (!sb || !rb) {
        FAIL("long: out of memory");
        free(sb);
        free(rb);
        return;
    }
    MPI_Request q, r;
    MPI_Status st;
    int rc;
    fill(sb, len, rank, 6, it);
    MPI_Isend(sb, len, MPI_INT, right, 6, c, &q);
    MPI_Barrier(c);
    if ((it / 24) % 2 == 0) {
        rc = MPI_Recv(rb, cap, MPI_INT, left, 6, c, &st);
    } else {
        MPI_Irecv(rb, cap, MPI_INT, left, 6, c, &r);
        rc = MPI_Wait(&r, &st);
    }
    check("long", rc, &st, rb, cap, left, 6, it, len);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    free(sb);
    free(rb);
}

/* Four short messages 0 -> 1 (tag 7, sequence numbers from base) that make 0 the predicted
 * source of rank 1's next receive on c. */
static void prime_send(MPI_Comm c, int base) {
    int b[16];
    for (int k = 0; k < 4; k++) {
        fill(b, 16, 0, 7, base + k);
        MPI_Send(b, 16, MPI_INT, 1, 7, c);
    }
}
static void prime_recv(MPI_Comm c, int base) {
    int b[16];
    MPI_Status st;
    for (int k = 0; k < 4; k++) {
        int rc = MPI_Recv(b, 16, MPI_INT, 0, 7, c, &st);
        check("prime", rc, &st, b, 16, 0, 7, base + k, 16);
    }
}

/* A flag between processes that MPI does not see: a file (its path is made from rank 0's pid). */
static char flagdir[256];
static void flag_path(char *path, size_t n, int it) {
    snprintf(path, n, "%s/ac_prepost_outside.%d", flagdir, it);
}
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { OUTLEN = 65536 + 13, OUTWAIT = 2 }; /* 256 KiB + 52 B (rendezvous); seconds */

/* outside (every 6th iteration from 5, on a duplicate, ranks 0 -> 1): a long message that the
 * receiver's capture matches before its MPI_Irecv, whose sender then waits OUTSIDE MPI (on a
 * file) until the receiver has returned from that MPI_Irecv, at most OUTWAIT s. MPI_Irecv is a
 * local call: it must return at once, long before the sender makes progress again (checked:
 * under OUTWAIT / 4). Then a short message, tag 9, and the receiver completes both receives with
 * one of eight calls: Wait, Waitany and Waitsome over both, Test, Request_get_status, Waitall,
 * Testany, Testsome, so that each wait or test sees the served request still incomplete. */
static void outside(MPI_Comm c, int it) {
    int small[8], *big = malloc((size_t)OUTLEN * sizeof *big);
    char path[300];
    flag_path(path, sizeof path, it);
    if (!big) {
        FAIL("outside: out of memory");
        return;
    }
    if (rank == 0) {
        prime_send(c, 100);
        MPI_Request q;
        fill(big, OUTLEN, 0, 7, it);
        MPI_Isend(big, OUTLEN, MPI_INT, 1, 7, c, &q);
        MPI_Send(NULL, 0, MPI_INT, 1, 8, MPI_COMM_WORLD); /* behind the long message's header */
        double t0 = now();
        while (access(path, F_OK) != 0 && now() - t0 < OUTWAIT) {
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
        }
        fill(small, 8, 0, 9, it);
        MPI_Send(small, 8, MPI_INT, 1, 9, c);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Status st, sts[2];
        prime_recv(c, 100);
        MPI_Recv(NULL, 0, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Request q[2];
        double t0 = now();
        MPI_Irecv(big, OUTLEN, MPI_INT, 0, 7, c, &q[0]);
        double dt = now() - t0;
        FILE *f = fopen(path, "w");
        if (f) fclose(f);
        if (dt > OUTWAIT / 4.0)
            FAIL("outside it %d: MPI_Irecv took %.3f s (it waited for the sender)", it, dt);
        MPI_Irecv(small, 8, MPI_INT, 0, 9, c, &q[1]);
        int rc[2] = {MPI_SUCCESS, MPI_SUCCESS}, done[2] = {0, 0}, i, o, idx[2], flag, mode;
        mode = (it / 6) % 8;
        while (!done[0] || !done[1]) {
            switch (mode) {
            case 0: /* Wait, the long one first */
                i = done[0];
                rc[i] = MPI_Wait(&q[i], &sts[i]);
                done[i] = 1;
                break;
            case 1:
                rc[0] = MPI_Waitany(2, q, &i, &st);
                if (i == MPI_UNDEFINED || done[i]) {
                    FAIL("outside it %d: Waitany index %d", it, i);
                    done[0] = done[1] = 1;
                    break;
                }
                rc[i] = rc[0], sts[i] = st, done[i] = 1;
                break;
            case 2: {
                MPI_Status s2[2];
                int e = MPI_Waitsome(2, q, &o, idx, s2);
                if (o == MPI_UNDEFINED || o < 1) {
                    FAIL("outside it %d: Waitsome outcount %d", it, o);
                    done[0] = done[1] = 1;
                    break;
                }
                for (int k = 0; k < o; k++) {
                    i = idx[k];
                    rc[i] = e == MPI_ERR_IN_STATUS ? s2[k].MPI_ERROR : e;
                    sts[i] = s2[k], done[i] = 1;
                }
                break;
            }
            case 3: /* Test each */
                for (i = 0; i < 2; i++)
                    if (!done[i]) {
                        rc[i] = MPI_Test(&q[i], &flag, &sts[i]);
                        done[i] = flag;
                    }
                break;
            case 4: /* Request_get_status until complete, then Wait */
                for (i = 0; i < 2; i++) {
                    do
                        MPI_Request_get_status(q[i], &flag, &st);
                    while (!flag);
                    rc[i] = MPI_Wait(&q[i], &sts[i]);
                    done[i] = 1;
                }
                break;
            case 5:
                rc[0] = MPI_Waitall(2, q, sts);
                if (rc[0] == MPI_ERR_IN_STATUS)
                    rc[0] = sts[0].MPI_ERROR, rc[1] = sts[1].MPI_ERROR;
                else
                    rc[1] = rc[0];
                done[0] = done[1] = 1;
                break;
            case 6:
                rc[0] = MPI_Testany(2, q, &i, &flag, &st);
                if (flag && (i == MPI_UNDEFINED || done[i])) {
                    FAIL("outside it %d: Testany index %d", it, i);
                    done[0] = done[1] = 1;
                    break;
                }
                if (flag) rc[i] = rc[0], sts[i] = st, done[i] = 1;
                break;
            default: {
                MPI_Status s2[2];
                int e = MPI_Testsome(2, q, &o, idx, s2);
                for (int k = 0; o != MPI_UNDEFINED && k < o; k++) {
                    i = idx[k];
                    rc[i] = e == MPI_ERR_IN_STATUS ? s2[k].MPI_ERROR : e;
                    sts[i] = s2[k], done[i] = 1;
                }
                break;
            }
            }
        }
        char what[64];
        snprintf(what, sizeof what, "outside it %d mode %d long", it, mode);
        check(what, rc[0], &sts[0], big, OUTLEN, 0, 7, it, OUTLEN);
        snprintf(what, sizeof what, "outside it %d mode %d short", it, mode);
        check(what, rc[1], &sts[1], small, 8, 0, 9, it, 8);
        unlink(path);
    }
    free(big);
}

/* sync (every 12th iteration from 2, on a duplicate without the hint, ranks 0 -> 1): an
 * MPI_Ssend, short or long in turn, towards a rank whose stream from 0 is armed and which stays
 * in MPI (MPI_Test on a null request) for SYNCWAIT s before its receive. The Ssend must not
 * return before that receive was called (hazard 6; both ranks read the same monotonic clock). */
#define SYNCWAIT 0.05
enum { SYNCLONG = 30000 }; /* ints: 120,000 B, past every eager limit of the transports used */
static void syncsend(MPI_Comm c, int it) {
    static int b[SYNCLONG];
    int len = (it / 12) % 2 ? SYNCLONG : 16;
    if (rank == 0) {
        prime_send(c, 200);
        fill(b, len, 0, 10, it);
        MPI_Ssend(b, len, MPI_INT, 1, 10, c);
        double back = now(), t1 = 0;
        MPI_Recv(&t1, 1, MPI_DOUBLE, 1, 11, c, MPI_STATUS_IGNORE);
        if (back < t1)
            FAIL("sync it %d: MPI_Ssend returned %.3f s before its receive was called", it,
                 t1 - back);
    } else if (rank == 1) {
        MPI_Status st;
        prime_recv(c, 200);
        double t0 = now();
        while (now() - t0 < SYNCWAIT) {
            MPI_Request none = MPI_REQUEST_NULL;
            int flag;
            MPI_Test(&none, &flag, MPI_STATUS_IGNORE);
        }
        double t1 = now();
        int rc = MPI_Recv(b, len, MPI_INT, 0, 10, c, &st);
        check("sync", rc, &st, b, len, 0, 10, it, len);
        MPI_Send(&t1, 1, MPI_DOUBLE, 0, 11, c);
    }
}

/* persist (every 6th iteration from 4, on a duplicate, ranks 0 -> 1): rank 0 primes rank 1's
 * prediction, then sends A (tag 12: 16 ints, or 256 KiB + 52 B in turn) and B (tag 12, 8 ints)
 * and a zero-byte message on MPI_COMM_WORLD behind them, so that rank 1's entries capture A
 * before rank 1 creates the persistent receive (source 0 or any, tag 12 or any) that must take
 * it. Its first start gets A, completed by one of nine calls in turn: Wait, Test loop, Waitany,
 * Waitall, Waitsome, Testany loop, Testall loop, Testsome loop, Cancel (which must not cancel
 * the matched message) and Wait; the array calls list a null request too. The second start gets
 * B, then the request is freed. Without pre-posting's persistent starts, the first start would
 * get B, and the second wait for a message that never comes (time limit). */
enum { PLONG = 65536 + 13 };
static void persist(MPI_Comm c, int it) {
    int len = (it / 6) % 2 ? PLONG : 16, *b = malloc((size_t)PLONG * sizeof *b);
    if (!b) {
        FAIL("persist: out of memory");
        return;
    }
    if (rank == 0) {
        prime_send(c, 300);
        MPI_Request q[2];
        int *b2 = malloc(8 * sizeof *b2);
        fill(b, len, 0, 12, it);
        MPI_Isend(b, len, MPI_INT, 1, 12, c, &q[0]);
        fill(b2, 8, 0, 12, it + 1);
        MPI_Isend(b2, 8, MPI_INT, 1, 12, c, &q[1]);
        MPI_Send(NULL, 0, MPI_INT, 1, 8, MPI_COMM_WORLD);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        free(b2);
    } else if (rank == 1) {
        MPI_Status st, sts[2];
        prime_recv(c, 300);
        MPI_Recv(NULL, 0, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int mode = (it / 6) % 9, w = (it / 6) % 3; /* wildcards never meet other traffic */
        int src = w == 1 ? MPI_ANY_SOURCE : 0, tag = w == 2 ? MPI_ANY_TAG : 12;
        MPI_Request q[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        MPI_Recv_init(b, PLONG, MPI_INT, src, tag, c, &q[0]);
        MPI_Start(&q[0]);
        int rc = MPI_SUCCESS, flag = 0, i = -1, o = 0, idx[2], canc = 1;
        switch (mode) {
        case 0:
            rc = MPI_Wait(&q[0], &st);
            break;
        case 1:
            do
                rc = MPI_Test(&q[0], &flag, &st);
            while (!flag && rc == MPI_SUCCESS);
            break;
        case 2:
            rc = MPI_Waitany(2, q, &i, &st);
            break;
        case 3:
            rc = MPI_Waitall(2, q, sts);
            st = sts[0];
            break;
        case 4:
            rc = MPI_Waitsome(2, q, &o, idx, sts);
            st = sts[0];
            break;
        case 5:
            do
                rc = MPI_Testany(2, q, &i, &flag, &st);
            while (!flag && rc == MPI_SUCCESS);
            break;
        case 6:
            do
                rc = MPI_Testall(2, q, &flag, sts);
            while (!flag && rc == MPI_SUCCESS);
            st = sts[0];
            break;
        case 7:
            do
                rc = MPI_Testsome(2, q, &o, idx, sts);
            while (o == 0 && rc == MPI_SUCCESS);
            st = sts[0];
            break;
        default:
            MPI_Cancel(&q[0]);
            rc = MPI_Wait(&q[0], &st);
            MPI_Test_cancelled(&st, &canc);
            if (canc) FAIL("persist it %d: a matched message was cancelled", it);
            break;
        }
        if ((mode == 2 || mode == 5) && i != 0)
            FAIL("persist it %d mode %d: index %d", it, mode, i);
        if ((mode == 4 || mode == 7) && (o != 1 || idx[0] != 0))
            FAIL("persist it %d mode %d: outcount %d", it, mode, o);
        if (q[0] == MPI_REQUEST_NULL) FAIL("persist it %d mode %d: request freed", it, mode);
        char what[64];
        snprintf(what, sizeof what, "persist it %d mode %d first", it, mode);
        check(what, rc, &st, b, PLONG, 0, 12, it, len);
        MPI_Start(&q[0]);
        rc = MPI_Wait(&q[0], &st);
        snprintf(what, sizeof what, "persist it %d mode %d second", it, mode);
        check(what, rc, &st, b, PLONG, 0, 12, it + 1, 8);
        MPI_Request_free(&q[0]);
    }
    free(b);
}

/* probed (every 6th iteration from 1, on a duplicate with the hint, ranks 0 -> 1): a long
 * message (tag 14) captured, and so received at once, before a matched probe finds it: the probe
 * must name it with an MPI_Message that MPI_Mrecv (Mprobe) or MPI_Imrecv (Improbe) accepts, under
 * Open MPI and MPICH alike. A short message (tag 15) follows and is probed the same way. */
static void probed(MPI_Comm c, int it) {
    int small[16], *b = malloc((size_t)PLONG * sizeof *b);
    if (!b) {
        FAIL("probed: out of memory");
        return;
    }
    if (rank == 0) {
        prime_send(c, 400);
        MPI_Request q;
        fill(b, PLONG, 0, 14, it);
        MPI_Isend(b, PLONG, MPI_INT, 1, 14, c, &q);
        MPI_Send(NULL, 0, MPI_INT, 1, 8, MPI_COMM_WORLD);
        fill(small, 16, 0, 15, it + 1);
        MPI_Send(small, 16, MPI_INT, 1, 15, c);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Status st;
        prime_recv(c, 400);
        MPI_Recv(NULL, 0, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int k = 0; k < 2; k++) {
            int tag = 14 + k, len = k ? 16 : PLONG, flag = 0, cnt = -1, rc;
            MPI_Message msg;
            MPI_Request r;
            if ((it / 6) % 2) {
                MPI_Mprobe(0, tag, c, &msg, &st);
            } else {
                do
                    MPI_Improbe(0, tag, c, &flag, &msg, &st);
                while (!flag);
            }
            MPI_Get_count(&st, MPI_INT, &cnt);
            if (st.MPI_SOURCE != 0 || st.MPI_TAG != tag || cnt != len)
                FAIL("probed it %d: probe saw source %d tag %d count %d", it, st.MPI_SOURCE,
                     st.MPI_TAG, cnt);
            if ((it / 6) % 2) {
                rc = MPI_Mrecv(b, PLONG, MPI_INT, &msg, &st);
            } else {
                MPI_Imrecv(b, PLONG, MPI_INT, &msg, &r);
                rc = MPI_Wait(&r, &st);
            }
            if (msg != MPI_MESSAGE_NULL) FAIL("probed it %d: message handle not nulled", it);
            char what[64];
            snprintf(what, sizeof what, "probed it %d %s", it, k ? "short" : "long");
            check(what, rc, &st, b, PLONG, 0, tag, it + k, len);
        }
    }
    free(b);
}

static void on_alarm(int sig) {
    (void)sig;
    static const char m[] = "prepost_stress: timeout (hang?)\n";
    ssize_t w = write(2, m, sizeof m - 1);
    (void)w;
    _exit(3);
}

int main(int argc, char **argv) {
    int iters = 100, timeout = 100;
    for (int a = 1; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--iters")) iters = atoi(argv[a + 1]);
        if (!strcmp(argv[a], "--timeout")) timeout = atoi(argv[a + 1]);
    }
    signal(SIGALRM, on_alarm);
    alarm((unsigned)timeout);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    const char *td = getenv("TMPDIR");
    snprintf(flagdir, sizeof flagdir, "%s/%d", td && *td ? td : "/tmp", pid);
    if (rank == 0) mkdir(flagdir, 0700);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info early;
    MPI_Info_create(&early);
    MPI_Info_set(early, "autocoll_prepost_early", "true");
    for (int it = 0; it < iters; it++) {
        MPI_Comm c = MPI_COMM_WORLD;
        int dup = it % 3 != 0;
        if (dup) MPI_Comm_dup(MPI_COMM_WORLD, &c);
        if (dup && it % 4 != 2) MPI_Comm_set_info(c, early); /* hint: long captures received */
        ring(c, it);
        ring(c, it + 1);
        if (p > 1 && it % 12 == 7) longmsg(c, it);  /* on a duplicate with the hint */
        if (p > 1 && it % 6 == 5) outside(c, it);   /* on a duplicate (5 % 3 != 0), too */
        if (p > 1 && it % 12 == 2) syncsend(c, it); /* on a duplicate without the hint */
        if (p > 1 && it % 6 == 4) persist(c, it);   /* on a duplicate, hint in turn */
        if (p > 1 && it % 6 == 1) probed(c, it);    /* on a duplicate with the hint */
        if (p > 1) mixed(c, it, dup ? it % 2 == 0 : it >= iters / 2);
        pair(c, it, dup && it % 4 == 2);
        ring(c, it + 2);
        MPI_Barrier(MPI_COMM_WORLD);
        if (dup) MPI_Comm_free(&c);
    }
    MPI_Info_free(&early);
    unsigned long long all[64], mine = digest;
    int f = 0;
    MPI_Gather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&fails, &f, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < p && r < 64; r++)
            printf("digest rank %d %016llx\n", r, all[r]);
        printf("failures %d\n", f);
    }
    if (rank == 0) rmdir(flagdir);
    MPI_Finalize();
    return f ? 1 : 0;
}
