/*
 * Process arrival patterns per (communicator, collective, call site): the records of every rank
 * matched into invocations and summarised.
 *
 * Source: seed 000 §4.2.1-4.2.4 (spec star-stage-ethernet.md §6.1 definitions, §6.2
 * measurement: entry and exit of every collective on every rank, post-mortem; §6.3 finding 5:
 * patterns are stable per call site, so statistics are kept per call site). Per invocation
 * (ac_arrival_stats): average-case imbalance mean |a_i - a-bar|, worst-case imbalance
 * max a_i - min a_i, factors = imbalance / T with T = alpha + beta n the time to send one
 * message of the call's size n (alpha, beta measured by ping-pong at MPI_Init), balanced iff the
 * worst-case factor is below 1. A group reports the means of these over its invocations, the
 * largest worst-case imbalance, the balanced/imbalanced split and the rank that arrived last
 * most often.
 *
 * Matching. A record carries its communicator key (the world rank of the communicator's rank 0
 * and that rank's number for it: the same on every member), its call number on the
 * communicator (the same on every member), its rank in the communicator and the communicator's
 * size. An invocation is the set of samples with one (key, call number); it is complete when it
 * holds one sample of every rank. Incomplete invocations (a ring that dropped records on some
 * rank, a missing file) are counted and left out of the statistics. The group key is the
 * communicator, the collective and the call site of the communicator's rank 0 (ranks may call
 * from different sites; rank 0 names the group).
 *
 * Phases (ac_arrival_groups_windows; spec §6.3 finding 5, issue "see what the collectives do"):
 * the statistics above per window of W consecutive complete calls of a group, in call order;
 * W is given or chosen so that a group has about ten windows (at least 10 calls each). A window
 * whose mean worst-case factor is imbalanced (>= 1) and above twice the median of the group's
 * windows is a spike; the rest of the run is the stable pattern the spec describes.
 *
 * Cost: O(S log S) for S samples (one sort), O(G) memory per group, G groups found by a linear
 * scan with a one-entry cache (programs have few call sites); with phases O(C) more memory for
 * C complete calls and O(C + W' log W') per group for W' windows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "trace.h"

uint64_t ac_trace_str_hash(const char *s) {
    uint64_t h = 14695981039346656037ULL;
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h ? h : 1;
}

/* One complete call of a group (phases). */
typedef struct ac_arr_call {
    uint64_t seq;
    ac_arrival_t st;
} ac_arr_call_t;

static int cmp_sample(const void *x, const void *y) {
    const ac_arr_sample_t *a = x, *b = y;
    if (a->leader != b->leader) return a->leader < b->leader ? -1 : 1;
    if (a->comm != b->comm) return a->comm < b->comm ? -1 : 1;
    if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
    if (a->crank != b->crank) return a->crank < b->crank ? -1 : 1;
    return 0;
}

static ac_arr_group_t *group_of(ac_arr_group_t **g, size_t *ng, size_t *cap, size_t *hint,
                                const ac_arr_sample_t *s) {
    for (size_t k = 0; k <= *ng; k++) {
        size_t i = k == 0 ? *hint : k - 1;
        if (i >= *ng) continue;
        ac_arr_group_t *x = &(*g)[i];
        if (x->leader == s->leader && x->comm == s->comm && x->kind == s->kind &&
            x->site == s->site) {
            *hint = i;
            return x;
        }
    }
    if (*ng == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        ac_arr_group_t *n = realloc(*g, nc * sizeof *n);
        if (!n) return NULL;
        *g = n;
        *cap = nc;
    }
    ac_arr_group_t *x = &(*g)[*ng];
    memset(x, 0, sizeof *x);
    x->leader = s->leader;
    x->comm = s->comm;
    x->kind = s->kind;
    x->site = s->site;
    x->inst = s->inst;
    x->csize = s->csize;
    x->late_rank = -1;
    x->late_counts = calloc((size_t)s->csize, sizeof *x->late_counts);
    if (!x->late_counts) return NULL;
    *hint = (*ng)++;
    return x;
}

