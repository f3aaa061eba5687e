/*
 * autocoll-info: lists collectives, algorithms, STAR groups, restrictions, parameters and cost
 * formulas from the registry. Uses only the public API (include/autocoll.h).
 *
 *   autocoll-info [COLLECTIVE]        table of algorithms (all collectives when none given)
 *   autocoll-info --instances [COLL]  every parameter instance, one per line ("coll name:p=v")
 *   autocoll-info --restrictions      every restriction flag and what it needs
 *   autocoll-info --check FILE        validate a tuning table: every problem with its JSON
 *                                     location; exit 1 when there is any, 0 when clean
 *   autocoll-info --export-ompi IN OUT   Open MPI coll/tuned dynamic rules file from a table
 *   autocoll-info --export-mpich IN OUT  MPICH collective-selection JSON from a table
 * Tables are described in docs/tuning-table.md.
 */
#include <stdio.h>
#include <string.h>
#include "autocoll.h"

static int usage(FILE *to) {
    fprintf(to, "usage: autocoll-info [--instances] [COLLECTIVE]\n"
                "       autocoll-info --restrictions\n"
                "       autocoll-info --check TABLE\n"
                "       autocoll-info --export-ompi TABLE OUT\n"
                "       autocoll-info --export-mpich TABLE OUT\n"
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

int main(int argc, char **argv) {
    int instances = 0, only = -1;
    if (argc == 2 && !strcmp(argv[1], "--restrictions")) return restrictions();
    if (argc == 3 && !strcmp(argv[1], "--check")) return check(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "--export-ompi")) return export_table(argv[2], argv[3], 0);
    if (argc == 4 && !strcmp(argv[1], "--export-mpich")) return export_table(argv[2], argv[3], 1);
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--check", 7) || !strncmp(argv[i], "--export", 8))
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
