/*
 * autocoll-report: reads the per-rank trace files of a run (AUTOCOLL_TRACE, docs/tracing.md) and
 * prints, in Markdown:
 *   1. per (communicator, collective, call site, size): calls, mean time per call (mean over
 *      ranks of exit - entry), the instances that ran and who chose them;
 *   2. the process arrival patterns of seed 000 §4.2 (spec star-stage-ethernet.md §6.1) per
 *      (communicator, collective, call site): average- and worst-case imbalance times and
 *      factors (T = alpha + beta n, the network model measured at MPI_Init and stored in the
 *      files, or -a/-b), the balanced/imbalanced split and the latest arriver; the
 *      distributions of the per-call worst-case factors (CDF quantiles, histogram; with -t a
 *      gnuplot PNG of the CDFs);
 *   3. with point-to-point records: the hit ratios of seed 004's predictors per process
 *      (min/avg/max over processes) per predictor and window size on the send stream
 *      (identifiers <dest, comm>) and the receive stream (6-tuples), and the
 *      reconfiguration-hiding ratio of spec predictors-latency.md §4.2 for d in {1, 5, 10, 25}
 *      us and CPU factors 1 and 10 (B = 1 GB/s);
 *   3b. the memory each predictor uses (spec §3.5, the form of seed 004 Tables 3.1 and 6.1).
 *   3c. seed 004's traffic characterisation (spec §2.4): request counts, distinct identifiers,
 *      inter-send time statistics, communication/computation ratio, destination histograms,
 *      message sizes, the CDF of process 0's pure inter-send times (report_traffic; with -t
 *      gnuplot PNGs of the destination histogram and of the CDF); and the
 *      early-arrival percentages of spec §4.3 (report_early). Pure inter-send times have the
 *      wrapper overheads calibrated at MPI_Init (the files' "#wrap") subtracted (spec §2.3).
 *   4. with reduction-tree stage records (allreduce `tree`): seed 003's per-stage statistics of
 *      the slowest rank (Table 2), per-part means per rank (Tables 3-4) with the two total
 *      identities of spec allreduce-trees.md §7.2 checked, the root's arrival/departure order
 *      matrix (Table 1) and, with -t, a timemap (gnuplot PNG);
 *   4b. with the part records of node-aware calls (bcast, reduce, gather, scatter, allgather,
 *      alltoall `hier`, allreduce `hierarchical`), per (communicator, collective, call site,
 *      algorithm, root, size): both identities per rank on each rank's path through its parts
 *      (ac_part_path), the spec 7.2 metrics per stage (intra-node / inter-node: min, mean and
 *      max of the arrival and departure waits, down and up latencies, core, edges, part times),
 *      the same Tables 2-3, the arrival/departure matrix of a node leader's reduce and bcast
 *      trees (allreduce `hierarchical`) or, without such a rank, of the root of a tree that goes
 *      one way (bcast, reduce `hier`; ac_part_orders) and the timemap.
 * A file that cannot be read (missing, truncated, corrupt, foreign) is reported with its name,
 * offset and reason and left out; the exit status is then 1.
 *
 * Cost: O(R log R) for R records (sorting), memory proportional to the records of all files.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"
#include "../src/trace/predict.h"
#include "../src/trace/trace.h"

static void usage(FILE *f) {
    fprintf(f, "usage: autocoll-report [-a ALPHA_US] [-b BETA_NS_PER_BYTE] [-t MAPDIR] DIR\n"
               "       autocoll-report --help | --version\n"
               "Reads DIR/autocoll-trace.<rank>.bin (written with AUTOCOLL_TRACE) and prints\n"
               "per-call-site times and instances, process arrival patterns and, with\n"
               "point-to-point records, predictor hit ratios and reconfiguration hiding.\n"
               "  -a, -b  the network model T = alpha + beta n of the imbalance factors\n"
               "          (default: the one measured at MPI_Init, stored in the files)\n"
               "  -t       write the stage timemaps, the arrival-factor CDFs, the\n"
               "          destination histogram and the inter-send time CDF (gnuplot PNG,\n"
               "          with their data files) into MAPDIR\n");
}

typedef struct {
    ac_trace_file_t *f;
    int nf;
} run_t;

static const char *str_of(const ac_trace_file_t *t, uint32_t id) {
    return id < t->nstr ? t->str[id] : "-";
}

/* ---------------------------------------------------------------- 1. calls per site */

typedef struct {
    int32_t leader;
    uint32_t comm;
    int kind;
    uint64_t bytes;
    const char *site; /* string of the file it was first seen in */
    uint64_t records;
    double time; /* sum of exit - entry (s) */
    const char *inst[4];
    uint64_t ninst[4];
    uint64_t other_inst;
    uint64_t src[8];
} cs_t;

static int cs_cmp(const void *x, const void *y) {
    const cs_t *a = x, *b = y;
    if (a->leader != b->leader) return a->leader < b->leader ? -1 : 1;
    if (a->comm != b->comm) return a->comm < b->comm ? -1 : 1;
    if (a->kind != b->kind) return a->kind - b->kind;
    int c = strcmp(a->site, b->site);
    if (c) return c;
    return a->bytes < b->bytes ? -1 : a->bytes > b->bytes;
}

static const char *src_name(int s) {
    static const char *n[] = {"native", "forced",   "fallback", "table",
                              "model",  "adaptive", "probe",    "trivial"};
    return s >= 0 && s < 8 ? n[s] : "?";
}

static int report_calls(const run_t *run) {
    size_t n = 0, cap = 64;
    cs_t *v = calloc(cap, sizeof *v);
    if (!v) return -1;
    for (int i = 0; i < run->nf; i++) {
        const ac_trace_file_t *t = &run->f[i];
        for (uint64_t k = 0; k < t->nrec; k++) {
            const ac_trace_rec_t *r = &t->rec[k];
            if (r->kind >= AUTOCOLL_NCOLL) continue;
            const char *site = str_of(t, r->site);
            size_t j;
            for (j = 0; j < n; j++)
                if (v[j].leader == r->peer && v[j].comm == r->comm && v[j].kind == r->kind &&
                    v[j].bytes == r->bytes && !strcmp(v[j].site, site))
                    break;
            if (j == n) {
                if (n == cap) {
                    cs_t *nv = realloc(v, 2 * cap * sizeof *v);
                    if (!nv) {
                        free(v);
                        return -1;
                    }
                    memset(nv + cap, 0, cap * sizeof *nv);
                    v = nv;
                    cap *= 2;
                }
                v[n] = (cs_t){.leader = r->peer,
                              .comm = r->comm,
                              .kind = r->kind,
                              .bytes = r->bytes,
                              .site = site};
                n++;
            }
            cs_t *c = &v[j];
            c->records++;
            c->time += (double)(r->t_out - r->t_in) * 1e-9;
            if (r->src < 8) c->src[r->src]++;
            const char *in = str_of(t, r->inst);
            int s;
            for (s = 0; s < 4 && c->inst[s] && strcmp(c->inst[s], in); s++)
                ;
            if (s == 4)
                c->other_inst++;
            else {
                c->inst[s] = in;
                c->ninst[s]++;
            }
        }
    }
    qsort(v, n, sizeof *v, cs_cmp);
    printf("## Collective calls\n\n"
           "Per communicator (world rank of its rank 0 . its number there), collective, call site "
           "and size: records (calls x ranks), mean time of a call on a rank, instances that ran "
           "(records) and decision sources.\n\n"
           "| comm | collective | site | bytes | records | mean time (us) | instances | sources "
           "|\n|---|---|---|---|---|---|---|---|\n");
    for (size_t j = 0; j < n; j++) {
        const cs_t *c = &v[j];
        printf("| %d.%u | %s | %s | %llu | %llu | %.2f | ", c->leader, c->comm,
               ac_coll_name(c->kind), c->site, (unsigned long long)c->bytes,
               (unsigned long long)c->records, 1e6 * c->time / (double)c->records);
        for (int s = 0; s < 4 && c->inst[s]; s++)
            printf("%s%s (%llu)", s ? ", " : "", c->inst[s], (unsigned long long)c->ninst[s]);
        if (c->other_inst) printf(", others (%llu)", (unsigned long long)c->other_inst);
        printf(" | ");
        for (int s = 0, first = 1; s < 8; s++)
            if (c->src[s]) {
                printf("%s%s %llu", first ? "" : ", ", src_name(s), (unsigned long long)c->src[s]);
                first = 0;
            }
        printf(" |\n");
    }
    printf("\n");
    free(v);
    return 0;
}

/* ---------------------------------------------------------------- 2. arrival patterns */

static const char *label(const run_t *run, uint64_t h) {
    for (int i = 0; i < run->nf; i++)
        for (uint32_t s = 0; s < run->f[i].nstr; s++)
            if (ac_trace_str_hash(run->f[i].str[s]) == h) return run->f[i].str[s];
    return "-";
}

/* The arrival groups of the run's collective records (trace_summary.c); windows: with the
 * statistics per window of calls. Returns 0, or -1 out of memory. */
static int run_groups(const run_t *run, double alpha, double beta, int windows, ac_arr_group_t **g,
                      size_t *ng) {
    size_t total = 0, n = 0;
    for (int i = 0; i < run->nf; i++)
        total += run->f[i].nrec;
    ac_arr_sample_t *s = malloc((total ? total : 1) * sizeof *s);
    if (!s) return -1;
    for (int i = 0; i < run->nf; i++)
        n += ac_arrival_samples_from_file(&run->f[i], s + n);
    int rc = windows ? ac_arrival_groups_windows(s, n, alpha, beta, 0, g, ng)
                     : ac_arrival_groups(s, n, alpha, beta, g, ng);
    free(s);
    return rc;
}

static int report_arrivals(const run_t *run, double alpha, double beta) {
    ac_arr_group_t *g = NULL;
    size_t ng = 0;
    if (run_groups(run, alpha, beta, 0, &g, &ng) != 0) return -1;
    printf("## Process arrival patterns\n\n"
           "Seed 000 §4.2.1: per call, average-case imbalance mean |a_i - mean a| and worst-case "
           "imbalance max a_i - min a_i of the entry times a_i (on rank 0's clock), and the "
           "factors imbalance / T with T = %.3f us + %.4f ns/B x size; balanced when the "
           "worst-case factor is below 1. Means over the calls seen on every rank.\n\n"
           "| comm | collective | site | p | calls | mean B | mean time (us) | avg imb (us) | "
           "worst imb (us) | max worst (us) | avg factor | worst factor | max worst factor | "
           "balanced | imbalanced | latest rank (calls) | incomplete |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
           alpha * 1e6, beta * 1e9);
    for (size_t i = 0; i < ng; i++) {
        const ac_arr_group_t *x = &g[i];
        printf("| %d.%u | %s | %s | %d | %llu | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | "
               "%.2f | %llu | %llu | %d (%llu) | %llu |\n",
               x->leader, x->comm, ac_coll_name(x->kind), label(run, x->site), x->csize,
               (unsigned long long)x->calls, x->bytes, 1e6 * x->elapsed, 1e6 * x->avg_imb,
               1e6 * x->worst_imb, 1e6 * x->max_worst_imb, x->avg_factor, x->worst_factor,
               x->max_worst_factor, (unsigned long long)x->balanced,
               (unsigned long long)(x->calls - x->balanced), x->late_rank,
               (unsigned long long)x->late_count, (unsigned long long)x->incomplete);
    }
    printf("\n");
    ac_arrival_groups_free(g, ng);
    return 0;
}

