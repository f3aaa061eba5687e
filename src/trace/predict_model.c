/*
 * Using predictions: the reconfiguration-delay hiding model and the receive-side early-arrival
 * analysis, as pure functions over one stream (no MPI, no global state).
 *
 * Source: seed 004 (Afsahi 2000) §4.3 (Fig. 4.7, cases a-c) and §4.4 (Fig. 4.14); spec
 * predictors-latency.md §4.2 and §4.3.
 *
 * Reconfiguration hiding: one pass over the gaps, O(n) time, O(1) memory. The transfer time
 * subtracted from gap i is that of send i-1 (spec §4.2 reconstruction: that message occupies the
 * link during the gap). A faster CPU divides computation only.
 *
 * Early arrival: both event lists are sorted by (key, input position), where the key is
 * (sender, receiver, communicator, tag); a stable order keeps each process's issue order within
 * a key, so walking the two sorted lists key by key pairs the j-th send with the j-th receive
 * (MPI non-overtaking, spec §4.3 step 4). O((S + R) log(S + R)) time, O(S + R) memory.
 * Receive times are taken as given: choosing them (Recv entry, or the entry of the completion
 * call of an Irecv, a worst-case choice) is the tracer's job. "Early" is strict: a receive at
 * the same instant as its send is not counted. A receive whose time is NaN (a nonblocking
 * receive whose completion was not traced, its source and tag known from its arguments) takes
 * its place in the order and is counted as paired without a time (untimed), neither early nor
 * late.
 */
#include <math.h>
#include <stdlib.h>
#include "predict.h"

int ac_reconf_hide(size_t n, const double *gap, const double *size, const unsigned char *hit,
                   double d, double bw, double cpu, ac_reconf_result *out) {
    if (!out || !(d >= 0) || !(bw > 0) || !(cpu > 0) || (n >= 2 && (!gap || !size || !hit)))
        return -1;
    ac_reconf_result r = {0};
    for (size_t i = 1; i < n; i++) {
        double avail = gap[i] / cpu - size[i - 1] / bw;
        r.gaps++;
        r.orig_cost += d;
        if (avail < 0) { /* (c): the previous transfer outlasts the gap */
            r.new_cost += d;
            r.too_short++;
        } else if (!hit[i]) { /* wrong target: full delay */
            r.new_cost += d;
            r.missed++;
        } else if (avail < d) { /* (b): partly hidden */
            r.new_cost += d - avail;
            r.partial++;
        } else { /* (a): fully hidden */
            r.hidden++;
        }
    }
    r.ratio = r.orig_cost > 0 ? r.new_cost / r.orig_cost : NAN;
    *out = r;
    return 0;
}

typedef struct {
    int a, b; /* sender, receiver */
    int64_t comm;
    int tag;
    size_t pos; /* input position (keeps issue order) */
    double t;
    int rank; /* receiver (for receives) */
} ea_key;

static int key_cmp(const ea_key *x, const ea_key *y) {
    if (x->a != y->a) return x->a < y->a ? -1 : 1;
    if (x->b != y->b) return x->b < y->b ? -1 : 1;
    if (x->comm != y->comm) return x->comm < y->comm ? -1 : 1;
    if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
    return 0;
}

static int ea_cmp(const void *p, const void *q) {
    const ea_key *x = p, *y = q;
    int c = key_cmp(x, y);
    if (c) return c;
    return x->pos < y->pos ? -1 : x->pos > y->pos ? 1 : 0;
}

int ac_early_arrival(const ac_ea_send *s, size_t ns, const ac_ea_recv *r, size_t nr, int nprocs,
                     ac_ea_proc *out, double *avg_pct, int64_t *bad) {
    if (bad) *bad = INT64_MIN;
    if (nprocs < 0 || !out || (ns && !s) || (nr && !r)) return -1;
    for (size_t i = 0; i < ns; i++)
        if (s[i].src < 0 || s[i].src >= nprocs || s[i].dst < 0 || s[i].dst >= nprocs) {
            if (bad) *bad = (int64_t)i;
            return -1;
        }
    for (size_t i = 0; i < nr; i++)
        if (r[i].rank < 0 || r[i].rank >= nprocs || r[i].src < 0 || r[i].src >= nprocs) {
            if (bad) *bad = -1 - (int64_t)i;
            return -1;
        }
    ea_key *ks = malloc((ns ? ns : 1) * sizeof *ks), *kr = malloc((nr ? nr : 1) * sizeof *kr);
    if (!ks || !kr) {
        free(ks);
        free(kr);
        return -1;
    }
    for (size_t i = 0; i < ns; i++)
        ks[i] = (ea_key){s[i].src, s[i].dst, s[i].comm, s[i].tag, i, s[i].t, s[i].dst};
    for (size_t i = 0; i < nr; i++)
        kr[i] = (ea_key){r[i].src, r[i].rank, r[i].comm, r[i].tag, i, r[i].t, r[i].rank};
    qsort(ks, ns, sizeof *ks, ea_cmp);
    qsort(kr, nr, sizeof *kr, ea_cmp);
    for (int p = 0; p < nprocs; p++)
        out[p] = (ac_ea_proc){0, 0, 0, 0};
    for (size_t i = 0; i < nr; i++)
        out[r[i].rank].recvs++;
    /* Merge: within equal keys, the j-th send pairs with the j-th receive. */
    size_t i = 0, j = 0;
    while (i < ns && j < nr) {
        int c = key_cmp(&ks[i], &kr[j]);
        if (c < 0) {
            i++;
        } else if (c > 0) {
            j++;
        } else {
            ac_ea_proc *o = &out[kr[j].rank];
            if (isnan(kr[j].t)) { /* paired to keep the order, but no time to compare */
                o->untimed++;
            } else {
                o->matched++;
                o->early += kr[j].t < ks[i].t;
            }
            i++;
            j++;
        }
    }
    free(ks);
    free(kr);
    if (avg_pct) {
        double sum = 0;
        int used = 0;
        for (int p = 0; p < nprocs; p++)
            if (out[p].matched > 0) {
                sum += 100.0 * (double)out[p].early / (double)out[p].matched;
                used++;
            }
        *avg_pct = used ? sum / used : NAN;
    }
    return 0;
}
