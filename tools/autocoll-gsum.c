/*
 * autocoll-gsum: the Gsum benchmark of seed 003 (Bongo et al.) §5.2, Fig. 7 (spec
 * allreduce-trees.md §8) on the configurable reduction trees (allreduce `tree`):
 *
 *   barrier; t0 = now
 *   repeat N times: allreduce(tree A); allreduce(tree B)
 *   per-call time = (now - t0) / (2N)
 *
 * Every rank contributes one int (4 B, the default) or 64 ints (256 B, element-wise sum); the
 * result of every call is checked on every rank. The time of a run is the slowest rank's.
 * Several runs give the run-to-run spread (the paper reports a standard deviation below 1 %).
 *
 * Design choices. The two trees are forced through autocoll_force. When A and B are the same
 * specification (the paper's case: identical trees used alternately), it is forced once: the
 * library already alternates tag ranges from call to call (tag slots), which is what the
 * alternation emulates (spec §3.2). When they differ, the forcing is switched before every
 * call; its own cost (measured alone, 2N switches) is reported next to the figures and is
 * included in them. With AUTOCOLL_TRACE=collectives every call leaves its per-stage records
 * (docs/tracing.md); autocoll-report then prints the stage tables of each tree separately
 * (the paper analyses one of the two alternating trees).
 *
 * Cost: 2N allreduce calls per run, plus one barrier and one reduction of the times.
 */
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"

static void usage(FILE *f) {
    fprintf(f, "usage: autocoll-gsum [-n N] [-s 4|256|BYTES] [-r RUNS] [-A SPEC] [-B SPEC]\n"
               "       autocoll-gsum --help | --version\n"
               "Seed 003's Gsum: N iterations of allreduce(tree A); allreduce(tree B), sum of\n"
               "ints, result checked on every rank; prints the time per call of each run.\n"
               "  -n N     iterations (2N calls per run; default 1000)\n"
               "  -s B     payload in bytes, a multiple of 4 (default 4; the paper: 4 or 256)\n"
               "  -r RUNS  runs (default 3)\n"
               "  -A, -B   tree specifications or preset names (default binary for both)\n");
}

/* The forcing string of a tree specification: quoted when it holds '=', ',' or ';'. */
static int force_string(const char *spec, char *buf, size_t len) {
    int q = strpbrk(spec, "=,;") != NULL;
    int n = snprintf(buf, len, q ? "tree:spec=\"%s\"" : "tree:spec=%s", spec);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

static long parse_long(const char *s, long lo, long hi, const char *what, int *bad) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "autocoll-gsum: %s '%s': expected an integer in [%ld, %ld]\n", what, s, lo,
                hi);
        *bad = 1;
    }
    return v;
}

