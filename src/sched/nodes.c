/* Node-ordered layout of per-rank blocks (see sched.h). */
#include "sched.h"

void ac_node_regions(const int *node_of, int p, int nn, int *size, int *start, int *pos) {
    for (int n = 0; n < nn; n++)
        size[n] = 0;
    for (int r = 0; r < p; r++)
        pos[r] = size[node_of[r]]++;
    for (int n = 0; n < nn; n++)
        start[n] = n == 0 ? 0 : start[n - 1] + size[n - 1];
    for (int r = 0; r < p; r++)
        pos[r] += start[node_of[r]];
}
