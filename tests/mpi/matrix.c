/*
 * Correctness matrix: every registered algorithm instance against the MPI library's own
 * collective (PMPI_*), data-driven from the registry, so a new algorithm is covered without new
 * test code.
 *
 * For each collective, instance and case (count, datatype or reduction case, root, in-place,
 * count distribution) every rank:
 *   1. builds identical inputs for a reference run (PMPI_<Coll>) and a test run (MPI_<Coll>,
 *      i.e. autocoll with the instance forced);
 *   2. compares the whole receive allocation byte for byte, gaps of the datatype and a guard
 *      area after it included (a write outside the type map is an error);
 *   3. checks that the instance really ran (autocoll_last_choice), or that the native fallback
 *      ran when a registry restriction excludes the call;
 *   4. for allreduce, checks that every rank holds bitwise-identical results.
 * Insignificant buffers are passed as NULL (reduce/gather receive buffer and scatter send buffer
 * off the root), so an algorithm that uses them as scratch is caught.
 *
 * usage: ac_matrix [--coll c1,c2] [--alg a1,a2] [--level quick|full|sim] [--defaults] [--seed N]
 *   --defaults runs only the default instance of each parameterised algorithm.
 * Prints one line per instance and closes with "N passed, N failed, N skipped" (cases).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include "autocoll.h"

enum { GUARD = 64 };
static int me, p, nnodes, level_full = 1, level_sim = 0, defaults_only = 0;
static unsigned seed = 12345;
static long n_pass, n_fail, n_skip;
static int fail_lines;

/* ------------------------------------------------------------------ random data */

static uint64_t rng_state;
static void rng_seed(unsigned a, unsigned b, unsigned c) {
    rng_state = 0x9E3779B97F4A7C15ull ^ ((uint64_t)a << 40) ^ ((uint64_t)b << 20) ^ c ^ seed;
    for (int i = 0; i < 4; i++)
        rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
}
static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

/* ------------------------------------------------------------------ datatypes */

/* Data cases (movement collectives). MIXED sends MPI_INT x 2c and receives PAIR x c. */
enum { T_BYTE, T_INT, T_DOUBLE, T_VEC, T_RESIZED, T_STRUCT, T_MIXED, NT };
static const char *tname[NT] = {"byte", "int", "double", "vector", "resized", "struct", "mixed"};
static MPI_Datatype ttype[NT], t_pair, t_upair;

/* Reduction cases. */
enum {
    R_INT_SUM,
    R_DBL_SUM,
    R_DBL_MAX,
    R_DBL_RAND_SUM,
    R_VEC_SUM,
    R_BYTE_BXOR,
    R_NONCOMM,
    R_MINLOC,
    NR
};
static const char *rname[NR] = {
    "int/sum",         "double/sum", "double/max",          "double-random/sum",
    "vector/user-sum", "byte/bxor",  "pair/noncommutative", "double_int/minloc"};
static MPI_Datatype rtype_[NR];
static MPI_Op rop[NR], op_noncomm, op_vecsum;

/* Sum of the two ints of the strided vector type (offsets 0 and 12 of each 16-byte element):
 * a user operation on a derived datatype with gaps (MPI's own operations reject such types). */
static void vecsum(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    int *x = in, *y = inout;
    for (int i = 0; i < *len; i++)
        y[4 * i] += x[4 * i], y[4 * i + 3] += x[4 * i + 3];
}

/* x -> a x + b, composed left to right: (in then inout). Associative, not commutative. */
static void affine(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    uint32_t *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        uint32_t a = y[2 * i] * x[2 * i], b = y[2 * i] * x[2 * i + 1] + y[2 * i + 1];
        y[2 * i] = a;
        y[2 * i + 1] = b;
    }
}

