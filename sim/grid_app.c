/*
 * The synthetic application of seed 002 (Gupta & Vadhiyar, §3), as spec
 * adaptive-bcast-grid.md section 16.5 describes it: 60 broadcasts from one root whose size
 * shrinks linearly from 1 MiB (size_k = round(1 MiB x (60 - k) / 60)) and whose compute gap
 * shrinks exponentially (gap_k = 90 x 0.96^k s, about 2,050 s in all), mimicking right-looking
 * Gaussian elimination. Built with smpicc and run under smpirun: the gap is simulated
 * time (smpi_usleep: a simulated sleep; smpi_execute(s) is scaled by smpi/host-speed), so the application's timeline spans the load episodes of a
 * platform's bandwidth profile (grid64-loaded: episodes from 371 s on).
 *
 * One untimed 1-byte broadcast first (context set-up). Per call: every rank sleeps until
 * gap_0 + ... + gap_k after the first call (the same start times for every variant), the ranks meet in a PMPI_Barrier (not intercepted,
 * so every variant starts each broadcast from the same state), the root notes its entry time,
 * MPI_Bcast runs (intercepted: AUTOCOLL_BCAST picks the variant), every rank notes its exit.
 * Completion time of call k = max over ranks of exit - root's entry (spec 16.5; exact under
 * SMPI's global clock). The received data are checked against the root's pattern on every rank.
 *
 * With --probes K the last K ranks do not run the application: they are autocoll-netprobe's
 * processes (src/coll/bcast/grid_netprobe.c, spec section 16.3's probe ranks), laid out by
 * --probe-map, sweeping every --probe-period simulated seconds (default 300) and writing the
 * network file --probe-net that the application's AUTOCOLL_GRID_NET names; the application
 * runs on the other ranks' communicator and tells the probes to stop when it is done.
 *
 * usage: ac_grid_app [--calls N] [--scale S] [--root R] [--out FILE]
 *                    [--probes K --probe-map MAP --probe-net FILE [--probe-period S]]
 *   --scale multiplies every gap (default 1). Writes "call,start_s,bytes,time_s" lines (the
 *   start is the root's entry in simulated seconds) to FILE (default stdout) at rank 0 and
 *   exits 1 if any rank received wrong data.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "coll/bcast/grid_bcast.h"

enum { TAG_STOP = 77 };

/* The probe ranks: sweep, wait out the period (in steps of at most 1 s, rank 0 looking for the
 * application's stop message from world rank 0), until told to stop. */
