/*
 * Topology files: parser, validator, derived tree, paths, generator, SimGrid writer.
 *
 * Source: seed 000 (Faraj 2006) §3.1 and §3.4.3 (random switch trees); spec
 * star-stage-ethernet.md sections 1.2 and 3.1. Format: docs/topology.md.
 *
 * Design choices:
 *  - Two passes: the first reads every record (syntax, duplicates), the second resolves
 *    references, so records may appear in any order and every error is reported with its line,
 *    not only the first one.
 *  - A link that joins two switches already connected closes a cycle: the error names that link.
 *    Several components are allowed only if the extra ones hold no machine (they are pruned);
 *    a machine outside the component of rank 0 is a "disconnected machine" error.
 *  - Ids are strings; an open-addressing hash table maps them to (kind, index). Input bytes are
 *    never trusted: ids have a bounded length and alphabet, numbers are range checked, and the
 *    counts of records are bounded (AC_TOPO_MAX_*).
 * Cost: O(bytes + records) to parse, O(nv) to derive the tree.
 */
#include "topo.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ PRNG (splitmix64) */
uint64_t ac_rng_next(ac_rng_t *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint32_t ac_rng_below(ac_rng_t *r, uint32_t n) {
    /* Lemire's multiply-shift; the tiny bias is irrelevant for test topologies. */
    return (uint32_t)(((ac_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* ------------------------------------------------------------------ error list */
enum { MAX_ERR_LINES = 50 };

typedef struct {
    char *buf;
    size_t len, cap;
    int n;
    const char *fname;
} errs_t;

static void err_add(errs_t *e, long line, const char *fmt, ...) {
    e->n++;
    if (e->n > MAX_ERR_LINES) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char head[600];
    int k = snprintf(head, sizeof head, "%s:%ld: %s\n", e->fname, line, msg);
    if (k < 0) return;
    size_t need = (size_t)k < sizeof head ? (size_t)k : sizeof head - 1;
    if (e->len + need + 1 > e->cap) {
        size_t nc = (e->cap ? e->cap * 2 : 256) + need + 1;
        char *nb = realloc(e->buf, nc);
        if (!nb) return;
        e->buf = nb;
        e->cap = nc;
    }
    memcpy(e->buf + e->len, head, need);
    e->len += need;
    e->buf[e->len] = '\0';
}

/* ------------------------------------------------------------------ id table */
typedef struct {
    char **key;
    int *kind; /* 0 switch, 1 machine */
    int *idx;
    size_t cap, n;
} idmap_t;

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static int idmap_grow(idmap_t *m) {
    size_t nc = m->cap ? m->cap * 2 : 64;
    char **k = calloc(nc, sizeof *k);
    int *kd = malloc(nc * sizeof *kd), *ix = malloc(nc * sizeof *ix);
    if (!k || !kd || !ix) {
        free(k), free(kd), free(ix);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->key[i]) continue;
        size_t h = hash_str(m->key[i]) & (nc - 1);
        while (k[h])
            h = (h + 1) & (nc - 1);
        k[h] = m->key[i], kd[h] = m->kind[i], ix[h] = m->idx[i];
    }
    free(m->key), free(m->kind), free(m->idx);
    m->key = k, m->kind = kd, m->idx = ix, m->cap = nc;
    return 0;
}

/* Returns the slot of key (found or not). */
static size_t idmap_slot(const idmap_t *m, const char *key) {
    size_t h = hash_str(key) & (m->cap - 1);
    while (m->key[h] && strcmp(m->key[h], key) != 0)
        h = (h + 1) & (m->cap - 1);
    return h;
}

static int idmap_find(const idmap_t *m, const char *key, int *kind) {
    if (!m->cap) return -1;
    size_t h = idmap_slot(m, key);
    if (!m->key[h]) return -1;
    *kind = m->kind[h];
    return m->idx[h];
}

/* key is borrowed (owned by the topology arrays). */
static int idmap_put(idmap_t *m, char *key, int kind, int idx) {
    if ((m->n + 1) * 2 > m->cap && idmap_grow(m)) return -1;
    size_t h = idmap_slot(m, key);
    m->key[h] = key, m->kind[h] = kind, m->idx[h] = idx;
    m->n++;
    return 0;
}

static void idmap_free(idmap_t *m) {
    free(m->key), free(m->kind), free(m->idx);
}

/* ------------------------------------------------------------------ growable arrays */
#define GROW(arr, n, cap, fail)                                                                    \
    do {                                                                                           \
        if ((n) >= (cap)) {                                                                        \
            size_t nc_ = (cap) ? (size_t)(cap)*2 : 16;                                             \
            void *p_ = realloc((arr), nc_ * sizeof *(arr));                                        \
            if (!p_) goto fail;                                                                    \
            (arr) = p_;                                                                            \
            (cap) = nc_;                                                                           \
        }                                                                                          \
    } while (0)

/* Raw records of the first pass. */
typedef struct {
    long line;
    char *a, *b; /* machine: switch id; link: both ids; rank: machine id in b */
    long r;
} rec_t;

/* ------------------------------------------------------------------ lexical checks */
static int valid_id(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > AC_TOPO_MAX_ID) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.') return 0;
    return 1;
}

/* Non-negative decimal number with optional fraction and exponent followed by one of units. */
static int valid_quantity(const char *s, const char *const *units) {
    const char *p = s;
    int digits = 0;
    while (isdigit((unsigned char)*p))
        p++, digits++;
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p))
            p++, digits++;
    }
    if (!digits) return 0;
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        if (*q == '+' || *q == '-') q++;
        if (isdigit((unsigned char)*q)) {
            while (isdigit((unsigned char)*q))
                q++;
            p = q;
        }
    }
    for (int i = 0; units[i]; i++)
        if (strcmp(p, units[i]) == 0) return 1;
    return 0;
}

