/*
 * autocoll-bench: OSU-style latency benchmark of the collectives of autocoll, one algorithm
 * instance (or the library's own choice, or the MPI library's collective) at a time.
 *
 *   autocoll-bench [-C coll[,coll]] [-a ALG] [-m [min:]max] [-i ITER] [-x WARMUP] [-f] [-c]
 *                  [-d KIND] [-t MECH] [-r ROOT] [--csv FILE] [--json FILE]
 *
 * ALG: native (autocoll_force(coll, "native"): the MPI library's collective), auto (nothing
 * forced: the library's selection in whatever mode it runs), an instance "name[:p=v,...]", a
 * comma list of those (a token "q=w" without ':' continues the previous instance's parameters),
 * or all (every registered instance whose restrictions hold here; the others are listed as
 * skipped). Calls go through autocoll_<coll>() so they always reach the selector.
 *
 * Sizes double from min to max (OSU); iterations per size follow STAGE-MPI (100 below 4 KB, 50
 * below 16 KB, 20 below 128 KB, 10 up to 256 KB, 5 above) unless -i is given; warmup defaults
 * to a tenth of the iterations (at least 1). Reductions use MPI_FLOAT (sizes below 4 bytes are
 * skipped, as OSU does). Buffers, validation and the timing mechanisms (-t b2b, barrier,
 * compute:US, imbalance:R) are in tools/common/ac_bench.c (design in ac_bench.h).
 *
 * -d KIND (--dtype): how the ranks describe their blocks of bcast, gather, scatter, allgather(v)
 * and alltoall(v), where MPI only requires matching type signatures. basic (default): n x
 * MPI_CHAR everywhere; contig, pairs, vector, resized, struct: every rank uses that description
 * (1 x contiguous(n); n/2 x contiguous(2); a strided vector; n x a resized byte with gaps; a
 * struct with gaps); mixed: rank r uses description (r + floor(log2 n)) mod 6, so neighbouring
 * ranks differ (table in ac_bench.h). Timed and validated calls use the same descriptions, and
 * -c compares against the MPI library's collective called with those same per-rank
 * descriptions, byte for byte over the whole receive allocation (gaps included). That reference
 * is itself checked against the MPI library's MPI_CHAR result placed through the descriptions;
 * if they disagree (an MPI library defect) a note says so and the latter is the reference.
 * Reductions require the same count and datatype on every rank: -d other than basic with a
 * reduction in -C is a bad option (status 2); barrier has no data and ignores -d.
 *
 * Output: one OSU-layout table per (collective, instance) on stdout from rank 0, times in
 * microseconds: "Size Avg" or, with -f, "Size Avg Min Max Iterations" where min/avg/max are over
 * ranks of each rank's mean time per call; -c adds a Validation column, and with -a auto the
 * instance the last timed call ran is shown. --csv writes
 *   coll,instance,bytes,p,mechanism,iters,min_s,avg_s,max_s,valid
 * (bytes = the library's selection size, seconds, valid = yes/no/-) and --json the same records
 * as a JSON array (plus "chosen" for auto).
 *
 * The table header names a kind other than basic, and so does a "dtype" member of the JSON
 * records of the collectives it applies to; CSV records do not (keep runs with different kinds
 * in different files).
 *
 * Exit status: 0 success, 1 a validation mismatch, an MPI error or an instance that could not
 * be run, 2 bad options. Built with smpicc as well (AC_SMPI): plain MPI, no threads or signals.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"
#include "ac_bench.h"
#include "ac_cli.h"

static int me, np;

static void usage(FILE *f) {
    fprintf(
        f,
        "usage: autocoll-bench [options]\n"
        "  -C COLL[,COLL]  collective(s): allgather allgatherv alltoall alltoallv bcast reduce\n"
        "                  allreduce reduce_scatter reduce_scatter_block gather scatter barrier\n"
        "                  (default allgather)\n"
        "  -a ALG          native | auto | name[:param=value,...][,...] | all (default auto)\n"
        "  -m [MIN:]MAX    message sizes in bytes, doubling from MIN (default 1:1M; K, M ok)\n"
        "  -i ITER         timed iterations per size (default: by size, STAGE-MPI)\n"
        "  -x WARMUP       untimed iterations per size (default: ITER/10, at least 1)\n"
        "  -f              full statistics: min/avg/max over ranks and iterations\n"
        "  -c              validate every call against the MPI library's collective\n"
        "  -d KIND         how ranks describe their blocks of bcast, gather, scatter,\n"
        "                  allgather(v), alltoall(v) (same type signature, own count and\n"
        "                  datatype): basic (N x MPI_CHAR, default) | contig (1 x contiguous(N))\n"
        "                  | pairs (N/2 x contiguous(2)) | vector (strided, with gaps) |\n"
        "                  resized (N x a byte with gaps) | struct (with gaps) | mixed\n"
        "                  (neighbouring ranks differ); timing and -c use them; reductions:\n"
        "                  basic only (--dtype KIND)\n"
        "  -t MECH         timing: b2b (default) | barrier | compute:US | imbalance:R\n"
        "  -r ROOT         root of bcast, reduce, gather, scatter (default 0)\n"
        "  --csv FILE      machine-readable results (CSV with a header line)\n"
        "  --json FILE     machine-readable results (JSON array)\n"
        "  -h, --help      this text\n"
        "  -V, --version   the version\n");
}

/* Options of this tool only; the others are in acb_opts_t (tools/common/ac_cli.h). */
static const char *alg = "auto", *csv_path, *json_path;
static int full, validate, dkind = ACB_DT_BASIC;

