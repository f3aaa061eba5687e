/*
 * The interposition layer: MPI_* and autocoll_<coll> entry points (wrappers.c), the single path
 * of every collective (dispatch.c) and the per-call statistics (stats.c). The top floor: it uses
 * select (one choice record per call) and core; nothing below calls it.
 */
#ifndef AC_PMPI_H
#define AC_PMPI_H

#include "../select/select.h"

/* dispatch.c */
int ac_dispatch(ac_args_t *a);
/* 1 when a call on comm must go straight to PMPI_<Coll> (see dispatch.c). */
int ac_passthrough(MPI_Comm comm);
/* Set up core then select (collective over MPI_COMM_WORLD when collective is 1), and the
 * reverse at MPI_Finalize. */
void ac_setup(int collective);
void ac_teardown(void);

/* stats.c (AUTOCOLL_VERBOSE >= 1) */
void ac_stats_add(int coll, int alg, double seconds);
/* One call whose forced instance could not run (counted by the communicator's rank 0). */
void ac_stats_fallback(int coll);
void ac_stats_report(void); /* collective over MPI_COMM_WORLD; at finalize */

#endif
