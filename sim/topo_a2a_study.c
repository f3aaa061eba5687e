/*
 * Where the time of the contention-free alltoall goes in SimGrid (docs/reports/topology.md,
 * made by sim/topo_study). Seed 000 (Faraj 2006) §3.2.4; spec star-stage-ethernet.md sections
 * 3.2, 3.3 and 7.2.
 *
 *   topo_a2a_study ITER SIZE...      (SIZE: bytes per block; AUTOCOLL_TOPOLOGY must be set)
 *
 * Per size, on the platform written by `autocoll-topo simgrid` from the same file, one CSV line
 * per measurement on stdout (rank 0): "what,n,ms" with
 *   bound      L n / B: the AAPC load bound (L messages cross the bottleneck directed link,
 *              B its bandwidth, from the platform's 100 Mbit/s links: the file's defaults);
 *   msg1       one message alone over a longest path of the tree (barrier, send, arrival time:
 *              SimGrid's clock is global), the time a contention-free phase cannot beat;
 *   phases     the L phases of the schedule, each run alone between two barriers (the sum of
 *              the phases' times, barriers excluded): the schedule with free synchronisation;
 *   phase_max  the slowest phase alone;
 *   barrier    one PMPI_Barrier (mean of 20);
 *   PAIRED     the L phases posted all at once (every receive and send of the rank, no order):
 *              the same messages without the schedule;
 *   <inst>     a forced autocoll instance (topo_aapc schemes, topology-unaware alltoalls) and
 *              mpi (SMPI's selector): the mean over ITER calls of the maximum over ranks.
 * Environment: TOPO_STUDY_INST=A,B,... measures only the listed instances, in that order (PAIRED,
 * mpi, or any alltoall instance of the registry with its parameters, e.g. pair_mpib or
 * linear_bounded:n=1); TOPO_STUDY_QUICK=1 skips the phase-by-phase runs (packet-level models are
 * slow).
 * Every forced instance is checked once against PMPI_Alltoall (exit status 1 when one differs).
 * Cost of the study: O(L) barriers and O(#instances x ITER) alltoalls per size.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"
#include "topo/aapc.h"
#include "topo/load.h"

static const char *inst[] = {"topo_aapc:sync=nosync",
                             "topo_aapc:sync=dummy",
                             "topo_aapc:sync=sender",
                             "topo_aapc:sync=receiver",
                             "topo_aapc:sync=barrier",
                             "topo_aapc:sync=sender_part8",
                             "topo_aapc:sync=receiver_part8",
                             "topo_aapc:sync=bar_none8",
                             "topo_aapc:sync=bar_sender8",
                             "spread",
                             "linear",
                             "ring",
                             "pair",
                             "bruck",
                             "mpi"};
enum { NI = sizeof inst / sizeof inst[0] };

static int me, p;

/* 1 when instance i is to be measured (TOPO_STUDY_INST, else all). */
static int wanted(const char *name) {
    const char *l = getenv("TOPO_STUDY_INST");
    if (!l || !*l) return 1;
    size_t n = strlen(name);
    for (const char *q = l; *q;) {
        size_t k = strcspn(q, ",");
        if (k == n && !strncmp(q, name, n)) return 1;
        q += k + (q[k] == ',');
    }
    return 0;
}

static void out(const char *what, size_t n, double s) {
    if (me == 0) printf("%s,%zu,%.4f\n", what, n, s * 1e3), fflush(stdout);
}