static void types_init(void) {
    ttype[T_BYTE] = MPI_BYTE;
    ttype[T_INT] = MPI_INT;
    ttype[T_DOUBLE] = MPI_DOUBLE;
    MPI_Type_vector(2, 1, 3, MPI_INT, &ttype[T_VEC]); /* 8 bytes of data, extent 16: gaps */
    MPI_Type_create_resized(MPI_INT, 0, 12, &ttype[T_RESIZED]);
    int bl[2] = {1, 1};
    MPI_Aint dis[2] = {4, 8};
    MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE}, st;
    MPI_Type_create_struct(2, bl, dis, ts, &st); /* true lb 4 */
    MPI_Type_create_resized(st, 0, 16, &ttype[T_STRUCT]);
    MPI_Type_free(&st);
    MPI_Type_contiguous(2, MPI_INT, &t_pair);
    MPI_Type_contiguous(2, MPI_UNSIGNED, &t_upair);
    ttype[T_MIXED] = t_pair;
    for (int i = 0; i < NT; i++)
        if (i >= T_VEC) MPI_Type_commit(&ttype[i]);
    MPI_Type_commit(&t_pair);
    MPI_Type_commit(&t_upair);
    MPI_Op_create(affine, 0, &op_noncomm);
    MPI_Op_create(vecsum, 1, &op_vecsum);
    MPI_Datatype rt[NR] = {MPI_INT,      MPI_DOUBLE, MPI_DOUBLE, MPI_DOUBLE,
                           ttype[T_VEC], MPI_BYTE,   t_upair,    MPI_DOUBLE_INT};
    MPI_Op ro[NR] = {MPI_SUM,   MPI_SUM,  MPI_MAX,    MPI_SUM,
                     op_vecsum, MPI_BXOR, op_noncomm, MPI_MINLOC};
    memcpy(rtype_, rt, sizeof rt);
    memcpy(rop, ro, sizeof ro);
}

/* Allocation able to hold count elements of t plus a guard area; true_lb >= 0 for all our
 * types, so the buffer address is the allocation itself. */
