/*
 * Shared measurement code of the tools: see ac_bench.h for the design (cases, timing
 * mechanisms, validation, agreement of the statistics).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "autocoll.h"
#include "ac_bench.h"
#ifdef AC_SMPI
#include <smpi/smpi.h>
#endif

enum { GUARD = 64, TAG_PING = 4711, TAG_SELF = 4712 };

/* ------------------------------------------------------------------ parsing */

int acb_parse_size(const char *s, unsigned long long *v) {
    if (!s || !isdigit((unsigned char)*s)) return -1;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno) return -1;
    unsigned long long mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1ull << 10, end++;
    else if (*end == 'M' || *end == 'm')
        mul = 1ull << 20, end++;
    else if (*end == 'G' || *end == 'g')
        mul = 1ull << 30, end++;
    if (*end || (x && mul > ~0ull / x)) return -1;
    *v = x * mul;
    return 0;
}

int acb_parse_range(const char *s, unsigned long long *lo, unsigned long long *hi) {
    const char *colon = s ? strchr(s, ':') : NULL;
    if (!s) return -1;
    if (!colon) return acb_parse_size(s, hi);
    char a[64];
    size_t n = (size_t)(colon - s);
    if (n == 0 || n >= sizeof a) return -1;
    memcpy(a, s, n);
    a[n] = '\0';
    if (acb_parse_size(a, lo)) return -1;
    if (colon[1] == '\0') return 0; /* "min:" keeps the default maximum */
    if (acb_parse_size(colon + 1, hi)) return -1;
    return *lo <= *hi ? 0 : -1;
}

int acb_mech_parse(const char *s, acb_mech_t *m) {
    char *end;
    memset(m, 0, sizeof *m);
    if (!s) return -1;
    if (!strcmp(s, "b2b")) {
        m->kind = ACB_B2B;
    } else if (!strcmp(s, "barrier")) {
        m->kind = ACB_BARRIER;
    } else if (!strncmp(s, "compute:", 8) || !strncmp(s, "imbalance:", 10)) {
        int comp = s[0] == 'c';
        const char *v = s + (comp ? 8 : 10);
        if (!*v || isspace((unsigned char)*v)) return -1;
        errno = 0;
        double x = strtod(v, &end);
        if (errno || *end || !(x >= 0) || x > 1e9) return -1;
        m->kind = comp ? ACB_COMPUTE : ACB_IMBALANCE;
        m->param = x;
    } else {
        return -1;
    }
    snprintf(m->text, sizeof m->text, "%s", s);
    return 0;
}

int acb_default_iters(size_t msg) {
    if (msg < 4096) return 100;
    if (msg < 16384) return 50;
    if (msg < 131072) return 20;
    if (msg <= 262144) return 10;
    return 5;
}

/* ------------------------------------------------------------------ collectives */

static int coll_flag(int c, int reduces) {
    autocoll_coll_info_t ci;
    if (autocoll_coll_info(c, &ci) != MPI_SUCCESS) return 0;
    return reduces ? ci.reduces : ci.rooted;
}
int acb_is_reduction(int c) {
    return coll_flag(c, 1);
}
int acb_is_rooted(int c) {
    return coll_flag(c, 0);
}
size_t acb_elem_size(int c) {
    return acb_is_reduction(c) ? sizeof(float) : 1;
}

const char *acb_restriction_reason(unsigned r, const autocoll_layout_t *l, int topology) {
    autocoll_situation_t s = {.p = l->p,
                              .nodes = l->nodes,
                              .uniform_ppn = l->uniform,
                              .commutative = 1, /* MPI_SUM */
                              .inplace = 0,
                              .topology = topology};
    return autocoll_restriction_reason(r, &s);
}

int acb_alg_index(int coll, const char *inst) {
    size_t n = strcspn(inst, ":");
    for (int a = 0; a < autocoll_alg_count(coll); a++) {
        autocoll_alg_info_t in;
        if (autocoll_alg_info(coll, a, &in) != MPI_SUCCESS) continue;
        if (strlen(in.name) == n && !strncmp(in.name, inst, n)) return a;
    }
    return -1;
}

int acb_ran_other(const char *last, const char *inst) {
    size_t n = strlen(inst);
    return last[0] && strcmp(last, inst) && !(strncmp(last, inst, n) == 0 && last[n] == ':');
}

