/*
 * Messages. The library writes only to stderr, only when asked (AUTOCOLL_VERBOSE)
 * or to report a setting it could not use, and every line starts with "autocoll[rank]".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ac.h"

void ac_log(const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "autocoll[%d]: %s\n", ac_g.world_rank, line);
}

/* Keys already logged: a small open-addressing set of string hashes (collisions only lose a
 * message, never correctness). */
enum { AC_ONCE_SLOTS = 4096 };
static uint64_t once_set[AC_ONCE_SLOTS];

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h ? h : 1;
}

void ac_log_once(const char *key, const char *fmt, ...) {
    uint64_t h = hash_str(key);
    int fresh = 0;
    ac_lock();
    for (unsigned i = 0; i < AC_ONCE_SLOTS; i++) {
        uint64_t *slot = &once_set[(h + i) % AC_ONCE_SLOTS];
        if (*slot == h) break;
        if (*slot == 0) {
            *slot = h;
            fresh = 1;
            break;
        }
    }
    ac_unlock();
    if (!fresh) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    ac_log("%s", line);
}