typedef struct {
    char *p;
    size_t len;
} buf_t;
static buf_t balloc(MPI_Datatype t, size_t count) {
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    buf_t b;
    b.len = (count ? (size_t)(tlb + text + (MPI_Aint)(count - 1) * ext) : 0) + GUARD;
    b.p = malloc(b.len);
    if (!b.p) {
        fprintf(stderr, "matrix: out of memory (%zu bytes)\n", b.len);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return b;
}
static buf_t bclone(buf_t a) {
    buf_t b = {malloc(a.len), a.len};
    memcpy(b.p, a.p, a.len);
    return b;
}

/* Fill with random bytes (movement) or with values of the reduction case's base type that keep
 * sums exact where the case requires it. */
static void fill(buf_t b, int rcase) {
    size_t i;
    switch (rcase) {
    case R_INT_SUM:
    case R_VEC_SUM:
        for (i = 0; i + 4 <= b.len; i += 4) {
            int v = (int)(rnd() % 2001) - 1000;
            memcpy(b.p + i, &v, 4);
        }
        break;
    case R_DBL_SUM:
    case R_DBL_MAX:
    case R_DBL_RAND_SUM:
        for (i = 0; i + 8 <= b.len; i += 8) {
            double v = rcase == R_DBL_SUM ? ((int)(rnd() % 4097) - 2048) / 8.0
                                          : ((double)rnd() / 4294967296.0 - 0.5) * 1e3;
            memcpy(b.p + i, &v, 8);
        }
        break;
    case R_MINLOC:
        for (i = 0; i + 16 <= b.len; i += 16) {
            struct {
                double v;
                int k;
            } e = {(double)(rnd() % 7), (int)(rnd() % 1000)};
            memcpy(b.p + i, &e, 12);
        }
        break;
    case R_NONCOMM:
        for (i = 0; i + 4 <= b.len; i += 4) {
            uint32_t v = rnd() | 1u;
            memcpy(b.p + i, &v, 4);
        }
        break;
    default:
        for (i = 0; i + 4 <= b.len; i += 4) {
            uint32_t v = rnd();
            memcpy(b.p + i, &v, 4);
        }
    }
    for (i = (b.len / 4) * 4; i < b.len; i++)
        b.p[i] = (char)rnd();
}
static void sentinel(buf_t b) {
    memset(b.p, 0xA5, b.len);
}

/* ------------------------------------------------------------------ expectations */

static int rooted(int c) {
    return c == AUTOCOLL_BCAST || c == AUTOCOLL_REDUCE || c == AUTOCOLL_GATHER ||
           c == AUTOCOLL_SCATTER;
}

static int applicable(unsigned r, int coll, int commutative, int inplace) {
    if ((r & AUTOCOLL_R_POF2) && (p & (p - 1))) return 0;
    if ((r & AUTOCOLL_R_EVEN_P) && p % 2) return 0;
    if ((r & AUTOCOLL_R_P2) && p != 2) return 0;
    if ((r & AUTOCOLL_R_COMMUTATIVE) && !commutative) return 0;
    if ((r & AUTOCOLL_R_NO_INPLACE) && inplace && !rooted(coll)) return 0;
    if ((r & AUTOCOLL_R_MULTINODE) && nnodes < 2) return 0;
    if (r & AUTOCOLL_R_TOPOLOGY_FILE) return 0;
    return 1;
}

typedef struct {
    int coll, count, t, rcase, root, inplace, dist;
    const char *inst;
    unsigned restr;
} case_t;

static const char *dist_name[] = {"uniform",   "random0", "broadcast", "spike",
                                  "half-full", "linear",  "geometric", "unbalanced"};
enum { D_UNIFORM, D_RANDOM, D_BCAST, D_SPIKE, D_HALF, D_LINEAR, D_GEOM, D_UNBAL, ND };

/* Count of block i (allgatherv / reduce_scatter), or of the (i -> j) block (alltoallv). Every
 * rank computes the same numbers. Distributions of the Sparbit thesis, scaled by c. */
static int vcount(int dist, int c, int i, int j) {
    switch (dist) {
    case D_RANDOM: {
        uint64_t h = (uint64_t)(i * 7919 + j * 104729 + c * 31 + 1) * 2654435761u ^ seed;
        h ^= h >> 13;
        return (h % 4 == 0) ? 0 : (int)(h % (unsigned)(2 * c + 1));
    }
    case D_BCAST:
        return i == 0 ? c * p : 0;
    case D_SPIKE:
        return i == p / 2 ? c * p / 2 + 1 : c / 8;
    case D_HALF:
        return i < (p + 1) / 2 ? 2 * c : 0;
    case D_LINEAR:
        return (int)((long)2 * c * (p - i) / p);
    case D_GEOM:
        return i < 20 ? (c * p) >> (i + 1) : 0;
    case D_UNBAL: /* alltoallv: rank 0 sends a lot, the others send only to rank 0 */
        return i == 0 ? 4 * c : (j == 0 ? c : 0);
    default:
        return c;
    }
}

/* ------------------------------------------------------------------ one case */

static char why[600];
#define FAIL(...) (snprintf(why, sizeof why, __VA_ARGS__), 1)

static int compare(buf_t ref, buf_t got, const char *what) {
    if (ref.len != got.len) return FAIL("%s: sizes differ", what);
    for (size_t i = 0; i < ref.len; i++)
        if (ref.p[i] != got.p[i])
            return FAIL("%s differs at byte %zu of %zu%s", what, i, ref.len,
                        i >= ref.len - GUARD ? " (guard area: write past the data)" : "");
    return 0;
}

/* Packed bytes of (buf, count, t): compared across ranks for allreduce. */
static uint64_t hash_data(const void *buf, int count, MPI_Datatype t) {
    int sz = 0, pos = 0;
    PMPI_Pack_size(count, t, MPI_COMM_WORLD, &sz);
    char *tmp = malloc((size_t)sz + 1);
    PMPI_Pack(buf, count, t, tmp, sz, &pos, MPI_COMM_WORLD);
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < pos; i++)
        h = (h ^ (unsigned char)tmp[i]) * 1099511628211ull;
    free(tmp);
    return h;
}

/* Relative comparison for sums of random doubles (association order may differ from the MPI
 * library's); the bytes must still agree across ranks (checked separately). */
static int compare_doubles(buf_t ref, buf_t got, size_t n) {
    for (size_t i = 0; i < n; i++) {
        double a, b;
        memcpy(&a, ref.p + 8 * i, 8);
        memcpy(&b, got.p + 8 * i, 8);
        if (fabs(a - b) > 1e-9 * (fabs(a) + 1) * p) return FAIL("double %zu: %g vs %g", i, a, b);
    }
    return compare((buf_t){ref.p + 8 * n, ref.len - 8 * n}, (buf_t){got.p + 8 * n, got.len - 8 * n},
                   "bytes after the vector");
}