/* ------------------------------------------------------------------ time and waits */

static double t_origin = -1;
double acb_now(void) {
    double t = PMPI_Wtime();
    if (t_origin < 0) t_origin = t;
    return t - t_origin;
}

#ifndef AC_SMPI
/* Dummy computation of STAGE-MPI Figure 4.3(c); volatile so it is not optimised away. */
static volatile float dummy_a[1002], dummy_b[1002];
static void dummy_units(long bound) {
    for (long j = 0; j < bound; j++)
        for (int k = 1; k <= 1000; k++)
            dummy_a[k] = dummy_b[k + 1] + dummy_a[k - 1];
}
static double unit_seconds = -1; /* time of one unit (1000 inner iterations) */
static void dummy_calibrate(void) {
    long n = 0, step = 1;
    double t0 = PMPI_Wtime(), t;
    do {
        dummy_units(step);
        n += step;
        if (step < 1024) step *= 2;
        t = PMPI_Wtime() - t0;
    } while (t < 0.005 && n < 100000000L);
    unit_seconds = t > 0 ? t / (double)n : 1e-9;
}
#endif

/* About `sec` seconds of computation. */
static void compute_for(double sec) {
    if (sec <= 0) return;
#ifdef AC_SMPI
    smpi_execute(sec);
#else
    if (unit_seconds < 0) dummy_calibrate();
    dummy_units((long)(sec / unit_seconds + 0.5));
#endif
}

/* Late arrival: stay away from the collective for `sec` seconds. */
static void wait_for(double sec) {
    if (sec <= 0) return;
#ifdef AC_SMPI
    smpi_execute(sec);
#else
    double end = PMPI_Wtime() + sec;
    if (sec > 0.002) {
        /* Sleep most of it (oversubscribed ranks need the core), spin the rest. */
        struct timespec ts;
        double s = sec - 0.001;
        ts.tv_sec = (time_t)s;
        ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
        nanosleep(&ts, NULL);
    }
    while (PMPI_Wtime() < end) {
    }
#endif
}

/* Uniform in [0, 1): a hash of (rank, iteration), the same in every run. */
static double unit_random(int rank, long iter) {
    uint64_t x = ((uint64_t)(unsigned)rank << 32) ^ (uint64_t)iter ^ 0x9E3779B97F4A7C15ull;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return (double)(x >> 11) / 9007199254740992.0;
}

/* One-way time of a msg-byte message between ranks 0 and 1 (minimum over a few round trips),
 * known to every rank. */
static double message_time(acb_case_t *k) {
    double t = 0;
    if (k->size >= 2 && (k->rank == 0 || k->rank == 1)) {
        size_t n = k->msg ? k->msg : 1;
        char *b = calloc(n, 1);
        int peer = 1 - k->rank, cnt = (int)n;
        double best = 1e30;
        for (int i = 0; i < 6 && b; i++) {
            double t0 = PMPI_Wtime();
            if (k->rank == 0) {
                PMPI_Send(b, cnt, MPI_CHAR, peer, TAG_PING, k->comm);
                PMPI_Recv(b, cnt, MPI_CHAR, peer, TAG_PING, k->comm, MPI_STATUS_IGNORE);
            } else {
                PMPI_Recv(b, cnt, MPI_CHAR, peer, TAG_PING, k->comm, MPI_STATUS_IGNORE);
                PMPI_Send(b, cnt, MPI_CHAR, peer, TAG_PING, k->comm);
            }
            double d = (PMPI_Wtime() - t0) / 2;
            if (i > 0 && d < best) best = d; /* the first round trip is a warmup */
        }
        t = b ? best : 0;
        free(b);
    }
    PMPI_Bcast(&t, 1, MPI_DOUBLE, 0, k->comm);
    return t;
}

/* ------------------------------------------------------------------ cases */

static void fill_bytes(char *b, size_t n, int rank, int salt) {
    uint32_t x = 2463534242u ^ (uint32_t)(rank * 2654435761u) ^ (uint32_t)salt;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        b[i] = (char)(x >> 24);
    }
}
static void fill_floats(char *b, size_t n, int rank) {
    /* Small integers: sums over up to 2^20 ranks stay exact in a float. */
    for (size_t i = 0; i < n / sizeof(float); i++) {
        float v = (float)((int)((i * 7 + (size_t)rank * 13) % 17) - 8);
        memcpy(b + i * sizeof(float), &v, sizeof v);
    }
}

