/* Standard exchange and combined total exchange schedules and costs (see te.h). */
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
