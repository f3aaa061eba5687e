/*
 * Predictor objects: the kind table, the window heuristics (LRU, FIFO, LFU), Tagging, the
 * per-site wrapping of the cycle engine (Tag-cycle(2), Tag-bettercycle(2)), the hit metric and
 * the memory accounting.
 *
 * Source: seed 004 (Afsahi 2000) §3.3.1, §3.4.4-3.4.6, §3.5.1, §6.5-6.7; spec
 * predictors-latency.md §3.1 (metric), §3.2 (windows), §3.4 (tag kinds), §3.5 (memory).
 * The cycle engine itself is in predict_cycle.c (spec §3.3).
 *
 * Cost: windows O(k) per event (linear scan of at most k slots; k is a port count, small), plus
 * one hash lookup for LFU's persistent counter. Tag kinds: one expected-O(1) hash lookup of the
 * site per event plus the engine's cost. Memory: see predict.h.
 *
 * Design choices: sites map to dense slot numbers (hash map site -> slot) so that the per-site
 * state lives in one growable array; the peak of identifiers held is kept incrementally (the
 * engine's live count before and after each event), so tag kinds with many sites never rescan.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "predict_impl.h"

/* ---- hash map ---------------------------------------------------------------------------- */

static size_t pmap_hash(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return (size_t)k;
}

void ac_pmap_free(ac_pmap *m) {
    free(m->key);
    free(m->val);
    free(m->used);
    memset(m, 0, sizeof *m);
}

