/* Mesh grid shapes and peers (see sched.h). */
#include "sched.h"

static int isqrt_floor(int p) {
    long long x = 0;
    while ((x + 1) * (x + 1) <= p)
        x++;
    return (int)x;
}
static int icbrt_floor(int p) {
    long long x = 0;
    while ((x + 1) * (x + 1) * (x + 1) <= p)
        x++;
    return (int)x;
}
static int largest_divisor_le(int p, int lim) {
    for (int x = lim; x > 1; x--)
        if (p % x == 0) return x;
    return 1;
}

void ac_mesh_dims(int p, int nd, int *dims) {
    if (nd <= 1) {
        dims[0] = p;
    } else if (nd == 2) {
        dims[0] = largest_divisor_le(p, isqrt_floor(p));
        dims[1] = p / dims[0];
    } else {
        dims[0] = largest_divisor_le(p, icbrt_floor(p));
        ac_mesh_dims(p / dims[0], 2, dims + 1);
    }
}

void ac_mesh_coords(int r, int nd, const int *dims, int *c) {
    for (int d = 0; d < nd; d++) {
        c[d] = r % dims[d];
        r /= dims[d];
    }
}

int ac_mesh_rank(int nd, const int *dims, const int *c) {
    int r = 0;
    for (int d = nd - 1; d >= 0; d--)
        r = r * dims[d] + c[d];
    return r;
}

int ac_mesh_peer(int r, int nd, const int *dims, int d, int j) {
    int c[3] = {0, 0, 0};
    ac_mesh_coords(r, nd, dims, c);
    c[d] = ac_mod((long long)c[d] + j, dims[d]);
    return ac_mesh_rank(nd, dims, c);
}

int ac_mesh_held(int r, int nd, const int *dims, int d, int *out) {
    int c[3] = {0, 0, 0}, lo = 1, n = 0;
    ac_mesh_coords(r, nd, dims, c);
    for (int e = 0; e < d; e++)
        lo *= dims[e];
    /* ranks whose coordinates d..nd-1 equal r's: base + t, t < lo (dims below d vary) */
    int hi[3] = {0, 0, 0};
    for (int e = d; e < nd; e++)
        hi[e] = c[e];
    int base = ac_mesh_rank(nd, dims, hi);
    for (int t = 0; t < lo; t++)
        out[n++] = base + t;
    return n;
}
