/*
 * The select layer's life cycle and state: forced instances (AUTOCOLL_<COLL>, autocoll_force),
 * the candidate lists of the adaptive engine (AUTOCOLL_CANDIDATES_<COLL>), the tuning table
 * (AUTOCOLL_TABLE, and the check of AUTOCOLL_TABLE_OUT), and the teardown at MPI_Finalize.
 * Called by the interposition layer after core's settings are known (ac_state_setup).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "select.h"
#include "adapt.h"
#include "table.h"
#include "../topo/load.h"

ac_sel_state_t ac_sel;

/* Resolve the AUTOCOLL_<COLL> settings into instances; called with the lock held. */
static void resolve_forced(void) {
    for (int c = 0; c < AUTOCOLL_NCOLL; c++) {
        ac_sel.have_forced[c] = 0;
        ac_sel.forced_bad[c] = 0;
        if (!ac_g.set.forced[c][0]) continue;
        char err[256];
        if (ac_inst_parse(c, ac_g.set.forced[c], &ac_sel.forced[c], err, sizeof err) == 0) {
            ac_sel.have_forced[c] = 1;
        } else {
            ac_sel.forced_bad[c] = 1;
            char var[64];
            size_t k = 0;
            for (const char *n = ac_coll_name(c); *n && k + 1 < sizeof var; n++)
                var[k++] = (char)(*n >= 'a' && *n <= 'z' ? *n - 32 : *n);
            var[k] = '\0';
            if (ac_g.world_rank == 0)
                ac_log("AUTOCOLL_%s: %s; %s", var, err,
                       ac_g.set.on_error == AC_ONERR_ERROR
                           ? "calls will fail (AUTOCOLL_ON_ERROR=error)"
                           : "the MPI library's algorithm is used");
        }
    }
}

static void table_report(void *arg, const char *where, const char *msg) {
    ac_log("AUTOCOLL_TABLE=%s: %s: %s", (const char *)arg, where, msg);
}

/* AUTOCOLL_TABLE_OUT is written at MPI_Finalize (src/select/adapt.c); say at MPI_Init, with the
 * reason, when that cannot work: the path names a directory, or its directory does not exist
 * or cannot be written (the table is written to a temporary file there, then renamed; an
 * existing device or pipe is written in place, ac_table_write_atomic). */
static void check_table_out(void) {
    const char *path = ac_g.set.table_out;
    char dir[sizeof ac_g.set.table_out];
    struct stat st;
    if (!path[0] || ac_g.world_rank != 0) return;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        ac_log("AUTOCOLL_TABLE_OUT=%s: is a directory; the learned table cannot be written", path);
        return;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) { /* a device or pipe: written in place */
        if (access(path, W_OK) != 0)
            ac_log("AUTOCOLL_TABLE_OUT=%s: cannot write: %s; the learned table will not be written",
                   path, strerror(errno));
        return;
    }
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    if (access(dir, W_OK | X_OK) != 0)
        ac_log("AUTOCOLL_TABLE_OUT=%s: cannot write in directory '%s': %s; the learned table "
               "will not be written",
               path, dir, strerror(errno));
}

/* AUTOCOLL_TABLE: rank 0 reads the file and broadcasts it, so every rank parses the same
 * bytes (collective setup); problems are reported by rank 0 only. */
static void load_table(int collective) {
    const char *path = ac_g.set.table;
    char why[300] = "";
    size_t len = 0;
    check_table_out();
    if (!path[0]) return;
    char *buf = ac_file_read_world(path, AC_TABLE_MAX_FILE, collective, &len, why, sizeof why);
    int problems = 0, report = ac_g.world_rank == 0;
    if (buf)
        ac_sel.table = autocoll_table_parse(buf, (unsigned long long)len,
                                            report ? table_report : NULL, (void *)path, &problems);
    if (report && !ac_sel.table)
        ac_log("AUTOCOLL_TABLE=%s: %s; not using a table%s", path, buf ? "unusable" : why,
               ac_g.set.mode == AC_MODE_TABLE ? " (AUTOCOLL_MODE=table: every collective that is "
                                                "not forced runs the MPI library's algorithm)"
                                              : "");
    else if (report && ac_g.set.verbose >= 1)
        ac_log("AUTOCOLL_TABLE=%s: %d rules loaded%s", path,
               autocoll_table_rule_count(ac_sel.table),
               problems ? " (problems above were skipped)" : "");
    free(buf);
}

