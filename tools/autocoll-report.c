/*
 * autocoll-report: reads the per-rank trace files of a run (AUTOCOLL_TRACE, docs/tracing.md) and
 * prints, in Markdown:
 *   1. per (communicator, collective, call site, size): calls, mean time per call (mean over
 *      ranks of exit - entry), the instances that ran and who chose them;
 *   2. the process arrival patterns of seed 000 §4.2 (spec star-stage-ethernet.md §6.1) per
 *      (communicator, collective, call site): average- and worst-case imbalance times and
 *      factors (T = alpha + beta n, the network model measured at MPI_Init and stored in the
 *      files, or -a/-b), the balanced/imbalanced split and the latest arriver;
 *   3. with point-to-point records: the hit ratios of seed 004's predictors per process
 *      (min/avg/max over processes) per predictor and window size on the send stream
 *      (identifiers <dest, comm>) and the receive stream (6-tuples), and the
 *      reconfiguration-hiding ratio of spec predictors-latency.md §4.2 for d in {1, 5, 10, 25}
 *      us and CPU factors 1 and 10 (B = 1 GB/s);
 *   3b. the memory each predictor uses (spec §3.5, the form of seed 004 Tables 3.1 and 6.1).
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
    fprintf(f, "usage: autocoll-report [-a ALPHA_US] [-b BETA_NS_PER_BYTE] DIR\n"
               "       autocoll-report --help | --version\n"
               "Reads DIR/autocoll-trace.<rank>.bin (written with AUTOCOLL_TRACE) and prints\n"
               "per-call-site times and instances, process arrival patterns and, with\n"
               "point-to-point records, predictor hit ratios and reconfiguration hiding.\n"
               "  -a, -b  the network model T = alpha + beta n of the imbalance factors\n"
               "          (default: the one measured at MPI_Init, stored in the files)\n");
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

static int report_arrivals(const run_t *run, double alpha, double beta) {
    size_t total = 0, n = 0;
    for (int i = 0; i < run->nf; i++)
        total += run->f[i].nrec;
    ac_arr_sample_t *s = malloc((total ? total : 1) * sizeof *s);
    if (!s) return -1;
    for (int i = 0; i < run->nf; i++)
        n += ac_arrival_samples_from_file(&run->f[i], s + n);
    ac_arr_group_t *g = NULL;
    size_t ng = 0;
    if (ac_arrival_groups(s, n, alpha, beta, &g, &ng) != 0) {
        free(s);
        return -1;
    }
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
    free(s);
    return 0;
}

/* ---------------------------------------------------------------- 3. point-to-point */

static int is_send(const ac_trace_rec_t *r) {
    if (r->kind >= AC_TK_SEND && r->kind <= AC_TK_IRSEND) return 1;
    if (r->kind == AC_TK_SENDRECV || r->kind == AC_TK_SENDRECV_REPLACE) return 1;
    return r->kind == AC_TK_START && !(r->flags & AC_TF_RECV_SIDE);
}

static int is_recv(const ac_trace_rec_t *r) {
    if (r->kind == AC_TK_RECV || r->kind == AC_TK_IRECV) return 1;
    return r->kind == AC_TK_START && (r->flags & AC_TF_RECV_SIDE);
}

/* A process's stream: identifiers, sites, sizes and pure inter-send times (spec 2.3 without
 * the calibrated wrapper overheads: t_in(b) - t_out(a) minus the durations of the other MPI
 * calls between them). */
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
    s->gap = malloc(m * sizeof *s->gap);
    if (!s->x || !s->site || !s->size || !s->gap) return -1;
    int64_t last_out = 0;
    double other = 0;
    for (uint64_t k = 0; k < t->nrec; k++) {
        const ac_trace_rec_t *r = &t->rec[k];
        int mine = send ? is_send(r) : is_recv(r);
        if (!mine || r->ident < 0) {
            other += (double)(r->t_out - r->t_in) * 1e-6; /* us */
            continue;
        }
        s->x[s->n] = r->ident;
        s->site[s->n] = r->site < t->nstr ? ac_trace_str_hash(t->str[r->site]) : 0;
        s->size[s->n] = (double)r->bytes;
        s->gap[s->n] = s->n ? (double)(r->t_in - last_out) * 1e-3 - other : 0;
        if (s->gap[s->n] < 0) s->gap[s->n] = 0;
        last_out = r->t_out;
        other = 0;
        s->n++;
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
            any = run->f[i].rec[k].kind >= AC_TK_P2P_FIRST;
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
        printf("## Reconfiguration hiding (send side)\n\n"
               "Spec predictors-latency.md §4.2: new cost / original cost of the link set-up "
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
            any = run->f[i].rec[k].kind >= AC_TK_P2P_FIRST;
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
    int o;
    char *end;
    while ((o = getopt_long(argc, argv, ":a:b:hV", lo, NULL)) != -1) {
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
    int rc = report_calls(&run) || report_arrivals(&run, alpha, beta) || report_p2p(&run);
    if (!rc) rc = report_pred_memory(&run) != 0;
    if (rc) fprintf(stderr, "autocoll-report: out of memory\n");
    for (int i = 0; i < run.nf; i++)
        ac_trace_file_free(&run.f[i]);
    free(run.f);
    return rc || bad ? 1 : 0;
}
