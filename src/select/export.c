/*
 * Exports of a tuning table to the native selection files of Open MPI and MPICH, for users who
 * do not load autocoll (docs/tuning-table.md, "Exports").
 *
 * Both native formats dispatch on (communicator size, message size) only, with their own
 * message-size definitions, and have no first-match list: they are nested ascending ranges.
 * So the table is first flattened per collective into cells: communicator-size segments, each
 * with ascending message-size cuts in the native unit, and in each cell the winner is the first
 * rule of the table that matches there (exactly autocoll's order). A cell whose winner has no
 * native twin, or that no rule covers, keeps the library's own choice (Open MPI: algorithm 0 =
 * its fixed decision; MPICH: a fixed fallback algorithm per collective, see mpich_fallback).
 * nodes/ppn are not expressible in either format: rules restricted to a layout are exported as
 * if for any layout (the export is made for the machine the table was measured on).
 *
 * Message-size conversion (autocoll's selection size b, see src/core/coll.c):
 *   native size = b        bcast, reduce, allreduce, reduce_scatter (both); alltoall (MPICH avg)
 *   native size = b * p    allgather, alltoall, gather, scatter, reduce_scatter_block (Open MPI);
 *                          allgather, reduce_scatter_block (MPICH total_msg_size)
 *   native size = 0        barrier, alltoallv (Open MPI looks up size 0)
 *   allgatherv (Open MPI 4.1): b / p (the per-rank average); MPICH: b (total_msg_size)
 *   not available          gather, scatter, alltoallv, barrier (MPICH): size-bounded rules there
 *                          cannot be exported and their cells keep the fallback.
 * With b * p or b / p, a communicator-size segment holding several sizes is split into single
 * sizes when a size-bounded rule matches there (at most AC_EXPORT_MAX_SPLIT sizes; beyond that
 * the segment keeps the native choice).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "table.h"

enum { AC_EXPORT_MAX_SPLIT = 256 };

/* How the native library measures the message size of a collective. */
typedef enum {
    SZ_BYTES = 0, /* autocoll's size */
    SZ_TIMES_P,   /* autocoll's size times p */
    SZ_PER_RANK,  /* autocoll's size divided by p (rounded down) */
    SZ_ZERO,      /* the native library looks up size 0 */
    SZ_NONE       /* no usable size: only rules for every size can be exported */
} ac_sizekind_t;

/* A native twin of one autocoll instance. id > 0; for Open MPI faninout/segsize are the rule's
 * parameters; for MPICH name is the container and guard the conditions it needs. */
typedef struct {
    int id, faninout, segsize;
} ac_twin_t;

/* One cell: message sizes [lo, next cut's lo) of a communicator-size segment. */
typedef struct {
    unsigned long long lo;
    ac_twin_t twin; /* id 0: the native library's choice */
} ac_cut_t;

typedef struct {
    int pmin, pmax, ncut;
    ac_cut_t *cut;
} ac_seg_t;

typedef int (*ac_twin_fn)(const ac_inst_t *in, ac_twin_t *out);

static unsigned long long conv(unsigned long long b, int p, ac_sizekind_t k) {
    const unsigned long long cap = 1ULL << 62;
    if (k == SZ_TIMES_P) return b > cap / (unsigned long long)p ? cap : b * (unsigned long long)p;
    if (k == SZ_PER_RANK) return b / (unsigned long long)p;
    return b > cap ? cap : b;
}

