/*
 * The MPI side of tracing: settings at MPI_Init, clock offsets to rank 0 (estimated at init and
 * at finalize by minimum round-trip ping-pongs, src/trace/trace_clock.c), the network model of
 * the imbalance factors, the communicator keys, the arrival-pattern summary at MPI_Finalize
 * (AUTOCOLL_VERBOSE), autocoll_arrival_patterns, and the trace file at MPI_Finalize. Sources:
 * issue 20; seed 000 §4.2 (spec star-stage-ethernet.md §6.1 definitions, §6.2 measurement).
 *
 * Clock offsets: rank 0 answers every other rank in turn, AC_TRACE_PINGS ping-pongs each, on the
 * private duplicate of MPI_COMM_WORLD with a tag below the call tag ranges (AC_TAG_BASE), so no
 * application or collective message can match. Cost: (p - 1) x AC_TRACE_PINGS round trips at
 * init and at finalize, only when tracing is on. Skipped under SimGrid (one simulated clock) and
 * when the settings are not known to agree (MPI initialised without our MPI_Init: only local
 * settings, a collective step could hang).
 *
 * Arrival patterns: every rank turns its collective records into samples on rank 0's clock,
 * rank 0 gathers them (one PMPI_Gatherv of 72 bytes per record) and groups them
 * (src/trace/trace_summary.c). Cost O(R log R) for R records in all, at finalize or per call
 * of autocoll_arrival_patterns.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmpi.h"
#include "../select/adapt.h"
#include "../select/netmeasure.h"
#include "../trace/trace.h"

enum { AC_TRACE_PINGS = 20, AC_TRACE_CLOCK_TAG = AC_TAG_BASE - 7 };

typedef struct {
    MPI_Comm comm;
} pp_t;

static int pingpong(void *arg, double *t0, double *tr, double *t1) {
    pp_t *p = arg;
    char c = 0;
    *t0 = (double)ac_trace_now() * 1e-9;
    if (PMPI_Send(&c, 1, MPI_CHAR, 0, AC_TRACE_CLOCK_TAG, p->comm) != MPI_SUCCESS) return 1;
    if (PMPI_Recv(tr, 1, MPI_DOUBLE, 0, AC_TRACE_CLOCK_TAG, p->comm, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS)
        return 1;
    *t1 = (double)ac_trace_now() * 1e-9;
    return 0;
}

/* The trace clock is CLOCK_MONOTONIC of each host (ac_trace_now), whatever MPI_WTIME_IS_GLOBAL
 * says of MPI_Wtime; only SimGrid's simulated clock is one for all ranks. */
static int global_clock(void) {
#ifdef AC_SMPI
    return 1;
#else
    return 0;
#endif
}

/* Estimate number which (0 init, 1 finalize); collective over MPI_COMM_WORLD. */
static void sync_clocks(int which) {
    if (global_clock()) {
        ac_trace_set_global_clock();
        return;
    }
    ac_ctx_t *ctx = NULL;
    if (ac_ctx_get(MPI_COMM_WORLD, &ctx) != MPI_SUCCESS) return; /* agreed: no context anywhere */
    pp_t pp = {ctx->comm};
    if (ctx->rank == 0) {
        ac_trace_set_clock(which, (double)ac_trace_now() * 1e-9, 0, 0);
        for (int r = 1; r < ctx->size; r++)
            for (int k = 0; k < AC_TRACE_PINGS; k++) {
                char c;
                PMPI_Recv(&c, 1, MPI_CHAR, r, AC_TRACE_CLOCK_TAG, ctx->comm, MPI_STATUS_IGNORE);
                double now = (double)ac_trace_now() * 1e-9;
                PMPI_Send(&now, 1, MPI_DOUBLE, r, AC_TRACE_CLOCK_TAG, ctx->comm);
            }
    } else {
        double at = (double)ac_trace_now() * 1e-9, off = 0, res = -1;
        ac_trace_clock_offset(pingpong, &pp, AC_TRACE_PINGS, &off, &res);
        ac_trace_set_clock(which, at, off, res);
    }
}

static int configured; /* tracing asked for, with settings agreed on every rank */
static double net_alpha = 1e-6, net_beta = 1e-9; /* T(n) = alpha + beta n */
static int agreed; /* and started on every rank: communicator keys are agreed */

