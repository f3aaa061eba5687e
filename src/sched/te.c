/*
 * Standard exchange and combined total exchange schedules and costs (see te.h for the slot
 * arithmetic). Reference: seed 004 (Afsahi 2000), section 5.7, Lemma 2, eq. 5.42-5.43; spec
 * predictors-latency.md 5.2 and 5.7 (mixed radix). Cost TE3(i): i (alpha + (p/2) n beta) +
 * (G - 1)(alpha + 2^i n beta), G = p / 2^i (ac_te3_cost in seed 004's units).
 *
 * Worked examples (checked against ac_te_slot_src / _dst by simulating every slot). "xy" is the
 * block from rank x to rank y. A splitting step swaps the p/2 listed blocks with the partner
 * "<>q", whose own list (its row) arrives in return; a direct step sends the 2^i listed blocks
 * to ">to" and receives the 2^i blocks addressed to it from "<from".
 *
 * p = 8, i = 2 (G = 2):
 *   rank | step 1: S = 8, H = 4 | step 2: S = 4, H = 2 | direct j = 1
 *   -----+----------------------+----------------------+------------------
 *      0 | 04,05,06,07 <>4      | 02,03,42,43 <>2      | 01,21,41,61 >1 <1
 *      1 | 14,15,16,17 <>5      | 12,13,52,53 <>3      | 10,30,50,70 >0 <0
 *      2 | 24,25,26,27 <>6      | 20,21,60,61 <>0      | 03,23,43,63 >3 <3
 *      3 | 34,35,36,37 <>7      | 30,31,70,71 <>1      | 12,32,52,72 >2 <2
 *      4 | 40,41,42,43 <>0      | 06,07,46,47 <>6      | 05,25,45,65 >5 <5
 *      5 | 50,51,52,53 <>1      | 16,17,56,57 <>7      | 14,34,54,74 >4 <4
 *      6 | 60,61,62,63 <>2      | 24,25,64,65 <>4      | 07,27,47,67 >7 <7
 *      7 | 70,71,72,73 <>3      | 34,35,74,75 <>5      | 16,36,56,76 >6 <6
 *   slots of rank 0 (slot k S + d: source (r mod S) + k S, destination r - (r mod S) + d):
 *   initially 00 01 02 03 04 05 06 07; after step 1 (S = 4) 00 01 02 03 40 41 42 43; after
 *   step 2 (S = 2) 00 01 20 21 40 41 60 61: 00 20 40 60 stay, 01 21 41 61 go to rank 1.
 *
 * p = 6, i = 1 (mixed radix, G = 3: the direct phase rotates inside groups {0,1,2}, {3,4,5}):
 *   rank | step 1: S = 6, H = 3 | direct j = 1         | direct j = 2
 *   -----+----------------------+----------------------+------------------
 *      0 | 03,04,05 <>3         | 01,31 >1 <2          | 02,32 >2 <1
 *      1 | 13,14,15 <>4         | 12,42 >2 <0          | 10,40 >0 <2
 *      2 | 23,24,25 <>5         | 20,50 >0 <1          | 21,51 >1 <0
 *      3 | 30,31,32 <>0         | 04,34 >4 <5          | 05,35 >5 <4
 *      4 | 40,41,42 <>1         | 15,45 >5 <3          | 13,43 >3 <5
 *      5 | 50,51,52 <>2         | 23,53 >3 <4          | 24,54 >4 <3
 *   slots of rank 4 after step 1 (S = 3): 13 14 15 43 44 45; direct step j sends slots
 *   k G + (to - base), k = 0, 1: to = 5 at j = 1 (15, 45), to = 3 at j = 2 (13, 43).
 */
#include "te.h"

int ac_te_max_i(int p) {
    int i = 0;
    while (p > 1 && p % 2 == 0) {
        p /= 2;
        i++;
    }
    return i;
}

int ac_te_valid(int p, int i) {
    return p >= 1 && i >= 0 && i <= ac_te_max_i(p);
}

/* Group size after s splitting steps: p / 2^s. */
static int group(int p, int s) {
    return p / (1 << s);
}

