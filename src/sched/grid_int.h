/*
 * Internal state shared by the grid-tree files (seed 002; spec adaptive-bcast-grid.md
 * sections 6, 8, 9): the search context behind ac_grid_search_t. Not part of the sched API.
 */
#ifndef AC_GRID_INT_H
#define AC_GRID_INT_H
#include "grid_tree.h"

struct ac_grid_search {
    ac_grid_model_t M;
    ac_grid_opts_t opt;
    ac_grid_rng_t rng;
    ac_grid_eval_t *ev;
    ac_grid_stats_t st;
    int *cur, *nw, *best, *tmp, *path; /* n each: basicSA trees and scratch */
    char *mark;                        /* n: subtree marks of a transform */
    int bmode;                         /* budget clock of the running driverSA call */
    double t0, bamount, bcap;
    long e0;
};

/* Evaluate a tree with the context's evaluator, counting the evaluation. */
double ac_grid_eval_count(ac_grid_search_t *s, const int *parent);

/* ------------------------------------------------------------------ text files */

/* Line reader over a NUL-terminated text: blank lines and '#' comments are skipped, each line
 * is split at white space. Errors read "name:line: reason". */
typedef struct {
    const char *p, *name;
    int line;
    char *buf;  /* current line, tokens point into it */
    char **tok; /* tokens of the current line */
    int ntok, cap;
    size_t bufcap;
    char *err;
    size_t errlen;
} ac_grid_rd_t;

void ac_grid_rd_init(ac_grid_rd_t *r, const char *text, const char *name, char *err, size_t errlen);
void ac_grid_rd_free(ac_grid_rd_t *r);
/* Next line: 1, or 0 at the end of the text; -1 out of memory (err set). With partial_ok,
 * a last line without its newline is treated as not yet written and skipped. */
int ac_grid_rd_next(ac_grid_rd_t *r, int partial_ok);
/* Report an error at the current line; returns -1. */
int ac_grid_rd_fail(ac_grid_rd_t *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int ac_grid_to_long(const char *s, long *out);     /* whole token, decimal; 0 or -1 */
int ac_grid_to_double(const char *s, double *out); /* whole token, finite; 0 or -1 */
/* Whole file into a NUL-terminated buffer (caller frees), or NULL with err "path: reason". */
char *ac_grid_slurp(const char *path, char *err, size_t errlen);
/* Write text to path atomically: a temporary file in the same folder, then rename. 0 or -1. */
int ac_grid_write_atomic(const char *path, const char *text, size_t len, char *err, size_t errlen);

/* Growing text buffer for the writers. */
typedef struct {
    char *s;
    size_t len, cap;
    int oom;
} ac_grid_sb_t;
void ac_grid_sb_printf(ac_grid_sb_t *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Write the buffer to path atomically and free it: 0, or -1 with err "path: reason" (out of
 * memory while it grew, or the write failed). */
int ac_grid_sb_write(ac_grid_sb_t *b, const char *path, char *err, size_t errlen);

#endif