static const char *const BW_UNITS[] = {
    "Bps",  "kBps", "KBps", "MBps", "GBps", "TBps",  "KiBps", "MiBps", "GiBps", "TiBps", "bps",
    "kbps", "Kbps", "Mbps", "Gbps", "Tbps", "Kibps", "Mibps", "Gibps", "Tibps", NULL};
static const char *const LAT_UNITS[] = {"s", "ms", "us", "ns", "ps", "m", "h", NULL};
static const char *const SPEED_UNITS[] = {"f", "kf", "Kf", "Mf", "Gf", "Tf", "Pf", NULL};

static char *dupstr(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* Splits line (modified in place) into at most max words; returns the count, or max+1 if more. */
static int split(char *line, char **w, int max) {
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v')
            p++;
        if (!*p) break;
        if (n == max) return max + 1;
        w[n++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\f' && *p != '\v')
            p++;
        if (*p) *p++ = '\0';
    }
    return n;
}

static int parse_rank(const char *s, long *out) {
    if (!*s) return -1;
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p)) return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 0 || v >= AC_TOPO_MAX_RANKS) return -1;
    *out = v;
    return 0;
}

/* ------------------------------------------------------------------ free */
void ac_topo_free(ac_topo_t *t) {
    if (!t) return;
    for (int i = 0; i < t->nsw; i++)
        free(t->sw_name[i]);
    for (int i = 0; i < t->nmach; i++) {
        free(t->mach_name[i]), free(t->mach_bw[i]), free(t->mach_lat[i]);
        free(t->mach_speed[i]);
    }
    for (int i = 0; i < t->nlink; i++)
        free(t->link_bw[i]), free(t->link_lat[i]);
    free(t->sw_name), free(t->mach_name), free(t->mach_sw), free(t->mach_bw), free(t->mach_lat);
    free(t->mach_speed), free(t->link_a), free(t->link_b), free(t->link_bw), free(t->link_lat);
    free(t->rank_mach), free(t->parent), free(t->depth), free(t->kind), free(t->orig);
    free(t->cstart), free(t->child), free(t->nleaves);
    free(t);
}

/* ------------------------------------------------------------------ union-find */
static int uf_find(int *uf, int x) {
    while (uf[x] != x)
        x = uf[x] = uf[uf[x]];
    return x;
}

/* ------------------------------------------------------------------ derived tree */
/* Builds the derived tree of a validated topology; main_comp is the union-find root of the
 * component holding rank 0. Returns 0, -1 on no memory. */