/* Length of the next entry of a candidate list: up to a ',' outside quotes, taking in the
 * "param=value" items that follow an instance (an instance with several parameters). */
static size_t cand_entry(const char *p) {
    size_t n = 0;
    int quoted = 0;
    for (;;) {
        for (; p[n] && (quoted || p[n] != ','); n++)
            if (p[n] == '"') quoted = !quoted;
        if (p[n] != ',' || !memchr(p, ':', n)) return n;
        /* the next item continues this instance when it is param=value (no ':' before '=') */
        const char *next = p + n + 1;
        size_t item = strcspn(next, ","), eq = strcspn(next, "=:");
        if (eq >= item || next[eq] != '=') return n;
        n++;
    }
}

/* AUTOCOLL_CANDIDATES_<COLL>: each entry is an algorithm name (all its instances) or one of the
 * instances the adaptive engine tries (autocoll-info lists them). Entries are checked one by one;
 * a bad one is reported by name and ignored, the others are kept in canonical form (the form the
 * engine compares, src/select/adapt.c). No usable entry: every algorithm stays a candidate. */
static void set_candidates(ac_settings_t *s, int c, const char *var, const char *val,
                           ac_errs_t *err) {
    char out[sizeof s->cand[0]] = "", entry[sizeof s->cand[0]], canon[sizeof s->cand[0]];
    char inst_name[sizeof s->cand[0]];
    size_t used = 0;
    int bad = 0, good = 0;
    for (const char *p = val; *p;) {
        size_t n = cand_entry(p);
        const char *b = p, *e = p + n;
        p += n + (p[n] == ',');
        while (b < e && isspace((unsigned char)*b))
            b++;
        while (e > b && isspace((unsigned char)e[-1]))
            e--;
        snprintf(entry, sizeof entry, "%.*s", (int)(e - b), b);
        char msg[512] = "";
        if (!entry[0]) {
            snprintf(msg, sizeof msg, "empty entry");
        } else if (!strchr(entry, ':')) {
            if (!ac_alg_find(c, entry))
                snprintf(msg, sizeof msg, "unknown %s algorithm (autocoll-info lists them)",
                         ac_coll_name(c));
            else
                snprintf(canon, sizeof canon, "%s", entry);
        } else {
            ac_inst_t in;
            if (ac_inst_parse(c, entry, &in, msg, sizeof msg) == 0) {
                ac_inst_format(&in, canon, sizeof canon);
                int tried = 0;
                for (int i = 0; !tried && i < ac_inst_count(in.alg); i++) {
                    ac_inst_t x;
                    ac_inst_nth(in.alg, i, &x);
                    ac_inst_format(&x, inst_name, sizeof inst_name);
                    tried = !strcmp(inst_name, canon);
                }
                if (canon[strcspn(canon, ",\"")])
                    snprintf(msg, sizeof msg,
                             "cannot be listed: its full form '%.200s' holds ',' or '\"', which "
                             "the comma-separated list cannot carry; list '%s' for all its "
                             "instances",
                             canon, in.alg->name);
                else if (!tried)
                    snprintf(msg, sizeof msg,
                             "not one of the instances the adaptive engine tries (autocoll-info "
                             "lists them)");
            }
        }
        if (msg[0]) {
            ac_errs_add(err, "%s: '%.200s': %s; entry ignored\n", var, entry, msg);
            bad++;
            continue;
        }
        /* skip a repeated entry; the canonical list fits since no entry grows past its text */
        int dup = 0;
        for (const char *q = out; *q && !dup; q += strcspn(q, ",") + (q[strcspn(q, ",")] == ','))
            dup = strcspn(q, ",") == strlen(canon) && !strncmp(q, canon, strlen(canon));
        if (dup) continue;
        if (used + strlen(canon) + 2 > sizeof out) {
            ac_errs_add(err, "%s: '%.200s': list too long; entry ignored\n", var, entry);
            bad++;
            continue;
        }
        used += (size_t)snprintf(out + used, sizeof out - used, "%s%s", used ? "," : "", canon);
        good++;
    }
    if (!good && bad)
        ac_errs_add(err, "%s: no usable entry; the adaptive engine considers every %s algorithm\n",
                    var, ac_coll_name(c));
    strcpy(s->cand[c], out);
}

