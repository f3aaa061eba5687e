/*
 * autocoll-tune: measures the algorithms of autocoll on this machine and process layout and
 * writes a tuning table (STAGE-MPI, spec star-stage-ethernet.md §4.3).
 *
 *   autocoll-tune [-C coll,...] [-m [min:]max] [-t MECH] [-i ITER] [-x WARMUP] [-r ROOT]
 *                 [-o FILE] [--export-ompi FILE] [--export-mpich FILE] [--budget SECONDS]
 *                 [--state FILE]
 *
 * Procedure, per collective (default allgather alltoall allreduce bcast reduce):
 *   size points 1, 64, 256, 512, 1K, 2K, ..., 256K, 1M bytes inside [min, max] plus min and max
 *   themselves (reductions: rounded up to whole floats; barrier: one point);
 *   1. every algorithm with several parameter instances: time every instance at every point,
 *      keep the best per point, and between adjacent points whose best differ binary-search the
 *      crossover: lo = s_a, hi = s_b; while hi - lo > max(type size, lo/64): mid = middle in
 *      whole elements; lo = mid if time(X_a, mid) <= time(X_b, mid) else hi = mid; the first
 *      size of X_b is hi. The result is the algorithm's size-dispatched parameter-free version;
 *   2. the same over the parameter-free choices (those versions and the algorithms without
 *      parameters, the MPI library's collective "native" included), giving size ranges and
 *      winners; a winner that is a tuned version contributes its own ranges inside its range.
 * Algorithms whose registry restrictions do not hold for this run are left out (and listed);
 * an instance whose first call does not match the MPI library's result, or that the library
 * does not run (fallback), is never chosen. The first range starts at 0 and the last one has no
 * upper bound. alltoallv is not tuned (its selection size differs between ranks, so a table
 * cannot dispatch on it).
 *
 * Rules: autocoll_table_add_rule(coll, [p, p], nodes, ppn, [lo, hi), instance) in the library's
 * selection size (autocoll_selection_size: x p for allgatherv and reduce_scatter); nodes from
 * MPI_Comm_split_type(SHARED) or AUTOCOLL_NODE_LAYOUT, ppn = ceil(p / nodes), the value the
 * library looks up. Provenance via autocoll_table_set_info.
 *
 * Agreement: a measurement's value is the maximum over ranks of each rank's mean time per call
 * (allreduce inside acb_measure), so every rank holds the same number and takes the same
 * decisions (best instance, bisection step, budget: the elapsed time is also a maximum over
 * ranks) without further messages. The checkpoint file is read by rank 0 and broadcast.
 *
 * Checkpoint (--state FILE), a line format written by rank 0:
 *   autocoll-tune state 1
 *   config p=P nodes=N ppn=Q mech=M iters=I warmup=W root=R
 *   m COLL MSG SECONDS INSTANCE           (one line per measurement, appended and flushed)
 * MSG is the per-process message size in bytes, SECONDS the agreed time printed with 17
 * significant digits ("inf" when the instance cannot be used), INSTANCE the rest of the line. A
 * restarted run with the same arguments replays the recorded values and measures only the
 * rest; since decisions depend only on those values it takes the same path. A file written
 * with another config line is refused (exit 2); an unterminated last line is ignored.
 *
 * Budget (--budget S): once the elapsed time exceeds S, nothing more is measured; the table is
 * built from the measurements made (bisections stop where they are) and the provenance key
 * "status" says it is incomplete.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "autocoll.h"
#include "ac_bench.h"
#include "ac_cli.h"

static int me, np;
static MPI_Comm comm;
static autocoll_layout_t lay;
static int topo; /* AUTOCOLL_TOPOLOGY covers the communicator (autocoll_topology_applies) */
static acb_mech_t mech;
static acb_opts_t opt = {"allgather,alltoall,allreduce,bcast,reduce", "b2b", 1, 1 << 20, 0, -1, 0};
static double budget = 0;
static int over_budget = 0, tty = 0;
static FILE *state;