void ac_trace_mpi_setup(int collective) {
    ac_trace_cfg_t c;
    char err[1024];
    int me = ac_g.world_rank, p = 1;
    PMPI_Comm_size(MPI_COMM_WORLD, &p);
    /* The settings are rank 0's everywhere (collective): rank 0 speaks for all. */
    if (ac_trace_cfg_parse(&c, ac_g.set.trace, ac_g.set.trace_records, ac_g.set.trace_dir, err,
                           sizeof err) &&
        (me == 0 || !collective))
        ac_trace_log_lines(err);
    int failed = ac_trace_init_cfg(&c, me, p, err, sizeof err) != 0;
    if (failed && (me == 0 || !collective)) ac_trace_log_lines(err);
    if (!failed) ac_trace_p2p_calibrate(); /* spec 2.3: nothing recorded yet */
    if (!collective || !c.mask) return;
    /* An allocation or directory failure on some rank must not make the others wait in the
     * clock ping-pongs: agree first. */
    configured = 1;
    int on = !failed, all = 0;
    PMPI_Allreduce(&on, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all) {
        agreed = 1;
        sync_clocks(0);
        ac_ctx_t *w = NULL;
        if (ac_ctx_get(MPI_COMM_WORLD, &w) == MPI_SUCCESS) { /* T of the arrival factors */
            ac_net_t net;
            ac_net_measure(w, &net, 1, NULL); /* the light measurement: enough for T */
            int multi = w->nnodes > 1;
            net_alpha = multi ? net.a_inter : net.a_intra;
            net_beta = multi ? net.b_inter : net.b_intra;
            ac_trace_set_net(net_alpha, net_beta);
        }
        return;
    }
    /* Traced and untraced ranks would disagree on the communicator keys (one broadcast at the
     * first traced call on a communicator): tracing is off everywhere. */
    configured = 0;
    ac_trace_abandon();
    if (me == 0)
        ac_log("tracing is off on every rank: it could not start on some (AUTOCOLL_TRACE_DIR "
               "not writable there, or out of memory; each such rank said why)");
}

long long ac_trace_comm_key(ac_ctx_t *ctx) {
    if (ctx->trace_key) return ctx->trace_key;
    long long key = 0;
    if (agreed) {
        key = ctx->rank == 0 ? ((long long)(ac_g.world_rank + 1) << 32) | (uint32_t)ctx->id : 0;
        PMPI_Bcast(&key, 1, MPI_LONG_LONG, 0, ctx->comm);
    } else {
        key = (long long)(uint32_t)ctx->id; /* leader unknown: peer -1 in the records */
    }
    ctx->trace_key = key;
    return key;
}

/* This rank's traced collective calls as samples (clock offsets applied); *n of them. */
static ac_arr_sample_t *local_samples(size_t *n) {
    *n = 0;
    uint64_t cnt = ac_trace_ring_count(&ac_trace_g);
    ac_arr_sample_t *s = malloc((cnt ? cnt : 1) * sizeof *s);
    uint64_t *h = calloc(AC_TRACE_MAX_IDS, sizeof *h);
    if (!s || !h) {
        free(s);
        free(h);
        return NULL;
    }
    ac_trace_clock_t clk[2];
    ac_trace_get_clock(clk);
    char buf[600];
    for (uint64_t i = 0; i < cnt; i++) {
        const ac_trace_rec_t *r = ac_trace_ring_at(&ac_trace_g, i);
        if (r->kind >= AUTOCOLL_NCOLL || r->comm == AC_TRACE_NOID || r->count < 1) continue;
        ac_arr_sample_t *x = &s[(*n)++];
        uint64_t hs[2] = {0, 0};
        uint32_t id[2] = {r->site, r->inst};
        for (int k = 0; k < 2; k++)
            if (id[k] < AC_TRACE_MAX_IDS) {
                if (!h[id[k]] && ac_trace_id_string(id[k], buf, sizeof buf) == 0)
                    h[id[k]] = ac_trace_str_hash(buf);
                hs[k] = h[id[k]];
            }
        *x = (ac_arr_sample_t){.leader = r->peer,
                               .comm = r->comm,
                               .seq = r->seq,
                               .kind = r->kind,
                               .crank = r->ident,
                               .csize = r->count,
                               .world = ac_g.world_rank,
                               .bytes = r->bytes,
                               .site = hs[0],
                               .inst = hs[1],
                               .t_in = ac_trace_clock_correct(clk, r->t_in),
                               .t_out = ac_trace_clock_correct(clk, r->t_out),
                               .root = r->root,
                               .src = r->src,
                               .flags = r->flags};
    }
    free(h);
    return s;
}