void acb_case_free(acb_case_t *k) {
    free(k->sbuf), free(k->rbuf), free(k->ref), free(k->cnts), free(k->dsps);
    free(k->rcnts), free(k->rdsps);
    k->sbuf = k->rbuf = k->ref = NULL;
    k->cnts = k->dsps = k->rcnts = k->rdsps = NULL;
    if (k->own_type) PMPI_Type_free(&k->stype);
    k->own_type = 0;
}

/* ------------------------------------------------------------------ datatype descriptions */

static const char *const dtype_names[] = {"basic",   "contig", "pairs", "vector",
                                          "resized", "struct", "mixed"};

int acb_dtype_parse(const char *s) {
    for (int i = 0; s && i <= ACB_DT_MIXED; i++)
        if (!strcmp(s, dtype_names[i])) return i;
    return -1;
}
const char *acb_dtype_name(int kind) {
    return kind >= 0 && kind <= ACB_DT_MIXED ? dtype_names[kind] : "?";
}
int acb_dtype_applies(int c) {
    return c == AUTOCOLL_BCAST || c == AUTOCOLL_GATHER || c == AUTOCOLL_SCATTER ||
           c == AUTOCOLL_ALLGATHER || c == AUTOCOLL_ALLGATHERV || c == AUTOCOLL_ALLTOALL ||
           c == AUTOCOLL_ALLTOALLV;
}

/* Description d (ACB_DT_BASIC..ACB_DT_STRUCT, table in ac_bench.h) of a block of n bytes:
 * *count x *type, committed; *derived tells whether *type must be freed. Text for messages. */
static int make_desc(int d, size_t n, int *count, MPI_Datatype *type, int *derived, char *text,
                     size_t tlen) {
    int in = (int)n, err = MPI_SUCCESS;
    MPI_Datatype t = MPI_DATATYPE_NULL, tmp = MPI_DATATYPE_NULL;
    if (n == 0 || (d == ACB_DT_PAIRS && n % 2)) d = ACB_DT_BASIC;
    *derived = d != ACB_DT_BASIC;
    switch (d) {
    case ACB_DT_CONTIG:
        *count = 1;
        err = PMPI_Type_contiguous(in, MPI_CHAR, &t);
        snprintf(text, tlen, "1 x contiguous(%d)", in);
        break;
    case ACB_DT_PAIRS:
        *count = in / 2;
        err = PMPI_Type_contiguous(2, MPI_CHAR, &t);
        snprintf(text, tlen, "%d x contiguous(2)", in / 2);
        break;
    case ACB_DT_VECTOR: {
        int b = 8; /* blocks of b bytes, at least two of them when n >= 2 */
        while (b > 1 && (in % b || in / b < 2))
            b /= 2;
        *count = 1;
        err = PMPI_Type_vector(in / b, b, 2 * b, MPI_CHAR, &t);
        snprintf(text, tlen, "1 x vector(%d, %d, %d)", in / b, b, 2 * b);
        break;
    }
    case ACB_DT_RESIZED: {
        /* One byte at displacement 1 of a 3-byte extent: gaps before and after every byte. */
        int len = 1;
        MPI_Aint disp = 1;
        MPI_Datatype ch = MPI_CHAR;
        *count = in;
        err = PMPI_Type_create_struct(1, &len, &disp, &ch, &tmp);
        if (err == MPI_SUCCESS) err = PMPI_Type_create_resized(tmp, 0, 3, &t);
        snprintf(text, tlen, "%d x resized(char at 1, extent 3)", in);
        break;
    }
    case ACB_DT_STRUCT: {
        /* h bytes at 2, n - h bytes at h + 8, extent n + 12; no empty first block. */
        int h = in / 2, lens[2] = {h, in - h}, first = h == 0;
        MPI_Aint disps[2] = {2, (MPI_Aint)h + 8};
        MPI_Datatype types[2] = {MPI_CHAR, MPI_CHAR};
        *count = 1;
        err = PMPI_Type_create_struct(2 - first, lens + first, disps + first, types, &tmp);
        if (err == MPI_SUCCESS) err = PMPI_Type_create_resized(tmp, 0, (MPI_Aint)n + 12, &t);
        snprintf(text, tlen, "1 x struct(%d at 2, %d at %d; extent %d)", h, in - h, h + 8, in + 12);
        break;
    }
    default:
        *count = in;
        t = MPI_CHAR;
        snprintf(text, tlen, "%d x MPI_CHAR", in);
    }
    if (tmp != MPI_DATATYPE_NULL) PMPI_Type_free(&tmp);
    if (err == MPI_SUCCESS && *derived) err = PMPI_Type_commit(&t);
    *type = t;
    return err;
}

