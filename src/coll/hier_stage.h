/* Stage records of the trees run as the parts of a node-aware (`hier`) call (src/coll/hier_stage.c;
 * records in src/trace/trace.h, AC_TK_PART_*). */
#ifndef AC_COLL_HIER_STAGE_H
#define AC_COLL_HIER_STAGE_H
#include "algs.h"
#include "../trace/trace.h" /* AC_HIER_INTRA, AC_HIER_INTER */

/* Runs part b of the hierarchical call a (made on ctx) with algorithm alg on pctx, as its
 * intra-node (AC_HIER_INTRA) or inter-node (AC_HIER_INTER) stage. When collective tracing is on
 * and a is the whole call (a->comm == ctx->comm), the tree executors the part runs are stamped
 * and, after it returns successfully, their records are written with the call number of a.
 * Otherwise the same as ac_run_part_alg(b, alg, pctx). */
int ac_hier_part(const ac_args_t *a, ac_ctx_t *ctx, int stage, const ac_args_t *b,
                 const ac_alg_t *alg, ac_ctx_t *pctx);

#endif
