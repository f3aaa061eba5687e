/*
 * The adaptive engine on a simulated cluster (SimGrid SMPI, deterministic time), also usable
 * under real MPI.
 *
 *   adapt_sim [--coll C] [--bytes N] [--calls K] [--expect RATIO]
 *       Oracle first: every applicable instance forced for a few calls (best single algorithm in
 *       hindsight). Then K calls with the library's own selection (adaptive by default). Prints
 *       time after convergence / best single, probing overhead / total, probe calls, and a
 *       TOTAL line: the K calls' time, learning included, against K x the best single instance
 *       (the oracle) and K x the MPI library's own algorithm (native). --oracle-reps R times
 *       each instance over R calls (16); --oracle-cache FILE reads the oracle from FILE when it
 *       exists, else measures it and writes it there (SimGrid time is deterministic, so runs
 *       of one point with different K or settings can share it). With
 *       --expect, fails when the engine's choice is slower than RATIO x the best single.
 *   adapt_sim --change T [--coll C] [--bytes N] [--calls K]
 *       K adaptive calls, wait until simulated time T (a platform whose links change at T),
 *       K more calls, then the oracle after the change. Fails unless the engine switched and
 *       its final choice is within 10 % of the best single algorithm after the change.
 *
 * Every call's result is checked (integer data with a known answer), so a wrong choice or a
 * broken agreement shows as a failure, not only as a time.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"
#include "../../sim/checked_call.h"

static int coll, p, me, count, bad, trace;
static int *sbuf, *rbuf;

/* One call of the collective, through the library (MPI_*), checked. */
static void call(int iter) {
    memset(rbuf, 0xff, (size_t)count * (size_t)p * sizeof(int));
    int ok = ac_sim_checked_call(coll, count, sbuf, rbuf, iter, me, p, MPI_COMM_WORLD);
    if (!ok && bad++ == 0) fprintf(stderr, "rank %d: wrong result at call %d\n", me, iter);
}

/* Mean time per call (max over ranks) of the instance currently forced; -1 when it did not
 * serve the calls (a restriction applies). */