/* Bytes from the buffer address that n elements of t touch (true lb >= 0 here), gaps included. */
static size_t span(MPI_Datatype t, size_t n) {
    MPI_Aint lb, ext, tlb, text;
    if (n == 0) return 0;
    PMPI_Type_get_extent(t, &lb, &ext);
    PMPI_Type_get_true_extent(t, &tlb, &text);
    return (n - 1) * (size_t)ext + (size_t)tlb + (size_t)text;
}

/* n blocks of blk bytes from a byte buffer into a buffer where each block is count x t, block i
 * at i x count x extent(t) (the MPI rule): by messages to self, which follow the type map. */
static int place_blocks(const char *bytes, char *typed, size_t n, size_t blk, int count,
                        MPI_Datatype t) {
    MPI_Aint lb, ext;
    int err = PMPI_Type_get_extent(t, &lb, &ext);
    for (size_t i = 0; err == MPI_SUCCESS && i < n; i++)
        err = PMPI_Sendrecv(bytes + i * blk, (int)blk, MPI_CHAR, 0, TAG_SELF,
                            typed + i * (size_t)count * (size_t)ext, count, t, 0, TAG_SELF,
                            MPI_COMM_SELF, MPI_STATUS_IGNORE);
    return err;
}

/* floor(log2 n), 0 for n <= 1. */
static int ilog2(size_t n) {
    int l = 0;
    while (n > 1)
        n >>= 1, l++;
    return l;
}

/* The collectives with MPI-3 signatures, from one implementation: the MPI library's own
 * (PMPI_*) or autocoll's (autocoll_*, through the selector). */
