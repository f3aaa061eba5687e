/*
 * Learned-table persistence (AUTOCOLL_TABLE_OUT, docs/adaptive.md "Persistence").
 *
 * Each process keeps the rules its engine learned (adapt.c hands over every settled key of a
 * communicator it leads, when the communicator is freed and at MPI_Finalize) in a tuning table
 * of its own, one rule per collective, shape and sizes: the first communicator wins, and the
 * table's limit of AC_TABLE_MAX_RULES bounds the memory (the written table could not hold
 * more either). At MPI_Finalize every process writes its table as tuning-table JSON
 * (ac_table_to_json), world rank 0 gathers the texts, reads each back with the table parser
 * and merges them in world rank order (again the first rule of a collective, shape and sizes
 * wins), appends the rules of the table that was loaded, so that a later run that loads the
 * file starts from what was learned, and writes the file with provenance.
 *
 * Failures never stop the program or leave a rank behind: a process that cannot keep or write
 * its rules loses them with a log line; rank 0 takes a process's text only when it fits, and
 * tells every process how much to send before the texts are gathered.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "learned.h"
#include "table.h"

static autocoll_table_t learned; /* this process's rules (under ac_lock) */
static int rejected;             /* rules refused as not valid, or beyond the limit */
static int lost_logged;          /* the loss of a rule has been logged */

static int same_key(const ac_rule_t *r, int coll, int p, int nodes, int ppn, unsigned long long lo,
                    unsigned long long hi) {
    return r->coll == coll && r->pmin == p && r->nodes == nodes && r->ppn == ppn && r->lo == lo &&
           r->hi == hi;
}

void ac_learned_add(int coll, int p, int nodes, int ppn, unsigned long long lo,
                    unsigned long long hi, const char *instance) {
    for (int i = 0; i < learned.nrules; i++)
        if (same_key(&learned.rules[i], coll, p, nodes, ppn, lo, hi)) return;
    int full = learned.nrules == AC_TABLE_MAX_RULES;
    int rc = autocoll_table_add_rule(&learned, coll, p, p, nodes, ppn, lo, hi, instance);
    if (rc == MPI_SUCCESS) return;
    if (rc == MPI_ERR_ARG || full) rejected++; /* as when rank 0 added the rule */
    if (rc != MPI_ERR_ARG && !lost_logged) {
        lost_logged = 1;
        if (full)
            ac_log("AUTOCOLL_TABLE_OUT: more than %d rules learned: the later ones are lost",
                   AC_TABLE_MAX_RULES);
        else
            ac_log("AUTOCOLL_TABLE_OUT: out of memory: learned rules are lost");
    }
}

/* Appends the rules of t that out does not have yet (same collective, shape and sizes); counts
 * the ones that cannot be kept in *bad. */
static void merge(autocoll_table_t *out, const autocoll_table_t *t, int *bad) {
    for (int i = 0; i < t->nrules; i++) {
        const ac_rule_t *r = &t->rules[i];
        int dup = 0;
        for (int j = 0; j < out->nrules && !dup; j++)
            dup = same_key(&out->rules[j], r->coll, r->pmin, r->nodes, r->ppn, r->lo, r->hi);
        if (!dup && ac_table_push(out, r) != 0) ++*bad;
    }
}

/* World rank 0: the gathered texts (take[r] bytes of rank r at all + displs[r]) merged into
 * out, then the loaded table's rules; writes path. */
static void write_merged(const char *path, autocoll_table_t *out, const autocoll_table_t *loaded,
                         const char *all, const int *take, const int *displs, int p, int bad) {
    for (int r = 0; r < p; r++) {
        if (!take[r]) continue;
        int problems = 0;
        autocoll_table_t *t = autocoll_table_parse(all + displs[r], (unsigned long long)take[r],
                                                   NULL, NULL, &problems);
        bad += problems;
        if (!t) {
            ac_log("AUTOCOLL_TABLE_OUT=%s: the rules learned by rank %d are lost (out of memory)",
                   path, r);
            continue;
        }
        merge(out, t, &bad);
        autocoll_table_free(t);
    }
    for (int i = 0; loaded && i < loaded->nrules; i++)
        if (ac_table_push(out, &loaded->rules[i]) != 0) break;
    errno = 0;
    if (autocoll_table_write(out, path) != MPI_SUCCESS) {
        int e = errno;
        ac_log("AUTOCOLL_TABLE_OUT=%s: could not write the learned table: %s", path,
               e ? strerror(e) : "unknown error");
    } else if (ac_g.set.verbose >= 1)
        ac_log("learned table written to %s (%d rules%s)", path, autocoll_table_rule_count(out),
               bad ? ", some rules rejected" : "");
}