static void usage(FILE *f) {
    fprintf(f, "usage: autocoll-tune [options]\n"
               "  -C COLL[,COLL]        collectives (default allgather,alltoall,allreduce,bcast,"
               "reduce)\n"
               "  -m [MIN:]MAX          size range of the points (default 1:1M; K, M ok)\n"
               "  -t MECH               timing: b2b (default) | barrier | compute:US | "
               "imbalance:R\n"
               "  -i ITER, -x WARMUP    iterations and warmup per measurement (default: STAGE)\n"
               "  -r ROOT               root of rooted collectives (default 0)\n"
               "  -o FILE               tuning table (default autocoll-table.json)\n"
               "  --export-ompi FILE    also an Open MPI coll/tuned rules file\n"
               "  --export-mpich FILE   also an MPICH csel JSON file\n"
               "  --budget SECONDS      stop measuring after this time, write what is known\n"
               "  --state FILE          checkpoint: resume an interrupted run\n"
               "  -h, --help            this text\n"
               "  -V, --version         the version\n");
}

/* -C: alltoallv is left out (with a note), every collective is tuned once. */
static int tunable(int coll, const int *colls, int ncoll) {
    if (coll == AUTOCOLL_ALLTOALLV) {
        if (me == 0)
            fprintf(stderr, "autocoll-tune: alltoallv is not tuned (its selection size "
                            "differs between ranks)\n");
        return 0;
    }
    for (int i = 0; i < ncoll; i++)
        if (colls[i] == coll) return 0;
    return 1;
}

/* Options of this tool only; the others are in opt (tools/common/ac_cli.h). */
static const char *out_path = "autocoll-table.json", *ompi_path, *mpich_path, *state_path;

static int own_option(const acb_cli_t *cli, int o, const char *arg) {
    char *end;
    switch (o) {
    case 'o':
        out_path = arg;
        return 0;
    case 1:
        ompi_path = arg;
        return 0;
    case 2:
        mpich_path = arg;
        return 0;
    case 3:
        budget = strtod(arg, &end);
        if (*end || end == arg || !(budget > 0) || budget > 1e9)
            return acb_bad_option(cli, "bad budget '%s' (seconds > 0)", arg);
        return 0;
    case 4:
        state_path = arg;
        return 0;
    default:
        return ACB_OPT_SHARED;
    }
}

static const struct option longopts[] = {{"export-ompi", required_argument, NULL, 1},
                                         {"export-mpich", required_argument, NULL, 2},
                                         {"budget", required_argument, NULL, 3},
                                         {"state", required_argument, NULL, 4},
                                         {"help", no_argument, NULL, 'h'},
                                         {"version", no_argument, NULL, 'V'},
                                         {NULL, 0, NULL, 0}};
static acb_cli_t cli = {.tool = "autocoll-tune",
                        .usage = usage,
                        .optstring = ":C:m:t:i:x:r:o:hV",
                        .longopts = longopts,
                        .own = own_option,
                        .keep = tunable,
                        .no_coll = "no collective to tune (-C)"};

/* ------------------------------------------------------------------ measurements */

typedef struct {
    int coll;
    size_t msg;
    double t;
    char inst[256];
} meas_t;
static meas_t *cache;
static int ncache, capcache;
static long planned, done_new;
static double measure_time; /* seconds spent in new measurements */

static meas_t *cache_find(int coll, size_t msg, const char *inst) {
    for (int i = 0; i < ncache; i++)
        if (cache[i].coll == coll && cache[i].msg == msg && !strcmp(cache[i].inst, inst))
            return &cache[i];
    return NULL;
}
static void cache_add(int coll, size_t msg, const char *inst, double t) {
    if (ncache == capcache) {
        int cap = capcache ? 2 * capcache : 256;
        meas_t *n = realloc(cache, (size_t)cap * sizeof *n);
        if (!n) return; /* identical on every rank only if memory is; then it is just slower */
        cache = n, capcache = cap;
    }
    meas_t *m = &cache[ncache++];
    m->coll = coll, m->msg = msg, m->t = t;
    snprintf(m->inst, sizeof m->inst, "%s", inst);
}

