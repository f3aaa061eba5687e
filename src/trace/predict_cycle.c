/*
 * The cycle engine: Single-cycle, Single-cycle2, Better-cycle, Better-cycle2.
 *
 * Source: seed 004 (Afsahi 2000) §3.4.1-3.4.3 (state diagram Fig. 3.15); spec
 * predictors-latency.md §3.3, whose pseudo-code this file transcribes phase for phase.
 *
 * Phases: START (nothing seen), FORM (logging a cycle from its head until the head recurs),
 * PRED (walking the stored cycle), PNEW (Better only: a miss hit a known head, verify one full
 * pass of that head's cycle), REVISE (Better only: a miss during that pass; keep the confirmed
 * prefix, append the offending request and log until the head recurs). Parameterisation:
 * Single-cycle = {better 0, v2 0}, Single-cycle2 = {0, 1}, Better-cycle = {1, 0},
 * Better-cycle2 = {1, 1}; the v2 variants predict the previous request in FORM and REVISE.
 *
 * Cost: O(1) per event, except a miss in PRED of a Better engine (O(H) linear head lookup,
 * H <= hmax, default 64; seed 004 saw at most 9 heads) and closing or revising a cycle (O(L)
 * copy, L <= lmax). Memory: the stored cycles at their exact lengths plus one growable build
 * buffer.
 *
 * Design choices: heads are kept in a small array searched linearly (H is tiny in practice and
 * lookups happen only on misses); slots are referred to by index so that growing the array
 * never leaves a dangling cycle pointer; the least recently used head (stored or looked up)
 * is evicted when hmax heads are held and a new one must be stored (spec §3.3 extension).
 */
#include <stdlib.h>
#include <string.h>
#include "predict_impl.h"

void ac_cy_init(ac_cy_engine *e, int better, int v2, int lmax, int hmax) {
    memset(e, 0, sizeof *e);
    e->better = better ? 1 : 0;
    e->v2 = v2 ? 1 : 0;
    e->ph = AC_CY_START;
    e->head = e->prev = AC_ID_NONE;
    e->cur = -1;
    e->lmax = lmax;
    e->hmax = hmax;
}

void ac_cy_free(ac_cy_engine *e) {
    free(e->build);
    free(e->single.e);
    for (int i = 0; i < e->nheads; i++)
        free(e->hs[i].c.e);
    free(e->hs);
    memset(e, 0, sizeof *e);
}

static const ac_cycle *cur_cycle(const ac_cy_engine *e) {
    return e->cur < 0 ? &e->single : &e->hs[e->cur].c;
}

ac_id ac_cy_predict(const ac_cy_engine *e) {
    switch (e->ph) {
    case AC_CY_START:
        return AC_ID_NONE;
    case AC_CY_FORM:
    case AC_CY_REVISE:
        return e->v2 ? e->prev : AC_ID_NONE;
    default: /* PRED, PNEW */
        return cur_cycle(e)->e[e->idx];
    }
}

int ac_cy_ahead(const ac_cy_engine *e, int m, ac_id *out) {
    if (m <= 0) return 0;
    if (e->ph == AC_CY_PRED || e->ph == AC_CY_PNEW) {
        const ac_cycle *c = cur_cycle(e);
        for (int j = 0; j < m; j++)
            out[j] = c->e[(e->idx + j) % c->len];
        return m;
    }
    ac_id g = ac_cy_predict(e);
    if (g == AC_ID_NONE) return 0;
    out[0] = g;
    return 1;
}

int64_t ac_cy_live(const ac_cy_engine *e) {
    int forming = e->ph == AC_CY_FORM || e->ph == AC_CY_REVISE;
    return e->stored + (forming ? e->blen : 0);
}

/* Room for one more entry in the build buffer (capacity doubles up to lmax). */
static int build_reserve(ac_cy_engine *e, int need) {
    if (need <= e->bcap) return 0;
    int cap = e->bcap ? e->bcap : 8;
    while (cap < need)
        cap *= 2;
    if (cap > e->lmax) cap = e->lmax;
    ac_id *b = realloc(e->build, (size_t)cap * sizeof *b);
    if (!b) return -1;
    e->build = b;
    e->bcap = cap;
    return 0;
}

static int begin_form(ac_cy_engine *e, ac_id x) {
    e->ph = AC_CY_FORM;
    e->head = x;
    e->blen = 0;
    if (build_reserve(e, 1) != 0)
        return -1; /* blen 0: the next request starts over through the overflow path */
    e->build[0] = x;
    e->blen = 1;
    return 0;
}

