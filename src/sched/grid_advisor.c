/*
 * Broadcast advisor: prediction of the next broadcast, size buckets, the search plan and the
 * app_file reader (seed 002, Gupta & Vadhiyar, §2.5; spec adaptive-bcast-grid.md sections
 * 10.1-10.3 and 11).
 *
 * Prediction: ordinary least squares over the last W records (x = call index within the
 * window, 0..k-1), evaluated at x = k. The size fit uses the k sizes; the gap fit uses the k-1
 * gaps between consecutive calls (x = index of the later call). One record: size "same as
 * last". Fewer than two records give no gap: the gap is then the lower clamp (0.05 s), so the
 * first trees are produced quickly (the spec leaves this case open). Clamps: size to
 * [1, 2 x largest size in the whole history]; a gap <= 0 becomes the last observed gap, then
 * [0.05 s, 600 s]. The log model fits log(max(gap, 1e-6)) and exponentiates. O(W).
 * Buckets: b = round(log2 m). Plan: first cycle b, b+1, b-1 with 0.6G, 0.2G, 0.2G of
 * G = 0.9 x gap, then G/3 each (a bucket below 0 is clamped to 0).
 * Idle mode: buckets 10..21 (1 KiB..2 MiB) round-robin, fixed-mode search.
 */
#include "grid_tree.h"
#include "grid_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int ac_grid_bucket(double m) {
    if (!(m >= 1)) return 0;
    return (int)lround(log2(m));
}

/* OLS line through (i, y[i]), i = 0..k-1, evaluated at x = k. */
static double ols_next(const double *y, int k) {
    if (k == 1) return y[0];
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < k; i++) {
        sx += i;
        sy += y[i];
        sxx += (double)i * i;
        sxy += i * y[i];
    }
    double den = k * sxx - sx * sx;
    double slope = (k * sxy - sx * sy) / den;
    double icpt = (sy - slope * sx) / k;
    return icpt + slope * k;
}

enum { GAP_MIN_CS = 5 }; /* 0.05 s, written in centiseconds to keep the constant exact */

int ac_grid_predict(const ac_grid_call_t *h, int nh, int window, int gapmodel,
                    ac_grid_pred_t *out) {
    if (nh <= 0) return 0;
    if (window < 1) window = 1;
    int k = nh < window ? nh : window;
    const ac_grid_call_t *w = h + (nh - k);
    double y[64], *ys = k <= 64 ? y : malloc((size_t)k * sizeof(double));
    double gmin = GAP_MIN_CS / 100.0, gmax = 600.0;
    if (!ys) k = 1, ys = y, w = h + (nh - 1); /* out of memory: use the last record only */
    double mx = 0;
    for (int i = 0; i < nh; i++)
        if (h[i].m > mx) mx = h[i].m;
    for (int i = 0; i < k; i++)
        ys[i] = w[i].m;
    double size = ols_next(ys, k);
    if (!(size >= 1)) size = 1;
    if (size > 2 * mx) size = 2 * mx < 1 ? 1 : 2 * mx;
    double gap = gmin;
    if (k >= 2) {
        for (int i = 1; i < k; i++) {
            double g = w[i].t - w[i - 1].t;
            ys[i - 1] = gapmodel == AC_GRID_GAP_LOG ? log(g > 1e-6 ? g : 1e-6) : g;
        }
        gap = ols_next(ys, k - 1);
        if (gapmodel == AC_GRID_GAP_LOG) gap = exp(gap);
        if (!(gap > 0)) gap = w[k - 1].t - w[k - 2].t;
        if (!(gap >= gmin)) gap = gmin;
        if (gap > gmax) gap = gmax;
    }
    if (ys != y) free(ys);
    out->size = size;
    out->gap = gap;
    out->bucket = ac_grid_bucket(size);
    return 1;
}

void ac_grid_plan_step(const ac_grid_pred_t *p, long step, ac_grid_plan_t *out) {
    static const int off[3] = {0, 1, -1};
    static const double share[3] = {0.6, 0.2, 0.2};
    double G = 0.9 * p->gap;
    int i = (int)(step % 3);
    int b = p->bucket + off[i];
    if (b < 0) b = 0;
    out->bucket = b;
    out->size = ldexp(1.0, b);
    out->budget = step < 3 ? share[i] * G : G / 3.0;
}

void ac_grid_plan_idle(long step, ac_grid_plan_t *out) {
    out->bucket = 10 + (int)(step % AC_GRID_NBUCKETS);
    out->size = ldexp(1.0, out->bucket);
    out->budget = 0; /* fixed mode */
}

/* ------------------------------------------------------------------ app_file */

void ac_grid_app_free(ac_grid_app_t *a) {
    free(a->h);
    free(a->root);
    memset(a, 0, sizeof *a);
}

static int push(ac_grid_app_t *a, int *cap, double t, double m, int root) {
    if (a->nh == *cap) {
        int nc = *cap ? 2 * *cap : 64;
        ac_grid_call_t *nh = realloc(a->h, (size_t)nc * sizeof *nh);
        if (!nh) return -1;
        a->h = nh;
        int *nr = realloc(a->root, (size_t)nc * sizeof(int));
        if (!nr) return -1;
        a->root = nr;
        *cap = nc;
    }
    a->h[a->nh].t = t;
    a->h[a->nh].m = m;
    a->root[a->nh++] = root;
    return 0;
}