static void progress(const char *cname, const char *phase, size_t msg, const char *inst) {
    if (me != 0) return;
    long left = planned - done_new;
    double eta = done_new > 0 && left > 0 ? measure_time / (double)done_new * (double)left : 0;
    char line[400];
    snprintf(line, sizeof line, "autocoll-tune: %s %s %zu B %s (%ld measured, about %.0f s left)",
             cname, phase, msg, inst, done_new, eta);
    if (tty)
        fprintf(stderr, "\r%-110.110s", line);
    else
        fprintf(stderr, "%s\n", line);
}
static void progress_end(void) {
    if (me == 0 && tty) fprintf(stderr, "\n");
}

/* Agreed time of one instance at one size: max over ranks of the per-rank mean; INFINITY when it
 * cannot be used (wrong result, not run by the library, MPI error) or was not measured (budget). */
static double measure(int coll, size_t msg, const char *inst, const char *phase) {
    meas_t *c = cache_find(coll, msg, inst);
    if (c) return c->t;
    if (over_budget) return INFINITY;
    double el = acb_now(), elmax = el;
    PMPI_Allreduce(&el, &elmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (budget > 0 && elmax > budget) {
        over_budget = 1;
        progress_end();
        if (me == 0)
            fprintf(stderr,
                    "autocoll-tune: time budget of %.0f s exceeded: measuring stops, the "
                    "table is written from what is known\n",
                    budget);
        return INFINITY;
    }
    const char *cname = autocoll_coll_name(coll);
    progress(cname, phase, msg, inst);
    double t0 = PMPI_Wtime(), t = INFINITY;
    acb_case_t k;
    if (autocoll_force(coll, inst) == MPI_SUCCESS &&
        acb_case_init(&k, comm, coll, msg, (int)opt.root) == MPI_SUCCESS) {
        /* First call: must be this instance and give the MPI library's result everywhere. */
        int e = acb_call(&k), bad = e != MPI_SUCCESS || acb_check(&k) >= 0, anybad = bad;
        char last[256] = "";
        autocoll_last_choice(comm, coll, last, sizeof last);
        if (acb_ran_other(last, inst)) bad = 1;
        PMPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm);
        if (anybad) {
            progress_end();
            if (me == 0)
                fprintf(stderr, "autocoll-tune: %s %s at %zu B: %s; not a candidate there\n", cname,
                        inst, msg,
                        last[0] && strcmp(last, inst) && strncmp(last, inst, strlen(inst))
                            ? "the library ran another algorithm"
                            : "wrong result or MPI error");
        } else {
            acb_result_t r;
            int it, wu;
            acb_cli_iters(&opt, k.msg, &it, &wu);
            acb_measure(&k, &mech, it, wu, 0, &r);
            if (!r.errors) t = r.max;
        }
        acb_case_free(&k);
    }
    autocoll_force(coll, NULL);
    done_new++;
    measure_time += PMPI_Wtime() - t0;
    cache_add(coll, msg, inst, t);
    if (me == 0 && state) {
        fprintf(state, "m %s %zu %.17g %s\n", cname, msg, t, inst);
        fflush(state);
    }
    return t;
}

/* ------------------------------------------------------------------ candidates and dispatch */

/* A size dispatch in message-size units: range i is [lo[i], lo[i+1]) (the last one unbounded)
 * and uses candidate who[i]. */
typedef struct {
    int n;
    size_t lo[64];
    int who[64];
} dispatch_t;

/* A candidate: one instance, or an algorithm's tuned dispatch over its instances. */
typedef struct {
    char alg[128];
    char (*inst)[256]; /* its instances */
    int ninst;
    dispatch_t tuned; /* when ninst > 1 */
} cand_t;

