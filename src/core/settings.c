/*
 * Settings from AUTOCOLL_* environment variables (docs/settings.md).
 *
 * Error policy: a value that cannot be parsed never stops the program; it is reported once (on
 * rank 0 of MPI_COMM_WORLD) and the default is kept. Agreement: rank 0's variables are broadcast
 * at MPI_Init and every rank parses the same block, so all ranks hold the same settings even when
 * their environments differ.
 */
#include <ctype.h>
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

static void add_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b) {
    size_t used = strlen(err);
    if (used + 1 >= errlen) return;
    snprintf(err + used, errlen - used, fmt, a, b);
}

/* Strict integer: optional spaces, digits, optional spaces; nothing else. */
static int parse_int(const char *v, long lo, long hi, long *out) {
    char *end;
    while (isspace((unsigned char)*v))
        v++;
    if (!*v) return -1;
    long x = strtol(v, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    if (*end || x < lo || x > hi) return -1;
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

void ac_settings_parse(ac_settings_t *s, const char *block, char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    if (errlen) err[0] = '\0';
    if (!block) return;
    const char *p = block;
    while (*p) {
        size_t n = strcspn(p, "\n");
        char line[512];
        if (n >= sizeof line) {
            add_err(err, errlen, "%.40s...: value too long, ignored%s\n", p, "");
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
        int b;
        if (!strcmp(key, "VERBOSE")) {
            if (parse_int(val, 0, 3, &x))
                add_err(err, errlen, "AUTOCOLL_VERBOSE='%s': expected 0, 1, 2 or 3; using 0%s\n",
                        val, "");
            else
                s->verbose = (int)x;
        } else if (!strcmp(key, "ON_ERROR")) {
            if (!strcmp(val, "native"))
                s->on_error = AC_ONERR_NATIVE;
            else if (!strcmp(val, "error"))
                s->on_error = AC_ONERR_ERROR;
            else
                add_err(err, errlen,
                        "AUTOCOLL_ON_ERROR='%s': expected 'native' or 'error'; using native%s\n",
                        val, "");
        } else if (!strcmp(key, "NODE_LAYOUT")) {
            int kind = !strncmp(val, "block:", 6)    ? AC_LAYOUT_BLOCK
                       : !strncmp(val, "cyclic:", 7) ? AC_LAYOUT_CYCLIC
                                                     : AC_LAYOUT_AUTO;
            if (kind != AC_LAYOUT_AUTO && !parse_int(strchr(val, ':') + 1, 1, 1 << 30, &x)) {
                s->node_layout = kind;
                s->node_param = (int)x;
            } else if (strcmp(val, "auto") != 0) {
                add_err(err, errlen,
                        "AUTOCOLL_NODE_LAYOUT='%s': expected auto, block:N or cyclic:N; using "
                        "auto%s\n",
                        val, "");
            }
        } else if (!strcmp(key, "DISABLE")) {
            if (parse_bool(val, &b))
                add_err(err, errlen, "AUTOCOLL_DISABLE='%s': expected 0 or 1; using 0%s\n", val,
                        "");
            else
                s->disable = b;
        } else {
            int c;
            char lower[64];
            size_t k;
            for (k = 0; key[k] && k + 1 < sizeof lower; k++)
                lower[k] = (char)tolower((unsigned char)key[k]);
            lower[k] = '\0';
            c = ac_coll_from_name(lower);
            if (c >= 0) {
                if (strlen(val) >= sizeof s->forced[c])
                    add_err(err, errlen, "%s: value too long, ignored%s\n", name, "");
                else
                    strcpy(s->forced[c], val);
            } else {
                add_err(err, errlen, "%s: unknown variable (ignored; see docs/settings.md)%s\n",
                        name, "");
            }
        }
    }
}
