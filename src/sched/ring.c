/* Ring and general arithmetic schedules (see sched.h). */
#include "sched.h"

int ac_mod(long long x, int p) {
    long long m = x % p;
    return (int)(m < 0 ? m + p : m);
}
int ac_ceil_log2(int p) {
    int L = 0;
    while (L < 31 && (1u << L) < (unsigned)p)
        ++L;
    return L;
}
int ac_floor_pof2(int p) {
    unsigned v = 1;
    while (v <= (unsigned)p / 2u)
        v <<= 1;
    return (int)v;
}
int ac_is_pof2(int p) {
    return p > 0 && (p & (p - 1)) == 0;
}

int ac_ring_to(int r, int p, int s) {
    return ac_mod((long long)r + s, p);
}
int ac_ring_from(int r, int p, int s) {
    return ac_mod((long long)r - s, p);
}
int ac_lring_send_block(int r, int p, int s) {
    return ac_mod((long long)r - s, p);
}
int ac_lring_recv_block(int r, int p, int s) {
    return ac_mod((long long)r - s - 1, p);
}