typedef struct {
    int coll;
    size_t esize;
    const char *phase;
    /* phase 1: candidates are the instances of one algorithm; phase 2: the algorithms */
    cand_t *algs;
    int nalg;
    int level1_alg; /* >= 0 in phase 1 */
} search_t;

static int dispatch_at(const dispatch_t *d, size_t msg) {
    int i = 0;
    while (i + 1 < d->n && d->lo[i + 1] <= msg)
        i++;
    return d->who[i];
}

/* Instance of candidate c at size msg. */
static const char *cand_inst(const search_t *s, int c, size_t msg) {
    if (s->level1_alg >= 0) return s->algs[s->level1_alg].inst[c];
    const cand_t *a = &s->algs[c];
    return a->ninst == 1 ? a->inst[0] : a->inst[dispatch_at(&a->tuned, msg)];
}
static int ncands(const search_t *s) {
    return s->level1_alg >= 0 ? s->algs[s->level1_alg].ninst : s->nalg;
}
static double cand_time(const search_t *s, int c, size_t msg) {
    return measure(s->coll, msg, cand_inst(s, c, msg), s->phase);
}

static size_t crossover(const search_t *s, int a, int b, size_t lo, size_t hi) {
    for (;;) {
        size_t tol = lo / 64 > s->esize ? lo / 64 : s->esize;
        if (hi - lo <= tol) break;
        size_t mid = (lo + hi) / 2 / s->esize * s->esize;
        if (mid <= lo || mid >= hi) break;
        double ta = cand_time(s, a, mid), tb = cand_time(s, b, mid);
        if (isinf(ta) && isinf(tb)) break; /* budget exhausted */
        if (ta <= tb)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

/* STAGE-MPI steps 3.1/3.2 (or 4): best candidate per point, crossovers between points. */
static void search(const search_t *s, const size_t *pts, int npts, dispatch_t *d) {
    int nc = ncands(s), prev = -1;
    d->n = 0;
    for (int i = 0; i < npts; i++) {
        int best = -1;
        double bt = INFINITY;
        for (int c = 0; c < nc; c++) {
            double t = cand_time(s, c, pts[i]);
            if (t < bt) bt = t, best = c;
        }
        if (best < 0) continue; /* nothing measured here: the previous range goes on */
        if (prev < 0) {
            d->lo[0] = 0, d->who[0] = best, d->n = 1;
        } else if (best != prev && d->n < 64) {
            d->lo[d->n] = crossover(s, prev, best, pts[i - 1], pts[i]);
            d->who[d->n++] = best;
        }
        prev = best;
    }
}

/* ------------------------------------------------------------------ rules */

typedef struct {
    size_t lo; /* message-size units; hi is the next rule's lo, or unbounded */
    char inst[256];
} rule_t;

/* Final rules of a collective: phase-2 ranges, with a tuned winner's own ranges inside. */
static int final_rules(const search_t *s, const dispatch_t *d, rule_t *out, int max) {
    int n = 0;
    for (int i = 0; i < d->n; i++) {
        size_t lo = d->lo[i], hi = i + 1 < d->n ? d->lo[i + 1] : (size_t)-1;
        const cand_t *a = &s->algs[d->who[i]];
        /* Boundaries of the winner inside [lo, hi). */
        size_t cuts[65];
        int nc = 0;
        cuts[nc++] = lo;
        if (a->ninst > 1)
            for (int j = 1; j < a->tuned.n; j++)
                if (a->tuned.lo[j] > lo && a->tuned.lo[j] < hi) cuts[nc++] = a->tuned.lo[j];
        for (int j = 0; j < nc && n < max; j++) {
            const char *inst = cand_inst(s, d->who[i], cuts[j]);
            if (n > 0 && !strcmp(out[n - 1].inst, inst)) continue; /* merge */
            out[n].lo = cuts[j];
            snprintf(out[n].inst, sizeof out[n].inst, "%s", inst);
            n++;
        }
    }
    return n;
}

/* ------------------------------------------------------------------ checkpoint */

static void state_config(char *buf, size_t len) {
    snprintf(buf, len, "config p=%d nodes=%d ppn=%d mech=%s iters=%ld warmup=%ld root=%ld", np,
             lay.nodes, (np + lay.nodes - 1) / lay.nodes, mech.text, opt.iters, opt.warmup,
             opt.root);
}

/* Rank 0 reads the file, every rank parses the same bytes. 0, or 2 after an error message. */
static int state_open(const char *path) {
    char cfg[256];
    state_config(cfg, sizeof cfg);
    long len = 0;
    char *buf = NULL;
    int status = 0; /* 0 ok, 2 refused */
    if (me == 0) {
        FILE *f = fopen(path, "r");
        if (f) {
            fseek(f, 0, SEEK_END);
            len = ftell(f);
            fseek(f, 0, SEEK_SET);
            buf = malloc((size_t)len + 1);
            if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) len = -1;
            fclose(f);
        }
        if (len < 0) {
            fprintf(stderr, "autocoll-tune: cannot read state file %s\n", path);
            status = 2;
        }
    }
    PMPI_Bcast(&status, 1, MPI_INT, 0, comm);
    if (status) return status;
    PMPI_Bcast(&len, 1, MPI_LONG, 0, comm);
    if (me != 0) buf = malloc((size_t)len + 1);
    int ok = buf != NULL || len == 0, allok = 0;
    PMPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, comm);
    if (!allok) {
        free(buf);
        if (me == 0) fprintf(stderr, "autocoll-tune: out of memory reading %s\n", path);
        return 2;
    }
    if (len > 0) {
        /* Broadcast in pieces that fit an int count. */
        for (long off = 0; off < len; off += 1 << 30) {
            long piece = len - off < (1 << 30) ? len - off : (1 << 30);
            PMPI_Bcast(buf + off, (int)piece, MPI_CHAR, 0, comm);
        }
        buf[len] = '\0';
        /* Header and config must match; then measurements, complete lines only. */
        char *line = buf, *nl;
        int lineno = 0, loaded = 0;
        while ((nl = strchr(line, '\n')) != NULL && status == 0) {
            *nl = '\0';
            lineno++;
            if (lineno == 1 && strcmp(line, "autocoll-tune state 1")) {
                status = 2;
                if (me == 0)
                    fprintf(stderr, "autocoll-tune: %s is not an autocoll-tune state file\n", path);
            } else if (lineno == 2 && strcmp(line, cfg)) {
                status = 2;
                if (me == 0)
                    fprintf(stderr,
                            "autocoll-tune: state file %s was written with other settings\n"
                            "  file: %s\n  now:  %s\n"
                            "remove it or use another --state file\n",
                            path, line, cfg);
            } else if (lineno > 2 && line[0] == 'm') {
                char cn[64], tv[64];
                size_t msg;
                int used = 0;
                if (sscanf(line, "m %63s %zu %63s %n", cn, &msg, tv, &used) == 3 && used > 0 &&
                    autocoll_coll_from_name(cn) >= 0 && line[used]) {
                    double t = strcmp(tv, "inf") ? strtod(tv, NULL) : INFINITY;
                    cache_add(autocoll_coll_from_name(cn), msg, line + used, t);
                    loaded++;
                }
            }
            line = nl + 1;
        }
        if (status == 0 && lineno < 2) {
            status = 2;
            if (me == 0) fprintf(stderr, "autocoll-tune: %s: incomplete header\n", path);
        }
        if (status == 0 && me == 0 && loaded)
            fprintf(stderr, "autocoll-tune: resuming from %s: %d measurements known\n", path,
                    loaded);
    }
    if (status == 0 && me == 0) {
        state = fopen(path, len > 0 ? "a" : "w");
        if (!state) {
            fprintf(stderr, "autocoll-tune: cannot write state file %s\n", path);
            status = 2;
        } else if (len == 0) {
            fprintf(state, "autocoll-tune state 1\n%s\n", cfg);
        } else if (buf[len - 1] != '\n' && buf[len - 1] != '\0') {
            fputc('\n', state); /* an interrupted last line stays on its own */
        }
        if (state) fflush(state);
    }
    free(buf);
    PMPI_Bcast(&status, 1, MPI_INT, 0, comm);
    return status;
}

