/*
 * Shared by the trace-file checkers (trace_check.c, trace_lean.c, tests/fortran/p2p_check.c):
 * CHECK(cond, fmt, ...) prints one line for each condition that does not hold and counts it in
 * fails.
 */
#ifndef AC_TESTS_CHECK_LINE_H
#define AC_TESTS_CHECK_LINE_H
#include <stdio.h>

static int fails;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fails++;                                                                               \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

#endif
