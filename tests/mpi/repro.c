/*
 * Reproducible mode (AUTOCOLL_REPRODUCIBLE=1, docs/reproducible.md) under real MPI.
 *
 * The reference of every order-sensitive reduction is x_0 op (x_1 op (... op x_{p-1})), computed
 * here from the inputs gathered with PMPI_Allgather (the library is not involved). Every rank
 * compares its result with it byte for byte.
 *
 *   repro --forced      every instance of every algorithm of allreduce, reduce (every root),
 *                       reduce_scatter (uneven counts) and reduce_scatter_block is forced in turn;
 *                       in place and not, MPI_DOUBLE and MPI_FLOAT sums, MPI_DOUBLE products and
 *                       a user-defined (non-commutative) operation: each call must give the
 *                       reference bits. An instance that may not run such a call must not have run
 *                       (autocoll_last_choice names a qualifying one). Integer sums are exact in any
 *                       order: there a forced instance must run itself, restricted or not.
 *   repro --adaptive N  no forcing: N calls per collective and size, the adaptive engine choosing
 *                       (and probing) as it likes; every result must be the reference, and rank 0
 *                       prints a checksum of all results (the ctest script compares 5 runs).
 *   --expect-native-differs  also checks that the MPI library's own allreduce differs from the
 *                       reference on at least one element at p >= 3, i.e. the data tells orders
 *                       apart (so the comparisons above can fail).
 * Exit status 0 when every comparison holds, 1 otherwise.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"

static int rank, size, failures;

/* Inputs whose sums depend on the order: magnitudes from 1e-8 to 1e8, both signs. */
static double value(int r, int i, int salt) {
    unsigned h = (unsigned)(r * 7919 + i * 104729 + salt * 1299709) * 2654435761u;
    double m = (double)(h % 2001u) - 1000.0 + (double)(h % 97u) / 97.0;
    int e = (int)((h >> 16) % 17u) - 8;
    double s = 1.0;
    for (int k = 0; k < (e < 0 ? -e : e); k++)
        s *= 10.0;
    return e < 0 ? m / s : m * s;
}

/* A non-commutative, order-sensitive operation on doubles: a o b = a * 0.5 + b (elementwise). */
static void halfadd(void *in, void *inout, int *len, MPI_Datatype *t) {
    (void)t;
    double *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = a[i] * 0.5 + b[i];
}

typedef struct {
    const char *name;
    MPI_Datatype type;
    MPI_Op op;
    size_t esize;
    int exact; /* integer sum: any order gives the same bits */
} kind_t;

static void fill(const kind_t *k, void *buf, int n, int r, int salt) {
    for (int i = 0; i < n; i++) {
        double v = value(r, i, salt);
        if (k->type == MPI_DOUBLE)
            ((double *)buf)[i] = v;
        else if (k->type == MPI_FLOAT)
            ((float *)buf)[i] = (float)v;
        else
            ((int *)buf)[i] = (int)(v / 1e-3) % 100000;
    }
    if (k->op == MPI_PROD && k->type == MPI_DOUBLE) /* keep products finite */
        for (int i = 0; i < n; i++)
            ((double *)buf)[i] = 1.0 + value(r, i, salt) * 1e-9;
}

/* The reference x_0 op (x_1 op (... op x_{p-1})) of n elements from every rank's input. */
static void reference(const kind_t *k, const void *mine, int n, void *out) {
    char *all = malloc((size_t)n * (size_t)size * k->esize + 1);
    PMPI_Allgather(mine, n, k->type, all, n, k->type, MPI_COMM_WORLD);
    memcpy(out, all + (size_t)(size - 1) * (size_t)n * k->esize, (size_t)n * k->esize);
    for (int r = size - 2; r >= 0; r--)
        PMPI_Reduce_local(all + (size_t)r * (size_t)n * k->esize, out, n, k->type, k->op);
    free(all);
}

static unsigned long long checksum = 1469598103934665603ULL;

static void compare(const char *what, const char *inst, const kind_t *k, const void *got,
                    const void *want, size_t bytes) {
    if (memcmp(got, want, bytes) != 0) {
        size_t i = 0;
        while (((const char *)got)[i] == ((const char *)want)[i])
            i++;
        fprintf(stderr,
                "repro: rank %d: %s %s %s, %zu B: differs from the rank-ordered reference "
                "at byte %zu\n",
                rank, what, inst, k->name, bytes, i);
        failures++;
    }
    for (size_t i = 0; i < bytes; i++)
        checksum = (checksum ^ ((const unsigned char *)got)[i]) * 1099511628211ULL;
}