static int derive(ac_topo_t *t, int *uf, int main_comp) {
    int P = t->nranks, S = t->nsw, M = t->nmach, rc = -1;
    int *mach_nr = calloc((size_t)M, sizeof *mach_nr);
    int *sadj_start = calloc((size_t)S + 1, sizeof *sadj_start);
    int *sadj = malloc(((size_t)2 * t->nlink + 1) * sizeof *sadj);
    int *spar = malloc(((size_t)S + 1) * sizeof *spar),
        *sorder = malloc(((size_t)S + 1) * sizeof *sorder);
    int *scnt = calloc((size_t)S + 1, sizeof *scnt),
        *svert = malloc(((size_t)S + 1) * sizeof *svert);
    int *nicv = malloc(((size_t)M + 1) * sizeof *nicv);
    int *ea = NULL, *eb = NULL, *adj_start = NULL, *adj = NULL, *fill = NULL, *queue = NULL;
    if (!mach_nr || !sadj_start || !sadj || !spar || !sorder || !scnt || !svert || !nicv) goto out;
    for (int r = 0; r < P; r++)
        mach_nr[t->rank_mach[r]]++;
    /* Switch adjacency (main component only). */
    for (int l = 0; l < t->nlink; l++)
        sadj_start[t->link_a[l] + 1]++, sadj_start[t->link_b[l] + 1]++;
    for (int s = 0; s < S; s++)
        sadj_start[s + 1] += sadj_start[s];
    {
        int *pos = malloc(((size_t)S + 1) * sizeof *pos);
        if (!pos) goto out;
        memcpy(pos, sadj_start, (size_t)S * sizeof *pos);
        for (int l = 0; l < t->nlink; l++) {
            sadj[pos[t->link_a[l]]++] = t->link_b[l];
            sadj[pos[t->link_b[l]]++] = t->link_a[l];
        }
        free(pos);
    }
    /* Root the switch tree at rank 0's switch, count ranks per switch subtree. */
    int s0 = t->mach_sw[t->rank_mach[0]], head = 0, tail = 0;
    for (int s = 0; s < S; s++)
        spar[s] = -2;
    spar[s0] = -1;
    sorder[tail++] = s0;
    while (head < tail) {
        int s = sorder[head++];
        for (int k = sadj_start[s]; k < sadj_start[s + 1]; k++)
            if (spar[sadj[k]] == -2) spar[sadj[k]] = s, sorder[tail++] = sadj[k];
    }
    for (int m = 0; m < M; m++)
        if (mach_nr[m]) scnt[t->mach_sw[m]] += mach_nr[m];
    for (int k = tail - 1; k > 0; k--)
        scnt[spar[sorder[k]]] += scnt[sorder[k]];
    (void)uf, (void)main_comp;

    /* Vertex numbering. A single machine with several ranks makes its switch a leaf of the
     * derived tree (its only neighbour is the NIC switch): that switch is pruned too. */
    int nv = P, s0deg = 0;
    for (int m = 0; m < M; m++)
        s0deg += mach_nr[m] > 0 && t->mach_sw[m] == s0;
    for (int k = sadj_start[s0]; k < sadj_start[s0 + 1]; k++)
        s0deg += scnt[sadj[k]] > 0;
    int drop_s0 = s0deg == 1 && mach_nr[t->rank_mach[0]] >= 2;
    for (int s = 0; s < S; s++)
        svert[s] = (spar[s] != -2 && scnt[s] > 0 && !(drop_s0 && s == s0)) ? nv++ : -1;
    for (int m = 0; m < M; m++)
        nicv[m] = mach_nr[m] >= 2 ? nv++ : -1;
    t->nv = nv;
    t->root = P;
    int ne = nv - 1;
    ea = malloc(((size_t)ne + 1) * sizeof *ea), eb = malloc(((size_t)ne + 1) * sizeof *eb);
    t->kind = malloc((size_t)nv * sizeof *t->kind), t->orig = malloc((size_t)nv * sizeof *t->orig);
    if (!ea || !eb || !t->kind || !t->orig) goto out;
    int e = 0;
    for (int r = 0; r < P; r++) {
        int m = t->rank_mach[r];
        t->kind[r] = AC_TV_RANK, t->orig[r] = m;
        ea[e] = r, eb[e++] = nicv[m] >= 0 ? nicv[m] : svert[t->mach_sw[m]];
    }
    for (int s = 0; s < S; s++)
        if (svert[s] >= 0) {
            t->kind[svert[s]] = AC_TV_SWITCH, t->orig[svert[s]] = s;
            if (spar[s] >= 0) ea[e] = svert[s], eb[e++] = svert[spar[s]];
        }
    for (int m = 0; m < M; m++)
        if (nicv[m] >= 0) {
            t->kind[nicv[m]] = AC_TV_NIC, t->orig[nicv[m]] = m;
            if (svert[t->mach_sw[m]] >= 0) ea[e] = nicv[m], eb[e++] = svert[t->mach_sw[m]];
        }
    if (e != ne) goto out; /* cannot happen on a validated topology */
    /* Undirected CSR with sorted neighbour lists, then BFS from the root. */
    adj_start = calloc((size_t)nv + 1, sizeof *adj_start);
    adj = malloc(((size_t)2 * ne + 1) * sizeof *adj);
    fill = malloc((size_t)nv * sizeof *fill);
    queue = malloc((size_t)nv * sizeof *queue);
    t->parent = malloc((size_t)nv * sizeof *t->parent);
    t->depth = malloc((size_t)nv * sizeof *t->depth);
    t->cstart = calloc((size_t)nv + 1, sizeof *t->cstart);
    t->child = malloc(((size_t)ne + 1) * sizeof *t->child);
    t->nleaves = calloc((size_t)nv, sizeof *t->nleaves);
    if (!adj_start || !adj || !fill || !queue || !t->parent || !t->depth || !t->cstart ||
        !t->child || !t->nleaves)
        goto out;
    /* Edges were produced with increasing first endpoint per kind; inserting by counting sort
     * over both endpoints, then sorting each list, gives increasing neighbour ids. */
    for (int k = 0; k < ne; k++)
        adj_start[ea[k] + 1]++, adj_start[eb[k] + 1]++;
    for (int v = 0; v < nv; v++)
        adj_start[v + 1] += adj_start[v];
    memcpy(fill, adj_start, (size_t)nv * sizeof *fill);
    for (int k = 0; k < ne; k++)
        adj[fill[ea[k]]++] = eb[k], adj[fill[eb[k]]++] = ea[k];
    for (int v = 0; v < nv; v++) /* insertion sort: lists are short or nearly sorted */
        for (int a = adj_start[v] + 1; a < adj_start[v + 1]; a++)
            for (int b = a; b > adj_start[v] && adj[b - 1] > adj[b]; b--) {
                int x = adj[b];
                adj[b] = adj[b - 1], adj[b - 1] = x;
            }
    for (int v = 0; v < nv; v++)
        t->parent[v] = -2;
    head = tail = 0;
    queue[tail++] = t->root;
    t->parent[t->root] = -1, t->depth[t->root] = 0;
    while (head < tail) {
        int v = queue[head++];
        for (int k = adj_start[v]; k < adj_start[v + 1]; k++) {
            int w = adj[k];
            if (t->parent[w] != -2) continue;
            t->parent[w] = v, t->depth[w] = t->depth[v] + 1;
            queue[tail++] = w;
            t->cstart[v + 1]++;
        }
    }
    if (tail != nv) goto out;
    for (int v = 0; v < nv; v++)
        t->cstart[v + 1] += t->cstart[v];
    memcpy(fill, t->cstart, (size_t)nv * sizeof *fill);
    for (int v = 0; v < nv; v++) /* v in increasing id: children lists come out sorted */
        if (t->parent[v] >= 0) t->child[fill[t->parent[v]]++] = v;
    for (int r = 0; r < P; r++)
        t->nleaves[r] = 1;
    for (int k = nv - 1; k > 0; k--)
        t->nleaves[t->parent[queue[k]]] += t->nleaves[queue[k]];
    rc = 0;
out:
    free(mach_nr), free(sadj_start), free(sadj), free(spar), free(sorder), free(scnt), free(svert);
    free(nicv), free(ea), free(eb), free(adj_start), free(adj), free(fill), free(queue);
    return rc;
}

