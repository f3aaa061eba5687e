/*
 * Segment-size sweep of the pipelined broadcasts and reduces (seed 000, Faraj 2006, section
 * 3.4 and Figure 3.36: about 1 KB was near-optimal on 100 Mbit/s Ethernet, 0.5-2 KB close to
 * the best). Runs under SimGrid (time is simulated and deterministic) with the library linked
 * in; for every message size and pipelined algorithm it forces each segment size, times
 * ITER calls, checks the data against the MPI library's result, and prints each segment's
 * time divided by the best segment's time at that size.
 *
 * usage (see sim/README.md): smpirun ... segsweep [iterations]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"

static const int segs[] = {512, 1024, 2048, 4096, 8192};
enum { NSEG = sizeof segs / sizeof segs[0] };

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, p, iters = argc > 1 ? atoi(argv[1]) : 3, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const int sizes[] = {16384, 65536, 262144, 1048576};
    const struct {
        int coll;
        const char *alg;
    } algs[] = {{AUTOCOLL_BCAST, "pipe_chain"},
                {AUTOCOLL_BCAST, "pipe_binary"},
                {AUTOCOLL_REDUCE, "pipe_chain"}};
    if (me == 0) {
        printf("p=%d; time / best segment time at each size (best = 1.00)\n", p);
        printf("%-18s %8s", "algorithm", "bytes");
        for (int s = 0; s < NSEG; s++)
            printf(" %7d", segs[s]);
        printf("  best\n");
    }
    for (size_t k = 0; k < sizeof algs / sizeof algs[0]; k++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            int n = sizes[z] / (int)sizeof(int);
            int *buf = malloc(sizeof(int) * (size_t)n), *ref = malloc(sizeof(int) * (size_t)n);
            double t[NSEG];
            for (int s = 0; s < NSEG; s++) {
                char spec[64];
                snprintf(spec, sizeof spec, "%s:seg=%d", algs[k].alg, segs[s]);
                autocoll_force(algs[k].coll, spec);
                double t0 = 0;
                for (int it = 0; it <= iters; it++) { /* iteration 0 warms up */
                    for (int i = 0; i < n; i++)
                        buf[i] = i * 7 + me + it;
                    PMPI_Barrier(MPI_COMM_WORLD);
                    if (it == 1) t0 = MPI_Wtime();
                    if (algs[k].coll == AUTOCOLL_BCAST)
                        MPI_Bcast(buf, n, MPI_INT, 0, MPI_COMM_WORLD);
                    else
                        MPI_Reduce(me ? buf : MPI_IN_PLACE, buf, n, MPI_INT, MPI_SUM, 0,
                                   MPI_COMM_WORLD);
                }
                double dt = (MPI_Wtime() - t0) / iters, mx;
                PMPI_Reduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
                t[s] = mx;
                /* The last iteration's data against the MPI library's result. */
                for (int i = 0; i < n; i++)
                    ref[i] = i * 7 + me + iters;
                if (algs[k].coll == AUTOCOLL_BCAST)
                    PMPI_Bcast(ref, n, MPI_INT, 0, MPI_COMM_WORLD);
                else
                    PMPI_Reduce(me ? ref : MPI_IN_PLACE, ref, n, MPI_INT, MPI_SUM, 0,
                                MPI_COMM_WORLD);
                char last[128];
                autocoll_last_choice(MPI_COMM_WORLD, algs[k].coll, last, sizeof last);
                if ((me == 0 || algs[k].coll == AUTOCOLL_BCAST) &&
                    memcmp(buf, ref, sizeof(int) * (size_t)n))
                    bad = 1;
                if (strcmp(last, spec)) bad = 1;
            }
            autocoll_force(algs[k].coll, NULL);
            if (me == 0) {
                int b = 0;
                for (int s = 1; s < NSEG; s++)
                    if (t[s] < t[b]) b = s;
                printf("%-6s %-11s %8d", autocoll_coll_name(algs[k].coll), algs[k].alg, sizes[z]);
                for (int s = 0; s < NSEG; s++)
                    printf(" %7.2f", t[s] / t[b]);
                printf("  %d\n", segs[b]);
            }
            free(buf);
            free(ref);
        }
    int any;
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0) printf("%d passed, %d failed\n", any ? 0 : 1, any ? 1 : 0);
    MPI_Finalize();
    return any;
}
