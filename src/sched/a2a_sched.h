/*
 * Alltoall-only schedules (pure functions, no MPI): the block selection of the alltoall Bruck
 * algorithm and the block order of the node-aware hierarchical alltoall. The step peers come
 * from the shared schedules in sched.h (ac_kbruck_part, ac_ring_*, ac_pair_peer, ac_mesh_*,
 * ac_rdb_*); tests/unit/test_sched_alltoall.c simulates them block by block.
 */
#ifndef AC_SCHED_A2A_H
#define AC_SCHED_A2A_H
#include <stddef.h>

/* Alltoall Bruck, k ports (k = 1: Bruck et al. 1997 as in seed 000 4.1.1.1). Rank r keeps its
 * blocks in slots: slot t starts as the block r -> (r + t) mod p. At step s (0-based, steps from
 * ac_kbruck_nsteps) and port j = 1..k with offset o (ac_kbruck_part), r sends the slots t whose
 * base-(k+1) digit s equals j to (r + o) mod p and receives the same slots from (r - o) mod p.
 * A block moves by the value of each digit of t, t in total, so at the end slot t of r holds the
 * block (r - t) mod p -> r. Writes the slots (increasing) into out and returns their number. */
int ac_a2a_bruck_slots(int p, int k, int s, int j, int *out);

/* Ranks of node `node` in increasing order (node_of[r] = node index of rank r); returns the
 * count. */
int ac_a2a_node_members(const int *node_of, int p, int node, int *out);
/* Hierarchical alltoall, leader of node A to leader of node B (members ma[0..na), mb[0..nb)):
 * block t of the message is src = ma[t mod na] -> dst = mb[t div na]. */
void ac_a2a_hier_block(const int *ma, int na, const int *mb, size_t t, int *src, int *dst);

#endif