static int own_option(const acb_cli_t *cli, int o, const char *arg) {
    switch (o) {
    case 'a':
        alg = arg;
        return 0;
    case 'f':
        full = 1;
        return 0;
    case 'c':
        validate = 1;
        return 0;
    case 'd':
        dkind = acb_dtype_parse(arg);
        if (dkind < 0)
            return acb_bad_option(
                cli,
                "bad datatype kind '%s' (basic, contig, pairs, vector, resized, struct, mixed)",
                arg);
        return 0;
    case 1:
        csv_path = arg;
        return 0;
    case 2:
        json_path = arg;
        return 0;
    default:
        return ACB_OPT_SHARED;
    }
}

static const struct option longopts[] = {
    {"csv", required_argument, NULL, 1},     {"json", required_argument, NULL, 2},
    {"dtype", required_argument, NULL, 'd'}, {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},     {NULL, 0, NULL, 0}};
static acb_cli_t cli = {.tool = "autocoll-bench",
                        .usage = usage,
                        .optstring = ":C:a:m:i:x:fcd:t:r:hV",
                        .longopts = longopts,
                        .own = own_option,
                        .no_coll = "no collective given (-C)"};

/* ------------------------------------------------------------------ instance lists */

typedef struct {
    char name[256];
    int skip; /* restriction does not hold */
    const char *why;
} inst_t;

/* Splits a comma list of instances into out (a token with '=' but no ':' continues the
 * previous instance's parameter list). Returns the count, or -1 when too long. */
static int split_instances(const char *s, inst_t *out, int max) {
    int n = 0;
    const char *q = s;
    while (q && *q) {
        const char *e = strchr(q, ',');
        size_t len = e ? (size_t)(e - q) : strlen(q);
        char tok[256];
        if (len == 0 || len >= sizeof tok) return -1;
        memcpy(tok, q, len);
        tok[len] = '\0';
        if (n > 0 && !strchr(tok, ':') && strchr(tok, '=') && strchr(out[n - 1].name, ':')) {
            size_t have = strlen(out[n - 1].name);
            if (have + 1 + len >= sizeof out[n - 1].name) return -1;
            out[n - 1].name[have] = ',';
            memcpy(out[n - 1].name + have + 1, tok, len + 1);
        } else {
            if (n == max) return -1;
            memset(&out[n], 0, sizeof out[n]);
            memcpy(out[n].name, tok, len + 1);
            n++;
        }
        q = e ? e + 1 : NULL;
    }
    return n;
}

/* The instances of coll named by -a (every registered one for "all"), with the restrictions
 * that exclude some of them here. Returns 0, or 2 after reporting a bad name. */
