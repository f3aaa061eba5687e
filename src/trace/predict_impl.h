/*
 * Internals of the predictor library (src/trace/predict*.c): the cycle engine of spec
 * predictors-latency.md §3.3 (seed 004 §3.4.1-3.4.3) and a small open-addressing hash map
 * used for sites (spec §3.4) and LFU counters (spec §3.2). Not for use outside src/trace.
 */
#ifndef AC_TRACE_PREDICT_IMPL_H
#define AC_TRACE_PREDICT_IMPL_H
#include <stddef.h>
#include <stdint.h>
#include "predict.h"

/* Hash map uint64 -> int64 without deletion; expected O(1), grows at load 1/2. */
typedef struct {
    uint64_t *key;
    int64_t *val;
    unsigned char *used;
    size_t cap, n;
} ac_pmap;

void ac_pmap_free(ac_pmap *m);
int64_t *ac_pmap_get(const ac_pmap *m, uint64_t key);
/* Slot of key, inserted with value init if absent (*fresh = 1); NULL when out of memory. */
int64_t *ac_pmap_put(ac_pmap *m, uint64_t key, int64_t init, int *fresh);

/* One cycle: e[0] is the head. */
typedef struct {
    int len;
    ac_id *e;
} ac_cycle;

typedef struct {
    ac_id head;
    ac_cycle c;
    uint64_t use; /* LRU stamp for head eviction */
} ac_head_slot;

typedef enum { AC_CY_START, AC_CY_FORM, AC_CY_PRED, AC_CY_PNEW, AC_CY_REVISE } ac_cy_phase;

typedef struct {
    unsigned better : 1, v2 : 1;
    ac_cy_phase ph;
    ac_id head, prev;  /* current head; last observed request */
    ac_id *build;      /* cycle under formation/revision */
    int blen, bcap;    /* its length and capacity */
    ac_cycle single;   /* Single family: the only stored cycle */
    ac_head_slot *hs;  /* Better family: head -> cycle */
    int nheads, hcap;  /* heads held; allocated slots */
    int cur;           /* cycle used in PRED/PNEW: -1 = single, else index into hs */
    int idx, left;     /* next expected index; PNEW: checks remaining */
    int lmax, hmax;    /* bounds */
    uint64_t clock;    /* head-use clock */
    int64_t stored;    /* identifiers in stored cycles */
    int64_t max_len;   /* longest cycle stored so far */
    int64_t max_heads; /* most heads held at once */
} ac_cy_engine;

void ac_cy_init(ac_cy_engine *e, int better, int v2, int lmax, int hmax);
void ac_cy_free(ac_cy_engine *e);
ac_id ac_cy_predict(const ac_cy_engine *e);
/* Next m predictions assuming hits (see ac_pred_ahead). */
int ac_cy_ahead(const ac_cy_engine *e, int m, ac_id *out);
/* Learn x. 0, or -1 when out of memory (the engine restarts formation at x). */
int ac_cy_observe(ac_cy_engine *e, ac_id x);
/* Identifiers held now: stored cycles plus the buffer under formation/revision. */
int64_t ac_cy_live(const ac_cy_engine *e);

#endif
