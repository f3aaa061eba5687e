/*
 * Options shared by the tools: see ac_cli.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"
#include "ac_cli.h"

int acb_bad_option(const acb_cli_t *cli, const char *fmt, const char *arg) {
    if (cli->rank == 0) {
        fprintf(stderr, "%s: ", cli->tool);
        fprintf(stderr, fmt, arg ? arg : "");
        fprintf(stderr, "\n");
        cli->usage(stderr);
    }
    return 2;
}

/* A whole decimal number in [lo, hi]: 0, or -1. */
static int parse_long(const char *s, long lo, long hi, long *v) {
    char *end;
    *v = strtol(s, &end, 10);
    return *end || end == s || *v < lo || *v > hi ? -1 : 0;
}

/* A shared option, or any other value of getopt (':' a missing value, '?' an unknown option) as
 * an error: 0, 2 or ACB_OPT_HELP as acb_cli_parse. */
static int shared_option(const acb_cli_t *cli, int o, char **argv, acb_opts_t *opt) {
    switch (o) {
    case 'C':
        opt->colls = optarg;
        return 0;
    case 'm':
        if (acb_parse_range(optarg, &opt->mmin, &opt->mmax) || opt->mmin < 1 ||
            opt->mmin > opt->mmax || opt->mmax > (1ull << 30))
            return acb_bad_option(cli, "bad size range '%s' (-m [MIN:]MAX, 1 <= MIN <= MAX <= 1G)",
                                  optarg);
        return 0;
    case 't':
        opt->mech = optarg;
        return 0;
    case 'i':
        if (parse_long(optarg, 1, 100000000, &opt->iters))
            return acb_bad_option(cli, "bad iteration count '%s'", optarg);
        return 0;
    case 'x':
        if (parse_long(optarg, 0, 100000000, &opt->warmup))
            return acb_bad_option(cli, "bad warmup count '%s'", optarg);
        return 0;
    case 'r':
        if (parse_long(optarg, 0, (long)cli->size - 1, &opt->root))
            return acb_bad_option(cli, "bad root '%s' (0 <= ROOT < number of processes)", optarg);
        return 0;
    case 'h':
        if (cli->rank == 0) cli->usage(stdout);
        return ACB_OPT_HELP;
    case 'V':
        if (cli->rank == 0) printf("%s (autocoll) %s\n", cli->tool, autocoll_version());
        return ACB_OPT_HELP;
    case ':':
        return acb_bad_option(cli, "option needs a value: %s", argv[optind - 1]);
    default:
        return acb_bad_option(cli, "unknown option %s", argv[optind - 1]);
    }
}

/* The collectives of the comma list that cli->keep accepts. 0, or 2 after reporting. */
static int parse_colls(const acb_cli_t *cli, const char *list, int *colls, int *ncoll) {
    char tmp[512];
    *ncoll = 0;
    snprintf(tmp, sizeof tmp, "%s", list);
    for (char *sv = NULL, *tok = strtok_r(tmp, ",", &sv); tok; tok = strtok_r(NULL, ",", &sv)) {
        int c = autocoll_coll_from_name(tok);
        if (c < 0) return acb_bad_option(cli, "unknown collective '%s'", tok);
        if ((!cli->keep || cli->keep(c, colls, *ncoll)) && *ncoll < AUTOCOLL_NCOLL)
            colls[(*ncoll)++] = c;
    }
    return 0;
}

int acb_cli_parse(const acb_cli_t *cli, int argc, char **argv, acb_opts_t *opt, acb_mech_t *mech,
                  int *colls, int *ncoll) {
    int rc = 0, o;
    *ncoll = 0;
    opterr = 0;
    while (rc == 0 && (o = getopt_long(argc, argv, cli->optstring, cli->longopts, NULL)) != -1) {
        rc = cli->own(cli, o, optarg);
        if (rc == ACB_OPT_SHARED) rc = shared_option(cli, o, argv, opt);
    }
    if (rc) return rc;
    if (optind < argc) return acb_bad_option(cli, "unexpected argument '%s'", argv[optind]);
    if (acb_mech_parse(opt->mech, mech))
        return acb_bad_option(
            cli, "bad timing mechanism '%s' (b2b, barrier, compute:US, imbalance:R)", opt->mech);
    if (parse_colls(cli, opt->colls, colls, ncoll)) return 2;
    if (*ncoll == 0) return acb_bad_option(cli, cli->no_coll, NULL);
    return 0;
}

void acb_cli_iters(const acb_opts_t *opt, size_t msg, int *iters, int *warmup) {
    int it = opt->iters ? (int)opt->iters : acb_default_iters(msg);
    *iters = it;
    *warmup = opt->warmup >= 0 ? (int)opt->warmup : (it / 10 > 0 ? it / 10 : 1);
}
