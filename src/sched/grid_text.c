/*
 * Text-file plumbing of the grid-tree files (spec adaptive-bcast-grid.md sections 4.4, 10.3,
 * 10.4): a line reader that reports "name:line: reason", strict number conversion, whole-file
 * reading, atomic replacement (write a temporary file in the same folder, then rename, so a
 * reader sees either the old or the new version, never a mix) and a growing output buffer.
 * All linear in the size of the text.
 */
#include "grid_int.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ac_grid_rd_init(ac_grid_rd_t *r, const char *text, const char *name, char *err,
                     size_t errlen) {
    memset(r, 0, sizeof *r);
    r->p = text;
    r->name = name ? name : "(text)";
    r->err = err;
    r->errlen = errlen;
}

void ac_grid_rd_free(ac_grid_rd_t *r) {
    free(r->buf);
    free(r->tok);
    r->buf = NULL;
    r->tok = NULL;
}

int ac_grid_rd_fail(ac_grid_rd_t *r, const char *fmt, ...) {
    if (r->err && r->errlen) {
        int k = snprintf(r->err, r->errlen, "%s:%d: ", r->name, r->line);
        if (k >= 0 && (size_t)k < r->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(r->err + k, r->errlen - (size_t)k, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

int ac_grid_rd_next(ac_grid_rd_t *r, int partial_ok) {
    for (;;) {
        if (!*r->p) return 0;
        const char *e = strchr(r->p, '\n');
        size_t len = e ? (size_t)(e - r->p) : strlen(r->p);
        r->line++;
        if (!e && partial_ok) { /* a record still being appended */
            r->p += len;
            return 0;
        }
        if (len + 1 > r->bufcap) {
            char *nb = realloc(r->buf, len + 1);
            if (!nb) return ac_grid_rd_fail(r, "out of memory");
            r->buf = nb;
            r->bufcap = len + 1;
        }
        memcpy(r->buf, r->p, len);
        r->buf[len] = 0;
        r->p += len + (e ? 1 : 0);
        char *h = strchr(r->buf, '#');
        if (h) *h = 0;
        r->ntok = 0;
        for (char *s = r->buf;;) {
            while (*s == ' ' || *s == '\t' || *s == '\r')
                s++;
            if (!*s) break;
            if (r->ntok == r->cap) {
                int nc = r->cap ? 2 * r->cap : 16;
                char **nt = realloc(r->tok, (size_t)nc * sizeof(char *));
                if (!nt) return ac_grid_rd_fail(r, "out of memory");
                r->tok = nt;
                r->cap = nc;
            }
            r->tok[r->ntok++] = s;
            while (*s && *s != ' ' && *s != '\t' && *s != '\r')
                s++;
            if (*s) *s++ = 0;
        }
        if (r->ntok > 0) return 1;
    }
}

int ac_grid_to_long(const char *s, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno) return -1;
    *out = v;
    return 0;
}

int ac_grid_to_double(const char *s, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

char *ac_grid_slurp(const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (err && errlen) snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *s = malloc(cap);
    while (s) {
        if (len + 1 == cap) {
            char *ns = realloc(s, 2 * cap);
            if (!ns) {
                free(s);
                s = NULL;
                break;
            }
            s = ns;
            cap *= 2;
        }
        size_t k = fread(s + len, 1, cap - 1 - len, f);
        len += k;
        if (k == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (!s || bad) {
        free(s);
        if (err && errlen) snprintf(err, errlen, "%s: read error", path);
        return NULL;
    }
    if (memchr(s, 0, len)) {
        free(s);
        if (err && errlen) snprintf(err, errlen, "%s: binary data (NUL byte)", path);
        return NULL;
    }
    s[len] = 0;
    return s;
}

int ac_grid_write_atomic(const char *path, const char *text, size_t len, char *err, size_t errlen) {
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 12);
    if (!tmp) {
        if (err && errlen) snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    memcpy(tmp, path, pl);
    memcpy(tmp + pl, ".tmpXXXXXX", 11);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        if (err && errlen) snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    FILE *f = fdopen(fd, "wb");
    int ok = f != NULL;
    if (!f) close(fd);
    if (ok) ok = fwrite(text, 1, len, f) == len;
    if (f && fclose(f)) ok = 0;
    if (ok && rename(tmp, path)) ok = 0;
    if (!ok) {
        if (err && errlen) snprintf(err, errlen, "%s: %s", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return ok ? 0 : -1;
}

void ac_grid_sb_printf(ac_grid_sb_t *b, const char *fmt, ...) {
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int k = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = 1;
            return;
        }
        if ((size_t)k < room) {
            b->len += (size_t)k;
            return;
        }
        size_t nc = b->cap ? 2 * b->cap : 1024;
        while (nc < b->len + (size_t)k + 1)
            nc *= 2;
        char *ns = realloc(b->s, nc);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = nc;
    }
}

int ac_grid_sb_write(ac_grid_sb_t *b, const char *path, char *err, size_t errlen) {
    int rc;
    if (b->oom) {
        if (err && errlen) snprintf(err, errlen, "%s: out of memory", path);
        rc = -1;
    } else {
        rc = ac_grid_write_atomic(path, b->s, b->len, err, errlen);
    }
    free(b->s);
    b->s = NULL;
    return rc;
}
