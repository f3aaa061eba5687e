/*
 * Settings from AUTOCOLL_* environment variables (docs/settings.md).
 *
 * Error policy: a value that cannot be parsed never stops the program; it is reported once (on
 * rank 0 of MPI_COMM_WORLD) and the default is kept. Agreement: rank 0's variables are broadcast
 * at MPI_Init and every rank parses the same block, so all ranks hold the same settings even when
 * their environments differ.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "ac.h"

extern char **environ;

char *ac_settings_env_block(void) {
    size_t len = 1;
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, "AUTOCOLL_", 9) == 0) len += strlen(*e) + 1;
    char *out = malloc(len);
    if (!out) return NULL;
    out[0] = '\0';
    size_t used = 0;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "AUTOCOLL_", 9) != 0) continue;
        size_t n = strlen(*e);
        /* A newline inside a value would split it; such a value is dropped (reported below). */
        memcpy(out + used, *e, n);
        for (size_t i = used; i < used + n; i++)
            if (out[i] == '\n') out[i] = ' ';
        used += n;
        out[used++] = '\n';
        out[used] = '\0';
    }
    return out;
}

enum { AC_ERRS_RESERVE = 64 };

void ac_errs_add(ac_errs_t *e, const char *fmt, ...) {
    if (!e->len) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t used = strlen(e->buf), n = strlen(line);
    if (used + n + AC_ERRS_RESERVE < e->len)
        memcpy(e->buf + used, line, n + 1);
    else
        e->dropped++;
}

void ac_errs_end(ac_errs_t *e) {
    if (!e->len || !e->dropped) return;
    size_t used = strlen(e->buf);
    char line[AC_ERRS_RESERVE];
    snprintf(line, sizeof line, "... and %d more problem%s with AUTOCOLL_* settings\n", e->dropped,
             e->dropped > 1 ? "s" : "");
    if (used + strlen(line) < e->len) memcpy(e->buf + used, line, strlen(line) + 1);
}

/* A decimal number, the whole string but surrounding spaces: [+-]digits, and with frac also a
 * fraction and an exponent (1.5, .25, 2e-3). Hexadecimal (0x10), inf and nan are not numbers
 * here, for integers and floating-point settings alike (docs/settings.md). */
static int is_decimal(const char *v, int frac) {
    int digits = 0;
    while (isspace((unsigned char)*v))
        v++;
    if (*v == '+' || *v == '-') v++;
    for (; isdigit((unsigned char)*v); v++)
        digits++;
    if (frac && *v == '.')
        for (v++; isdigit((unsigned char)*v); v++)
            digits++;
    if (!digits) return 0;
    if (frac && (*v == 'e' || *v == 'E')) {
        v++;
        if (*v == '+' || *v == '-') v++;
        if (!isdigit((unsigned char)*v)) return 0;
        while (isdigit((unsigned char)*v))
            v++;
    }
    while (isspace((unsigned char)*v))
        v++;
    return *v == '\0';
}

/* Strict integer: optional spaces, decimal digits, optional spaces; nothing else. */
static int parse_int(const char *v, long lo, long hi, long *out) {
    if (!is_decimal(v, 0)) return -1;
    long x = strtol(v, NULL, 10);
    if (x < lo || x > hi) return -1;
    *out = x;
    return 0;
}

static int parse_bool(const char *v, int *out) {
    if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcasecmp(v, "on"))
        *out = 1;
    else if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false") ||
             !strcasecmp(v, "off") || !*v)
        *out = 0;
    else
        return -1;
    return 0;
}

static int parse_double(const char *v, double lo, double hi, double *out) {
    if (!is_decimal(v, 1)) return -1;
    double x = strtod(v, NULL);
    if (!(x >= lo && x <= hi)) return -1;
    *out = x;
    return 0;
}

/* The collective named by an upper-case suffix (ALLGATHER -> allgather), -1 when unknown. */
static int coll_of_suffix(const char *key) {
    char lower[64];
    size_t k;
    for (k = 0; key[k] && k + 1 < sizeof lower; k++)
        lower[k] = (char)tolower((unsigned char)key[k]);
    lower[k] = '\0';
    return ac_coll_from_name(lower);
}