int main(int argc, char **argv) {
    long iters = 1000, bytes = 4, runs = 3;
    const char *sa = "binary", *sb = NULL;
    int bad = 0, o;
    static const struct option lo[] = {
        {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0}};
    while ((o = getopt_long(argc, argv, ":n:s:r:A:B:hV", lo, NULL)) != -1) {
        switch (o) {
        case 'n':
            iters = parse_long(optarg, 1, 100000000, "-n", &bad);
            break;
        case 's':
            bytes = parse_long(optarg, 4, 1 << 24, "-s", &bad);
            if (!bad && bytes % 4) {
                fprintf(stderr, "autocoll-gsum: -s %ld: not a multiple of 4\n", bytes);
                bad = 1;
            }
            break;
        case 'r':
            runs = parse_long(optarg, 1, 1000, "-r", &bad);
            break;
        case 'A':
            sa = optarg;
            break;
        case 'B':
            sb = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("autocoll-gsum (autocoll) %s\n", autocoll_version());
            return 0;
        default:
            fprintf(stderr, "autocoll-gsum: bad option '%s'\n", argv[optind - 1]);
            bad = 1;
        }
    }
    if (!bad && optind != argc) {
        fprintf(stderr, "autocoll-gsum: unexpected argument '%s'\n", argv[optind]);
        bad = 1;
    }
    if (bad) {
        usage(stderr);
        return 2;
    }
    if (!sb) sb = sa;
    char fa[1024], fb[1024];
    if (force_string(sa, fa, sizeof fa) || force_string(sb, fb, sizeof fb)) {
        fprintf(stderr, "autocoll-gsum: specification too long\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int same = strcmp(fa, fb) == 0;
    if (autocoll_force(AUTOCOLL_ALLREDUCE, fb) != MPI_SUCCESS ||
        autocoll_force(AUTOCOLL_ALLREDUCE, fa) != MPI_SUCCESS) {
        if (me == 0)
            fprintf(stderr,
                    "autocoll-gsum: cannot force '%s' / '%s' (AUTOCOLL_VERBOSE=1 says why)\n", fa,
                    fb);
        MPI_Finalize();
        return 2;
    }
    int n = (int)(bytes / 4), wrong = 0;
    int *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
    if (!in || !out) {
        fprintf(stderr, "autocoll-gsum: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < n; i++)
        in[i] = me + 1 + i;
    /* sum over ranks of (r + 1 + i) */
    long long base = (long long)p * (p + 1) / 2;

    /* The cost of switching the forcing alone (only when the trees differ). */
    double tforce = 0;
    if (!same) {
        double t0 = MPI_Wtime();
        for (long k = 0; k < iters; k++) {
            autocoll_force(AUTOCOLL_ALLREDUCE, fa);
            autocoll_force(AUTOCOLL_ALLREDUCE, fb);
        }
        tforce = (MPI_Wtime() - t0) / (2.0 * (double)iters);
        autocoll_force(AUTOCOLL_ALLREDUCE, fa);
    }
    if (me == 0) {
        printf("# autocoll-gsum: p %d, %ld B (%d int%s), N %ld (2N calls per run), %ld run%s\n", p,
               bytes, n, n == 1 ? "" : "s", iters, runs, runs == 1 ? "" : "s");
        printf("# tree A: %s\n# tree B: %s%s\n", fa, fb, same ? " (the same: forced once)" : "");
        if (!same)
            printf("# switching the forcing: %.3f us per call, included below\n", tforce * 1e6);
        printf("# run  per-call-us (slowest rank)\n");
    }
    double *per = malloc((size_t)runs * sizeof *per);
    if (!per) MPI_Abort(MPI_COMM_WORLD, 1);
    for (long r = 0; r < runs; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long k = 0; k < iters; k++) {
            for (int t = 0; t < 2; t++) {
                if (!same) autocoll_force(AUTOCOLL_ALLREDUCE, t ? fb : fa);
                MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                for (int i = 0; i < n; i++)
                    wrong += out[i] != (int)(base + (long long)p * i);
            }
        }
        double t = MPI_Wtime() - t0, tmax = 0;
        MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        per[r] = tmax / (2.0 * (double)iters);
        if (me == 0) printf("%ld %.3f\n", r, per[r] * 1e6);
    }
    int wsum = 0;
    MPI_Allreduce(&wrong, &wsum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        double m = 0, s = 0;
        for (long r = 0; r < runs; r++)
            m += per[r];
        m /= (double)runs;
        for (long r = 0; r < runs; r++)
            s += (per[r] - m) * (per[r] - m);
        s = runs > 1 ? sqrt(s / (double)(runs - 1)) : 0;
        printf("# mean %.3f us per call, run-to-run stdev %.3f us (%.2f %%)\n", m * 1e6, s * 1e6,
               m > 0 ? 100 * s / m : 0);
        if (wsum)
            printf("# WRONG RESULTS: %d element-calls\n", wsum);
        else
            printf("# results checked on every rank: all correct\n");
    }
    autocoll_force(AUTOCOLL_ALLREDUCE, NULL);
    free(per);
    free(in);
    free(out);
    MPI_Finalize();
    return wsum ? 1 : 0;
}
