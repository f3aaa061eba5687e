/*
 * Contention-free logical rings (all-gather) and broadcast chains on a switch tree. No MPI.
 *
 * Source: seed 000 (Faraj 2006) §3.3.2 (Algorithms 1-3, Lemmas 7-8, Theorems 2-3) and §3.4.2
 * (Algorithm 4, Lemmas 9-11, Theorem 4); spec star-stage-ethernet.md sections 3.4 and 3.5.
 *
 * A ring is an array of all ranks; rank ring[i] sends to ring[(i+1) mod n]. Its length (max path)
 * is the largest number of switches on any of those n paths.
 */
#ifndef AC_TOPO_RINGS_H
#define AC_TOPO_RINGS_H

#include "topo.h"

/* Largest path length (switches traversed, spec 1.2) of the ring's messages; 0 if n < 2. */
int ac_ring_maxpath(const ac_topo_t *t, const int *ring, int n);
/* 1 if no two messages of the ring share a directed link. n <= t->nranks. */
int ac_ring_contention_free(const ac_topo_t *t, const int *ring, int n);

/* LR1 (Algorithm 1): machines of the switches in DFS order from the tree root. Always
 * contention free. O(nv). Returns 0, -1 on no memory. */
int ac_ring_lr1(const ac_topo_t *t, int *ring);
/* Theorem 3 condition: every switch has at least as many ranks directly attached as switches. */
int ac_ring_lr2_possible(const ac_topo_t *t);
/* LR2 (Algorithm 2): a 2-hop ring; -1 if the condition fails or on no memory. O(nv). */
int ac_ring_lr2(const ac_topo_t *t, int *ring);
/* LR3 (Algorithm 3): a contention-free ring of minimal max path (dynamic programming over the
 * children orders of every switch). Returns its max path (>= 0); -1 on no memory; -2 if a switch
 * has more than 14 sub-switches (the order search would explode). */
int ac_ring_lr3(const ac_topo_t *t, int *ring);

/* Algorithm 4 (linear tree): root, the other ranks of the root's switch, then the ranks of the
 * switches in DFS order of the switch tree from the root's switch. order[0] = root. */
int ac_bcast_chain(const ac_topo_t *t, int root, int *order);

/* Algorithm 5 (binary tree heuristic) on the Algorithm-4 order m_0 = root .. m_{P-1}: tree(i,j)
 * over m_i..m_j has children m_{i+1} and m_k (the k of smallest height for which m_i -> m_k
 * contends with no message of tree(i+1, k-1)). Writes child1/child2 of every rank (-1 if none)
 * and returns the height (edges from the root to the deepest rank); -1 on no memory, -2 if the
 * link sets of the O(P^2) ranges would need more than 256 MiB. Cost O(P^3 depth + P^2 nv/64). */
int ac_bcast_bintree(const ac_topo_t *t, int root, int *child1, int *child2);

#endif
