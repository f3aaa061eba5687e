/* Sparbit schedule (seed 001, Loch 2021, section 4.2; spec/sparbit.md 1.2-1.4). */
#include "sched.h"

int ac_sparbit_nsteps(int p) {
    return ac_ceil_log2(p);
}

void ac_sparbit_step(int p, int i, int *d, int *n) {
    int L = ac_ceil_log2(p);
    unsigned dd = 1u << (L - 1 - i);
    /* held before the step: ceil(p / 2d); after: ceil(p / d) (closed forms of h_i) */
    long long after = ((long long)p + dd - 1) / dd;
    long long before = ((long long)p + 2LL * dd - 1) / (2LL * dd);
    *d = (int)dd;
    *n = (int)(after - before);
}

int ac_sparbit_send_block(int r, int p, int d, int j) {
    return ac_mod((long long)r - 2LL * j * d, p);
}
int ac_sparbit_recv_block(int r, int p, int d, int j) {
    return ac_mod((long long)r - (2LL * j + 1) * d, p);
}