/* Settings with a numeric or boolean value: name, kind, range, where to store. */
typedef struct {
    const char *name;
    char kind; /* 'i' integer, 'b' boolean, 'd' double */
    double lo, hi;
    size_t off;
} ac_numset_t;
#define AC_NUM(name, kind, lo, hi, field)                                                          \
    { name, kind, lo, hi, offsetof(ac_settings_t, field) }
static const ac_numset_t numsets[] = {
    AC_NUM("VERBOSE", 'i', 0, 3, verbose),
    AC_NUM("DISABLE", 'b', 0, 1, disable),
    AC_NUM("ITER", 'i', 1, 1000, iter),
    AC_NUM("EPSILON", 'd', 0, 10, eps),
    AC_NUM("DELTA_MAX", 'i', 2, 1 << 20, delta_max),
    AC_NUM("GROUPING", 'b', 0, 1, grouping),
    AC_NUM("GROUP_MARGIN", 'd', 0, 100, margin),
    AC_NUM("PRUNE", 'd', 0, 1e9, prune),
    AC_NUM("EXACT_SIZES", 'i', 0, 64, exact_sizes),
    AC_NUM("SITES", 'b', 0, 1, sites),
    AC_NUM("CHECK", 'b', 0, 1, check),
    AC_NUM("REPRODUCIBLE", 'b', 0, 1, reproducible),
    AC_NUM("EXPLORE", 'd', 0.001, 100, explore),
    AC_NUM("RACE_MARGIN", 'd', 0, 100, race_margin),
    AC_NUM("RACE_ITER", 'i', 1, 64, race_iter),
    AC_NUM("TRANSFER", 'b', 0, 1, transfer),
    AC_NUM("ROOTED_PROBE", 'b', 0, 1, rooted_probe),
    AC_NUM("DEFER", 'b', 0, 1, defer),
    AC_NUM("PROBE_PERIOD", 'd', 0, 1e9, probe_period),
    AC_NUM("PROBE_BYTES", 'i', 2, 1 << 26, probe_bytes),
    AC_NUM("PROBE_REPS", 'i', 1, 1000, probe_reps),
    AC_NUM("PROBE_CHECK", 'i', 0, 1000, probe_check),
    AC_NUM("PROBE_CHANGE", 'd', 0, 100, probe_change),
    AC_NUM("PROBE_EARLY", 'b', 0, 1, probe_early),
    AC_NUM("SA_SEED", 'i', 0, 2147483647, sa_seed),
    AC_NUM("SA_DEADLINE_STRICT", 'b', 0, 1, sa_strict),
    AC_NUM("POOL_MAX", 'i', 2, 4096, pool_max),
    AC_NUM("ADV_WINDOW", 'i', 1, 4096, adv_window),
    AC_NUM("ADV_FRACTION", 'd', 0, 1, adv_fraction),
    AC_NUM("BCAST_PACK_MAX", 'i', 0, 1 << 30, pack_max),
    AC_NUM("GRID_MARGIN", 'd', 0, 0.99, grid_margin),
    AC_NUM("GRID_RANDOM_TREES", 'b', 0, 1, grid_random),
    AC_NUM("PREPOST", 'b', 0, 1, prepost),
};

static void set_num(ac_settings_t *s, const ac_numset_t *n, const char *val, ac_errs_t *err) {
    char *field = (char *)s + n->off;
    long x;
    int b;
    double d;
    char msg[160];
    if (n->kind == 'i' && !parse_int(val, (long)n->lo, (long)n->hi, &x)) {
        *(int *)field = (int)x;
        return;
    }
    if (n->kind == 'b' && !parse_bool(val, &b)) {
        *(int *)field = b;
        return;
    }
    if (n->kind == 'd' && !parse_double(val, n->lo, n->hi, &d)) {
        *(double *)field = d;
        return;
    }
    if (n->kind == 'b')
        snprintf(msg, sizeof msg, "expected 0 or 1");
    else
        snprintf(msg, sizeof msg, "expected a decimal %s in [%g, %g]",
                 n->kind == 'i' ? "integer" : "number", n->lo, n->hi);
    ac_errs_add(err, "AUTOCOLL_%s='%.400s': %s; keeping the default\n", n->name, val, msg);
}