static int app_parse(ac_grid_rd_t *r, ac_grid_app_t *a) {
    int cap = 0, k;
    long pid = -1, x, y, z;
    while ((k = ac_grid_rd_next(r, 1)) > 0) {
        const char *kw = r->tok[0];
        if (!strcmp(kw, "BEGIN")) {
            if (r->ntok != 4) return ac_grid_rd_fail(r, "BEGIN takes <pid> <comm-size> <root>");
            if (ac_grid_to_long(r->tok[1], &x) || ac_grid_to_long(r->tok[2], &y) || y < 1 ||
                ac_grid_to_long(r->tok[3], &z) || z < 0 || z >= y)
                return ac_grid_rd_fail(r, "bad BEGIN values");
            pid = x; /* a new session: earlier records describe another run */
            a->app_mode = 1;
            a->comm_size = (int)y;
            a->root_hint = (int)z;
            a->nh = 0;
        } else if (!strcmp(kw, "END")) {
            if (r->ntok != 2 || ac_grid_to_long(r->tok[1], &x))
                return ac_grid_rd_fail(r, "END takes <pid>");
            if (a->app_mode && x == pid) a->app_mode = 0;
        } else if (!strcmp(kw, "BCAST")) {
            double t, m;
            if (r->ntok != 4) return ac_grid_rd_fail(r, "BCAST takes <time> <bytes> <root>");
            if (ac_grid_to_double(r->tok[1], &t)) return ac_grid_rd_fail(r, "bad BCAST time");
            if (ac_grid_to_double(r->tok[2], &m) || m < 0)
                return ac_grid_rd_fail(r, "bad BCAST size '%s'", r->tok[2]);
            if (ac_grid_to_long(r->tok[3], &x) || x < 0)
                return ac_grid_rd_fail(r, "bad BCAST root '%s'", r->tok[3]);
            if (a->app_mode && push(a, &cap, t, m, (int)x))
                return ac_grid_rd_fail(r, "out of memory");
        } else {
            return ac_grid_rd_fail(r, "unknown record '%s'", kw);
        }
    }
    return k;
}

int ac_grid_app_parse(const char *text, const char *name, ac_grid_app_t *a, char *err,
                      size_t errlen) {
    memset(a, 0, sizeof *a);
    ac_grid_rd_t r;
    ac_grid_rd_init(&r, text, name, err, errlen);
    int rc = app_parse(&r, a);
    ac_grid_rd_free(&r);
    if (rc) ac_grid_app_free(a);
    return rc;
}

int ac_grid_app_read(const char *path, ac_grid_app_t *a, char *err, size_t errlen) {
    memset(a, 0, sizeof *a);
    char *text = ac_grid_slurp(path, err, errlen);
    if (!text) return -1;
    int rc = ac_grid_app_parse(text, path, a, err, errlen);
    free(text);
    return rc;
}

/* Safe choice (autocoll's extension, docs/grid-bcast.md "Safe choice"): the model is
 * contention-free and assumes that a parent's sends follow each other, whereas small messages
 * leave a parent at once and share its links, and every edge of a deep tree pays its latency on
 * the platform in full. A searched tree whose predicted advantage over the static G2 tree is
 * within that error is not worth the risk, so the cheaper of the stored and the new tree is kept
 * only when it beats G2 by more than `margin` (a fraction) on the current matrices; otherwise
 * G2 is used. O(1). */
int ac_grid_safe_choice(double c_new, double c_old, double c_g2, double margin) {
    int pick = c_new < c_old ? AC_GRID_PICK_NEW : AC_GRID_PICK_OLD;
    double c = pick == AC_GRID_PICK_NEW ? c_new : c_old;
    if (!(margin >= 0) || margin >= 1) margin = 0;
    return c < (1 - margin) * c_g2 ? pick : AC_GRID_PICK_G2;
}

/* Check of a cluster pair in an incremental sweep (autocoll's extension of spec section 4.2,
 * docs/grid-bcast.md "Measurement"): with the current values L and B the round trips should
 * take t1 = 2L (1 byte) and tM = 2L + M/B (M bytes answered by 1 byte), the same relations the
 * full measurement inverts (L = t1/2, B = M/(tM - t1)). The pair has changed when either
 * measured time departs from its prediction by more than `thr` (a fraction), or when there is
 * no usable prediction (B <= 0 or a non-finite value). O(1). */
int ac_grid_probe_changed(double t1, double tm, double M, double L, double B, double thr) {
    if (!(B > 0) || !(L >= 0) || !isfinite(t1) || !isfinite(tm) || !isfinite(L) || !isfinite(B))
        return 1;
    double p1 = 2 * L, pm = 2 * L + M / B;
    if (fabs(tm - pm) > thr * pm) return 1;
    return fabs(t1 - p1) > thr * p1;
}
