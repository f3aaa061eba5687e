/*
 * ac_table_check TABLE [LOG COLL,...]: loads a tuning table with autocoll_table_load and fails on
 * any problem or when it has no rule. With LOG (the stderr of a run with AUTOCOLL_VERBOSE=1 and
 * AUTOCOLL_MODE=table), every decision line of a collective that the table covers
 *   autocoll[0]: comm C (p=P, nodes=N) COLL [LO, HI) B -> INSTANCE (SOURCE)
 * must name the instance autocoll_table_lookup gives for (COLL, P, N, ceil(P/N), LO) and the
 * source "table"; every collective of the list must have at least one such line.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"

static void report(void *arg, const char *where, const char *msg) {
    (void)arg;
    fprintf(stderr, "table problem: %s: %s\n", where, msg);
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 4) {
        fprintf(stderr, "usage: ac_table_check TABLE [LOG COLL,...]\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    int nprob = 0, rc = 0;
    autocoll_table_t *t = autocoll_table_load(argv[1], report, NULL, &nprob);
    if (!t) {
        fprintf(stderr, "FAIL: %s could not be loaded\n", argv[1]);
        MPI_Finalize();
        return 1;
    }
    int nrules = autocoll_table_rule_count(t);
    printf("%s: %d rules, %d problems\n", argv[1], nrules, nprob);
    if (nprob || nrules == 0) rc = 1;
    if (argc == 4) {
        FILE *f = fopen(argv[2], "r");
        if (!f) {
            fprintf(stderr, "FAIL: cannot read %s\n", argv[2]);
            rc = 1;
        }
        int seen[AUTOCOLL_NCOLL] = {0}, covered[AUTOCOLL_NCOLL] = {0};
        char line[1024];
        while (f && fgets(line, sizeof line, f)) {
            const char *s = strstr(line, "autocoll[0]: comm ");
            if (!s) continue;
            long id;
            int p, nodes, used = 0;
            char coll[64], inst[256], src[64];
            unsigned long long lo, hi;
            if (sscanf(s,
                       "autocoll[0]: comm %ld (p=%d, nodes=%d) %63s [%llu, %llu) B -> %255s "
                       "(%63[^)])%n",
                       &id, &p, &nodes, coll, &lo, &hi, inst, src, &used) < 8)
                continue;
            int c = autocoll_coll_from_name(coll);
            if (c < 0 || nodes < 1) continue;
            int ppn = (p + nodes - 1) / nodes;
            char want[256];
            if (!autocoll_table_lookup(t, c, p, nodes, ppn, lo, want, sizeof want)) continue;
            covered[c] = 1;
            if (strcmp(want, inst) || strcmp(src, "table")) {
                printf("MISMATCH: %s at %llu B: the library ran %s (%s), the table says %s\n", coll,
                       lo, inst, src, want);
                rc = 1;
            } else {
                printf("ok: %s [%llu, %llu) B -> %s (table)\n", coll, lo, hi, inst);
                seen[c]++;
            }
        }
        if (f) fclose(f);
        char list[512];
        snprintf(list, sizeof list, "%s", argv[3]);
        for (char *sv = NULL, *tok = strtok_r(list, ",", &sv); tok;
             tok = strtok_r(NULL, ",", &sv)) {
            int c = autocoll_coll_from_name(tok);
            if (c < 0 || seen[c] == 0) {
                printf("FAIL: no table decision of %s in the log\n", tok);
                rc = 1;
            }
        }
        (void)covered;
        int any = 0;
        for (int c = 0; c < AUTOCOLL_NCOLL; c++)
            any += seen[c];
        if (!any) {
            printf("FAIL: no decision line of the log matches a table rule (does the library "
                   "honour AUTOCOLL_TABLE?)\n");
            rc = 1;
        }
    }
    autocoll_table_free(t);
    MPI_Finalize();
    return rc;
}