void ac_candidates_check(ac_settings_t *s, char *errbuf, size_t errlen) {
    ac_errs_t err = {errbuf, errlen, 0};
    if (errlen) errbuf[0] = '\0';
    for (int c = 0; c < AUTOCOLL_NCOLL; c++) {
        if (!s->cand[c][0]) continue;
        char var[64], val[sizeof s->cand[0]];
        size_t k = (size_t)snprintf(var, sizeof var, "AUTOCOLL_CANDIDATES_");
        for (const char *n = ac_coll_name(c); *n && k + 1 < sizeof var; n++)
            var[k++] = (char)toupper((unsigned char)*n);
        var[k] = '\0';
        strcpy(val, s->cand[c]);
        set_candidates(s, c, var, val, &err);
    }
    ac_errs_end(&err);
}

/* ac_sel.native_only (select.h). AUTOCOLL_REPRODUCIBLE is excluded because it refuses the MPI
 * library's algorithm for order-sensitive reductions, a choice that depends on the arguments; a
 * forced instance that did not parse falls back with a message per call pattern. Under ac_lock. */
static void native_only_update(void) {
    const ac_settings_t *s = &ac_g.set;
    int quiet = !s->verbose && !s->check && !s->reproducible;
    for (int c = 0; c < AUTOCOLL_NCOLL; c++) {
        const ac_alg_t *alg = NULL;
        if (quiet && ac_sel.have_forced[c])
            alg = (ac_sel.forced[c].alg->flags & AUTOCOLL_R_NATIVE) ? ac_sel.forced[c].alg : NULL;
        else if (quiet && !ac_sel.forced_bad[c] && s->mode == AC_MODE_NATIVE)
            alg = ac_alg_find(c, "native");
        __atomic_store_n(&ac_sel.native_only[c], alg, __ATOMIC_RELEASE);
    }
}

void ac_select_setup(int collective) {
    ac_registry_init();
    ac_ctx_set_free_hook(ac_adapt_ctx_free); /* the engine keeps what a context learned */
    char err[4096];
    ac_candidates_check(&ac_g.set, err, sizeof err);
    if (err[0] && ac_g.world_rank == 0)
        for (char *line = strtok(err, "\n"); line; line = strtok(NULL, "\n"))
            ac_log("%s", line);
    ac_lock();
    resolve_forced();
    native_only_update();
    ac_unlock();
    load_table(collective);
    ac_topo_setup(collective); /* AUTOCOLL_TOPOLOGY, attached to every new context */
    ac_ctx_set_create_hook(ac_topo_attach);
}

void ac_select_teardown(void) {
    static int done;
    if (done) return;
    done = 1;
    ac_adapt_finalize();
    autocoll_table_free(ac_sel.table);
    ac_sel.table = NULL;
    ac_topo_teardown();
}

AC_EXPORT int autocoll_force(int coll, const char *spec) {
    if (coll < 0 || coll >= AUTOCOLL_NCOLL) return MPI_ERR_ARG;
    int rc = MPI_SUCCESS;
    ac_lock();
    if (!spec || !*spec) {
        ac_sel.have_forced[coll] = 0;
        ac_sel.forced_bad[coll] = 0;
        ac_g.set.forced[coll][0] = '\0';
    } else {
        char err[256];
        ac_inst_t in;
        if (ac_inst_parse(coll, spec, &in, err, sizeof err) == 0) {
            ac_sel.forced[coll] = in;
            ac_sel.have_forced[coll] = 1;
            ac_sel.forced_bad[coll] = 0;
            snprintf(ac_g.set.forced[coll], sizeof ac_g.set.forced[coll], "%s", spec);
        } else {
            if (ac_g.set.verbose) ac_log("autocoll_force(%s): %s", ac_coll_name(coll), err);
            rc = MPI_ERR_ARG;
        }
    }
    __atomic_add_fetch(&ac_sel.gen, 1, __ATOMIC_RELEASE); /* cached choices are stale */
    native_only_update();
    ac_unlock();
    return rc;
}