/* ---------------------------------------------------------------- grid broadcast settings
 * Seed 002 (Gupta & Vadhiyar), spec adaptive-bcast-grid.md section 17; docs/grid-bcast.md. */

static void grid_defaults(ac_settings_t *s) {
    s->probe_period = 300;
    s->probe_bytes = 262144;
    s->probe_reps = 10;
    s->sa_seed = 1;
    s->pool_max = 16;
    s->npool_pcts = 4;
    s->pool_pcts[0] = 10;
    s->pool_pcts[1] = 25;
    s->pool_pcts[2] = 50;
    s->pool_pcts[3] = 75;
    s->adv_window = 8;
    s->adv_fraction = 0.05;
    s->pack_max = 65536;
    s->probe_check = 1;
    s->probe_change = 0.1;
    s->grid_margin = 0.1;
    s->probe_early = 1;
}

/* One map entry "C" or "S.C" (non-negative decimal integers) at *pp; advances past it. */
static int map_entry(const char **pp, long *site, long *cl) {
    const char *p = *pp;
    char *end;
    if (!isdigit((unsigned char)*p)) return -1;
    long a = strtol(p, &end, 10), b = a;
    if (*end == '.') {
        if (!isdigit((unsigned char)end[1])) return -1;
        b = strtol(end + 1, &end, 10);
    }
    if (a > 1 << 20 || b > 1 << 20 || (*end && *end != ',')) return -1;
    *site = a;
    *cl = b;
    *pp = end + (*end == ',');
    return 0;
}

/* Checks a "map:" value: entries, and that no cluster lies on two sites. Returns the number of
 * entries (clusters in *nc) or -1 with a reason. */
static int map_check(const char *v, int *nc, char *why, size_t len) {
    enum { MAXC = 4096 };
    static long site_of[MAXC];
    int n = 0, distinct = 0;
    for (int i = 0; i < MAXC; i++)
        site_of[i] = -1;
    for (const char *p = v; *p;) {
        long st, cl;
        if (map_entry(&p, &st, &cl) != 0) {
            snprintf(why, len, "entry %d is not C or S.C (non-negative integers)", n + 1);
            return -1;
        }
        if (cl >= MAXC) {
            snprintf(why, len, "entry %d: cluster %ld above %d", n + 1, cl, MAXC - 1);
            return -1;
        }
        if (site_of[cl] >= 0 && site_of[cl] != st) {
            snprintf(why, len, "entry %d: cluster %ld on sites %ld and %ld", n + 1, cl, site_of[cl],
                     st);
            return -1;
        }
        if (site_of[cl] < 0) distinct++;
        site_of[cl] = st;
        n++;
    }
    if (!n) {
        snprintf(why, len, "empty map");
        return -1;
    }
    *nc = distinct;
    return n;
}

