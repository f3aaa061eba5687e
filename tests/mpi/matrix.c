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
 * Signature variants (bcast, gather, scatter, allgather(v), alltoall(v)): MPI requires only the
 * type signatures to match, so every rank describes the same blocks with its own (count,
 * datatype): n x int against 1 x contig(n), n/2 x contig(2), vectors, structs and resized
 * types with gaps, an hindexed_block of a subarray, (int, double) structs of different
 * layouts, and random datatype trees (a different one per rank, seeded by --seed). The
 * reference is PMPI_<Coll> called with the same per-rank descriptions (SMPI builds: the packed
 * bytes, see sig_packed_reference); a failure or an MPI error lists every rank's descriptions.
 * They run after the data cases of each instance (5 per instance at quick, 21 at full, 1 at
 * sim).
 *
 * usage: ac_matrix [--coll c1,c2] [--alg a1,a2] [--level quick|full|sim] [--defaults] [--seed N]
 *                  [--sig on|off|only]
 *   --defaults runs only the default instance of each parameterised algorithm.
 *   --sig off skips the signature variants, --sig only runs nothing else (default: on).
 * Prints one line per instance and closes with "N passed, N failed, N skipped" (cases).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
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
static enum { SIG_OFF, SIG_ON, SIG_ONLY } sig_mode = SIG_ON;
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
    if (r & AUTOCOLL_R_GRID) { /* clusters come from the library's settings */
        autocoll_situation_t s = {.p = p, .nodes = nnodes};
        if (autocoll_restriction_reason(AUTOCOLL_R_GRID, &s)) return 0;
    }
    return 1;
}

