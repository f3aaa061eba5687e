/*
 * Tuning tables: in-memory rules, JSON reading/validation and writing (docs/tuning-table.md).
 *
 * Format. One JSON object, versioned by "schema": "autocoll-tuning-table" and "version": 1,
 * with "provenance" (how and where the table was measured) and "rules" (an array). A rule is
 *   {"collective", "comm_size": [min, max], "nodes", "ppn", "bytes": [lo, hi], "algorithm"}
 * with max/hi null for "no bound", nodes/ppn 0 for "any", and bytes half-open [lo, hi) in the
 * per-collective selection size of src/core/coll.c. JSON is read and written with jansson.
 *
 * Matching order. Rules are kept in file order and the first rule that matches a call wins;
 * ac_table_matches hands the selector every matching rule in that order so that it can skip a
 * rule whose algorithm cannot run the call (restrictions are checked by the selector, not here).
 * Size 0 is matched by the first range that starts at 0 (ranges are half-open).
 *
 * Error policy. A table comes from a file that a person may have edited, and the library is
 * loaded into programs that did not ask for it: reading never crashes, never exits, and
 * reports every problem with its JSON location ("rules[3].algorithm: ..."). A rule with any
 * problem is dropped and the others are kept. The file as a whole is refused (NULL) only when
 * it cannot be meant for us or cannot be read: unreadable, not JSON (including truncation,
 * duplicate keys, integers beyond 64 bits, nesting deeper than jansson's limit), top level not
 * an object, wrong schema or version, or "rules" not an array. Integers must be JSON integers
 * in range: floats, negatives and huge values are problems, never silently converted.
 * Provenance keys that this version does not know are kept as they are (written back
 * unchanged) without a warning, so that newer tools can add keys.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "table.h"

#define AC_TABLE_SCHEMA "autocoll-tuning-table"
#define AC_TABLE_VERSION 1

/* ---------------------------------------------------------------- rules */

const char *ac_rule_check_ranges(int coll, long long pmin, long long pmax, long long nodes,
                                 long long ppn, unsigned long long lo, unsigned long long hi) {
    if (coll < 0 || coll >= AUTOCOLL_NCOLL) return "unknown collective";
    if (pmin < 1 || pmin > INT_MAX) return "comm_size minimum must be an integer in [1, 2^31-1]";
    if (pmax < 1 || pmax > INT_MAX) return "comm_size maximum must be an integer in [1, 2^31-1]";
    if (pmin > pmax) return "comm_size minimum is larger than its maximum";
    if (nodes < 0 || nodes > INT_MAX) return "nodes must be an integer in [0, 2^31-1]";
    if (ppn < 0 || ppn > INT_MAX) return "ppn must be an integer in [0, 2^31-1]";
    if (hi != 0 && lo >= hi) return "bytes: empty range (lo must be smaller than hi)";
    if (coll == AUTOCOLL_ALLTOALLV && (lo != 0 || hi != 0))
        return "alltoallv rules must use bytes [0, null): its size differs between ranks";
    return NULL;
}

/* 1 when the instance survives writing: formatted and parsed again it is the same (a guard:
 * the registry's parser refuses what its formatter cannot write, e.g. '"' in a string). */
static int inst_writable(int coll, const ac_inst_t *in) {
    char a[512], b[512], err[256];
    ac_inst_t again;
    ac_inst_format(in, a, sizeof a);
    if (strlen(a) + 1 >= sizeof a || ac_inst_parse(coll, a, &again, err, sizeof err)) return 0;
    ac_inst_format(&again, b, sizeof b);
    return strcmp(a, b) == 0;
}

int ac_rule_match(const ac_rule_t *r, int coll, int p, int nodes, int ppn, size_t bytes) {
    return r->coll == coll && r->pmin <= p && p <= r->pmax &&
           (r->nodes == 0 || r->nodes == nodes) && (r->ppn == 0 || r->ppn == ppn) &&
           (unsigned long long)bytes >= r->lo && (r->hi == 0 || (unsigned long long)bytes < r->hi);
}

int ac_table_matches(const autocoll_table_t *t, int coll, int p, int nodes, int ppn, size_t bytes,
                     const ac_rule_t **out, int max) {
    int n = 0;
    for (int i = 0; t && i < t->nrules && n < max; i++)
        if (ac_rule_match(&t->rules[i], coll, p, nodes, ppn, bytes)) out[n++] = &t->rules[i];
    return n;
}