/* ------------------------------------------------------------------ parser */
int ac_topo_parse(const char *text, size_t len, const char *fname, ac_topo_t **out, char **errs) {
    errs_t E = {NULL, 0, 0, 0, fname ? fname : "<topology>"};
    idmap_t ids = {0};
    ac_topo_t *t = calloc(1, sizeof *t);
    rec_t *mrec = NULL, *lrec = NULL, *rrec = NULL;
    long *swline = NULL;
    size_t mcap = 0, lcap = 0, rcap = 0, scap = 0, nm = 0, nl = 0, nr = 0, ns = 0;
    size_t mc2 = 0, lc2 = 0; /* capacities of the per-machine / per-link topology arrays */
    size_t mc3 = 0, mc4 = 0, mc5 = 0, mc6 = 0, lc3 = 0, lc4 = 0, lc5 = 0, sc2 = 0;
    int *uf = NULL;
    char *line = NULL;
    long lineno = 0;
    if (out) *out = NULL;
    if (errs) *errs = NULL;
    if (!t) goto nomem;
    line = malloc(len + 1);
    if (!line) goto nomem;

    /* ---- pass 1: records */
    size_t pos = 0;
    while (pos < len) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        lineno++;
        size_t n = end - pos;
        memcpy(line, text + pos, n);
        line[n] = '\0';
        pos = end + 1;
        if (memchr(text + (pos - n - 1), '\0', n)) {
            err_add(&E, lineno, "syntax: NUL byte in line");
            continue;
        }
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *w[8];
        int nw = split(line, w, 7);
        if (nw == 0) continue;
        if (nw > 7) {
            err_add(&E, lineno, "syntax: too many fields");
            continue;
        }
        /* key=value attributes come after the positional fields */
        int npos = 0;
        while (npos < nw && !strchr(w[npos], '='))
            npos++;
        const char *bw = NULL, *lat = NULL, *speed = NULL;
        int bad = 0;
        for (int k = npos; k < nw && !bad; k++) {
            char *eq = strchr(w[k], '=');
            if (!eq) {
                err_add(&E, lineno, "syntax: positional field '%.40s' after an attribute", w[k]);
                bad = 1;
                break;
            }
            *eq = '\0';
            const char *key = w[k], *val = eq + 1;
            const char **slot = NULL;
            const char *const *units = NULL;
            if (!strcmp(key, "bw"))
                slot = &bw, units = BW_UNITS;
            else if (!strcmp(key, "lat"))
                slot = &lat, units = LAT_UNITS;
            else if (!strcmp(key, "speed"))
                slot = &speed, units = SPEED_UNITS;
            if (!slot) {
                err_add(&E, lineno, "syntax: unknown attribute '%.40s'", key);
                bad = 1;
            } else if (*slot) {
                err_add(&E, lineno, "duplicate: attribute '%s' given twice", key);
                bad = 1;
            } else if (!valid_quantity(val, units)) {
                err_add(&E, lineno, "syntax: bad value '%.40s' for %s (e.g. %s)", val, key,
                        units == BW_UNITS    ? "12.5MBps"
                        : units == LAT_UNITS ? "30us"
                                             : "1Gf");
                bad = 1;
            } else
                *slot = val;
        }
        if (bad) continue;
        const char *kw = w[0];
        int want = !strcmp(kw, "switch")    ? 2
                   : !strcmp(kw, "machine") ? 3
                   : !strcmp(kw, "link")    ? 3
                   : !strcmp(kw, "rank")    ? 3
                                            : -1;
        if (want < 0) {
            err_add(&E, lineno, "syntax: unknown record '%.40s' (switch, machine, link, rank)", kw);
            continue;
        }
        if (npos != want) {
            err_add(&E, lineno, "syntax: '%s' takes %d field%s, found %d", kw, want - 1,
                    want == 2 ? "" : "s", npos - 1);
            continue;
        }
        int allow_attr = !strcmp(kw, "machine") ? 3 : !strcmp(kw, "link") ? 2 : 0;
        if ((speed && allow_attr != 3) || ((bw || lat) && !allow_attr)) {
            err_add(&E, lineno, "syntax: '%s' takes no %s attribute", kw,
                    speed && allow_attr != 3 ? "speed"
                    : bw                     ? "bw"
                                             : "lat");
            continue;
        }
        if (!strcmp(kw, "rank")) {
            long r;
            if (parse_rank(w[1], &r)) {
                err_add(&E, lineno, "syntax: bad rank '%.40s' (integer 0..%d)", w[1],
                        AC_TOPO_MAX_RANKS - 1);
                continue;
            }
            if (!valid_id(w[2])) {
                err_add(&E, lineno, "syntax: bad machine id '%.40s'", w[2]);
                continue;
            }
            GROW(rrec, nr, rcap, nomem);
            rrec[nr] = (rec_t){lineno, NULL, dupstr(w[2]), r};
            if (!rrec[nr].b) goto nomem;
            nr++;
            continue;
        }
        int idbad = 0;
        for (int k = 1; k < npos; k++)
            if (!valid_id(w[k])) {
                err_add(&E, lineno, "syntax: bad id '%.40s' (1..%d of A-Z a-z 0-9 _ - .)", w[k],
                        AC_TOPO_MAX_ID);
                idbad = 1;
                break;
            }
        if (idbad) continue;
        if (!strcmp(kw, "link")) {
            if (nl >= AC_TOPO_MAX_NODES) {
                err_add(&E, lineno, "too many links (limit %d)", AC_TOPO_MAX_NODES);
                continue;
            }
            GROW(lrec, nl, lcap, nomem);
            GROW(t->link_bw, nl, lc2, nomem);
            GROW(t->link_lat, nl, lc3, nomem);
            GROW(t->link_a, nl, lc4, nomem);
            GROW(t->link_b, nl, lc5, nomem);
            lrec[nl] = (rec_t){lineno, dupstr(w[1]), dupstr(w[2]), 0};
            t->link_bw[nl] = bw ? dupstr(bw) : NULL;
            t->link_lat[nl] = lat ? dupstr(lat) : NULL;
            t->nlink = (int)++nl;
            if (!lrec[nl - 1].a || !lrec[nl - 1].b || (bw && !t->link_bw[nl - 1]) ||
                (lat && !t->link_lat[nl - 1]))
                goto nomem;
            continue;
        }
        /* switch or machine declaration */
        int kind0 = -1;
        int prev = idmap_find(&ids, w[1], &kind0);
        if (prev >= 0) {
            long pl = kind0 == 0 ? swline[prev] : mrec[prev].line;
            err_add(&E, lineno, "duplicate: id '%s' already declared as %s at line %ld", w[1],
                    kind0 == 0 ? "switch" : "machine", pl);
            continue;
        }
        if (ns + nm >= AC_TOPO_MAX_NODES) {
            err_add(&E, lineno, "too many switches and machines (limit %d)", AC_TOPO_MAX_NODES);
            continue;
        }
        if (!strcmp(kw, "switch")) {
            GROW(t->sw_name, ns, scap, nomem);
            GROW(swline, ns, sc2, nomem);
            t->sw_name[ns] = dupstr(w[1]);
            swline[ns] = lineno;
            t->nsw = (int)++ns;
            if (!t->sw_name[ns - 1] || idmap_put(&ids, t->sw_name[ns - 1], 0, (int)ns - 1))
                goto nomem;
        } else {
            GROW(mrec, nm, mcap, nomem);
            GROW(t->mach_name, nm, mc2, nomem);
            GROW(t->mach_bw, nm, mc3, nomem);
            GROW(t->mach_lat, nm, mc4, nomem);
            GROW(t->mach_speed, nm, mc5, nomem);
            GROW(t->mach_sw, nm, mc6, nomem);
            mrec[nm] = (rec_t){lineno, NULL, dupstr(w[2]), 0};
            t->mach_name[nm] = dupstr(w[1]);
            t->mach_bw[nm] = bw ? dupstr(bw) : NULL;
            t->mach_lat[nm] = lat ? dupstr(lat) : NULL;
            t->mach_speed[nm] = speed ? dupstr(speed) : NULL;
            t->nmach = (int)++nm;
            if (!mrec[nm - 1].b || !t->mach_name[nm - 1] || (bw && !t->mach_bw[nm - 1]) ||
                (lat && !t->mach_lat[nm - 1]) || (speed && !t->mach_speed[nm - 1]) ||
                idmap_put(&ids, t->mach_name[nm - 1], 1, (int)nm - 1))
                goto nomem;
        }
    }

    /* ---- pass 2: references */
    for (size_t m = 0; m < nm; m++) {
        int kind = -1, s = idmap_find(&ids, mrec[m].b, &kind);
        t->mach_sw[m] = -1;
        if (s < 0)
            err_add(&E, mrec[m].line, "unknown id: switch '%s' of machine '%s' is not declared",
                    mrec[m].b, t->mach_name[m]);
        else if (kind != 0)
            err_add(&E, mrec[m].line, "unknown id: '%s' is a machine, not a switch", mrec[m].b);
        else
            t->mach_sw[m] = s;
    }
    uf = malloc((ns + 1) * sizeof *uf);
    if (!uf) goto nomem;
    for (size_t s = 0; s < ns; s++)
        uf[s] = (int)s;
    {
        /* duplicate links: hash of unordered pairs via the id table of "a b" strings */
        idmap_t pairs = {0};
        char **pkeys = calloc(nl + 1, sizeof *pkeys);
        if (!pkeys) goto nomem;
        for (size_t l = 0; l < nl; l++) {
            int ka = -1, kb = -1, a = idmap_find(&ids, lrec[l].a, &ka),
                b = idmap_find(&ids, lrec[l].b, &kb);
            t->link_a[l] = t->link_b[l] = -1;
            int ok = 1;
            if (a < 0 || b < 0) {
                err_add(&E, lrec[l].line, "unknown id: '%s' is not declared",
                        a < 0 ? lrec[l].a : lrec[l].b);
                ok = 0;
            } else if (ka != 0 || kb != 0) {
                err_add(&E, lrec[l].line,
                        "unknown id: link endpoint '%s' is a machine (machines attach with their "
                        "machine record)",
                        ka != 0 ? lrec[l].a : lrec[l].b);
                ok = 0;
            } else if (a == b) {
                err_add(&E, lrec[l].line, "cycle: link from switch '%s' to itself", lrec[l].a);
                ok = 0;
            }
            if (!ok) continue;
            int lo = a < b ? a : b, hi = a < b ? b : a;
            char key[32];
            snprintf(key, sizeof key, "%d %d", lo, hi);
            int kd = -1, prevl = idmap_find(&pairs, key, &kd);
            if (prevl >= 0) {
                err_add(&E, lrec[l].line, "duplicate: link %s %s already given at line %ld",
                        lrec[l].a, lrec[l].b, lrec[prevl].line);
                continue;
            }
            pkeys[l] = dupstr(key);
            if (!pkeys[l] || idmap_put(&pairs, pkeys[l], 0, (int)l)) {
                for (size_t k = 0; k <= l; k++)
                    free(pkeys[k]);
                free(pkeys), idmap_free(&pairs);
                goto nomem;
            }
            int ra = uf_find(uf, a), rb = uf_find(uf, b);
            if (ra == rb) {
                err_add(&E, lrec[l].line,
                        "cycle: link %s %s closes a loop (give the spanning tree the switches "
                        "forward on)",
                        lrec[l].a, lrec[l].b);
                continue;
            }
            uf[ra] = rb;
            t->link_a[l] = a, t->link_b[l] = b;
        }
        for (size_t l = 0; l < nl; l++)
            free(pkeys[l]);
        free(pkeys), idmap_free(&pairs);
    }
    /* ranks */
    long maxr = -1, maxline = lineno;
    for (size_t k = 0; k < nr; k++)
        if (rrec[k].r > maxr) maxr = rrec[k].r, maxline = rrec[k].line;
    if (nr) {
        t->explicit_ranks = 1;
        t->nranks = (int)(maxr + 1);
    } else
        t->nranks = (int)nm;
    long *rline = calloc((size_t)t->nranks + 1, sizeof *rline);
    t->rank_mach = malloc(((size_t)t->nranks + 1) * sizeof *t->rank_mach);
    if (!rline || !t->rank_mach) {
        free(rline);
        goto nomem;
    }
    for (int r = 0; r < t->nranks; r++)
        t->rank_mach[r] = nr ? -1 : r;
    for (size_t k = 0; k < nr; k++) {
        int kind = -1, m = idmap_find(&ids, rrec[k].b, &kind);
        if (rline[rrec[k].r]) {
            err_add(&E, rrec[k].line, "duplicate: rank %ld already placed at line %ld", rrec[k].r,
                    rline[rrec[k].r]);
            continue;
        }
        rline[rrec[k].r] = rrec[k].line;
        if (m < 0)
            err_add(&E, rrec[k].line,
                    "rank without machine: machine '%s' of rank %ld is not "
                    "declared",
                    rrec[k].b, rrec[k].r);
        else if (kind != 1)
            err_add(&E, rrec[k].line, "rank without machine: '%s' is a switch, not a machine",
                    rrec[k].b);
        else
            t->rank_mach[rrec[k].r] = m;
    }
    int missing = 0;
    for (int r = 0; r < t->nranks; r++)
        if (!rline[r] && nr) {
            if (!missing)
                err_add(&E, maxline, "rank %d is missing (ranks must be 0..%ld, each once)", r,
                        maxr);
            missing++;
        }
    free(rline);
    if (t->nranks == 0) err_add(&E, lineno, "no machine declared");
    /* disconnected machines: outside the component of rank 0's switch */
    if (!E.n) {
        int comp = uf_find(uf, t->mach_sw[t->rank_mach[0]]);
        for (size_t m = 0; m < nm; m++)
            if (uf_find(uf, t->mach_sw[m]) != comp)
                err_add(&E, mrec[m].line,
                        "disconnected machine: '%s' (switch '%s') has no path to the switch of "
                        "rank 0 ('%s')",
                        t->mach_name[m], t->sw_name[t->mach_sw[m]],
                        t->sw_name[t->mach_sw[t->rank_mach[0]]]);
        if (!E.n && derive(t, uf, comp)) goto nomem;
    }
    goto done;