static void probe_loop(MPI_Comm pc, const char *map, const char *net, double period) {
    int pr, stop = 0;
    MPI_Comm_rank(pc, &pr);
    ac_grid_netprobe_t *np;
    char why[256];
    if (ac_grid_netprobe_new(pc, map, net, &np, why, sizeof why) != 0) {
        fprintf(stderr, "ac_grid_app: --probe-map: %s\n", why);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    while (!stop) {
        double t0 = MPI_Wtime();
        if (ac_grid_netprobe_sweep(np) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
        while (pr == 0) {
            PMPI_Iprobe(0, TAG_STOP, MPI_COMM_WORLD, &stop, MPI_STATUS_IGNORE);
            double left = t0 + period - MPI_Wtime();
            if (stop || left <= 0) break;
            smpi_usleep((useconds_t)((left < 1 ? left : 1) * 1e6));
        }
        PMPI_Bcast(&stop, 1, MPI_INT, 0, pc);
    }
    if (pr == 0) PMPI_Recv(&stop, 1, MPI_INT, 0, TAG_STOP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ac_grid_netprobe_free(np);
}

static unsigned char pat(int k, long i) {
    return (unsigned char)((i * 131 + (long)k * 29 + 7) & 0xff);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, p, calls = 60, root = 8, probes = 0;
    double scale = 1, period = 300;
    const char *out = NULL, *pmap = NULL, *pnet = NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int i = 1; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "--probes"))
            probes = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--probe-map"))
            pmap = argv[++i];
        else if (!strcmp(argv[i], "--probe-net"))
            pnet = argv[++i];
        else if (!strcmp(argv[i], "--probe-period"))
            period = atof(argv[++i]);
        else if (!strcmp(argv[i], "--calls"))
            calls = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--scale"))
            scale = atof(argv[++i]);
        else if (!strcmp(argv[i], "--root"))
            root = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out"))
            out = argv[++i];
    }
    MPI_Comm app = MPI_COMM_WORLD;
    if (probes > 0) {
        if (probes >= p || !pmap || !pnet) {
            if (me == 0)
                fprintf(stderr, "ac_grid_app: --probes needs fewer ranks than the run, "
                                "--probe-map and --probe-net\n");
            MPI_Finalize();
            return 2;
        }
        int is_probe = me >= p - probes;
        MPI_Comm_split(MPI_COMM_WORLD, is_probe, me, &app);
        if (is_probe) {
            probe_loop(app, pmap, pnet, period);
            MPI_Comm_free(&app);
            MPI_Finalize();
            return 0;
        }
        MPI_Comm_rank(app, &me);
        MPI_Comm_size(app, &p);
    }
    if (root < 0 || root >= p) root = 0;
    const long big = 1L << 20;
    unsigned char *buf = malloc((size_t)big);
    double *t_in = calloc((size_t)calls, sizeof *t_in),
           *t_out = calloc((size_t)calls, sizeof *t_out);
    double *t_max = calloc((size_t)calls, sizeof *t_max);
    int bad = 0;
    /* Untimed: the library's first call on a communicator sets up its context (a duplicate,
     * the node layout) for every variant alike; a grid_adaptive root also takes its first
     * measurement sweep here. */
    MPI_Bcast(buf, 1, MPI_BYTE, root, app);
    PMPI_Barrier(app);
    double next = MPI_Wtime();
    for (int k = 0; k < calls; k++) {
        long size = lround((double)big * (60 - k % 60) / 60.0);
        /* Call k starts gap_0 + ... + gap_k after the first call on every variant (unless the
         * previous call overran its slot), so all variants meet the load profile at the same
         * simulated times. */
        next += scale * 90.0 * pow(0.96, k);
        double wait = next - MPI_Wtime();
        if (wait > 0) smpi_usleep((useconds_t)(wait * 1e6)); /* simulated time */
        if (me == root)
            for (long i = 0; i < size; i++)
                buf[i] = pat(k, i);
        else
            memset(buf, 0, (size_t)size);
        PMPI_Barrier(app);
        t_in[k] = MPI_Wtime();
        MPI_Bcast(buf, (int)size, MPI_BYTE, root, app);
        t_out[k] = MPI_Wtime();
        for (long i = 0; i < size && !bad; i++)
            if (buf[i] != pat(k, i)) bad = 1;
    }
    PMPI_Reduce(t_out, t_max, calls, MPI_DOUBLE, MPI_MAX, 0, app);
    if (root != 0) { /* the root's entry times to rank 0 */
        if (me == root) PMPI_Send(t_in, calls, MPI_DOUBLE, 0, 1, app);
        if (me == 0) PMPI_Recv(t_in, calls, MPI_DOUBLE, root, 1, app, MPI_STATUS_IGNORE);
    }
    int anybad = 0;
    PMPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, app);
    if (me == 0) {
        FILE *f = out ? fopen(out, "w") : stdout;
        if (f) {
            fprintf(f, "call,start_s,bytes,time_s\n");
            for (int k = 0; k < calls; k++)
                fprintf(f, "%d,%.6f,%ld,%.9f\n", k, t_in[k],
                        lround((double)big * (60 - k % 60) / 60.0), t_max[k] - t_in[k]);
            if (f != stdout) fclose(f);
        }
        if (anybad) fprintf(stderr, "ac_grid_app: wrong data received\n");
    }
    free(buf);
    free(t_in);
    free(t_out);
    free(t_max);
    if (probes > 0) {
        if (me == 0) PMPI_Send(&anybad, 1, MPI_INT, p, TAG_STOP, MPI_COMM_WORLD);
        MPI_Comm_free(&app);
    }
    MPI_Finalize();
    return anybad ? 1 : 0;
}