int ac_table_push(autocoll_table_t *t, const ac_rule_t *r) {
    if (t->nrules == AC_TABLE_MAX_RULES) return -1;
    if (t->nrules == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        if (cap > AC_TABLE_MAX_RULES) cap = AC_TABLE_MAX_RULES;
        ac_rule_t *n = realloc(t->rules, (size_t)cap * sizeof *n);
        if (!n) return -1;
        t->rules = n;
        t->cap = cap;
    }
    t->rules[t->nrules++] = *r;
    return 0;
}

AC_EXPORT autocoll_table_t *autocoll_table_new(void) {
    ac_registry_init();
    return calloc(1, sizeof(autocoll_table_t));
}

AC_EXPORT void autocoll_table_free(autocoll_table_t *t) {
    ac_table_clear(t);
    free(t);
}

AC_EXPORT int autocoll_table_rule_count(const autocoll_table_t *t) {
    return t ? t->nrules : 0;
}

AC_EXPORT int autocoll_table_add_rule(autocoll_table_t *t, int coll, int pmin, int pmax, int nodes,
                                      int ppn, unsigned long long lo, unsigned long long hi,
                                      const char *instance) {
    char err[256];
    ac_rule_t r;
    if (!t || ac_rule_check_ranges(coll, pmin, pmax, nodes, ppn, lo, hi)) return MPI_ERR_ARG;
    memset(&r, 0, sizeof r);
    if (ac_inst_parse(coll, instance, &r.inst, err, sizeof err) || !inst_writable(coll, &r.inst))
        return MPI_ERR_ARG;
    r.coll = coll;
    r.pmin = pmin;
    r.pmax = pmax;
    r.nodes = nodes;
    r.ppn = ppn;
    r.lo = lo;
    r.hi = hi;
    return ac_table_push(t, &r) ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

AC_EXPORT int autocoll_table_lookup(const autocoll_table_t *t, int coll, int p, int nodes, int ppn,
                                    unsigned long long bytes, char *buf, int len) {
    const ac_rule_t *r;
    if (bytes > (unsigned long long)SIZE_MAX) return 0;
    if (ac_table_matches(t, coll, p, nodes, ppn, (size_t)bytes, &r, 1) != 1) return 0;
    if (buf && len > 0) ac_inst_format(&r->inst, buf, (size_t)len);
    return 1;
}

/* ---------------------------------------------------------------- provenance */

/* Keys this version knows, with the JSON type they must have. */
static const struct {
    const char *key;
    ac_prov_kind_t kind;
} known_keys[] = {
    {"mpi_library", AC_PROV_STRING},
    {"mpi_version", AC_PROV_STRING},
    {"p", AC_PROV_INT},
    {"nodes", AC_PROV_INT},
    {"ppn", AC_PROV_INT},
    {"placement", AC_PROV_STRING},
    {"hosts", AC_PROV_LIST},
    {"date", AC_PROV_STRING},
    {"timing", AC_PROV_STRING},
    {"autocoll_version", AC_PROV_STRING},
    {"tool", AC_PROV_STRING},
};

static int known_kind(const char *key) {
    for (size_t i = 0; i < sizeof known_keys / sizeof known_keys[0]; i++)
        if (strcmp(known_keys[i].key, key) == 0) return (int)known_keys[i].kind;
    return -1;
}

static ac_prov_t *prov_find(const autocoll_table_t *t, const char *key) {
    for (int i = 0; i < t->nprov; i++)
        if (strcmp(t->prov[i].key, key) == 0) return &t->prov[i];
    return NULL;
}

/* Sets (or, with val NULL, removes) a provenance entry. 0, or -1 when out of memory. */
static int prov_set(autocoll_table_t *t, const char *key, const char *val, ac_prov_kind_t kind) {
    ac_prov_t *e = prov_find(t, key);
    if (!val) {
        if (e) {
            free(e->key);
            free(e->val);
            *e = t->prov[--t->nprov];
        }
        return 0;
    }
    char *v = strdup(val);
    if (!v) return -1;
    if (!e) {
        if (t->nprov == t->provcap) {
            int cap = t->provcap ? 2 * t->provcap : 16;
            ac_prov_t *n = realloc(t->prov, (size_t)cap * sizeof *n);
            if (!n) {
                free(v);
                return -1;
            }
            t->prov = n;
            t->provcap = cap;
        }
        char *k = strdup(key);
        if (!k) {
            free(v);
            return -1;
        }
        e = &t->prov[t->nprov++];
        e->key = k;
        e->val = NULL;
    }
    free(e->val);
    e->val = v;
    e->kind = kind;
    return 0;
}

static int is_decimal(const char *s) {
    if (!*s || strlen(s) > 18) return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return 0;
    return 1;
}

AC_EXPORT int autocoll_table_set_info(autocoll_table_t *t, const char *key, const char *value) {
    if (!t || !key || !*key) return MPI_ERR_ARG;
    int kind = known_kind(key);
    if (kind < 0) kind = AC_PROV_STRING;
    if (value && kind == AC_PROV_INT && !is_decimal(value)) return MPI_ERR_ARG;
    return prov_set(t, key, value, (ac_prov_kind_t)kind) ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

AC_EXPORT const char *autocoll_table_get_info(const autocoll_table_t *t, const char *key) {
    const ac_prov_t *e = (t && key) ? prov_find(t, key) : NULL;
    return e ? e->val : NULL;
}

int ac_table_fill_provenance(autocoll_table_t *t, MPI_Comm comm, int nodes, int ppn,
                             const char *placement) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], num[32];
    char *names = NULL, *hosts = NULL;
    int err = MPI_SUCCESS, rank, size, len = 0, ver, sub;
    if (!t) return MPI_ERR_ARG;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);

    /* Host names: every rank's processor name, gathered; the distinct names in rank order are
     * those of the node leaders (a node's leader is its lowest rank). */
    names = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    hosts = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME + 1);
    char me[MPI_MAX_PROCESSOR_NAME] = {0};
    if (!names || !hosts) err = MPI_ERR_NO_MEM;
    PMPI_Get_processor_name(me, &len);
    /* Every rank takes part even when its allocation failed, so that nobody hangs. */
    int ok = err == MPI_SUCCESS, all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    if (!all_ok) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    err = PMPI_Allgather(me, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
                         MPI_CHAR, comm);
    if (err != MPI_SUCCESS) goto fn_exit;
    size_t used = 0;
    for (int r = 0; r < size; r++) {
        const char *n = names + (size_t)r * MPI_MAX_PROCESSOR_NAME;
        int seen = 0;
        for (int q = 0; q < r && !seen; q++)
            seen =
                strncmp(n, names + (size_t)q * MPI_MAX_PROCESSOR_NAME, MPI_MAX_PROCESSOR_NAME) == 0;
        if (seen) continue;
        used += (size_t)sprintf(hosts + used, "%s%.*s", used ? "," : "",
                                (int)strnlen(n, MPI_MAX_PROCESSOR_NAME - 1), n);
    }

    /* Date: rank 0's clock for everyone, so every rank holds the same provenance. */
    char date[32] = {0};
    if (rank == 0) {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    }
    err = PMPI_Bcast(date, (int)sizeof date, MPI_CHAR, 0, comm);
    if (err != MPI_SUCCESS) goto fn_exit;

    PMPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\r\n")] = '\0'; /* first line: MPICH's string spans several */
    PMPI_Get_version(&ver, &sub);
    int rc = 0;
    rc |= prov_set(t, "mpi_library", lib, AC_PROV_STRING);
    snprintf(num, sizeof num, "%d.%d", ver, sub);
    rc |= prov_set(t, "mpi_version", num, AC_PROV_STRING);
    snprintf(num, sizeof num, "%d", size);
    rc |= prov_set(t, "p", num, AC_PROV_INT);
    snprintf(num, sizeof num, "%d", nodes > 0 ? nodes : 0);
    rc |= prov_set(t, "nodes", num, AC_PROV_INT);
    snprintf(num, sizeof num, "%d", ppn > 0 ? ppn : 0);
    rc |= prov_set(t, "ppn", num, AC_PROV_INT);
    if (placement) rc |= prov_set(t, "placement", placement, AC_PROV_STRING);
    rc |= prov_set(t, "hosts", hosts, AC_PROV_LIST);
    rc |= prov_set(t, "date", date, AC_PROV_STRING);
    rc |= prov_set(t, "autocoll_version", autocoll_version(), AC_PROV_STRING);
    if (rc) err = MPI_ERR_NO_MEM;