/* Watchdog (real MPI only): a case that hangs names itself and ends the process. */
static char current[512];
static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "HANG (no progress for 120 s): ";
    if (write(2, msg, sizeof msg - 1) < 0 || write(2, current, strlen(current)) < 0) _exit(3);
    _exit(3);
}

static int run_case(const case_t *k) {
    if (!level_sim) {
        snprintf(current, sizeof current,
                 "%s %s p=%d rank=%d count=%d type=%s root=%d inplace=%d dist=%s\n",
                 autocoll_coll_name(k->coll), k->inst, p, me, k->count,
                 k->rcase >= 0 ? rname[k->rcase] : tname[k->t], k->root, k->inplace,
                 dist_name[k->dist]);
        alarm(120);
    }
    int c = k->count, bad = 0, root = k->root;
    MPI_Comm w = MPI_COMM_WORLD;
    buf_t s = {0}, r1 = {0}, r2 = {0};
    int *cnt = NULL, *dis = NULL, *scnt = NULL, *sdis = NULL;
    rng_seed((unsigned)me, (unsigned)k->coll, (unsigned)(c * 131 + k->t * 7 + k->rcase));

    /* Movement datatypes: MIXED sends ints and receives pairs. */
    MPI_Datatype rt = ttype[k->t], st = k->t == T_MIXED ? MPI_INT : rt;
    int sm = k->t == T_MIXED ? 2 : 1; /* send count multiplier */

    switch (k->coll) {
    case AUTOCOLL_ALLGATHER:
        s = balloc(st, (size_t)c * sm), fill(s, -1);
        r1 = balloc(rt, (size_t)c * p);
        if (k->inplace)
            fill(r1, -1);
        else
            sentinel(r1);
        r2 = bclone(r1);
        /* In place, my block is taken from my place in the receive buffer. */
        PMPI_Allgather(k->inplace ? MPI_IN_PLACE : s.p, c * sm, st, r1.p, c, rt, w);
        MPI_Allgather(k->inplace ? MPI_IN_PLACE : s.p, c * sm, st, r2.p, c, rt, w);
        bad = compare(r1, r2, "receive buffer");
        break;
    case AUTOCOLL_ALLGATHERV: {
        cnt = malloc(p * sizeof(int)), dis = malloc(p * sizeof(int));
        int total = 0;
        for (int i = 0; i < p; i++)
            cnt[i] = vcount(k->dist, c, i, 0), total += cnt[i] + 1;
        /* Blocks in reverse rank order with a one-element hole before each. */
        for (int i = p - 1, off = 0; i >= 0; i--)
            off += 1, dis[i] = off, off += cnt[i];
        s = balloc(st, (size_t)cnt[me] * sm), fill(s, -1);
        r1 = balloc(rt, (size_t)total + 1);
        if (k->inplace)
            fill(r1, -1);
        else
            sentinel(r1);
        r2 = bclone(r1);
        PMPI_Allgatherv(k->inplace ? MPI_IN_PLACE : s.p, cnt[me] * sm, st, r1.p, cnt, dis, rt, w);
        MPI_Allgatherv(k->inplace ? MPI_IN_PLACE : s.p, cnt[me] * sm, st, r2.p, cnt, dis, rt, w);
        bad = compare(r1, r2, "receive buffer");
        break;
    }
    case AUTOCOLL_ALLTOALL:
        s = balloc(st, (size_t)c * sm * p), fill(s, -1);
        r1 = balloc(rt, (size_t)c * p);
        if (k->inplace)
            fill(r1, -1);
        else
            sentinel(r1);
        r2 = bclone(r1);
        if (k->inplace) {
            PMPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r1.p, c, rt, w);
            MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r2.p, c, rt, w);
        } else {
            PMPI_Alltoall(s.p, c * sm, st, r1.p, c, rt, w);
            MPI_Alltoall(s.p, c * sm, st, r2.p, c, rt, w);
        }
        bad = compare(r1, r2, "receive buffer");
        break;
    case AUTOCOLL_ALLTOALLV: {
        cnt = malloc(p * sizeof(int)), dis = malloc(p * sizeof(int));
        scnt = malloc(p * sizeof(int)), sdis = malloc(p * sizeof(int));
        /* In place needs a symmetric count matrix: use the count of the unordered pair. */
        int stot = 0, rtot = 0;
        for (int j = 0; j < p; j++) {
            int a = k->inplace ? vcount(k->dist, c, me < j ? me : j, me < j ? j : me)
                               : vcount(k->dist, c, me, j);
            int b = k->inplace ? a : vcount(k->dist, c, j, me);
            scnt[j] = a * sm, cnt[j] = b;
        }
        for (int j = p - 1; j >= 0; j--)
            sdis[j] = stot + 1, stot += scnt[j] + 1;
        for (int j = 0; j < p; j++)
            dis[j] = rtot + 2, rtot += cnt[j] + 2;
        s = balloc(st, (size_t)stot + 1), fill(s, -1);
        r1 = balloc(rt, (size_t)rtot + 2);
        if (k->inplace)
            fill(r1, -1);
        else
            sentinel(r1);
        r2 = bclone(r1);
        if (k->inplace) {
            PMPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r1.p, cnt, dis, rt, w);
            MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r2.p, cnt, dis, rt, w);
        } else {
            PMPI_Alltoallv(s.p, scnt, sdis, st, r1.p, cnt, dis, rt, w);
            MPI_Alltoallv(s.p, scnt, sdis, st, r2.p, cnt, dis, rt, w);
        }
        bad = compare(r1, r2, "receive buffer");
        break;
    }
    case AUTOCOLL_BCAST: {
        /* Same type map on every rank (rank-dependent maps of one signature are not covered). */
        MPI_Datatype bt = rt;
        int bc = c;
        r1 = balloc(bt, (size_t)bc);
        if (me == root)
            fill(r1, -1);
        else
            sentinel(r1);
        r2 = bclone(r1);
        PMPI_Bcast(r1.p, bc, bt, root, w);
        MPI_Bcast(r2.p, bc, bt, root, w);
        bad = compare(r1, r2, "buffer");
        break;
    }
    case AUTOCOLL_GATHER:
        s = balloc(st, (size_t)c * sm), fill(s, -1);
        if (me == root) {
            r1 = balloc(rt, (size_t)c * p);
            if (k->inplace)
                fill(r1, -1);
            else
                sentinel(r1);
            r2 = bclone(r1);
        }
        {
            const void *sp = (k->inplace && me == root) ? MPI_IN_PLACE : s.p;
            PMPI_Gather(sp, c * sm, st, r1.p, c, rt, root, w);
            MPI_Gather(sp, c * sm, st, r2.p, c, rt, root, w);
        }
        if (me == root) bad = compare(r1, r2, "receive buffer");
        break;
    case AUTOCOLL_SCATTER:
        if (me == root) s = balloc(st, (size_t)c * sm * p), fill(s, -1);
        r1 = balloc(rt, (size_t)c), sentinel(r1);
        r2 = bclone(r1);
        {
            int ip = k->inplace && me == root;
            PMPI_Scatter(s.p, c * sm, st, ip ? MPI_IN_PLACE : r1.p, c, rt, root, w);
            MPI_Scatter(s.p, c * sm, st, ip ? MPI_IN_PLACE : r2.p, c, rt, root, w);
        }
        bad = compare(r1, r2, "receive buffer");
        break;
    case AUTOCOLL_REDUCE:
    case AUTOCOLL_ALLREDUCE:
    case AUTOCOLL_REDUCE_SCATTER_BLOCK:
    case AUTOCOLL_REDUCE_SCATTER: {
        MPI_Datatype t = rtype_[k->rcase];
        MPI_Op op = rop[k->rcase];
        int n = c, mine = c; /* elements of the input vector / of my result */
        if (k->coll == AUTOCOLL_REDUCE_SCATTER_BLOCK) n = c * p;
        if (k->coll == AUTOCOLL_REDUCE_SCATTER) {
            cnt = malloc(p * sizeof(int));
            n = 0;
            for (int i = 0; i < p; i++)
                cnt[i] = vcount(k->dist, c, i, 0), n += cnt[i];
            mine = cnt[me];
        }
        int is_root = k->coll != AUTOCOLL_REDUCE || me == root;
        int ip = k->inplace && is_root;
        s = balloc(t, (size_t)n), fill(s, k->rcase);
        if (is_root) {
            /* In place the input vector lives in the receive buffer (full length). */
            r1 = balloc(t, (size_t)(ip ? n : mine));
            if (ip)
                memcpy(r1.p, s.p, s.len < r1.len ? s.len : r1.len);
            else
                sentinel(r1);
            r2 = bclone(r1);
        }
        const void *sp = ip ? MPI_IN_PLACE : s.p;
        if (k->coll == AUTOCOLL_REDUCE) {
            PMPI_Reduce(sp, r1.p, n, t, op, root, w);
            MPI_Reduce(sp, r2.p, n, t, op, root, w);
        } else if (k->coll == AUTOCOLL_ALLREDUCE) {
            PMPI_Allreduce(sp, r1.p, n, t, op, w);
            MPI_Allreduce(sp, r2.p, n, t, op, w);
        } else if (k->coll == AUTOCOLL_REDUCE_SCATTER_BLOCK) {
            PMPI_Reduce_scatter_block(sp, r1.p, c, t, op, w);
            MPI_Reduce_scatter_block(sp, r2.p, c, t, op, w);
        } else {
            PMPI_Reduce_scatter(sp, r1.p, cnt, t, op, w);
            MPI_Reduce_scatter(sp, r2.p, cnt, t, op, w);
        }
        if (is_root) {
            if (ip &&
                (k->coll == AUTOCOLL_REDUCE_SCATTER || k->coll == AUTOCOLL_REDUCE_SCATTER_BLOCK)) {
                /* In place, only the first `mine` elements of the buffer are defined. */
                MPI_Aint lb, ext, tlb, text;
                MPI_Type_get_extent(t, &lb, &ext);
                MPI_Type_get_true_extent(t, &tlb, &text);
                r1.len = r2.len = mine ? (size_t)(tlb + text + (MPI_Aint)(mine - 1) * ext) : 0;
            }
            if (k->rcase == R_DBL_RAND_SUM && r1.len >= 8 * (size_t)mine)
                bad = compare_doubles(r1, r2, (size_t)mine);
            else
                bad = compare(r1, r2, "result");
        }
        if (k->coll == AUTOCOLL_ALLREDUCE) {
            uint64_t h = hash_data(r2.p, n, t), lo, hi;
            PMPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, w);
            PMPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, w);
            if (lo != hi && !bad) bad = FAIL("ranks hold different result bytes");
        }
        break;
    }
    case AUTOCOLL_BARRIER: {
        /* One rank arrives late; nobody may leave before it has entered. */
        int late = root;
        struct timespec ts;
        double enter = 0, leave, last_enter, first_leave;
        if (me == late) {
            struct timespec d = {0, 20 * 1000 * 1000};
            if (!level_sim) nanosleep(&d, NULL);
        }
        clock_gettime(CLOCK_REALTIME, &ts);
        enter = ts.tv_sec + 1e-9 * ts.tv_nsec;
        MPI_Barrier(w);
        clock_gettime(CLOCK_REALTIME, &ts);
        leave = ts.tv_sec + 1e-9 * ts.tv_nsec;
        PMPI_Allreduce(&enter, &last_enter, 1, MPI_DOUBLE, MPI_MAX, w);
        PMPI_Allreduce(&leave, &first_leave, 1, MPI_DOUBLE, MPI_MIN, w);
        if (!level_sim && first_leave < last_enter)
            bad = FAIL("a rank left the barrier %.3f ms before the last one entered",
                       1e3 * (last_enter - first_leave));
        break;
    }
    }

    /* The instance must have run, or the native fallback when a restriction excludes it. */
    int commutative = k->rcase < 0 || rop[k->rcase] != op_noncomm;
    int app = applicable(k->restr, k->coll, commutative, k->inplace);
    char last[256];
    autocoll_last_choice(MPI_COMM_WORLD, k->coll, last, sizeof last);
    const char *want = app ? k->inst : "native";
    if (!bad && strcmp(last, want) != 0) bad = FAIL("expected %s to run, but %s did", want, last);

    free(s.p), free(r1.p), free(r2.p), free(cnt), free(dis), free(scnt), free(sdis);
    int any;
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad && fail_lines++ < 20) {
        fprintf(stderr, "FAIL %s %s p=%d rank=%d count=%d type=%s root=%d inplace=%d dist=%s: %s\n",
                autocoll_coll_name(k->coll), k->inst, p, me, c,
                k->rcase >= 0 ? rname[k->rcase] : tname[k->t], root, k->inplace, dist_name[k->dist],
                why);
    }
    if (any)
        n_fail++;
    else if (!app)
        n_skip++;
    else
        n_pass++;
    return any;
}