int ac_te_half(int p, int s) {
    return group(p, s);
}

int ac_te_partner(int p, int s, int r, int *upper) {
    int S = group(p, s - 1), H = group(p, s);
    int u = (r % S) >= H;
    if (upper) *upper = u;
    return u ? r - H : r + H;
}

size_t ac_te_send_slot(int p, int s, int r, size_t t) {
    int S = group(p, s - 1), H = group(p, s), u = (r % S) >= H;
    size_t k = t / (size_t)H, dd = t % (size_t)H;
    return k * (size_t)S + dd + (u ? 0 : (size_t)H);
}

size_t ac_te_keep_slot(int p, int s, int r, size_t t) {
    int S = group(p, s - 1), H = group(p, s), u = (r % S) >= H;
    size_t k = t / (size_t)H, dd = t % (size_t)H;
    return k * (size_t)S + dd + (u ? (size_t)H : 0);
}

size_t ac_te_keep_new_slot(int p, int s, int r, size_t t) {
    int S = group(p, s - 1), H = group(p, s), u = (r % S) >= H;
    size_t k = t / (size_t)H, dd = t % (size_t)H;
    return (2 * k + (size_t)u) * (size_t)H + dd;
}

size_t ac_te_recv_new_slot(int p, int s, int r, size_t t) {
    int S = group(p, s - 1), H = group(p, s), u = (r % S) >= H;
    size_t k = t / (size_t)H, dd = t % (size_t)H;
    return (2 * k + (size_t)!u) * (size_t)H + dd;
}

int ac_te_slot_src(int p, int s, int r, size_t slot) {
    int S = group(p, s);
    return r % S + (int)(slot / (size_t)S) * S;
}

int ac_te_slot_dst(int p, int s, int r, size_t slot) {
    int S = group(p, s);
    return r - r % S + (int)(slot % (size_t)S);
}

void ac_te_direct_peers(int p, int i, int r, int j, int *to, int *from) {
    int G = group(p, i), o = r % G, base = r - o;
    *to = base + (o + j) % G;
    *from = base + ((o - j) % G + G) % G;
}

size_t ac_te_direct_send_slot(int p, int i, int r, int to, size_t k) {
    int G = group(p, i), base = r - r % G;
    return k * (size_t)G + (size_t)(to - base);
}

int ac_te_direct_recv_src(int p, int i, int from, size_t k) {
    int G = group(p, i);
    return from % G + (int)k * G;
}

/* ------------------------------------------------------------------ costs (seed 004 model 2) */

double ac_te3_cost(long N, int k, int i, double dt) {
    if (N < 1 || k < 1 || i < 0) return -1;
    long P = 1;
    for (int e = 0; e < i; e++) {
        if (P > N / (k + 1)) return -1;
        P *= (k + 1);
    }
    if (N % P) return -1;
    long G = N / P;
    long steps = (G - 1 + k - 1) / k; /* ceil((G-1)/k) direct steps of P blocks */
    return (double)i * (dt + (double)N / (k + 1)) + (double)steps * (dt + (double)P);
}

double ac_te1_cost(long N, int k, double dt) {
    return ac_te3_cost(N, k, 0, dt);
}

double ac_te2_cost(long N, int k, double dt) {
    int L = 0;
    long P = 1;
    while (P < N) {
        P *= (k + 1);
        L++;
    }
    if (P != N) return -1;
    return (dt + (double)N / (k + 1)) * L;
}

int ac_te3_best_i(long N, double dt) {
    int best = 0;
    double bc = ac_te3_cost(N, 1, 0, dt);
    for (int i = 1; ac_te3_cost(N, 1, i, dt) >= 0; i++) {
        double c = ac_te3_cost(N, 1, i, dt);
        if (c < bc) {
            bc = c;
            best = i;
        }
    }
    return best;
}

double ac_te_dtilde(double alpha, double beta, double block_bytes) {
    if (block_bytes <= 0 || beta <= 0) return 1e12;
    return alpha / (block_bytes * beta);
}