fn_exit:
    free(names);
    free(hosts);
    return err;
}

/* ---------------------------------------------------------------- reading */

typedef struct {
    autocoll_table_report_fn report;
    void *arg;
    int n;
} ac_problems_t;

static void problem(ac_problems_t *pr, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void problem(ac_problems_t *pr, const char *where, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pr->n++;
    if (pr->report) pr->report(pr->arg, where, msg);
}

static const char *type_name(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a number with a fraction or exponent";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

/* An integer in [min, max]; 0 and *out, or -1 after reporting at where. */
static int get_int(ac_problems_t *pr, const char *where, const json_t *v, long long min,
                   long long max, long long *out) {
    if (!json_is_integer(v)) {
        problem(pr, where, "expected an integer, got %s", type_name(v));
        return -1;
    }
    long long x = json_integer_value(v);
    if (x < min || x > max) {
        problem(pr, where, "%lld is out of range [%lld, %lld]", x, min, max);
        return -1;
    }
    *out = x;
    return 0;
}

/* [min, max] where max may be null (no bound: *hi = nobound). */
static int get_range(ac_problems_t *pr, const char *where, const json_t *v, long long min,
                     long long max, long long *lo, long long *hi, long long nobound) {
    char w[96];
    if (!json_is_array(v) || json_array_size(v) != 2) {
        problem(pr, where, "expected an array [min, max], got %s%s", type_name(v),
                json_is_array(v) ? " of another length" : "");
        return -1;
    }
    snprintf(w, sizeof w, "%s[0]", where);
    if (get_int(pr, w, json_array_get(v, 0), min, max, lo)) return -1;
    snprintf(w, sizeof w, "%s[1]", where);
    if (json_is_null(json_array_get(v, 1))) {
        *hi = nobound;
        return 0;
    }
    return get_int(pr, w, json_array_get(v, 1), min, max, hi);
}

/* Reads rules[i]; 0 and *r when usable, -1 after reporting its problems. */
static int read_rule(ac_problems_t *pr, int i, const json_t *o, ac_rule_t *r) {
    char w[96], err[256];
    int bad = 0;
    snprintf(w, sizeof w, "rules[%d]", i);
    if (!json_is_object(o)) {
        problem(pr, w, "expected an object, got %s", type_name(o));
        return -1;
    }
    memset(r, 0, sizeof *r);
    long long pmin = 1, pmax = INT_MAX, nodes = 0, ppn = 0, lo = 0, hi = 0;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)o, key, v) {
        if (strcmp(key, "collective") && strcmp(key, "comm_size") && strcmp(key, "nodes") &&
            strcmp(key, "ppn") && strcmp(key, "bytes") && strcmp(key, "algorithm")) {
            snprintf(w, sizeof w, "rules[%d].%.40s", i, key);
            problem(pr, w, "unknown key");
            bad = 1;
        }
    }
    const json_t *jc = json_object_get(o, "collective");
    snprintf(w, sizeof w, "rules[%d].collective", i);
    r->coll = -1;
    if (!jc)
        problem(pr, w, "missing");
    else if (!json_is_string(jc))
        problem(pr, w, "expected a string, got %s", type_name(jc));
    else if ((r->coll = ac_coll_from_name(json_string_value(jc))) < 0)
        problem(pr, w, "unknown collective '%.60s'", json_string_value(jc));
    bad |= r->coll < 0;

    if ((v = json_object_get(o, "comm_size"))) {
        snprintf(w, sizeof w, "rules[%d].comm_size", i);
        bad |= get_range(pr, w, v, 1, INT_MAX, &pmin, &pmax, INT_MAX) != 0;
    }
    if ((v = json_object_get(o, "nodes"))) {
        snprintf(w, sizeof w, "rules[%d].nodes", i);
        bad |= get_int(pr, w, v, 0, INT_MAX, &nodes) != 0;
    }
    if ((v = json_object_get(o, "ppn"))) {
        snprintf(w, sizeof w, "rules[%d].ppn", i);
        bad |= get_int(pr, w, v, 0, INT_MAX, &ppn) != 0;
    }
    if ((v = json_object_get(o, "bytes"))) {
        snprintf(w, sizeof w, "rules[%d].bytes", i);
        bad |= get_range(pr, w, v, 0, LLONG_MAX, &lo, &hi, 0) != 0;
    }

    const json_t *ja = json_object_get(o, "algorithm");
    snprintf(w, sizeof w, "rules[%d].algorithm", i);
    if (!ja) {
        problem(pr, w, "missing");
        bad = 1;
    } else if (!json_is_string(ja)) {
        problem(pr, w, "expected a string \"name\" or \"name:param=value,...\", got %s",
                type_name(ja));
        bad = 1;
    } else if (r->coll >= 0 &&
               ac_inst_parse(r->coll, json_string_value(ja), &r->inst, err, sizeof err)) {
        problem(pr, w, "%s", err);
        bad = 1;
    } else if (r->coll >= 0 && !inst_writable(r->coll, &r->inst)) {
        problem(pr, w, "the instance does not survive writing back");
        bad = 1;
    }
    if (bad) return -1;

    const char *why = ac_rule_check_ranges(r->coll, pmin, pmax, nodes, ppn, (unsigned long long)lo,
                                           (unsigned long long)hi);
    if (why) {
        snprintf(w, sizeof w, "rules[%d]", i);
        problem(pr, w, "%s", why);
        return -1;
    }
    r->pmin = (int)pmin;
    r->pmax = (int)pmax;
    r->nodes = (int)nodes;
    r->ppn = (int)ppn;
    r->lo = (unsigned long long)lo;
    r->hi = (unsigned long long)hi;
    return 0;
}

