/* Phased arrival patterns (docs/tracing.md, spec star-stage-ethernet.md §6.3 finding 5): one
 * barrier, then 40 alltoalls of 8 B from one call site where the last rank sleeps 60 ms before
 * loop iterations 20-29 only (call numbers 22-31 on MPI_COMM_WORLD). autocoll_arrival_windows
 * with windows of 10 calls must show four windows, the third (calls 22-31) a spike whose
 * latest arriver is the sleeping rank in at least 9 calls and whose mean worst-case imbalance
 * is at least 45 ms and twice that of every other window; the automatic window gives the same
 * four windows; a bad group index gives MPI_ERR_ARG. Exit 0 when every check passes. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "autocoll.h"

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, p, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    long long sbuf[64], rbuf[64];
    memset(sbuf, 0, sizeof sbuf);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 40; i++) {
        if (me == p - 1 && i >= 20 && i < 30) sleep_ms(60);
        MPI_Alltoall(sbuf, 1, MPI_LONG_LONG, rbuf, 1, MPI_LONG_LONG, MPI_COMM_WORLD);
    }
    autocoll_arrival_t a[16];
    int n = 0, grp = -1;
    if (autocoll_arrival_patterns(a, 16, &n) != MPI_SUCCESS) bad |= 1;
    for (int i = 0; i < n && i < 16; i++)
        if (a[i].coll == AUTOCOLL_ALLTOALL && a[i].comm_size == p) grp = i;
    if (grp < 0) bad |= 2;
    for (int pass = 0; pass < 2 && grp >= 0; pass++) {
        autocoll_arrival_window_t w[8];
        int nw = 0;
        if (autocoll_arrival_windows(grp, pass ? 0 : 10, w, 8, &nw) != MPI_SUCCESS || nw != 4) {
            bad |= 4;
            break;
        }
        if (w[2].first_call != 22 || w[2].last_call != 31 || w[0].first_call != 2 ||
            w[3].calls != 10)
            bad |= 8;
        if (!w[2].spike || w[2].latest_rank != p - 1 || w[2].latest_calls < 9 ||
            w[2].worst_imbalance < 45e-3)
            bad |= 16;
        for (int k = 0; k < 4; k++)
            if (k != 2 && !(w[k].worst_imbalance * 2 < w[2].worst_imbalance)) bad |= 32;
        if (me == 0 && pass == 0)
            for (int k = 0; k < nw; k++)
                printf("window %d: calls %llu-%llu worst_imb %.1f us factor %.2f spike %d latest "
                       "%d:%llu\n",
                       k, w[k].first_call, w[k].last_call, w[k].worst_imbalance * 1e6,
                       w[k].worst_factor, w[k].spike, w[k].latest_rank, w[k].latest_calls);
    }
    autocoll_arrival_window_t w1;
    int nw = 0;
    if (autocoll_arrival_windows(n + 5, 10, &w1, 1, &nw) != MPI_ERR_ARG) bad |= 64;
    if (bad) fprintf(stderr, "rank %d: phase checks failed (0x%x)\n", me, bad);
    MPI_Finalize();
    return bad ? 1 : 0;
}