static double timed(const char *name, int reps) {
    char got[256];
    call(0);
    autocoll_last_choice(MPI_COMM_WORLD, coll, got, sizeof got);
    if (name && strcmp(got, name) != 0) return -1;
    call(1);
    double t0 = MPI_Wtime();
    for (int i = 0; i < reps; i++)
        call(2 + i);
    double t = (MPI_Wtime() - t0) / reps, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

typedef struct {
    char best[256];
    double best_t;
    int n;
    char name[64][160];
    double t[64];
} oracle_t;

static int oracle_reps = 16;

static void oracle(oracle_t *o) {
    o->best_t = -1;
    o->n = 0;
    for (int a = 0; a < autocoll_alg_count(coll); a++)
        for (int i = 0; i < autocoll_instance_count(coll, a) && o->n < 64; i++) {
            char name[160];
            autocoll_instance_name(coll, a, i, name, sizeof name);
            autocoll_force(coll, name);
            double t = timed(name, oracle_reps);
            if (t < 0) continue;
            snprintf(o->name[o->n], sizeof o->name[0], "%s", name);
            o->t[o->n++] = t;
            if (o->best_t < 0 || t < o->best_t) {
                o->best_t = t;
                snprintf(o->best, sizeof o->best, "%s", name);
            }
        }
    autocoll_force(coll, NULL);
}

/* The oracle from FILE (every rank reads it) or measured and written there by rank 0. */
static void oracle_cached(oracle_t *o, const char *file) {
    FILE *f = file ? fopen(file, "r") : NULL;
    if (!f) {
        oracle(o);
        if (file && me == 0 && (f = fopen(file, "w"))) {
            for (int i = 0; i < o->n; i++)
                fprintf(f, "%.9e %s\n", o->t[i], o->name[i]);
            fclose(f);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    }
    o->best_t = -1;
    o->n = 0;
    double t;
    while (o->n < 64 && fscanf(f, "%lf %159s", &t, o->name[o->n]) == 2) {
        o->t[o->n] = t;
        if (o->best_t < 0 || t < o->best_t) {
            o->best_t = t;
            snprintf(o->best, sizeof o->best, "%s", o->name[o->n]);
        }
        o->n++;
    }
    fclose(f);
}

static double oracle_time(const oracle_t *o, const char *name) {
    for (int i = 0; i < o->n; i++)
        if (!strcmp(o->name[i], name)) return o->t[i];
    return -1;
}

/* K library-selected calls; per-call local times in t. */
static void adaptive(int k, double *t, int base) {
    for (int i = 0; i < k; i++) {
        double t0 = MPI_Wtime();
        call(base + i);
        t[i] = MPI_Wtime() - t0;
        if (trace && me == 0) {
            char got[256];
            autocoll_last_choice(MPI_COMM_WORLD, coll, got, sizeof got);
            printf("CALL %d %.1f us %s\n", i, 1e6 * t[i], got);
        }
    }
}

static double max_over_ranks(double v) {
    double m;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const char *cname = "allreduce";
    long bytes = 4096;
    int calls = 1000;
    double expect = 0, change = -1;
    const char *cache = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--coll"))
            cname = argv[i + 1];
        else if (!strcmp(argv[i], "--bytes"))
            bytes = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--calls"))
            calls = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--expect"))
            expect = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--change"))
            change = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--oracle-reps"))
            oracle_reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--oracle-cache"))
            cache = argv[i + 1];
    }
    trace = getenv("ADAPT_SIM_TRACE") != NULL;
    coll = autocoll_coll_from_name(cname);
    if (coll < 0 || bytes < 4 || calls < 1 || oracle_reps < 1) {
        if (me == 0) fprintf(stderr, "adapt_sim: bad arguments\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    count = (int)(bytes / 4);
    sbuf = malloc((size_t)count * (size_t)p * sizeof(int));
    rbuf = malloc((size_t)count * (size_t)p * sizeof(int));
    double *t = malloc((size_t)calls * sizeof(double));
    oracle_t *o = malloc(sizeof *o);
    autocoll_adaptive_info_t info;
    int rc = 0;

    if (change < 0) {
        oracle_cached(o, cache);
        adaptive(calls, t, 1000);
        if (autocoll_adaptive_info(MPI_COMM_WORLD, coll, (unsigned long long)bytes, &info) !=
            MPI_SUCCESS)
            memset(&info, 0, sizeof info);
        /* After convergence: from the call after the one that settled the key, whose decision
         * (deferred by default) the next call completes: that wait belongs to the learning. */
        long s = info.settled_at > 0 && info.settled_at < calls ? info.settled_at + 1 : calls;
        double all = 0, after = 0;
        for (int i = 0; i < calls; i++) {
            all += t[i];
            if (i >= s) after += t[i];
        }
        all = max_over_ranks(all);
        after = max_over_ranks(after);
        double chosen_t = oracle_time(o, info.chosen);
        double conv = s < calls ? after / (calls - s) / o->best_t : -1;
        double over = (all - after - (double)s * o->best_t) / all;
        if (me == 0) {
            printf("adaptive %s %ld B p=%d: calls %d, settled at call %ld, probe calls %ld "
                   "(%d candidates of %d), chose %s, best single %s\n",
                   cname, bytes, p, calls, info.settled_at, info.probe_calls, info.candidates,
                   info.considered, info.chosen, o->best);
            printf("RATIO %s %ld after-convergence/best %.3f probing-overhead/total %.3f "
                   "chosen/best %.3f probe-calls %ld\n",
                   cname, bytes, conv, over > 0 ? over : 0, chosen_t / o->best_t, info.probe_calls);
            double nat = oracle_time(o, "native");
            printf("TOTAL %s %ld calls %d engine %.6f oracle %.6f native %.6f engine/oracle %.3f "
                   "engine/native %.3f probe-calls %ld settled %ld\n",
                   cname, bytes, calls, all, calls * o->best_t, calls * nat,
                   all / (calls * o->best_t), nat > 0 ? all / (calls * nat) : -1.0,
                   info.probe_calls, info.settled_at);
        }
        if (expect > 0 && !(chosen_t > 0 && chosen_t <= expect * o->best_t)) rc = 1;
    } else {
        adaptive(calls, t, 1000);
        autocoll_adaptive_info(MPI_COMM_WORLD, coll, (unsigned long long)bytes, &info);
        char before[128];
        snprintf(before, sizeof before, "%s", info.chosen);
        /* Wait for the change, in simulated time (rank 0's clock decides for everyone). */
        for (int go = 0; !go;) {
            go = MPI_Wtime() > change;
            PMPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (!go) PMPI_Barrier(MPI_COMM_WORLD);
        }
        adaptive(calls, t, 5000);
        autocoll_adaptive_info(MPI_COMM_WORLD, coll, (unsigned long long)bytes, &info);
        oracle(o);
        double chosen_t = oracle_time(o, info.chosen);
        if (me == 0)
            printf("change at %.3f s: before %s, after %s (switches %ld), best single after the "
                   "change %s; chosen/best %.3f\n",
                   change, before, info.chosen, info.switches, o->best, chosen_t / o->best_t);
        if (info.switches < 1 || !strcmp(before, info.chosen) ||
            !(chosen_t > 0 && chosen_t <= 1.10 * o->best_t))
            rc = 1;
    }
    int anybad = max_over_ranks(bad) > 0;
    if (me == 0 && (rc || anybad)) printf("FAILED%s\n", anybad ? " (wrong results)" : "");
    free(sbuf);
    free(rbuf);
    free(t);
    free(o);
    MPI_Finalize();
    return rc || anybad;
}