static int read_provenance(ac_problems_t *pr, autocoll_table_t *t, const json_t *o) {
    char w[96], num[32];
    const char *key;
    json_t *v;
    if (!json_is_object(o)) {
        problem(pr, "provenance", "expected an object, got %s", type_name(o));
        return 0;
    }
    json_object_foreach((json_t *)o, key, v) {
        int kind = known_kind(key);
        int rc = 0;
        snprintf(w, sizeof w, "provenance.%.60s", key);
        if (kind == AC_PROV_STRING) {
            if (!json_is_string(v))
                problem(pr, w, "expected a string, got %s", type_name(v));
            else
                rc = prov_set(t, key, json_string_value(v), AC_PROV_STRING);
        } else if (kind == AC_PROV_INT) {
            long long x;
            if (get_int(pr, w, v, 0, INT_MAX, &x) == 0) {
                snprintf(num, sizeof num, "%lld", x);
                rc = prov_set(t, key, num, AC_PROV_INT);
            }
        } else if (kind == AC_PROV_LIST) {
            size_t idx, total = 1;
            json_t *h;
            int ok = json_is_array(v);
            if (!ok) problem(pr, w, "expected an array of strings, got %s", type_name(v));
            json_array_foreach(ok ? v : NULL, idx, h) {
                if (!json_is_string(h) || strchr(json_string_value(h), ',')) {
                    snprintf(w, sizeof w, "provenance.%.40s[%zu]", key, idx);
                    problem(pr, w, "expected a host name (a string without ','), got %s",
                            type_name(h));
                    ok = 0;
                    break;
                }
                total += json_string_length(h) + 1;
            }
            if (ok) {
                char *joined = malloc(total), *p = joined;
                if (!joined) return -1;
                *p = '\0';
                json_array_foreach(v, idx, h) {
                    p += sprintf(p, "%s%s", idx ? "," : "", json_string_value(h));
                }
                rc = prov_set(t, key, joined, AC_PROV_LIST);
                free(joined);
            }
        } else if (json_is_string(v)) { /* unknown keys: kept as they are */
            rc = prov_set(t, key, json_string_value(v), AC_PROV_STRING);
        } else if (json_is_integer(v)) {
            snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
            rc = prov_set(t, key, num, AC_PROV_INT);
        } else {
            char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
            if (!text) return -1;
            rc = prov_set(t, key, text, AC_PROV_RAW);
            free(text);
        }
        if (rc) return -1;
    }
    return 0;
}

