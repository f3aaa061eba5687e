/* Alltoall-only schedules (see a2a_sched.h). */
#include "a2a_sched.h"

int ac_a2a_bruck_slots(int p, int k, int s, int j, int *out) {
    long long D = 1;
    int n = 0;
    for (int e = 0; e < s; e++)
        D *= (k + 1);
    for (int t = 1; t < p; t++)
        if ((int)((t / D) % (k + 1)) == j) out[n++] = t;
    return n;
}

int ac_a2a_node_members(const int *node_of, int p, int node, int *out) {
    int n = 0;
    for (int r = 0; r < p; r++)
        if (node_of[r] == node) out[n++] = r;
    return n;
}

void ac_a2a_hier_block(const int *ma, int na, const int *mb, size_t t, int *src, int *dst) {
    *src = ma[t % (size_t)na];
    *dst = mb[t / (size_t)na];
}