static int grid_setting(ac_settings_t *s, const char *key, const char *val, ac_errs_t *err) {
    if (!strcmp(key, "GRID_CLUSTERS")) {
        char why[128];
        int nc = 0, n = 0;
        if (strlen(val) >= sizeof s->grid_map)
            ac_errs_add(err, "AUTOCOLL_GRID_CLUSTERS: value too long; no clusters declared\n");
        else if (!*val || !strcmp(val, "none") || !strcmp(val, "nodes"))
            strcpy(s->grid_map, !strcmp(val, "nodes") ? val : "");
        else if (strncmp(val, "map:", 4) != 0)
            ac_errs_add(err,
                        "AUTOCOLL_GRID_CLUSTERS='%.200s': expected none, nodes or map:S.C,...; "
                        "no clusters declared (the default)\n",
                        val);
        else if ((n = map_check(val + 4, &nc, why, sizeof why)) < 0)
            ac_errs_add(err, "AUTOCOLL_GRID_CLUSTERS='%.200s': %s; no clusters declared\n", val,
                        why);
        else {
            strcpy(s->grid_map, val);
            s->grid_map_n = n;
            s->grid_map_nc = nc;
        }
    } else if (!strcmp(key, "SA_DELTA")) {
        if (!strcmp(val, "relative") || !strcmp(val, "ms"))
            s->sa_delta_ms = !strcmp(val, "ms");
        else
            ac_errs_add(
                err, "AUTOCOLL_SA_DELTA='%.200s': expected relative or ms; using relative\n", val);
    } else if (!strcmp(key, "SA_BUDGET")) {
        if (!strcmp(val, "time") || !strcmp(val, "evals"))
            s->sa_budget_evals = !strcmp(val, "evals");
        else
            ac_errs_add(err, "AUTOCOLL_SA_BUDGET='%.200s': expected time or evals; using time\n",
                        val);
    } else if (!strcmp(key, "GRID_TREE_DIR")) {
        /* used by the root of a grid_adaptive broadcast (src/coll/bcast/grid_state.c) */
        if (strlen(val) >= sizeof s->grid_tree_dir)
            ac_errs_add(err, "AUTOCOLL_GRID_TREE_DIR: path too long; trees are not written\n");
        else
            strcpy(s->grid_tree_dir, val);
    } else if (!strcmp(key, "GRID_NET")) {
        /* read by the root of a grid broadcast (src/coll/bcast/grid_state.c, ac_grid_net_load) */
        if (strlen(val) >= sizeof s->grid_net)
            ac_errs_add(err, "AUTOCOLL_GRID_NET: path too long; the broadcasts measure in their "
                             "calls\n");
        else
            strcpy(s->grid_net, val);
    } else if (!strcmp(key, "ADV_GAPMODEL")) {
        if (!strcmp(val, "linear") || !strcmp(val, "log"))
            s->adv_gaplog = !strcmp(val, "log");
        else
            ac_errs_add(
                err, "AUTOCOLL_ADV_GAPMODEL='%.200s': expected linear or log; using linear\n", val);
    } else if (!strcmp(key, "POOL_PCTS")) {
        int pc[8], n = 0, ok = 1;
        for (const char *p = val; *p && ok;) {
            char *end;
            long x = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : -1;
            if (x < 1 || x > 100 || n == 8 || (*end && *end != ','))
                ok = 0;
            else {
                pc[n++] = (int)x;
                p = end + (*end == ',');
            }
        }
        if (!ok || !n)
            ac_errs_add(err,
                        "AUTOCOLL_POOL_PCTS='%.200s': expected 1 to 8 comma-separated integers "
                        "in [1, 100]; using 10,25,50,75\n",
                        val);
        else {
            s->npool_pcts = n;
            memcpy(s->pool_pcts, pc, sizeof pc);
        }
    } else {
        return 0;
    }
    return 1;
}

int ac_grid_nclusters(int p, int nodes) {
    const ac_settings_t *s = &ac_g.set;
    if (!strcmp(s->grid_map, "nodes")) return nodes;
    if (!strncmp(s->grid_map, "map:", 4) && s->grid_map_n == p) return s->grid_map_nc;
    return 0;
}

/* Renumber labels 0.. in order of first appearance (lowest rank first). O(p^2), p = comm size. */
static int renumber(int *x, int p) {
    int *orig = malloc((size_t)p * sizeof *orig);
    if (!orig) return -1;
    memcpy(orig, x, (size_t)p * sizeof *orig);
    int next = 0;
    for (int r = 0; r < p; r++) {
        int j = 0;
        while (j < r && orig[j] != orig[r])
            j++;
        x[r] = j == r ? next++ : x[j];
    }
    free(orig);
    return next;
}

int ac_grid_map_layout(const char *map, int p, int *site, int *cluster, char *why, size_t len) {
    int nc;
    if (strncmp(map, "map:", 4) != 0) {
        snprintf(why, len, "expected map:S.C,...");
        return -1;
    }
    int n = map_check(map + 4, &nc, why, len);
    if (n < 0) return -1;
    if (n != p) {
        snprintf(why, len, "%d entries for %d ranks", n, p);
        return -1;
    }
    const char *q = map + 4;
    for (int r = 0; r < p; r++) {
        long st, cl;
        map_entry(&q, &st, &cl); /* checked above */
        site[r] = (int)st;
        cluster[r] = (int)cl;
    }
    if (renumber(site, p) < 0 || (nc = renumber(cluster, p)) < 0) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    return nc;
}