/* Copy the build buffer into cycle c (exact length). */
static int cycle_store(ac_cy_engine *e, ac_cycle *c) {
    ac_id *n = realloc(c->e, (size_t)e->blen * sizeof *n);
    if (!n) return -1;
    memcpy(n, e->build, (size_t)e->blen * sizeof *n);
    e->stored += e->blen - c->len;
    c->e = n;
    c->len = e->blen;
    if (c->len > e->max_len) e->max_len = c->len;
    return 0;
}

static int head_find(ac_cy_engine *e, ac_id h) {
    for (int i = 0; i < e->nheads; i++)
        if (e->hs[i].head == h) return i;
    return -1;
}

/* Slot of head h, created (evicting the least recently used head when full) if absent. */
static int head_upsert(ac_cy_engine *e, ac_id h) {
    int i = head_find(e, h);
    if (i < 0) {
        if (e->nheads < e->hmax) {
            if (e->nheads == e->hcap) {
                int cap = e->hcap ? 2 * e->hcap : 4;
                if (cap > e->hmax) cap = e->hmax;
                ac_head_slot *n = realloc(e->hs, (size_t)cap * sizeof *n);
                if (!n) return -1;
                e->hs = n;
                e->hcap = cap;
            }
            i = e->nheads++;
            if (e->nheads > e->max_heads) e->max_heads = e->nheads;
        } else {
            i = 0;
            for (int j = 1; j < e->nheads; j++)
                if (e->hs[j].use < e->hs[i].use) i = j;
            free(e->hs[i].c.e);
            e->stored -= e->hs[i].c.len;
        }
        e->hs[i].head = h;
        e->hs[i].c.len = 0;
        e->hs[i].c.e = NULL;
    }
    e->hs[i].use = ++e->clock;
    return i;
}

/* The head recurred: store the built cycle and predict from it. */
static int close_cycle(ac_cy_engine *e) {
    int slot = -1;
    if (e->better) {
        slot = head_upsert(e, e->head);
        if (slot < 0) return -1;
    }
    ac_cycle *c = slot < 0 ? &e->single : &e->hs[slot].c;
    if (cycle_store(e, c) != 0) return -1;
    e->max_heads = e->max_heads ? e->max_heads : 1;
    e->cur = slot;
    e->idx = 1 % c->len;
    e->ph = AC_CY_PRED;
    return 0;
}

static void enter_pnew(ac_cy_engine *e, int slot) {
    const ac_cycle *c = &e->hs[slot].c;
    e->hs[slot].use = ++e->clock;
    e->head = c->e[0];
    e->cur = slot;
    e->idx = 1 % c->len;
    e->left = c->len;
    e->ph = AC_CY_PNEW;
}

/* Append x to the cycle under formation/revision; restart at x when it would exceed lmax. */
static int build_push(ac_cy_engine *e, ac_id x) {
    if (e->blen == 0 || e->blen >= e->lmax) return begin_form(e, x);
    if (build_reserve(e, e->blen + 1) != 0) {
        begin_form(e, x);
        return -1;
    }
    e->build[e->blen++] = x;
    return 0;
}

int ac_cy_observe(ac_cy_engine *e, ac_id x) {
    int rc = 0;
    switch (e->ph) {
    case AC_CY_START:
        rc = begin_form(e, x);
        break;
    case AC_CY_FORM:
    case AC_CY_REVISE:
        if (x == e->head && e->blen > 0) {
            if (close_cycle(e) != 0) {
                begin_form(e, x);
                rc = -1;
            }
        } else {
            rc = build_push(e, x);
        }
        break;
    case AC_CY_PRED: {
        const ac_cycle *c = cur_cycle(e);
        int h;
        if (x == c->e[e->idx])
            e->idx = (e->idx + 1) % c->len;
        else if (e->better && (h = head_find(e, x)) >= 0)
            enter_pnew(e, h);
        else
            rc = begin_form(e, x);
        break;
    }
    case AC_CY_PNEW: {
        const ac_cycle *c = cur_cycle(e);
        if (x == c->e[e->idx]) {
            e->idx = (e->idx + 1) % c->len;
            if (--e->left == 0) e->ph = AC_CY_PRED; /* one full cycle confirmed */
        } else {
            /* Revise the cycle of e->head: keep the confirmed prefix (reconstruction (a)). */
            int keep = e->idx > 0 ? e->idx : c->len;
            if (build_reserve(e, keep + 1 <= e->lmax ? keep + 1 : keep) != 0) {
                begin_form(e, x);
                rc = -1;
                break;
            }
            memcpy(e->build, c->e, (size_t)keep * sizeof *e->build);
            e->blen = keep;
            e->ph = AC_CY_REVISE;
            if (x == e->head) {
                if (close_cycle(e) != 0) {
                    begin_form(e, x);
                    rc = -1;
                }
            } else {
                rc = build_push(e, x);
            }
        }
        break;
    }
    }
    e->prev = x;
    return rc;
}
