/*
 * The adaptive engine (adapt.c): keys, the STAR state machine per key (star.h), the summary.
 * Called by the selector. Its parts: the candidates of a key with model pruning and groups
 * (candidates.h), the network measurement the models use (netmeasure.h), the learned table
 * written at MPI_Finalize (learned.h).
 */
#ifndef AC_ADAPT_H
#define AC_ADAPT_H

#include "select.h"         /* ac_ticket_t */
#include "../trace/trace.h" /* ac_arr_callstat_t */

/* Adaptive choice for this call (mode adaptive). Returns MPI_SUCCESS with *out set and the
 * ticket filled, or an MPI error (then the caller falls back). Collective: may measure the
 * network the first time a communicator is seen. */
int ac_adapt_select(ac_ctx_t *ctx, const ac_args_t *a, ac_inst_t *out, ac_ticket_t *tk);
/* The local time of the call served under tk; may reduce timings over the communicator. */
void ac_adapt_record(ac_ctx_t *ctx, const ac_args_t *a, ac_ticket_t *tk, double seconds);
/* The instance the cost model predicts fastest (mode model). 0 when it has one, else -1. */
int ac_adapt_model_best(ac_ctx_t *ctx, const ac_args_t *a, ac_inst_t *out);
/* Context teardown: keep what was learned for the table written at finalize. */
void ac_adapt_ctx_free(ac_ctx_t *ctx);
/* At MPI_Finalize, before ac_adapt_finalize, when collective tracing is on: the complete traced
 * invocations the engine chose (n of them, malloc'd; the engine frees them). Each settled key's
 * summary line then gives the arrival pattern of its calls (docs/adaptive.md). */
void ac_adapt_arrivals(ac_arr_callstat_t *calls, size_t n);
/* At MPI_Finalize (collective over MPI_COMM_WORLD): summary and AUTOCOLL_TABLE_OUT. */
void ac_adapt_finalize(void);

#endif