/* Collective over MPI_COMM_WORLD: gathers every process's rules (mine, nrej of them rejected)
 * to world rank 0, which writes path. */
static void gather_write(const char *path, const autocoll_table_t *loaded,
                         const autocoll_table_t *mine, int nrej) {
    int p, me = ac_g.world_rank, ok = 1, mytake = 0, total = 0, bad = 0, info[2];
    int *infos = NULL, *take = NULL, *displs = NULL;
    char *text = NULL, *all = NULL;
    size_t len = 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &p);

    /* This process's rules as tuning-table JSON. */
    if (mine->nrules) {
        text = ac_table_to_json(mine, &len);
        if (!text || len > AC_TABLE_MAX_FILE) {
            ac_log("AUTOCOLL_TABLE_OUT=%s: %s: the %d rules learned by this process are lost", path,
                   text ? "too large" : "out of memory", mine->nrules);
            free(text);
            text = NULL;
            len = 0;
        }
    }

    /* Provenance is collective over the world (host names); rules are rank 0's business. The
     * table lives on the stack: no rank can lack one and miss the collective. */
    autocoll_table_t out;
    memset(&out, 0, sizeof out);
    ac_table_fill_provenance(&out, MPI_COMM_WORLD, 0, 0, NULL);
    autocoll_table_set_info(&out, "tool", "autocoll adaptive engine");

    /* Rank 0 learns every text's length and rejected count and says how much of each it takes
     * (all of it, or nothing when it does not fit); then the texts are gathered. */
    if (me == 0) {
        infos = malloc(2 * (size_t)p * sizeof *infos);
        take = calloc((size_t)p, sizeof *take);
        displs = calloc((size_t)p, sizeof *displs);
        ok = infos && take && displs;
    }
    PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        if (me == 0)
            ac_log("AUTOCOLL_TABLE_OUT=%s: out of memory: the learned table is not written", path);
        goto fn_exit;
    }
    info[0] = (int)len; /* at most AC_TABLE_MAX_FILE */
    info[1] = nrej;
    PMPI_Gather(info, 2, MPI_INT, infos, 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (me == 0) {
        for (int r = 0; r < p; r++) {
            bad += infos[2 * r + 1];
            if (infos[2 * r] > INT_MAX - 1 - total) {
                ac_log("AUTOCOLL_TABLE_OUT=%s: the rules learned by rank %d are lost (too large)",
                       path, r);
                continue;
            }
            take[r] = infos[2 * r];
            displs[r] = total;
            total += take[r];
        }
        all = malloc((size_t)total + 1);
        if (!all) {
            ac_log("AUTOCOLL_TABLE_OUT=%s: out of memory: the learned table is not written", path);
            memset(take, 0, (size_t)p * sizeof *take);
        }
    }
    PMPI_Scatter(take, 1, MPI_INT, &mytake, 1, MPI_INT, 0, MPI_COMM_WORLD);
    PMPI_Gatherv(text ? text : "", mytake, MPI_CHAR, all, take, displs, MPI_CHAR, 0,
                 MPI_COMM_WORLD);
    if (me == 0 && all) write_merged(path, &out, loaded, all, take, displs, p, bad);
fn_exit:
    ac_table_clear(&out);
    free(all);
    free(text);
    free(infos);
    free(take);
    free(displs);
}

void ac_learned_write(const char *path, const autocoll_table_t *loaded) {
    ac_lock();
    autocoll_table_t mine = learned;
    int nrej = rejected;
    memset(&learned, 0, sizeof learned);
    rejected = 0;
    ac_unlock();
    if (path && path[0]) gather_write(path, loaded, &mine, nrej);
    ac_table_clear(&mine);
}