/* ------------------------------------------------------------------ case generation */

static int is_reduction(int c) {
    return c == AUTOCOLL_REDUCE || c == AUTOCOLL_ALLREDUCE || c == AUTOCOLL_REDUCE_SCATTER ||
           c == AUTOCOLL_REDUCE_SCATTER_BLOCK;
}

/* Runs every case of one instance; returns the number of failing cases. */
static int run_instance(int coll, const char *inst, unsigned restr) {
    int counts_full[] = {0, 1, p - 1, p, p + 1, 1000, 65537};
    int counts_quick[] = {0, 1, p + 1, 1000};
    int counts_sim[] = {p + 1};
    int *cand = level_sim ? counts_sim : level_full ? counts_full : counts_quick;
    int ncand = level_sim ? 1 : level_full ? 7 : 4, counts[8], ncounts = 0;
    for (int i = 0; i < ncand; i++) { /* distinct, in order */
        int seen = cand[i] < 0;
        for (int j = 0; j < ncounts; j++)
            seen |= counts[j] == cand[i];
        if (!seen) counts[ncounts++] = cand[i];
    }
    int roots[3] = {0, p - 1, p / 2}, nroots = rooted(coll) || coll == AUTOCOLL_BARRIER ? 3 : 1;
    int fails = 0;
    case_t k = {.coll = coll, .inst = inst, .restr = restr, .rcase = -1};

    if (coll == AUTOCOLL_BARRIER) {
        for (int r = level_sim ? nroots - 1 : 0; r < nroots; r++)
            k.root = roots[r], fails += run_case(&k);
        return fails;
    }
    int ntypes = is_reduction(coll) ? NR : NT;
    for (int ci = 0; ci < ncounts; ci++) {
        int c = counts[ci];
        for (int ti = 0; ti < ntypes; ti++) {
            /* At scale (SMPI): one case per instance, a datatype with gaps for data movement,
             * exact integer sums for reductions, a root in the middle. */
            if (level_sim && ti != (is_reduction(coll) ? R_INT_SUM : T_VEC)) continue;
            /* Large counts exercise size paths (segments, rendezvous): one datatype is
             * enough, the non-commutative one for reductions. */
            if (c > 1000 && ti != (is_reduction(coll) ? R_NONCOMM : T_INT)) continue;
            if (is_reduction(coll))
                k.rcase = ti, k.t = 0;
            else
                k.t = ti;
            int ndist = 1, dists[ND] = {D_UNIFORM};
            if (coll == AUTOCOLL_ALLGATHERV || coll == AUTOCOLL_REDUCE_SCATTER ||
                coll == AUTOCOLL_ALLTOALLV) {
                if (level_sim) ndist = 0;
                dists[ndist++] = D_RANDOM;
                if (coll == AUTOCOLL_ALLGATHERV && c > 1 && c <= 1000 && level_full &&
                    (ti == T_INT || ti == T_VEC))
                    for (int d = D_BCAST; d <= D_GEOM; d++)
                        dists[ndist++] = d;
                if (coll == AUTOCOLL_ALLTOALLV && c > 1 && c <= 1000) dists[ndist++] = D_UNBAL;
            }
            for (int di = 0; di < ndist; di++)
                for (int ip = 0; ip < (level_sim ? 1 : 2); ip++) {
                    if (ip && (k.t == T_MIXED || coll == AUTOCOLL_BCAST)) continue;
                    if (coll == AUTOCOLL_BCAST && k.t == T_MIXED) continue;
                    for (int r = level_sim ? nroots - 1 : 0; r < nroots; r++) {
                        if (r > 0 && !level_sim &&
                            (roots[r] == roots[0] || roots[r] == roots[r - 1]))
                            continue;
                        k.count = c, k.dist = dists[di], k.inplace = ip, k.root = roots[r];
                        fails += run_case(&k);
                    }
                }
        }
    }
    return fails;
}

