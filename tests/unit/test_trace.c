/* Unit tests of the trace layer (no MPI runtime): the ring, the settings, interned ids, the trace
 * file (round trip, byte order, truncated / corrupt / foreign files), clock offsets with a
 * synthetic clock, and the arrival-pattern statistics and taxonomy of spec
 * star-stage-ethernet.md §6.1 and §6.4 on hand-computed examples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <cmocka.h>
#include "core/ac.h"
#include "trace/trace.h"

/* ---------------------------------------------------------------- helpers */

static ac_trace_rec_t rec_n(int i) {
    ac_trace_rec_t r;
    ac_trace_rec_clear(&r, AUTOCOLL_ALLREDUCE);
    r.seq = (uint64_t)i;
    r.t_in = 1000 * i;
    r.t_out = 1000 * i + 10;
    return r;
}

static char tmpdir[256];

static int setup_dir(void **st) {
    (void)st;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ac_test_trace.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **st) {
    (void)st;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* The checksum as docs/tracing.md defines it (written independently of the library). */
static uint64_t doc_fnv(uint64_t h, const unsigned char *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ULL;
    }
    return h;
}
static void doc_fix_checksum(unsigned char *b, size_t len) {
    uint64_t h = doc_fnv(14695981039346656037ULL, b, 120);
    h = doc_fnv(h, b + 128, len - 128);
    memcpy(b + 120, &h, 8);
}

/* ---------------------------------------------------------------- ring */

static void ring_wrap_and_drops(void **st) {
    (void)st;
    ac_trace_ring_t r;
    assert_int_equal(ac_trace_ring_init(&r, 4), 0);
    assert_int_equal(ac_trace_ring_count(&r), 0);
    assert_int_equal(ac_trace_ring_drops(&r), 0);
    for (int i = 0; i < 3; i++) {
        ac_trace_rec_t x = rec_n(i);
        ac_trace_ring_push(&r, &x);
    }
    assert_int_equal(ac_trace_ring_count(&r), 3);
    assert_int_equal(ac_trace_ring_drops(&r), 0);
    assert_int_equal(ac_trace_ring_at(&r, 0)->seq, 0);
    assert_int_equal(ac_trace_ring_at(&r, 2)->seq, 2);
    for (int i = 3; i < 10; i++) {
        ac_trace_rec_t x = rec_n(i);
        ac_trace_ring_push(&r, &x);
    }
    /* 10 pushed into 4 slots: the 4 most recent are held, 6 were overwritten */
    assert_int_equal(ac_trace_ring_count(&r), 4);
    assert_int_equal(ac_trace_ring_drops(&r), 6);
    for (int i = 0; i < 4; i++)
        assert_int_equal(ac_trace_ring_at(&r, (uint64_t)i)->seq, 6 + i);
    ac_trace_ring_free(&r);
    assert_int_equal(ac_trace_ring_init(&r, 0), -1);
}

/* ---------------------------------------------------------------- settings */