static size_t pmap_slot(const ac_pmap *m, uint64_t key) {
    size_t i = pmap_hash(key) & (m->cap - 1);
    while (m->used[i] && m->key[i] != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

int64_t *ac_pmap_get(const ac_pmap *m, uint64_t key) {
    if (m->cap == 0) return NULL;
    size_t i = pmap_slot(m, key);
    return m->used[i] ? &m->val[i] : NULL;
}

static int pmap_grow(ac_pmap *m) {
    size_t cap = m->cap ? 2 * m->cap : 16;
    ac_pmap n = {calloc(cap, sizeof(uint64_t)), calloc(cap, sizeof(int64_t)), calloc(cap, 1), cap,
                 0};
    if (!n.key || !n.val || !n.used) {
        ac_pmap_free(&n);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i]) {
            size_t j = pmap_slot(&n, m->key[i]);
            n.used[j] = 1;
            n.key[j] = m->key[i];
            n.val[j] = m->val[i];
            n.n++;
        }
    ac_pmap_free(m);
    *m = n;
    return 0;
}

int64_t *ac_pmap_put(ac_pmap *m, uint64_t key, int64_t init, int *fresh) {
    *fresh = 0;
    if (m->cap) {
        size_t i = pmap_slot(m, key);
        if (m->used[i]) return &m->val[i];
    }
    if (2 * (m->n + 1) > m->cap && pmap_grow(m) != 0) return NULL;
    size_t i = pmap_slot(m, key);
    m->used[i] = 1;
    m->key[i] = key;
    m->val[i] = init;
    m->n++;
    *fresh = 1;
    return &m->val[i];
}

/* ---- kind table -------------------------------------------------------------------------- */

static const char *const kind_name[] = {
#define AC_PRED_NAME_(id, name, desc) name,
    AC_PRED_KINDS(AC_PRED_NAME_)
#undef AC_PRED_NAME_
};
static const char *const kind_desc[] = {
#define AC_PRED_DESC_(id, name, desc) desc,
    AC_PRED_KINDS(AC_PRED_DESC_)
#undef AC_PRED_DESC_
};

const char *ac_pred_name(ac_pred_kind kind) {
    return (unsigned)kind < AC_PRED_NKINDS ? kind_name[kind] : NULL;
}

const char *ac_pred_desc(ac_pred_kind kind) {
    return (unsigned)kind < AC_PRED_NKINDS ? kind_desc[kind] : NULL;
}

static int lower(int c) {
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

int ac_pred_parse(const char *name) {
    if (!name) return -1;
    for (int k = 0; k < AC_PRED_NKINDS; k++) {
        const char *a = kind_name[k], *b = name;
        while (*a && lower((unsigned char)*a) == lower((unsigned char)*b))
            a++, b++;
        if (!*a && !*b) return k;
    }
    return -1;
}

int ac_pred_is_window(ac_pred_kind kind) {
    return (unsigned)kind <= AC_PRED_LFU;
}

int ac_pred_is_tagged(ac_pred_kind kind) {
    return kind >= AC_PRED_TAGGING && kind < AC_PRED_NKINDS;
}

void ac_pred_params_default(ac_pred_params *prm) {
    prm->window = 1;
    prm->lmax = 1024;
    prm->hmax = 64;
    prm->smax = 0;
    prm->lfu_reset = 0;
}

/* ---- objects ----------------------------------------------------------------------------- */

typedef struct {
    ac_id id;
    uint64_t last; /* last use (LRU, LFU ties, "most recent" order) */
    uint64_t ins;  /* insertion (FIFO) */
    int64_t cnt;   /* in-cache count (LFU with lfu_reset) */
} ac_wslot;

typedef union {
    ac_id last;        /* Tagging */
    ac_cy_engine *eng; /* Tag-cycle family */
} ac_site;

struct ac_pred {
    ac_pred_kind kind;
    ac_pred_params prm;
    uint64_t events, predictions, hits;
    int64_t live, peak;
    /* windows */
    ac_wslot *w;
    int nw;
    uint64_t clock;
    ac_pmap counts; /* LFU persistent counts: id -> count */
    /* plain cycle kinds */
    ac_cy_engine eng;
    /* tag kinds */
    ac_pmap sites; /* site -> index into site[] */
    ac_site *site;
    int64_t nsites, scap;
};

static int engine_flags(ac_pred_kind k, int *better, int *v2) {
    switch (k) {
    case AC_PRED_SINGLE_CYCLE:
    case AC_PRED_TAG_CYCLE:
        *better = 0, *v2 = 0;
        return 1;
    case AC_PRED_SINGLE_CYCLE2:
    case AC_PRED_TAG_CYCLE2:
        *better = 0, *v2 = 1;
        return 1;
    case AC_PRED_BETTER_CYCLE:
    case AC_PRED_TAG_BETTERCYCLE:
        *better = 1, *v2 = 0;
        return 1;
    case AC_PRED_BETTER_CYCLE2:
    case AC_PRED_TAG_BETTERCYCLE2:
        *better = 1, *v2 = 1;
        return 1;
    default:
        return 0;
    }
}

ac_pred *ac_pred_create(ac_pred_kind kind, const ac_pred_params *prm) {
    ac_pred_params d;
    ac_pred_params_default(&d);
    if (!prm) prm = &d;
    if ((unsigned)kind >= AC_PRED_NKINDS || prm->window < 1 || prm->lmax < 1 || prm->hmax < 1 ||
        prm->smax < 0)
        return NULL;
    ac_pred *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->kind = kind;
    p->prm = *prm;
    if (ac_pred_is_window(kind)) {
        p->w = calloc((size_t)prm->window, sizeof *p->w);
        if (!p->w) {
            free(p);
            return NULL;
        }
    }
    int better, v2;
    if (!ac_pred_is_tagged(kind) && engine_flags(kind, &better, &v2))
        ac_cy_init(&p->eng, better, v2, prm->lmax, prm->hmax);
    return p;
}

void ac_pred_free(ac_pred *p) {
    if (!p) return;
    free(p->w);
    ac_pmap_free(&p->counts);
    ac_cy_free(&p->eng);
    if (p->kind != AC_PRED_TAGGING)
        for (int64_t i = 0; i < p->nsites; i++) {
            ac_cy_free(p->site[i].eng);
            free(p->site[i].eng);
        }
    free(p->site);
    ac_pmap_free(&p->sites);
    free(p);
}

ac_pred_kind ac_pred_kind_of(const ac_pred *p) {
    return p->kind;
}

static const ac_site *site_get(const ac_pred *p, uint64_t site) {
    const int64_t *i = ac_pmap_get(&p->sites, site);
    return i ? &p->site[*i] : NULL;
}

/* Most recently used window member, or -1. */
static int window_mru(const ac_pred *p) {
    int b = -1;
    for (int i = 0; i < p->nw; i++)
        if (b < 0 || p->w[i].last > p->w[b].last) b = i;
    return b;
}

ac_id ac_pred_next(const ac_pred *p, uint64_t site) {
    if (ac_pred_is_window(p->kind)) {
        int b = window_mru(p);
        return b < 0 ? AC_ID_NONE : p->w[b].id;
    }
    if (!ac_pred_is_tagged(p->kind)) return ac_cy_predict(&p->eng);
    const ac_site *s = site_get(p, site);
    if (!s) return AC_ID_NONE;
    return p->kind == AC_PRED_TAGGING ? s->last : ac_cy_predict(s->eng);
}

static int cmp_last_desc(const void *a, const void *b) {
    const ac_wslot *x = a, *y = b;
    return x->last < y->last ? 1 : x->last > y->last ? -1 : 0;
}

int ac_pred_predict_set(const ac_pred *p, uint64_t site, ac_id *out, int max) {
    if (!ac_pred_is_window(p->kind)) {
        ac_id g = ac_pred_next(p, site);
        if (g == AC_ID_NONE) return 0;
        if (max > 0) out[0] = g;
        return 1;
    }
    ac_wslot tmp[64], *s = p->nw <= 64 ? tmp : malloc((size_t)p->nw * sizeof *s);
    if (!s) { /* unsorted fallback */
        for (int i = 0; i < p->nw && i < max; i++)
            out[i] = p->w[i].id;
        return p->nw;
    }
    memcpy(s, p->w, (size_t)p->nw * sizeof *s);
    qsort(s, (size_t)p->nw, sizeof *s, cmp_last_desc);
    for (int i = 0; i < p->nw && i < max; i++)
        out[i] = s[i].id;
    if (s != tmp) free(s);
    return p->nw;
}

int ac_pred_ahead(const ac_pred *p, uint64_t site, int m, ac_id *out) {
    if (m <= 0) return 0;
    const ac_cy_engine *e = NULL;
    if (!ac_pred_is_window(p->kind) && !ac_pred_is_tagged(p->kind))
        e = &p->eng;
    else if (ac_pred_is_tagged(p->kind) && p->kind != AC_PRED_TAGGING) {
        const ac_site *s = site_get(p, site);
        if (!s) return 0;
        e = s->eng;
    }
    if (e) return ac_cy_ahead(e, m, out);
    ac_id g = ac_pred_next(p, site);
    if (g == AC_ID_NONE) return 0;
    out[0] = g;
    return 1;
}

/* Window heuristics (spec 3.2). Returns the hit flag; *oom set when a counter was lost. */
static int window_feed(ac_pred *p, ac_id x, int *oom) {
    *oom = 0;
    if (p->kind == AC_PRED_LFU && !p->prm.lfu_reset) {
        int fresh;
        int64_t *c = ac_pmap_put(&p->counts, (uint64_t)x, 0, &fresh);
        if (c)
            ++*c;
        else
            *oom = 1; /* counter lost: the identifier counts as seen once */
    }
    p->clock++;
    p->predictions += p->nw > 0;
    for (int i = 0; i < p->nw; i++)
        if (p->w[i].id == x) {
            p->w[i].last = p->clock;
            p->w[i].cnt++;
            return 1;
        }
    int v = p->nw;
    if (p->nw == p->prm.window) { /* evict */
        v = 0;
        for (int i = 1; i < p->nw; i++) {
            const ac_wslot *a = &p->w[i], *b = &p->w[v];
            int better;
            if (p->kind == AC_PRED_LRU) {
                better = a->last < b->last;
            } else if (p->kind == AC_PRED_FIFO) {
                better = a->ins < b->ins;
            } else {
                int64_t ca = a->cnt, cb = b->cnt;
                if (!p->prm.lfu_reset) {
                    const int64_t *pa = ac_pmap_get(&p->counts, (uint64_t)a->id);
                    const int64_t *pb = ac_pmap_get(&p->counts, (uint64_t)b->id);
                    ca = pa ? *pa : 1;
                    cb = pb ? *pb : 1;
                }
                better = ca < cb || (ca == cb && a->last < b->last);
            }
            if (better) v = i;
        }
    } else {
        p->nw++;
    }
    p->w[v].id = x;
    p->w[v].last = p->w[v].ins = p->clock;
    p->w[v].cnt = 1;
    return 0;
}

/* Slot of a site, created on first use; NULL when over smax or out of memory (*oom set). */
static ac_site *site_put(ac_pred *p, uint64_t site, int *oom) {
    *oom = 0;
    int64_t *i = ac_pmap_get(&p->sites, site);
    if (i) return &p->site[*i];
    if (p->prm.smax && p->nsites >= p->prm.smax) return NULL;
    if (p->nsites == p->scap) {
        int64_t cap = p->scap ? 2 * p->scap : 8;
        ac_site *n = realloc(p->site, (size_t)cap * sizeof *n);
        if (!n) {
            *oom = 1;
            return NULL;
        }
        p->site = n;
        p->scap = cap;
    }
    ac_site s;
    if (p->kind == AC_PRED_TAGGING) {
        s.last = AC_ID_NONE;
    } else {
        int better = 0, v2 = 0;
        engine_flags(p->kind, &better, &v2);
        s.eng = malloc(sizeof *s.eng);
        if (!s.eng) {
            *oom = 1;
            return NULL;
        }
        ac_cy_init(s.eng, better, v2, p->prm.lmax, p->prm.hmax);
    }
    int fresh;
    i = ac_pmap_put(&p->sites, site, p->nsites, &fresh);
    if (!i) {
        if (p->kind != AC_PRED_TAGGING) free(s.eng);
        *oom = 1;
        return NULL;
    }
    p->site[p->nsites] = s;
    return &p->site[p->nsites++];
}

int ac_pred_feed(ac_pred *p, ac_id x, uint64_t site) {
    if (x < 0) return -1;
    int rc = 0, hit = 0;
    p->events++;
    if (ac_pred_is_window(p->kind)) {
        int oom;
        hit = window_feed(p, x, &oom);
        rc = oom ? -1 : 0;
        if (p->nw > p->peak) p->peak = p->nw;
    } else {
        ac_id g = ac_pred_next(p, site);
        p->predictions += g != AC_ID_NONE;
        hit = g != AC_ID_NONE && g == x;
        ac_cy_engine *e = NULL;
        if (!ac_pred_is_tagged(p->kind)) {
            e = &p->eng;
        } else {
            int oom;
            int64_t before = p->nsites;
            ac_site *s = site_put(p, site, &oom);
            if (oom) rc = -1;
            if (s && p->kind == AC_PRED_TAGGING) {
                s->last = x;
                p->live += p->nsites - before;
            } else if (s) {
                e = s->eng;
            }
        }
        if (e) {
            int64_t before = ac_cy_live(e);
            if (ac_cy_observe(e, x) != 0) rc = -1;
            p->live += ac_cy_live(e) - before;
        }
        if (p->live > p->peak) p->peak = p->live;
    }
    p->hits += hit;
    return rc < 0 ? -1 : hit;
}

void ac_pred_get_stats(const ac_pred *p, ac_pred_stats *st) {
    memset(st, 0, sizeof *st);
    st->events = p->events;
    st->predictions = p->predictions;
    st->hits = p->hits;
    st->peak = p->peak;
    if (ac_pred_is_window(p->kind)) {
        st->mem = p->prm.window;
        return;
    }
    if (!ac_pred_is_tagged(p->kind)) {
        st->max_cycle_len = p->eng.max_len;
        st->max_heads = p->eng.max_heads;
    } else {
        st->max_sites = p->nsites;
        if (p->kind != AC_PRED_TAGGING)
            for (int64_t i = 0; i < p->nsites; i++) {
                const ac_cy_engine *e = p->site[i].eng;
                if (e->max_len > st->max_cycle_len) st->max_cycle_len = e->max_len;
                if (e->max_heads > st->max_heads) st->max_heads = e->max_heads;
            }
    }
    switch (p->kind) {
    case AC_PRED_SINGLE_CYCLE:
    case AC_PRED_SINGLE_CYCLE2:
        st->mem = st->max_cycle_len; /* eq. 3.1 */
        break;
    case AC_PRED_BETTER_CYCLE:
    case AC_PRED_BETTER_CYCLE2:
        st->mem = st->max_cycle_len * st->max_heads; /* eq. 3.2 */
        break;
    case AC_PRED_TAGGING:
        st->mem = st->max_sites; /* eq. 3.3 */
        break;
    case AC_PRED_TAG_CYCLE:
    case AC_PRED_TAG_CYCLE2:
        st->mem = st->max_sites * st->max_cycle_len; /* eq. 3.4 */
        break;
    default:                                                         /* Tag-bettercycle(2) */
        st->mem = st->max_sites * st->max_cycle_len * st->max_heads; /* eq. 3.5 */
        break;
    }
}

int ac_pred_run(ac_pred_kind kind, const ac_pred_params *prm, const ac_id *x, const uint64_t *site,
                size_t n, unsigned char *hit, ac_id *pred, ac_pred_stats *st) {
    if (n && !x) return -1;
    ac_pred *p = ac_pred_create(kind, prm);
    if (!p) return -1;
    int rc = 0;
    for (size_t t = 0; t < n; t++) {
        uint64_t s = site ? site[t] : 0;
        if (pred) pred[t] = ac_pred_next(p, s);
        int h = ac_pred_feed(p, x[t], s);
        if (h < 0) {
            rc = -1;
            break;
        }
        if (hit) hit[t] = (unsigned char)h;
    }
    if (st) ac_pred_get_stats(p, st);
    ac_pred_free(p);
    return rc;
}

size_t ac_pred_summary(const double *v, size_t n, double *min, double *avg, double *max) {
    size_t used = 0;
    double lo = NAN, hi = NAN, sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i])) continue;
        if (!used || v[i] < lo) lo = v[i];
        if (!used || v[i] > hi) hi = v[i];
        sum += v[i];
        used++;
    }
    if (min) *min = lo;
    if (max) *max = hi;
    if (avg) *avg = used ? sum / (double)used : NAN;
    return used;
}