void ac_arrival_groups_free(ac_arr_group_t *g, size_t ng) {
    for (size_t i = 0; g && i < ng; i++) {
        free(g[i].late_counts);
        free(g[i].win);
        free(g[i].cs);
    }
    free(g);
}

/* The end of the invocation that starts at s[i] (samples sorted by cmp_sample). */
static size_t invocation_end(const ac_arr_sample_t *s, size_t n, size_t i) {
    size_t j = i + 1;
    while (j < n && s[j].leader == s[i].leader && s[j].comm == s[i].comm && s[j].seq == s[i].seq)
        j++;
    return j;
}

/* 1 when s[i..j) holds one sample of every rank of the communicator, in rank order. */
static int invocation_complete(const ac_arr_sample_t *s, size_t i, size_t j) {
    int p = s[i].csize, complete = p >= 1 && (size_t)p == j - i;
    for (size_t k = i; complete && k < j; k++)
        complete = s[k].crank == (int)(k - i) && s[k].csize == p && s[k].kind == s[i].kind;
    return complete;
}

/* Statistics of the complete invocation s[i..j) (a, f: room for its size). */
static int invocation_stats(const ac_arr_sample_t *s, size_t i, size_t j, double alpha, double beta,
                            double *a, double *f, ac_arrival_t *st) {
    for (size_t k = i; k < j; k++) {
        a[k - i] = (double)(s[k].t_in - s[i].t_in) * 1e-9; /* relative: exact in double */
        f[k - i] = (double)(s[k].t_out - s[i].t_in) * 1e-9;
    }
    return ac_arrival_stats(a, f, (int)(j - i), alpha + beta * (double)s[i].bytes, st);
}

static int groups(ac_arr_sample_t *s, size_t n, double alpha, double beta, int phases,
                  ac_arr_group_t **out, size_t *nout) {
    *out = NULL;
    *nout = 0;
    if ((n && !s) || !(alpha > 0) || !(beta >= 0) || !isfinite(alpha) || !isfinite(beta)) return -1;
    qsort(s, n, sizeof *s, cmp_sample);
    ac_arr_group_t *g = NULL;
    size_t ng = 0, cap = 0, hint = 0, maxp = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].csize > 0 && (size_t)s[i].csize > maxp) maxp = (size_t)s[i].csize;
    double *a = malloc((maxp ? maxp : 1) * sizeof *a), *f = malloc((maxp ? maxp : 1) * sizeof *f);
    if (!a || !f) goto fail;
    for (size_t i = 0, j; i < n; i = j) {
        j = invocation_end(s, n, i);
        const ac_arr_sample_t *r0 = &s[i];
        int p = r0->csize, complete = invocation_complete(s, i, j);
        if (r0->crank != 0 || p < 1) { /* rank 0's sample is missing: no group name */
            if (ng) g[hint].incomplete++;
            continue;
        }
        ac_arr_group_t *x = group_of(&g, &ng, &cap, &hint, r0);
        if (!x) goto fail;
        if (!complete || x->csize != p) {
            x->incomplete++;
            continue;
        }
        ac_arrival_t st;
        if (invocation_stats(s, i, j, alpha, beta, a, f, &st) != 0) {
            x->incomplete++;
            continue;
        }
        x->calls++;
        x->bytes += (double)r0->bytes;
        x->elapsed += st.mean_elapsed;
        x->avg_imb += st.avg_imb;
        x->worst_imb += st.worst_imb;
        x->avg_factor += st.avg_factor;
        x->worst_factor += st.worst_factor;
        if (st.worst_imb > x->max_worst_imb) x->max_worst_imb = st.worst_imb;
        if (st.worst_factor > x->max_worst_factor) x->max_worst_factor = st.worst_factor;
        x->balanced += st.balanced;
        if (p > 1) x->late_counts[st.last]++;
        if (s[i].inst != x->inst) x->inst_varied = 1;
        if (phases) {
            if (x->ncs == x->capcs) {
                size_t nc = x->capcs ? 2 * x->capcs : 64;
                ac_arr_call_t *ncs = realloc(x->cs, nc * sizeof *ncs);
                if (!ncs) goto fail;
                x->cs = ncs;
                x->capcs = nc;
            }
            x->cs[x->ncs++] = (ac_arr_call_t){r0->seq, st};
        }
    }
    for (size_t i = 0; i < ng; i++) {
        ac_arr_group_t *x = &g[i];
        if (x->calls) {
            double c = (double)x->calls;
            x->bytes /= c;
            x->elapsed /= c;
            x->avg_imb /= c;
            x->worst_imb /= c;
            x->avg_factor /= c;
            x->worst_factor /= c;
        }
        for (int r = 0; r < x->csize; r++)
            if (x->late_counts[r] > x->late_count) {
                x->late_count = x->late_counts[r];
                x->late_rank = r;
            }
    }
    free(a);
    free(f);
    *out = g;
    *nout = ng;
    return 0;
