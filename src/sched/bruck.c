/* Bruck and k-port Bruck dissemination schedules (see sched.h). */
#include "sched.h"

int ac_bruck_nsteps(int p) {
    return ac_ceil_log2(p);
}

int ac_kbruck_nsteps(int p, int k) {
    int s = 0;
    long long D = 1;
    while (D < p) {
        D *= (k + 1);
        s++;
    }
    return s;
}

int ac_kbruck_part(int p, int k, int s, int j, int *offset, int *count) {
    long long D = 1;
    for (int i = 0; i < s && D < p; i++)
        D *= (k + 1);
    if (j < 1 || j > k || D >= p) return 0;
    long long o = (long long)j * D;
    if (o >= p) return 0;
    *offset = (int)o;
    *count = (int)(D < p - o ? D : p - o);
    return 1;
}