/* Distributions of the arrival factors (seed 000 §4.2, spec star-stage-ethernet.md §6.1, §6.3):
 * per group (communicator, collective, call site) the worst-case imbalance factors of its
 * complete calls (ac_arrival_group_factors) as quantiles of their CDF and as a histogram in
 * power-of-two classes, [0, 1) the balanced calls, up to >= 128 (the seed's controlled
 * experiment uses maximum factors 1, 9, 33 and 129); the median average-case factor beside. With
 * a MAPDIR, the CDFs of all groups in one gnuplot PNG (log x), when gnuplot runs. O(C log C) for
 * C calls of a group. */
enum { AF_NBIN = 9 };

/* The smallest v[k] (v sorted, n > 0) with at least q n values <= it. */
static double quantile(const double *v, size_t n, double q) {
    size_t at = (size_t)ceil(q * (double)n);
    return v[at ? at - 1 : 0];
}

/* Phases (seed 000 §4.2.4, spec star-stage-ethernet.md §6.3 finding 5): each group's complete
 * calls in windows of consecutive calls (automatic size, as the finalize summary), one row per
 * window of the groups that have two windows or more; a spike is a window whose mean worst-case
 * factor is at least 1 and more than twice the median over the group's windows. */
static int report_phases(const run_t *run, double alpha, double beta) {
    ac_arr_group_t *g = NULL;
    size_t ng = 0;
    if (run_groups(run, alpha, beta, 1, &g, &ng) != 0) return -1;
    printf("## Phases of the arrival patterns\n\n"
           "Each (communicator, collective, call site) with at least two windows of consecutive "
           "complete calls (max(10, ceil(calls / 10)) calls per window): per window the means "
           "of its calls' factors, its largest worst-case imbalance, its balanced calls and its "
           "latest arriver; a spike is a window whose mean worst-case factor is at least 1 and "
           "more than twice the median over the group's windows.\n\n"
           "| comm | collective | site | calls | avg factor | worst factor | max worst (us) | "
           "balanced | latest rank (calls) | group median | spike |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < ng; i++) {
        const ac_arr_group_t *x = &g[i];
        for (size_t k = 0; x->nwin >= 2 && k < x->nwin; k++) {
            const ac_arr_window_t *w = &x->win[k];
            printf("| %d.%u | %s | %s | %llu-%llu | %.2f | %.2f | %.2f | %llu of %llu | %d (%llu) "
                   "| %.2f | %s |\n",
                   x->leader, x->comm, ac_coll_name(x->kind), label(run, x->site),
                   (unsigned long long)w->first_seq, (unsigned long long)w->last_seq, w->avg_factor,
                   w->worst_factor, 1e6 * w->max_worst_imb, (unsigned long long)w->balanced,
                   (unsigned long long)w->calls, w->late_rank, (unsigned long long)w->late_count,
                   x->win_median, w->spike ? "yes" : "no");
        }
    }
    printf("\n");
    ac_arrival_groups_free(g, ng);
    return 0;
}

/* The data file DIR/NAME.dat of a plot, opened for writing, and its PNG's path DIR/NAME.png
 * (both into buffers of PLOT_PATH bytes); NULL, said on stderr, when it cannot be opened. */
enum { PLOT_PATH = 4096 };
static FILE *plot_open(const char *mapdir, const char *name, char *dat, char *png) {
    snprintf(dat, PLOT_PATH, "%s/%s.dat", mapdir, name);
    snprintf(png, PLOT_PATH, "%s/%s.png", mapdir, name);
    FILE *f = fopen(dat, "w");
    if (!f) perror(dat);
    return f;
}

static int report_arrival_dist(const run_t *run, double alpha, double beta, const char *mapdir) {
    ac_arr_group_t *g = NULL;
    size_t ng = 0, maxc = 1;
    if (run_groups(run, alpha, beta, 1, &g, &ng) != 0) return -1;
    int rc = -1, any = 0;
    for (size_t i = 0; i < ng; i++) {
        if (g[i].ncs > maxc) maxc = g[i].ncs;
        any |= g[i].ncs > 0;
    }
    double *w = malloc(maxc * sizeof *w), *a = malloc(maxc * sizeof *a);
    FILE *dat = NULL;
    char datp[PLOT_PATH] = "", pngp[PLOT_PATH] = "";
    if (!w || !a) goto out;
    if (!any) {
        rc = 0;
        goto out;
    }
    static const double q[] = {0, 0.1, 0.25, 0.5, 0.75, 0.9, 1};
    printf(
        "## Arrival-factor distributions\n\n"
        "Seed 000 §4.2, spec star-stage-ethernet.md §6.1: per group (numbered as in the "
        "figure), the worst-case imbalance factor of each complete call (worst-case imbalance "
        "/ T, T as above): quantiles of its CDF (the factor below which the given fraction of "
        "the calls lie) and the median average-case factor.\n\n"
        "| # | comm | collective | site | calls | min | 0.10 | 0.25 | median | 0.75 | 0.90 | max "
        "| median avg factor |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    if (mapdir) {
        dat = plot_open(mapdir, "arrival-cdf", datp, pngp);
    }
    int gid = 0;
    for (size_t i = 0; i < ng; i++) {
        const ac_arr_group_t *x = &g[i];
        size_t c = ac_arrival_group_factors(x, w, a);
        if (!c) continue;
        gid++;
        qsort(w, c, sizeof *w, ac_dbl_cmp);
        qsort(a, c, sizeof *a, ac_dbl_cmp);
        printf("| %d | %d.%u | %s | %s | %zu |", gid, x->leader, x->comm, ac_coll_name(x->kind),
               label(run, x->site), c);
        for (size_t k = 0; k < sizeof q / sizeof q[0]; k++)
            printf(" %.2f |", quantile(w, c, q[k]));
        printf(" %.2f |\n", quantile(a, c, 0.5));
        if (dat) { /* one block per group: factor (at least 1e-3 for the log axis), fraction */
            for (size_t k = 0; k < c; k++)
                fprintf(dat, "%g %g\n", w[k] > 1e-3 ? w[k] : 1e-3, (double)(k + 1) / (double)c);
            fprintf(dat, "\n\n");
        }
    }
    printf("\nHistogram of the worst-case imbalance factors (calls per class; [0, 1) are the "
           "balanced calls).\n\n"
           "| # | collective | < 1 | 1-2 | 2-4 | 4-8 | 8-16 | 16-32 | 32-64 | 64-128 | >= 128 |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|\n");
    gid = 0;
    for (size_t i = 0; i < ng; i++) {
        const ac_arr_group_t *x = &g[i];
        size_t c = ac_arrival_group_factors(x, w, NULL);
        if (!c) continue;
        gid++;
        uint64_t bin[AF_NBIN] = {0};
        for (size_t k = 0; k < c; k++) {
            int b = 0;
            for (double lim = 1; b < AF_NBIN - 1 && w[k] >= lim; lim *= 2)
                b++;
            bin[b]++;
        }
        printf("| %d | %s |", gid, ac_coll_name(x->kind));
        for (int b = 0; b < AF_NBIN; b++)
            printf(" %llu |", (unsigned long long)bin[b]);
        printf("\n");
    }
    printf("\n");
    if (dat) {
        fclose(dat);
        dat = NULL;
        char cmd[16384];
        snprintf(cmd, sizeof cmd,
                 "gnuplot -e \"set terminal png size 900,600; set output '%s'; "
                 "set logscale x; set xlabel 'worst-case imbalance factor'; "
                 "set ylabel 'fraction of calls'; set yrange [0:1.05]; set grid; "
                 "set key bottom right; "
                 "plot for [i=0:%d] '%s' index i using 1:2 with steps title sprintf('#%%d', i+1)\" "
                 "2>/dev/null",
                 pngp, gid - 1, datp);
        if (system(cmd) == 0)
            printf("Arrival-factor CDFs: %s (data %s).\n\n", pngp, datp);
        else
            printf("Arrival-factor CDF data: %s (gnuplot unavailable or failed: no PNG).\n\n",
                   datp);
    }
    rc = 0;
out:
    if (dat) fclose(dat);
    free(w);
    free(a);
    ac_arrival_groups_free(g, ng);
    return rc;
}

/* ---------------------------------------------------------------- 3. point-to-point */

/* A point-to-point record (not a collective's, not a stage record). */
static int is_p2p(const ac_trace_rec_t *r) {
    return r->kind >= AC_TK_P2P_FIRST && r->kind < AC_TK_P2P_END;
}

/* A send request of spec 2.1, or the start of a persistent send. */
static int is_send(const ac_trace_rec_t *r) {
    return ac_trace_is_send(r);
}

/* A receive request, or the start of a persistent receive. */
static int is_recv(const ac_trace_rec_t *r) {
    if (r->kind == AC_TK_RECV || r->kind == AC_TK_IRECV) return 1;
    return (r->kind == AC_TK_START || r->kind == AC_TK_STARTALL) &&
           (r->flags & (AC_TF_PERSISTENT | AC_TF_RECV_SIDE)) ==
               (AC_TF_PERSISTENT | AC_TF_RECV_SIDE);
}

/* A process's stream: identifiers, sites, sizes and, on the send side, the pure inter-send
 * times of spec 2.3 in us (ac_pure_gaps: t_in(b) - t_out(a) minus the durations of the other MPI
 * calls between them and the wrapper overheads calibrated at MPI_Init, "#wrap" in the file). */
typedef struct {
    ac_id *x;
    uint64_t *site;
    double *size, *gap;
    size_t n;
} stream_t;

static int stream_of(const ac_trace_file_t *t, int send, stream_t *s) {
    memset(s, 0, sizeof *s);
    size_t m = t->nrec ? t->nrec : 1;
    s->x = malloc(m * sizeof *s->x);
    s->site = malloc(m * sizeof *s->site);
    s->size = malloc(m * sizeof *s->size);
    s->gap = calloc(m, sizeof *s->gap);
    if (!s->x || !s->site || !s->size || !s->gap) return -1;
    for (uint64_t k = 0; k < t->nrec; k++) {
        const ac_trace_rec_t *r = &t->rec[k];
        int mine = send ? is_send(r) : is_recv(r);
        if (!mine || r->ident < 0) continue;
        s->x[s->n] = r->ident;
        s->site[s->n] = r->site < t->nstr ? ac_trace_str_hash(t->str[r->site]) : 0;
        s->size[s->n] = (double)r->bytes;
        s->n++;
    }
    if (send) {
        double oe[AC_WRAP_NCLASS], ox[AC_WRAP_NCLASS];
        ac_trace_file_wrap(t, oe, ox);
        ac_pure_gaps(t->rec, (size_t)t->nrec, oe, ox, s->gap);
        for (size_t i = 0; i < s->n; i++)
            s->gap[i] *= 1e-3; /* us */
    }
    return 0;
}