AC_EXPORT autocoll_table_t *autocoll_table_parse(const char *buf, unsigned long long len,
                                                 autocoll_table_report_fn report, void *arg,
                                                 int *nproblems) {
    ac_problems_t pr = {report, arg, 0};
    autocoll_table_t *t = NULL;
    json_t *root = NULL;
    json_error_t jerr;
    const char *key;
    json_t *v;

    if (!buf) {
        problem(&pr, "file", "no data");
        goto fn_exit;
    }
    if (len > AC_TABLE_MAX_FILE) {
        problem(&pr, "file", "larger than %d bytes", AC_TABLE_MAX_FILE);
        goto fn_exit;
    }
    /* Duplicate keys are refused: one of the two values would be silently ignored. */
    root = json_loadb(buf, (size_t)len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        char w[64];
        snprintf(w, sizeof w, "line %d, column %d", jerr.line, jerr.column);
        problem(&pr, w, "not valid JSON: %s", jerr.text);
        goto fn_exit;
    }
    if (!json_is_object(root)) {
        problem(&pr, "file", "expected a JSON object at the top level, got %s", type_name(root));
        goto fn_exit;
    }
    const json_t *schema = json_object_get(root, "schema");
    if (!json_is_string(schema) || strcmp(json_string_value(schema), AC_TABLE_SCHEMA)) {
        problem(&pr, "schema", "expected \"%s\" (this is not an autocoll tuning table)",
                AC_TABLE_SCHEMA);
        goto fn_exit;
    }
    const json_t *version = json_object_get(root, "version");
    if (!json_is_integer(version) || json_integer_value(version) != AC_TABLE_VERSION) {
        if (json_is_integer(version))
            problem(&pr, "version", "version %lld is not supported (this library reads %d)",
                    json_integer_value(version), AC_TABLE_VERSION);
        else
            problem(&pr, "version", "expected the integer %d, got %s", AC_TABLE_VERSION,
                    version ? type_name(version) : "nothing");
        goto fn_exit;
    }
    const json_t *rules = json_object_get(root, "rules");
    if (!json_is_array(rules)) {
        problem(&pr, "rules", "expected an array of rules, got %s",
                rules ? type_name(rules) : "nothing");
        goto fn_exit;
    }
    if (!(t = autocoll_table_new())) goto fn_exit;
    json_object_foreach(root, key, v) {
        if (strcmp(key, "schema") && strcmp(key, "version") && strcmp(key, "rules") &&
            strcmp(key, "provenance")) {
            char w[96];
            snprintf(w, sizeof w, "%.60s", *key ? key : "\"\"");
            problem(&pr, w, "unknown top-level key (ignored)");
        }
    }
    if ((v = json_object_get(root, "provenance")) && read_provenance(&pr, t, v)) goto oom;
    if (json_array_size(rules) == 0) problem(&pr, "rules", "empty: the table chooses nothing");
    size_t i;
    json_array_foreach(rules, i, v) {
        ac_rule_t r;
        if (i == AC_TABLE_MAX_RULES) {
            problem(&pr, "rules", "more than %d rules: the rest are ignored", AC_TABLE_MAX_RULES);
            break;
        }
        if (read_rule(&pr, (int)i, v, &r) == 0 && ac_table_push(t, &r)) goto oom;
    }
    goto fn_exit;
oom:
    problem(&pr, "file", "out of memory");
    autocoll_table_free(t);
    t = NULL;
fn_exit:
    json_decref(root);
    if (nproblems) *nproblems = pr.n;
    return t;
}