int ac_grid_layout(const struct ac_ctx *ctx, int *site, int *cluster) {
    const ac_settings_t *s = &ac_g.set;
    int p = ctx->size;
    if (ac_grid_nclusters(p, ctx->nnodes) < 1) return 0;
    if (strcmp(s->grid_map, "nodes") != 0) { /* a map of p entries */
        char why[128];
        int nc = ac_grid_map_layout(s->grid_map, p, site, cluster, why, sizeof why);
        return nc < 0 ? 0 : nc;
    }
    for (int r = 0; r < p; r++)
        site[r] = cluster[r] = ctx->node_of[r];
    if (renumber(site, p) < 0) return 0;
    int nc = renumber(cluster, p);
    return nc < 0 ? 0 : nc;
}

void ac_settings_parse(ac_settings_t *s, const char *block, char *errbuf, size_t errlen) {
    memset(s, 0, sizeof *s);
    s->iter = 10;
    s->eps = 0.10;
    s->delta_max = 64;
    s->grouping = 1;
    s->margin = 0.25;
    s->prune = 4.0;
    s->exact_sizes = 4;
    s->fault = -1;
    s->learn = 1;
    s->explore = 0.10;
    s->race_margin = 0.10;
    s->race_iter = 3;
    s->transfer = 1;
    s->rooted_probe = 0;
    s->defer = 1;
    grid_defaults(s);
    ac_errs_t errs = {errbuf, errlen, 0}, *err = &errs;
    if (errlen) errbuf[0] = '\0';
    if (!block) return;
    const char *p = block;
    while (*p) {
        size_t n = strcspn(p, "\n");
        char line[512];
        if (n >= sizeof line) {
            ac_errs_add(err, "%.40s...: value too long, ignored\n", p);
            p += n + (p[n] == '\n');
            continue;
        }
        memcpy(line, p, n);
        line[n] = '\0';
        p += n + (p[n] == '\n');
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = '\0';
        const char *name = line, *val = eq + 1;
        const char *key = name + 9; /* after AUTOCOLL_ */
        long x;
        const ac_numset_t *num = NULL;
        for (size_t i = 0; i < sizeof numsets / sizeof numsets[0]; i++)
            if (!strcmp(key, numsets[i].name)) num = &numsets[i];
        if (num) {
            set_num(s, num, val, err);
        } else if (!strcmp(key, "ON_ERROR")) {
            if (!strcmp(val, "native"))
                s->on_error = AC_ONERR_NATIVE;
            else if (!strcmp(val, "error"))
                s->on_error = AC_ONERR_ERROR;
            else
                ac_errs_add(err,
                            "AUTOCOLL_ON_ERROR='%s': expected 'native' or 'error'; using native\n",
                            val);
        } else if (!strcmp(key, "NODE_LAYOUT")) {
            int kind = !strncmp(val, "block:", 6)    ? AC_LAYOUT_BLOCK
                       : !strncmp(val, "cyclic:", 7) ? AC_LAYOUT_CYCLIC
                                                     : AC_LAYOUT_AUTO;
            if (kind != AC_LAYOUT_AUTO && !parse_int(strchr(val, ':') + 1, 1, 1 << 30, &x)) {
                s->node_layout = kind;
                s->node_param = (int)x;
            } else if (strcmp(val, "auto") != 0) {
                ac_errs_add(err,
                            "AUTOCOLL_NODE_LAYOUT='%s': expected auto, block:N or cyclic:N; using "
                            "auto\n",
                            val);
            }
        } else if (!strcmp(key, "MODE")) {
            static const char *modes[] = {"adaptive", "table", "model", "native"};
            int m = -1;
            for (int i = 0; i < 4; i++)
                if (!strcmp(val, modes[i])) m = i;
            if (m < 0)
                ac_errs_add(err,
                            "AUTOCOLL_MODE='%s': expected adaptive, table, model or native; using "
                            "adaptive\n",
                            val);
            else
                s->mode = m;
        } else if (!strcmp(key, "STAT")) {
            if (!strcmp(val, "auto") || !strcmp(val, "mean") || !strcmp(val, "max"))
                s->stat = !strcmp(val, "mean") ? 1 : !strcmp(val, "max") ? 2 : 0;
            else
                ac_errs_add(err, "AUTOCOLL_STAT='%s': expected auto, mean or max; using auto\n",
                            val);
        } else if (!strcmp(key, "LEARN")) {
            if (!strcmp(val, "race") || !strcmp(val, "classic"))
                s->learn = !strcmp(val, "race");
            else
                ac_errs_add(err, "AUTOCOLL_LEARN='%s': expected race or classic; using race\n",
                            val);
        } else if (!strcmp(key, "TABLE") || !strcmp(key, "TABLE_OUT")) {
            char *dst = !strcmp(key, "TABLE") ? s->table : s->table_out;
            if (strlen(val) >= sizeof s->table)
                ac_errs_add(err, "%s: path too long, ignored\n", name);
            else
                strcpy(dst, val);
        } else if (!strcmp(key, "TOPOLOGY")) {
            if (strlen(val) >= sizeof s->topology)
                ac_errs_add(err, "%s: path too long, ignored\n", name);
            else /* read and checked at MPI_Init (src/topo/load.c) */
                strcpy(s->topology, val);
        } else if (!strcmp(key, "TRACE") || !strcmp(key, "TRACE_RECORDS") ||
                   !strcmp(key, "TRACE_DIR")) {
            /* checked by the trace layer at MPI_Init (ac_trace_cfg_parse) */
            char *dst = !strcmp(key, "TRACE")           ? s->trace
                        : !strcmp(key, "TRACE_RECORDS") ? s->trace_records
                                                        : s->trace_dir;
            size_t cap = !strcmp(key, "TRACE")           ? sizeof s->trace
                         : !strcmp(key, "TRACE_RECORDS") ? sizeof s->trace_records
                                                         : sizeof s->trace_dir;
            if (strlen(val) >= cap)
                ac_errs_add(err, "%s: value too long, ignored\n", name);
            else
                strcpy(dst, val);
        } else if (!strcmp(key, "TEST_FAULT")) {
            s->fault = coll_of_suffix(val);
            if (s->fault < 0 && *val)
                ac_errs_add(err, "AUTOCOLL_TEST_FAULT='%s': unknown collective\n", val);
        } else if (!strncmp(key, "CANDIDATES_", 11) && coll_of_suffix(key + 11) >= 0) {
            int c = coll_of_suffix(key + 11);
            if (strlen(val) >= sizeof s->cand[c])
                ac_errs_add(err, "%s: value too long, ignored\n", name);
            else /* checked against the registry by ac_candidates_check (src/select/setup.c) */
                strcpy(s->cand[c], val);
        } else if (grid_setting(s, key, val, err)) {
            /* AUTOCOLL_GRID_CLUSTERS, SA_DELTA, SA_BUDGET, POOL_PCTS, ADV_GAPMODEL */
        } else {
            int c = coll_of_suffix(key);
            if (c >= 0) {
                if (strlen(val) >= sizeof s->forced[c])
                    ac_errs_add(err, "%s: value too long, ignored\n", name);
                else
                    strcpy(s->forced[c], val);
            } else {
                ac_errs_add(err, "%s: unknown variable (ignored; see docs/settings.md)\n", name);
            }
        }
    }
    /* Mode table consults only the table (src/select/select.c): without one, every collective
     * that is not forced runs the MPI library's algorithm, as in mode native. */
    if (s->mode == AC_MODE_TABLE && !s->table[0])
        ac_errs_add(err,
                    "AUTOCOLL_MODE=table without AUTOCOLL_TABLE: no table to consult, so every "
                    "collective that is not forced runs the MPI library's algorithm (as "
                    "AUTOCOLL_MODE=native)\n");
    ac_errs_end(err);
}
