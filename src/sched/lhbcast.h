/*
 * Latency-hiding broadcast on a reconfigurable network: cost models B1-B4, multi-broadcast
 * MB1/MB2 and the grouping-schema schedule generator of seed 004 (Afsahi 2000, section 5.3,
 * eq. 5.1, 5.36; spec predictors-latency.md 5.5-5.6). Pure functions without MPI.
 *
 * Model 1 of seed 004: RON(k, N), each node holds k links; a message of fixed size costs 1 time
 * unit per hop; a sender must configure a link (delay d) before it uses it. Costs, in those units:
 *   B1_Fk = (d+1)(ceil(log_k(N(k-1)+1)) - 1)        k-ary tree, one send per node
 *   B2_Fk = (d+1) ceil(log_{k+1} N)                  k-nomial tree (spec: log_{k+1}, not k-1)
 *   B3_Fk = d + ceil(log_k(N(k-1)+1)) - 1            k-ary tree, links configured beforehand
 *   B4_Fk = min{S : N(S) >= N}                       greedy latency hiding (dedicated network;
 *                                                    + d for the up-front configuration if not)
 *   best  = ceil(log_{k+1} N)                        d = 0
 *   MB1   = M (d + B4),  MB2 = d + M (ceil(log_k(N(k-1)+1)) - 1)   M messages from one root
 * For k = 1 the k-ary tree is a chain (depth N-1), so B1 = (d+1)(N-1), B3 = d + N-1 and
 * MB2 = d + M(N-1); B2 with k = 1 is the binomial (d+1) ceil(log2 N) and B4 with k = 1 is B_F1
 * (Table 5.3).
 *
 * Recurrence (eq. 5.1, correct as printed; O(S)): N(0) = 1, N(S) = k N(S-1) + 1 for
 * 1 <= S <= d+1, N(S) = k N(S-1) + N(S-d-1) for S > d+1. seed 004 also gives a closed form
 * (eqs. 5.28/5.30/5.35) with several misprints; the corrected form is kept only as a check in
 * tests/unit/test_lhbcast.c, since the recurrence is exact and no slower.
 *
 * Schedule (grouping schema, eq. 5.36, 0-based virtual ids, root = 0): R(0) = {0}, T(S) = {}
 * for S <= 0, T(S) = T(S-d-1) u R(S-1), R(S) = the next k |T(S)| unused ids (truncated at N);
 * each sender of T(S) in ascending id order takes the next k ids. So a node informed at step t
 * sends at steps t+1, t+d+2, t+2d+3, ...: it reconfigures during d steps after each send while
 * the nodes it has just informed forward the message over links configured in advance.
 *
 * Where it runs: with d = 0 (ordinary MPI point-to-point, no link set-up) every informed node
 * sends to k new nodes per step, which is the k-nomial tree of radix k+1 that the library's
 * `bcast knomial` (src/sched/tree.h, parameter k = ports + 1) already runs, with another
 * numbering of the nodes. With d > 0 the schedule needs links configured before the message
 * arrives (a dedicated network or global control), which MPI does not offer: this file is an
 * analysis tool (autocoll-info --lhbcast), not a registered algorithm.
 */
#ifndef AC_SCHED_LHBCAST_H
#define AC_SCHED_LHBCAST_H

/* Counts saturate at AC_LHB_MAX so that large S never overflow. */
#define AC_LHB_MAX (1LL << 62)

/* N(S) of eq. 5.1 for k >= 1, d >= 0, S >= 0 (-1 on bad arguments). */
long long ac_lhb_count(int k, int d, int S);
/* Nodes newly informed at step S >= 1 (corrected eq. 5.2): N(S) - N(S-1). */
long long ac_lhb_new(int k, int d, int S);

/* Model-1 costs of spec 5.5-5.6 for N >= 1 nodes, k >= 1 ports, d >= 0, M >= 1 messages.
 * -1 on bad arguments. */
long long ac_lhb_b1(long long N, int k, int d);
long long ac_lhb_b2(long long N, int k, int d);
long long ac_lhb_b3(long long N, int k, int d);
long long ac_lhb_b4(long long N, int k, int d);
long long ac_lhb_best(long long N, int k);
long long ac_lhb_mb1(long long N, int k, int d, long long M);
long long ac_lhb_mb2(long long N, int k, int d, long long M);
/* ceil(log_k(N(k-1)+1)) - 1: depth of the complete k-ary tree on N nodes (N-1 for k = 1). */
long long ac_lhb_kary_depth(long long N, int k);

typedef struct {
    int step; /* 1-based step of the send */
    int from; /* sender (rank, with the root mapped as (v + root) mod N) */
    int to;   /* receiver */
} ac_lhb_msg;

/* Fill out[0 .. N-2] with the N-1 messages of the grouping schema for N nodes (N >= 1,
 * N <= 1 << 24), k >= 1, d >= 0 and root in [0, N), in step order and, within a step, in
 * ascending virtual sender id. Returns the finishing step (0 for N = 1), -1 on bad arguments or
 * when out of memory. */
int ac_lhb_schedule(int N, int k, int d, int root, ac_lhb_msg *out);

#endif