char *ac_table_read_file(const char *path, size_t *len, char *why, size_t whylen) {
    if (!path) {
        *len = 0;
        snprintf(why, whylen, "no path");
        return NULL;
    }
    return ac_file_read(path, AC_TABLE_MAX_FILE, len, why, whylen);
}

AC_EXPORT autocoll_table_t *autocoll_table_load(const char *path, autocoll_table_report_fn report,
                                                void *arg, int *nproblems) {
    ac_problems_t pr = {report, arg, 0};
    autocoll_table_t *t = NULL;
    char why[300];
    size_t len;
    char *buf = ac_table_read_file(path, &len, why, sizeof why);
    if (!buf) {
        problem(&pr, "file", "%s", why);
    } else {
        int n = 0;
        t = autocoll_table_parse(buf, len, report, arg, &n);
        pr.n += n;
    }
    free(buf);
    if (nproblems) *nproblems = pr.n;
    return t;
}

/* ---------------------------------------------------------------- writing */

/* JSON value of a provenance entry (new reference, NULL when out of memory). */
static json_t *prov_json(const ac_prov_t *e) {
    switch (e->kind) {
    case AC_PROV_INT:
        return json_integer(strtoll(e->val, NULL, 10));
    case AC_PROV_LIST: {
        json_t *a = json_array();
        const char *s = e->val;
        while (a && *s) {
            size_t k = strcspn(s, ",");
            if (k && json_array_append_new(a, json_stringn(s, k))) {
                json_decref(a);
                return NULL;
            }
            s += k + (s[k] == ',');
        }
        return a;
    }
    case AC_PROV_RAW:
        return json_loads(e->val, JSON_DECODE_ANY, NULL);
    default:
        return json_string(e->val);
    }
}

