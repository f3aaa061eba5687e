/*
 * Helpers of the reduce_scatter algorithms, which serve reduce_scatter_block too (its .def names
 * the reduce_scatter functions): the recursive-halving body shared by recursive_halving and
 * butterfly. The block counts and offsets of either call are in algs.h (ac_rsc_counts).
 *
 * The input is sum(counts) elements of a->rtype (in rbuf when in place); rank r receives block r
 * (counts[r] elements) in a->rbuf.
 */
#ifndef AC_RSC_COMMON_H
#define AC_RSC_COMMON_H
#include "../algs.h"

/* Fold onto p' = 2^floor(lg p) participants (each owns the blocks of its rank group), recursive
 * halving (ascending: distance 1, 2, ..., rank-ordered; otherwise distance p'/2, ..., 1,
 * commutative), then the holder of each group's blocks sends them to its ranks
 * (reduce_scatter_recursive_halving.c). */
int ac_rsc_halving(const ac_args_t *a, int ascending);
#endif
