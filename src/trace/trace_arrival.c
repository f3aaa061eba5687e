/*
 * Process arrival patterns: the statistics of one collective invocation and the taxonomy of
 * algorithms and operations by their sensitivity to imbalance.
 *
 * Source: seed 000 §4.2.1 and §4.2.5 (spec star-stage-ethernet.md §6.1 definitions, §6.4
 * taxonomy). For n processes with arrival times a_i and exit times f_i:
 *   a-bar = sum a_i / n;  delta_i = |a_i - a-bar|;  average-case imbalance = sum delta_i / n;
 *   worst-case imbalance omega = max a_i - min a_i;  factors = imbalance / T, where T is the time
 *   to send one message of the operation's size;  balanced iff omega / T < 1;
 *   performance = average per-node time e-bar = sum (f_i - a_i) / n.
 * Cost: O(n) per invocation, two passes (the mean first, then the deviations: no cancellation
 * from a one-pass formula when arrival times are large absolute clock values).
 *
 * The times must be on one clock (offsets to rank 0 applied, ac_trace_clock_correct); the
 * uncertainty of omega is then at most the sum of the two ranks' residuals.
 */
#include "trace.h"
#include <math.h>
#include <string.h>

int ac_arrival_stats(const double *a, const double *f, int n, double T, ac_arrival_t *out) {
    memset(out, 0, sizeof *out);
    if (!a || n < 1 || !(T > 0) || !isfinite(T)) return -1;
    double sum = 0, lo = a[0], hi = a[0];
    int first = 0, last = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(a[i]) || (f && !isfinite(f[i]))) return -1;
        sum += a[i];
        if (a[i] < lo) lo = a[i], first = i;
        if (a[i] > hi) hi = a[i], last = i;
    }
    double mean = sum / n, dev = 0, el = 0;
    for (int i = 0; i < n; i++) {
        dev += fabs(a[i] - mean);
        if (f) el += f[i] - a[i];
    }
    out->n = n;
    out->mean_arrival = mean;
    out->avg_imb = dev / n;
    out->worst_imb = hi - lo;
    out->avg_factor = out->avg_imb / T;
    out->worst_factor = out->worst_imb / T;
    out->balanced = out->worst_factor < 1;
    out->mean_elapsed = f ? el / n : NAN;
    out->first = first;
    out->last = last;
    return 0;
}

const char *ac_arrival_class_name(ac_arrival_class_t c) {
    switch (c) {
    case AC_ARR_DIRECT:
        return "direct";
    case AC_ARR_STORE_FWD:
        return "store-and-forward";
    case AC_ARR_GLOBAL_COORD:
        return "globally coordinated";
    default:
        return "unknown";
    }
}

/* The taxonomy of spec 6.4 applied to the repository's algorithm names. The spec names: ring,
 * pair and bruck alltoall and rdb allgather as globally coordinated ("all phased algorithms"),
 * tree broadcasts and the logical-ring allgather as store-and-forward, simple alltoall and the
 * flat-tree broadcast as directly communicating; and the pipelined broadcast as a globally
 * synchronised algorithm. Families are matched by name prefix, so the synchronisation variants
 * (ring_lb, pair_nbar, ...: spec 2.0) share their family's class. Anything else is unknown
 * rather than guessed. */
typedef struct {
    int coll; /* -1: any collective */
    const char *prefix;
    ac_arrival_class_t cls;
} class_rule_t;

static const class_rule_t rules[] = {
    /* phased exchanges: every step waits for a partner chosen by a global schedule */
    {AUTOCOLL_ALLTOALL, "ring", AC_ARR_GLOBAL_COORD},
    {AUTOCOLL_ALLTOALL, "pair", AC_ARR_GLOBAL_COORD},
    {AUTOCOLL_ALLTOALL, "bruck", AC_ARR_GLOBAL_COORD},
    {AUTOCOLL_ALLTOALLV, "ring", AC_ARR_GLOBAL_COORD},
    {AUTOCOLL_ALLTOALLV, "pair", AC_ARR_GLOBAL_COORD},
    {AUTOCOLL_ALLGATHER, "rdb", AC_ARR_GLOBAL_COORD},
    {AUTOCOLL_ALLGATHER, "ring", AC_ARR_GLOBAL_COORD},
    {AUTOCOLL_ALLGATHER, "pair", AC_ARR_GLOBAL_COORD},
    {AUTOCOLL_ALLGATHER, "bruck", AC_ARR_GLOBAL_COORD},
    {AUTOCOLL_ALLGATHERV, "rdb", AC_ARR_GLOBAL_COORD},
    {AUTOCOLL_ALLGATHERV, "ring", AC_ARR_GLOBAL_COORD},
    {AUTOCOLL_ALLGATHERV, "pair", AC_ARR_GLOBAL_COORD},
    {AUTOCOLL_ALLGATHERV, "bruck", AC_ARR_GLOBAL_COORD},
    {AUTOCOLL_BCAST, "pipe_", AC_ARR_GLOBAL_COORD},
    /* store-and-forward: a late forwarder delays its subtree */
    {AUTOCOLL_ALLGATHER, "lr", AC_ARR_STORE_FWD},
    {AUTOCOLL_ALLGATHERV, "lr", AC_ARR_STORE_FWD},
    {AUTOCOLL_BCAST, "binomial", AC_ARR_STORE_FWD},
    {AUTOCOLL_BCAST, "knomial", AC_ARR_STORE_FWD},
    {AUTOCOLL_BCAST, "binary", AC_ARR_STORE_FWD},
    {AUTOCOLL_BCAST, "split_binary", AC_ARR_STORE_FWD},
    /* direct: each process talks to its destinations itself */
    {AUTOCOLL_ALLTOALL, "linear", AC_ARR_DIRECT},
    {AUTOCOLL_ALLTOALL, "spread", AC_ARR_DIRECT},
    {AUTOCOLL_ALLTOALLV, "linear", AC_ARR_DIRECT},
    {AUTOCOLL_ALLTOALLV, "spread", AC_ARR_DIRECT},
    {AUTOCOLL_BCAST, "linear", AC_ARR_DIRECT},
    {AUTOCOLL_BCAST, "flat", AC_ARR_DIRECT},
};

ac_arrival_class_t ac_arrival_class(int coll, const char *alg) {
    if (!alg) return AC_ARR_UNKNOWN;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        size_t n = strlen(rules[i].prefix);
        /* a family name followed by nothing or "_variant" (never "ringx") */
        if ((rules[i].coll == -1 || rules[i].coll == coll) &&
            strncmp(alg, rules[i].prefix, n) == 0 &&
            (alg[n] == '\0' || alg[n] == '_' || alg[n] == ':' || rules[i].prefix[n - 1] == '_'))
            return rules[i].cls;
    }
    return AC_ARR_UNKNOWN;
}

int ac_arrival_synchronised(int coll) {
    switch (coll) {
    case AUTOCOLL_BCAST:
    case AUTOCOLL_SCATTER:
    case AUTOCOLL_GATHER:
    case AUTOCOLL_REDUCE:
        return 0;
    default:
        return coll >= 0 && coll < AUTOCOLL_NCOLL ? 1 : -1;
    }
}