static json_t *rule_json(const ac_rule_t *r) {
    char inst[512];
    ac_inst_format(&r->inst, inst, sizeof inst);
    json_t *cs =
        json_pack("[io]", r->pmin, r->pmax == INT_MAX ? json_null() : json_integer(r->pmax));
    json_t *b = json_pack("[Io]", (json_int_t)r->lo,
                          r->hi == 0 ? json_null() : json_integer((json_int_t)r->hi));
    if (!cs || !b) {
        json_decref(cs);
        json_decref(b);
        return NULL;
    }
    return json_pack("{sssosisisoss}", "collective", ac_coll_name(r->coll), "comm_size", cs,
                     "nodes", r->nodes, "ppn", r->ppn, "bytes", b, "algorithm", inst);
}

/* Writes to f: top level indented, one rule per line (tables are read and diffed by people). */
static int write_json(const autocoll_table_t *t, FILE *f) {
    int rc = 0;
    json_t *prov = json_object();
    for (int i = 0; prov && i < t->nprov; i++) {
        json_t *v = prov_json(&t->prov[i]);
        if (!v || json_object_set_new(prov, t->prov[i].key, v)) rc = -1;
    }
    char *ptext = prov ? json_dumps(prov, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(prov);
    if (!ptext) return -1;
    fprintf(f, "{\n  \"schema\": \"%s\",\n  \"version\": %d,\n  \"provenance\": ", AC_TABLE_SCHEMA,
            AC_TABLE_VERSION);
    for (const char *c = ptext; *c; c++) {
        fputc(*c, f);
        if (*c == '\n') fputs("  ", f);
    }
    free(ptext);
    fputs(",\n  \"rules\": [", f);
    for (int i = 0; i < t->nrules && !rc; i++) {
        json_t *r = rule_json(&t->rules[i]);
        char *text = r ? json_dumps(r, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
        json_decref(r);
        if (!text) {
            rc = -1;
            break;
        }
        fprintf(f, "%s\n    %s", i ? "," : "", text);
        free(text);
    }
    fputs(t->nrules ? "\n  ]\n}\n" : "]\n}\n", f);
    return rc;
}

int ac_table_write_atomic(const char *path, int (*fn)(const void *, FILE *), const void *obj) {
    struct stat st;
    if (!path || !*path) return -1;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* A device or pipe (e.g. /dev/stdout): written in place, never replaced. */
        FILE *f = fopen(path, "w");
        if (!f) return -1;
        int rc = fn(obj, f);
        if (fclose(f)) rc = -1;
        return rc;
    }
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (!tmp) return -1;
    snprintf(tmp, n, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp), rc = -1, e;
    if (fd >= 0) fchmod(fd, 0644); /* mkstemp creates 0600; a table is meant to be shared */
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0) close(fd);
        goto fn_exit;
    }
    rc = fn(obj, f);
    if (fflush(f) || ferror(f)) rc = -1;
    if (fclose(f)) rc = -1;
    if (rc == 0 && rename(tmp, path)) rc = -1;
fn_exit:
    e = errno; /* the reason survives the cleanup */
    if (fd >= 0 && rc) unlink(tmp);
    free(tmp);
    errno = e;
    return rc;
}

static int write_cb(const void *t, FILE *f) {
    return write_json((const autocoll_table_t *)t, f);
}

AC_EXPORT int autocoll_table_write(const autocoll_table_t *t, const char *path) {
    if (!t) return MPI_ERR_ARG;
    return ac_table_write_atomic(path, write_cb, t) ? MPI_ERR_FILE : MPI_SUCCESS;
}

char *ac_table_to_json(const autocoll_table_t *t, size_t *len) {
    char *text = NULL;
    size_t n = 0;
    FILE *f = t ? open_memstream(&text, &n) : NULL;
    if (!f) return NULL;
    int rc = write_json(t, f);
    if (fflush(f) || ferror(f)) rc = -1;
    if (fclose(f)) rc = -1;
    if (rc) {
        free(text);
        return NULL;
    }
    *len = n;
    return text;
}

void ac_table_clear(autocoll_table_t *t) {
    if (!t) return;
    for (int i = 0; i < t->nprov; i++) {
        free(t->prov[i].key);
        free(t->prov[i].val);
    }
    free(t->prov);
    free(t->rules);
    memset(t, 0, sizeof *t);
}