/* ------------------------------------------------------------------ table */

static void provenance(autocoll_table_t *t) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "", num[64];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0';
    /* Host names in rank order, distinct. */
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    PMPI_Get_processor_name(name, &len);
    char *all = me == 0 ? calloc((size_t)np, MPI_MAX_PROCESSOR_NAME) : NULL;
    PMPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
                comm);
    if (me != 0) return;
    autocoll_table_set_info(t, "mpi_library", lib);
    snprintf(num, sizeof num, "%d", np);
    autocoll_table_set_info(t, "p", num);
    snprintf(num, sizeof num, "%d", lay.nodes);
    autocoll_table_set_info(t, "nodes", num);
    snprintf(num, sizeof num, "%d", (np + lay.nodes - 1) / lay.nodes);
    autocoll_table_set_info(t, "ppn", num);
    autocoll_table_set_info(t, "placement", lay.placement);
    if (all) {
        size_t cap = (size_t)np * (MPI_MAX_PROCESSOR_NAME + 1) + 1, used = 0;
        char *hosts = calloc(cap, 1);
        for (int r = 0; hosts && r < np; r++) {
            const char *h = all + (size_t)r * MPI_MAX_PROCESSOR_NAME;
            int seen = 0;
            for (int q = 0; q < r && !seen; q++)
                seen =
                    !strncmp(h, all + (size_t)q * MPI_MAX_PROCESSOR_NAME, MPI_MAX_PROCESSOR_NAME);
            if (!seen && h[0] && !strchr(h, ','))
                used += (size_t)snprintf(hosts + used, cap - used, "%s%.*s", used ? "," : "",
                                         MPI_MAX_PROCESSOR_NAME, h);
        }
        if (hosts) autocoll_table_set_info(t, "hosts", hosts);
        free(hosts);
        free(all);
    }
    char date[64];
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    autocoll_table_set_info(t, "date", date);
    char timing[160], it[32], wu[32];
    snprintf(it, sizeof it, "%ld", opt.iters);
    snprintf(wu, sizeof wu, "%ld", opt.warmup);
    snprintf(timing, sizeof timing, "%s, iterations %s, warmup %s, max over ranks of the mean",
             mech.text, opt.iters ? it : "by size (STAGE-MPI)", opt.warmup >= 0 ? wu : "ITER/10");
    autocoll_table_set_info(t, "timing", timing);
    autocoll_table_set_info(t, "autocoll_version", autocoll_version());
    autocoll_table_set_info(t, "tool", "autocoll-tune");
}