/* The string of this rank's id whose string hashes to h ("" when none). */
static void label(uint64_t h, char *buf, size_t len) {
    char b[600];
    for (uint32_t id = 0; id < AC_TRACE_MAX_IDS && ac_trace_id_string(id, b, sizeof b) == 0; id++)
        if (ac_trace_str_hash(b) == h) {
            snprintf(buf, len, "%s", b);
            return;
        }
    snprintf(buf, len, "%s", h ? "?" : "");
}

/* Every rank's samples on rank 0 (collective over MPI_COMM_WORLD; tracing on and agreed): on
 * rank 0 *every holds *total of them (free). Returns 0 on every rank, or -1 on every rank
 * (out of memory somewhere). */
static int gather_samples(ac_arr_sample_t **every_out, size_t *total_out) {
    *every_out = NULL;
    *total_out = 0;
    int me = ac_g.world_rank, p = 1;
    PMPI_Comm_size(MPI_COMM_WORLD, &p);
    size_t n = 0;
    ac_arr_sample_t *mine = local_samples(&n);
    int bytes = mine && n * sizeof *mine <= (size_t)INT32_MAX / 2 ? (int)(n * sizeof *mine) : -1;
    int *cnt = me == 0 ? calloc((size_t)p, sizeof *cnt) : NULL,
        *dis = me == 0 ? calloc((size_t)p, sizeof *dis) : NULL;
    int ok = bytes >= 0 && (me != 0 || (cnt && dis)), all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    ac_arr_sample_t *every = NULL;
    size_t total = 0;
    if (all) {
        PMPI_Gather(&bytes, 1, MPI_INT, cnt, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (me == 0) {
            long long sum = 0;
            for (int r = 0; r < p; r++) {
                dis[r] = (int)sum;
                sum += cnt[r];
            }
            ok = sum <= INT32_MAX && (every = malloc(sum ? (size_t)sum : 1)) != NULL;
            total = (size_t)sum / sizeof *every;
        }
        PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (ok) PMPI_Gatherv(mine, bytes, MPI_BYTE, every, cnt, dis, MPI_BYTE, 0, MPI_COMM_WORLD);
        all = ok;
    }
    free(mine);
    free(cnt);
    free(dis);
    if (!all) {
        free(every);
        return -1;
    }
    *every_out = every;
    *total_out = total;
    return 0;
}

/* Every rank's samples grouped on rank 0 (collective over MPI_COMM_WORLD; tracing on and
 * agreed). On rank 0 *g and *ng hold the groups (0: done, -1: out of memory somewhere).
 * window < 0: no phases; otherwise the window of ac_arrival_groups_windows. */
static int gather_groups(ac_arr_group_t **g, size_t *ng, int window) {
    *g = NULL;
    *ng = 0;
    ac_arr_sample_t *every = NULL;
    size_t total = 0;
    int rc = gather_samples(&every, &total);
    if (rc == 0 && ac_g.world_rank == 0 &&
        (window < 0
             ? ac_arrival_groups(every, total, net_alpha, net_beta, g, ng)
             : ac_arrival_groups_windows(every, total, net_alpha, net_beta, window, g, ng)) != 0)
        rc = -1;
    free(every);
    return rc;
}

static int chosen_by_engine(int src) {
    return src == AC_SRC_ADAPTIVE || src == AC_SRC_PROBE;
}

/* The adaptive engine's share of the samples (collective over MPI_COMM_WORLD; rank 0 holds
 * every sample): the statistics of each complete invocation it chose, computed on rank 0 and
 * broadcast (40 bytes per call), handed to the engine for its summary (ac_adapt_arrivals). A
 * failure anywhere leaves the engine's lines without the arrival part. */
static void engine_arrivals(ac_arr_sample_t *every, size_t total) {
    ac_arr_callstat_t *c = NULL;
    size_t n = 0;
    long long m = -1;
    if (ac_g.world_rank == 0 &&
        ac_arrival_calls(every, total, net_alpha, net_beta, chosen_by_engine, &c, &n) == 0 &&
        n * sizeof *c <= (size_t)INT32_MAX)
        m = (long long)n;
    PMPI_Bcast(&m, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (m < 0) {
        free(c);
        return;
    }
    int ok = 1, all = 0;
    if (ac_g.world_rank != 0) ok = (c = malloc(m ? (size_t)m * sizeof *c : 1)) != NULL;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        free(c);
        return;
    }
    if (m) PMPI_Bcast(c, (int)((size_t)m * sizeof *c), MPI_BYTE, 0, MPI_COMM_WORLD);
    ac_adapt_arrivals(c, (size_t)m);
}

/* The phases of each group with two windows or more (docs/tracing.md): one line per group, one
 * per spike window. */
static void phases_summary(const ac_arr_group_t *g, size_t ng) {
    int head = 0;
    for (size_t i = 0; i < ng; i++) {
        const ac_arr_group_t *x = &g[i];
        if (x->nwin < 2) continue;
        if (!head++)
            ac_log("arrival phases (windows of consecutive calls; a spike is a window whose mean "
                   "worst-case factor is >= 1 and above twice the median): comm collective site "
                   "calls_per_window windows median_worst_factor min max spikes");
        char site[600];
        label(x->site, site, sizeof site);
        double lo = x->win[0].worst_factor, hi = lo;
        for (size_t k = 1; k < x->nwin; k++) {
            if (x->win[k].worst_factor < lo) lo = x->win[k].worst_factor;
            if (x->win[k].worst_factor > hi) hi = x->win[k].worst_factor;
        }
        ac_log("phases %d.%u %s %s %d %zu %.2f %.2f %.2f %zu", x->leader, x->comm,
               ac_coll_name(x->kind), site, x->window, x->nwin, x->win_median, lo, hi, x->nspike);
        for (size_t k = 0, shown = 0; k < x->nwin && shown < 16; k++) {
            const ac_arr_window_t *w = &x->win[k];
            if (!w->spike) continue;
            shown++;
            ac_log("spike %d.%u %s %s calls %llu-%llu worst_factor %.2f worst_imb %.2f us "
                   "latest %d:%llu",
                   x->leader, x->comm, ac_coll_name(x->kind), site,
                   (unsigned long long)w->first_seq, (unsigned long long)w->last_seq,
                   w->worst_factor, w->worst_imb * 1e6, w->late_rank,
                   (unsigned long long)w->late_count);
        }
    }
}

static void summary(void) {
    ac_arr_group_t *g = NULL;
    size_t ng = 0;
    ac_arr_sample_t *every = NULL;
    size_t total = 0;
    int rc = gather_samples(&every, &total); /* the same on every rank */
    if (rc == 0) engine_arrivals(every, total);
    if (rc == 0 && ac_g.world_rank == 0 &&
        ac_arrival_groups_windows(every, total, net_alpha, net_beta, 0, &g, &ng) != 0)
        rc = -1;
    free(every);
    if (rc != 0) {
        if (ac_g.world_rank == 0) ac_log("arrival patterns: out of memory, no summary");
        return;
    }
    if (ac_g.world_rank != 0) return;
    ac_log("arrival patterns (T = %.3g us + %.3g ns/B; times in us; clocks corrected): comm "
           "collective site p calls mean_B mean_time avg_imb worst_imb max_worst avg_factor "
           "worst_factor balanced imbalanced latest(rank:calls) incomplete",
           net_alpha * 1e6, net_beta * 1e9);
    for (size_t i = 0; i < ng; i++) {
        const ac_arr_group_t *x = &g[i];
        char site[600];
        label(x->site, site, sizeof site);
        ac_log("arrival %d.%u %s %s %d %llu %.0f %.2f %.2f %.2f %.2f %.2f %.2f %llu %llu %d:%llu "
               "%llu",
               x->leader, x->comm, ac_coll_name(x->kind), site, x->csize,
               (unsigned long long)x->calls, x->bytes, x->elapsed * 1e6, x->avg_imb * 1e6,
               x->worst_imb * 1e6, x->max_worst_imb * 1e6, x->avg_factor, x->worst_factor,
               (unsigned long long)x->balanced, (unsigned long long)(x->calls - x->balanced),
               x->late_rank, (unsigned long long)x->late_count, (unsigned long long)x->incomplete);
    }
    phases_summary(g, ng);
    ac_arrival_groups_free(g, ng);
}

/* The end of a public arrival call: world rank 0's status (0 done, 1 bad argument, else out of
 * memory) and count reach every rank, with the first min(count, max) items of out (size bytes
 * each). Collective over MPI_COMM_WORLD. */
static int share_from_root(int rc, int *count, void *out, int max, size_t size) {
    int v[2] = {rc, *count};
    PMPI_Bcast(v, 2, MPI_INT, 0, MPI_COMM_WORLD);
    *count = v[1];
    int nb = *count < max ? *count : max;
    if (v[0] == 0 && nb > 0) PMPI_Bcast(out, nb * (int)size, MPI_BYTE, 0, MPI_COMM_WORLD);
    return v[0] == 0 ? MPI_SUCCESS : v[0] == 1 ? MPI_ERR_ARG : MPI_ERR_NO_MEM;
}

AC_EXPORT int autocoll_arrival_patterns(autocoll_arrival_t *out, int max, int *count) {
    if (count) *count = 0;
    if (max < 0 || (max > 0 && !out) || !count) return MPI_ERR_ARG;
    int fin = 0;
    PMPI_Finalized(&fin);
    if (!agreed || fin || !ac_trace_g.rec || !(ac_trace_mask & AC_TRACE_COLL))
        return MPI_ERR_OTHER; /* collective tracing is off */
    ac_arr_group_t *g = NULL;
    size_t ng = 0;
    int rc = gather_groups(&g, &ng, -1), n = 0;
    if (ac_g.world_rank == 0 && rc == 0) {
        n = ng < (size_t)max ? (int)ng : max;
        for (int i = 0; i < n; i++) {
            const ac_arr_group_t *x = &g[i];
            autocoll_arrival_t *o = &out[i];
            memset(o, 0, sizeof *o);
            o->coll = x->kind;
            o->comm_leader = x->leader;
            o->comm_id = (long)x->comm;
            o->comm_size = x->csize;
            label(x->site, o->site, sizeof o->site);
            label(x->inst, o->instance, sizeof o->instance);
            o->calls = x->calls;
            o->incomplete = x->incomplete;
            o->balanced = x->balanced;
            o->bytes = x->bytes;
            o->mean_time = x->elapsed;
            o->avg_imbalance = x->avg_imb;
            o->worst_imbalance = x->worst_imb;
            o->max_worst_imbalance = x->max_worst_imb;
            o->avg_factor = x->avg_factor;
            o->worst_factor = x->worst_factor;
            o->max_worst_factor = x->max_worst_factor;
            o->latest_rank = x->late_rank;
            o->latest_calls = x->late_count;
        }
        *count = (int)(ng < (size_t)INT32_MAX ? ng : INT32_MAX);
    }
    ac_arrival_groups_free(g, ng);
    return share_from_root(rc, count, out, max, sizeof *out);
}

AC_EXPORT int autocoll_arrival_windows(int group, int window, autocoll_arrival_window_t *out,
                                       int max, int *count) {
    if (count) *count = 0;
    if (max < 0 || (max > 0 && !out) || !count || group < 0) return MPI_ERR_ARG;
    int fin = 0;
    PMPI_Finalized(&fin);
    if (!agreed || fin || !ac_trace_g.rec || !(ac_trace_mask & AC_TRACE_COLL))
        return MPI_ERR_OTHER; /* collective tracing is off */
    ac_arr_group_t *g = NULL;
    size_t ng = 0;
    int rc = gather_groups(&g, &ng, window), n = 0;
    if (ac_g.world_rank == 0 && rc == 0) {
        if ((size_t)group >= ng) {
            rc = 1; /* not a group */
        } else {
            const ac_arr_group_t *x = &g[group];
            n = x->nwin < (size_t)max ? (int)x->nwin : max;
            for (int i = 0; i < n; i++) {
                const ac_arr_window_t *w = &x->win[i];
                autocoll_arrival_window_t *o = &out[i];
                memset(o, 0, sizeof *o);
                o->first_call = w->first_seq;
                o->last_call = w->last_seq;
                o->calls = w->calls;
                o->balanced = w->balanced;
                o->mean_time = w->elapsed;
                o->avg_imbalance = w->avg_imb;
                o->worst_imbalance = w->worst_imb;
                o->max_worst_imbalance = w->max_worst_imb;
                o->avg_factor = w->avg_factor;
                o->worst_factor = w->worst_factor;
                o->latest_rank = w->late_rank;
                o->latest_calls = w->late_count;
                o->spike = w->spike;
            }
            *count = (int)(x->nwin < (size_t)INT32_MAX ? x->nwin : INT32_MAX);
        }
    }
    ac_arrival_groups_free(g, ng);
    return share_from_root(rc, count, out, max, sizeof *out);
}

void ac_trace_mpi_teardown(void) {
    if (configured) { /* every rank is here: agree that every rank can take part */
        int on = ac_trace_g.rec != NULL, all = 0;
        PMPI_Allreduce(&on, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (all) sync_clocks(1);
        if (all && agreed && (ac_trace_mask & AC_TRACE_COLL) && ac_g.set.verbose >= 1) summary();
        configured = agreed = 0;
    }
    ac_trace_finalize(); /* writes the file; nothing when tracing is off */
    ac_trace_p2p_free();
}
