/* Block counts and offsets of reduce_scatter and reduce_scatter_block calls (see rsc_common.h).
 * Not an algorithm of its own. */
#include <stdlib.h>
#include "rsc_common.h"

const int *ac_rsc_counts(const ac_args_t *a, int **owned) {
    *owned = NULL;
    if (a->coll != AUTOCOLL_REDUCE_SCATTER_BLOCK) return a->rcounts;
    int *c = malloc((size_t)a->size * sizeof *c);
    if (!c) return NULL;
    for (int r = 0; r < a->size; r++)
        c[r] = a->rcount;
    *owned = c;
    return c;
}

size_t *ac_rsc_offsets(const int *counts, int p) {
    size_t *off = malloc(((size_t)p + 1) * sizeof *off);
    if (!off) return NULL;
    off[0] = 0;
    for (int r = 0; r < p; r++)
        off[r + 1] = off[r] + (size_t)counts[r];
    return off;
}