/* The instance that served the last call must qualify unless the call is exact. */
static void check_ran(int coll, const char *what, const char *forced, const kind_t *k,
                      int inplace) {
    char ran[128], base[128];
    autocoll_last_choice(MPI_COMM_WORLD, coll, ran, sizeof ran);
    snprintf(base, sizeof base, "%s", ran);
    base[strcspn(base, ":")] = '\0';
    unsigned flags = 0;
    for (int a = 0; a < autocoll_alg_count(coll); a++) {
        autocoll_alg_info_t info;
        if (autocoll_alg_info(coll, a, &info) == MPI_SUCCESS && !strcmp(info.name, base))
            flags = info.restrictions;
    }
    if (!k->exact && (flags & AUTOCOLL_R_ANY_ORDER)) {
        fprintf(stderr,
                "repro: rank %d: %s forced %s, %s: %s ran, which combines in its own order\n", rank,
                what, forced, k->name, ran);
        failures++;
    }
    if (k->exact && forced && strcmp(ran, forced) != 0) {
        /* an exact call is not restricted: the forced instance runs unless another restriction
         * rules it out */
        char fb[128];
        snprintf(fb, sizeof fb, "%s", forced);
        fb[strcspn(fb, ":")] = '\0';
        autocoll_layout_t l;
        autocoll_layout(MPI_COMM_WORLD, &l);
        autocoll_situation_t s = {.p = size,
                                  .nodes = l.nodes,
                                  .uniform_ppn = l.uniform,
                                  .commutative = 1,
                                  .inplace = inplace,
                                  .topology = 0,
                                  .fixed_order = 0};
        for (int a = 0; a < autocoll_alg_count(coll); a++) {
            autocoll_alg_info_t info;
            if (autocoll_alg_info(coll, a, &info) == MPI_SUCCESS && !strcmp(info.name, fb) &&
                !autocoll_restriction_reason(info.restrictions, &s)) {
                fprintf(stderr, "repro: rank %d: %s forced %s on an integer sum: %s ran instead\n",
                        rank, what, forced, ran);
                failures++;
            }
        }
    }
}

/* One call of coll with kind k and n elements per block (reduce: root), checked. */
static void one(int coll, const kind_t *k, int n, int root, int inplace, const char *inst,
                int salt) {
    int *counts = malloc((size_t)size * sizeof *counts);
    int total = 0;
    for (int i = 0; i < size; i++) {
        counts[i] = coll == AUTOCOLL_REDUCE_SCATTER ? n + i % 3 : n;
        total += counts[i];
    }
    int vec = coll == AUTOCOLL_ALLREDUCE || coll == AUTOCOLL_REDUCE ? n : total;
    char *in = malloc((size_t)vec * k->esize + 1), *out = malloc((size_t)vec * k->esize + 1),
         *want = malloc((size_t)vec * k->esize + 1);
    fill(k, in, vec, rank, salt);
    reference(k, in, vec, want);
    memset(out, 0x5a, (size_t)vec * k->esize);
    const char *what = autocoll_coll_name(coll);
    size_t off = 0;
    switch (coll) {
    case AUTOCOLL_ALLREDUCE:
        if (inplace) memcpy(out, in, (size_t)vec * k->esize);
        MPI_Allreduce(inplace ? MPI_IN_PLACE : in, out, n, k->type, k->op, MPI_COMM_WORLD);
        compare(what, inst, k, out, want, (size_t)n * k->esize);
        break;
    case AUTOCOLL_REDUCE:
        if (inplace && rank == root) memcpy(out, in, (size_t)vec * k->esize);
        MPI_Reduce(inplace && rank == root ? MPI_IN_PLACE : in, out, n, k->type, k->op, root,
                   MPI_COMM_WORLD);
        if (rank == root) compare(what, inst, k, out, want, (size_t)n * k->esize);
        break;
    case AUTOCOLL_REDUCE_SCATTER:
    case AUTOCOLL_REDUCE_SCATTER_BLOCK:
        for (int i = 0; i < rank; i++)
            off += (size_t)counts[i];
        if (inplace) memcpy(out, in, (size_t)vec * k->esize);
        if (coll == AUTOCOLL_REDUCE_SCATTER)
            MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : in, out, counts, k->type, k->op,
                               MPI_COMM_WORLD);
        else
            MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : in, out, n, k->type, k->op,
                                     MPI_COMM_WORLD);
        compare(what, inst, k, out, want + off * k->esize, (size_t)counts[rank] * k->esize);
        break;
    }
    check_ran(coll, what, inst, k, inplace && coll != AUTOCOLL_REDUCE);
    free(in);
    free(out);
    free(want);
    free(counts);
}