fail:
    free(a);
    free(f);
    ac_arrival_groups_free(g, ng);
    return -1;
}

int ac_arrival_calls(ac_arr_sample_t *s, size_t n, double alpha, double beta, int (*keep)(int src),
                     ac_arr_callstat_t **out, size_t *nout) {
    *out = NULL;
    *nout = 0;
    if ((n && !s) || !(alpha > 0) || !(beta >= 0) || !isfinite(alpha) || !isfinite(beta)) return -1;
    qsort(s, n, sizeof *s, cmp_sample);
    size_t maxp = 1, m = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].csize > 0 && (size_t)s[i].csize > maxp) maxp = (size_t)s[i].csize;
    double *a = malloc(maxp * sizeof *a), *f = malloc(maxp * sizeof *f);
    ac_arr_callstat_t *c = malloc((n ? n : 1) * sizeof *c);
    if (!a || !f || !c) {
        free(a);
        free(f);
        free(c);
        return -1;
    }
    for (size_t i = 0, j; i < n; i = j) {
        j = invocation_end(s, n, i);
        const ac_arr_sample_t *r0 = &s[i];
        ac_arrival_t st;
        if ((keep && !keep(r0->src)) || !invocation_complete(s, i, j) ||
            invocation_stats(s, i, j, alpha, beta, a, f, &st) != 0)
            continue;
        c[m++] = (ac_arr_callstat_t){.leader = r0->leader,
                                     .root = r0->root,
                                     .comm = r0->comm,
                                     .kind = (int16_t)r0->kind,
                                     .src = r0->src,
                                     .flags = r0->flags,
                                     .bytes = r0->bytes,
                                     .worst_imb = st.worst_imb,
                                     .avg_factor = st.avg_factor,
                                     .worst_factor = st.worst_factor};
    }
    free(a);
    free(f);
    *out = c;
    *nout = m;
    return 0;
}

size_t ac_arrival_group_factors(const ac_arr_group_t *g, double *worst, double *avg) {
    for (size_t i = 0; i < g->ncs; i++) {
        if (worst) worst[i] = g->cs[i].st.worst_factor;
        if (avg) avg[i] = g->cs[i].st.avg_factor;
    }
    return g->ncs;
}

int ac_arrival_groups(ac_arr_sample_t *s, size_t n, double alpha, double beta, ac_arr_group_t **out,
                      size_t *nout) {
    return groups(s, n, alpha, beta, 0, out, nout);
}