static void stream_free(stream_t *s) {
    free(s->x);
    free(s->site);
    free(s->size);
    free(s->gap);
}

static void minavgmax(const double *v, int n, char *buf, size_t len) {
    double lo, avg, hi;
    if (ac_pred_summary(v, (size_t)n, &lo, &avg, &hi) == 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.3f / %.3f / %.3f", lo, avg, hi);
}

static int report_p2p(const run_t *run) {
    int any = 0;
    for (int i = 0; i < run->nf && !any; i++)
        for (uint64_t k = 0; k < run->f[i].nrec && !any; k++)
            any = is_p2p(&run->f[i].rec[k]);
    if (!any) {
        printf("## Point-to-point\n\nNo point-to-point records (AUTOCOLL_TRACE=p2p or all).\n\n");
        return 0;
    }
    int nf = run->nf;
    stream_t *st = calloc((size_t)nf, sizeof *st);
    double *v = calloc((size_t)nf, sizeof *v);
    unsigned char *hit = NULL;
    size_t maxn = 0;
    if (!st || !v) goto fail;
    static const int windows[] = {1, 2, 4, 8, 16};
    for (int side = 1; side >= 0; side--) {
        for (int i = 0; i < nf; i++) {
            stream_free(&st[i]);
            if (stream_of(&run->f[i], side, &st[i]) != 0) goto fail;
            if (st[i].n > maxn) maxn = st[i].n;
        }
        printf("## Predictor hit ratios, %s side\n\n"
               "Seed 004 §3, §6: per process, min / avg / max over processes (%s).\n\n"
               "| predictor | window | hit ratio |\n|---|---|---|\n",
               side ? "send" : "receive",
               side ? "identifier <dest, comm>"
                    : "identifier <source, tag, count, type, buf, comm>");
        for (int kind = 0; kind < AC_PRED_NKINDS; kind++) {
            int nw = ac_pred_is_window(kind) ? 5 : 1;
            for (int w = 0; w < nw; w++) {
                ac_pred_params prm;
                ac_pred_params_default(&prm);
                prm.window = windows[w];
                for (int i = 0; i < nf; i++) {
                    ac_pred_stats ps;
                    v[i] = NAN;
                    if (st[i].n &&
                        ac_pred_run(kind, &prm, st[i].x, st[i].site, st[i].n, NULL, NULL, &ps) == 0)
                        v[i] = (double)ps.hits / (double)ps.events;
                }
                char b[96];
                minavgmax(v, nf, b, sizeof b);
                if (ac_pred_is_window(kind))
                    printf("| %s | %d | %s |\n", ac_pred_name(kind), windows[w], b);
                else
                    printf("| %s | - | %s |\n", ac_pred_name(kind), b);
            }
        }
        printf("\n");
        if (!side) break;
        hit = malloc(maxn ? maxn : 1);
        if (!hit) goto fail;
        double oe[AC_WRAP_NCLASS], ox[AC_WRAP_NCLASS];
        int have = ac_trace_file_wrap(&run->f[0], oe, ox) == 0;
        printf("## Reconfiguration hiding (send side)\n\n"
               "Pure inter-send times (spec 2.3): the gap between two sends minus the durations of "
               "the MPI calls between them and the wrapper overheads ");
        if (have)
            printf("calibrated at MPI_Init (rank %d's file, entry / exit, ns: send %.1f / %.1f, "
                   "receive %.1f / %.1f, other %.1f / %.1f).\n\n",
                   run->f[0].rank, oe[0], ox[0], oe[1], ox[1], oe[2], ox[2]);
        else
            printf("(none in the files: not subtracted).\n\n");
        printf("Spec predictors-latency.md §4.2: new cost / original cost of the link set-up "
               "delay d per inter-send gap, B = 1000 B/us; min / avg / max over processes "
               "(smaller is better; LRU k = 1 is last value, the single-port baseline).\n\n"
               "| predictor | CPU factor | d = 1 us | d = 5 us | d = 10 us | d = 25 us |\n"
               "|---|---|---|---|---|---|\n");
        static const int kinds[] = {AC_PRED_LRU, AC_PRED_BETTER_CYCLE2, AC_PRED_TAG_BETTERCYCLE2};
        static const double ds[] = {1, 5, 10, 25};
        for (int k = 0; k < 3; k++)
            for (int cpu = 1; cpu <= 10; cpu += 9) {
                printf("| %s | %d |", ac_pred_name(kinds[k]), cpu);
                for (int d = 0; d < 4; d++) {
                    for (int i = 0; i < nf; i++) {
                        ac_reconf_result rr;
                        v[i] = NAN;
                        if (st[i].n >= 2 &&
                            ac_pred_run(kinds[k], NULL, st[i].x, st[i].site, st[i].n, hit, NULL,
                                        NULL) == 0 &&
                            ac_reconf_hide(st[i].n, st[i].gap, st[i].size, hit, ds[d], 1000.0, cpu,
                                           &rr) == 0)
                            v[i] = rr.ratio;
                    }
                    char b[96];
                    minavgmax(v, nf, b, sizeof b);
                    printf(" %s |", b);
                }
                printf("\n");
            }
        printf("\n");
    }
    for (int i = 0; i < nf; i++)
        stream_free(&st[i]);
    free(st);
    free(v);
    free(hit);
    return 0;
fail:
    for (int i = 0; st && i < nf; i++)
        stream_free(&st[i]);
    free(st);
    free(v);
    free(hit);
    return -1;
}

/* ------------------------------------------------------- 3a. early arrival */

/* Seed 004's characterisation of the traffic (spec predictors-latency.md §2.4): per process the
 * send and receive requests (the streams of the predictors: sends with a <dest, comm>
 * identifier, MPI_Recv and MPI_Irecv with a 6-tuple), their distinct identifiers, the wildcard
 * receives, the minimum pure inter-send time, the fractions of pure inter-send times above 5,
 * 10 and 25 us and the communication/computation ratio (sum of the durations of the wrapped
 * calls / sum of the pure inter-send times, spec 2.4 item 6); min / avg / max over processes.
 * Then the destination histogram pooled over the processes and for process 0 (the peer's world
 * rank; Figs. 3.4, 3.5) with process 0's receives by posted source (Fig. 6.4), the message-size
 * distribution pooled over the processes in power-of-two classes (Figs. 4.1-4.4), and the CDF of
 * process 0's pure inter-send times (Fig. 4.5) as quantiles. Pure inter-send times are those of
 * ac_pure_gaps with each file's calibrated wrapper overheads (spec 2.3). O(R log R). */

/* Power-of-two size class: 0 for 0 bytes, k + 1 for [2^k, 2^(k+1)). */
static int size_class(uint64_t b) {
    int k = 0;
    while (b) {
        k++;
        b >>= 1;
    }
    return k;
}

enum { TR_NCLASS = 66, TR_UNKNOWN = -1 };

typedef struct {
    double v[9]; /* the per-process properties, in the order of tr_names */
} tr_proc_t;

static const char *const tr_names[9] = {"send requests",
                                        "receive requests",
                                        "distinct send identifiers",
                                        "distinct receive identifiers",
                                        "wildcard receives",
                                        "min pure inter-send time (us)",
                                        "inter-send times > 5 us",
                                        "inter-send times > 10 us",
                                        "inter-send times > 25 us"};

static size_t distinct(const int32_t *id, size_t n, unsigned char *seen, size_t cap) {
    size_t d = 0;
    memset(seen, 0, cap);
    for (size_t i = 0; i < n; i++)
        if (id[i] >= 0 && (size_t)id[i] < cap && !seen[id[i]]) {
            seen[id[i]] = 1;
            d++;
        }
    return d;
}

/* Runs gnuplot on script (its output set to png first) and says what came of it. */
static void plot_png(const char *what, const char *png, const char *dat, const char *script) {
    char cmd[16384];
    snprintf(cmd, sizeof cmd,
             "gnuplot -e \"set terminal png size 900,600; set output '%s'; %s\" 2>/dev/null", png,
             script);
    if (system(cmd) == 0)
        printf("%s: %s (data %s).\n\n", what, png, dat);
    else
        printf("%s data: %s (gnuplot unavailable or failed: no PNG).\n\n", what, dat);
}

static int report_traffic(const run_t *run, const char *mapdir) {
    int any = 0;
    for (int i = 0; i < run->nf && !any; i++)
        for (uint64_t k = 0; k < run->f[i].nrec && !any; k++)
            any = is_p2p(&run->f[i].rec[k]);
    if (!any) return 0;
    int nf = run->nf, np = run->f[0].nprocs, rc = -1;
    size_t maxr = 1;
    for (int i = 0; i < nf; i++)
        if (run->f[i].nrec > maxr) maxr = (size_t)run->f[i].nrec;
    tr_proc_t *pp = calloc((size_t)nf, sizeof *pp);
    double *gap = malloc(maxr * sizeof *gap), *ratio = calloc((size_t)nf, sizeof *ratio);
    double *col = calloc((size_t)nf, sizeof *col), *cdf0 = NULL;
    int32_t *ids = malloc(maxr * sizeof *ids), *ids2 = malloc(maxr * sizeof *ids2);
    unsigned char *seen = malloc(maxr);
    /* per world rank (np + 1: the last is "unknown / any"): sends to it pooled, from 0, and 0's
     * receives posted from it */
    uint64_t *dall = calloc((size_t)np + 1, sizeof *dall), *d0 = calloc((size_t)np + 1, sizeof *d0),
             *r0 = calloc((size_t)np + 1, sizeof *r0);
    uint64_t ssz[TR_NCLASS] = {0}, rsz[TR_NCLASS] = {0};
    size_t n0 = 0;
    int have0 = 0;
    if (!pp || !gap || !ratio || !col || !ids || !ids2 || !seen || !dall || !d0 || !r0) goto out;
    for (int i = 0; i < nf; i++) {
        const ac_trace_file_t *t = &run->f[i];
        size_t ns = 0, nr = 0, wild = 0;
        double busy = 0, comp = 0;
        for (uint64_t k = 0; k < t->nrec; k++) {
            const ac_trace_rec_t *r = &t->rec[k];
            if (r->kind < AC_TK_STAGE_FIRST && r->kind != AC_TK_RECV_DONE)
                busy += (double)(r->t_out - r->t_in);
            if (r->ident < 0) continue;
            int peer = r->root >= 0 && r->root < np ? r->root : np;
            if (is_send(r)) {
                ids[ns++] = r->ident;
                dall[peer]++;
                if (t->rank == 0) d0[peer]++;
                ssz[size_class(r->bytes)]++;
            } else if (is_recv(r)) {
                ids2[nr++] = r->ident;
                wild += (r->flags & AC_TF_WILDCARD) != 0;
                if (t->rank == 0) r0[r->flags & AC_TF_WILDCARD ? np : peer]++;
                rsz[size_class(r->bytes)]++;
            }
        }
        double oe[AC_WRAP_NCLASS], ox[AC_WRAP_NCLASS];
        ac_trace_file_wrap(t, oe, ox);
        size_t m = ac_pure_gaps(t->rec, (size_t)t->nrec, oe, ox, gap);
        double mn = NAN, a5 = 0, a10 = 0, a25 = 0;
        for (size_t k = 1; k < m; k++) { /* gap[0] is not a gap */
            double us = gap[k] * 1e-3;
            comp += gap[k];
            if (isnan(mn) || us < mn) mn = us;
            a5 += us > 5;
            a10 += us > 10;
            a25 += us > 25;
        }
        double ng = m > 1 ? (double)(m - 1) : NAN;
        double v[9] = {(double)ns,
                       (double)nr,
                       (double)distinct(ids, ns, seen, maxr),
                       (double)distinct(ids2, nr, seen, maxr),
                       (double)wild,
                       mn,
                       a5 / ng,
                       a10 / ng,
                       a25 / ng};
        memcpy(pp[i].v, v, sizeof v);
        ratio[i] = comp > 0 ? busy / comp : NAN;
        if (t->rank == 0 && m > 1) {
            cdf0 = malloc((m - 1) * sizeof *cdf0);
            if (!cdf0) goto out;
            for (size_t k = 1; k < m; k++)
                cdf0[k - 1] = gap[k] * 1e-3;
            n0 = m - 1;
            qsort(cdf0, n0, sizeof *cdf0, ac_dbl_cmp);
        }
        if (t->rank == 0) have0 = 1;
    }
    printf("## Traffic characterisation\n\n"
           "Seed 004 Ch. 2-4, 6, spec predictors-latency.md §2.4: per process, min / avg / max "
           "over processes. Requests are those of the predictor streams (sends with a <dest, "
           "comm> identifier, MPI_Recv and MPI_Irecv with a 6-tuple, starts of persistent "
           "requests); pure inter-send times as "
           "in the reconfiguration table (spec 2.3, wrapper overheads subtracted); "
           "communication/computation ratio = sum of the wrapped calls' durations / sum of the "
           "pure inter-send times.\n\n"
           "| property | min / avg / max |\n|---|---|\n");
    char b[96];
    for (int k = 0; k < 9; k++) {
        for (int i = 0; i < nf; i++)
            col[i] = pp[i].v[k];
        minavgmax(col, nf, b, sizeof b);
        printf("| %s | %s |\n", tr_names[k], b);
    }
    minavgmax(ratio, nf, b, sizeof b);
    printf("| communication / computation | %s |\n\n", b);
    printf("Destinations (world rank of the peer; Figs. 3.4, 3.5, 6.4): sends to each process "
           "pooled over all processes and from process 0, and process 0's receives by posted "
           "source (wildcards under \"any\").\n\n"
           "| world rank | sends, all processes | sends, process 0 | receives, process 0 |\n"
           "|---|---|---|---|\n");
    for (int w = 0; w <= np; w++) {
        if (w == np && !dall[w] && !d0[w] && !r0[w]) break;
        if (w == np)
            printf("| unknown / any |");
        else
            printf("| %d |", w);
        if (have0)
            printf(" %llu | %llu | %llu |\n", (unsigned long long)dall[w],
                   (unsigned long long)d0[w], (unsigned long long)r0[w]);
        else
            printf(" %llu | - | - |\n", (unsigned long long)dall[w]);
    }
    printf("\n");
    if (mapdir) { /* Figs. 3.4 and 3.5: sends per destination, pooled and from process 0 */
        char dat[PLOT_PATH], png[PLOT_PATH], sc[8192];
        FILE *f = plot_open(mapdir, "destinations", dat, png);
        if (f) {
            for (int w = 0; w < np; w++)
                fprintf(f, "%d %llu %llu\n", w, (unsigned long long)dall[w],
                        (unsigned long long)d0[w]);
            fclose(f);
            snprintf(sc, sizeof sc,
                     "set style data histograms; set style histogram clustered; "
                     "set style fill solid 0.8; set xlabel 'destination (world rank)'; "
                     "set ylabel 'sends'; set yrange [0:*]; set grid y; "
                     "plot '%s' using 2:xtic(1) title 'all processes', '' using 3 title "
                     "'process 0'",
                     dat);
            plot_png("Destinations", png, dat, sc);
        }
    }
    printf("Message sizes (bytes, power-of-two classes; Figs. 4.1-4.4), pooled over all "
           "processes.\n\n| bytes | sends | receives |\n|---|---|---|\n");
    for (int c = 0; c < TR_NCLASS; c++) {
        if (!ssz[c] && !rsz[c]) continue;
        unsigned long long lo = c ? 1ULL << (c - 1) : 0, hi = c ? (lo << 1) - 1 : 0;
        if (c <= 1)
            printf("| %llu |", lo);
        else
            printf("| %llu-%llu |", lo, hi);
        printf(" %llu | %llu |\n", (unsigned long long)ssz[c], (unsigned long long)rsz[c]);
    }
    printf("\nCDF of process 0's pure inter-send times (Fig. 4.5): the time (us) below which "
           "the given fraction of its %zu gaps lie.\n\n",
           n0);
    if (n0) {
        static const double q[] = {0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1};
        printf("| fraction | time (us) |\n|---|---|\n");
        for (size_t k = 0; k < sizeof q / sizeof q[0]; k++) {
            size_t at = (size_t)ceil(q[k] * (double)n0);
            at = at ? at - 1 : 0; /* the smallest x with at least q n gaps <= x */
            printf("| %.2f | %.3f |\n", q[k], cdf0[at]);
        }
        printf("\n");
        if (mapdir) { /* Fig. 4.5 */
            char dat[PLOT_PATH], png[PLOT_PATH], sc[8192];
            FILE *f = plot_open(mapdir, "intersend-cdf", dat, png);
            if (f) { /* at least 1 ns for the log axis */
                for (size_t k = 0; k < n0; k++)
                    fprintf(f, "%g %g\n", cdf0[k] > 1e-3 ? cdf0[k] : 1e-3,
                            (double)(k + 1) / (double)n0);
                fclose(f);
                snprintf(sc, sizeof sc,
                         "set logscale x; set xlabel 'pure inter-send time (us), process 0'; "
                         "set ylabel 'fraction of gaps'; set yrange [0:1.05]; set grid; "
                         "set key off; plot '%s' using 1:2 with steps",
                         dat);
                plot_png("Inter-send time CDF", png, dat, sc);
            }
        }
    } else {
        printf("None (process 0's file missing or fewer than two sends).\n\n");
    }
    rc = 0;
out:
    free(pp);
    free(gap);
    free(ratio);
    free(col);
    free(cdf0);
    free(ids);
    free(ids2);
    free(seen);
    free(dall);
    free(d0);
    free(r0);
    return rc;
}

/* Spec predictors-latency.md §4.3 (seed 004 §4.4, Fig. 4.14): sends and receives of every rank
 * paired per (communicator key, source, destination, tag) in posting order (ac_early_input,
 * ac_early_arrival); a receive is early when its receive time (entry of MPI_Recv or
 * MPI_Sendrecv, for MPI_Irecv and a started persistent receive the entry of the first wait
 * listing it or of the test completing it) precedes the entry of its send (of MPI_Start or
 * MPI_Startall for a persistent send), both on rank 0's clock. */
static int report_early(const run_t *run) {
    int any = 0;
    for (int i = 0; i < run->nf && !any; i++)
        for (uint64_t k = 0; k < run->f[i].nrec && !any; k++)
            any = is_p2p(&run->f[i].rec[k]);
    if (!any) return 0;
    int np = run->f[0].nprocs;
    ac_ea_input in;
    if (ac_early_input(run->f, run->nf, &in)) return -1;
    ac_ea_proc *pp = calloc((size_t)np, sizeof *pp);
    double avg = NAN;
    if (!pp || ac_early_arrival(in.s, in.ns, in.r, in.nr, np, pp, &avg, NULL)) {
        free(pp);
        ac_early_input_free(&in);
        return -1;
    }
    int64_t res = 0, matched = 0, untimed = 0;
    for (int i = 0; i < run->nf; i++) {
        int64_t w = 0;
        for (int k = 0; k < 2; k++)
            if (run->f[i].clock[k].residual > 0) w += run->f[i].clock[k].residual;
        if (w > res) res = w;
    }
    double lo = NAN, hi = NAN;
    for (int p = 0; p < np; p++) {
        matched += pp[p].matched;
        untimed += pp[p].untimed;
        if (pp[p].matched <= 0) continue;
        double v = 100.0 * (double)pp[p].early / (double)pp[p].matched;
        if (isnan(lo) || v < lo) lo = v;
        if (isnan(hi) || v > hi) hi = v;
    }
    printf("## Early arrival of receives\n\n"
           "Spec predictors-latency.md §4.3 (seed 004 §4.4): the j-th send from s to r on "
           "(communicator, tag) "
           "pairs with the j-th receive posted at r that matched (s, tag) (wildcards by their "
           "completion status); a receive is early when its receive time (entry of MPI_Recv or "
           "MPI_Sendrecv; for MPI_Irecv and a started persistent receive the entry of the first "
           "wait that listed it, else of the test that completed it: a lower bound) precedes the "
           "entry of its send (MPI_Start for a persistent one), on rank 0's "
           "clock (uncertainty up to %.1f us between two ranks).\n\n",
           2e-3 * (double)res);
    char a[32], l[32], h[32];
    snprintf(a, sizeof a, isnan(avg) ? "-" : "%.1f", avg);
    snprintf(l, sizeof l, isnan(lo) ? "-" : "%.1f", lo);
    snprintf(h, sizeof h, isnan(hi) ? "-" : "%.1f", hi);
    printf("Early receives: %s %% of paired receives, average over processes (min %s %%, max "
           "%s %%); %zu sends, %zu receives, %lld pairs timed, %lld paired without a time.\n\n",
           a, l, h, in.ns, in.nr, (long long)matched, (long long)untimed);
    printf("| process | receives | paired | early | early %% | paired without time |\n"
           "|---|---|---|---|---|---|\n");
    for (int p = 0; p < np; p++) {
        if (!pp[p].recvs) continue;
        printf("| %d | %lld | %lld | %lld | ", p, (long long)pp[p].recvs, (long long)pp[p].matched,
               (long long)pp[p].early);
        if (pp[p].matched)
            printf("%.1f", 100.0 * (double)pp[p].early / (double)pp[p].matched);
        else
            printf("-");
        printf(" | %lld |\n", (long long)pp[p].untimed);
    }
    printf("\nLeft out: %llu sends or receives without a shared communicator key or a world "
           "rank, %llu wildcard or cancelled nonblocking receives never completed in the trace, "
           "%llu persistent starts, %llu completions without their receive.\n\n",
           (unsigned long long)in.unkeyed, (unsigned long long)in.unresolved,
           (unsigned long long)in.persistent, (unsigned long long)in.orphan);
    free(pp);
    ac_early_input_free(&in);
    return 0;
}

/* ------------------------------------------------------- 3b. predictor memory */

/* Tables 3.1 (send side) and 6.1 (receive side) of seed 004 for this run: per predictor, the
 * memory formula of spec 3.5 in identifiers (Mem_Single-cycle(2) = max cycle length, times the
 * max number of heads for the Better kinds; Mem_Tagging = sites; Tag-cycle(2) = sites x max cycle
 * length of any site, times max heads of any site for Tag-bettercycle(2)), each predictor's
 * factors measured on its own run (ac_pred_stats), max over processes; and the true peak of
 * identifiers held at once (extension of 3.5), max over processes. */
static int report_pred_memory(const run_t *run) {
    int any = 0;
    for (int i = 0; i < run->nf && !any; i++)
        for (uint64_t k = 0; k < run->f[i].nrec && !any; k++)
            any = is_p2p(&run->f[i].rec[k]);
    if (!any) return 0;
    int nf = run->nf;
    /* [side][kind]: formula and peak, max over processes (-1: no process with requests) */
    int64_t mem[2][AC_PRED_NKINDS], peak[2][AC_PRED_NKINDS];
    for (int side = 0; side < 2; side++)
        for (int kind = 0; kind < AC_PRED_NKINDS; kind++)
            mem[side][kind] = peak[side][kind] = -1;
    for (int i = 0; i < nf; i++)
        for (int side = 0; side < 2; side++) {
            stream_t st;
            if (stream_of(&run->f[i], side, &st) != 0) {
                stream_free(&st);
                return -1;
            }
            for (int kind = 0; st.n && kind < AC_PRED_NKINDS; kind++) {
                ac_pred_stats ps;
                if (ac_pred_is_window(kind)) continue;
                if (ac_pred_run(kind, NULL, st.x, st.site, st.n, NULL, NULL, &ps) != 0) {
                    stream_free(&st);
                    return -1;
                }
                if (ps.mem > mem[side][kind]) mem[side][kind] = ps.mem;
                if (ps.peak > peak[side][kind]) peak[side][kind] = ps.peak;
            }
            stream_free(&st);
        }
    printf("## Predictor memory\n\n"
           "Seed 004 Tables 3.1 and 6.1, spec predictors-latency.md §3.5: entries (one stored "
           "identifier each) by the formula, each predictor's factors measured on its own run, "
           "and the true peak held at once; max over the %d processes.\n\n"
           "| predictor | send: formula | send: peak | receive: formula | receive: peak |\n"
           "|---|---|---|---|---|\n",
           nf);
    for (int kind = 0; kind < AC_PRED_NKINDS; kind++) {
        if (ac_pred_is_window(kind)) continue;
        printf("| %s |", ac_pred_name(kind));
        for (int side = 1; side >= 0; side--) {
            if (mem[side][kind] < 0)
                printf(" - | - |");
            else
                printf(" %lld | %lld |", (long long)mem[side][kind], (long long)peak[side][kind]);
        }
        printf("\n");
    }
    printf("\n");
    return 0;
}

/* ---------------------------------------------------------------- main */

/* ---------------------------------------------------------------- 4. reduction-tree stages */

/* Per-stage tables of the reduction trees (allreduce `tree`; seed 003 §4, spec
 * allreduce-trees.md §7): every rank's stage records (AC_TK_TREE_*) belong to its next
 * collective record; calls are matched across ranks by (communicator, call number) and grouped
 * by (communicator, instance, size), so the two alternating trees of Gsum are analysed apart.
 * The first AC_STAGE_DROP calls of a group are left out (seed 003: they can be orders of
 * magnitude slower) when the group has more than twice as many. Times go to rank 0's clock
 * with the offsets of the file headers; the identity check compares the stages with the
 * measured exit - entry of each rank's own clock. */

enum { AC_STAGE_DROP = 10, AC_STAGE_MAX = 256 };

typedef struct {
    int32_t leader;
    uint32_t comm;
    uint64_t seq;
    int crank, csize;
    int kind;         /* collective */
    const char *site; /* hierarchical calls: the call site ("" for trees: not grouped by site) */
    int32_t root;     /* hierarchical calls: the root (AC_TRACE_NONE for trees) */
    const char *inst;
    int64_t total;       /* exit - entry on the rank's own clock */
    int64_t residual;    /* the rank's clock uncertainty (sum of its two estimates' residuals) */
    ac_trace_rec_t *rec; /* the collective record then the stage records, on rank 0's clock */
    size_t n;
} tcall_t;

static int tcall_cmp(const void *x, const void *y) {
    const tcall_t *a = x, *b = y;
    if (a->leader != b->leader) return a->leader < b->leader ? -1 : 1;
    if (a->comm != b->comm) return a->comm < b->comm ? -1 : 1;
    if (a->kind != b->kind) return a->kind - b->kind;
    int c = strcmp(a->site, b->site);
    if (c) return c;
    c = strcmp(a->inst, b->inst);
    if (c) return c;
    if (a->root != b->root) return a->root < b->root ? -1 : 1;
    if (a->csize != b->csize) return a->csize - b->csize;
    if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
    return a->crank - b->crank;
}

/* A record of a hierarchical call's parts (AC_TK_PART_*). */
static int is_part_rec(int kind) {
    return kind >= AC_TK_PART_TREE && kind < AC_TK_STAGE_END;
}

/* The stage records of a run, one entry per (rank, traced call): with hier 0, allreduce `tree`
 * calls (AC_TK_TREE_*); with hier 1, hierarchical calls (AC_TK_PART_*). */
static int stage_collect(const run_t *run, int hier, tcall_t **out, size_t *nout) {
    size_t n = 0, cap = 0;
    tcall_t *v = NULL;
    for (int i = 0; i < run->nf; i++) {
        const ac_trace_file_t *t = &run->f[i];
        int global = (t->flags & AC_TRACE_FLAG_GLOBAL_CLOCK) != 0;
        int64_t res = 0;
        for (int k = 0; k < 2; k++)
            if (t->clock[k].residual > 0) res += t->clock[k].residual;
        uint64_t first = 0, nst = 0; /* stage records since the last collective record */
        for (uint64_t k = 0; k < t->nrec; k++) {
            const ac_trace_rec_t *r = &t->rec[k];
            if (r->kind >= AC_TK_STAGE_FIRST) {
                if (is_part_rec(r->kind) != hier) continue; /* the other analysis' records */
                if (!nst) first = k;
                nst++;
                continue;
            }
            if (r->kind >= AUTOCOLL_NCOLL) continue;
            if (nst && (hier || r->kind == AUTOCOLL_ALLREDUCE) && r->comm != AC_TRACE_NOID &&
                t->rec[first].seq == r->seq && k - first == nst) {
                if (n == cap) {
                    size_t nc = cap ? 2 * cap : 256;
                    tcall_t *nv = realloc(v, nc * sizeof *v);
                    if (!nv) goto oom;
                    v = nv;
                    cap = nc;
                }
                tcall_t *c = &v[n];
                *c = (tcall_t){r->peer,
                               r->comm,
                               r->seq,
                               r->ident,
                               r->count,
                               r->kind,
                               hier ? str_of(t, r->site) : "",
                               hier ? r->root : AC_TRACE_NONE,
                               str_of(t, r->inst),
                               r->t_out - r->t_in,
                               res,
                               NULL,
                               (size_t)nst + 1};
                c->rec = malloc(c->n * sizeof *c->rec);
                if (!c->rec) goto oom;
                n++;
                c->rec[0] = *r;
                memcpy(c->rec + 1, &t->rec[first], (size_t)nst * sizeof *r);
                if (!global)
                    for (size_t j = 0; j < c->n; j++) {
                        c->rec[j].t_in = ac_trace_clock_correct(t->clock, c->rec[j].t_in);
                        c->rec[j].t_out = ac_trace_clock_correct(t->clock, c->rec[j].t_out);
                    }
            }
            nst = 0;
        }
    }
    *out = v;
    *nout = n;
    return 0;
oom:
    for (size_t j = 0; j < n; j++)
        free(v[j].rec);
    free(v);
    return -1;
}

static const char *hstage_name(int stage) {
    return stage == AC_HIER_INTER ? "inter-node" : "intra-node";
}

/* The name of a stage of a tree call's path (hier 0) or of a hierarchical call's (hier 1:
 * vkind = stage, vertex = operation, level 1 = local work before a part). */
static void stage_name(const ac_stage_t *s, int hier, char *buf, size_t len) {
    if (hier && s->type != AC_ST_ENTRY && s->type != AC_ST_EXIT) {
        const char *st = hstage_name(s->vkind), *op = ac_part_op_name(s->vertex);
        if (!op) op = "?";
        if ((s->type == AC_ST_PART_DOWN || s->type == AC_ST_PART_UP) && s->level == 1)
            snprintf(buf, len, "local work before the %s %s part", st, op);
        else
            snprintf(buf, len, "%s %s %s", st, op, ac_stage_type_name(s->type));
        return;
    }
    const char *sub = s->vkind == 1 ? "cluster-root" : "host";
    switch (s->type) {
    case AC_ST_ENTRY:
    case AC_ST_EXIT:
    case AC_ST_CORE:
        snprintf(buf, len, "%s", ac_stage_type_name(s->type));
        break;
    case AC_ST_EDGE_DOWN:
    case AC_ST_EDGE_UP:
        snprintf(buf, len, "%s edge %s %s L%d", s->edge == AC_EDGE_NET ? "network" : "node-local",
                 s->type == AC_ST_EDGE_DOWN ? "to" : "from", sub, s->level);
        break;
    default:
        snprintf(buf, len, "%s L%d %s", sub, s->level, ac_stage_type_name(s->type));
    }
}

/* mean median stdev min max p10 p90 of v[0..n-1] (us), sorting v. */
static void stage_stats_row(double *v, size_t n) {
    double m = 0, s = 0;
    for (size_t i = 0; i < n; i++)
        m += v[i];
    m /= (double)n;
    for (size_t i = 0; i < n; i++)
        s += (v[i] - m) * (v[i] - m);
    s = n > 1 ? sqrt(s / (double)(n - 1)) : 0;
    qsort(v, n, sizeof *v, ac_dbl_cmp);
    printf(" %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", m, v[n / 2], s, v[0], v[n - 1],
           v[n / 10], v[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1]);
}

typedef struct {
    ac_stage_parts_t sum; /* sums over the calls analysed */
    double total;
    int64_t max_id_err; /* largest identity error */
    int64_t residual;
    uint64_t calls, neg; /* calls; stages on one clock found negative */
} rank_acc_t;

/* One call's stage assembly from the entries c[0..p-1] (ranks 0..p-1). */
static int stage_call(const tcall_t *c, int p, ac_stage_call_t *sc) {
    const ac_trace_rec_t *rp[AC_STAGE_MAX];
    size_t np[AC_STAGE_MAX];
    char err[256];
    for (int r = 0; r < p; r++) {
        rp[r] = c[r].rec;
        np[r] = c[r].n;
    }
    return ac_stage_call_build(sc, p, rp, np, err, sizeof err);
}

/* A stage measured on one clock that cannot be negative (waits and latencies of a vertex). */
static int one_clock(int type) {
    return type == AC_ST_ARRIVAL_WAIT || type == AC_ST_DOWN || type == AC_ST_CORE ||
           type == AC_ST_UP || type == AC_ST_DEPARTURE_WAIT;
}

/* ------------------------------------------- metrics of hierarchical calls' parts */

/* The spec 7.2 metrics of the parts of hierarchical calls, per stage (seed 003 §4): vertex
 * latencies and waits of the parts' trees, the edges between tree vertices (intra-node: between
 * ranks of a node; inter-node: network), the core (the root of an inter-node reduce tree) and
 * the duration of each part. */
enum {
    HM_ARRIVAL, /* reduce vertex with children: last t1 - first t1 */
    HM_DOWN,    /* reduce vertex: t2 - last t1 (a leaf: t2 - tree entry) */
    HM_CORE,    /* root of an inter-node reduce tree: its down latency */
    HM_UP,      /* bcast vertex with children: first t4 - t3 */
    HM_DEPART,  /* bcast vertex with children: last t4 - first t4 */
    HM_EDGE_R,  /* reduce edge: the parent's t1 of the child - the child's t2 (rank 0's clock) */
    HM_EDGE_B,  /* bcast edge: the child's t3 - the parent's t4 to it */
    HM_PART,    /* HM_PART + op: part durations (step records) */
    HM_N = HM_PART + AC_PART_NOPS
};
typedef struct {
    uint64_t n;
    double sum, min, max;
} hstat_t;

static void hstat_add(hstat_t *h, int64_t ns) {
    double v = (double)ns * 1e-3;
    if (!h->n || v < h->min) h->min = v;
    if (!h->n || v > h->max) h->max = v;
    h->sum += v;
    h->n++;
}

/* A tree run among a rank's part records: its part_tree record and its children's. */
typedef struct {
    const ac_trace_rec_t *t;
    int nch;
} hrun_t;

static int hier_runs(const tcall_t *e, hrun_t *out, int max) {
    int n = 0, open = 0; /* open: the last record belongs to run n - 1 */
    for (size_t k = 1; k < e->n; k++) {
        int kind = e->rec[k].kind;
        if (kind == AC_TK_PART_TREE && n < max)
            out[n++] = (hrun_t){&e->rec[k], 0};
        else if (kind == AC_TK_PART_CHILD && open)
            out[n - 1].nch++;
        open = n > 0 && (kind == AC_TK_PART_TREE || (kind == AC_TK_PART_CHILD && open)) &&
               out[n - 1].t + out[n - 1].nch == &e->rec[k];
    }
    return n;
}

/* The run of rank q (entry e) in (stage, op) whose parent is r, NULL when none. */
static const hrun_t *hier_run_of(const hrun_t *x, int nx, int stage, int op, int r) {
    for (int i = 0; i < nx; i++)
        if (x[i].t->status_source == stage && x[i].t->status_tag == op && x[i].t->root == r)
            return &x[i];
    return NULL;
}

enum { HRUN_MAX = 16 };

/* The metrics of one complete call c[0..p-1] into hs[stage][metric]. */
static void hier_metrics(const tcall_t *c, int p, hstat_t hs[2][HM_N]) {
    for (int r = 0; r < p; r++) {
        const tcall_t *e = &c[r];
        for (size_t k = 1; k < e->n; k++) {
            const ac_trace_rec_t *x = &e->rec[k];
            int st = x->status_source == AC_HIER_INTER;
            if (x->kind == AC_TK_PART_STEP && x->status_tag >= 0 && x->status_tag < AC_PART_NOPS)
                hstat_add(&hs[st][HM_PART + x->status_tag], x->t_out - x->t_in);
            if (x->kind != AC_TK_PART_TREE) continue;
            ac_part_vertex_t v;
            char err[128];
            if (ac_part_vertex(x, e->n - k, &v, err, sizeof err) < 1) continue;
            if (ac_part_op_gathers(v.op)) {
                if (v.nch) hstat_add(&hs[st][HM_ARRIVAL], v.arrival_wait);
                int core = v.parent < 0 && st && v.op == AC_PART_REDUCE;
                hstat_add(&hs[st][core ? HM_CORE : HM_DOWN], v.down_latency);
            } else if (v.nch) {
                hstat_add(&hs[st][HM_UP], v.up_latency);
                hstat_add(&hs[st][HM_DEPART], v.departure_wait);
            }
            /* Edges to the children (records on rank 0's clock). */
            for (int j = 1; j <= v.nch; j++) {
                int q = x[j].root;
                if (q < 0 || q >= p) continue;
                hrun_t qr[HRUN_MAX];
                int nq = hier_runs(&c[q], qr, HRUN_MAX);
                const hrun_t *y = hier_run_of(qr, nq, x->status_source, v.op, r);
                if (!y) continue;
                if (ac_part_op_gathers(v.op))
                    hstat_add(&hs[st][HM_EDGE_R], x[j].t_in - y->t->t_out);
                else
                    hstat_add(&hs[st][HM_EDGE_B], y->t->t_out - x[j].t_out);
            }
        }
    }
}

static void hier_metrics_table(hstat_t hs[2][HM_N]) {
    static const char *const mn[HM_PART] = {
        "arrival wait (reduce, gather vertex, last t1 - first t1)",
        "down latency (reduce, gather vertex, t2 - last t1)",
        "core (inter-node reduce root, t2 - last t1)",
        "up latency (bcast, scatter vertex, first t4 - t3)",
        "departure wait (bcast, scatter vertex, last t4 - first t4)",
        "edge down (reduce, gather: parent's t1 - child's t2)",
        "edge up (bcast, scatter: child's t3 - parent's t4)"};
    printf("Metrics per stage (seed 003 §4, spec 7.2; intra-node edges are node-local, inter-node "
           "edges network), us:\n\n| stage | metric | samples | min | avg | max |\n"
           "|---|---|---|---|---|---|\n");
    for (int st = 0; st < 2; st++)
        for (int m = 0; m < HM_N; m++) {
            const hstat_t *h = &hs[st][m];
            if (!h->n) continue;
            char nm[96];
            if (m < HM_PART)
                snprintf(nm, sizeof nm, "%s", mn[m]);
            else
                snprintf(nm, sizeof nm, "%s part", ac_part_op_name(m - HM_PART));
            printf("| %s | %s | %llu | %.2f | %.2f | %.2f |\n", hstage_name(st), nm,
                   (unsigned long long)h->n, h->min, h->sum / (double)h->n, h->max);
        }
    printf("\n");
}

/* The vertex of Table 1 in a hierarchical call: a rank that is the root of a reduce tree and of
 * a bcast tree of the same stage over the same children (allreduce `hierarchical`: a node
 * leader; *op -1); the one with most children (then lowest stage and rank) in call c. When there
 * is none, the root of a tree that goes one way only (bcast, reduce, gather, scatter; *op its
 * operation; docs/tracing.md, ac_part_orders), the one with most children, then lowest stage,
 * rank and first run. *rank, *stage; 0 when none. */
static int hier_turn(const tcall_t *c, int p, int *rank, int *stage, int *op) {
    int best = 0;
    *op = -1;
    for (int r = 0; r < p; r++) {
        hrun_t x[HRUN_MAX];
        int nx = hier_runs(&c[r], x, HRUN_MAX);
        for (int i = 0; i < nx; i++) {
            const ac_trace_rec_t *t = x[i].t;
            if (t->status_tag != AC_PART_REDUCE || t->root >= 0 || x[i].nch <= best) continue;
            const hrun_t *b = hier_run_of(x, nx, t->status_source, AC_PART_BCAST, -1);
            if (b && b->nch == x[i].nch) {
                best = x[i].nch;
                *rank = r;
                *stage = t->status_source;
            }
        }
    }
    if (best) return best;
    for (int r = 0; r < p; r++) {
        hrun_t x[HRUN_MAX];
        int nx = hier_runs(&c[r], x, HRUN_MAX);
        for (int i = 0; i < nx; i++) {
            const ac_trace_rec_t *t = x[i].t;
            if (t->root >= 0 || !ac_part_op_name(t->status_tag) ||
                t->status_tag == AC_PART_EXCHANGE)
                continue;
            if (x[i].nch > best || (best && x[i].nch == best && t->status_source < *stage)) {
                best = x[i].nch;
                *rank = r;
                *stage = t->status_source;
                *op = t->status_tag;
            }
        }
    }
    return best;
}

/* Table 1 of a root vertex whose tree goes one way only (ac_part_orders): rank r's root run of
 * (st, op) in call c with n children, the missing side of each child from its own records;
 * added to ord (n x n, stride p). 0 when a run is not there. */
static int hier_orders_oneway(const tcall_t *c, int r, int st, int op, int n, size_t *ord, int p) {
    hrun_t x[HRUN_MAX];
    int nx = hier_runs(&c[r], x, HRUN_MAX);
    const hrun_t *a = hier_run_of(x, nx, st, op, -1);
    if (!a || a->nch != n || n > AC_PART_ORDER_MAX) return 0;
    int64_t other[AC_PART_ORDER_MAX];
    for (int i = 0; i < n; i++) {
        int q = a->t[1 + i].root;
        if (q < 0 || q >= p || ac_part_child_time(c[q].rec, c[q].n, st, op, r, &other[i])) return 0;
    }
    int ao[AC_PART_ORDER_MAX], dor[AC_PART_ORDER_MAX];
    if (ac_part_orders(a->t, (size_t)n + 1, other, ao, dor, NULL, 0) != n) return 0;
    for (int i = 0; i < n; i++)
        ord[(size_t)ao[i] * (size_t)p + (size_t)dor[i]]++;
    return 1;
}

/* Arrival (reduce t1) and departure (bcast t4) order of the children of rank r's root vertices
 * of stage st in call c, added to ord (n x n, stride p). 0 when the vertex is not there. */
static int hier_orders(const tcall_t *c, int r, int st, int n, size_t *ord, int p) {
    hrun_t x[HRUN_MAX];
    int nx = hier_runs(&c[r], x, HRUN_MAX);
    const hrun_t *a = hier_run_of(x, nx, st, AC_PART_REDUCE, -1),
                 *b = hier_run_of(x, nx, st, AC_PART_BCAST, -1);
    if (!a || !b || a->nch != n || b->nch != n || n > AC_STAGE_MAX) return 0;
    ac_stage_child_t ch[AC_STAGE_MAX];
    for (int i = 0; i < n; i++) {
        ch[i] = (ac_stage_child_t){a->t[1 + i].t_in, 0, i, a->t[1 + i].root, 0};
        for (int j = 0; j < n; j++)
            if (b->t[1 + j].root == a->t[1 + i].root) {
                ch[i].d = b->t[1 + j].t_out;
                ch[i].dep = 1;
            }
    }
    ac_stage_vertex_t v = {r, -1, 0, 0, n, 0, 0, ch};
    int ao[AC_STAGE_MAX], dor[AC_STAGE_MAX];
    ac_stage_orders(&v, ao, dor);
    for (int i = 0; i < n; i++)
        if (dor[i] >= 0) ord[(size_t)ao[i] * (size_t)p + (size_t)dor[i]]++;
    return 1;
}

/* ------------------------------------------- tables shared by both kinds of calls */

/* The arrival-against-departure order matrix (seed 003 Table 1) of n children; how: what the
 * rows and columns are (NULL: arrival and departure at the vertex). */
static void order_matrix(const char *what, const char *how, const size_t *ord, int n, int p) {
    printf("\n%s: %s, %% of calls (seed 003 Table 1):\n\n| arr \\ dep |", what,
           how ? how : "arrival order (rows) against departure order (columns)");
    for (int j = 0; j < n; j++)
        printf(" %d |", j + 1);
    printf("\n|---|");
    for (int j = 0; j < n; j++)
        printf("---|");
    printf("\n");
    for (int i = 0; i < n; i++) {
        size_t rs = 0;
        for (int j = 0; j < n; j++)
            rs += ord[(size_t)i * (size_t)p + (size_t)j];
        printf("| %d |", i + 1);
        for (int j = 0; j < n; j++)
            printf(" %.1f |",
                   rs ? 100.0 * (double)ord[(size_t)i * (size_t)p + (size_t)j] / (double)rs : 0);
        printf("\n");
    }
}

/* Timemap (seed 003 Fig. 12-14): the mean stages tm[0..nst-1] of rank `rank`, x relative to the
 * core's entry (or the first up stage's when there is no core). */
static void timemap(const char *mapdir, int gid, const ac_stage_t *tmpl, const double *tm,
                    size_t nst, int hier, int rank, const char *title) {
    double x0 = 0;
    size_t turn = nst;
    for (size_t s = 0; s < nst && turn == nst; s++)
        if (tmpl[s].type == AC_ST_CORE) turn = s;
    for (size_t s = 0; s < nst && turn == nst; s++)
        if (ac_stage_is_up(tmpl[s].type)) turn = s;
    for (size_t s = 0; s < turn; s++)
        x0 += tm[s];
    char dat[PLOT_PATH], png[PLOT_PATH], name[32];
    snprintf(name, sizeof name, "timemap-%d", gid);
    FILE *f = plot_open(mapdir, name, dat, png);
    if (!f) return;
    double x = -x0;
    for (size_t s = 0; s < nst; s++) {
        char nm[96];
        stage_name(&tmpl[s], hier, nm, sizeof nm);
        fprintf(f, "%.3f %.3f %zu \"%s\"\n", x, x + tm[s], s, nm);
        x += tm[s];
    }
    fclose(f);
    char cmd[16384];
    snprintf(cmd, sizeof cmd,
             "gnuplot -e \"set terminal png size 900,%d; set output '%s'; "
             "set xlabel 'us relative to %s entry'; set ylabel 'stage'; "
             "set title 'rank %d, %s'; set yrange [-1:%zu]; set key off; set grid x; "
             "plot '%s' using 1:3:(\\$2-\\$1):(0):ytic(4) with vectors nohead lw 8\" "
             "2>/dev/null",
             200 + 24 * (int)nst, png,
             turn < nst && tmpl[turn].type == AC_ST_CORE ? "core" : "first up stage", rank, title,
             nst, dat);
    int rc = system(cmd);
    if (rc == 0)
        printf("Timemap: %s (data %s).\n\n", png, dat);
    else
        printf("Timemap data: %s (gnuplot unavailable or failed: no PNG).\n\n", dat);
}

/* The stages of rank r in the complete call c[0..p-1] (sc: its tree assembly, tree calls). */
static int rank_path(const tcall_t *c, int r, const ac_stage_call_t *sc, int hier, ac_stage_t *st,
                     int *neg) {
    *neg = 0;
    if (!hier) {
        int ns = ac_stage_path(sc, r, st, AC_STAGE_MAX);
        for (int s = 0; s < ns; s++)
            *neg += one_clock(st[s].type) && st[s].ns < 0;
        return ns;
    }
    char err[256];
    return ac_part_path(c[r].rec, c[r].n, st, AC_STAGE_MAX, neg, err, sizeof err);
}

/* Start indices of the complete calls of c[0..n-1] (p entries, ranks 0..p-1), into start. */
static size_t complete_calls(const tcall_t *c, size_t n, int p, size_t *start) {
    size_t ncalls = 0;
    for (size_t i = 0; i + (size_t)p <= n;) {
        int ok = 1;
        for (int r = 0; r < p && ok; r++)
            ok = c[i + (size_t)r].seq == c[i].seq && c[i + (size_t)r].crank == r;
        if (ok) {
            start[ncalls++] = i;
            i += (size_t)p;
        } else {
            uint64_t s = c[i].seq;
            while (i < n && c[i].seq == s)
                i++;
        }
    }
    return ncalls;
}

/* Analyses the calls c[0..n-1] of one group (sorted by call number then rank): allreduce `tree`
 * calls (hier 0) or hierarchical calls (hier 1). */
static int stage_group(const tcall_t *c, size_t n, const char *mapdir, int gid, int hier) {
    int p = c[0].csize;
    if (p < 1 || p > AC_STAGE_MAX) return 0;
    size_t *start = malloc((n / (size_t)p + 1) * sizeof *start);
    if (!start) return -1;
    size_t ncalls = complete_calls(c, n, p, start);
    size_t drop = ncalls > 2 * AC_STAGE_DROP ? AC_STAGE_DROP : 0;
    rank_acc_t *acc = calloc((size_t)p, sizeof *acc);
    ac_stage_t *st = malloc(AC_STAGE_MAX * sizeof *st);
    size_t *ord = calloc((size_t)p * (size_t)p, sizeof *ord);
    hstat_t(*hs)[HM_N] = calloc(2, sizeof *hs);
    int rootn = 0, turn_rank = 0, turn_stage = 0, turn_op = -1;
    uint64_t bad = 0;
    if (!acc || !st || !ord || !hs) {
        free(start), free(acc), free(st), free(ord), free(hs);
        return -1;
    }
    if (hier && ncalls > drop)
        rootn = hier_turn(&c[start[drop]], p, &turn_rank, &turn_stage, &turn_op);
    for (size_t k = drop; k < ncalls; k++) {
        ac_stage_call_t sc;
        memset(&sc, 0, sizeof sc);
        if (!hier && stage_call(&c[start[k]], p, &sc)) {
            ac_stage_call_free(&sc);
            bad++;
            continue;
        }
        for (int r = 0; r < p; r++) {
            int neg;
            int ns = rank_path(&c[start[k]], r, &sc, hier, st, &neg);
            if (ns < 0) {
                bad++;
                continue;
            }
            const tcall_t *e = &c[start[k] + (size_t)r];
            ac_stage_parts_t x;
            ac_stage_parts(st, ns, e->total, &x);
            rank_acc_t *a = &acc[r];
            int64_t ie = ac_stage_identity_error(&x);
            if (ie > a->max_id_err) a->max_id_err = ie;
            a->residual = e->residual;
            a->neg += (uint64_t)neg;
            a->sum.arrival_wait += x.arrival_wait;
            a->sum.down_wait += x.down_wait;
            a->sum.down_nowait += x.down_nowait;
            a->sum.up += x.up;
            a->sum.host += x.host;
            a->sum.cluster += x.cluster;
            a->sum.net += x.net;
            a->sum.local += x.local;
            a->sum.core += x.core;
            a->sum.wrapper += x.wrapper;
            a->total += (double)x.total;
            a->calls++;
        }
        if (hier) {
            hier_metrics(&c[start[k]], p, hs);
            if (rootn > 1 && turn_op < 0)
                hier_orders(&c[start[k]], turn_rank, turn_stage, rootn, ord, p);
            else if (rootn > 1)
                hier_orders_oneway(&c[start[k]], turn_rank, turn_stage, turn_op, rootn, ord, p);
        } else {
            /* Arrival against departure order at the root vertex (seed 003 Table 1). */
            for (int v = 0; v < sc.nv; v++)
                if (sc.v[v].parent < 0 && sc.v[v].nchild <= p) {
                    int ao[AC_STAGE_MAX], dor[AC_STAGE_MAX];
                    rootn = sc.v[v].nchild;
                    ac_stage_orders(&sc.v[v], ao, dor);
                    for (int i = 0; i < rootn; i++)
                        if (dor[i] >= 0) ord[(size_t)ao[i] * (size_t)p + (size_t)dor[i]]++;
                }
            ac_stage_call_free(&sc);
        }
    }
    int slow = 0;
    for (int r = 0; r < p; r++)
        if (acc[r].calls && acc[r].total / (double)acc[r].calls >
                                acc[slow].total / (double)(acc[slow].calls ? acc[slow].calls : 1))
            slow = r;
    char title[512];
    if (hier) {
        const char *kn = ac_trace_kind_name(c[0].kind);
        if (c[0].root != AC_TRACE_NONE)
            snprintf(title, sizeof title, "%s %s, root %d", kn ? kn : "?", c[0].inst, c[0].root);
        else
            snprintf(title, sizeof title, "%s %s", kn ? kn : "?", c[0].inst);
        printf("### %d.%u %s, p = %d, site %s\n\n", c[0].leader, c[0].comm, title, p, c[0].site);
    } else {
        snprintf(title, sizeof title, "%s", c[0].inst);
        printf("### %d.%u %s, p = %d\n\n", c[0].leader, c[0].comm, title, p);
    }
    printf("%zu complete calls, the first %zu left out; %llu paths could not be formed.\n\n",
           ncalls, drop, (unsigned long long)bad);
    if (!acc[slow].calls) {
        free(start), free(acc), free(st), free(ord), free(hs);
        return 0;
    }
    int64_t ierr = 0, ires = 0;
    uint64_t neg = 0;
    for (int r = 0; r < p; r++) {
        if (acc[r].max_id_err > ierr) ierr = acc[r].max_id_err;
        if (acc[r].residual > ires) ires = acc[r].residual;
        neg += acc[r].neg;
    }
    printf("Identities (total = down + up, with and without arrival waits): largest error %.3f us "
           "over every rank and call; clock uncertainty %.3f us. Negative one-clock stages "
           "(waits, latencies%s): %llu.\n\n",
           (double)ierr * 1e-3, (double)ires * 1e-3, hier ? ", stamps out of order" : "",
           (unsigned long long)neg);
    if (hier) hier_metrics_table(hs);
    /* Table 2: the stages of the slowest rank. */
    size_t nuse = ncalls - drop, nst = 0, have = 0;
    double *val = malloc(nuse * AC_STAGE_MAX * sizeof *val), *tot = malloc(nuse * sizeof *tot);
    ac_stage_t tmpl[AC_STAGE_MAX];
    double *tm0 = calloc(AC_STAGE_MAX, sizeof *tm0);
    if (!val || !tot || !tm0) {
        free(val), free(tot), free(tm0), free(start), free(acc), free(st), free(ord), free(hs);
        return -1;
    }
    for (size_t k = drop; k < ncalls; k++) {
        ac_stage_call_t sc;
        memset(&sc, 0, sizeof sc);
        int ns = -1, ng;
        if (hier || !stage_call(&c[start[k]], p, &sc))
            ns = rank_path(&c[start[k]], slow, &sc, hier, st, &ng);
        if (!hier) ac_stage_call_free(&sc);
        if (ns < 0) continue;
        if (!have) {
            memcpy(tmpl, st, (size_t)ns * sizeof *st);
            nst = (size_t)ns;
        } else if ((size_t)ns != nst) {
            continue;
        }
        for (size_t s = 0; s < nst; s++)
            val[s * nuse + have] = (double)st[s].ns * 1e-3;
        tot[have] = (double)c[start[k] + (size_t)slow].total * 1e-3;
        have++;
    }
    printf("Stages of rank %d, the slowest (seed 003 Table 2), us:\n\n"
           "| stage | mean | median | stdev | min | max | p10 | p90 |\n"
           "|---|---|---|---|---|---|---|---|\n",
           slow);
    for (size_t s = 0; s < nst && have; s++) {
        char nm[96];
        stage_name(&tmpl[s], hier, nm, sizeof nm);
        double m = 0;
        for (size_t i = 0; i < have; i++)
            m += val[s * nuse + i];
        tm0[s] = m / (double)have;
        printf("| %s |", nm);
        stage_stats_row(&val[s * nuse], have);
    }
    if (have) {
        printf("| time per %s |", hier ? "call" : "allreduce");
        stage_stats_row(tot, have);
    }
    /* Table 3: parts per rank. */
    int cols[AC_STAGE_MAX], nc = 0;
    for (int r = 0; r < p && p <= 8; r++)
        cols[nc++] = r;
    if (p > 8) {
        int fast = 0;
        for (int r = 0; r < p; r++)
            if (acc[r].calls &&
                acc[r].total / (double)acc[r].calls <
                    acc[fast].total / (double)(acc[fast].calls ? acc[fast].calls : 1))
                fast = r;
        cols[nc++] = 0;
        if (fast) cols[nc++] = fast;
        if (slow && slow != fast) cols[nc++] = slow;
    }
    printf("\nPer-part means per rank (seed 003 Tables 3 and 4), us:\n\n| part |");
    for (int i = 0; i < nc; i++)
        printf(" rank %d |", cols[i]);
    printf("\n|---|");
    for (int i = 0; i < nc; i++)
        printf("---|");
    printf("\n");
    static const char *const pn[2][11] = {
        {"down, with arrival wait", "down, no arrival wait", "up", "host subtree, no arrival wait",
         "cluster-root subtree, no arrival wait", "network edges", "node-local edges", "core",
         "entry and exit", "total, no arrival wait", "total, with arrival wait"},
        {"down, with arrival wait", "down, no arrival wait", "up",
         "intra-node stages, no arrival wait", "inter-node stages, no arrival wait, no core", NULL,
         NULL, "core", "entry and exit", "total, no arrival wait", "total, with arrival wait"}};
    for (int row = 0; row < 11; row++) {
        if (!pn[hier][row]) continue; /* edges: in the metrics table */
        printf("| %s |", pn[hier][row]);
        for (int i = 0; i < nc; i++) {
            const rank_acc_t *a = &acc[cols[i]];
            const ac_stage_parts_t *x = &a->sum;
            double v[] = {(double)x->down_wait,
                          (double)x->down_nowait,
                          (double)x->up,
                          (double)x->host,
                          (double)x->cluster,
                          (double)x->net,
                          (double)x->local,
                          (double)x->core,
                          (double)x->wrapper,
                          a->total - (double)x->arrival_wait,
                          a->total};
            printf(" %.2f |", a->calls ? v[row] * 1e-3 / (double)a->calls : 0.0);
        }
        printf("\n");
    }
    if (rootn > 1) {
        char what[128];
        const char *how = NULL;
        if (hier && turn_op >= 0) {
            snprintf(what, sizeof what, "Rank %d's %s %s root vertex (one way)", turn_rank,
                     hstage_name(turn_stage), ac_part_op_name(turn_op));
            how = ac_part_op_gathers(turn_op)
                      ? "arrival order (t1 of the children, rows) against departure order (the "
                        "ends of the children's parts, columns)"
                      : "arrival order (the children's entries into the tree, rows) against "
                        "departure order (t4 to the children, columns)";
        } else if (hier)
            snprintf(what, sizeof what, "Rank %d's %s reduce and bcast root vertex", turn_rank,
                     hstage_name(turn_stage));
        else
            snprintf(what, sizeof what, "Root vertex");
        order_matrix(what, how, ord, rootn, p);
    }
    printf("\n");
    if (mapdir && nst) timemap(mapdir, gid, tmpl, tm0, nst, hier, slow, title);
    free(val), free(tot), free(tm0), free(start), free(acc), free(st), free(ord), free(hs);
    return 0;
}

static int tcall_seq_cmp(const void *x, const void *y) {
    const tcall_t *a = x, *b = y;
    if (a->leader != b->leader) return a->leader < b->leader ? -1 : 1;
    if (a->comm != b->comm) return a->comm < b->comm ? -1 : 1;
    if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
    return a->crank - b->crank;
}

/* Every rank's entry of a call takes the call site of the communicator's rank 0 (as the arrival
 * patterns do): a site string can differ between ranks (SMPI loads one copy of the program per
 * rank). */
static void stage_sites(tcall_t *v, size_t n) {
    qsort(v, n, sizeof *v, tcall_seq_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && v[j].leader == v[i].leader && v[j].comm == v[i].comm &&
               v[j].seq == v[i].seq)
            j++;
        if (v[i].crank == 0)
            for (size_t k = i + 1; k < j; k++)
                v[k].site = v[i].site;
        i = j;
    }
}