/* Reports the result n of an export (autocoll_table_export_*) to path: 0, or 1 when it failed. */
static int exported(const char *path, int n, const char *native) {
    if (n < 0) {
        fprintf(stderr, "autocoll-tune: cannot export %s\n", path);
        return 1;
    }
    printf("# wrote %s: %d rules with an %s equivalent\n", path, n, native);
    return 0;
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Comm_size(MPI_COMM_WORLD, &np);
    acb_now();

    cli.rank = me, cli.size = np;

    int colls[AUTOCOLL_NCOLL], ncoll;
    int rc = acb_cli_parse(&cli, argc, argv, &opt, &mech, colls, &ncoll);
    if (rc) {
        MPI_Finalize();
        return rc == ACB_OPT_HELP ? 0 : rc;
    }
    tty = me == 0 && isatty(2);

    PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
    PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    if (autocoll_layout(comm, &lay) != MPI_SUCCESS) /* the library is not active: one node */
        lay = (autocoll_layout_t){
            .p = np, .nodes = 1, .ppn = np, .uniform = 1, .placement = "single"};
    topo = autocoll_topology_applies(comm);
    int ppn = (np + lay.nodes - 1) / lay.nodes;
    if (state_path && (rc = state_open(state_path)) != 0) {
        PMPI_Comm_free(&comm);
        MPI_Finalize();
        return rc;
    }
    /* The output must be writable before hours of measurement. */
    int ok = 1;
    if (me == 0) {
        FILE *f = fopen(out_path, "a");
        if (!f) {
            fprintf(stderr, "autocoll-tune: cannot write %s\n", out_path);
            ok = 0;
        } else {
            fclose(f);
        }
    }
    PMPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (!ok) {
        if (state) fclose(state);
        PMPI_Comm_free(&comm);
        MPI_Finalize();
        return 2;
    }

    autocoll_table_t *table = me == 0 ? autocoll_table_new() : NULL;
    if (me == 0)
        printf("# autocoll-tune (autocoll %s): p=%d, nodes=%d, ppn=%d (%s), mechanism %s\n",
               autocoll_version(), np, lay.nodes, ppn, lay.placement, mech.text);

    /* Size points and candidates of every collective; planned measurement count. */
    static const size_t base_pts[] = {1,        64,        256,       512,      1 << 10,
                                      2 << 10,  4 << 10,   8 << 10,   16 << 10, 32 << 10,
                                      64 << 10, 128 << 10, 256 << 10, 1 << 20};
    size_t pts[AUTOCOLL_NCOLL][24];
    int npts[AUTOCOLL_NCOLL];
    cand_t *algs[AUTOCOLL_NCOLL];
    int nalg[AUTOCOLL_NCOLL];
    for (int ci = 0; ci < ncoll; ci++) {
        int coll = colls[ci];
        size_t es = acb_elem_size(coll), cand[32];
        int nc = 0, n = 0;
        if (coll == AUTOCOLL_BARRIER) {
            cand[nc++] = 0;
        } else {
            cand[nc++] = (size_t)opt.mmin;
            for (size_t i = 0; i < sizeof base_pts / sizeof base_pts[0]; i++)
                if (base_pts[i] > opt.mmin && base_pts[i] < opt.mmax) cand[nc++] = base_pts[i];
            if (opt.mmax > opt.mmin) cand[nc++] = (size_t)opt.mmax;
        }
        for (int i = 0; i < nc; i++) {
            size_t s = (cand[i] + es - 1) / es * es; /* whole elements */
            if (coll != AUTOCOLL_BARRIER && s == 0) s = es;
            if (n == 0 || s > pts[ci][n - 1]) pts[ci][n++] = s;
        }
        npts[ci] = n;
        algs[ci] = calloc((size_t)autocoll_alg_count(coll) + 1, sizeof(cand_t));
        nalg[ci] = 0;
        for (int a = 0; algs[ci] && a < autocoll_alg_count(coll); a++) {
            autocoll_alg_info_t in;
            autocoll_alg_info(coll, a, &in);
            const char *why = acb_restriction_reason(in.restrictions, &lay, topo);
            if (why) {
                if (me == 0) printf("# %s %s: left out (%s)\n", in.coll, in.name, why);
                continue;
            }
            int ni = autocoll_instance_count(coll, a);
            if (ni < 1) continue;
            cand_t *cd = &algs[ci][nalg[ci]++];
            snprintf(cd->alg, sizeof cd->alg, "%s", in.name);
            cd->inst = calloc((size_t)ni, sizeof *cd->inst);
            cd->ninst = cd->inst ? ni : 0;
            for (int i = 0; i < cd->ninst; i++)
                autocoll_instance_name(coll, a, i, cd->inst[i], sizeof cd->inst[i]);
            planned += (long)cd->ninst * n;
        }
    }

    int total_rules = 0, failed_rules = 0;
    for (int ci = 0; ci < ncoll; ci++) {
        int coll = colls[ci];
        const char *cname = autocoll_coll_name(coll);
        search_t s = {coll, acb_elem_size(coll), "", algs[ci], nalg[ci], -1};
        char phase[200];
        /* Step 3: each parameterised algorithm over its instances. */
        for (int a = 0; a < nalg[ci]; a++) {
            if (algs[ci][a].ninst < 2) continue;
            snprintf(phase, sizeof phase, "%s parameters:", algs[ci][a].alg);
            s.phase = phase;
            s.level1_alg = a;
            search(&s, pts[ci], npts[ci], &algs[ci][a].tuned);
            if (algs[ci][a].tuned.n == 0) { /* nothing measured: its default instance */
                algs[ci][a].tuned.n = 1;
                algs[ci][a].tuned.lo[0] = 0;
                algs[ci][a].tuned.who[0] = 0;
            }
        }
        /* Step 4: over the parameter-free choices. */
        dispatch_t final;
        s.phase = "algorithms:";
        s.level1_alg = -1;
        search(&s, pts[ci], npts[ci], &final);
        progress_end();
        if (final.n == 0) {
            if (me == 0) printf("# %s: nothing measured, no rule\n", cname);
            continue;
        }
        rule_t rules[256];
        int nr = final_rules(&s, &final, rules, 256);
        if (me == 0) {
            printf("# %s:\n", cname);
            for (int i = 0; i < nr; i++) {
                unsigned long long lo = autocoll_selection_size(coll, rules[i].lo, np);
                unsigned long long hi =
                    i + 1 < nr ? autocoll_selection_size(coll, rules[i + 1].lo, np) : 0;
                if (coll == AUTOCOLL_BARRIER) lo = 0, hi = 0;
                if (hi)
                    printf("%s [%llu, %llu) %s\n", cname, lo, hi, rules[i].inst);
                else
                    printf("%s [%llu, inf) %s\n", cname, lo, rules[i].inst);
                if (autocoll_table_add_rule(table, coll, np, np, lay.nodes, ppn, lo, hi,
                                            rules[i].inst) != MPI_SUCCESS) {
                    fprintf(stderr, "autocoll-tune: the table refused rule %s [%llu, %llu) %s\n",
                            cname, lo, hi, rules[i].inst);
                    failed_rules++;
                } else {
                    total_rules++;
                }
            }
            fflush(stdout);
        }
    }

    provenance(table);
    int status = 0;
    if (me == 0) {
        autocoll_table_set_info(table, "status",
                                over_budget ? "incomplete: time budget exceeded" : "complete");
        if (autocoll_table_write(table, out_path) != MPI_SUCCESS) {
            fprintf(stderr, "autocoll-tune: cannot write %s\n", out_path);
            status = 1;
        } else {
            printf("# wrote %s: %d rules%s\n", out_path, total_rules,
                   over_budget ? " (incomplete: time budget exceeded)" : "");
        }
        if (ompi_path &&
            exported(ompi_path, autocoll_table_export_ompi(table, ompi_path), "Open MPI"))
            status = 1;
        if (mpich_path &&
            exported(mpich_path, autocoll_table_export_mpich(table, mpich_path), "MPICH"))
            status = 1;
        if (failed_rules) status = 1;
        autocoll_table_free(table);
        if (state) fclose(state);
    }
    PMPI_Bcast(&status, 1, MPI_INT, 0, comm);
    for (int ci = 0; ci < ncoll; ci++) {
        for (int a = 0; a < nalg[ci]; a++)
            free(algs[ci][a].inst);
        free(algs[ci]);
    }
    free(cache);
    PMPI_Comm_free(&comm);
    MPI_Finalize();
    return status;
}
