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
