/*
 * Total-exchange (alltoall) schedules of seed 004 (Afsahi 2000, chapter 5.7; spec
 * predictors-latency.md 5.2, 5.7): standard exchange TE2 and the combined total exchange TE3,
 * single port, with the mixed-radix extension p = 2^i * G (any G >= 1). Pure functions (no MPI,
 * no allocation): the algorithms and tests/unit/test_sched_alltoall.c use the same code.
 *
 * Splitting steps s = 1..i. Before step s the ranks form contiguous groups of S = p / 2^(s-1)
 * ranks; rank r holds p blocks in "slots": slot k*S + d (k < 2^(s-1), d < S) holds the block
 * from source (r mod S) + k*S to destination base + d, base = r - (r mod S). At step s the group
 * splits into halves of H = S/2; r exchanges with the rank at the same offset in the other half
 * (ac_te_partner) the p/2 blocks whose destination lies in that half, packed in the order
 * t = k*H + dd (dd < H). Before step 1 slot d is r's own block for destination d.
 *
 * Direct phase (after i steps, groups of G = p / 2^i): at step j = 1..G-1 rank r sends to
 * base + (o + j) mod G and receives from base + (o - j) mod G (o = r mod G) the 2^i blocks
 * k = 0..2^i-1 addressed to the receiver: slot k*G + (dest - base); received block k came from
 * source (sender - base) + k*G.
 */
#ifndef AC_SCHED_TE_H
#define AC_SCHED_TE_H
#include <stddef.h>

/* Largest i with 2^i dividing p (p >= 1); i = log2 p for powers of two. */
int ac_te_max_i(int p);
/* 1 when i splitting steps are possible on p ranks (0 <= i and 2^i divides p). */
int ac_te_valid(int p, int i);

/* Splitting step s (1-based): half size H = p / 2^s (the group size after step s) and r's
 * partner; *upper = 1 when r lies in the upper half of its current group. */
int ac_te_half(int p, int s);
int ac_te_partner(int p, int s, int r, int *upper);
/* Slot (before step s) of packed block t (t < p/2) that r sends at step s. */
size_t ac_te_send_slot(int p, int s, int r, size_t t);
/* Slot (before step s) of the t-th block r keeps (t < p/2), and its slot after step s. */
size_t ac_te_keep_slot(int p, int s, int r, size_t t);
size_t ac_te_keep_new_slot(int p, int s, int r, size_t t);
/* Slot (after step s) of the t-th block r receives at step s. */
size_t ac_te_recv_new_slot(int p, int s, int r, size_t t);
/* Source and destination of the block in slot `slot` of rank r after s steps (s = 0 initial). */
int ac_te_slot_src(int p, int s, int r, size_t slot);
int ac_te_slot_dst(int p, int s, int r, size_t slot);

/* Direct phase after i steps: peers of step j (1..G-1). */
void ac_te_direct_peers(int p, int i, int r, int j, int *to, int *from);
/* Slot (after i steps) of the k-th block r sends to `to` (k < 2^i). */
size_t ac_te_direct_send_slot(int p, int i, int r, int to, size_t k);
/* Source rank of the k-th block r receives from `from` in the direct phase. */
int ac_te_direct_recv_src(int p, int i, int from, size_t k);

/* Cost in seed 004's model 2 (time unit: one block's transfer; dt = d~ = (d + t_s) in blocks).
 * Single port (k = 1) or k ports, N = (k+1)^L: TE3_Fk(i) = i (dt + N/(k+1))
 *   + (1/k)(N/(k+1)^i - 1)(dt + (k+1)^i)   (eq. 5.42 for k = 1, 5.43). i = 0 is TE1, i = L TE2.
 * For N not a power of k+1 the direct phase costs ceil((G-1)/k) steps, G = N/(k+1)^i (the
 * mixed-radix extension, spec 5.7); N must be divisible by (k+1)^i. Returns -1 otherwise. */
double ac_te3_cost(long N, int k, int i, double dt);
double ac_te1_cost(long N, int k, double dt); /* ceil((N-1)/k)(dt + 1) */
double ac_te2_cost(long N, int k, double dt); /* (dt + N/(k+1)) log_{k+1} N, N = (k+1)^L */
/* The i in [0, ac_te_max_i] (single port) minimising ac_te3_cost(N, 1, i, dt); ties go to the
 * smallest i. */
int ac_te3_best_i(long N, double dt);
/* d~ for the TE3 `auto` choice: alpha / (m beta) with m = block bytes (huge when m = 0). */
double ac_te_dtilde(double alpha, double beta, double block_bytes);

#endif
