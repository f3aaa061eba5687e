/* The calls of trace_hier.c, shared with its checker trace_hier_check.c. */
#ifndef AC_TEST_TRACE_HIER_H
#define AC_TEST_TRACE_HIER_H
enum { AC_TRACE_HIER_ROUNDS = 4, AC_TRACE_HIER_N = 5 };
#endif