nomem:
    err_add(&E, lineno, "out of memory");
done:
    if (E.n > MAX_ERR_LINES) {
        int total = E.n;
        E.n = MAX_ERR_LINES; /* let the summary line through */
        err_add(&E, lineno, "%d more errors not shown", total - MAX_ERR_LINES);
        E.n = total;
    }
    for (size_t k = 0; k < nm; k++)
        free(mrec[k].b);
    for (size_t k = 0; k < nl; k++)
        free(lrec[k].a), free(lrec[k].b);
    for (size_t k = 0; k < nr; k++)
        free(rrec[k].b);
    free(mrec), free(lrec), free(rrec), free(swline), free(uf), free(line);
    idmap_free(&ids);
    int n = E.n;
    if (n || !out) {
        /* arrays may be partly filled: make them consistent for ac_topo_free */
        if (t) {
            t->nmach = (int)nm, t->nsw = (int)ns, t->nlink = (int)nl;
            ac_topo_free(t);
        }
        t = NULL;
    }
    if (out) *out = t;
    if (errs)
        *errs = E.buf;
    else
        free(E.buf);
    return n;
}

/* ------------------------------------------------------------------ paths */
int ac_topo_lca(const ac_topo_t *t, int u, int v) {
    while (t->depth[u] > t->depth[v])
        u = t->parent[u];
    while (t->depth[v] > t->depth[u])
        v = t->parent[v];
    while (u != v)
        u = t->parent[u], v = t->parent[v];
    return u;
}

