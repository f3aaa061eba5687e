/*
 * Learned-table persistence (learned.c): the rules the adaptive engine settles on are kept per
 * process as a tuning table (docs/tuning-table.md) and written to AUTOCOLL_TABLE_OUT at
 * MPI_Finalize, merged over every process and followed by the loaded table's rules.
 */
#ifndef AC_LEARNED_H
#define AC_LEARNED_H

#include "select.h"

/* Keeps a learned rule of this process: coll on communicators of exactly p ranks on `nodes`
 * nodes of ppn ranks, selection sizes [lo, hi) (hi == 0: no bound), the instance named by
 * `instance` (AUTOCOLL_<COLL> syntax). A rule for the same collective, shape and sizes as one
 * kept already is ignored (the first communicator wins). A rule that is not valid is counted as
 * rejected (reported when the table is written); one that cannot be kept (out of memory, more
 * than AC_TABLE_MAX_RULES) is lost with a log line. The caller holds ac_lock. */
void ac_learned_add(int coll, int p, int nodes, int ppn, unsigned long long lo,
                    unsigned long long hi, const char *instance);

/* At MPI_Finalize, after the last ac_learned_add. When path is set (the same on every rank):
 * collective over MPI_COMM_WORLD; world rank 0 gathers every process's rules, merges them (of
 * rules for the same collective, shape and sizes the first in world rank order wins), appends
 * loaded's rules (loaded may be NULL), adds provenance and writes path atomically. Then, path
 * set or not, this process's rules are forgotten. Failures (out of memory on any rank, a file
 * that cannot be written) lose rules with a log line, and every rank still takes part in every
 * collective. */
void ac_learned_write(const char *path, const autocoll_table_t *loaded);

#endif
