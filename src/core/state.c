/*
 * Process-wide state: settings, forced instances, the lock for shared tables.
 *
 * Thread safety: under MPI_THREAD_MULTIPLE concurrent collectives on different communicators are
 * safe. Per-communicator contexts are touched only by the thread running a collective on that
 * communicator (MPI already requires collectives on one communicator to be serialized); the
 * process-wide tables (forcing, logs, statistics) are guarded by one mutex.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ac.h"
#include "../select/adapt.h"
#include "../select/table.h"

ac_state_t ac_g;
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
void ac_lock(void) {
    pthread_mutex_lock(&mtx);
}
void ac_unlock(void) {
    pthread_mutex_unlock(&mtx);
}

/* Resolve the AUTOCOLL_<COLL> settings into instances; called with the lock held. */
static void resolve_forced(void) {
    for (int c = 0; c < AUTOCOLL_NCOLL; c++) {
        ac_g.have_forced[c] = 0;
        ac_g.forced_bad[c] = 0;
        if (!ac_g.set.forced[c][0]) continue;
        char err[256];
        if (ac_inst_parse(c, ac_g.set.forced[c], &ac_g.forced[c], err, sizeof err) == 0) {
            ac_g.have_forced[c] = 1;
        } else {
            ac_g.forced_bad[c] = 1;
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

/* AUTOCOLL_TABLE: rank 0 reads the file and broadcasts it, so every rank parses the same
 * bytes (collective setup); problems are reported by rank 0 only. */
static void load_table(int collective) {
    const char *path = ac_g.set.table;
    char why[300] = "";
    size_t len = 0;
    char *buf = NULL;
    if (!path[0]) return;
    if (!collective || ac_g.world_rank == 0) buf = ac_table_read_file(path, &len, why, sizeof why);
    if (collective) {
        long n = buf ? (long)len : -1;
        PMPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        if (n >= 0 && ac_g.world_rank != 0) {
            buf = malloc((size_t)n + 1);
            len = (size_t)n;
        }
        /* Every rank must take part in the broadcast, even one out of memory. */
        int ok = buf != NULL || n < 0, all = 0;
        PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (n >= 0 && all) PMPI_Bcast(buf, (int)n, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (n >= 0 && !all) {
            free(buf);
            buf = NULL;
            snprintf(why, sizeof why, "out of memory");
        }
    }
    int problems = 0, report = ac_g.world_rank == 0;
    if (buf)
        ac_g.table = autocoll_table_parse(buf, (unsigned long long)len,
                                          report ? table_report : NULL, (void *)path, &problems);
    if (report && !ac_g.table)
        ac_log("AUTOCOLL_TABLE=%s: %s; not using a table", path, buf ? "unusable" : why);
    else if (report && ac_g.set.verbose >= 1)
        ac_log("AUTOCOLL_TABLE=%s: %d rules loaded%s", path, autocoll_table_rule_count(ac_g.table),
               problems ? " (problems above were skipped)" : "");
    free(buf);
}

void ac_state_setup(int collective) {
    if (ac_g.initialized) return;
    ac_registry_init();
    PMPI_Comm_rank(MPI_COMM_WORLD, &ac_g.world_rank);
    /* Tag ranges of the calls (AC_TAG): as many as fit below MPI_TAG_UB (at least 32767). */
    int *ub = NULL, flag = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    long tag_ub = flag && ub && *ub >= 32767 ? *ub : 32767;
    ac_g.tag_slots = (int)((tag_ub - AC_TAG_BASE + 1) / AC_TAG_STRIDE);
    char *block = ac_settings_env_block();
    if (collective) {
        /* Rank 0's settings for everyone: a rank whose environment differs cannot pick a
         * different algorithm and hang the job. */
        int len = (ac_g.world_rank == 0 && block) ? (int)strlen(block) + 1 : 0;
        PMPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
        char *shared = malloc(len > 0 ? (size_t)len : 1);
        if (shared) {
            if (ac_g.world_rank == 0 && len > 0) memcpy(shared, block, (size_t)len);
            if (len > 0)
                PMPI_Bcast(shared, len, MPI_CHAR, 0, MPI_COMM_WORLD);
            else
                shared[0] = '\0';
            free(block);
            block = shared;
        }
    }
    char err[4096];
    ac_settings_parse(&ac_g.set, block, err, sizeof err);
    free(block);
    if (err[0] && ac_g.world_rank == 0) {
        for (char *line = strtok(err, "\n"); line; line = strtok(NULL, "\n"))
            ac_log("%s", line);
    }
    ac_lock();
    resolve_forced();
    ac_unlock();
    load_table(collective);
    ac_ctx_init_keyval();
    ac_g.initialized = 1;
}

void ac_state_teardown(void) {
    if (!ac_g.initialized || ac_g.finalized) return;
    if (ac_g.set.verbose >= 1) ac_stats_report();
    ac_ctx_free_all();
    ac_sig_teardown();
    ac_adapt_finalize();
    autocoll_table_free(ac_g.table);
    ac_g.table = NULL;
    ac_g.finalized = 1;
}

AC_EXPORT int autocoll_force(int coll, const char *spec) {
    if (coll < 0 || coll >= AUTOCOLL_NCOLL) return MPI_ERR_ARG;
    int rc = MPI_SUCCESS;
    ac_lock();
    if (!spec || !*spec) {
        ac_g.have_forced[coll] = 0;
        ac_g.forced_bad[coll] = 0;
        ac_g.set.forced[coll][0] = '\0';
    } else {
        char err[256];
        ac_inst_t in;
        if (ac_inst_parse(coll, spec, &in, err, sizeof err) == 0) {
            ac_g.forced[coll] = in;
            ac_g.have_forced[coll] = 1;
            ac_g.forced_bad[coll] = 0;
            snprintf(ac_g.set.forced[coll], sizeof ac_g.set.forced[coll], "%s", spec);
        } else {
            if (ac_g.set.verbose) ac_log("autocoll_force(%s): %s", ac_coll_name(coll), err);
            rc = MPI_ERR_ARG;
        }
    }
    ac_unlock();
    return rc;
}

AC_EXPORT const char *autocoll_version(void) {
#define AC_STR2(x) #x
#define AC_STR(x) AC_STR2(x)
    return AC_STR(AUTOCOLL_VERSION_MAJOR) "." AC_STR(AUTOCOLL_VERSION_MINOR) "." AC_STR(
        AUTOCOLL_VERSION_PATCH);
}