int ac_topo_path(const ac_topo_t *t, int u, int v, int *edges) {
    int a = ac_topo_lca(t, u, v), n = 0;
    for (int x = u; x != a; x = t->parent[x])
        edges[n++] = 2 * x;
    int m = 0;
    for (int x = v; x != a; x = t->parent[x])
        m++;
    int k = n + m;
    for (int x = v; x != a; x = t->parent[x])
        edges[--k] = 2 * x + 1;
    return n + m;
}

int ac_topo_hops(const ac_topo_t *t, int u, int v) {
    if (u == v) return 0;
    int a = ac_topo_lca(t, u, v);
    /* vertices on the path: depth[u] + depth[v] - 2 depth[a] + 1; all but the end points are
     * switches when both ends are ranks */
    int nvert = t->depth[u] + t->depth[v] - 2 * t->depth[a] + 1;
    return nvert - !ac_topo_is_switch(t, u) - !ac_topo_is_switch(t, v);
}

int ac_topo_height(const ac_topo_t *t) {
    int h = 0;
    for (int v = 0; v < t->nv; v++)
        if (t->depth[v] > h) h = t->depth[v];
    return h;
}

const char *ac_topo_rank_host(const ac_topo_t *t, int r) {
    return t->mach_name[t->rank_mach[r]];
}