typedef struct {
    int (*allgather)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
    int (*allgatherv)(const void *, int, MPI_Datatype, void *, const int[], const int[],
                      MPI_Datatype, MPI_Comm);
    int (*alltoall)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
    int (*alltoallv)(const void *, const int[], const int[], MPI_Datatype, void *, const int[],
                     const int[], MPI_Datatype, MPI_Comm);
    int (*bcast)(void *, int, MPI_Datatype, int, MPI_Comm);
    int (*reduce)(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
    int (*allreduce)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
    int (*reduce_scatter)(const void *, void *, const int[], MPI_Datatype, MPI_Op, MPI_Comm);
    int (*reduce_scatter_block)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
    int (*gather)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
    int (*scatter)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
    int (*barrier)(MPI_Comm);
} acb_colls_t;

static const acb_colls_t native_colls = {
    .allgather = PMPI_Allgather,
    .allgatherv = PMPI_Allgatherv,
    .alltoall = PMPI_Alltoall,
    .alltoallv = PMPI_Alltoallv,
    .bcast = PMPI_Bcast,
    .reduce = PMPI_Reduce,
    .allreduce = PMPI_Allreduce,
    .reduce_scatter = PMPI_Reduce_scatter,
    .reduce_scatter_block = PMPI_Reduce_scatter_block,
    .gather = PMPI_Gather,
    .scatter = PMPI_Scatter,
    .barrier = PMPI_Barrier,
};
static const acb_colls_t autocoll_colls = {
    .allgather = autocoll_allgather,
    .allgatherv = autocoll_allgatherv,
    .alltoall = autocoll_alltoall,
    .alltoallv = autocoll_alltoallv,
    .bcast = autocoll_bcast,
    .reduce = autocoll_reduce,
    .allreduce = autocoll_allreduce,
    .reduce_scatter = autocoll_reduce_scatter,
    .reduce_scatter_block = autocoll_reduce_scatter_block,
    .gather = autocoll_gather,
    .scatter = autocoll_scatter,
    .barrier = autocoll_barrier,
};

/* One call of the case by implementation f, writing its output into out. */
static int call(acb_case_t *k, const acb_colls_t *f, char *out) {
    MPI_Comm w = k->comm;
    MPI_Datatype t = k->type, st = k->stype, rt = k->rtype;
    int c = k->count, sc = k->scount, rc = k->rcount, root = k->root;
    switch (k->coll) {
    case AUTOCOLL_ALLGATHER:
        return f->allgather(k->sbuf, sc, st, out, rc, rt, w);
    case AUTOCOLL_ALLGATHERV:
        return f->allgatherv(k->sbuf, sc, st, out, k->rcnts, k->rdsps, rt, w);
    case AUTOCOLL_ALLTOALL:
        return f->alltoall(k->sbuf, sc, st, out, rc, rt, w);
    case AUTOCOLL_ALLTOALLV:
        return f->alltoallv(k->sbuf, k->cnts, k->dsps, st, out, k->rcnts, k->rdsps, rt, w);
    case AUTOCOLL_BCAST:
        return f->bcast(out, sc, st, root, w);
    case AUTOCOLL_REDUCE:
        return f->reduce(k->sbuf, out, c, t, MPI_SUM, root, w);
    case AUTOCOLL_ALLREDUCE:
        return f->allreduce(k->sbuf, out, c, t, MPI_SUM, w);
    case AUTOCOLL_REDUCE_SCATTER:
        return f->reduce_scatter(k->sbuf, out, k->cnts, t, MPI_SUM, w);
    case AUTOCOLL_REDUCE_SCATTER_BLOCK:
        return f->reduce_scatter_block(k->sbuf, out, c, t, MPI_SUM, w);
    case AUTOCOLL_GATHER:
        return f->gather(k->sbuf, sc, st, out, rc, rt, root, w);
    case AUTOCOLL_SCATTER:
        return f->scatter(k->sbuf, sc, st, out, rc, rt, root, w);
    default:
        return f->barrier(w);
    }
}

int acb_call(acb_case_t *k) {
    return call(k, &autocoll_colls, k->rbuf);
}

void acb_reset(acb_case_t *k) {
    if (!k->rbuf) return;
    memset(k->rbuf, 0xA5, k->rlen + GUARD);
    if (k->coll == AUTOCOLL_BCAST && k->rank == k->root) memcpy(k->rbuf, k->sbuf, k->slen);
}

long long acb_check(const acb_case_t *k) {
    if (!k->check_out || !k->rbuf) return -1;
    for (size_t i = 0; i < k->rlen + GUARD; i++)
        if (k->rbuf[i] != k->ref[i]) return (long long)i;
    return -1;
}

int acb_case_init(acb_case_t *k, MPI_Comm comm, int coll, size_t msg, int root) {
    return acb_case_init_dtype(k, comm, coll, msg, root, ACB_DT_BASIC);
}

int acb_case_init_dtype(acb_case_t *k, MPI_Comm comm, int coll, size_t msg, int root, int kind) {
    memset(k, 0, sizeof *k);
    k->coll = coll, k->comm = comm, k->root = root, k->msg_time = -1;
    PMPI_Comm_rank(comm, &k->rank);
    PMPI_Comm_size(comm, &k->size);
    k->esize = acb_elem_size(coll);
    k->type = acb_is_reduction(coll) ? MPI_FLOAT : MPI_CHAR;
    k->count = coll == AUTOCOLL_BARRIER ? 0 : (int)(msg / k->esize);
    k->msg = (size_t)k->count * k->esize;
    size_t p = (size_t)k->size, blk = k->msg;
    int me_root = k->rank == root, ok = 1;

    /* This rank's description of a block (ac_bench.h), for what it sends and what it receives;
     * the basic type where descriptions do not apply. */
    k->dkind = acb_dtype_applies(coll) && kind > ACB_DT_BASIC && kind <= ACB_DT_MIXED
                   ? kind
                   : ACB_DT_BASIC;
    k->stype = k->rtype = k->type;
    k->scount = k->rcount = k->count;
    if (acb_dtype_applies(coll)) {
        k->desc = k->dkind == ACB_DT_MIXED ? (k->rank + ilog2(blk)) % ACB_DT_NDESC : k->dkind;
        ok = make_desc(k->desc, blk, &k->scount, &k->stype, &k->own_type, k->dtext,
                       sizeof k->dtext) == MPI_SUCCESS;
        k->rtype = k->stype, k->rcount = k->scount;
    } else {
        snprintf(k->dtext, sizeof k->dtext, "%d x %s", k->count,
                 k->type == MPI_FLOAT ? "MPI_FLOAT" : "MPI_CHAR");
    }

    /* Blocks this rank sends and receives; a buffer of b blocks holds b x count elements of its
     * type, block i at i x count x extent (the MPI rule), gaps included in its allocation. */
    size_t ns = 0, nr = 0;
    k->check_out = 1;
    switch (coll) {
    case AUTOCOLL_ALLGATHER:
    case AUTOCOLL_ALLGATHERV:
        ns = 1, nr = p;
        break;
    case AUTOCOLL_ALLTOALL:
    case AUTOCOLL_ALLTOALLV:
        ns = p, nr = p;
        break;
    case AUTOCOLL_BCAST:
        ns = (size_t)me_root, nr = 1;
        break;
    case AUTOCOLL_REDUCE:
        ns = 1, nr = 1, k->check_out = me_root;
        break;
    case AUTOCOLL_ALLREDUCE:
        ns = 1, nr = 1;
        break;
    case AUTOCOLL_REDUCE_SCATTER:
    case AUTOCOLL_REDUCE_SCATTER_BLOCK:
        ns = p, nr = 1;
        break;
    case AUTOCOLL_GATHER:
        ns = 1, nr = me_root ? p : 0, k->check_out = me_root;
        break;
    case AUTOCOLL_SCATTER:
        ns = me_root ? p : 0, nr = 1;
        break;
    default:
        k->check_out = 0;
    }
    if (ok) {
        k->slen = span(k->stype, ns * (size_t)k->scount);
        k->rlen = span(k->rtype, nr * (size_t)k->rcount);
    }
    /* Other kinds: the same data described as MPI_CHAR, with the MPI library's result (b.ref). */
    acb_case_t b;
    int have_b = 0;
    k->ref_bad_rank = -1;
    if (k->dkind != ACB_DT_BASIC) {
        if (acb_case_init_dtype(&b, comm, coll, msg, root, ACB_DT_BASIC) == MPI_ERR_NO_MEM)
            ok = 0; /* on every rank */
        else
            have_b = 1;
    }
    if (ok && coll != AUTOCOLL_BARRIER) {
        k->sbuf = malloc(k->slen + 1);
        k->rbuf = malloc(k->rlen + GUARD);
        k->ref = malloc(k->rlen + GUARD);
        ok = k->sbuf && k->rbuf && k->ref;
        if (coll == AUTOCOLL_ALLGATHERV || coll == AUTOCOLL_ALLTOALLV ||
            coll == AUTOCOLL_REDUCE_SCATTER) {
            k->cnts = malloc(p * sizeof(int));
            k->dsps = malloc(p * sizeof(int));
            k->rcnts = malloc(p * sizeof(int));
            k->rdsps = malloc(p * sizeof(int));
            ok = ok && k->cnts && k->dsps && k->rcnts && k->rdsps;
            for (size_t i = 0; ok && i < p; i++) {
                k->cnts[i] = k->scount, k->dsps[i] = (int)i * k->scount;
                k->rcnts[i] = k->rcount, k->rdsps[i] = (int)i * k->rcount;
            }
        }
    }
    int all_ok = ok;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        if (have_b) acb_case_free(&b);
        acb_case_free(k);
        return MPI_ERR_NO_MEM;
    }
    if (coll == AUTOCOLL_BARRIER) return MPI_SUCCESS;
    if (acb_is_reduction(coll))
        fill_floats(k->sbuf, k->slen, k->rank);
    else
        fill_bytes(k->sbuf, k->slen, k->rank, (int)coll);
    int err = MPI_SUCCESS;
    if (have_b) {
        /* The send data of basic, placed through the description; the gaps keep other bytes,
         * which must never arrive anywhere. The expected output (into rbuf for now): sentinel,
         * and the MPI library's MPI_CHAR result placed through the description. */
        err = place_blocks(b.sbuf, k->sbuf, ns, blk, k->scount, k->stype);
        memset(k->rbuf, 0xA5, k->rlen + GUARD);
        if (coll == AUTOCOLL_BCAST && me_root)
            memcpy(k->rbuf, k->sbuf, k->slen);
        else if (err == MPI_SUCCESS)
            err = place_blocks(b.ref, k->rbuf, nr, blk, k->rcount, k->rtype);
    }
    memset(k->ref, 0xA5, k->rlen + GUARD);
    if (coll == AUTOCOLL_BCAST && k->rank == root) memcpy(k->ref, k->sbuf, k->slen);
    int e = call(k, &native_colls, k->ref);
    if (err == MPI_SUCCESS) err = e;
    if (have_b) {
        /* The reference is the MPI library's collective with these descriptions; it must agree
         * with the MPI library's MPI_CHAR result, else that one is used (and reported). */
        long long off = err != MPI_SUCCESS ? -1 : k->check_out ? acb_check(k) : -1;
        int mine = err != MPI_SUCCESS || off >= 0 ? k->rank : k->size, first;
        PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
        if (first < k->size) {
            PMPI_Bcast(&off, 1, MPI_LONG_LONG, first, comm);
            k->ref_bad_rank = first, k->ref_bad_offset = off;
            memcpy(k->ref, k->rbuf, k->rlen + GUARD);
        }
        acb_case_free(&b);
    }
    acb_reset(k);
    return err;
}

