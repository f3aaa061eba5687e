/*
 * Command-line options that autocoll-bench and autocoll-tune share, and their error reports.
 *
 * Shared options (getopt letters, the same meaning in both tools):
 *   -C COLL[,COLL]  collectives;  -m [MIN:]MAX  sizes (1 <= MIN <= MAX <= 1G);  -t MECH  timing;
 *   -i ITER, -x WARMUP  iterations and warmup per size;  -r ROOT  root;  -h, --help  usage;
 *   -V, --version  the version.
 * A tool describes itself (acb_cli_t: name, usage, getopt option string with ':' first and long
 * options, its own options, what -C may name) and acb_cli_parse runs getopt over argv.
 *
 * Errors are reported by rank 0 only, as "<tool>: <message>" and the tool's usage on stderr;
 * every rank returns the same status (2, bad options), so all ranks leave together.
 */
#ifndef AC_CLI_H
#define AC_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include "ac_bench.h"

typedef struct acb_cli {
    const char *tool;              /* "autocoll-bench": prefix of the messages */
    void (*usage)(FILE *f);        /* the tool's usage text */
    const char *optstring;         /* getopt_long's, shared options included, ':' first */
    const struct option *longopts; /* "help" (value 'h') included */
    /* The tool's own options (o as getopt_long returns it, arg its value): 0 when taken, 2 after
     * reporting a bad value (acb_bad_option), ACB_OPT_SHARED when o is not one of them. */
    int (*own)(const struct acb_cli *cli, int o, const char *arg);
    /* -C: asked about each known collective in turn with the list so far; may leave it out (it
     * says why itself). NULL: every one is kept. */
    int (*keep)(int coll, const int *colls, int ncoll);
    const char *no_coll; /* the error when -C leaves no collective */
    int rank, size;      /* in MPI_COMM_WORLD */
} acb_cli_t;

typedef struct {
    const char *colls;             /* -C: comma list, checked by acb_cli_finish */
    const char *mech;              /* -t: checked by acb_cli_finish */
    unsigned long long mmin, mmax; /* -m */
    long iters;                    /* -i; 0: by size (acb_default_iters) */
    long warmup;                   /* -x; < 0: a tenth of the iterations, at least 1 */
    long root;                     /* -r */
} acb_opts_t;

enum { ACB_OPT_HELP = -1, ACB_OPT_SHARED = -2 };

/* Reports "<tool>: " fmt (with arg, "" when NULL) and the usage on rank 0. Returns 2. */
int acb_bad_option(const acb_cli_t *cli, const char *fmt, const char *arg);

/* Parses argv: the tool's own options, the shared ones into *opt and the timing mechanism into
 * *mech; no operand may remain and -C must leave at least one collective (colls: room for
 * AUTOCOLL_NCOLL, the first ones kept, in order). Returns 0; 2 after reporting a bad option on
 * rank 0 (every rank returns it); ACB_OPT_HELP after printing the usage on stdout (rank 0): the
 * tool then ends with status 0. */
int acb_cli_parse(const acb_cli_t *cli, int argc, char **argv, acb_opts_t *opt, acb_mech_t *mech,
                  int *colls, int *ncoll);

/* Timed and warmup iterations of one measurement of msg bytes (-i, -x or their defaults). */
void acb_cli_iters(const acb_opts_t *opt, size_t msg, int *iters, int *warmup);

#endif
