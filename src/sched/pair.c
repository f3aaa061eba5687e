/* Pair (XOR), recursive doubling and barrier placement schedules (see sched.h). */
#include "sched.h"

int ac_pair_peer(int r, int s) {
    return r ^ s;
}

int ac_nbar_count(int s, int nsteps, int N) {
    int c = 0;
    for (int b = 0; b < N; b++)
        if ((int)((long long)(b + 1) * nsteps / (N + 1)) == s) c++;
    return c;
}

int ac_rdb_start(int r, int k) {
    return (r >> k) << k;
}

int ac_rdb_fold_blocks(int p, int v0, int nv, int *out) {
    int pp = ac_floor_pof2(p), e = p - pp, n = 0;
    for (int v = v0; v < v0 + nv; v++) {
        out[n++] = v;
        if (v < e) out[n++] = v + pp;
    }
    return n;
}
