/*
 * libFuzzer target: tuning-table parsing (autocoll_table_parse) on arbitrary bytes.
 *
 * Besides "no crash, no leak, no undefined behaviour" (address and undefined sanitizers), it
 * checks properties of every input: each problem is reported with a non-empty location and
 * message and the count matches the reports; a table that loads can be looked up; written out
 * and read back, it gives the same number of rules and no problem; the exports succeed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "autocoll.h"

static void report(void *arg, const char *where, const char *msg) {
    if (!where || !*where || !msg || !*msg) abort();
    ++*(int *)arg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static char path[64];
    if (!path[0]) snprintf(path, sizeof path, "/tmp/ac_fuzz_table.%d", (int)getpid());
    int seen = 0, n = -1;
    autocoll_table_t *t = autocoll_table_parse((const char *)data, size, report, &seen, &n);
    if (n != seen) abort();
    if (!t) {
        if (n < 1) abort(); /* a refusal always says why */
        return 0;
    }
    char buf[256];
    for (int c = 0; c < AUTOCOLL_NCOLL; c++)
        for (unsigned long long b = 0; b < (1ULL << 40); b = b * 64 + 1)
            autocoll_table_lookup(t, c, 1 + (int)(b % 64), 0, 0, b, buf, sizeof buf);
    if (autocoll_table_write(t, path) != MPI_SUCCESS) abort();
    int again = -1;
    autocoll_table_t *u = autocoll_table_load(path, NULL, NULL, &again);
    /* read back: same rules, and no problem except "empty" for a table without rules */
    int empty = autocoll_table_rule_count(t) == 0;
    if (!u || again != empty || autocoll_table_rule_count(u) != autocoll_table_rule_count(t))
        abort();
    autocoll_table_free(u);
    if (autocoll_table_export_ompi(t, path) < 0 || autocoll_table_export_mpich(t, path) < 0)
        abort();
    unlink(path);
    autocoll_table_free(t);
    return 0;
}
