/* Neighbour exchange schedule, even p (Chen et al. 2005; spec/sparbit.md 3.2). */
#include "sched.h"

int ac_nbx_nsteps(int p) {
    return p / 2;
}

static int sigma(int r) {
    return (r & 1) ? -1 : 1;
}
static int alt(int s) {
    return (s & 1) ? -1 : 1;
}

int ac_nbx_peer(int r, int p, int s) {
    return ac_mod((long long)r + sigma(r) * alt(s), p);
}

int ac_nbx_nblocks(int s) {
    return s == 0 ? 1 : 2;
}

int ac_nbx_recv_start(int r, int p, int s) {
    if (s == 0) return ac_nbx_peer(r, p, 0);
    int e = r & ~1;
    return ac_mod((long long)e + (long long)sigma(r) * alt(s) * 2 * ((s + 1) / 2), p);
}

int ac_nbx_send_start(int r, int p, int s) {
    if (s == 0) return r;
    if (s == 1) return r & ~1;
    return ac_nbx_recv_start(r, p, s - 1);
}
