/*
 * Contention-free alltoall (alltoall.topo_aapc, docs/topology.md) against topology-unaware
 * alltoall instances and the MPI library's alltoall, for a run under smpirun on the platform
 * written by `autocoll-topo simgrid` from the AUTOCOLL_TOPOLOGY file.
 *
 *   topo_bench ITER SIZE...      (SIZE: bytes per block)
 *
 * Per size: every instance is checked once against PMPI_Alltoall (byte for byte on every rank),
 * then timed ITER times as barrier; t = Wtime; MPI_Alltoall; max over ranks of Wtime - t; the
 * mean of those maxima is printed, with the ratio to the best topology-unaware instance.
 * "mpi" is PMPI_Alltoall (SMPI's selector). Exit status 1 when a result differs.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"

static const char *inst[] = {"topo_aapc:sync=nosync",
                             "topo_aapc:sync=sender",
                             "topo_aapc:sync=receiver",
                             "topo_aapc:sync=barrier",
                             "topo_aapc:sync=sender_part8",
                             "ring",
                             "ring_lb",
                             "ring_mpib",
                             "pair",
                             "spread",
                             "linear",
                             "bruck",
                             "mpi"};
enum { NI = sizeof inst / sizeof inst[0], NTOPO = 5 };

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int p, me, bad = 0, iters = argc > 1 ? atoi(argv[1]) : 3;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int coll = autocoll_coll_from_name("alltoall");
    for (int a = 2; a < argc; a++) {
        size_t n = (size_t)atol(argv[a]), tot = n * (size_t)p;
        char *s = malloc(tot + 1), *r = malloc(tot + 1), *x = malloc(tot + 1);
        double t[NI];
        for (size_t k = 0; k < tot; k++)
            s[k] = (char)(me * 131 + k * 7 + 1);
        PMPI_Alltoall(s, (int)n, MPI_BYTE, x, (int)n, MPI_BYTE, MPI_COMM_WORLD);
        for (int i = 0; i < NI; i++) {
            int mpi = !strcmp(inst[i], "mpi");
            if (!strcmp(inst[i], "pair") && (p & (p - 1))) {
                t[i] = -1;
                continue;
            }
            if (!mpi) autocoll_force(coll, inst[i]);
            memset(r, 0, tot);
            if (mpi)
                PMPI_Alltoall(s, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE, MPI_COMM_WORLD);
            else
                MPI_Alltoall(s, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE, MPI_COMM_WORLD);
            if (memcmp(r, x, tot)) {
                fprintf(stderr, "rank %d: %s n=%zu differs\n", me, inst[i], n);
                bad++;
            }
            char got[128] = "";
            autocoll_last_choice(MPI_COMM_WORLD, coll, got, sizeof got);
            if (!mpi && strncmp(got, inst[i], strlen(inst[i])) && me == 0)
                fprintf(stderr, "%s n=%zu: served by %s\n", inst[i], n, got), bad++;
            double sum = 0;
            for (int it = 0; it < iters; it++) {
                PMPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime(), mx;
                if (mpi)
                    PMPI_Alltoall(s, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE, MPI_COMM_WORLD);
                else
                    MPI_Alltoall(s, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE, MPI_COMM_WORLD);
                t0 = MPI_Wtime() - t0;
                PMPI_Allreduce(&t0, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                sum += mx;
            }
            t[i] = sum / iters;
            autocoll_force(coll, NULL);
        }
        double unaware = 1e30, topo = 1e30;
        for (int i = 0; i < NI; i++) {
            if (t[i] < 0) continue;
            if (i < NTOPO && t[i] < topo) topo = t[i];
            if (i >= NTOPO && t[i] < unaware) unaware = t[i];
        }
        if (me == 0) {
            for (int i = 0; i < NI; i++)
                if (t[i] >= 0)
                    printf("p=%d n=%zu %-28s %10.3f ms  %.2fx best unaware\n", p, n, inst[i],
                           t[i] * 1e3, t[i] / unaware);
            printf("p=%d n=%zu best topo_aapc / best unaware = %.3f\n", p, n, topo / unaware);
            fflush(stdout);
        }
        free(s), free(r), free(x);
    }
    int all = 0;
    PMPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all ? 1 : 0;
}