static int build_list(int coll, const char *alg, const autocoll_layout_t *lay, int topo,
                      inst_t **out, int *nout) {
    const char *cname = autocoll_coll_name(coll);
    inst_t *list = NULL;
    int n = 0;
    if (!strcmp(alg, "all")) {
        int total = 0;
        for (int a = 0; a < autocoll_alg_count(coll); a++)
            total += autocoll_instance_count(coll, a);
        list = calloc((size_t)total + 1, sizeof *list);
        for (int a = 0; list && a < autocoll_alg_count(coll); a++) {
            autocoll_alg_info_t in;
            autocoll_alg_info(coll, a, &in);
            const char *why = acb_restriction_reason(in.restrictions, lay, topo);
            for (int i = 0; i < autocoll_instance_count(coll, a) && n < total; i++) {
                autocoll_instance_name(coll, a, i, list[n].name, sizeof list[n].name);
                list[n].why = why;
                list[n++].skip = why != NULL;
            }
        }
        *out = list, *nout = n;
        return 0;
    }
    list = calloc(64, sizeof *list);
    n = list ? split_instances(alg, list, 64) : -1;
    if (n <= 0) {
        free(list);
        return acb_bad_option(&cli, "bad algorithm list '%s'", alg);
    }
    for (int i = 0; i < n; i++) {
        if (!strcmp(list[i].name, "auto")) continue;
        int a = acb_alg_index(coll, list[i].name);
        if (a < 0 || autocoll_force(coll, list[i].name) != MPI_SUCCESS) {
            char msg[600];
            snprintf(msg, sizeof msg, "%s: unknown or invalid instance '%s'", cname, list[i].name);
            free(list);
            return acb_bad_option(&cli, "%s (see autocoll-info)", msg);
        }
        autocoll_force(coll, NULL);
        autocoll_alg_info_t in;
        autocoll_alg_info(coll, a, &in);
        list[i].why = acb_restriction_reason(in.restrictions, lay, topo);
        list[i].skip = list[i].why != NULL;
    }
    *out = list, *nout = n;
    return 0;
}

/* ------------------------------------------------------------------ output files */

static FILE *csv, *json;
static int json_records;

