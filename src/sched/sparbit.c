/*
 * Sparbit schedule (seed 001, Loch 2021, section 4.2, Algorithm 1; spec/sparbit.md 1.2-1.4):
 * L = ceil(log2 p) steps at distances d = 2^(L-1), ..., 2, 1. Before step i rank r holds
 * h = ceil(p / 2d) blocks r, r - 2d, r - 4d, ... (mod p); it sends n = ceil(p / d) - h of them,
 * block (r - 2jd) mod p for j = 0 .. n-1, to (r + d) mod p and receives block (r - (2j+1)d) mod p
 * from (r - d) mod p. n = h - z where z = 1 exactly when ((p-1) & d) == 0: the last held block
 * would reach a rank that already has it. Cost: see src/coll/allgather/allgather_sparbit.c.
 *
 * Worked example, p = 6 (L = 3). "0,4,2 >1": blocks 0, 4 and 2 are sent to rank 1, in this
 * order (one message each in sparbit, one indexed message in sparbit_packed); "5,3,1 <5": blocks
 * 5, 3 and 1 arrive from rank 5 in the same order. Step 1 withholds its last block:
 * (6-1) & 2 == 0, so h = 2 but n = 1.
 *
 *   rank | step 0: d = 4, n = 1 | step 1: d = 2, n = 1 | step 2: d = 1, n = 3
 *   -----+----------------------+----------------------+----------------------
 *      0 | 0 >4      2 <2       | 0 >2      4 <4       | 0,4,2 >1  5,3,1 <5
 *      1 | 1 >5      3 <3       | 1 >3      5 <5       | 1,5,3 >2  0,4,2 <0
 *      2 | 2 >0      4 <4       | 2 >4      0 <0       | 2,0,4 >3  1,5,3 <1
 *      3 | 3 >1      5 <5       | 3 >5      1 <1       | 3,1,5 >4  2,0,4 <2
 *      4 | 4 >2      0 <0       | 4 >0      2 <2       | 4,2,0 >5  3,1,5 <3
 *      5 | 5 >3      1 <1       | 5 >1      3 <3       | 5,3,1 >0  4,2,0 <4
 *
 *   held by rank r after step 0: r, r-4 | after step 1: r, r-2, r-4 | after step 2: all 6.
 */
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