/* Cuts group x's calls (in call order) into windows of w calls. */
static int make_windows(ac_arr_group_t *x, int w) {
    size_t nw = (x->ncs + (size_t)w - 1) / (size_t)w;
    x->window = w;
    if (!nw) return 0;
    x->win = calloc(nw, sizeof *x->win);
    uint64_t *late = calloc((size_t)x->csize, sizeof *late);
    double *wf = malloc(nw * sizeof *wf);
    if (!x->win || !late || !wf) {
        free(late);
        free(wf);
        return -1;
    }
    x->nwin = nw;
    for (size_t k = 0; k < nw; k++) {
        ac_arr_window_t *o = &x->win[k];
        size_t a = k * (size_t)w, b = a + (size_t)w < x->ncs ? a + (size_t)w : x->ncs;
        memset(late, 0, (size_t)x->csize * sizeof *late);
        o->first_seq = x->cs[a].seq;
        o->last_seq = x->cs[b - 1].seq;
        o->late_rank = -1;
        for (size_t i = a; i < b; i++) {
            const ac_arrival_t *st = &x->cs[i].st;
            o->calls++;
            o->balanced += st->balanced;
            o->elapsed += st->mean_elapsed;
            o->avg_imb += st->avg_imb;
            o->worst_imb += st->worst_imb;
            o->avg_factor += st->avg_factor;
            o->worst_factor += st->worst_factor;
            if (st->worst_imb > o->max_worst_imb) o->max_worst_imb = st->worst_imb;
            if (x->csize > 1 && st->last >= 0 && st->last < x->csize) late[st->last]++;
        }
        double c = (double)o->calls;
        o->elapsed /= c;
        o->avg_imb /= c;
        o->worst_imb /= c;
        o->avg_factor /= c;
        o->worst_factor /= c;
        for (int r = 0; r < x->csize; r++)
            if (late[r] > o->late_count) {
                o->late_count = late[r];
                o->late_rank = r;
            }
        wf[k] = o->worst_factor;
    }
    qsort(wf, nw, sizeof *wf, ac_dbl_cmp);
    x->win_median = nw % 2 ? wf[nw / 2] : 0.5 * (wf[nw / 2 - 1] + wf[nw / 2]);
    for (size_t k = 0; k < nw; k++) {
        ac_arr_window_t *o = &x->win[k];
        o->spike = o->worst_factor >= 1 && o->worst_factor > 2 * x->win_median;
        x->nspike += (size_t)o->spike;
    }
    free(late);
    free(wf);
    return 0;
}

int ac_arrival_groups_windows(ac_arr_sample_t *s, size_t n, double alpha, double beta, int window,
                              ac_arr_group_t **out, size_t *nout) {
    if (groups(s, n, alpha, beta, 1, out, nout) != 0) return -1;
    for (size_t i = 0; i < *nout; i++) {
        ac_arr_group_t *x = &(*out)[i];
        int w = window;
        if (w <= 0) {
            size_t a = (x->ncs + 9) / 10;
            w = a < 10 ? 10 : a > (size_t)INT32_MAX ? INT32_MAX : (int)a;
        }
        if (make_windows(x, w) != 0) {
            ac_arrival_groups_free(*out, *nout);
            *out = NULL;
            *nout = 0;
            return -1;
        }
    }
    return 0;
}

size_t ac_arrival_samples_from_file(const ac_trace_file_t *t, ac_arr_sample_t *out) {
    size_t n = 0;
    int global = (t->flags & AC_TRACE_FLAG_GLOBAL_CLOCK) != 0;
    for (uint64_t i = 0; i < t->nrec; i++) {
        const ac_trace_rec_t *r = &t->rec[i];
        if (r->kind >= AUTOCOLL_NCOLL || r->comm == AC_TRACE_NOID || r->count < 1 || r->ident < 0 ||
            r->ident >= r->count)
            continue;
        ac_arr_sample_t *x = &out[n++];
        int64_t tin = global ? r->t_in : ac_trace_clock_correct(t->clock, r->t_in);
        int64_t tout = global ? r->t_out : ac_trace_clock_correct(t->clock, r->t_out);
        x->leader = r->peer;
        x->comm = r->comm;
        x->seq = r->seq;
        x->kind = r->kind;
        x->crank = r->ident;
        x->csize = r->count;
        x->bytes = r->bytes;
        x->root = r->root;
        x->src = r->src;
        x->flags = r->flags;
        x->site = r->site < t->nstr ? ac_trace_str_hash(t->str[r->site]) : 0;
        x->inst = r->inst < t->nstr ? ac_trace_str_hash(t->str[r->inst]) : 0;
        x->t_in = tin;
        x->t_out = tout;
        x->world = t->rank;
    }
    return n;
}