/* ------------------------------------------------------------------ canonical text */
char *ac_topo_format(const ac_topo_t *t) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fprintf(f, "# autocoll topology: %d switches, %d machines, %d ranks\n", t->nsw, t->nmach,
            t->nranks);
    for (int s = 0; s < t->nsw; s++)
        fprintf(f, "switch %s\n", t->sw_name[s]);
    for (int l = 0; l < t->nlink; l++) {
        fprintf(f, "link %s %s", t->sw_name[t->link_a[l]], t->sw_name[t->link_b[l]]);
        if (t->link_bw[l]) fprintf(f, " bw=%s", t->link_bw[l]);
        if (t->link_lat[l]) fprintf(f, " lat=%s", t->link_lat[l]);
        fputc('\n', f);
    }
    for (int m = 0; m < t->nmach; m++) {
        fprintf(f, "machine %s %s", t->mach_name[m], t->sw_name[t->mach_sw[m]]);
        if (t->mach_bw[m]) fprintf(f, " bw=%s", t->mach_bw[m]);
        if (t->mach_lat[m]) fprintf(f, " lat=%s", t->mach_lat[m]);
        if (t->mach_speed[m]) fprintf(f, " speed=%s", t->mach_speed[m]);
        fputc('\n', f);
    }
    for (int r = 0; r < t->nranks; r++)
        fprintf(f, "rank %d %s\n", r, t->mach_name[t->rank_mach[r]]);
    if (fclose(f)) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* ------------------------------------------------------------------ generator */