static void csv_field(FILE *f, const char *s) {
    if (strpbrk(s, ",\"\n")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"') fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
}
static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void record(const char *coll, const char *inst, const char *chosen, unsigned long long bytes,
                   const char *mech, const char *dtype, const acb_result_t *r) {
    const char *valid = r->valid < 0 ? "-" : r->valid ? "yes" : "no";
    if (csv) {
        csv_field(csv, coll);
        fputc(',', csv);
        csv_field(csv, inst);
        fprintf(csv, ",%llu,%d,", bytes, np);
        csv_field(csv, mech);
        fprintf(csv, ",%d,%.9e,%.9e,%.9e,%s\n", r->iters, r->min, r->avg, r->max, valid);
        fflush(csv);
    }
    if (json) {
        fprintf(json, "%s\n  {\"coll\": ", json_records++ ? "," : "");
        json_string(json, coll);
        fprintf(json, ", \"instance\": ");
        json_string(json, inst);
        if (chosen) {
            fprintf(json, ", \"chosen\": ");
            json_string(json, chosen);
        }
        fprintf(json, ", \"bytes\": %llu, \"p\": %d, \"mechanism\": ", bytes, np);
        json_string(json, mech);
        if (dtype) fprintf(json, ", \"dtype\": \"%s\"", dtype);
        fprintf(json,
                ", \"iters\": %d, \"min_s\": %.9e, \"avg_s\": %.9e, \"max_s\": %.9e, "
                "\"valid\": \"%s\"}",
                r->iters, r->min, r->avg, r->max, valid);
        fflush(json);
    }
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Comm_size(MPI_COMM_WORLD, &np);

    cli.rank = me, cli.size = np;

    acb_opts_t opt = {"allgather", "b2b", 1, 1 << 20, 0, -1, 0};
    acb_mech_t mech;
    int colls[AUTOCOLL_NCOLL], ncoll;
    int rc = acb_cli_parse(&cli, argc, argv, &opt, &mech, colls, &ncoll);
    /* Reductions: MPI requires the same count and datatype on every rank. */
    for (int ci = 0; rc == 0 && dkind != ACB_DT_BASIC && ci < ncoll; ci++) {
        if (!acb_is_reduction(colls[ci])) continue;
        char msg[300];
        snprintf(msg, sizeof msg,
                 "-d %s does not apply to %s: reductions need the same count and datatype on "
                 "every rank (use -d basic)",
                 acb_dtype_name(dkind), autocoll_coll_name(colls[ci]));
        rc = acb_bad_option(&cli, "%s", msg);
    }
    if (rc) {
        MPI_Finalize();
        return rc == ACB_OPT_HELP ? 0 : rc;
    }

    /* Private communicator; errors are returned, not fatal. */
    MPI_Comm comm;
    PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
    PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    autocoll_layout_t lay;
    if (autocoll_layout(comm, &lay) != MPI_SUCCESS) /* the library is not active: one node */
        lay = (autocoll_layout_t){
            .p = np, .nodes = 1, .ppn = np, .uniform = 1, .placement = "single"};
    /* AUTOCOLL_TOPOLOGY covers the communicator: the topology algorithms can run */
    int topo = autocoll_topology_applies(comm), open_ok = 1;

    /* Every instance list is checked before anything is measured. */
    inst_t *lists[AUTOCOLL_NCOLL] = {NULL};
    int counts[AUTOCOLL_NCOLL] = {0};
    for (int ci = 0; ci < ncoll && rc == 0; ci++)
        rc = build_list(colls[ci], alg, &lay, topo, &lists[ci], &counts[ci]);
    if (rc) open_ok = 0; /* nothing is measured; no file is written */
    /* Output files: opened by rank 0, agreement on success. */
    if (me == 0 && open_ok) {
        if (csv_path && !(csv = fopen(csv_path, "w"))) {
            fprintf(stderr, "autocoll-bench: cannot write %s\n", csv_path);
            open_ok = 0;
        }
        if (json_path && !(json = fopen(json_path, "w"))) {
            fprintf(stderr, "autocoll-bench: cannot write %s\n", json_path);
            open_ok = 0;
        }
        if (csv) fprintf(csv, "coll,instance,bytes,p,mechanism,iters,min_s,avg_s,max_s,valid\n");
        if (json) fprintf(json, "[");
    }
    PMPI_Bcast(&open_ok, 1, MPI_INT, 0, comm);
    if (!open_ok) {
        if (csv) fclose(csv);
        if (json) fclose(json);
        for (int ci = 0; ci < ncoll; ci++)
            free(lists[ci]);
        PMPI_Comm_free(&comm);
        MPI_Finalize();
        return 2;
    }

    for (int ci = 0; ci < ncoll && rc != 2; ci++) {
        int coll = colls[ci], n = counts[ci];
        const char *cname = autocoll_coll_name(coll);
        inst_t *list = lists[ci];
        for (int ii = 0; ii < n; ii++) {
            inst_t *in = &list[ii];
            int is_auto = !strcmp(in->name, "auto");
            if (in->skip) {
                if (me == 0)
                    printf("# %s %s: skipped (%s; p=%d, nodes=%d)\n", cname, in->name, in->why, np,
                           lay.nodes);
                continue;
            }
            autocoll_force(coll, is_auto ? NULL : in->name);
            if (me == 0) {
                printf("# autocoll-bench (autocoll %s): %s, instance %s\n", autocoll_version(),
                       cname, in->name);
                printf("# p=%d, nodes=%d, mechanism %s", np, lay.nodes, mech.text);
                if (acb_is_rooted(coll)) printf(", root %ld", opt.root);
                if (dkind != ACB_DT_BASIC && acb_dtype_applies(coll))
                    printf(", datatypes %s", acb_dtype_name(dkind));
                printf("\n");
                printf("%-10s%18s", "# Size", "Avg Latency(us)");
                if (full)
                    printf("%18s%18s%12s", "Min Latency(us)", "Max Latency(us)", "Iterations");
                if (validate) printf("%12s", "Validation");
                if (is_auto) printf("  Instance");
                printf("\n");
                fflush(stdout);
            }
            int stop = 0;
            for (unsigned long long m = coll == AUTOCOLL_BARRIER ? 0 : opt.mmin; !stop;
                 m = m ? m * 2 : opt.mmax + 1) {
                if (coll != AUTOCOLL_BARRIER && m > opt.mmax) break;
                size_t msg = (size_t)m;
                if (acb_is_reduction(coll) && msg < acb_elem_size(coll)) continue;
                acb_case_t k;
                int e = acb_case_init_dtype(&k, comm, coll, msg, (int)opt.root, dkind);
                if (e == MPI_ERR_NO_MEM) {
                    if (me == 0) printf("# %zu bytes: not enough memory, stopping\n", msg);
                    break;
                }
                if (k.ref_bad_rank >= 0 && me == 0) {
                    char where[64] = "an MPI error";
                    if (k.ref_bad_offset >= 0)
                        snprintf(where, sizeof where, "byte %lld differs", k.ref_bad_offset);
                    printf("# %zu bytes: reference from the MPI library's MPI_CHAR result\n",
                           k.msg);
                    fprintf(stderr,
                            "autocoll-bench: note: %s, %zu bytes, datatypes %s: the MPI library's "
                            "own %s with these descriptions disagrees with its MPI_CHAR result "
                            "(rank %d: %s); validating against the MPI_CHAR result\n",
                            cname, k.msg, acb_dtype_name(k.dkind), cname, k.ref_bad_rank, where);
                }
                int it, wu;
                acb_cli_iters(&opt, k.msg, &it, &wu);
                /* The forced instance must really run (the library falls back to native when
                 * it cannot); checked on a first untimed call. */
                acb_call(&k);
                char last[256] = "";
                autocoll_last_choice(comm, coll, last, sizeof last);
                if (!is_auto && acb_ran_other(last, in->name)) {
                    if (me == 0)
                        printf("# %s %s did not run (the library ran %s): skipped\n", cname,
                               in->name, last);
                    rc = rc ? rc : 1;
                    acb_case_free(&k);
                    break;
                }
                acb_result_t r;
                acb_measure(&k, &mech, it, wu, validate, &r);
                /* In auto mode the first call may have been a probe of the adaptive engine:
                 * report what the last timed call ran. */
                if (is_auto) autocoll_last_choice(comm, coll, last, sizeof last);
                /* Rank 0 reports what it ran; every rank ran the same (agreement). */
                if (me == 0) {
                    printf("%-10zu%18.2f", k.msg, r.avg * 1e6);
                    if (full) printf("%18.2f%18.2f%12d", r.min * 1e6, r.max * 1e6, r.iters);
                    if (validate) printf("%12s", r.valid ? "Pass" : "Fail");
                    if (is_auto) printf("  %s", last);
                    printf("\n");
                    fflush(stdout);
                    record(cname, in->name, is_auto ? last : NULL,
                           autocoll_selection_size(coll, k.msg, np), mech.text,
                           k.dkind != ACB_DT_BASIC ? acb_dtype_name(k.dkind) : NULL, &r);
                }
                if (r.errors) {
                    if (me == 0)
                        fprintf(stderr, "autocoll-bench: %s %s %zu B: MPI error on %d rank(s)\n",
                                cname, in->name, k.msg, r.errors);
                    rc = 1;
                }
                if (validate && !r.valid) {
                    /* Other kinds: what the failing rank's receive description was. */
                    char how[160] = "";
                    if (k.dkind != ACB_DT_BASIC)
                        snprintf(how, sizeof how, " (datatypes %s; rank %d receives %s)",
                                 acb_dtype_name(k.dkind), r.bad_rank, r.bad_desc);
                    if (me == 0)
                        fprintf(stderr,
                                "autocoll-bench: VALIDATION FAILED: %s instance %s, %zu bytes "
                                "(selection size %llu), p=%d, root %ld: rank %d, iteration %ld, "
                                "byte %lld of the output differs from the MPI library's "
                                "result%s%s\n",
                                cname, is_auto ? last : in->name, k.msg,
                                autocoll_selection_size(coll, k.msg, np), np, opt.root, r.bad_rank,
                                r.bad_iter, r.bad_offset,
                                r.bad_offset >= r.bad_len ? " (guard area after the data)" : "",
                                how);
                    rc = 1;
                }
                acb_case_free(&k);
                if (coll == AUTOCOLL_BARRIER) stop = 1;
            }
            autocoll_force(coll, NULL);
        }
    }
    for (int ci = 0; ci < ncoll; ci++)
        free(lists[ci]);
    if (me == 0) {
        if (csv) fclose(csv);
        if (json) {
            fprintf(json, "%s]\n", json_records ? "\n" : "");
            fclose(json);
        }
    }
    PMPI_Comm_free(&comm);
    MPI_Finalize();
    return rc;
}