static double maxall(double t) {
    double m;
    PMPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* Messages of phase k that this rank sends (to) and receives (from), -1 when none. */
static void role(const ac_aapc_t *s, int k, int *to, int *from) {
    *to = *from = -1;
    for (int i = s->pstart[k]; i < s->pstart[k + 1]; i++) {
        if (s->msg[i].src == me) *to = s->msg[i].dst;
        if (s->msg[i].dst == me) *from = s->msg[i].src;
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int iters = argc > 1 ? atoi(argv[1]) : 2, bad = 0;
    const ac_topo_t *t = ac_topo_world();
    ac_aapc_t s;
    if (!t || t->nranks != p || ac_aapc_build(t, &s) != 0) {
        if (me == 0) fprintf(stderr, "topo_a2a_study: AUTOCOLL_TOPOLOGY must cover the job\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* directed-link loads (the largest is L) and a longest path */
    int *load = calloc((size_t)2 * t->nv, sizeof *load), *e = malloc(sizeof(int) * 2 * t->nv);
    int far = 1, hops = -1, L = 0;
    for (int a = 0; a < p; a++)
        for (int b = 0; b < p; b++) {
            if (a == b) continue;
            int k = ac_topo_path(t, a, b, e);
            for (int i = 0; i < k; i++)
                if (++load[e[i]] > L) L = load[e[i]];
            if (a == 0 && k > hops) hops = k, far = b;
        }
    if (me == 0)
        printf("# p=%d phases=%d load=%d longest path from 0: %d links (to %d)\n", p, s.nphases, L,
               hops, far);
    int coll = autocoll_coll_from_name("alltoall");
    const double B = 12.5e6; /* the platform's links: 100 Mbit/s */
    for (int a = 2; a < argc; a++) {
        size_t n = (size_t)atol(argv[a]), tot = n * (size_t)p;
        char *sb = malloc(tot + 1), *rb = malloc(tot + 1), *x = malloc(tot + 1);
        for (size_t k = 0; k < tot; k++)
            sb[k] = (char)(me * 131 + k * 7 + 1);
        PMPI_Alltoall(sb, (int)n, MPI_BYTE, x, (int)n, MPI_BYTE, MPI_COMM_WORLD);
        out("bound", n, (double)L * (double)n / B);
        /* one message alone over the longest path */
        double t0, t1 = 0;
        PMPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        if (me == 0) PMPI_Send(sb, (int)n, MPI_BYTE, far, 1, MPI_COMM_WORLD);
        if (me == far) {
            PMPI_Recv(rb, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            t1 = MPI_Wtime() - t0;
        }
        out("msg1", n, maxall(t1));
        /* barrier */
        PMPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int i = 0; i < 20; i++)
            PMPI_Barrier(MPI_COMM_WORLD);
        out("barrier", n, maxall((MPI_Wtime() - t0) / 20));
        /* every phase alone */
        double sum = 0, mx = 0;
        const char *quick = getenv("TOPO_STUDY_QUICK");
        for (int k = 0; k < s.nphases && !(quick && *quick == '1'); k++) {
            int to, from;
            MPI_Request rq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
            role(&s, k, &to, &from);
            PMPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            if (from >= 0)
                PMPI_Irecv(rb + (size_t)from * n, (int)n, MPI_BYTE, from, 2, MPI_COMM_WORLD,
                           &rq[0]);
            if (to >= 0)
                PMPI_Isend(sb + (size_t)to * n, (int)n, MPI_BYTE, to, 2, MPI_COMM_WORLD, &rq[1]);
            PMPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
            double d = maxall(MPI_Wtime() - t0);
            sum += d;
            if (d > mx) mx = d;
        }
        if (!(quick && *quick == '1')) out("phases", n, sum), out("phase_max", n, mx);
        /* the same messages without the schedule: all posted at once */
        if (wanted("PAIRED")) {
            MPI_Request *rq = malloc(sizeof *rq * 2 * (size_t)p);
            int nr = 0;
            PMPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            for (int k = 0; k < s.nphases; k++) {
                int to, from;
                role(&s, k, &to, &from);
                if (from >= 0)
                    PMPI_Irecv(rb + (size_t)from * n, (int)n, MPI_BYTE, from, 3, MPI_COMM_WORLD,
                               &rq[nr++]);
                if (to >= 0)
                    PMPI_Isend(sb + (size_t)to * n, (int)n, MPI_BYTE, to, 3, MPI_COMM_WORLD,
                               &rq[nr++]);
            }
            PMPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
            out("PAIRED", n, maxall(MPI_Wtime() - t0));
            free(rq);
        }
        /* the instances: TOPO_STUDY_INST's list when set, else inst[] */
        const char *names[64];
        char list[1024];
        int nn = 0;
        const char *l = getenv("TOPO_STUDY_INST");
        if (l && *l) {
            snprintf(list, sizeof list, "%s", l);
            for (char *q = strtok(list, ","); q && nn < 64; q = strtok(NULL, ","))
                if (strcmp(q, "PAIRED")) names[nn++] = q;
        } else
            for (int i = 0; i < NI; i++)
                names[nn++] = inst[i];
        for (int i = 0; i < nn; i++) {
            int mpi = !strcmp(names[i], "mpi");
            if (!strncmp(names[i], "pair", 4) && (p & (p - 1))) continue;
            if (!mpi && autocoll_force(coll, names[i]) != 0) {
                if (me == 0) fprintf(stderr, "topo_a2a_study: no alltoall instance %s\n", names[i]);
                bad++;
                continue;
            }
            memset(rb, 0, tot);
            if (mpi)
                PMPI_Alltoall(sb, (int)n, MPI_BYTE, rb, (int)n, MPI_BYTE, MPI_COMM_WORLD);
            else
                MPI_Alltoall(sb, (int)n, MPI_BYTE, rb, (int)n, MPI_BYTE, MPI_COMM_WORLD);
            char got[128] = "";
            autocoll_last_choice(MPI_COMM_WORLD, coll, got, sizeof got);
            if (memcmp(rb, x, tot) || (!mpi && strncmp(got, names[i], strlen(names[i])))) {
                fprintf(stderr, "rank %d: %s n=%zu differs or not run (%s)\n", me, names[i], n,
                        got);
                bad++;
            }
            double acc = 0;
            for (int it = 0; it < iters; it++) {
                PMPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
                if (mpi)
                    PMPI_Alltoall(sb, (int)n, MPI_BYTE, rb, (int)n, MPI_BYTE, MPI_COMM_WORLD);
                else
                    MPI_Alltoall(sb, (int)n, MPI_BYTE, rb, (int)n, MPI_BYTE, MPI_COMM_WORLD);
                acc += maxall(MPI_Wtime() - t0);
            }
            autocoll_force(coll, NULL);
            out(names[i], n, acc / iters);
        }
        free(sb), free(rb), free(x);
    }
    int all = 0;
    PMPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free(load), free(e);
    ac_aapc_free(&s);
    MPI_Finalize();
    return all ? 1 : 0;
}