char *ac_topo_generate(int nmach, double mean_per_switch, uint64_t seed, int ppn) {
    if (nmach < 1 || nmach > AC_TOPO_MAX_NODES / 2 || ppn < 1 ||
        (long)nmach * ppn > AC_TOPO_MAX_RANKS || !(mean_per_switch > 0))
        return NULL;
    long ns = lround((double)nmach / mean_per_switch);
    if (ns < 1) ns = 1;
    if (ns > nmach) ns = nmach;
    ac_rng_t rng = {seed};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fprintf(f,
            "# random switch tree: %d machines, mean %.3g per switch, seed %llu, %d per machine\n",
            nmach, mean_per_switch, (unsigned long long)seed, ppn);
    for (long s = 0; s < ns; s++)
        fprintf(f, "switch s%ld\n", s);
    for (long s = 1; s < ns; s++)
        fprintf(f, "link s%u s%ld\n", ac_rng_below(&rng, (uint32_t)s), s);
    for (int m = 0; m < nmach; m++)
        fprintf(f, "machine n%d s%u\n", m, ac_rng_below(&rng, (uint32_t)ns));
    for (long r = 0; r < (long)nmach * ppn; r++)
        fprintf(f, "rank %ld n%ld\n", r, r / ppn);
    if (fclose(f)) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* ------------------------------------------------------------------ SimGrid platform */
int ac_topo_write_simgrid(const ac_topo_t *t, const char *zone_id, FILE *xml, FILE *hosts) {
    int P = t->nranks;
    int *nr = calloc((size_t)t->nmach + 1, sizeof *nr);
    char *kept = calloc((size_t)t->nsw + 1, 1);
    if (!nr || !kept) {
        free(nr), free(kept);
        return -1;
    }
    for (int r = 0; r < P; r++)
        nr[t->rank_mach[r]]++;
    for (int v = 0; v < t->nv; v++)
        if (t->kind[v] == AC_TV_SWITCH) kept[t->orig[v]] = 1;
    if (xml) {
        fprintf(xml,
                "<?xml version='1.0'?>\n"
                "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                "<!-- Written by autocoll from a topology file (docs/topology.md): %d "
                "switches, %d machines, %d ranks. One router per switch, one full-duplex "
                "link per cable, routes along the switch tree. -->\n"
                "<platform version=\"4.1\">\n<zone id=\"%s\" routing=\"Floyd\">\n",
                t->nsw, t->nmach, P, zone_id ? zone_id : "topo");
        for (int m = 0; m < t->nmach; m++)
            if (nr[m])
                fprintf(xml, "  <host id=\"%s\" speed=\"%s\" core=\"%d\"/>\n", t->mach_name[m],
                        t->mach_speed[m] ? t->mach_speed[m] : "1Gf", nr[m]);
        for (int s = 0; s < t->nsw; s++)
            if (kept[s]) fprintf(xml, "  <router id=\"%s\"/>\n", t->sw_name[s]);
        for (int m = 0; m < t->nmach; m++)
            if (nr[m] && kept[t->mach_sw[m]])
                fprintf(xml,
                        "  <link id=\"nic%d\" bandwidth=\"%s\" latency=\"%s\" "
                        "sharing_policy=\"SPLITDUPLEX\"/>\n",
                        m, t->mach_bw[m] ? t->mach_bw[m] : "12.5MBps",
                        t->mach_lat[m] ? t->mach_lat[m] : "30us");
        for (int l = 0; l < t->nlink; l++)
            if (kept[t->link_a[l]] && kept[t->link_b[l]])
                fprintf(xml,
                        "  <link id=\"isl%d\" bandwidth=\"%s\" latency=\"%s\" "
                        "sharing_policy=\"SPLITDUPLEX\"/>\n",
                        l, t->link_bw[l] ? t->link_bw[l] : "12.5MBps",
                        t->link_lat[l] ? t->link_lat[l] : "10us");
        /* One-hop routes in both directions; UP is the direction from src to dst as written. */
        for (int m = 0; m < t->nmach; m++)
            if (nr[m] && kept[t->mach_sw[m]]) {
                const char *h = t->mach_name[m], *s = t->sw_name[t->mach_sw[m]];
                fprintf(xml,
                        "  <route src=\"%s\" dst=\"%s\" symmetrical=\"NO\"><link_ctn id=\"nic%d\" "
                        "direction=\"UP\"/></route>\n",
                        h, s, m);
                fprintf(xml,
                        "  <route src=\"%s\" dst=\"%s\" symmetrical=\"NO\"><link_ctn id=\"nic%d\" "
                        "direction=\"DOWN\"/></route>\n",
                        s, h, m);
            }
        for (int l = 0; l < t->nlink; l++)
            if (kept[t->link_a[l]] && kept[t->link_b[l]]) {
                const char *a = t->sw_name[t->link_a[l]], *b = t->sw_name[t->link_b[l]];
                fprintf(xml,
                        "  <route src=\"%s\" dst=\"%s\" symmetrical=\"NO\"><link_ctn id=\"isl%d\" "
                        "direction=\"UP\"/></route>\n",
                        a, b, l);
                fprintf(xml,
                        "  <route src=\"%s\" dst=\"%s\" symmetrical=\"NO\"><link_ctn id=\"isl%d\" "
                        "direction=\"DOWN\"/></route>\n",
                        b, a, l);
            }
        fprintf(xml, "</zone>\n</platform>\n");
    }
    if (hosts)
        for (int r = 0; r < P; r++)
            fprintf(hosts, "%s\n", ac_topo_rank_host(t, r));
    free(nr), free(kept);
    int bad = (xml && ferror(xml)) || (hosts && ferror(hosts));
    return bad ? -1 : 0;
}

int ac_topo_load(const char *path, ac_topo_t **out, char **errs) {
    if (out) *out = NULL;
    if (errs) *errs = NULL;
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int ok = f != NULL;
    while (ok) {
        if (len == cap) {
            if (cap >= ((size_t)1 << 30)) {
                ok = 0;
                break;
            }
            size_t nc = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, nc);
            if (!nb) {
                ok = 0;
                break;
            }
            buf = nb, cap = nc;
        }
        size_t k = fread(buf + len, 1, cap - len, f);
        len += k;
        if (k == 0) {
            if (ferror(f)) ok = 0;
            break;
        }
    }
    if (f) fclose(f);
    if (!ok) {
        free(buf);
        if (errs) {
            const char *why = strerror(errno ? errno : EIO);
            size_t n = strlen(path) + strlen(why) + 32;
            *errs = malloc(n);
            if (*errs) snprintf(*errs, n, "%s:0: cannot read: %s\n", path, why);
        }
        return 1;
    }
    int rc = ac_topo_parse(buf ? buf : "", len, path, out, errs);
    free(buf);
    return rc;
}
