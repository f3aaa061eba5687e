/*
 * autocoll-info: lists collectives, algorithms, STAR groups, restrictions, parameters and cost
 * formulas from the registry through the public API (include/autocoll.h); --lhbcast uses the
 * MPI-free models of src/sched/lhbcast.h, so the tool links the static library.
 *
 *   autocoll-info [COLLECTIVE]        table of algorithms (all collectives when none given)
 *   autocoll-info --instances [COLL]  every parameter instance, one per line ("coll name:p=v")
 *   autocoll-info --restrictions      every restriction flag and what it needs
 *   autocoll-info --check FILE        validate a tuning table: every problem with its JSON
 *                                     location; exit 1 when there is any, 0 when clean
 *   autocoll-info --export-ompi IN OUT   Open MPI coll/tuned dynamic rules file from a table
 *   autocoll-info --export-mpich IN OUT  MPICH collective-selection JSON from a table
 *   autocoll-info --lhbcast N K D [M [ROOT]]  latency-hiding broadcast analysis (seed 004 5.3,
 *                                     spec predictors-latency.md 5.5-5.6): modelled times of
 *                                     B1-B4, MB1/MB2 and the grouping-schema schedule
 * Tables are described in docs/tuning-table.md.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "autocoll.h"
#include "../src/sched/lhbcast.h"

static int usage(FILE *to) {
    fprintf(to, "usage: autocoll-info [--instances] [COLLECTIVE]\n"
                "       autocoll-info --restrictions\n"
                "       autocoll-info --check TABLE\n"
                "       autocoll-info --export-ompi TABLE OUT\n"
                "       autocoll-info --export-mpich TABLE OUT\n"
                "       autocoll-info --lhbcast N K D [M [ROOT]]\n"
                "       autocoll-info --version\n");
    return 2;
}

static void print_problem(void *arg, const char *where, const char *msg) {
    fprintf(stderr, "%s: %s: %s\n", (const char *)arg, where, msg);
}

/* --check: 0 clean, 1 problems (the table may still be usable), 2 unusable. */
static int check(const char *path) {
    int n = 0;
    autocoll_table_t *t = autocoll_table_load(path, print_problem, (void *)path, &n);
    if (!t) {
        fprintf(stderr, "%s: not usable (%d problem%s)\n", path, n, n == 1 ? "" : "s");
        return n ? 1 : 2;
    }
    printf("%s: %d rule%s", path, autocoll_table_rule_count(t),
           autocoll_table_rule_count(t) == 1 ? "" : "s");
    const char *keys[] = {"mpi_library", "p", "nodes", "ppn", "date", "tool"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *v = autocoll_table_get_info(t, keys[i]);
        if (v) printf(", %s %s", keys[i], v);
    }
    printf("; %d problem%s\n", n, n == 1 ? "" : "s");
    autocoll_table_free(t);
    return n ? 1 : 0;
}

static int export_table(const char *in, const char *out, int mpich) {
    int n = 0;
    autocoll_table_t *t = autocoll_table_load(in, print_problem, (void *)in, &n);
    if (!t) return 1;
    int rc = mpich ? autocoll_table_export_mpich(t, out) : autocoll_table_export_ompi(t, out);
    int total = autocoll_table_rule_count(t);
    autocoll_table_free(t);
    if (rc < 0) {
        fprintf(stderr, "autocoll-info: cannot write '%s'\n", out);
        return 1;
    }
    printf("%s: %d of %d rule%s exported (the others have no %s twin or are shadowed)\n", out, rc,
           total, total == 1 ? "" : "s", mpich ? "MPICH" : "Open MPI");
    return 0;
}

/* The library's catalogue of restrictions (the flags shown per algorithm). */
static int restrictions(void) {
    for (unsigned b = 0; b < 32; b++) {
        const char *text = autocoll_restriction_text(1u << b);
        char name[64];
        if (!text) continue;
        autocoll_restrictions_string(1u << b, name, sizeof name);
        printf("%-14s %s\n", name,
               text[0] ? text : "(the MPI library's own collective: always runs)");
    }
    return 0;
}

/* A whole decimal number in [lo, hi], or a message and -1. */
static long long lhb_arg(const char *s, const char *what, long long lo, long long hi) {
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) {
        fprintf(stderr, "autocoll-info: --lhbcast: %s '%s' must be an integer in [%lld, %lld]\n",
                what, s, lo, hi);
        return -1;
    }
    return v;
}

/* Largest N whose schedule is printed (one line per sender and step). */
#define LHB_PRINT_MAX 65536

/* --lhbcast N K D [M [ROOT]]: seed 004's broadcast models in model-1 units (one hop = 1, link
 * set-up d) and the schedule of B4. Analysis only: with d > 0 the schedule needs links
 * configured before the message arrives, which MPI does not offer; with d = 0 it is the
 * k-nomial tree of radix K+1 that bcast knomial runs. */