static int report_stages(const run_t *run, const char *mapdir, int hier, int *gid) {
    tcall_t *v = NULL;
    size_t n = 0;
    if (stage_collect(run, hier, &v, &n)) return -1;
    if (!n) return 0;
    if (hier) stage_sites(v, n);
    qsort(v, n, sizeof *v, tcall_cmp);
    if (hier)
        printf("## Stages of hierarchical calls\n\n"
               "Node-aware calls with part records (seed 003 §4, spec allreduce-trees.md §7; "
               "docs/tracing.md): per communicator, collective, call site (rank 0's), algorithm, "
               "root and size, both identities per rank, the metrics of spec 7.2 per stage, the "
               "stages of the slowest rank's path, the per-part means of each rank, the arrival "
               "and departure orders at a node leader (or, when no rank reduces and broadcasts "
               "over the same children, at the root of a tree that goes one way).\n\n");
    else
        printf("## Reduction-tree stages\n\n"
               "Allreduce `tree` calls with stage records (seed 003 §4, spec allreduce-trees.md "
               "§7; docs/tracing.md): per communicator, tree and size, the stages of the slowest "
               "rank's path, the per-part means of each rank, the arrival and departure orders "
               "at the root.\n\n");
    int rc = 0;
    for (size_t i = 0; i < n && !rc;) {
        size_t j = i + 1;
        while (j < n && v[j].leader == v[i].leader && v[j].comm == v[i].comm &&
               v[j].kind == v[i].kind && !strcmp(v[j].site, v[i].site) &&
               !strcmp(v[j].inst, v[i].inst) && v[j].root == v[i].root && v[j].csize == v[i].csize)
            j++;
        rc = stage_group(&v[i], j - i, mapdir, (*gid)++, hier);
        i = j;
    }
    for (size_t j = 0; j < n; j++)
        free(v[j].rec);
    free(v);
    return rc;
}