/* ------------------------------------------------------------------ measurement */

int acb_measure(acb_case_t *k, const acb_mech_t *m, int iters, int warmup, int validate,
                acb_result_t *r) {
    int err = MPI_SUCCESS, nerr = 0;
    long bad_iter = -1;
    long long bad_off = -1;
    double sum = 0;
    memset(r, 0, sizeof *r);
    if (iters < 1) iters = 1;
    if (m->kind == ACB_IMBALANCE && k->msg_time < 0) k->msg_time = message_time(k);

    for (int i = 0; i < warmup; i++) {
        PMPI_Barrier(k->comm);
        int e = acb_call(k);
        if (e != MPI_SUCCESS) err = e;
    }
    if (m->kind == ACB_B2B && !validate) {
        PMPI_Barrier(k->comm);
        double t0 = PMPI_Wtime();
        for (int i = 0; i < iters; i++) {
            int e = acb_call(k);
            if (e != MPI_SUCCESS) err = e;
        }
        sum = PMPI_Wtime() - t0;
    } else {
        for (long i = 0; i < iters; i++) {
            if (validate) acb_reset(k);
            switch (m->kind) {
            case ACB_BARRIER:
                PMPI_Barrier(k->comm);
                break;
            case ACB_COMPUTE:
                compute_for(m->param * 1e-6);
                break;
            case ACB_IMBALANCE:
                PMPI_Barrier(k->comm);
                wait_for(unit_random(k->rank, i) * m->param * k->msg_time);
                break;
            default:
                break;
            }
            double t0 = PMPI_Wtime();
            int e = acb_call(k);
            sum += PMPI_Wtime() - t0;
            if (e != MPI_SUCCESS) err = e;
            if (validate && bad_iter < 0) {
                long long off = acb_check(k);
                if (off >= 0) bad_iter = i, bad_off = off;
            }
        }
    }
    double mean = sum / iters, mm[2] = {mean, -mean}, red[2], tot = 0;
    PMPI_Allreduce(mm, red, 2, MPI_DOUBLE, MPI_MIN, k->comm);
    PMPI_Allreduce(&mean, &tot, 1, MPI_DOUBLE, MPI_SUM, k->comm);
    r->min = red[0], r->max = -red[1], r->avg = tot / k->size, r->iters = iters;

    int flags[2] = {err != MPI_SUCCESS, 0};
    PMPI_Allreduce(flags, &nerr, 1, MPI_INT, MPI_SUM, k->comm);
    r->errors = nerr;
    r->valid = -1;
    if (validate) {
        int mine = bad_iter >= 0 ? k->rank : k->size, first;
        PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, k->comm);
        r->valid = first == k->size;
        r->bad_rank = -1;
        if (!r->valid) {
            long long info[3] = {bad_iter, bad_off, (long long)k->rlen};
            PMPI_Bcast(info, 3, MPI_LONG_LONG, first, k->comm);
            r->bad_rank = first, r->bad_iter = (long)info[0], r->bad_offset = info[1];
            r->bad_len = info[2];
            snprintf(r->bad_desc, sizeof r->bad_desc, "%s", k->dtext);
            PMPI_Bcast(r->bad_desc, (int)sizeof r->bad_desc, MPI_CHAR, first, k->comm);
        }
    }
    return err;
}