static int in_list(const char *list, const char *name) {
    if (!list) return 1;
    size_t n = strlen(name);
    for (const char *q = list; q && *q;) {
        const char *e = strchr(q, ',');
        size_t len = e ? (size_t)(e - q) : strlen(q);
        if (len == n && strncmp(q, name, n) == 0) return 1;
        q = e ? e + 1 : NULL;
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *colls = NULL, *algs = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--coll") && i + 1 < argc)
            colls = argv[++i];
        else if (!strcmp(argv[i], "--alg") && i + 1 < argc)
            algs = argv[++i];
        else if (!strcmp(argv[i], "--defaults"))
            defaults_only = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--level") && i + 1 < argc) {
            const char *l = argv[++i];
            level_full = !strcmp(l, "full");
            level_sim = !strcmp(l, "sim");
        } else {
            if (me == 0)
                fprintf(stderr, "usage: ac_matrix [--coll c,..] [--alg a,..] "
                                "[--level quick|full|sim] [--defaults] [--seed N]\n");
            MPI_Finalize();
            return 2;
        }
    }
    types_init();
    if (!level_sim) signal(SIGALRM, on_alarm);
    {
        /* Node count as the library sees it (AUTOCOLL_NODE_LAYOUT emulates nodes). */
        const char *lay = getenv("AUTOCOLL_NODE_LAYOUT");
        int k = lay && strchr(lay, ':') ? atoi(strchr(lay, ':') + 1) : 0;
        if (lay && k > 0 && !strncmp(lay, "block:", 6)) {
            nnodes = (p + k - 1) / k;
        } else if (lay && k > 0 && !strncmp(lay, "cyclic:", 7)) {
            nnodes = k < p ? k : p;
        } else {
            MPI_Comm node;
            int nr, leaders;
            PMPI_Barrier(MPI_COMM_WORLD);
            MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
            MPI_Comm_rank(node, &nr);
            int lead = nr == 0;
            PMPI_Allreduce(&lead, &leaders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            nnodes = leaders;
            MPI_Comm_free(&node);
        }
        if (me == 0 && nnodes > 1) printf("%d nodes (%s)\n", nnodes, lay ? lay : "auto");
    }
    int total_fail_inst = 0, ninst = 0;
    for (int c = 0; c < AUTOCOLL_NCOLL; c++) {
        if (!in_list(colls, autocoll_coll_name(c))) continue;
        for (int a = 0; a < autocoll_alg_count(c); a++) {
            autocoll_alg_info_t info;
            autocoll_alg_info(c, a, &info);
            if ((info.restrictions & AUTOCOLL_R_NATIVE) || !in_list(algs, info.name)) continue;
            int ni = autocoll_instance_count(c, a);
            if (defaults_only && ni > 1)
                ni = 1; /* the first instance is the one with every default value */
            if (ni == 0 && me == 0)
                printf("FAIL %s.%s: no instance (malformed parameter specification)\n", info.coll,
                       info.name),
                    n_fail++;
            for (int i = 0; i < ni; i++) {
                char name[256];
                autocoll_instance_name(c, a, i, name, sizeof name);
                if (autocoll_force(c, name) != MPI_SUCCESS) {
                    if (me == 0) printf("FAIL %s %s: cannot be forced\n", info.coll, name);
                    n_fail++;
                    continue;
                }
                long before_pass = n_pass, before_skip = n_skip;
                double t0 = MPI_Wtime();
                int f = run_instance(c, name, info.restrictions);
                double dt = MPI_Wtime() - t0;
                autocoll_force(c, NULL);
                ninst++;
                total_fail_inst += f > 0;
                if (me == 0)
                    printf("%s %s %s: %ld cases, %ld skipped (restriction), %d failed (%.2f s)\n",
                           f ? "FAIL" : "ok  ", info.coll, name,
                           n_pass - before_pass + n_skip - before_skip + f, n_skip - before_skip, f,
                           dt);
                fflush(stdout);
            }
        }
    }
    if (me == 0) {
        printf("p=%d: %d instances, %d failing\n", p, ninst, total_fail_inst);
        printf("%ld passed, %ld failed, %ld skipped\n", n_pass, n_fail, n_skip);
    }
    int rc = n_fail > 0;
    MPI_Finalize();
    return rc;
}