static void settings_parse(void **st) {
    (void)st;
    ac_trace_cfg_t c;
    char err[512];
    assert_int_equal(ac_trace_cfg_parse(&c, NULL, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(c.mask, 0);
    assert_int_equal(c.records, AC_TRACE_RECORDS_DEFAULT);
    assert_string_equal(c.dir, ".");
    assert_string_equal(err, "");

    struct {
        const char *v;
        unsigned mask;
    } ok[] = {{"collectives", AC_TRACE_COLL},
              {"p2p", AC_TRACE_P2P},
              {"all", AC_TRACE_COLL | AC_TRACE_P2P},
              {"off", 0},
              {"", 0},
              {"ALL", AC_TRACE_COLL | AC_TRACE_P2P},
              {"collectives,p2p", AC_TRACE_COLL | AC_TRACE_P2P},
              {" p2p ", AC_TRACE_P2P}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_int_equal(ac_trace_cfg_parse(&c, ok[i].v, "1000", "/x/y", err, sizeof err), 0);
        assert_int_equal(c.mask, ok[i].mask);
        assert_int_equal(c.records, 1000);
        assert_string_equal(c.dir, "/x/y");
        assert_string_equal(err, "");
    }
    const char *bad[] = {"yes", "collective", "p2p,bogus", "al", "1", ","};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(ac_trace_cfg_parse(&c, bad[i], NULL, NULL, err, sizeof err), 1);
        assert_int_equal(c.mask, 0); /* off, never an abort */
        assert_non_null(strstr(err, "AUTOCOLL_TRACE="));
        assert_non_null(strstr(err, "tracing off"));
    }
    const char *badn[] = {"abc", "-5", "15", "16777217", "99999999999999999999999", "12x"};
    for (size_t i = 0; i < sizeof badn / sizeof badn[0]; i++) {
        assert_int_equal(ac_trace_cfg_parse(&c, "all", badn[i], NULL, err, sizeof err), 1);
        assert_int_equal(c.records, AC_TRACE_RECORDS_DEFAULT);
        assert_int_equal(c.mask, AC_TRACE_COLL | AC_TRACE_P2P);
        assert_non_null(strstr(err, "AUTOCOLL_TRACE_RECORDS"));
    }
    assert_int_equal(ac_trace_cfg_parse(&c, "all", "16", NULL, err, sizeof err), 0);
    assert_int_equal(c.records, 16);
    char longdir[600];
    memset(longdir, 'd', sizeof longdir - 1);
    longdir[sizeof longdir - 1] = '\0';
    assert_int_equal(ac_trace_cfg_parse(&c, "all", NULL, longdir, err, sizeof err), 1);
    assert_int_equal(c.mask, 0);
    assert_non_null(strstr(err, "AUTOCOLL_TRACE_DIR"));
}

static void on_flag(void **st) {
    (void)st;
    ac_trace_mask = 0;
    assert_false(ac_trace_on(AUTOCOLL_BCAST));
    assert_false(ac_trace_on(AC_TK_SEND));
    ac_trace_mask = AC_TRACE_COLL;
    assert_true(ac_trace_on(AUTOCOLL_BCAST));
    assert_false(ac_trace_on(AC_TK_SEND));
    ac_trace_mask = AC_TRACE_P2P;
    assert_false(ac_trace_on(AUTOCOLL_BARRIER));
    assert_true(ac_trace_on(AC_TK_WAITALL));
    ac_trace_mask = 0;
    assert_string_equal(ac_trace_kind_name(AUTOCOLL_ALLGATHER), "allgather");
    assert_string_equal(ac_trace_kind_name(AC_TK_IPROBE), "iprobe");
    assert_null(ac_trace_kind_name(AC_TK_P2P_END));
    assert_null(ac_trace_kind_name(AUTOCOLL_NCOLL));
}

/* ---------------------------------------------------------------- files */

/* A ring holding one record of every collective and every point-to-point kind, every field set
 * to a distinct value. */
static void fill_ring(ac_trace_ring_t *r, uint32_t nstr) {
    int kinds[AUTOCOLL_NCOLL + AC_TK_P2P_END - AC_TK_P2P_FIRST], nk = 0;
    for (int k = 0; k < AUTOCOLL_NCOLL; k++)
        kinds[nk++] = k;
    for (int k = AC_TK_P2P_FIRST; k < AC_TK_P2P_END; k++)
        kinds[nk++] = k;
    assert_int_equal(ac_trace_ring_init(r, (uint64_t)nk), 0);
    for (int i = 0; i < nk; i++) {
        ac_trace_rec_t x;
        ac_trace_rec_clear(&x, kinds[i]);
        x.t_in = 1700000000000000000LL + 12345 * i;
        x.t_out = x.t_in + 777 + i;
        x.bytes = (uint64_t)1 << (i % 40);
        x.seq = 10000000000ULL + (uint64_t)i;
        x.comm = (uint32_t)(i % 3);
        x.site = (uint32_t)(i % nstr);
        x.inst = i % 4 == 0 ? AC_TRACE_NOID : (uint32_t)((i + 1) % nstr);
        if (kinds[i] < AUTOCOLL_NCOLL) {
            x.root = ac_coll_rooted(kinds[i]) ? i % 5 : AC_TRACE_NONE;
            x.alg = (int16_t)(i % 7);
            x.src = (uint8_t)(i % 8);
            x.flags = i % 2 ? AC_TF_INPLACE : 0;
        } else {
            x.peer = i - 40;
            x.tag = 1000 + i;
            x.ident = i / 2;
            x.count = 3 * i;
            x.flags = (uint8_t)(i % 32);
            x.status_source = i % 6;
            x.status_tag = -i;
            x.root = i % 8; /* the peer's world rank (format 2) */
            int k = kinds[i];
            x.inst = k == AC_TK_RECV || k == AC_TK_SENDRECV || k == AC_TK_SENDRECV_REPLACE
                         ? (uint32_t)(i % 8)
                     : k == AC_TK_IRECV || k == AC_TK_RECV_DONE ? 1000u + (uint32_t)i
                                                                : AC_TRACE_NOID;
        }
        ac_trace_ring_push(r, &x);
    }
}

static const char *const strs[] = {"ring", "bruck_kport:k=3", "", "libapp.so+0x1234",
                                   "pipe_chain:seg=8192"};
enum { NSTRS = 5 };

static const ac_trace_meta_t meta = {.rank = 3,
                                     .nprocs = 8,
                                     .mask = AC_TRACE_COLL | AC_TRACE_P2P,
                                     .flags = 0,
                                     .lost_ids = 2,
                                     .clock = {{1000, -2500, 40}, {9000000, -2700, 35}}};

static void write_sample(const char *path, ac_trace_ring_t *r) {
    char err[512];
    fill_ring(r, NSTRS);
    assert_int_equal(ac_trace_write_file(path, &meta, r, strs, NSTRS, err, sizeof err), 0);
}

static void file_roundtrip(void **st) {
    (void)st;
    char path[300], err[512];
    snprintf(path, sizeof path, "%s/rt.bin", tmpdir);
    ac_trace_ring_t r;
    write_sample(path, &r);
    /* a second version: 3 more records than room, so drops are written too */
    ac_trace_file_t t;
    assert_int_equal(ac_trace_read(path, &t, err, sizeof err), 0);
    assert_int_equal(t.version, AC_TRACE_VERSION);
    assert_int_equal(t.byteswapped, 0);
    assert_int_equal(t.rank, 3);
    assert_int_equal(t.nprocs, 8);
    assert_int_equal(t.mask, meta.mask);
    assert_int_equal(t.flags, 0);
    assert_int_equal(t.lost_ids, 2);
    assert_int_equal(t.drops, 0);
    assert_int_equal(t.nrec, ac_trace_ring_count(&r));
    for (int i = 0; i < 2; i++) {
        assert_int_equal(t.clock[i].at, meta.clock[i].at);
        assert_int_equal(t.clock[i].offset, meta.clock[i].offset);
        assert_int_equal(t.clock[i].residual, meta.clock[i].residual);
    }
    assert_int_equal(t.nstr, NSTRS);
    for (int i = 0; i < NSTRS; i++)
        assert_string_equal(t.str[i], strs[i]);
    for (uint64_t i = 0; i < t.nrec; i++) {
        const ac_trace_rec_t *a = ac_trace_ring_at(&r, i), *b = &t.rec[i];
        assert_int_equal(a->t_in, b->t_in);
        assert_int_equal(a->t_out, b->t_out);
        assert_int_equal(a->bytes, b->bytes);
        assert_int_equal(a->seq, b->seq);
        assert_int_equal(a->comm, b->comm);
        assert_int_equal(a->site, b->site);
        assert_int_equal(a->inst, b->inst);
        assert_int_equal(a->root, b->root);
        assert_int_equal(a->peer, b->peer);
        assert_int_equal(a->tag, b->tag);
        assert_int_equal(a->ident, b->ident);
        assert_int_equal(a->count, b->count);
        assert_int_equal(a->kind, b->kind);
        assert_int_equal(a->alg, b->alg);
        assert_int_equal(a->src, b->src);
        assert_int_equal(a->flags, b->flags);
        assert_int_equal(a->status_source, b->status_source);
        assert_int_equal(a->status_tag, b->status_tag);
        assert_memory_equal(a, b, sizeof *a);
    }
    ac_trace_file_free(&t);

    /* wrapped ring: drops in the header, oldest record first */
    uint64_t n = ac_trace_ring_count(&r);
    for (int i = 0; i < 3; i++) {
        ac_trace_rec_t x = rec_n(100 + i);
        ac_trace_ring_push(&r, &x);
    }
    assert_int_equal(ac_trace_write_file(path, &meta, &r, strs, NSTRS, err, sizeof err), 0);
    assert_int_equal(ac_trace_read(path, &t, err, sizeof err), 0);
    assert_int_equal(t.nrec, n);
    assert_int_equal(t.drops, 3);
    assert_int_equal(t.rec[n - 1].seq, 102);
    assert_int_equal(t.rec[n - 3].seq, 100);
    assert_int_equal(t.rec[0].kind, 3); /* the fourth record written first */
    ac_trace_file_free(&t);
    ac_trace_ring_free(&r);

    /* empty trace, no strings */
    assert_int_equal(ac_trace_ring_init(&r, 8), 0);
    assert_int_equal(ac_trace_write_file(path, &meta, &r, NULL, 0, err, sizeof err), 0);
    assert_int_equal(ac_trace_read(path, &t, err, sizeof err), 0);
    assert_int_equal(t.nrec, 0);
    assert_int_equal(t.nstr, 0);
    ac_trace_file_free(&t);
    ac_trace_ring_free(&r);

    /* unwritable place: a message, no file */
    assert_int_equal(
        ac_trace_write_file("/nonexistent-dir/x.bin", &meta, &r, NULL, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent-dir/x.bin"));
}

/* Swaps every field of an image in place (the layout of docs/tracing.md), making the file a
 * machine of the other byte order would have written. */
static void swap_n(unsigned char *p, int n) {
    for (int i = 0; i < n / 2; i++) {
        unsigned char c = p[i];
        p[i] = p[n - 1 - i];
        p[n - 1 - i] = c;
    }
}
static void swap_image(unsigned char *b, size_t len) {
    static const int h32[] = {8, 12, 16, 20, 24, 28, 32, 36, 56, 60};
    static const int h64[] = {40, 48, 64, 72, 80, 88, 96, 104, 112, 120};
    uint64_t nrec, strbytes;
    uint32_t nstr;
    memcpy(&nrec, b + 40, 8);
    memcpy(&nstr, b + 56, 4);
    memcpy(&strbytes, b + 64, 8);
    for (size_t i = 0; i < sizeof h32 / sizeof h32[0]; i++)
        swap_n(b + h32[i], 4);
    for (size_t i = 0; i < sizeof h64 / sizeof h64[0]; i++)
        swap_n(b + h64[i], 8);
    static const int r64[] = {0, 8, 16, 24}, r32[] = {32, 36, 40, 44, 48, 52, 56, 60, 72, 76},
                     r16[] = {64, 66, 70};
    for (uint64_t k = 0; k < nrec; k++) {
        unsigned char *x = b + 128 + 80 * k;
        for (size_t i = 0; i < 4; i++)
            swap_n(x + r64[i], 8);
        for (size_t i = 0; i < 10; i++)
            swap_n(x + r32[i], 4);
        for (size_t i = 0; i < 3; i++)
            swap_n(x + r16[i], 2);
    }
    size_t p = 128 + 80 * nrec;
    for (uint32_t i = 0; i < nstr; i++) {
        uint32_t n;
        memcpy(&n, b + p, 4);
        swap_n(b + p, 4);
        p += 4 + n;
    }
    assert_int_equal(p, len);
    /* the checksum covers the bytes as stored: recompute it over the swapped image, then store
     * it in the swapped order */
    uint64_t h = doc_fnv(14695981039346656037ULL, b, 120);
    h = doc_fnv(h, b + 128, len - 128);
    memcpy(b + 120, &h, 8);
    swap_n(b + 120, 8);
    (void)strbytes;
}

static void file_byteswapped(void **st) {
    (void)st;
    char path[300], err[512];
    snprintf(path, sizeof path, "%s/sw.bin", tmpdir);
    ac_trace_ring_t r;
    write_sample(path, &r);
    size_t len;
    unsigned char *b = slurp(path, &len);
    swap_image(b, len);
    ac_trace_file_t t;
    assert_int_equal(ac_trace_parse(b, len, "swapped", &t, err, sizeof err), 0);
    assert_int_equal(t.byteswapped, 1);
    assert_int_equal(t.rank, 3);
    assert_int_equal(t.clock[1].offset, -2700);
    for (uint64_t i = 0; i < t.nrec; i++)
        assert_memory_equal(ac_trace_ring_at(&r, i), &t.rec[i], sizeof t.rec[i]);
    for (int i = 0; i < NSTRS; i++)
        assert_string_equal(t.str[i], strs[i]);
    ac_trace_file_free(&t);
    ac_trace_ring_free(&r);
    free(b);
}

static void expect_reject(const unsigned char *b, size_t len, const char *what) {
    char err[512];
    ac_trace_file_t t;
    memset(&t, 0x5a, sizeof t);
    int rc = ac_trace_parse(b, len, "bad.bin", &t, err, sizeof err);
    if (rc == 0) fail_msg("accepted a file that should fail with '%s'", what);
    assert_null(t.rec);
    assert_null(t.str);
    if (!strstr(err, what)) fail_msg("message '%s' does not say '%s'", err, what);
    assert_non_null(strstr(err, "bad.bin: offset "));
}

static void file_rejects(void **st) {
    (void)st;
    char path[300], err[512];
    snprintf(path, sizeof path, "%s/bad.bin", tmpdir);
    ac_trace_ring_t r;
    write_sample(path, &r);
    ac_trace_ring_free(&r);
    size_t len;
    unsigned char *good = slurp(path, &len), *b = malloc(len + 16);
    assert_non_null(b);

    /* every truncation is refused with a message */
    for (size_t n = 0; n < len; n++) {
        ac_trace_file_t t;
        assert_int_equal(ac_trace_parse(good, n, "cut.bin", &t, err, sizeof err), -1);
        assert_non_null(strstr(err, "cut.bin: offset"));
    }
    expect_reject(good, 100, "truncated header");
    expect_reject(good, len - 1, "truncated");
    /* trailing garbage */
    memcpy(b, good, len);
    b[len] = 0;
    expect_reject(b, len + 1, "garbage");

#define MUTATE(stmt, fix, what)                                                                    \
    do {                                                                                           \
        memcpy(b, good, len);                                                                      \
        stmt;                                                                                      \
        if (fix) doc_fix_checksum(b, len);                                                         \
        expect_reject(b, len, what);                                                               \
    } while (0)
    uint32_t v32;
    int32_t i32;
    uint64_t v64;
    MUTATE(b[0] = 'X', 0, "bad magic");
    MUTATE(memcpy(b, "GARBAGE!", 8), 0, "not an autocoll trace file");
    MUTATE((v32 = 3, memcpy(b + 8, &v32, 4)), 0, "version 3 not supported");
    MUTATE((v32 = 1, memcpy(b + 8, &v32, 4)), 0,
           "offset 8: format version 1 not supported (written by an earlier autocoll");
    MUTATE((v32 = 0, memcpy(b + 8, &v32, 4)), 0, "version 0 not supported");
    MUTATE((v32 = 0x11223344, memcpy(b + 12, &v32, 4)), 0, "byte-order mark");
    MUTATE((v32 = 64, memcpy(b + 16, &v32, 4)), 0, "header size");
    MUTATE((v32 = 64, memcpy(b + 20, &v32, 4)), 0, "record size");
    MUTATE((i32 = 8, memcpy(b + 24, &i32, 4)), 0, "rank 8 out of range");
    MUTATE((i32 = 0, memcpy(b + 28, &i32, 4)), 0, "process count 0");
    MUTATE((v32 = 4, memcpy(b + 32, &v32, 4)), 0, "unknown trace mask");
    MUTATE((v64 = 1000000, memcpy(b + 40, &v64, 8)), 0, "records announced");
    MUTATE((v64 = ~0ULL, memcpy(b + 40, &v64, 8)), 0, "records announced");
    MUTATE((v64 = ~0ULL, memcpy(b + 64, &v64, 8)), 0, "string table");
    MUTATE((v32 = 0x7fffffff, memcpy(b + 56, &v32, 4)), 0, "strings cannot fit");
    MUTATE((v64 = (uint64_t)-5, memcpy(b + 88, &v64, 8)), 0, "negative clock residual");
    /* body damage: the checksum catches it */
    MUTATE(b[128 + 5] ^= 1, 0, "checksum mismatch");
    MUTATE(b[len - 1] ^= 0x20, 0, "checksum mismatch");
    /* well-formed checksum, bad fields: each found and located */
    size_t r0 = 128;
    MUTATE((v32 = 999, memcpy(b + r0 + 64, &v32, 2)), 1, "record 0: unknown call kind 999");
    MUTATE((v64 = 5, memcpy(b + r0 + 80 + 8, &v64, 8)), 1, "record 1: exit time before entry");
    MUTATE((v32 = NSTRS, memcpy(b + r0 + 36, &v32, 4)), 1, "call-site id 5 out of range");
    MUTATE((v32 = 77, memcpy(b + r0 + 80 + 40, &v32, 4)), 1, "instance id 77 out of range");
    MUTATE(b[r0 + 68] = 200, 1, "decision source 200");
    MUTATE(b[r0 + 69] = 0x80, 1, "unknown flags");
    MUTATE((i32 = -7, memcpy(b + r0 + 66, &i32, 2)), 1, "algorithm index -7");
    MUTATE(b[r0 + 70] = 1, 1, "reserved field");
    /* record 4 is bcast (rooted): without a root; record 0 is allgather: with one */
    MUTATE((i32 = AC_TRACE_NONE, memcpy(b + r0 + 4 * 80 + 44, &i32, 4)), 1, "without a root");
    MUTATE((i32 = 0, memcpy(b + r0 + 44, &i32, 4)), 1, "with a root");
    /* format 2 point-to-point fields: the first point-to-point record (send) with a peer world
     * rank out of range or an instance; recv (record +8) with a status world rank out of range */
    size_t p0 = r0 + 80 * (size_t)AUTOCOLL_NCOLL;
    MUTATE((i32 = 8, memcpy(b + p0 + 44, &i32, 4)), 1, "peer world rank 8 out of range");
    MUTATE((v32 = 3, memcpy(b + p0 + 40, &v32, 4)), 1, "send with an instance or serial 3");
    MUTATE((v32 = 9, memcpy(b + p0 + 8 * 80 + 40, &v32, 4)), 1,
           "status source world rank 9 out of range");
    /* strings: a NUL inside, a length past the end */
    size_t s0 = 128 + 80 * (size_t)(AUTOCOLL_NCOLL + AC_TK_P2P_END - AC_TK_P2P_FIRST);
    MUTATE(b[s0 + 4] = 0, 1, "string 0: contains a NUL");
    MUTATE((v32 = 1000, memcpy(b + s0, &v32, 4)), 1, "string 0: length 1000 past the end");
    MUTATE((v32 = 2, memcpy(b + s0, &v32, 4)), 1, "string");
#undef MUTATE

    /* random damage anywhere, checksum fixed or not: never a crash, never a leak */
    srand(7);
    for (int it = 0; it < 3000; it++) {
        memcpy(b, good, len);
        int nflip = 1 + rand() % 4;
        for (int k = 0; k < nflip; k++)
            b[(size_t)rand() % len] ^= (unsigned char)(1 + rand() % 255);
        if (it % 2) doc_fix_checksum(b, len);
        ac_trace_file_t t;
        if (ac_trace_parse(b, len, "fuzz.bin", &t, err, sizeof err) == 0)
            ac_trace_file_free(&t);
        else
            assert_non_null(strstr(err, "fuzz.bin: offset"));
    }

    /* files that are not there or not regular */
    ac_trace_file_t t;
    assert_int_equal(ac_trace_read("/nonexistent/trace.bin", &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/trace.bin"));
    assert_int_equal(ac_trace_read("/dev/null", &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a regular file"));
    free(good);
    free(b);
}

/* The address this is called from, as the dispatcher takes it. */
static __attribute__((noipa)) const void *caller(void) {
    return __builtin_return_address(0);
}

/* The process-wide path: settings, interned ids, flush and read back. */
static void tracer_flush(void **st) {
    (void)st;
    ac_trace_cfg_t c;
    char err[512];
    assert_int_equal(ac_trace_cfg_parse(&c, "collectives", "32", tmpdir, err, sizeof err), 0);
    assert_int_equal(ac_trace_init_cfg(&c, 1, 2, err, sizeof err), 0);
    assert_true(ac_trace_on(AUTOCOLL_ALLREDUCE));
    assert_false(ac_trace_on(AC_TK_SEND));

    ac_alg_t ring = {.coll = AUTOCOLL_ALLREDUCE, .index = 5, .name = "ring"};
    ac_alg_t seg = {.coll = AUTOCOLL_BCAST, .index = 7, .name = "pipe_chain", .nparam = 1};
    snprintf(seg.param[0].name, sizeof seg.param[0].name, "seg");
    seg.param[0].type = AC_PT_INT;
    ac_inst_t a = {.alg = &ring}, b1 = {.alg = &seg}, b2 = {.alg = &seg};
    b1.val[0].i = 8192;
    b2.val[0].i = 1024;
    const void *site1 = caller(), *site2 = caller(); /* two call sites in this program */
    uint32_t ia, ib1, ib2, ib1again, s1, s2, s1again, none;
    ac_trace_ids(&a, site1, &ia, &s1);
    ac_trace_ids(&b1, site2, &ib1, &s2);
    ac_trace_ids(&b2, site1, &ib2, &s1again);
    ac_trace_ids(&b1, NULL, &ib1again, &none);
    assert_int_equal(s1, s1again);
    assert_int_equal(ib1, ib1again);
    assert_int_equal(none, AC_TRACE_NOID);
    assert_int_not_equal(ib1, ib2);
    assert_int_not_equal(ia, ib1);
    assert_int_not_equal(s1, s2);

    for (int i = 0; i < 40; i++) { /* 8 more than the ring holds */
        ac_trace_rec_t x;
        ac_trace_rec_clear(&x, i % 2 ? AUTOCOLL_ALLREDUCE : AUTOCOLL_BCAST);
        x.seq = (uint64_t)i;
        x.t_in = ac_trace_ns(1.5 + i);
        x.t_out = ac_trace_ns(1.5 + i + 1e-6);
        x.inst = i % 2 ? ia : (i % 4 ? ib1 : ib2);
        x.site = i % 2 ? s1 : s2;
        x.root = i % 2 ? AC_TRACE_NONE : 0;
        if (ac_trace_on(x.kind)) ac_trace_record(&x);
    }
    ac_trace_set_clock(0, 1.0, -0.25, 1e-6);
    ac_trace_set_clock(1, 50.0, -0.2500004, 2e-6);
    ac_trace_finalize();
    assert_int_equal(ac_trace_mask, 0);

    char path[300];
    snprintf(path, sizeof path, "%s/autocoll-trace.1.bin", tmpdir);
    ac_trace_file_t t;
    assert_int_equal(ac_trace_read(path, &t, err, sizeof err), 0);
    assert_int_equal(t.rank, 1);
    assert_int_equal(t.nprocs, 2);
    assert_int_equal(t.mask, AC_TRACE_COLL);
    assert_int_equal(t.nrec, 32);
    assert_int_equal(t.drops, 8);
    assert_int_equal(t.clock[0].offset, -250000000);
    assert_int_equal(t.clock[0].residual, 1000);
    assert_int_equal(t.clock[1].at, 50000000000LL);
    assert_int_equal(t.rec[0].seq, 8);
    assert_int_equal(t.rec[0].t_in, 9500000000LL);
    assert_string_equal(t.str[t.rec[0].inst], "pipe_chain:seg=1024"); /* i = 8 */
    assert_string_equal(t.str[t.rec[1].inst], "ring");
    assert_string_equal(t.str[t.rec[2].inst], "pipe_chain:seg=8192"); /* i = 10 */
    /* call sites: module+offset, stable under address randomisation */
    const char *sn = t.str[t.rec[1].site];
    assert_non_null(strstr(sn, "test_trace+0x"));
    assert_string_not_equal(t.str[t.rec[0].site], sn);
    ac_trace_file_free(&t);

    /* a directory that is not there, or not a directory: said at init, tracing stays off */
    assert_int_equal(ac_trace_cfg_parse(&c, "all", NULL, "/nonexistent-dir", err, sizeof err), 0);
    assert_int_equal(ac_trace_init_cfg(&c, 0, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "AUTOCOLL_TRACE_DIR='/nonexistent-dir': No such file"));
    assert_int_equal(ac_trace_mask, 0);
    assert_int_equal(ac_trace_cfg_parse(&c, "all", NULL, "/dev/null", err, sizeof err), 0);
    assert_int_equal(ac_trace_init_cfg(&c, 0, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a directory"));
    assert_int_equal(ac_trace_mask, 0);

    /* a failed flush is a message, never a crash */
    assert_int_equal(ac_trace_flush(err, sizeof err), -1);
    assert_non_null(strstr(err, "tracing is off"));
}

/* ---------------------------------------------------------------- clock offsets */

/* Rank 0's clock runs ahead of the local one by theta; one-way delays are uniform in
 * [dmin, dmax] (independent each way) and rank 0 takes up to h to answer. */
typedef struct {
    double now, theta, dmin, dmax, h;
    uint64_t rng;
    int fail_at, calls;
} synth_t;

static double uni(synth_t *s) { /* xorshift64*, in [0, 1) */
    s->rng ^= s->rng >> 12;
    s->rng ^= s->rng << 25;
    s->rng ^= s->rng >> 27;
    return (double)((s->rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static int synth_pingpong(void *arg, double *t0, double *tr, double *t1) {
    synth_t *s = arg;
    if (++s->calls == s->fail_at) return 1;
    s->now += 1e-3 * uni(s); /* time between samples */
    *t0 = s->now;
    double d1 = s->dmin + (s->dmax - s->dmin) * uni(s), d2 = s->dmin + (s->dmax - s->dmin) * uni(s);
    double h1 = s->h * uni(s), h2 = s->h * uni(s);
    *tr = s->now + d1 + h1 + s->theta; /* stamped on rank 0's clock */
    s->now += d1 + h1 + h2 + d2;
    *t1 = s->now;
    return 0;
}

static void clock_offset_synthetic(void **st) {
    (void)st;
    const double thetas[] = {0.0, 12.5, -3.000123, 1e-6};
    for (size_t k = 0; k < sizeof thetas / sizeof thetas[0]; k++) {
        synth_t s = {.now = 100.0,
                     .theta = thetas[k],
                     .dmin = 2e-6,
                     .dmax = 50e-6,
                     .h = 0.2e-6,
                     .rng = 88172645463325252ULL + k};
        double off, res;
        assert_int_equal(ac_trace_clock_offset(synth_pingpong, &s, 1000, &off, &res), 0);
        /* the estimate lies within its residual of the truth */
        assert_true(fabs(off - thetas[k]) <= res + 1e-12);
        /* the residual is half the smallest round trip: at least dmin, and with 1000 samples of
         * uniform delays, at most dmin + 0.1 (dmax - dmin) + h (a round trip has
         * d1 + d2 - 2 dmin below 0.2 (dmax - dmin) with probability 0.2^2 / 2 = 2%, so none of
         * 1000 does with probability 0.98^1000 < 1e-8) */
        assert_true(res >= s.dmin);
        assert_true(res <= s.dmin + 0.1 * (s.dmax - s.dmin) + s.h);
        /* far better than one arbitrary sample: half the mean round trip */
        assert_true(fabs(off - thetas[k]) < 0.5 * (s.dmax - s.dmin) / 2);
    }
    /* exact with symmetric delays and no turnaround */
    synth_t s = {.now = 1.0, .theta = 7.0, .dmin = 1e-5, .dmax = 1e-5, .rng = 1};
    double off, res;
    assert_int_equal(ac_trace_clock_offset(synth_pingpong, &s, 5, &off, &res), 0);
    assert_true(fabs(off - 7.0) < 1e-9);
    assert_true(fabs(res - 1e-5) < 1e-9);
    /* a failed ping-pong, no samples, no callback */
    synth_t f = {.now = 1.0, .dmax = 1e-5, .rng = 3, .fail_at = 4};
    assert_int_equal(ac_trace_clock_offset(synth_pingpong, &f, 10, &off, &res), -1);
    assert_true(res < 0);
    assert_int_equal(ac_trace_clock_offset(synth_pingpong, &s, 0, &off, &res), -1);
    assert_int_equal(ac_trace_clock_offset(NULL, NULL, 5, &off, &res), -1);
}

static int backwards(void *arg, double *t0, double *tr, double *t1) {
    (void)arg;
    *t0 = 2.0, *tr = 5.0, *t1 = 1.0; /* a clock that went backwards: ignored */
    return 0;
}

static void clock_correct(void **st) {
    (void)st;
    int64_t t = 0;
    double off, res;
    assert_int_equal(ac_trace_clock_offset(backwards, NULL, 3, &off, &res), -1);
    ac_trace_clock_t none[2] = {{0, 0, -1}, {0, 0, -1}};
    assert_int_equal(ac_trace_clock_correct(none, 12345), 12345);
    /* offset -1000 ns at t = 0, -3000 ns at t = 1e9: linear in between */
    ac_trace_clock_t c[2] = {{0, -1000, 50}, {1000000000, -3000, 60}};
    assert_int_equal(ac_trace_clock_correct(c, t), -1000);
    assert_int_equal(ac_trace_clock_correct(c, 500000000), 500000000 - 2000);
    assert_int_equal(ac_trace_clock_correct(c, 1000000000), 1000000000 - 3000);
    assert_int_equal(ac_trace_clock_correct(c, 2000000000), 2000000000 - 5000);
    ac_trace_clock_t only1[2] = {{0, 0, -1}, {10, 400, 5}};
    assert_int_equal(ac_trace_clock_correct(only1, 100), 500);
    ac_trace_clock_t only0[2] = {{10, -400, 5}, {0, 0, -1}};
    assert_int_equal(ac_trace_clock_correct(only0, 100), -300);
}

/* ---------------------------------------------------------------- arrival patterns */

static void arrival_hand_examples(void **st) {
    (void)st;
    ac_arrival_t s;
    /* 4 processes arriving at 0, 1, 2, 5 ms; T = 0.5 ms.
     * mean = 8/4 = 2 ms; deviations 2, 1, 0, 3 -> average imbalance 6/4 = 1.5 ms;
     * worst = 5 - 0 = 5 ms; factors 1.5/0.5 = 3 and 5/0.5 = 10: imbalanced.
     * exits at 6, 6, 6.5, 7 ms: elapsed 6, 5, 4.5, 2 -> mean 17.5/4 = 4.375 ms. */
    const double a[] = {0.000, 0.001, 0.002, 0.005}, f[] = {0.006, 0.006, 0.0065, 0.007};
    assert_int_equal(ac_arrival_stats(a, f, 4, 0.0005, &s), 0);
    assert_int_equal(s.n, 4);
    assert_float_equal(s.mean_arrival, 0.002, 1e-15);
    assert_float_equal(s.avg_imb, 0.0015, 1e-15);
    assert_float_equal(s.worst_imb, 0.005, 1e-15);
    assert_float_equal(s.avg_factor, 3.0, 1e-12);
    assert_float_equal(s.worst_factor, 10.0, 1e-12);
    assert_false(s.balanced);
    assert_float_equal(s.mean_elapsed, 0.004375, 1e-15);
    assert_int_equal(s.first, 0);
    assert_int_equal(s.last, 3);

    /* Balanced: arrivals 10.0, 10.00002, 10.00001 s (large absolute clock values), T = 29 us.
     * mean = 10.00001; deviations 10, 10, 0 us -> 6.667 us; worst 20 us; factors 0.2299 and
     * 0.6897 < 1: balanced. No exit times: mean elapsed is NaN. */
    const double b[] = {10.0, 10.00002, 10.00001};
    assert_int_equal(ac_arrival_stats(b, NULL, 3, 29e-6, &s), 0);
    assert_float_equal(s.avg_imb, 20e-6 / 3, 1e-12);
    assert_float_equal(s.worst_imb, 20e-6, 1e-12);
    assert_float_equal(s.avg_factor, (20e-6 / 3) / 29e-6, 1e-6);
    assert_float_equal(s.worst_factor, 20.0 / 29.0, 1e-6);
    assert_true(s.balanced);
    assert_true(isnan(s.mean_elapsed));
    assert_int_equal(s.first, 0);
    assert_int_equal(s.last, 1);

    /* The boundary: worst factor exactly 1 is imbalanced (balanced iff < 1). */
    const double c[] = {1.0, 3.0};
    assert_int_equal(ac_arrival_stats(c, NULL, 2, 2.0, &s), 0);
    assert_float_equal(s.worst_factor, 1.0, 0);
    assert_float_equal(s.avg_factor, 0.5, 0);
    assert_false(s.balanced);

    /* one process: no imbalance */
    const double d[] = {4.0};
    assert_int_equal(ac_arrival_stats(d, d, 1, 1e-6, &s), 0);
    assert_float_equal(s.worst_imb, 0, 0);
    assert_float_equal(s.mean_elapsed, 0, 0);
    assert_true(s.balanced);

    /* bad input */
    const double e[] = {1.0, NAN};
    assert_int_equal(ac_arrival_stats(e, NULL, 2, 1.0, &s), -1);
    assert_int_equal(ac_arrival_stats(a, NULL, 0, 1.0, &s), -1);
    assert_int_equal(ac_arrival_stats(a, NULL, 4, 0.0, &s), -1);
    assert_int_equal(ac_arrival_stats(a, NULL, 4, -1.0, &s), -1);
    assert_int_equal(ac_arrival_stats(NULL, NULL, 4, 1.0, &s), -1);
    const double g[] = {1.0, 2.0};
    assert_int_equal(ac_arrival_stats(g, e, 2, 1.0, &s), -1);
}

static void arrival_taxonomy(void **st) {
    (void)st;
    /* spec 6.4's examples */
    assert_int_equal(ac_arrival_class(AUTOCOLL_ALLTOALL, "ring"), AC_ARR_GLOBAL_COORD);
    assert_int_equal(ac_arrival_class(AUTOCOLL_ALLTOALL, "pair"), AC_ARR_GLOBAL_COORD);
    assert_int_equal(ac_arrival_class(AUTOCOLL_ALLTOALL, "bruck"), AC_ARR_GLOBAL_COORD);
    assert_int_equal(ac_arrival_class(AUTOCOLL_ALLGATHER, "rdb"), AC_ARR_GLOBAL_COORD);
    assert_int_equal(ac_arrival_class(AUTOCOLL_BCAST, "binomial"), AC_ARR_STORE_FWD);
    assert_int_equal(ac_arrival_class(AUTOCOLL_ALLGATHER, "lr"), AC_ARR_STORE_FWD);
    assert_int_equal(ac_arrival_class(AUTOCOLL_ALLTOALL, "linear"), AC_ARR_DIRECT);
    assert_int_equal(ac_arrival_class(AUTOCOLL_BCAST, "flat"), AC_ARR_DIRECT);
    assert_int_equal(ac_arrival_class(AUTOCOLL_BCAST, "pipe_chain"), AC_ARR_GLOBAL_COORD);
    /* synchronisation variants and instances share their family's class */
    assert_int_equal(ac_arrival_class(AUTOCOLL_ALLTOALL, "ring_nbar"), AC_ARR_GLOBAL_COORD);
    assert_int_equal(ac_arrival_class(AUTOCOLL_ALLTOALL, "pair_lb"), AC_ARR_GLOBAL_COORD);
    assert_int_equal(ac_arrival_class(AUTOCOLL_ALLTOALL, "bruck_kport:k=3"), AC_ARR_GLOBAL_COORD);
    /* not placed by the spec, or a name that only starts like a family */
    assert_int_equal(ac_arrival_class(AUTOCOLL_ALLTOALL, "native"), AC_ARR_UNKNOWN);
    assert_int_equal(ac_arrival_class(AUTOCOLL_ALLTOALL, "ringx"), AC_ARR_UNKNOWN);
    assert_int_equal(ac_arrival_class(AUTOCOLL_ALLTOALL, "lr"), AC_ARR_UNKNOWN);
    assert_int_equal(ac_arrival_class(AUTOCOLL_BCAST, "split_binary"), AC_ARR_STORE_FWD);
    assert_int_equal(ac_arrival_class(AUTOCOLL_ALLREDUCE, "ring"), AC_ARR_UNKNOWN);
    assert_int_equal(ac_arrival_class(AUTOCOLL_ALLTOALL, NULL), AC_ARR_UNKNOWN);
    assert_string_equal(ac_arrival_class_name(AC_ARR_STORE_FWD), "store-and-forward");
    /* operations (spec 6.4) */
    assert_int_equal(ac_arrival_synchronised(AUTOCOLL_BCAST), 0);
    assert_int_equal(ac_arrival_synchronised(AUTOCOLL_SCATTER), 0);
    assert_int_equal(ac_arrival_synchronised(AUTOCOLL_GATHER), 0);
    assert_int_equal(ac_arrival_synchronised(AUTOCOLL_REDUCE), 0);
    assert_int_equal(ac_arrival_synchronised(AUTOCOLL_ALLTOALL), 1);
    assert_int_equal(ac_arrival_synchronised(AUTOCOLL_ALLREDUCE), 1);
    assert_int_equal(ac_arrival_synchronised(AUTOCOLL_ALLGATHER), 1);
    assert_int_equal(ac_arrival_synchronised(AUTOCOLL_BARRIER), 1);
    assert_int_equal(ac_arrival_synchronised(AUTOCOLL_NCOLL), -1);
    assert_int_equal(ac_arrival_synchronised(-1), -1);
}

/* Arrival patterns per call site (trace_summary.c) on hand-made samples. Communicator 0.5 of 3
 * ranks, one site: call 1 arrives at 0, 30, 90 us (mean 40; |dev| 40, 10, 50: avg 33.33;
 * worst 90, rank 2 last), call 2 at 10, 0, 5 us (mean 5; avg 3.33; worst 10, rank 0 last),
 * call 3 lacks rank 1 (incomplete). T = 10 us + 0 x bytes: factors 3.333/9 and 0.333/1.
 * Call 2's worst factor is exactly 1: not balanced (balanced iff < 1). A second site on the
 * same communicator is its own group. */
static void arrival_groups_hand(void **state) {
    (void)state;
    ac_arr_sample_t s[] = {
        {.leader = 0,
         .comm = 5,
         .seq = 1,
         .kind = 6,
         .crank = 2,
         .csize = 3,
         .site = 7,
         .t_in = 90000,
         .t_out = 100000},
        {.leader = 0,
         .comm = 5,
         .seq = 1,
         .kind = 6,
         .crank = 0,
         .csize = 3,
         .site = 7,
         .t_in = 0,
         .t_out = 100000},
        {.leader = 0,
         .comm = 5,
         .seq = 1,
         .kind = 6,
         .crank = 1,
         .csize = 3,
         .site = 7,
         .t_in = 30000,
         .t_out = 100000},
        {.leader = 0,
         .comm = 5,
         .seq = 2,
         .kind = 6,
         .crank = 0,
         .csize = 3,
         .site = 7,
         .t_in = 10000,
         .t_out = 20000},
        {.leader = 0,
         .comm = 5,
         .seq = 2,
         .kind = 6,
         .crank = 1,
         .csize = 3,
         .site = 7,
         .t_in = 0,
         .t_out = 20000},
        {.leader = 0,
         .comm = 5,
         .seq = 2,
         .kind = 6,
         .crank = 2,
         .csize = 3,
         .site = 7,
         .t_in = 5000,
         .t_out = 20000},
        {.leader = 0,
         .comm = 5,
         .seq = 3,
         .kind = 6,
         .crank = 0,
         .csize = 3,
         .site = 7,
         .t_in = 0,
         .t_out = 1000},
        {.leader = 0,
         .comm = 5,
         .seq = 3,
         .kind = 6,
         .crank = 2,
         .csize = 3,
         .site = 7,
         .t_in = 0,
         .t_out = 1000},
        {.leader = 0,
         .comm = 5,
         .seq = 4,
         .kind = 6,
         .crank = 0,
         .csize = 1 + 2,
         .site = 8,
         .t_in = 0,
         .t_out = 0},
        {.leader = 0,
         .comm = 5,
         .seq = 4,
         .kind = 6,
         .crank = 1,
         .csize = 3,
         .site = 9,
         .t_in = 0,
         .t_out = 0},
        {.leader = 0,
         .comm = 5,
         .seq = 4,
         .kind = 6,
         .crank = 2,
         .csize = 3,
         .site = 9,
         .t_in = 0,
         .t_out = 0},
    };
    ac_arr_group_t *g = NULL;
    size_t ng = 0;
    assert_int_equal(ac_arrival_groups(s, sizeof s / sizeof s[0], 10e-6, 0, &g, &ng), 0);
    assert_int_equal(ng, 2);
    const ac_arr_group_t *x = g[0].site == 7 ? &g[0] : &g[1], *y = x == g ? &g[1] : &g[0];
    assert_int_equal(x->calls, 2);
    assert_int_equal(x->incomplete, 1);
    assert_int_equal(x->csize, 3);
    assert_true(fabs(x->avg_imb - (100.0 / 3 + 10.0 / 3) / 2 * 1e-6) < 1e-12);
    assert_true(fabs(x->worst_imb - 50e-6) < 1e-12);
    assert_true(fabs(x->max_worst_imb - 90e-6) < 1e-12);
    assert_true(fabs(x->worst_factor - 5) < 1e-9);
    assert_true(fabs(x->max_worst_factor - 9) < 1e-9);
    assert_int_equal(x->balanced, 0);
    /* latest: rank 2 once, rank 0 once: the first counted wins the tie */
    assert_int_equal(x->late_count, 1);
    assert_int_equal(x->late_rank, 0);
    assert_true(fabs(x->elapsed - ((100.0 - 40) + (20.0 - 5)) / 2 * 1e-6) < 1e-12);
    assert_int_equal(y->site, 8);
    assert_int_equal(y->calls, 1);
    assert_int_equal(y->balanced, 1); /* all arrive at once */
    ac_arrival_groups_free(g, ng);
    assert_int_equal(ac_arrival_groups(s, 1, 0, 0, &g, &ng), -1); /* alpha must be > 0 */
}

/* Identifiers of spec 2.2: dense, first-seen order; a generation bump makes a new id. */
static void intern_ids(void **state) {
    (void)state;
    ac_intern_t m = {0}, gens = {0};
    uint64_t a[2] = {1, 2}, b[2] = {2, 1}, c[3] = {1, 2, 0};
    assert_int_equal(ac_intern(&m, a, 2), 0);
    assert_int_equal(ac_intern(&m, b, 2), 1);
    assert_int_equal(ac_intern(&m, c, 3), 2); /* length is part of the key */
    assert_int_equal(ac_intern(&m, a, 2), 0);
    assert_int_equal(ac_intern_find(&m, b, 2), 1);
    for (uint64_t k = 0; k < 1000; k++) { /* growth keeps every id */
        uint64_t w[1] = {k + 100};
        assert_int_equal(ac_intern(&m, w, 1), (int32_t)(3 + k));
    }
    assert_int_equal(ac_intern(&m, b, 2), 1);
    assert_int_equal(ac_intern(&m, a, 0), -1);
    assert_int_equal(ac_intern_gen(&gens, 42), 0);
    ac_intern_bump(&gens, 42);
    ac_intern_bump(&gens, 42);
    assert_int_equal(ac_intern_gen(&gens, 42), 2);
    assert_int_equal(ac_intern_gen(&gens, 43), 0);
    ac_intern_free(&m);
    ac_intern_free(&gens);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ring_wrap_and_drops),
        cmocka_unit_test(settings_parse),
        cmocka_unit_test(on_flag),
        cmocka_unit_test(file_roundtrip),
        cmocka_unit_test(file_byteswapped),
        cmocka_unit_test(file_rejects),
        cmocka_unit_test(tracer_flush),
        cmocka_unit_test(clock_offset_synthetic),
        cmocka_unit_test(clock_correct),
        cmocka_unit_test(arrival_hand_examples),
        cmocka_unit_test(arrival_taxonomy),
        cmocka_unit_test(arrival_groups_hand),
        cmocka_unit_test(intern_ids),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