typedef struct {
    int coll, count, t, rcase, root, inplace, dist;
    int fam, shift; /* signature-variant case: family (-1: none) and description shift */
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

/* ------------------------------------------------------------------ signature variants */

/*
 * MPI lets every rank of bcast, gather, scatter, allgather(v) and alltoall(v) describe the same
 * data with its own (count, datatype), as long as the type signatures match. In a
 * signature-variant case every block has a signature of n units of one family (an int, or an
 * (int, double) pair) and each rank chooses its own description of its send and its receive
 * blocks among the family's kinds. A kind either holds `unit` signature units per element
 * (count = n / unit) or describes a whole block with one element (unit 0).
 */
enum { SF_INT, SF_PAIR, SF_TREE, NSF };
static const char *sf_name[NSF] = {"int", "int+double", "tree"};
/* Blocks of the v collectives hold multiples of this many units (every unit kind divides it). */
static const int sf_vunit[NSF] = {6, 2, 6};

enum {
    K_INT, /* SF_INT */
    K_CONTIG,
    K_HALF,
    K_VECTOR,
    K_STRUCT,
    K_RESIZED,
    K_HSUB,
    K_P_NAT, /* SF_PAIR */
    K_P_PACKED,
    K_P_PAD,
    K_P_TWO,
    K_P_BLOCK,
    K_T_INT, /* SF_TREE */
    K_T_BLOCK,
    K_T_UNIT,
    NK
};
/* smpi: SMPI's datatype engine handles the kind. It gets resized types (true extent, data
 * written into the gaps), subarrays and most nested types (hindexed with empty blocks, structs
 * out of memory order, ...) wrong, so SMPI builds use the other kinds only. */
static const struct {
    int fam, unit, smpi;
} kinds[NK] = {{SF_INT, 1, 1},  {SF_INT, 0, 1},  {SF_INT, 2, 1},  {SF_INT, 3, 1},  {SF_INT, 2, 0},
               {SF_INT, 1, 0},  {SF_INT, 0, 0},  {SF_PAIR, 1, 1}, {SF_PAIR, 1, 1}, {SF_PAIR, 1, 0},
               {SF_PAIR, 2, 0}, {SF_PAIR, 0, 1}, {SF_TREE, 1, 1}, {SF_TREE, 0, 0}, {SF_TREE, 6, 0}};
#ifdef AC_SMPI
#define SMPI_BUILD 1
#else
#define SMPI_BUILD 0
#endif
/* Built for MPICH, whose own collectives are then the reference: three of its bugs shape the
 * reference calls (mpich_count, ref_reduce, mpich_ring_pipelines). */
#if defined(MPICH_VERSION) && !SMPI_BUILD
#define MPICH_REF 1
#else
#define MPICH_REF 0
#endif

/* One rank's description of the blocks of one buffer. */
typedef struct {
    MPI_Datatype t;
    int unit; /* signature units per element; 0: one element is a whole block */
    /* Whole-block type built for one unit: an empty block is 0 elements of it. (Never 1 element
     * of an empty type: Open MPI's own collectives return at once on a zero count but not on an
     * empty type, so ranks mixing both descriptions hang the reference.) */
    int empty;
    char name[200];
} desc_t;

static int desc_count(const desc_t *d, int units) {
    return d->unit ? units / d->unit : !d->empty;
}

/* Kind of the description that rank r uses at position pos (0: send or bcast buffer,
 * 1: receive buffer) for blocks of n[0..nb-1] units: the (r + shift + pos)-th, cyclically, of
 * the family's kinds able to describe every block (and of `unit` units per element, unless
 * unit < 0). Rank r and rank r + 1 differ whenever two kinds fit. */
static int sig_kind(int fam, int r, int shift, int pos, const int *n, int nb, int unit) {
    int cand[NK], m = 0;
    for (int kd = 0; kd < NK; kd++) {
        int ok = kinds[kd].fam == fam && (unit < 0 || kinds[kd].unit == unit) &&
                 (kinds[kd].smpi || !SMPI_BUILD);
        for (int i = 0; i < nb && ok; i++)
            ok = kinds[kd].unit ? n[i] % kinds[kd].unit == 0 : n[i] == n[0];
        if (ok) cand[m++] = kd;
    }
    return cand[(r + shift + pos) % m]; /* m >= 1: see sig_setup */
}

/* Random datatype trees, in the spirit of MPICH's DTPools: constructors nested `depth` levels
 * deep over MPI_INT whose signature is exactly k ints. Every node keeps 0 <= lb <= true lb and
 * true ub <= ub, so that the elements of a count never overlap and the buffer starts at its
 * allocation. */
typedef struct {
    uint64_t s;
} tgen_t;
static uint32_t tg_rnd(tgen_t *g, uint32_t n) {
    g->s = g->s * 6364136223846793005ull + 1442695040888963407ull;
    return n ? (uint32_t)(g->s >> 33) % n : 0;
}
/* A random divisor d of k with d <= limit (1 when k has none above 1). */
static int tg_divisor(tgen_t *g, int k, int limit) {
    int div[32], nd = 0;
    for (int d = 2; d <= k && d <= limit && nd < 32; d++)
        if (k % d == 0) div[nd++] = d;
    return nd ? div[tg_rnd(g, (uint32_t)nd)] : 1;
}
/* snprintf whose truncation is intended: type names are for messages only. */
static int name_f(char *buf, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return n;
}
static MPI_Aint ub_of(MPI_Datatype t) {
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    return lb + ext;
}
static void free_derived(MPI_Datatype *t) {
    if (*t != MPI_INT) MPI_Type_free(t);
}

enum {
    TG_LEAF,
    TG_CONTIG,
    TG_VECTOR,
    TG_HVECTOR,
    TG_INDEXED,
    TG_HINDEXED,
    TG_BLOCK,
    TG_STRUCT,
    TG_RESIZED,
    TG_SUBARRAY,
    TG_N
};

static MPI_Datatype tg_make(tgen_t *g, int k, int depth, char *nm, size_t len) {
    MPI_Datatype t, c[3];
    char cn[3][160];
    int op = depth <= 0 ? TG_LEAF : (int)tg_rnd(g, TG_N);
    if (op == TG_STRUCT && k < 2) op = TG_RESIZED;
    switch (op) {
    case TG_CONTIG: {
        int a = tg_divisor(g, k, 16);
        c[0] = tg_make(g, k / a, depth - 1, cn[0], sizeof cn[0]);
        MPI_Type_contiguous(a, c[0], &t);
        name_f(nm, len, "contig(%d,%s)", a, cn[0]);
        break;
    }
    case TG_VECTOR:
    case TG_HVECTOR: {
        int cnt = tg_divisor(g, k, 64), bl = tg_divisor(g, k / cnt, 8), gap = (int)tg_rnd(g, 3);
        c[0] = tg_make(g, k / cnt / bl, depth - 1, cn[0], sizeof cn[0]);
        MPI_Aint lb, ext;
        MPI_Type_get_extent(c[0], &lb, &ext);
        if (op == TG_VECTOR) {
            MPI_Type_vector(cnt, bl, bl + gap, c[0], &t);
            name_f(nm, len, "vector(%d,%d,%d,%s)", cnt, bl, bl + gap, cn[0]);
        } else {
            MPI_Aint stride = bl * ext + 4 * gap;
            MPI_Type_create_hvector(cnt, bl, stride, c[0], &t);
            name_f(nm, len, "hvector(%d,%d,%ldB,%s)", cnt, bl, (long)stride, cn[0]);
        }
        break;
    }
    case TG_INDEXED:
    case TG_HINDEXED: {
        /* nb blocks (some possibly empty) of e elements in all, increasing displacements. */
        int m = tg_divisor(g, k, 4), e = k / m, nb = 1 + (int)tg_rnd(g, 4), bl[4];
        int di[4], left = e;
        MPI_Aint dh[4];
        c[0] = tg_make(g, m, depth - 1, cn[0], sizeof cn[0]);
        MPI_Aint ext = ub_of(c[0]), at = 0;
        for (int i = 0; i < nb; i++) {
            bl[i] = i == nb - 1 ? left : (int)tg_rnd(g, (uint32_t)left + 1);
            left -= bl[i];
            di[i] = (int)at + (int)tg_rnd(g, 3);
            at = di[i] + bl[i];
            dh[i] = di[i] * ext + 4 * (MPI_Aint)tg_rnd(g, 2);
        }
        for (int i = 1; i < nb; i++) /* byte displacements still increasing */
            if (dh[i] < dh[i - 1] + bl[i - 1] * ext) dh[i] = dh[i - 1] + bl[i - 1] * ext;
        int o = 0;
        if (op == TG_INDEXED) {
            MPI_Type_indexed(nb, bl, di, c[0], &t);
            o = name_f(nm, len, "indexed(%d,{", nb);
            for (int i = 0; i < nb && o < (int)len; i++)
                o += snprintf(nm + o, len - o, "%s%d@%d", i ? "," : "", bl[i], di[i]);
        } else {
            MPI_Type_create_hindexed(nb, bl, dh, c[0], &t);
            o = name_f(nm, len, "hindexed(%d,{", nb);
            for (int i = 0; i < nb && o < (int)len; i++)
                o += snprintf(nm + o, len - o, "%s%d@%ldB", i ? "," : "", bl[i], (long)dh[i]);
        }
        if (o < (int)len) snprintf(nm + o, len - o, "},%s)", cn[0]);
        break;
    }
    case TG_BLOCK: {
        int nb = tg_divisor(g, k, 4), bl = tg_divisor(g, k / nb, 4), di[4], at = 0;
        c[0] = tg_make(g, k / nb / bl, depth - 1, cn[0], sizeof cn[0]);
        for (int i = 0; i < nb; i++)
            di[i] = at + (int)tg_rnd(g, 3), at = di[i] + bl;
        MPI_Type_create_indexed_block(nb, bl, di, c[0], &t);
        name_f(nm, len, "indexed_block(%d,%d,{%d,..,%d},%s)", nb, bl, di[0], di[nb - 1], cn[0]);
        break;
    }
    case TG_STRUCT: {
        /* 2 or 3 members in signature order, laid out in memory in a random order. */
        int nm_ = k >= 3 ? 2 + (int)tg_rnd(g, 2) : 2, part[3], bl[3] = {1, 1, 1}, order[3];
        int left = k;
        MPI_Aint dis[3], at = 0;
        for (int i = 0; i < nm_; i++) {
            part[i] = i == nm_ - 1 ? left : 1 + (int)tg_rnd(g, (uint32_t)(left - (nm_ - 1 - i)));
            left -= part[i];
            c[i] = tg_make(g, part[i], depth - 1, cn[i], sizeof cn[i]);
            order[i] = i;
        }
        for (int i = nm_ - 1; i > 0; i--) {
            int j = (int)tg_rnd(g, (uint32_t)i + 1), x = order[i];
            order[i] = order[j], order[j] = x;
        }
        for (int i = 0; i < nm_; i++) {
            dis[order[i]] = at + 4 * (MPI_Aint)tg_rnd(g, 3);
            at = dis[order[i]] + ub_of(c[order[i]]);
        }
        MPI_Type_create_struct(nm_, bl, dis, c, &t);
        int o = name_f(nm, len, "struct{");
        for (int i = 0; i < nm_ && o < (int)len; i++)
            o += snprintf(nm + o, len - o, "%s%s@%ld", i ? "," : "", cn[i], (long)dis[i]);
        if (o < (int)len) snprintf(nm + o, len - o, "}");
        for (int i = 1; i < nm_; i++)
            free_derived(&c[i]);
        break;
    }
    case TG_RESIZED: {
        c[0] = tg_make(g, k, depth - 1, cn[0], sizeof cn[0]);
        MPI_Aint ext = ub_of(c[0]) + 4 * (1 + (MPI_Aint)tg_rnd(g, 3));
        MPI_Type_create_resized(c[0], 0, ext, &t);
        name_f(nm, len, "resized(%s,0,%ld)", cn[0], (long)ext);
        break;
    }
    case TG_SUBARRAY: {
        int a = tg_divisor(g, k, 16), b = tg_divisor(g, k / a, 16), m = k / a / b;
        int sz[2] = {a + (int)tg_rnd(g, 3), b + (int)tg_rnd(g, 3)}, sub[2] = {a, b}, st[2];
        int order = tg_rnd(g, 2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        st[0] = (int)tg_rnd(g, (uint32_t)(sz[0] - a + 1));
        st[1] = (int)tg_rnd(g, (uint32_t)(sz[1] - b + 1));
        MPI_Datatype e = tg_make(g, m, depth - 1, cn[0], sizeof cn[0]);
        /* Subarray elements sit at multiples of the extent from 0: start the child at lb 0.
         * (SMPI wants the old type of a subarray committed.) */
        MPI_Type_create_resized(e, 0, ub_of(e), &c[0]);
        MPI_Type_commit(&c[0]);
        free_derived(&e);
        MPI_Type_create_subarray(2, sz, sub, st, order, c[0], &t);
        name_f(nm, len, "subarray({%d,%d},{%d,%d},{%d,%d},%s,%s)", sz[0], sz[1], a, b, st[0], st[1],
               order == MPI_ORDER_C ? "C" : "F", cn[0]);
        break;
    }
    default:
        if (k == 1 && tg_rnd(g, 2)) {
            name_f(nm, len, "int");
            return MPI_INT;
        }
        MPI_Type_contiguous(k, MPI_INT, &t);
        name_f(nm, len, "contig(%d,int)", k);
        return t;
    }
    free_derived(&c[0]);
    return t;
}

/* A committed random tree of signature k x MPI_INT (k >= 1), at most about 4 times as wide as
 * its data; name receives its description. */
static MPI_Datatype tree_type(uint64_t s, int k, char *nm, size_t len) {
    tgen_t g = {s};
    for (int attempt = 0; attempt < 8; attempt++) {
        MPI_Datatype t = tg_make(&g, k, 3, nm, len);
        MPI_Aint lb, ext, tlb, text;
        int sz;
        MPI_Type_get_extent(t, &lb, &ext);
        MPI_Type_get_true_extent(t, &tlb, &text);
        MPI_Type_size(t, &sz);
        if (t == MPI_INT) return t; /* k = 1 */
        if (sz == 4 * k && lb >= 0 && tlb >= lb && tlb + text <= lb + ext &&
            lb + ext <= 16 * (MPI_Aint)k + 256) {
            MPI_Type_commit(&t);
            return t;
        }
        MPI_Type_free(&t);
    }
    MPI_Datatype t;
    MPI_Type_contiguous(k, MPI_INT, &t);
    MPI_Type_commit(&t);
    snprintf(nm, len, "contig(%d,int)", k);
    return t;
}

/* Description of blocks of n units by a kind; s seeds the random trees. */
static void desc_make(int kind, int n, uint64_t s, desc_t *d) {
    MPI_Datatype a = MPI_DATATYPE_NULL, t = MPI_INT;
    int m = n > 0 ? n : 1;
    d->unit = kinds[kind].unit;
    d->empty = 0;
    switch (kind) {
    case K_CONTIG:
        MPI_Type_contiguous(m, MPI_INT, &t);
        snprintf(d->name, sizeof d->name, "contig(%d,int)", m);
        d->empty = n == 0;
        break;
    case K_HALF:
        MPI_Type_contiguous(2, MPI_INT, &t);
        snprintf(d->name, sizeof d->name, "contig(2,int)");
        break;
    case K_VECTOR:
        MPI_Type_vector(3, 1, 2, MPI_INT, &t);
        snprintf(d->name, sizeof d->name, "vector(3,1,2,int)");
        break;
    case K_STRUCT: {
        int bl[2] = {1, 1};
        MPI_Aint dis[2] = {4, 12};
        MPI_Datatype ts[2] = {MPI_INT, MPI_INT};
        MPI_Type_create_struct(2, bl, dis, ts, &a);
        MPI_Type_create_resized(a, 0, 20, &t);
        snprintf(d->name, sizeof d->name, "resized(struct{int@4,int@12},0,20)");
        break;
    }
    case K_RESIZED:
        MPI_Type_create_resized(MPI_INT, 0, 8, &t);
        snprintf(d->name, sizeof d->name, "resized(int,0,8)");
        break;
    case K_HSUB: {
        /* One or two copies of a rows x cols subarray (of a (rows+1) x (cols+2) int array),
         * placed by an hindexed_block with a gap before each. */
        int nb = m % 2 ? 1 : 2, q = m / nb, rows = q % 2 ? 1 : 2, cols = q / rows;
        int sz[2] = {rows + 1, cols + 2}, sub[2] = {rows, cols}, st[2] = {1, 1};
        MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &a);
        MPI_Aint dis[2] = {8, 8 + ub_of(a) + 4};
        MPI_Type_create_hindexed_block(nb, 1, dis, a, &t);
        snprintf(d->name, sizeof d->name,
                 "hindexed_block(%d,1,{8,%ld},subarray({%d,%d},{%d,%d},{1,1},int))", nb,
                 (long)dis[1], sz[0], sz[1], rows, cols);
        d->empty = n == 0;
        break;
    }
    case K_P_NAT:
    case K_P_PACKED:
    case K_P_PAD:
    case K_P_TWO:
    case K_P_BLOCK: {
        /* (int, double) pairs: natural C layout, packed, padded, two pairs per element. */
        static const MPI_Aint lay[4][5] = {
            {0, 8, 0, 0, 16}, {0, 4, 0, 0, 12}, {8, 20, 0, 0, 32}, {0, 4, 16, 24, 40}};
        int li = kind == K_P_NAT ? 0 : kind == K_P_PAD ? 2 : kind == K_P_TWO ? 3 : 1;
        int nmem = li == 3 ? 4 : 2, bl[4] = {1, 1, 1, 1};
        MPI_Datatype ts[4] = {MPI_INT, MPI_DOUBLE, MPI_INT, MPI_DOUBLE};
        MPI_Type_create_struct(nmem, bl, lay[li], ts, &a);
        MPI_Type_create_resized(a, 0, lay[li][4], &t);
        int o = snprintf(d->name, sizeof d->name, "struct{");
        for (int i = 0; i < nmem; i++)
            o += snprintf(d->name + o, sizeof d->name - o, "%s%s@%ld", i ? "," : "",
                          i % 2 ? "double" : "int", (long)lay[li][i]);
        snprintf(d->name + o, sizeof d->name - o, "}/%ld", (long)lay[li][4]);
        if (kind == K_P_BLOCK) {
            /* The whole block as an hvector of packed pairs with 8-byte gaps. */
            MPI_Type_free(&a);
            a = t;
            MPI_Type_create_hvector(m, 1, 20, a, &t);
            char inner[sizeof d->name];
            memcpy(inner, d->name, sizeof inner);
            snprintf(d->name, sizeof d->name, "hvector(%d,1,20B,%.150s)", m, inner);
            d->empty = n == 0;
        }
        break;
    }
    case K_T_BLOCK:
    case K_T_UNIT:
        t = tree_type(s, kind == K_T_UNIT ? sf_vunit[SF_TREE] : m, d->name, sizeof d->name);
        d->empty = kind == K_T_BLOCK && n == 0;
        break;
    default: /* K_INT, K_T_INT */
        snprintf(d->name, sizeof d->name, "int");
    }
    if (a != MPI_DATATYPE_NULL) MPI_Type_free(&a);
    if (t != MPI_INT && kind != K_T_BLOCK && kind != K_T_UNIT) MPI_Type_commit(&t);
    d->t = t;
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
static char current[640];
static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "HANG (no progress for 120 s): ";
    if (write(2, msg, sizeof msg - 1) < 0 || write(2, current, strlen(current)) < 0) _exit(3);
    _exit(3);
}

/* Count of a case (c: the level's count; mixed: its elements mix int and double, i.e. the
 * struct data type or the (int, double) signature family). */
static int mpich_count(int coll, int mixed, int inplace, int c) {
#if MPICH_REF
    /* A bug of MPICH (4.0.2, ch4:ucx) limits the blocks of (int, double) elements (12 bytes
     * once packed) where MPICH itself sends them as contiguous bytes to a receive of a
     * non-contiguous type: its binomial scatter (the reference, and the library's native
     * fallback) and its in-place alltoall(v) (MPI_Sendrecv_replace, which sends MPI_PACKED).
     * UCX delivers a message above its rendezvous threshold (8 KiB) in fragments, MPICH
     * unpacks each fragment on its own (src/mpid/ch4/netmod/ucx/ucx_datatype.c, unpack), and
     * a fragment that ends inside a double unpacks short, which MPICH reports as
     * MPI_ERR_TRUNCATE. There, blocks of such elements stay under 8 KiB: at most 600 of them
     * (7200 bytes; the distributions of alltoallv reach 4 x the count). */
    int most = coll == AUTOCOLL_ALLTOALLV ? 4 : 1;
    if (mixed && c * most > 600 &&
        (coll == AUTOCOLL_SCATTER ||
         (inplace && (coll == AUTOCOLL_ALLTOALL || coll == AUTOCOLL_ALLTOALLV))))
        return 600 / most;
#else
    (void)coll, (void)mixed, (void)inplace;
#endif
    return c;
}

/* Reference of a reduce (sp: the send buffer, MPI_IN_PLACE at an in-place root). */
static void ref_reduce(const void *sp, buf_t r, int n, MPI_Datatype t, MPI_Op op, int root) {
#if MPICH_REF
    /* A bug of MPICH (4.0.2) in its node-aware reduce (MPIDI_Reduce_intra_composition_alpha,
     * which it chooses for commutative operations on more than 2048 bytes in a communicator
     * with a node hierarchy, MPI_COMM_WORLD included): a root other than rank 0 that passes
     * MPI_IN_PLACE passes it on as the send buffer of the node-level reduce rooted at rank 0,
     * where it is read as data at address (void *)-1: segmentation fault (count 1000 of the
     * data cases). The same call out of place, from a copy of the root's buffer, is the
     * reference there. */
    if (sp == MPI_IN_PLACE) {
        buf_t in = bclone(r);
        PMPI_Reduce(in.p, r.p, n, t, op, root, MPI_COMM_WORLD);
        free(in.p);
        return;
    }
#endif
    PMPI_Reduce(sp, r.p, n, t, op, root, MPI_COMM_WORLD);
}

static int run_data_case(const case_t *k) {
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
            ref_reduce(sp, r1, n, t, op, root);
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

    free(s.p), free(r1.p), free(r2.p), free(cnt), free(dis), free(scnt), free(sdis);
    return bad;
}

/* One rank's side of a signature-variant case. */
typedef struct {
    int ns, nr;       /* blocks in the send and in the receive buffer */
    int use_s, use_r; /* the buffer is significant on this rank */
    int *sn, *rn;     /* signature units of each block */
    int *sc, *rc;     /* counts in elements of the descriptions */
    desc_t sd, rd;
} sigside_t;

/* Seed of the random trees of rank r in case k (its receive description uses seed ^ 1). */
static uint64_t sig_seed(const case_t *k, int r) {
    return ((uint64_t)seed << 32) ^ ((uint64_t)(k->count * 131 + k->shift * 17 + k->coll) << 12) ^
           ((uint64_t)r * 0x9E3779B97F4A7C15ull);
}

#if MPICH_REF
/*
 * A bug of MPICH's own allgatherv (the reference; MPICH 4.0.2, MPIR_Allgatherv_intra_ring in
 * src/mpi/coll/allgatherv/allgatherv_intra_ring.c) limits the receive descriptions: the ring
 * pipelines each block in chunks counted in elements of the rank's own receive type. A rank
 * whose max(recvcounts) x extent(recvtype) exceeds MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE
 * (32768 bytes) sends and receives chunks of 32768 / extent(recvtype) elements, any other rank
 * whole blocks; ranks whose receive types differ in extent (or in size for one extent) therefore
 * cut the same block into pieces of different sizes, and the sends no longer match the
 * receives: MPI_ERR_TRUNCATE, or wrong data with MPI_SUCCESS. MPICH runs the ring for
 * allgatherv from a total of 81920 bytes (p not a power of two) or 524288 bytes (powers of two);
 * the library's native fallback reaches it too. So when some rank's receive description would
 * pipeline (the large cases), every rank describes its receive blocks as rank 0 does; its send
 * description, and every description of the smaller cases, still differ between ranks.
 */
static int mpich_ring_pipelines(const case_t *k, const int *rn) {
    int most = 0, pipelines = 0;
    for (int i = 0; i < p; i++)
        most = rn[i] > most ? rn[i] : most;
    for (int q = 0; q < p && !pipelines; q++) {
        desc_t d;
        MPI_Aint lb, ext;
        desc_make(sig_kind(k->fam, q, k->shift, 1, rn, p, -1), rn[0], sig_seed(k, q) ^ 1, &d);
        MPI_Type_get_extent(d.t, &lb, &ext);
        pipelines = (MPI_Aint)desc_count(&d, most) * ext > 32768;
        free_derived(&d.t);
    }
    return pipelines;
}
#endif

/* The descriptions and counts of rank r in case k: every rank can compute those of every other
 * rank (failure reports name them all). */
static void sig_setup(const case_t *k, int r, sigside_t *x) {
    int coll = k->coll, n = k->count, fam = k->fam, U = sf_vunit[fam], ip = k->inplace;
    int is_root = r == k->root;
    x->sn = calloc(p, sizeof(int)), x->rn = calloc(p, sizeof(int));
    x->sc = calloc(p, sizeof(int)), x->rc = calloc(p, sizeof(int));
    for (int i = 0; i < p; i++)
        x->sn[i] = x->rn[i] = n;
    if (coll == AUTOCOLL_ALLGATHERV) {
        for (int i = 0; i < p; i++)
            x->rn[i] = U * vcount(D_RANDOM, n / U, i, 0);
        x->sn[0] = x->rn[r];
    } else if (coll == AUTOCOLL_ALLTOALLV) {
        /* In place needs a symmetric matrix: the count of the unordered pair. */
        for (int j = 0; j < p; j++) {
            int lo = r < j ? r : j, hi = r < j ? j : r;
            x->sn[j] = U * vcount(D_RANDOM, n / U, ip ? lo : r, ip ? hi : j);
            x->rn[j] = ip ? x->sn[j] : U * vcount(D_RANDOM, n / U, j, r);
        }
    }
    int many_s =
        coll == AUTOCOLL_SCATTER || coll == AUTOCOLL_ALLTOALL || coll == AUTOCOLL_ALLTOALLV;
    x->ns = many_s ? p : 1;
    x->nr = coll == AUTOCOLL_BCAST || coll == AUTOCOLL_SCATTER ? 1 : p;
    x->use_s = coll != AUTOCOLL_SCATTER || is_root;
    x->use_r = coll != AUTOCOLL_BCAST && (coll != AUTOCOLL_GATHER || is_root);
    if (ip && coll != AUTOCOLL_BCAST && (coll != AUTOCOLL_GATHER || is_root) &&
        coll != AUTOCOLL_SCATTER)
        x->use_s = 0; /* in place: the data starts in the receive buffer */
    if (ip && coll == AUTOCOLL_SCATTER && is_root) x->use_r = 0;

    /* Random trees differ between ranks, positions and cases. */
    uint64_t ts = sig_seed(k, r);
    /* A unit-1 kind fits any blocks; with the unit of the receive kind, that kind fits the send
     * block, which is one of the received ones. */
    x->sd = x->rd = (desc_t){MPI_INT, 1, 0, "int"};
    int rr = r; /* whose receive description this rank uses */
#if MPICH_REF
    if (coll == AUTOCOLL_ALLGATHERV && mpich_ring_pipelines(k, x->rn)) rr = 0;
#endif
    if (x->use_r)
        desc_make(sig_kind(fam, rr, k->shift, 1, x->rn, x->nr, -1), x->rn[0], sig_seed(k, rr) ^ 1,
                  &x->rd);
    /* Two bugs of Open MPI's own collectives (the reference) limit a rank's send description:
     * its allgatherv sizes the call as (size of the send type) x (receive counts), so ranks
     * whose send and receive elements differ in size choose different algorithms (there, the
     * send element has the size of the receive element); its Bruck alltoall uses the receive
     * buffer as scratch in the layout of the send type (there, a rank describes its send
     * blocks as its receive blocks). */
    int sunit = coll == AUTOCOLL_ALLGATHERV ? x->rd.unit : -1;
    if (x->use_s && coll == AUTOCOLL_ALLTOALL)
        desc_make(sig_kind(fam, r, k->shift, 1, x->rn, x->nr, -1), x->sn[0], ts ^ 1, &x->sd);
    else if (x->use_s)
        desc_make(sig_kind(fam, r, k->shift, 0, x->sn, x->ns, sunit), x->sn[0], ts, &x->sd);
    for (int j = 0; j < x->ns; j++)
        x->sc[j] = desc_count(&x->sd, x->sn[j]);
    for (int j = 0; j < x->nr; j++)
        x->rc[j] = desc_count(&x->rd, x->rn[j]);
}

static void sig_release(sigside_t *x) {
    free_derived(&x->sd.t), free_derived(&x->rd.t);
    free(x->sn), free(x->rn), free(x->sc), free(x->rc);
}

/* "send=<count> x <type> recv=..." for the significant buffers ("buf=" for bcast); the counts
 * of the first 8 blocks when they differ. */
static void sig_names(const sigside_t *x, int coll, char *buf, size_t len) {
    int o = 0, side[2] = {x->use_s, x->use_r}, nbk[2] = {x->ns, x->nr};
    const desc_t *dd[2] = {&x->sd, &x->rd};
    const int *cc[2] = {x->sc, x->rc};
    buf[0] = '\0';
    for (int s = 0; s < 2 && o < (int)len; s++) {
        if (!side[s]) continue;
        const char *what = coll == AUTOCOLL_BCAST ? "buf" : s ? "recv" : "send";
        int uniform = 1;
        for (int j = 1; j < nbk[s]; j++)
            uniform &= cc[s][j] == cc[s][0];
        o += snprintf(buf + o, len - o, "%s%s=", o ? " " : "", what);
        if (uniform && o < (int)len) o += snprintf(buf + o, len - o, "%d", cc[s][0]);
        for (int j = 0; !uniform && j < nbk[s] && j < 8 && o < (int)len; j++)
            o += snprintf(buf + o, len - o, "%s%d", j ? "," : "{", cc[s][j]);
        if (!uniform && o < (int)len)
            o += snprintf(buf + o, len - o, "%s}", nbk[s] > 8 ? ",.." : "");
        if (o < (int)len) o += snprintf(buf + o, len - o, " x %s", dd[s]->name);
    }
    if (!o) snprintf(buf, len, "(no significant buffer)");
}

/* Every rank's descriptions in case k (the first 16 ranks), as one block of lines. */
static void sig_report(const case_t *k) {
    char *out = malloc(16 * 460 + 200), line[400];
    int o = snprintf(out, 200, "  descriptions in %s %s sig=%s n=%d shift=%d root=%d inplace=%d:\n",
                     autocoll_coll_name(k->coll), k->inst, sf_name[k->fam], k->count, k->shift,
                     k->root, k->inplace);
    for (int r = 0; r < p && r < 16; r++) {
        sigside_t y;
        sig_setup(k, r, &y);
        sig_names(&y, k->coll, line, sizeof line);
        sig_release(&y);
        o += snprintf(out + o, 460, "    rank %d%s: %s\n", r,
                      rooted(k->coll) && r == k->root ? " (root)" : "", line);
    }
    if (p > 16) snprintf(out + o, 60, "    (ranks 16..%d not shown)\n", p - 1);
    fputs(out, stderr);
    free(out);
}

/* Address, count and type of block b of a buffer described by (count c[b] or c[0] per block,
 * element displacements dis[] or consecutive blocks, type t). */
typedef struct {
    char *p;
    int count;
    MPI_Datatype t;
} blk_t;
static blk_t sig_block(char *base, MPI_Datatype t, const int *c, const int *dis, int b) {
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    blk_t blk = {base, dis ? c[b] : c[0], t};
    blk.p += (dis ? dis[b] : (MPI_Aint)b * c[0]) * ext;
    return blk;
}

/* Reference under SMPI, whose own collectives cut messages in elements of the local datatype
 * (as autocoll did) and so break on per-rank descriptions: the same collective moves the
 * blocks as their signature bytes (MPI_Pack; MPI_BYTE on every rank), and every rank unpacks
 * them into its own description. rbuf is the receive buffer (the buffer of a bcast); sdis and
 * rdis are the element displacements of the v collectives (else NULL). */
static void sig_packed_reference(const case_t *k, const sigside_t *x, char *sbuf, char *rbuf,
                                 const int *sdis, const int *rdis) {
    int coll = k->coll, root = k->root, ip = k->inplace, ub = k->fam == SF_PAIR ? 12 : 4;
    int is_root = me == root, ns = 0, nr = 0, stot = 0, rtot = 0;
    int *scb = calloc(p, sizeof(int)), *sdb = calloc(p, sizeof(int));
    int *rcb = calloc(p, sizeof(int)), *rdb = calloc(p, sizeof(int));
    blk_t *sb = calloc(p, sizeof(blk_t)), *rb = calloc(p, sizeof(blk_t));
    MPI_Comm w = MPI_COMM_WORLD;

    /* My send blocks (in place: read from the receive buffer) and my receive blocks. */
    int from_r = ip && coll != AUTOCOLL_SCATTER && (coll != AUTOCOLL_GATHER || is_root);
    if (coll == AUTOCOLL_BCAST) {
        if (is_root) sb[0] = sig_block(rbuf, x->sd.t, x->sc, NULL, 0), scb[0] = x->sn[0] * ub;
        if (!is_root) rb[0] = sig_block(rbuf, x->sd.t, x->sc, NULL, 0), rcb[0] = x->sn[0] * ub;
        ns = is_root, nr = !is_root;
    } else {
        ns = x->use_s ? x->ns : 0, nr = x->use_r ? x->nr : 0;
        if (from_r) ns = coll == AUTOCOLL_ALLTOALL || coll == AUTOCOLL_ALLTOALLV ? p : 1;
        for (int j = 0; j < ns; j++) {
            int b = from_r && ns == 1 ? me : j; /* my own block of the receive buffer */
            sb[j] = from_r ? sig_block(rbuf, x->rd.t, x->rc, rdis, b)
                           : sig_block(sbuf, x->sd.t, x->sc, sdis, j);
            scb[j] = (from_r ? x->rn[b] : x->sn[j]) * ub;
        }
        for (int j = 0; j < nr; j++)
            rb[j] = sig_block(rbuf, x->rd.t, x->rc, rdis, j), rcb[j] = x->rn[j] * ub;
    }
    for (int j = 0; j < ns; j++)
        sdb[j] = stot, stot += scb[j];
    for (int j = 0; j < nr; j++)
        rdb[j] = rtot, rtot += rcb[j];
    /* The root of an in-place scatter receives its own block too, and leaves it packed. */
    if (coll == AUTOCOLL_SCATTER && is_root && !nr) rtot = scb[0];
    char *sbytes = calloc((size_t)stot + 1, 1), *rbytes = calloc((size_t)rtot + 1, 1);
    for (int j = 0; j < ns; j++) {
        int pos = 0;
        MPI_Pack(sb[j].p, sb[j].count, sb[j].t, sbytes + sdb[j], scb[j], &pos, w);
    }

    /* Blocks of one collective have one size, but for the v collectives. */
    int sB = scb[0], rB = coll == AUTOCOLL_SCATTER && is_root && !nr ? rtot : rcb[0];
    switch (coll) {
    case AUTOCOLL_BCAST:
        PMPI_Bcast(is_root ? sbytes : rbytes, x->sn[0] * ub, MPI_BYTE, root, w);
        break;
    case AUTOCOLL_GATHER:
        PMPI_Gather(sbytes, sB, MPI_BYTE, rbytes, rB, MPI_BYTE, root, w);
        break;
    case AUTOCOLL_SCATTER:
        PMPI_Scatter(sbytes, sB, MPI_BYTE, rbytes, rB, MPI_BYTE, root, w);
        break;
    case AUTOCOLL_ALLGATHER:
        PMPI_Allgather(sbytes, sB, MPI_BYTE, rbytes, rB, MPI_BYTE, w);
        break;
    case AUTOCOLL_ALLGATHERV:
        PMPI_Allgatherv(sbytes, sB, MPI_BYTE, rbytes, rcb, rdb, MPI_BYTE, w);
        break;
    case AUTOCOLL_ALLTOALL:
        PMPI_Alltoall(sbytes, sB, MPI_BYTE, rbytes, rB, MPI_BYTE, w);
        break;
    case AUTOCOLL_ALLTOALLV:
        PMPI_Alltoallv(sbytes, scb, sdb, MPI_BYTE, rbytes, rcb, rdb, MPI_BYTE, w);
        break;
    }
    for (int j = 0; j < nr; j++) {
        int pos = 0;
        MPI_Unpack(rbytes + rdb[j], rcb[j], &pos, rb[j].p, rb[j].count, rb[j].t, w);
    }
    free(sbytes), free(rbytes), free(sb), free(rb), free(scb), free(sdb), free(rcb), free(rdb);
}

/* Signature-variant case: every rank describes its blocks with its own kinds (see above); the
 * reference is PMPI_<Coll> called with the same per-rank descriptions (under SMPI: see
 * sig_packed_reference). descs receives this rank's descriptions (label names the case for the
 * watchdog). */
static int run_sig_case(const case_t *k, const char *label, char *descs, size_t len) {
    int coll = k->coll, root = k->root, ip = k->inplace, is_root = me == root, bad = 0;
    MPI_Comm w = MPI_COMM_WORLD;
    buf_t s = {0}, r1 = {0}, r2 = {0};
    sigside_t x;
    sig_setup(k, me, &x);
    sig_names(&x, coll, descs, len);
    snprintf(current, sizeof current, "%s: %s\n", label, descs);
    const int *sc = x.sc, *rc = x.rc;
    MPI_Datatype st = x.sd.t, rt = x.rd.t;

    /* The v collectives lay their blocks out as the data cases do: send blocks in reverse rank
     * order with a one-element hole before each, receive blocks in rank order with a
     * two-element hole before each. */
    int *sdis = malloc(p * sizeof(int)), *rdis = malloc(p * sizeof(int));
    int stot = x.ns * sc[0], rtot = x.nr * rc[0];
    if (coll == AUTOCOLL_ALLTOALLV)
        for (int j = x.ns - 1, at = 0; j >= 0; j--)
            sdis[j] = at + 1, at = stot = sdis[j] + sc[j];
    if (coll == AUTOCOLL_ALLGATHERV || coll == AUTOCOLL_ALLTOALLV)
        for (int j = 0, at = 0; j < x.nr; j++)
            rdis[j] = at + 2, at = rtot = rdis[j] + rc[j];
    rng_seed((unsigned)me, (unsigned)coll,
             (unsigned)(k->count * 131 + k->shift * 7 + 977 * k->fam));
    if (x.use_s) s = balloc(st, (size_t)stot), fill(s, -1);
    if (coll == AUTOCOLL_BCAST) {
        r1 = s, s = (buf_t){0};
        if (!is_root) sentinel(r1);
    } else if (x.use_r) {
        /* In place, my own block starts in the receive buffer. */
        r1 = balloc(rt, (size_t)rtot);
        if (ip && coll != AUTOCOLL_SCATTER)
            fill(r1, -1);
        else
            sentinel(r1);
    }
    if (r1.p) r2 = bclone(r1);

    int native = !SMPI_BUILD;
    if (!native)
        sig_packed_reference(k, &x, s.p, r1.p, coll == AUTOCOLL_ALLTOALLV ? sdis : NULL,
                             coll == AUTOCOLL_ALLGATHERV || coll == AUTOCOLL_ALLTOALLV ? rdis
                                                                                       : NULL);
    const void *sp = ip ? MPI_IN_PLACE : s.p;
    switch (coll) {
    case AUTOCOLL_BCAST:
        if (native) PMPI_Bcast(r1.p, sc[0], st, root, w);
        MPI_Bcast(r2.p, sc[0], st, root, w);
        break;
    case AUTOCOLL_GATHER:
        sp = ip && is_root ? MPI_IN_PLACE : s.p;
        if (native) PMPI_Gather(sp, sc[0], st, r1.p, rc[0], rt, root, w);
        MPI_Gather(sp, sc[0], st, r2.p, rc[0], rt, root, w);
        break;
    case AUTOCOLL_SCATTER: {
        int rip = ip && is_root;
        if (native) PMPI_Scatter(s.p, sc[0], st, rip ? MPI_IN_PLACE : r1.p, rc[0], rt, root, w);
        MPI_Scatter(s.p, sc[0], st, rip ? MPI_IN_PLACE : r2.p, rc[0], rt, root, w);
        break;
    }
    case AUTOCOLL_ALLGATHER: {
        /* In place the send count and type are ignored, but Open MPI sizes the call from the
         * send count: pass the receive pair. */
        int c0 = ip ? rc[0] : sc[0];
        MPI_Datatype t0 = ip ? rt : st;
        if (native) PMPI_Allgather(sp, c0, t0, r1.p, rc[0], rt, w);
        MPI_Allgather(sp, c0, t0, r2.p, rc[0], rt, w);
        break;
    }
    case AUTOCOLL_ALLGATHERV:
        if (native) PMPI_Allgatherv(sp, sc[0], st, r1.p, rc, rdis, rt, w);
        MPI_Allgatherv(sp, sc[0], st, r2.p, rc, rdis, rt, w);
        break;
    case AUTOCOLL_ALLTOALL:
        if (native) PMPI_Alltoall(sp, sc[0], st, r1.p, rc[0], rt, w);
        MPI_Alltoall(sp, sc[0], st, r2.p, rc[0], rt, w);
        break;
    case AUTOCOLL_ALLTOALLV:
        if (native) PMPI_Alltoallv(sp, sc, sdis, st, r1.p, rc, rdis, rt, w);
        MPI_Alltoallv(sp, sc, sdis, st, r2.p, rc, rdis, rt, w);
        break;
    }
    if (r1.p) bad = compare(r1, r2, coll == AUTOCOLL_BCAST ? "buffer" : "receive buffer");

    free(s.p), free(r1.p), free(r2.p), free(sdis), free(rdis);
    sig_release(&x);
    return bad;
}

/* An MPI error (e.g. a truncated message inside an algorithm) names the case and, for a
 * signature variant, every rank's descriptions, then ends the job as MPI_ERRORS_ARE_FATAL
 * would: the ranks cannot be brought back in step. */
static const case_t *current_case;
static void on_mpi_error(MPI_Comm *comm, int *code, ...) {
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    (void)comm;
    MPI_Error_string(*code, s, &len);
    fprintf(stderr, "MPI ERROR (%s): %s", s, current);
    if (current_case && current_case->fam >= 0) sig_report(current_case);
    MPI_Abort(MPI_COMM_WORLD, 4);
}

/* "<coll> <instance> p=.. rank=.. <case>": names a case in messages. */
static void case_label(const case_t *k, char *buf, size_t len) {
    int o = snprintf(buf, len, "%s %s p=%d rank=%d ", autocoll_coll_name(k->coll), k->inst, p, me);
    if (k->fam >= 0)
        snprintf(buf + o, len - o, "sig=%s n=%d shift=%d root=%d inplace=%d", sf_name[k->fam],
                 k->count, k->shift, k->root, k->inplace);
    else
        snprintf(buf + o, len - o, "count=%d type=%s root=%d inplace=%d dist=%s", k->count,
                 k->rcase >= 0 ? rname[k->rcase] : tname[k->t], k->root, k->inplace,
                 dist_name[k->dist]);
}

static int run_case(const case_t *k) {
    char label[200], descs[400] = "";
#if MPICH_REF
    /* The MPICH bug of ref_reduce: where a restriction hands an in-place reduce at a root other
     * than 0 back to MPICH's own reduce, MPICH would crash on it (as on the program's own call). */
    if (k->coll == AUTOCOLL_REDUCE && k->inplace && k->root != 0 &&
        !applicable(k->restr, k->coll, k->rcase < 0 || rop[k->rcase] != op_noncomm, 1)) {
        n_skip++;
        return 0;
    }
#endif
    case_label(k, label, sizeof label);
    snprintf(current, sizeof current, "%s\n", label);
    if (!level_sim) alarm(120);
    current_case = k;
    int bad = k->fam >= 0 ? run_sig_case(k, label, descs, sizeof descs) : run_data_case(k);
    current_case = NULL;

    /* The instance must have run, or the native fallback when a restriction excludes it. */
    int commutative = k->rcase < 0 || rop[k->rcase] != op_noncomm;
    int app = applicable(k->restr, k->coll, commutative, k->inplace);
    char last[256];
    autocoll_last_choice(MPI_COMM_WORLD, k->coll, last, sizeof last);
    const char *want = app ? k->inst : "native";
    if (!bad && strcmp(last, want) != 0) bad = FAIL("expected %s to run, but %s did", want, last);

    int any;
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad && fail_lines++ < 20)
        fprintf(stderr, "FAIL %s: %s%s%s%s\n", label, why, *descs ? " [" : "", descs,
                *descs ? "]" : "");
    /* Signature variants: rank 0 lists every rank's descriptions of the first failing cases. */
    if (any && k->fam >= 0 && me == 0 && n_fail < 10) sig_report(k);
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

static int sig_coll(int c) {
    return c == AUTOCOLL_BCAST || c == AUTOCOLL_GATHER || c == AUTOCOLL_SCATTER ||
           c == AUTOCOLL_ALLGATHER || c == AUTOCOLL_ALLGATHERV || c == AUTOCOLL_ALLTOALL ||
           c == AUTOCOLL_ALLTOALLV;
}

/* Signature-variant cases of an instance: family, units per block (n), and how many shifts
 * (sets of per-rank descriptions) each level runs. 16386 ints and 5462 (int, double) pairs are
 * 65544 bytes, which pipelined algorithms cut into segments of 512 B .. 8 KiB (divided among
 * the p blocks but for bcast); the v collectives draw their block sizes around n (random
 * distribution, multiples of the family's v unit). */
static const struct {
    int fam, n, quick, full, sim;
} sig_plan[] = {
    {SF_INT, 0, 1, 2, 0},     {SF_INT, 7, 1, 4, 0},   {SF_INT, 12, 0, 4, 1},
    {SF_INT, 16386, 1, 2, 0}, {SF_PAIR, 5, 1, 3, 0},  {SF_PAIR, 5462, 0, 1, 0},
    {SF_TREE, 7, 0, 2, 0},    {SF_TREE, 30, 1, 2, 0}, {SF_TREE, 16386, 0, 1, 0},
};

/* Runs the signature-variant cases of one instance; returns the number of failing cases.
 * Roots and in-place alternate from case to case. */
static int run_sig_instance(int coll, const char *inst, unsigned restr) {
    case_t k = {.coll = coll, .inst = inst, .restr = restr, .rcase = -1};
    int roots[3] = {0, p - 1, p / 2}, fails = 0, ci = 0;
    int nplan = (int)(sizeof sig_plan / sizeof sig_plan[0]);
    for (int i = 0; i < nplan; i++) {
        int ns = level_sim ? sig_plan[i].sim : level_full ? sig_plan[i].full : sig_plan[i].quick;
        int fam = sig_plan[i].fam, n = sig_plan[i].n, u = sf_vunit[fam];
        /* Large blocks: a whole message of 64 KiB+ (all p blocks together but for bcast), so
         * that the cost does not grow with p. */
        if (n > 1000 && k.coll != AUTOCOLL_BCAST) n = (n + p * u - 1) / (p * u) * u;
        for (int j = 0; j < ns; j++, ci++) {
            k.fam = fam, k.shift = i + j;
            k.root = rooted(k.coll) ? roots[ci % 3] : 0;
            k.inplace = k.coll != AUTOCOLL_BCAST && ci % 2;
            k.count = mpich_count(coll, fam == SF_PAIR, k.inplace, n);
            /* Under SMPI, a call the instance cannot run goes to SMPI's own collective, which
             * cannot take per-rank descriptions: skipped. */
            if (SMPI_BUILD && !applicable(restr, coll, 1, k.inplace))
                n_skip++;
            else
                fails += run_case(&k);
        }
    }
    return fails;
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
    case_t k = {.coll = coll, .inst = inst, .restr = restr, .rcase = -1, .fam = -1};

    if (sig_mode == SIG_ONLY) return run_sig_instance(coll, inst, restr);
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
                        k.count = mpich_count(coll, k.t == T_STRUCT, ip, c);
                        k.dist = dists[di], k.inplace = ip, k.root = roots[r];
                        fails += run_case(&k);
                    }
                }
        }
    }
    if (sig_mode == SIG_ON && sig_coll(coll)) fails += run_sig_instance(coll, inst, restr);
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
        else if (!strcmp(argv[i], "--sig") && i + 1 < argc &&
                 (!strcmp(argv[i + 1], "on") || !strcmp(argv[i + 1], "off") ||
                  !strcmp(argv[i + 1], "only"))) {
            const char *v = argv[++i];
            sig_mode = !strcmp(v, "off") ? SIG_OFF : !strcmp(v, "only") ? SIG_ONLY : SIG_ON;
        } else if (!strcmp(argv[i], "--level") && i + 1 < argc) {
            const char *l = argv[++i];
            level_full = !strcmp(l, "full");
            level_sim = !strcmp(l, "sim");
        } else {
            if (me == 0)
                fprintf(stderr, "usage: ac_matrix [--coll c,..] [--alg a,..] "
                                "[--level quick|full|sim] [--defaults] [--seed N] "
                                "[--sig on|off|only]\n");
            MPI_Finalize();
            return 2;
        }
    }
    types_init();
    if (!level_sim) signal(SIGALRM, on_alarm);
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(on_mpi_error, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
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
        if (!in_list(colls, autocoll_coll_name(c)) || (sig_mode == SIG_ONLY && !sig_coll(c)))
            continue;
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
