/*
 * Tuning tables: internal interface (the public one is the "tuning tables" section of
 * include/autocoll.h; the file format is docs/tuning-table.md).
 *
 * A table is an ordered list of rules plus provenance. Rules are kept in file order because
 * matching is first-match-wins: ac_table_matches returns the matching rules in that order and
 * the selector takes the first one whose algorithm can run the call (ac_alg_applicable).
 */
#ifndef AC_TABLE_H
#define AC_TABLE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include "select.h"

/* One rule: collective, communicator size [pmin, pmax] (inclusive; pmax == INT_MAX: no bound),
 * nodes and ppn (0: any), selection size [lo, hi) (hi == 0: no bound), algorithm instance. */
typedef struct {
    int coll, pmin, pmax, nodes, ppn;
    unsigned long long lo, hi;
    ac_inst_t inst;
} ac_rule_t;

enum {
    AC_TABLE_MAX_RULES = 100000,         /* rules beyond this are reported and ignored */
    AC_TABLE_MAX_FILE = 64 * 1024 * 1024 /* bytes read from a table file */
};

/* Provenance entry. kind says how the value is written back as JSON. */
typedef enum {
    AC_PROV_STRING = 0, /* JSON string */
    AC_PROV_INT,        /* JSON integer (val holds its decimal text) */
    AC_PROV_LIST,       /* JSON array of strings (val holds them joined by ',') */
    AC_PROV_RAW         /* an unknown key of any type: val holds its compact JSON text */
} ac_prov_kind_t;

typedef struct {
    char *key, *val;
    ac_prov_kind_t kind;
} ac_prov_t;

struct autocoll_table {
    ac_rule_t *rules;
    int nrules, cap;
    ac_prov_t *prov;
    int nprov, provcap;
};

/* Rules of t that match (coll,p,nodes,ppn,bytes), in priority order, at most max; returns
 * count. A rule matches when coll is equal, pmin <= p <= pmax, its nodes and ppn are 0 or
 * equal, and lo <= bytes < hi (hi == 0: no upper bound). */
int ac_table_matches(const autocoll_table_t *t, int coll, int p, int nodes, int ppn, size_t bytes,
                     const ac_rule_t **out, int max);

/* Fills provenance defaults of this run: MPI library version string (MPI_Get_library_version),
 * MPI version, p, nodes, ppn, placement, date (UTC ISO 8601, rank 0's clock), autocoll_version,
 * hosts (processor names of the node leaders, gathered over comm). Collective over comm.
 * Returns MPI_SUCCESS or an MPI error code. */
int ac_table_fill_provenance(autocoll_table_t *t, MPI_Comm comm, int nodes, int ppn,
                             const char *placement);

/* 1 when rule r matches the call described by the arguments (see ac_table_matches). */
int ac_rule_match(const ac_rule_t *r, int coll, int p, int nodes, int ppn, size_t bytes);

/* Validates a rule's ranges for coll (pmin >= 1, pmin <= pmax, lo < hi unless hi == 0,
 * nodes/ppn >= 0, alltoallv only [0, unbounded)); NULL when fine, otherwise the problem. */
const char *ac_rule_check_ranges(int coll, long long pmin, long long pmax, long long nodes,
                                 long long ppn, unsigned long long lo, unsigned long long hi);

/* The bytes of a table file (malloc'ed, at most AC_TABLE_MAX_FILE), or NULL with the reason in
 * why. */
char *ac_table_read_file(const char *path, size_t *len, char *why, size_t whylen);

/* Appends a validated rule (grows the array). 0, or -1 when out of memory or full. */
int ac_table_push(autocoll_table_t *t, const ac_rule_t *r);

/* Writes a file through fn(obj, f) into a temporary file in the same directory, renamed over
 * path when complete, so that a reader never sees a half-written file. 0 or -1. */
int ac_table_write_atomic(const char *path, int (*fn)(const void *, FILE *), const void *obj);

/* The JSON text autocoll_table_write would write for t (malloc'ed, NUL-terminated, its length
 * without the NUL in *len), or NULL when out of memory. autocoll_table_parse reads it back. */
char *ac_table_to_json(const autocoll_table_t *t, size_t *len);

/* Frees the rules and provenance t holds and leaves it empty (nothing else: for a table that is
 * not allocated by autocoll_table_new, e.g. one on the stack or a static one). */
void ac_table_clear(autocoll_table_t *t);

#endif