static int lhbcast(int argc, char **argv) {
    if (argc < 5 || argc > 7) return usage(stderr);
    long long N = lhb_arg(argv[2], "N", 1, 1 << 24), k = lhb_arg(argv[3], "K", 1, 1 << 20);
    long long d = lhb_arg(argv[4], "D", 0, 1 << 20);
    long long M = argc > 5 ? lhb_arg(argv[5], "M", 1, 1LL << 40) : 1;
    long long root = argc > 6 ? lhb_arg(argv[6], "ROOT", 0, N > 0 ? N - 1 : 0) : 0;
    if (N < 0 || k < 0 || d < 0 || M < 0 || root < 0) return 2;
    int K = (int)k, D = (int)d;
    long long b4 = ac_lhb_b4(N, K, D);
    printf("latency-hiding broadcast (seed 004 5.3; model 1: one hop = 1 time unit, link set-up "
           "d)\nN = %lld nodes, k = %d ports, d = %d, M = %lld message%s, root %lld\n",
           N, K, D, M, M == 1 ? "" : "s", root);
    printf("B1  k-ary tree, set-up per hop        (d+1)(ceil(log_k(N(k-1)+1))-1) = %lld\n",
           ac_lhb_b1(N, K, D));
    printf("B2  k-nomial tree, set-up per hop     (d+1) ceil(log_{k+1} N)         = %lld\n",
           ac_lhb_b2(N, K, D));
    printf("B3  k-ary tree, links set up at once  d + ceil(log_k(N(k-1)+1)) - 1   = %lld\n",
           ac_lhb_b3(N, K, D));
    printf("B4  latency hiding (dedicated)        min{S : N(S) >= N}              = %lld\n", b4);
    printf("B4  latency hiding (set-up first)     d + B4                          = %lld\n",
           N > 1 ? d + b4 : 0);
    printf("best case (d = 0)                     ceil(log_{k+1} N)               = %lld\n",
           ac_lhb_best(N, K));
    printf("MB1 M broadcasts one after another    M (d + B4)                      = %lld\n",
           ac_lhb_mb1(N, K, D, M));
    printf("MB2 M messages on one k-ary tree      d + M (ceil(log_k(N(k-1)+1))-1) = %lld\n",
           ac_lhb_mb2(N, K, D, M));
    printf("lower bound (pipelined)               M - 1 + ceil(log_{k+1} N)       = %lld\n",
           M - 1 + ac_lhb_best(N, K));
    printf("N(S), S = 0..%lld:", b4);
    for (int s = 0; s <= b4; s++)
        printf(" %lld", ac_lhb_count(K, D, s));
    printf("\n");
    if (D == 0)
        printf("d = 0: the schedule is the k-nomial tree of radix %d (bcast knomial:k=%d on MPI)\n",
               K + 1, K + 1);
    else
        printf("d > 0: links must be configured before the message arrives; analysis only\n");
    if (N > LHB_PRINT_MAX) {
        printf("schedule not printed (N > %d)\n", LHB_PRINT_MAX);
        return 0;
    }
    ac_lhb_msg *m = N > 1 ? malloc(sizeof *m * (size_t)(N - 1)) : NULL;
    if (N > 1 && !m) {
        fprintf(stderr, "autocoll-info: out of memory\n");
        return 1;
    }
    int fin = ac_lhb_schedule((int)N, K, D, (int)root, m);
    printf("schedule (grouping schema, eq. 5.36): %d step%s; step sender -> receivers\n", fin,
           fin == 1 ? "" : "s");
    for (long long i = 0; i < N - 1; i++) {
        if (i == 0 || m[i].step != m[i - 1].step || m[i].from != m[i - 1].from)
            printf("%s%d %d ->", i ? "\n" : "", m[i].step, m[i].from);
        printf(" %d", m[i].to);
    }
    if (N > 1) printf("\n");
    free(m);
    return 0;
}

int main(int argc, char **argv) {
    int instances = 0, only = -1;
    if (argc >= 2 && !strcmp(argv[1], "--lhbcast")) return lhbcast(argc, argv);
    if (argc == 2 && !strcmp(argv[1], "--restrictions")) return restrictions();
    if (argc == 3 && !strcmp(argv[1], "--check")) return check(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "--export-ompi")) return export_table(argv[2], argv[3], 0);
    if (argc == 4 && !strcmp(argv[1], "--export-mpich")) return export_table(argv[2], argv[3], 1);
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--check", 7) || !strncmp(argv[i], "--export", 8) ||
            !strncmp(argv[i], "--lhbcast", 9))
            return usage(stderr);
        if (!strcmp(argv[i], "--instances"))
            instances = 1;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return usage(stdout) - 2;
        else if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
            printf("autocoll-info (autocoll) %s\n", autocoll_version());
            return 0;
        } else if ((only = autocoll_coll_from_name(argv[i])) < 0) {
            fprintf(stderr, "autocoll-info: unknown collective '%s'\n", argv[i]);
            return usage(stderr);
        }
    }
    printf(instances ? "" : "autocoll %s\n", autocoll_version());
    for (int c = 0; c < AUTOCOLL_NCOLL; c++) {
        if (only >= 0 && c != only) continue;
        for (int k = 0; k < autocoll_alg_count(c); k++) {
            autocoll_alg_info_t in;
            autocoll_alg_info(c, k, &in);
            if (instances) {
                char name[256];
                int n = autocoll_instance_count(c, k);
                for (int j = 0; j < n; j++) {
                    autocoll_instance_name(c, k, j, name, sizeof name);
                    printf("%s %s\n", in.coll, name);
                }
                continue;
            }
            char r[128];
            autocoll_restrictions_string(in.restrictions, r, sizeof r);
            printf("%s.%s\n  group: %s\n  restrictions: %s\n  parameters: %s\n  cost: %s\n  %s\n",
                   in.coll, in.name, in.group, r, in.params[0] ? in.params : "-", in.cost,
                   in.description);
            autocoll_coll_info_t ci;
            if (autocoll_coll_info(c, &ci) == MPI_SUCCESS && ci.reduces)
                printf("  reproducible: %s\n", (in.restrictions & AUTOCOLL_R_ANY_ORDER)
                                                   ? "no (combines in an order of its own)"
                                                   : "yes (x_0 op (x_1 op (... op x_{p-1})))");
        }
    }
    return 0;
}