static int load(const char *dir, run_t *run) {
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return -1;
    }
    int bad = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        int r;
        char tail[8];
        if (sscanf(e->d_name, "autocoll-trace.%d.bi%1s", &r, tail) != 2 || r < 0) continue;
        size_t L = strlen(e->d_name);
        if (L < 4 || strcmp(e->d_name + L - 4, ".bin")) continue; /* not .bin.tmp */
        char path[4096], err[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (run->nf == cap) {
            int nc = cap ? 2 * cap : 16;
            ac_trace_file_t *nf = realloc(run->f, (size_t)nc * sizeof *nf);
            if (!nf) {
                fprintf(stderr, "autocoll-report: out of memory\n");
                bad = 1;
                break;
            }
            run->f = nf;
            cap = nc;
        }
        if (ac_trace_read(path, &run->f[run->nf], err, sizeof err) != 0) {
            fprintf(stderr, "autocoll-report: %s\n", err);
            bad = 1;
            continue;
        }
        run->nf++;
    }
    closedir(d);
    return bad;
}

static int by_rank(const void *x, const void *y) {
    const ac_trace_file_t *a = x, *b = y;
    return a->rank - b->rank;
}

int main(int argc, char **argv) {
    static const struct option lo[] = {
        {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0}};
    double alpha = -1, beta = -1;
    const char *mapdir = NULL;
    int o;
    char *end;
    while ((o = getopt_long(argc, argv, ":a:b:t:hV", lo, NULL)) != -1) {
        switch (o) {
        case 'a':
        case 'b': {
            double x = strtod(optarg, &end);
            if (end == optarg || *end || !isfinite(x) || x < 0 || (o == 'a' && x == 0)) {
                fprintf(stderr, "autocoll-report: -%c '%s': expected a %s number\n", o, optarg,
                        o == 'a' ? "positive" : "non-negative");
                usage(stderr);
                return 2;
            }
            if (o == 'a')
                alpha = x * 1e-6;
            else
                beta = x * 1e-9;
            break;
        }
        case 't':
            mapdir = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("autocoll-report (autocoll) %s\n", autocoll_version());
            return 0;
        default:
            fprintf(stderr, "autocoll-report: bad option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "autocoll-report: expected one trace directory\n");
        usage(stderr);
        return 2;
    }
    run_t run = {NULL, 0};
    int bad = load(argv[optind], &run);
    if (bad < 0) return 1;
    if (!run.nf) {
        fprintf(stderr, "autocoll-report: %s: no readable autocoll-trace.<rank>.bin\n",
                argv[optind]);
        free(run.f);
        return 1;
    }
    qsort(run.f, (size_t)run.nf, sizeof *run.f, by_rank);
    double fa = 0, fb = 0;
    if (ac_trace_file_net(&run.f[0], &fa, &fb) != 0) fa = 1e-6, fb = 1e-9;
    if (alpha < 0) alpha = fa > 0 ? fa : 1e-6;
    if (beta < 0) beta = fb;
    uint64_t drops = 0;
    for (int i = 0; i < run.nf; i++)
        drops += run.f[i].drops;
    printf("# autocoll trace report\n\n%d rank file%s of %d (%s); %llu records overwritten in "
           "full rings%s.\n\n",
           run.nf, run.nf == 1 ? "" : "s", run.f[0].nprocs, argv[optind], (unsigned long long)drops,
           drops ? " (their calls are counted as incomplete)" : "");
    int gid = 0; /* timemap number */
    int rc = report_calls(&run) || report_arrivals(&run, alpha, beta) ||
             report_phases(&run, alpha, beta) || report_arrival_dist(&run, alpha, beta, mapdir) ||
             report_p2p(&run) || report_traffic(&run, mapdir) || report_early(&run) ||
             report_stages(&run, mapdir, 0, &gid) || report_stages(&run, mapdir, 1, &gid);
    if (!rc) rc = report_pred_memory(&run) != 0;
    if (rc) fprintf(stderr, "autocoll-report: out of memory\n");
    for (int i = 0; i < run.nf; i++)
        ac_trace_file_free(&run.f[i]);
    free(run.f);
    return rc || bad ? 1 : 0;
}