static const int colls[] = {AUTOCOLL_ALLREDUCE, AUTOCOLL_REDUCE, AUTOCOLL_REDUCE_SCATTER,
                            AUTOCOLL_REDUCE_SCATTER_BLOCK};
enum { NCOLLS = sizeof colls / sizeof colls[0] };

static void run_all(const kind_t *kinds, int nk, const int *sizes, int ns, const char *inst,
                    int coll, int salt) {
    for (int s = 0; s < ns; s++)
        for (int kk = 0; kk < nk; kk++)
            for (int ip = 0; ip < 2; ip++) {
                int nroots = coll == AUTOCOLL_REDUCE ? size : 1;
                for (int root = 0; root < nroots; root++)
                    one(coll, &kinds[kk], sizes[s], root, ip, inst, salt);
            }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Op nc;
    MPI_Op_create(halfadd, 0, &nc);
    kind_t kinds[] = {{"double sum", MPI_DOUBLE, MPI_SUM, sizeof(double), 0},
                      {"float sum", MPI_FLOAT, MPI_SUM, sizeof(float), 0},
                      {"double product", MPI_DOUBLE, MPI_PROD, sizeof(double), 0},
                      {"double halfadd (user, non-commutative)", MPI_DOUBLE, nc, sizeof(double), 0},
                      {"int sum", MPI_INT, MPI_SUM, sizeof(int), 1}};
    const int nk = sizeof kinds / sizeof kinds[0];
    int adaptive = 0, calls = 0, native_check = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--forced")) adaptive = 0;
        if (!strcmp(argv[i], "--adaptive") && i + 1 < argc) {
            adaptive = 1;
            calls = atoi(argv[++i]);
        }
        if (!strcmp(argv[i], "--expect-native-differs")) native_check = 1;
    }
    if (native_check && size >= 3) { /* the data tells association orders apart */
        int n = 1000, diff = 0;
        double *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out),
               *want = malloc(n * sizeof *want);
        fill(&kinds[0], in, n, rank, 1);
        reference(&kinds[0], in, n, want);
        PMPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            diff += memcmp(&out[i], &want[i], sizeof(double)) != 0;
        if (rank == 0)
            printf("repro: the MPI library's allreduce differs from the reference on "
                   "%d of %d elements\n",
                   diff, n);
        if (diff == 0) {
            fprintf(stderr, "repro: the data does not tell orders apart\n");
            failures++;
        }
        free(in);
        free(out);
        free(want);
    }
    if (!adaptive) {
        const int sizes[] = {1, 7, 300, 4099};
        for (int c = 0; c < NCOLLS; c++) {
            int coll = colls[c];
            for (int a = 0; a < autocoll_alg_count(coll); a++)
                for (int i = 0; i < autocoll_instance_count(coll, a); i++) {
                    char inst[128];
                    autocoll_instance_name(coll, a, i, inst, sizeof inst);
                    autocoll_force(coll, inst);
                    run_all(kinds, nk, sizes, 4, inst, coll, a * 31 + i);
                }
            autocoll_force(coll, NULL);
        }
    } else {
        const int sizes[] = {3, 64, 1000, 9000};
        for (int k = 0; k < calls; k++)
            for (int c = 0; c < NCOLLS; c++)
                for (int s = 0; s < 4; s++)
                    for (int kk = 0; kk < nk; kk++) /* the integer sum first: same bytes as
                                                       the float sum, keys of their own */
                        one(colls[c], &kinds[(kk + nk - 1) % nk], sizes[s], k % size, 0, NULL, k);
    }
    int all = 0;
    PMPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (adaptive && rank == 0) printf("repro checksum %016llx\n", checksum);
    if (rank == 0)
        printf("repro: %s, p=%d: %d mismatch(es)\n", adaptive ? "adaptive" : "forced", size, all);
    MPI_Op_free(&nc);
    MPI_Finalize();
    return all ? 1 : 0;
}
