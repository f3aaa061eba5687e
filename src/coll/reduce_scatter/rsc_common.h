/*
 * Helpers of the reduce_scatter algorithms, which serve reduce_scatter_block too (its .def names
 * the reduce_scatter functions): the block counts of either call, their element offsets, and the
 * recursive-halving body shared by recursive_halving and butterfly. Not an algorithm of its own.
 *
 * The input is sum(counts) elements of a->rtype (in rbuf when in place); rank r receives block r
 * (counts[r] elements) in a->rbuf.
 */
#ifndef AC_RSC_COMMON_H
#define AC_RSC_COMMON_H
#include "../algs.h"

/* The block counts: a->rcounts (reduce_scatter), or p times a->rcount in a new array
 * (reduce_scatter_block) stored in *owned too, for the caller to free (*owned is NULL
 * otherwise). NULL when out of memory. */
const int *ac_rsc_counts(const ac_args_t *a, int **owned);
/* Element offsets of the p blocks (p + 1 entries, malloc'ed): off[r] = counts[0] + ... +
 * counts[r-1]. NULL when out of memory. */
size_t *ac_rsc_offsets(const int *counts, int p);

/* Fold onto p' = 2^floor(lg p) participants (each owns the blocks of its rank group), recursive
 * halving (ascending: distance 1, 2, ..., rank-ordered; otherwise distance p'/2, ..., 1,
 * commutative), then the holder of each group's blocks sends them to its ranks
 * (reduce_scatter_recursive_halving.c). */
int ac_rsc_halving(const ac_args_t *a, int ascending);
#endif
