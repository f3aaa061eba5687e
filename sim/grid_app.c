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
 * usage: ac_grid_app [--calls N] [--scale S] [--root R] [--out FILE]
 *   --scale multiplies every gap (default 1). Writes "call,start_s,bytes,time_s" lines (the
 *   start is the root's entry in simulated seconds) to FILE (default stdout) at rank 0 and
 *   exits 1 if any rank received wrong data.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

static unsigned char pat(int k, long i) {
    return (unsigned char)((i * 131 + (long)k * 29 + 7) & 0xff);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, p, calls = 60, root = 8;
    double scale = 1;
    const char *out = NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int i = 1; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "--calls"))
            calls = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--scale"))
            scale = atof(argv[++i]);
        else if (!strcmp(argv[i], "--root"))
            root = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out"))
            out = argv[++i];
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
    MPI_Bcast(buf, 1, MPI_BYTE, root, MPI_COMM_WORLD);
    PMPI_Barrier(MPI_COMM_WORLD);
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
        PMPI_Barrier(MPI_COMM_WORLD);
        t_in[k] = MPI_Wtime();
        MPI_Bcast(buf, (int)size, MPI_BYTE, root, MPI_COMM_WORLD);
        t_out[k] = MPI_Wtime();
        for (long i = 0; i < size && !bad; i++)
            if (buf[i] != pat(k, i)) bad = 1;
    }
    PMPI_Reduce(t_out, t_max, calls, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (root != 0) { /* the root's entry times to rank 0 */
        if (me == root) PMPI_Send(t_in, calls, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
        if (me == 0) PMPI_Recv(t_in, calls, MPI_DOUBLE, root, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    int anybad = 0;
    PMPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
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
    MPI_Finalize();
    return anybad ? 1 : 0;
}