static int cmp_ull(const void *a, const void *b) {
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

/* Rule r is for coll and every communicator size in [a, b]. */
static int rule_covers(const ac_rule_t *r, int coll, int a, int b) {
    return r->coll == coll && r->pmin <= a && b <= r->pmax;
}

/* Cuts of the communicator sizes [a, b] (p = a is used for the conversion; the caller splits
 * segments where that matters). Returns the number of cuts, or -1 when out of memory; marks in
 * used[] the rules that won a cell with a twin. */
static int cells(const autocoll_table_t *t, int coll, int a, int b, ac_sizekind_t k,
                 ac_twin_fn twin, char *used, ac_cut_t **out) {
    int n = 0, nb = 1;
    for (int i = 0; i < t->nrules; i++)
        n += rule_covers(&t->rules[i], coll, a, b);
    unsigned long long *bp = malloc((size_t)(2 * n + 1) * sizeof *bp);
    ac_cut_t *cut = malloc((size_t)(2 * n + 1) * sizeof *cut);
    if (!bp || !cut) {
        free(bp);
        free(cut);
        return -1;
    }
    bp[0] = 0;
    if (k != SZ_ZERO && k != SZ_NONE)
        for (int i = 0; i < t->nrules; i++) {
            const ac_rule_t *r = &t->rules[i];
            if (!rule_covers(r, coll, a, b)) continue;
            bp[nb++] = conv(r->lo, a, k);
            if (r->hi) bp[nb++] = conv(r->hi, a, k);
        }
    qsort(bp, (size_t)nb, sizeof *bp, cmp_ull);
    int nc = 0;
    for (int j = 0; j < nb; j++) {
        if (j && bp[j] == bp[j - 1]) continue;
        /* Winner at native size x: the first rule whose converted range holds x. */
        unsigned long long x = bp[j];
        ac_twin_t tw = {0, 0, 0};
        for (int i = 0; i < t->nrules; i++) {
            const ac_rule_t *r = &t->rules[i];
            if (!rule_covers(r, coll, a, b)) continue;
            int bounded = r->lo != 0 || r->hi != 0, hit;
            if (k == SZ_NONE)
                hit = 1; /* the first rule decides, or nothing can be said */
            else if (k == SZ_ZERO)
                hit = r->lo == 0;
            else
                hit = x >= conv(r->lo, a, k) && (r->hi == 0 || x < conv(r->hi, a, k));
            if (!hit) continue;
            if (k == SZ_NONE && bounded) break;
            if (twin(&r->inst, &tw) == 0) used[i] = 1;
            break;
        }
        if (nc && memcmp(&cut[nc - 1].twin, &tw, sizeof tw) == 0) continue;
        cut[nc].lo = x;
        cut[nc].twin = tw;
        nc++;
    }
    free(bp);
    *out = cut;
    return nc;
}

static int same_cuts(const ac_seg_t *x, const ac_seg_t *y) {
    if (x->ncut != y->ncut) return 0;
    for (int i = 0; i < x->ncut; i++)
        if (x->cut[i].lo != y->cut[i].lo ||
            memcmp(&x->cut[i].twin, &y->cut[i].twin, sizeof(ac_twin_t)))
            return 0;
    return 1;
}

static void free_segs(ac_seg_t *s, int n) {
    for (int i = 0; i < n; i++)
        free(s[i].cut);
    free(s);
}

/* Flattens the rules of coll into ascending communicator-size segments from 1 to INT_MAX.
 * Returns the number of segments (0 when coll has no rule), -1 when out of memory. */
static int flatten(const autocoll_table_t *t, int coll, ac_sizekind_t k, ac_twin_fn twin,
                   char *used, ac_seg_t **out) {
    int n = 0;
    for (int i = 0; i < t->nrules; i++)
        n += t->rules[i].coll == coll;
    *out = NULL;
    if (!n) return 0;
    unsigned long long *bp = malloc((size_t)(2 * n + 1) * sizeof *bp);
    if (!bp) return -1;
    int nb = 0;
    bp[nb++] = 1;
    for (int i = 0; i < t->nrules; i++) {
        const ac_rule_t *r = &t->rules[i];
        if (r->coll != coll) continue;
        bp[nb++] = (unsigned long long)r->pmin;
        if (r->pmax < INT_MAX) bp[nb++] = (unsigned long long)r->pmax + 1;
    }
    qsort(bp, (size_t)nb, sizeof *bp, cmp_ull);
    ac_seg_t *seg = NULL;
    int ns = 0, cap = 0;
    for (int j = 0; j < nb; j++) {
        if (j && bp[j] == bp[j - 1]) continue;
        int a = (int)bp[j], b = INT_MAX;
        for (int q = j + 1; q < nb; q++)
            if (bp[q] != bp[j]) {
                b = (int)bp[q] - 1;
                break;
            }
        /* Size-dependent conversion over several p: split into single sizes when needed. */
        int split = 0;
        if ((k == SZ_TIMES_P || k == SZ_PER_RANK) && a != b)
            for (int i = 0; i < t->nrules && !split; i++) {
                const ac_rule_t *r = &t->rules[i];
                split = rule_covers(r, coll, a, b) && (r->lo || r->hi);
            }
        int giveup = split && (long long)b - a + 1 > AC_EXPORT_MAX_SPLIT;
        for (long long p = a; p <= b; p++) {
            int hi = split && !giveup ? (int)p : b;
            if (ns == cap) {
                cap = cap ? 2 * cap : 16;
                ac_seg_t *s2 = realloc(seg, (size_t)cap * sizeof *s2);
                if (!s2) goto oom;
                seg = s2;
            }
            ac_seg_t *s = &seg[ns];
            s->pmin = (int)p;
            s->pmax = hi;
            if (giveup) {
                s->cut = calloc(1, sizeof *s->cut);
                s->ncut = s->cut ? 1 : -1;
            } else {
                s->ncut = cells(t, coll, (int)p, hi, k, twin, used, &s->cut);
            }
            if (s->ncut < 0) goto oom;
            ns++;
            /* Merge with the previous segment when the decision is the same. */
            if (ns > 1 && same_cuts(&seg[ns - 2], &seg[ns - 1])) {
                seg[ns - 2].pmax = seg[ns - 1].pmax;
                free(seg[ns - 1].cut);
                ns--;
            }
            p = hi;
        }
    }
    free(bp);
    *out = seg;
    return ns;
oom:
    free(bp);
    free_segs(seg, ns);
    return -1;
}

static int count_used(const char *used, int n) {
    int c = 0;
    for (int i = 0; i < n; i++)
        c += used[i];
    return c;
}

/* ---------------------------------------------------------------- Open MPI */

/* Open MPI 4.1 coll/tuned: collective ids of the COLLTYPE enum (coll_base_functions.h) and the
 * algorithm numbers of coll_tuned_<coll>_algorithm (as listed by `ompi_info --all` of Open MPI
 * 4.1.4; the same numbers are used in the dynamic rules file). */
static const int ompi_coll_id[AUTOCOLL_NCOLL] = {
    [AUTOCOLL_ALLGATHER] = 0,
    [AUTOCOLL_ALLGATHERV] = 1,
    [AUTOCOLL_ALLREDUCE] = 2,
    [AUTOCOLL_ALLTOALL] = 3,
    [AUTOCOLL_ALLTOALLV] = 4,
    [AUTOCOLL_BARRIER] = 6,
    [AUTOCOLL_BCAST] = 7,
    [AUTOCOLL_GATHER] = 9,
    [AUTOCOLL_REDUCE] = 11,
    [AUTOCOLL_REDUCE_SCATTER] = 12,
    [AUTOCOLL_REDUCE_SCATTER_BLOCK] = 13,
    [AUTOCOLL_SCATTER] = 15,
};

/* How Open MPI 4.1 (coll_tuned_decision_dynamic.c) computes the size it looks rules up with. */
static const ac_sizekind_t ompi_size[AUTOCOLL_NCOLL] = {
    [AUTOCOLL_ALLGATHER] = SZ_TIMES_P,            /* sdtype size * scount * p */
    [AUTOCOLL_ALLGATHERV] = SZ_PER_RANK,          /* sum of rcounts * dtype size / p */
    [AUTOCOLL_ALLTOALL] = SZ_TIMES_P,             /* sdtype size * scount * p */
    [AUTOCOLL_ALLTOALLV] = SZ_ZERO,               /* always 0 */
    [AUTOCOLL_BCAST] = SZ_BYTES,                  /* dtype size * count */
    [AUTOCOLL_REDUCE] = SZ_BYTES,                 /* dtype size * count */
    [AUTOCOLL_ALLREDUCE] = SZ_BYTES,              /* dtype size * count */
    [AUTOCOLL_REDUCE_SCATTER] = SZ_BYTES,         /* sum of rcounts * dtype size */
    [AUTOCOLL_REDUCE_SCATTER_BLOCK] = SZ_TIMES_P, /* rcount * p * dtype size */
    [AUTOCOLL_GATHER] = SZ_TIMES_P,               /* sdtype size * scount * p */
    [AUTOCOLL_SCATTER] = SZ_TIMES_P,              /* sdtype size * scount * p */
    [AUTOCOLL_BARRIER] = SZ_ZERO,                 /* always 0 */
};

/* autocoll algorithm -> Open MPI 4.1 coll/tuned algorithm with the same communication pattern.
 * seg: the autocoll parameter carried as Open MPI's segment size (bytes in both). */
static const struct {
    int coll;
    const char *name;
    int id;
    const char *seg;
} ompi_twins[] = {
    /* allgather: 1 basic linear (gather + bcast), 2 bruck, 3 recursive doubling, 4 ring
     * (neighbour), 5 neighbor exchange, 6 two proc */
    {AUTOCOLL_ALLGATHER, "gather_bcast", 1, NULL},
    {AUTOCOLL_ALLGATHER, "bruck", 2, NULL},
    {AUTOCOLL_ALLGATHER, "rdb", 3, NULL},
    {AUTOCOLL_ALLGATHER, "lr", 4, NULL},
    {AUTOCOLL_ALLGATHER, "nbx", 5, NULL},
    {AUTOCOLL_ALLGATHER, "p2", 6, NULL},
    /* allgatherv: 1 default (gatherv + bcast), 2 bruck, 3 ring, 4 neighbor exchange, 5 two proc */
    {AUTOCOLL_ALLGATHERV, "gather_bcast", 1, NULL},
    {AUTOCOLL_ALLGATHERV, "bruck", 2, NULL},
    {AUTOCOLL_ALLGATHERV, "lr", 3, NULL},
    {AUTOCOLL_ALLGATHERV, "nbx", 4, NULL},
    {AUTOCOLL_ALLGATHERV, "p2", 5, NULL},
    /* alltoall: 1 basic linear, 2 pairwise (to rank+s, from rank-s), 3 modified bruck,
     * 4 linear with sync, 5 two proc */
    {AUTOCOLL_ALLTOALL, "linear", 1, NULL},
    {AUTOCOLL_ALLTOALL, "ring", 2, NULL},
    {AUTOCOLL_ALLTOALL, "bruck", 3, NULL},
    {AUTOCOLL_ALLTOALL, "p2", 5, NULL},
    /* alltoallv: 1 basic linear, 2 pairwise */
    {AUTOCOLL_ALLTOALLV, "linear", 1, NULL},
    {AUTOCOLL_ALLTOALLV, "ring", 2, NULL},
    /* barrier: 1 linear, 2 double ring, 3 recursive doubling, 4 bruck (dissemination),
     * 5 two proc, 6 tree */
    {AUTOCOLL_BARRIER, "linear", 1, NULL},
    {AUTOCOLL_BARRIER, "double_ring", 2, NULL},
    {AUTOCOLL_BARRIER, "rdb", 3, NULL},
    {AUTOCOLL_BARRIER, "dissemination", 4, NULL},
    {AUTOCOLL_BARRIER, "tree", 6, NULL},
    /* bcast: 1 basic linear (nonblocking sends), 2 chain, 3 pipeline, 4 split binary tree,
     * 5 binary tree, 6 binomial, 7 knomial (radix: MCA coll_tuned_bcast_algorithm_knomial_radix,
     * default 4), 8 scatter_allgather, 9 scatter_allgather_ring */
    {AUTOCOLL_BCAST, "flat", 1, NULL},
    {AUTOCOLL_BCAST, "pipe_chain", 3, "seg"},
    {AUTOCOLL_BCAST, "split_binary", 4, NULL},
    {AUTOCOLL_BCAST, "binary", 5, NULL},
    {AUTOCOLL_BCAST, "pipe_binary", 5, "seg"},
    {AUTOCOLL_BCAST, "binomial", 6, NULL},
    {AUTOCOLL_BCAST, "knomial", 7, NULL}, /* only k=4, checked in ompi_twin */
    {AUTOCOLL_BCAST, "scatter_rdb", 8, NULL},
    {AUTOCOLL_BCAST, "scatter_ring", 9, NULL},
    /* reduce: 1 linear, 2 chain, 3 pipeline, 4 binary, 5 binomial, 6 in-order binary,
     * 7 rabenseifner */
    {AUTOCOLL_REDUCE, "linear", 1, NULL},
    {AUTOCOLL_REDUCE, "pipe_chain", 3, "seg"},
    {AUTOCOLL_REDUCE, "pipe_binary", 4, "seg"},
    {AUTOCOLL_REDUCE, "binomial", 5, NULL},
    {AUTOCOLL_REDUCE, "inorder", 6, NULL},
    {AUTOCOLL_REDUCE, "rab", 7, NULL},
    /* allreduce: 1 basic linear, 2 nonoverlapping (reduce + bcast), 3 recursive doubling,
     * 4 ring, 5 segmented ring */
    {AUTOCOLL_ALLREDUCE, "linear", 1, NULL},
    {AUTOCOLL_ALLREDUCE, "reduce_bcast", 2, NULL},
    {AUTOCOLL_ALLREDUCE, "recursive_doubling", 3, NULL},
    {AUTOCOLL_ALLREDUCE, "ring", 4, NULL},
    {AUTOCOLL_ALLREDUCE, "ring_segmented", 5, "seg"},
    /* reduce_scatter: 1 non-overlapping (reduce + scatterv), 2 recursive halving, 3 ring,
     * 4 butterfly */
    {AUTOCOLL_REDUCE_SCATTER, "reduce_scatterv", 1, NULL},
    {AUTOCOLL_REDUCE_SCATTER, "recursive_halving", 2, NULL},
    {AUTOCOLL_REDUCE_SCATTER, "ring", 3, NULL},
    {AUTOCOLL_REDUCE_SCATTER, "butterfly", 4, NULL},
    /* reduce_scatter_block: 1 basic linear (reduce + scatter), 2 recursive doubling,
     * 3 recursive halving, 4 butterfly */
    {AUTOCOLL_REDUCE_SCATTER_BLOCK, "reduce_scatterv", 1, NULL},
    {AUTOCOLL_REDUCE_SCATTER_BLOCK, "recursive_halving", 3, NULL},
    {AUTOCOLL_REDUCE_SCATTER_BLOCK, "butterfly", 4, NULL},
    /* gather: 1 basic linear, 2 binomial, 3 linear with synchronization (first segment) */
    {AUTOCOLL_GATHER, "linear", 1, NULL},
    {AUTOCOLL_GATHER, "binomial", 2, NULL},
    {AUTOCOLL_GATHER, "linear_sync", 3, "seg"},
    /* scatter: 1 basic linear, 2 binomial, 3 non-blocking linear */
    {AUTOCOLL_SCATTER, "linear", 1, NULL},
    {AUTOCOLL_SCATTER, "binomial", 2, NULL},
    {AUTOCOLL_SCATTER, "linear_nb", 3, NULL},
};

static int ompi_twin(const ac_inst_t *in, ac_twin_t *out) {
    for (size_t i = 0; i < sizeof ompi_twins / sizeof ompi_twins[0]; i++) {
        if (ompi_twins[i].coll != in->alg->coll || strcmp(ompi_twins[i].name, in->alg->name))
            continue;
        if (in->alg->coll == AUTOCOLL_BCAST && !strcmp(in->alg->name, "knomial") &&
            ac_param_int(in, "k") != 4)
            return -1;
        out->id = ompi_twins[i].id;
        out->faninout = 0;
        out->segsize = ompi_twins[i].seg ? (int)ac_param_int(in, ompi_twins[i].seg) : 0;
        return 0;
    }
    return -1;
}

typedef struct {
    const autocoll_table_t *t;
    int exported;
} ac_export_job_t;

static int write_ompi(const void *obj, FILE *f) {
    ac_export_job_t *job = (ac_export_job_t *)obj;
    const autocoll_table_t *t = job->t;
    ac_seg_t *segs[AUTOCOLL_NCOLL] = {0};
    int nseg[AUTOCOLL_NCOLL] = {0}, nalloc[AUTOCOLL_NCOLL] = {0}, ncoll = 0, rc = 0;
    char *used = calloc((size_t)t->nrules + 1, 1);
    if (!used) return -1;
    for (int c = 0; c < AUTOCOLL_NCOLL && !rc; c++) {
        nseg[c] = flatten(t, c, ompi_size[c], ompi_twin, used, &segs[c]);
        if (nseg[c] < 0) {
            nseg[c] = 0;
            rc = -1;
        }
        nalloc[c] = nseg[c];
        int any = 0;
        for (int s = 0; s < nseg[c]; s++)
            for (int k = 0; k < segs[c][s].ncut; k++)
                any |= segs[c][s].cut[k].twin.id != 0;
        if (!any) nseg[c] = 0;
        ncoll += nseg[c] > 0;
    }
    fprintf(f, "%d\n", ncoll);
    for (int c = 0; c < AUTOCOLL_NCOLL && !rc; c++) {
        if (!nseg[c]) continue;
        fprintf(f, "%d\n%d\n", ompi_coll_id[c], nseg[c]);
        for (int s = 0; s < nseg[c]; s++) {
            /* Open MPI uses the last entry whose size is <= the communicator size. */
            fprintf(f, "%d\n%d\n", segs[c][s].pmin, segs[c][s].ncut);
            for (int k = 0; k < segs[c][s].ncut; k++) {
                const ac_cut_t *x = &segs[c][s].cut[k];
                fprintf(f, "%llu %d %d %d\n", x->lo, x->twin.id, x->twin.faninout, x->twin.segsize);
            }
        }
    }
    for (int c = 0; c < AUTOCOLL_NCOLL; c++)
        free_segs(segs[c], nalloc[c]);
    job->exported = count_used(used, t->nrules);
    free(used);
    return rc;
}

AC_EXPORT int autocoll_table_export_ompi(const autocoll_table_t *t, const char *path) {
    ac_export_job_t job = {t, 0};
    if (!t) return -1;
    return ac_table_write_atomic(path, write_ompi, &job) ? -1 : job.exported;
}

/* ---------------------------------------------------------------- MPICH */

/* Guards: conditions an MPICH algorithm needs that autocoll's twin may not (MPICH runs what the
 * file says without checking). */
enum { G_COMM = 1, G_POF2 = 2, G_COUNT_POF2 = 4, G_BLOCK_REGULAR = 8, G_BUILTIN = 16 };

/* autocoll algorithm -> MPICH 4.x MPIR-level algorithm (names of maint/tuning/coll/mpir/
 * generic.json and src/mpi/coll/<coll>/). */
static const struct {
    int coll;
    const char *name, *mpich;
    int guard;
} mpich_twins[] = {
    {AUTOCOLL_ALLGATHER, "rdb", "MPIR_Allgather_intra_recursive_doubling", 0},
    {AUTOCOLL_ALLGATHER, "bruck", "MPIR_Allgather_intra_brucks", 0},
    {AUTOCOLL_ALLGATHER, "lr", "MPIR_Allgather_intra_ring", 0},
    {AUTOCOLL_ALLGATHERV, "rdb", "MPIR_Allgatherv_intra_recursive_doubling", 0},
    {AUTOCOLL_ALLGATHERV, "bruck", "MPIR_Allgatherv_intra_brucks", 0},
    {AUTOCOLL_ALLGATHERV, "lr", "MPIR_Allgatherv_intra_ring", 0},
    {AUTOCOLL_ALLTOALL, "bruck", "MPIR_Alltoall_intra_brucks", 0},
    {AUTOCOLL_ALLTOALL, "pair", "MPIR_Alltoall_intra_pairwise", G_POF2},
    {AUTOCOLL_BCAST, "binomial", "MPIR_Bcast_intra_binomial", 0},
    {AUTOCOLL_BCAST, "scatter_rdb", "MPIR_Bcast_intra_scatter_recursive_doubling_allgather", 0},
    {AUTOCOLL_BCAST, "scatter_ring", "MPIR_Bcast_intra_scatter_ring_allgather", 0},
    {AUTOCOLL_REDUCE, "binomial", "MPIR_Reduce_intra_binomial", 0},
    /* (MPICH asserts a predefined operation in these two) */
    {AUTOCOLL_REDUCE, "rab", "MPIR_Reduce_intra_reduce_scatter_gather",
     G_COMM | G_BUILTIN | G_COUNT_POF2},
    {AUTOCOLL_ALLREDUCE, "recursive_doubling", "MPIR_Allreduce_intra_recursive_doubling", 0},
    {AUTOCOLL_ALLREDUCE, "rabenseifner", "MPIR_Allreduce_intra_reduce_scatter_allgather",
     G_COMM | G_BUILTIN | G_COUNT_POF2},
    {AUTOCOLL_ALLREDUCE, "ring", "MPIR_Allreduce_intra_ring", G_COMM},
    {AUTOCOLL_REDUCE_SCATTER, "recursive_halving", "MPIR_Reduce_scatter_intra_recursive_halving",
     G_COMM},
    {AUTOCOLL_REDUCE_SCATTER, "pairwise", "MPIR_Reduce_scatter_intra_pairwise", G_COMM},
    {AUTOCOLL_REDUCE_SCATTER, "noncommutative", "MPIR_Reduce_scatter_intra_noncommutative",
     G_POF2 | G_BLOCK_REGULAR},
    {AUTOCOLL_REDUCE_SCATTER_BLOCK, "recursive_halving",
     "MPIR_Reduce_scatter_block_intra_recursive_halving", G_COMM},
    {AUTOCOLL_REDUCE_SCATTER_BLOCK, "pairwise", "MPIR_Reduce_scatter_block_intra_pairwise", G_COMM},
    {AUTOCOLL_REDUCE_SCATTER_BLOCK, "noncommutative",
     "MPIR_Reduce_scatter_block_intra_noncommutative", G_POF2},
    {AUTOCOLL_GATHER, "binomial", "MPIR_Gather_intra_binomial", 0},
    {AUTOCOLL_SCATTER, "binomial", "MPIR_Scatter_intra_binomial", 0},
    {AUTOCOLL_BARRIER, "dissemination", "MPIR_Barrier_intra_k_dissemination", 0},
};
#define N_MPICH_TWINS ((int)(sizeof mpich_twins / sizeof mpich_twins[0]))

/* Sizes MPICH's csel can test per collective (src/mpi/coll/src/csel.c): avg_msg_size is the
 * buffer (bcast, reduce, allreduce) or one block (alltoall); total_msg_size is the whole
 * result (allgather(v), reduce_scatter(_block)); gather/scatter's total is counted in elements
 * and alltoallv's is local, so neither is used. */
static const struct {
    const char *key;
    ac_sizekind_t kind;
} mpich_size[AUTOCOLL_NCOLL] = {
    [AUTOCOLL_ALLGATHER] = {"total_msg_size", SZ_TIMES_P},
    [AUTOCOLL_ALLGATHERV] = {"total_msg_size", SZ_BYTES},
    [AUTOCOLL_ALLTOALL] = {"avg_msg_size", SZ_BYTES},
    [AUTOCOLL_ALLTOALLV] = {NULL, SZ_NONE},
    [AUTOCOLL_BCAST] = {"avg_msg_size", SZ_BYTES},
    [AUTOCOLL_REDUCE] = {"avg_msg_size", SZ_BYTES},
    [AUTOCOLL_ALLREDUCE] = {"avg_msg_size", SZ_BYTES},
    [AUTOCOLL_REDUCE_SCATTER] = {"total_msg_size", SZ_BYTES},
    [AUTOCOLL_REDUCE_SCATTER_BLOCK] = {"total_msg_size", SZ_TIMES_P},
    [AUTOCOLL_GATHER] = {NULL, SZ_NONE},
    [AUTOCOLL_SCATTER] = {NULL, SZ_NONE},
    [AUTOCOLL_BARRIER] = {NULL, SZ_NONE},
};

/* Fallbacks: a general algorithm of each collective that accepts every call (any p, op,
 * in-place), used where the table has no exportable choice; MPICH also needs an entry for
 * every collective it may search, so the ones autocoll does not cover are listed too.
 * intra NULL: the collective has no intra/inter split in MPICH's tree. */
static const struct {
    const char *coll, *intra, *inter, *inplace; /* inplace: intra algorithm for MPI_IN_PLACE */
} mpich_fallback[] = {
    /* the twelve collectives of autocoll, in autocoll_coll_t order */
    {"allgather", "MPIR_Allgather_intra_ring", "MPIR_Allgather_inter_local_gather_remote_bcast",
     NULL},
    {"allgatherv", "MPIR_Allgatherv_intra_ring", "MPIR_Allgatherv_inter_remote_gather_local_bcast",
     NULL},
    {"alltoall", "MPIR_Alltoall_intra_pairwise", "MPIR_Alltoall_inter_pairwise_exchange",
     "MPIR_Alltoall_intra_pairwise_sendrecv_replace"},
    {"alltoallv", "MPIR_Alltoallv_intra_scattered", "MPIR_Alltoallv_inter_pairwise_exchange",
     "MPIR_Alltoallv_intra_pairwise_sendrecv_replace"},
    {"bcast", "MPIR_Bcast_intra_binomial", "MPIR_Bcast_inter_remote_send_local_bcast", NULL},
    {"reduce", "MPIR_Reduce_intra_binomial", "MPIR_Reduce_inter_local_reduce_remote_send", NULL},
    {"allreduce", "MPIR_Allreduce_intra_recursive_doubling",
     "MPIR_Allreduce_inter_reduce_exchange_bcast", NULL},
    {"reduce_scatter", "MPIR_Reduce_scatter_intra_recursive_doubling",
     "MPIR_Reduce_scatter_inter_remote_reduce_local_scatter", NULL},
    {"reduce_scatter_block", "MPIR_Reduce_scatter_block_intra_recursive_doubling",
     "MPIR_Reduce_scatter_block_inter_remote_reduce_local_scatter", NULL},
    {"gather", "MPIR_Gather_intra_binomial", "MPIR_Gather_inter_linear", NULL},
    {"scatter", "MPIR_Scatter_intra_binomial", "MPIR_Scatter_inter_linear", NULL},
    /* (MPICH 4.0 has MPIR_Barrier_intra_dissemination, 4.1 and later
     * MPIR_Barrier_intra_k_dissemination: the nonblocking one is in both) */
    {"barrier", "MPIR_Barrier_allcomm_nb", "MPIR_Barrier_inter_bcast", NULL},
    /* the others, which MPICH searches the same tree for */
    {"gatherv", NULL, "MPIR_Gatherv_allcomm_linear", NULL},
    {"scatterv", NULL, "MPIR_Scatterv_allcomm_linear", NULL},
    {"scan", NULL, "MPIR_Scan_intra_recursive_doubling", NULL},
    {"exscan", NULL, "MPIR_Exscan_intra_recursive_doubling", NULL},
    {"alltoallw", "MPIR_Alltoallw_intra_scattered", "MPIR_Alltoallw_inter_pairwise_exchange",
     "MPIR_Alltoallw_intra_pairwise_sendrecv_replace"},
    {"neighbor_allgather", NULL, "MPIR_Neighbor_allgather_allcomm_nb", NULL},
    {"neighbor_allgatherv", NULL, "MPIR_Neighbor_allgatherv_allcomm_nb", NULL},
    {"neighbor_alltoall", NULL, "MPIR_Neighbor_alltoall_allcomm_nb", NULL},
    {"neighbor_alltoallv", NULL, "MPIR_Neighbor_alltoallv_allcomm_nb", NULL},
    {"neighbor_alltoallw", NULL, "MPIR_Neighbor_alltoallw_allcomm_nb", NULL},
    {"ibarrier", "MPIR_Ibarrier_intra_sched_recursive_doubling", "MPIR_Ibarrier_inter_sched_bcast",
     NULL},
    {"iallreduce", "MPIR_Iallreduce_intra_sched_recursive_doubling",
     "MPIR_Iallreduce_inter_sched_remote_reduce_local_bcast", NULL},
    {"iallgather", "MPIR_Iallgather_intra_sched_ring",
     "MPIR_Iallgather_inter_sched_local_gather_remote_bcast", NULL},
    {"iallgatherv", "MPIR_Iallgatherv_intra_sched_ring",
     "MPIR_Iallgatherv_inter_sched_remote_gather_local_bcast", NULL},
    {"ibcast", "MPIR_Ibcast_intra_sched_binomial", "MPIR_Ibcast_inter_sched_flat", NULL},
    {"ireduce", "MPIR_Ireduce_intra_sched_binomial",
     "MPIR_Ireduce_inter_sched_local_reduce_remote_send", NULL},
    {"ireduce_scatter", "MPIR_Ireduce_scatter_intra_sched_recursive_doubling",
     "MPIR_Ireduce_scatter_inter_sched_remote_reduce_local_scatterv", NULL},
    {"ireduce_scatter_block", "MPIR_Ireduce_scatter_block_intra_sched_recursive_doubling",
     "MPIR_Ireduce_scatter_block_inter_sched_remote_reduce_local_scatterv", NULL},
    {"igather", "MPIR_Igather_intra_sched_binomial", "MPIR_Igather_inter_sched_long", NULL},
    {"iscatter", "MPIR_Iscatter_intra_sched_binomial", "MPIR_Iscatter_inter_sched_linear", NULL},
    {"igatherv", NULL, "MPIR_Igatherv_allcomm_sched_linear", NULL},
    {"iscatterv", NULL, "MPIR_Iscatterv_allcomm_sched_linear", NULL},
    {"iexscan", NULL, "MPIR_Iexscan_intra_sched_recursive_doubling", NULL},
    {"iscan", NULL, "MPIR_Iscan_intra_sched_recursive_doubling", NULL},
    {"ialltoall", "MPIR_Ialltoall_intra_sched_pairwise",
     "MPIR_Ialltoall_inter_sched_pairwise_exchange", "MPIR_Ialltoall_intra_sched_inplace"},
    {"ialltoallv", "MPIR_Ialltoallv_intra_sched_blocked",
     "MPIR_Ialltoallv_inter_sched_pairwise_exchange", "MPIR_Ialltoallv_intra_sched_inplace"},
    {"ialltoallw", "MPIR_Ialltoallw_intra_sched_blocked",
     "MPIR_Ialltoallw_inter_sched_pairwise_exchange", "MPIR_Ialltoallw_intra_sched_inplace"},
    {"ineighbor_allgather", NULL, "MPIR_Ineighbor_allgather_allcomm_sched_linear", NULL},
    {"ineighbor_allgatherv", NULL, "MPIR_Ineighbor_allgatherv_allcomm_sched_linear", NULL},
    {"ineighbor_alltoall", NULL, "MPIR_Ineighbor_alltoall_allcomm_sched_linear", NULL},
    {"ineighbor_alltoallv", NULL, "MPIR_Ineighbor_alltoallv_allcomm_sched_linear", NULL},
    {"ineighbor_alltoallw", NULL, "MPIR_Ineighbor_alltoallw_allcomm_sched_linear", NULL},
};
#define N_MPICH_FALLBACK ((int)(sizeof mpich_fallback / sizeof mpich_fallback[0]))

static int mpich_twin(const ac_inst_t *in, ac_twin_t *out) {
    for (int i = 0; i < N_MPICH_TWINS; i++)
        if (mpich_twins[i].coll == in->alg->coll && !strcmp(mpich_twins[i].name, in->alg->name)) {
            out->id = i + 1;
            out->faninout = out->segsize = 0;
            return 0;
        }
    return -1;
}

/* {"algorithm=NAME": {}} (with the radix that MPICH's k-dissemination barrier needs). */
static json_t *mpich_leaf(const char *name) {
    char key[160];
    snprintf(key, sizeof key, "algorithm=%s", name);
    json_t *params = json_object();
    if (params && !strcmp(name, "MPIR_Barrier_intra_k_dissemination"))
        json_object_set_new(params, "k=2", json_object());
    return params ? json_pack("{so}", key, params) : NULL;
}

/* Wraps a twin in the conditions it needs: {"cond": twin, "cond=no" or "...=any": fallback}. */
static json_t *mpich_guarded(int twin_index, const char *fallback) {
    static const struct {
        int flag;
        const char *yes, *any;
    } g[] = {/* MPICH 4.0 takes "=any" only after sizes, counts and comm_hierarchy: the
             * alternative of a yes/no condition is its "=no" */
             {G_COMM, "is_commutative=yes", "is_commutative=no"},
             {G_BUILTIN, "is_op_built_in=yes", "is_op_built_in=no"},
             {G_POF2, "comm_size=pow2", "comm_size=any"},
             {G_BLOCK_REGULAR, "is_block_regular=yes", "is_block_regular=no"}};
    json_t *node = mpich_leaf(mpich_twins[twin_index].mpich);
    int guard = mpich_twins[twin_index].guard;
    if (node && (guard & G_COUNT_POF2)) /* count below the power of two: fallback */
        node = json_pack("{soso}", "count<pow2", mpich_leaf(fallback), "count=any", node);
    for (int i = (int)(sizeof g / sizeof g[0]) - 1; node && i >= 0; i--)
        if (guard & g[i].flag)
            node = json_pack("{soso}", g[i].yes, node, g[i].any, mpich_leaf(fallback));
    return node;
}

/* MPICH's general alltoall(v/w) algorithms do not take MPI_IN_PLACE: node for the other calls,
 * the in-place algorithm for those (inplace NULL: node for every call). */
static json_t *mpich_inplace(json_t *node, const char *inplace) {
    if (!node || !inplace) return node;
    return json_pack("{soso}", "is_sendbuf_inplace=yes", mpich_leaf(inplace),
                     "is_sendbuf_inplace=no", node);
}

static json_t *mpich_cells(const ac_seg_t *s, const char *key, const char *fallback) {
    json_t *o = json_object();
    for (int k = 0; o && k < s->ncut; k++) {
        const ac_cut_t *x = &s->cut[k];
        json_t *leaf = x->twin.id ? mpich_guarded(x->twin.id - 1, fallback) : mpich_leaf(fallback);
        char cond[64];
        /* [lo, next lo) -> "<= next-1"; the last (or one beyond int) is "=any". */
        unsigned long long next = k + 1 < s->ncut ? s->cut[k + 1].lo : 0;
        if (k + 1 < s->ncut && next - 1 <= (unsigned long long)INT_MAX)
            snprintf(cond, sizeof cond, "%s<=%llu", key, next - 1);
        else
            snprintf(cond, sizeof cond, "%s=any", key);
        if (!leaf || json_object_set_new(o, cond, leaf)) {
            json_decref(o);
            return NULL;
        }
        if (!strstr(cond, "=any")) continue;
        break; /* sizes beyond int cannot be told apart by MPICH */
    }
    return o;
}

static json_t *mpich_intra(const autocoll_table_t *t, int c, char *used, int *err) {
    const char *fb = mpich_fallback[c].intra;
    ac_seg_t *segs;
    int ns = flatten(t, c, mpich_size[c].kind, mpich_twin, used, &segs);
    if (ns < 0) {
        *err = 1;
        return NULL;
    }
    json_t *o = json_object();
    for (int s = 0; o && s < ns; s++) {
        json_t *inner;
        if (mpich_size[c].key)
            inner = mpich_cells(&segs[s], mpich_size[c].key, fb);
        else
            inner = segs[s].cut[0].twin.id ? mpich_guarded(segs[s].cut[0].twin.id - 1, fb)
                                           : mpich_leaf(fb);
        char cond[64];
        if (s + 1 < ns)
            snprintf(cond, sizeof cond, "comm_size<=%d", segs[s].pmax);
        else
            snprintf(cond, sizeof cond, "comm_size=any");
        if (!inner || json_object_set_new(o, cond, inner)) {
            json_decref(o);
            o = NULL;
        }
    }
    free_segs(segs, ns);
    if (o && ns == 0) json_object_set_new(o, "comm_size=any", mpich_leaf(fb));
    o = mpich_inplace(o, mpich_fallback[c].inplace);
    if (!o) *err = 1;
    return o;
}

static int write_mpich(const void *obj, FILE *f) {
    ac_export_job_t *job = (ac_export_job_t *)obj;
    const autocoll_table_t *t = job->t;
    char *used = calloc((size_t)t->nrules + 1, 1);
    json_t *root = json_object();
    int err = !used || !root;
    for (int i = 0; !err && i < N_MPICH_FALLBACK; i++) {
        char key[96];
        json_t *node;
        snprintf(key, sizeof key, "collective=%s", mpich_fallback[i].coll);
        if (i < AUTOCOLL_NCOLL || mpich_fallback[i].intra) {
            /* autocoll's collectives from the table, the others their fallback */
            json_t *intra = i < AUTOCOLL_NCOLL ? mpich_intra(t, i, used, &err)
                                               : mpich_inplace(mpich_leaf(mpich_fallback[i].intra),
                                                               mpich_fallback[i].inplace);
            node = intra ? json_pack("{soso}", "comm_type=intra", intra, "comm_type=inter",
                                     mpich_leaf(mpich_fallback[i].inter))
                         : NULL;
        } else {
            node = mpich_leaf(mpich_fallback[i].inter);
        }
        if (!node || json_object_set_new(root, key, node)) err = 1;
    }
    if (!err && json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER)) err = 1;
    if (!err) fputc('\n', f);
    json_decref(root);
    job->exported = used ? count_used(used, t->nrules) : 0;
    free(used);
    return err ? -1 : 0;
}

AC_EXPORT int autocoll_table_export_mpich(const autocoll_table_t *t, const char *path) {
    ac_export_job_t job = {t, 0};
    if (!t) return -1;
    return ac_table_write_atomic(path, write_mpich, &job) ? -1 : job.exported;
}
