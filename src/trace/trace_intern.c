/*
 * Interning of the point-to-point identifiers of seed 004 (spec predictors-latency.md §2.2): a
 * per-process map from a tuple of words to a dense int32 id given in first-seen order. Send
 * side: <dest, communicator, communicator generation>; receive side: <source, tag, count,
 * datatype, buffer, communicator, generations of both handles>. The generation of a handle is
 * the number of times a handle of that value was freed (MPI_Comm_free, MPI_Type_free), so a
 * recycled handle value gives new ids (ac_intern_gen / ac_intern_bump).
 *
 * Design: open addressing with linear probing over a power-of-two table, doubled at 50% load;
 * keys of at most AC_INTERN_WORDS words hashed with a multiply-fold per word. Not thread-safe
 * (the caller holds a lock). Cost: O(1) expected per lookup, memory 2 x (keys + 1) slots of
 * AC_INTERN_WORDS + 1 words. The number of ids is bounded by AC_INTERN_MAX: beyond it lookups
 * return -1 (the record then has no identifier and is left out of the predictor streams).
 */
#include <stdlib.h>
#include <string.h>
#include "trace.h"

static uint64_t hash_words(const uint64_t *k, int n) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
    for (int i = 0; i < n; i++) {
        h = (h ^ k[i]) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    return h;
}

static int grow(ac_intern_t *m) {
    size_t ncap = m->cap ? 2 * m->cap : 64;
    ac_intern_slot_t *s = calloc(ncap, sizeof *s);
    if (!s) return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slot[i].used) continue;
        size_t j = m->slot[i].hash & (ncap - 1);
        while (s[j].used)
            j = (j + 1) & (ncap - 1);
        s[j] = m->slot[i];
    }
    free(m->slot);
    m->slot = s;
    m->cap = ncap;
    return 0;
}

int32_t ac_intern(ac_intern_t *m, const uint64_t *key, int nwords) {
    if (nwords < 1 || nwords > AC_INTERN_WORDS) return -1;
    if ((m->n + 1) * 2 > m->cap && grow(m) != 0) return -1;
    uint64_t h = hash_words(key, nwords);
    size_t j = h & (m->cap - 1);
    for (;; j = (j + 1) & (m->cap - 1)) {
        ac_intern_slot_t *s = &m->slot[j];
        if (!s->used) break;
        if (s->hash == h && s->nwords == nwords &&
            !memcmp(s->key, key, (size_t)nwords * sizeof *key))
            return s->id;
    }
    if (m->n >= AC_INTERN_MAX) return -1;
    ac_intern_slot_t *s = &m->slot[j];
    s->used = 1;
    s->hash = h;
    s->nwords = nwords;
    memcpy(s->key, key, (size_t)nwords * sizeof *key);
    s->id = (int32_t)m->n++;
    return s->id;
}

uint64_t ac_intern_gen(ac_intern_t *gens, uint64_t handle) {
    /* generations are stored as ids of the keys <handle, k>: the generation is the number of
     * k = 1, 2, ... present, found by probing in order (frees of one handle value are rare) */
    uint64_t g = 0;
    for (;;) {
        uint64_t k[2] = {handle, g + 1};
        if (ac_intern_find(gens, k, 2) < 0) return g;
        g++;
    }
}

void ac_intern_bump(ac_intern_t *gens, uint64_t handle) {
    uint64_t k[2] = {handle, ac_intern_gen(gens, handle) + 1};
    ac_intern(gens, k, 2);
}

int32_t ac_intern_find(const ac_intern_t *m, const uint64_t *key, int nwords) {
    if (!m->cap || nwords < 1 || nwords > AC_INTERN_WORDS) return -1;
    uint64_t h = hash_words(key, nwords);
    for (size_t j = h & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
        const ac_intern_slot_t *s = &m->slot[j];
        if (!s->used) return -1;
        if (s->hash == h && s->nwords == nwords &&
            !memcmp(s->key, key, (size_t)nwords * sizeof *key))
            return s->id;
    }
}

void ac_intern_free(ac_intern_t *m) {
    free(m->slot);
    memset(m, 0, sizeof *m);
}
