/*
 * Reduction-tree specifications: parser, presets, builder, checks (see rtree.h and
 * docs/reduction-trees.md). Reference: seed 003 (Bongo et al.), spec allreduce-trees.md
 * sections 3.2, 4 and 5 (compact grammar, host and cluster-root subtrees, links, split,
 * spread, the paper's configurations of section 5.3).
 */
#include "rtree.h"
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ presets */

static const struct {
    const char *name, *spec;
} presets[] = {
    {"flat", "host=flat;cluster=flat"},                    /* nary8W / nary4W / Blade flat */
    {"binary", "host=2*;cluster=2*"},                      /* binary at every level */
    {"quad", "host=4*;cluster=4*"},                        /* quad at every level */
    {"split-root", "host=2*;cluster=2*;split=1024:shift"}, /* root work over several hosts */
    {"quad8W", "host=4,2;cluster=flat"},
    {"binaryquad8W", "host=2,2,2;cluster=flat"},
    {"binary8W", "host=2,2,2;cluster=2,2"},
    {"binary8W-links", "host=2,2,2;cluster=2,2;links=2"},
    {"nary-links", "host=flat;cluster=flat;links=all"}, /* earlier-work variant (Fig. 11) */
    {"binary4W", "host=2,2;cluster=2,2,2"},
    {"binary4W-links", "host=2,2;cluster=2,2,2;links=2"},
    {"split4W", "host=2,2;cluster=2,2,2;split=3:shift"},
    {"split4W-2", "host=2,2;host@4-7=flat;cluster=2,2,2;split=3:shift"},
    {"NOW-quad", "host=flat;cluster=4,4,2"},
    {"NOW-quad-split", "host=flat;cluster=4,4,2;split=7:shift"},
    {"NOW-binary", "host=flat;cluster=2,2,2,2,2;split=14:own"},
};

int ac_rt_npresets(void) {
    return (int)(sizeof presets / sizeof presets[0]);
}
const char *ac_rt_preset_name(int i) {
    return i >= 0 && i < ac_rt_npresets() ? presets[i].name : NULL;
}
const char *ac_rt_preset_spec(int i) {
    return i >= 0 && i < ac_rt_npresets() ? presets[i].spec : NULL;
}

/* ------------------------------------------------------------------ parser */

static int fail(char *err, size_t len, const char *fmt, ...) {
    if (err && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Non-negative decimal integer of the whole string [s, e). */
static int parse_int(const char *s, const char *e, long max, long *v) {
    if (s == e) return -1;
    long x = 0;
    for (const char *c = s; c < e; c++) {
        if (!isdigit((unsigned char)*c)) return -1;
        x = x * 10 + (*c - '0');
        if (x > max) return -1;
    }
    *v = x;
    return 0;
}

static int parse_fan(const char *s, const char *e, ac_rt_fan_t *f, const char *key, char *err,
                     size_t len) {
    memset(f, 0, sizeof *f);
    if (e - s == 4 && !strncmp(s, "flat", 4)) return 0;
    if (s == e) return fail(err, len, "%s: empty fan-in list (use 'flat' or 2,2,...)", key);
    const char *c = s;
    while (c < e) {
        const char *d = c;
        while (d < e && *d != ',' && *d != '*')
            d++;
        long v;
        if (parse_int(c, d, 1 << 20, &v))
            return fail(err, len, "%s: bad fan-in '%.*s' (expected an integer >= 2 or 'flat')", key,
                        (int)(d - c), c);
        if (v < 2) return fail(err, len, "%s: fan-in %ld is below 2", key, v);
        if (f->nlv == AC_RT_MAXLV)
            return fail(err, len, "%s: more than %d levels", key, AC_RT_MAXLV);
        f->f[f->nlv++] = (int)v;
        if (d < e && *d == '*') {
            if (d + 1 != e) return fail(err, len, "%s: '*' may only follow the last fan-in", key);
            f->rep = 1;
            return 0;
        }
        if (d < e && d + 1 == e) return fail(err, len, "%s: trailing ','", key);
        c = d < e ? d + 1 : d;
    }
    return 0;
}

int ac_rt_parse(const char *spec, ac_rt_spec_t *o, char *err, size_t len) {
    memset(o, 0, sizeof *o);
    o->host.nlv = 0; /* flat */
    o->cluster.nlv = 0;
    o->links = 1;
    o->spread = 1;
    o->split_mode = AC_RT_SPLIT_SHIFT;
    o->order = AC_RT_ORDER_REMOTE_FIRST;
    if (!spec || !*spec) return fail(err, len, "empty tree specification");
    if (strpbrk(spec, "([|"))
        return fail(err, len,
                    "explicit '(...)', size-class '|' and multi-cluster '[...]' forms "
                    "are not supported; use the compact form key=value;...");
    const char *s = spec;
    while (1) {
        const char *e = strchr(s, ';');
        if (!e) e = s + strlen(s);
        const char *eq = memchr(s, '=', (size_t)(e - s));
        if (s == e) return fail(err, len, "empty item at offset %d", (int)(s - spec));
        if (!eq) return fail(err, len, "item '%.*s' has no '='", (int)(e - s), s);
        const char *v = eq + 1;
        size_t kl = (size_t)(eq - s);
        long x;
        if (kl == 4 && !strncmp(s, "host", 4)) {
            if (parse_fan(v, e, &o->host, "host", err, len)) return -1;
        } else if (kl > 5 && !strncmp(s, "host@", 5)) {
            const char *r = s + 5, *dash = memchr(r, '-', (size_t)(eq - r));
            long a, b;
            if (!dash || parse_int(r, dash, 1 << 24, &a) || parse_int(dash + 1, eq, 1 << 24, &b))
                return fail(err, len, "host@: bad node range '%.*s' (expected A-B)", (int)(eq - r),
                            r);
            if (a > b) return fail(err, len, "host@%ld-%ld: empty range", a, b);
            if (o->nov == AC_RT_MAXOV)
                return fail(err, len, "more than %d host@ overrides", AC_RT_MAXOV);
            o->ov_lo[o->nov] = (int)a;
            o->ov_hi[o->nov] = (int)b;
            if (parse_fan(v, e, &o->ov[o->nov], "host@", err, len)) return -1;
            o->nov++;
        } else if (kl == 7 && !strncmp(s, "cluster", 7)) {
            if (parse_fan(v, e, &o->cluster, "cluster", err, len)) return -1;
        } else if (kl == 5 && !strncmp(s, "links", 5)) {
            if (e - v == 3 && !strncmp(v, "all", 3))
                o->links = 0;
            else if (parse_int(v, e, 1 << 20, &x) || x < 1)
                return fail(err, len, "links: expected an integer >= 1 or 'all', got '%.*s'",
                            (int)(e - v), v);
            else
                o->links = (int)x;
        } else if (kl == 5 && !strncmp(s, "split", 5)) {
            const char *c = memchr(v, ':', (size_t)(e - v));
            const char *ne = c ? c : e;
            if (parse_int(v, ne, 1 << 20, &x))
                return fail(err, len, "split: expected a count, got '%.*s'", (int)(ne - v), v);
            o->split = (int)x;
            if (c) {
                if (e - c - 1 == 3 && !strncmp(c + 1, "own", 3))
                    o->split_mode = AC_RT_SPLIT_OWN;
                else if (e - c - 1 == 5 && !strncmp(c + 1, "shift", 5))
                    o->split_mode = AC_RT_SPLIT_SHIFT;
                else
                    return fail(err, len, "split: placement '%.*s' is not 'own' or 'shift'",
                                (int)(e - c - 1), c + 1);
            }
        } else if (kl == 6 && !strncmp(s, "spread", 6)) {
            if (e - v == 2 && !strncmp(v, "on", 2))
                o->spread = 1;
            else if (e - v == 3 && !strncmp(v, "off", 3))
                o->spread = 0;
            else
                return fail(err, len, "spread: expected 'on' or 'off'");
        } else if (kl == 8 && !strncmp(s, "rootnode", 8)) {
            if (parse_int(v, e, 1 << 24, &x))
                return fail(err, len, "rootnode: expected a node index");
            o->rootnode = (int)x;
        } else if (kl == 5 && !strncmp(s, "order", 5)) {
            if (e - v == 12 && !strncmp(v, "remote-first", 12))
                o->order = AC_RT_ORDER_REMOTE_FIRST;
            else if (e - v == 6 && !strncmp(v, "static", 6))
                o->order = AC_RT_ORDER_STATIC;
            else if ((e - v == 7 && !strncmp(v, "arrival", 7)) ||
                     (e - v == 15 && !strncmp(v, "reverse-arrival", 15)))
                return fail(err, len,
                            "order=%.*s is not supported: the point-to-point engine "
                            "broadcasts in a fixed order (remote-first or static)",
                            (int)(e - v), v);
            else
                return fail(err, len, "order: unknown value '%.*s'", (int)(e - v), v);
        } else {
            return fail(err, len,
                        "unknown key '%.*s' (host, host@A-B, cluster, links, split, "
                        "spread, rootnode, order)",
                        (int)kl, s);
        }
        if (!*e) break;
        s = e + 1;
        if (!*s) return fail(err, len, "trailing ';'");
    }
    return 0;
}

/* ------------------------------------------------------------------ builder */

typedef struct {
    ac_rt_tree_t *t;
    int cap_v, cap_c, nc;
    int *owned; /* vertices owned per rank (spread placement) */
} bld_t;

static int new_vertex(bld_t *b, const int *items, int n, int owner, int kind) {
    ac_rt_tree_t *t = b->t;
    if (t->nv == b->cap_v || b->nc + n > b->cap_c) return -1; /* capacities are exact bounds */
    ac_rt_vertex_t *v = &t->v[t->nv];
    v->owner = owner;
    v->kind = kind;
    v->parent = -1;
    v->nchild = n;
    v->child = t->child_mem + b->nc;
    b->nc += n;
    for (int i = 0; i < n; i++) {
        v->child[i] = items[i];
        if (items[i] < 0)
            t->leaf_parent[AC_RT_LEAF_RANK(items[i])] = t->nv;
        else
            t->v[items[i]].parent = t->nv;
    }
    b->owned[owner]++;
    return t->nv++;
}

/* Rank of node `node` owning the fewest vertices (ties: lowest local rank); without spread the
 * node's first rank. */
static int place(bld_t *b, const int *members, int nm, int spread) {
    int best = members[0];
    if (spread)
        for (int i = 1; i < nm; i++)
            if (b->owned[members[i]] < b->owned[best]) best = members[i];
    return best;
}

static void move_vertex(bld_t *b, int v, int owner) {
    b->owned[b->t->v[v].owner]--;
    b->t->v[v].owner = owner;
    b->owned[owner]++;
}

/* Group items by the fan-in list; records the items of every level into lv (level 0 = input),
 * lvn[l] = count; returns the number of levels above the input. */
static int group_levels(bld_t *b, const ac_rt_fan_t *f, int *items, int n, int kind, int **lv,
                        int *lvn, int maxlv) {
    int L = 0;
    memcpy(lv[0], items, (size_t)n * sizeof(int));
    lvn[0] = n;
    int li = 0;
    while (lvn[L] > 1 && L + 1 < maxlv) {
        int fan;
        if (f->nlv == 0)
            fan = lvn[L];
        else if (li < f->nlv)
            fan = f->f[li];
        else if (f->rep)
            fan = f->f[f->nlv - 1];
        else
            fan = lvn[L]; /* one final flat level */
        li++;
        int *in = lv[L], m = lvn[L], *out = lv[L + 1], k = 0;
        for (int i = 0; i < m; i += fan) {
            int g = m - i < fan ? m - i : fan;
            if (g == 1)
                out[k++] = in[i];
            else
                out[k++] = new_vertex(b, in + i, g, ac_rt_owner(b->t, in[i]), kind);
        }
        lvn[++L] = k;
    }
    return L;
}

int ac_rt_build(const ac_rt_spec_t *s, int p, const int *node_of, ac_rt_tree_t *t, char *err,
                size_t len) {
    memset(t, 0, sizeof *t);
    int nnodes = 0, rc = -1, maxlv = 2 * AC_RT_MAXLV + 40;
    for (int r = 0; r < p; r++) {
        if (node_of[r] < 0 || node_of[r] > r)
            return fail(err, len, "bad node layout at rank %d", r);
        if (node_of[r] >= nnodes) {
            if (node_of[r] != nnodes) return fail(err, len, "nodes not numbered by lowest rank");
            nnodes++;
        }
    }
    if (p < 1) return fail(err, len, "no ranks");
    if (s->rootnode >= nnodes)
        return fail(err, len, "rootnode=%d but the communicator spans %d node(s)", s->rootnode,
                    nnodes);
    bld_t b = {.t = t, .cap_v = 2 * p, .cap_c = 4 * p};
    t->p = p;
    t->v = calloc((size_t)b.cap_v, sizeof *t->v);
    t->child_mem = malloc((size_t)b.cap_c * sizeof(int));
    t->leaf_parent = malloc((size_t)p * sizeof(int));
    b.owned = calloc((size_t)p, sizeof(int));
    int *start = calloc((size_t)nnodes + 1, sizeof(int)), *mem = malloc((size_t)p * sizeof(int));
    int *out = malloc((size_t)nnodes * sizeof(int)),
        *outnode = malloc((size_t)nnodes * sizeof(int));
    int *leaves = malloc((size_t)p * sizeof(int));
    int **lv = malloc((size_t)maxlv * sizeof(int *)), *lvn = malloc((size_t)maxlv * sizeof(int));
    int *lvbuf = malloc((size_t)maxlv * (size_t)p * sizeof(int));
    int *moved = calloc((size_t)nnodes, sizeof(int));
    if (!t->v || !t->child_mem || !t->leaf_parent || !b.owned || !start || !mem || !out ||
        !outnode || !leaves || !lv || !lvn || !lvbuf || !moved) {
        fail(err, len, "out of memory");
        goto done;
    }
    for (int l = 0; l < maxlv; l++)
        lv[l] = lvbuf + (size_t)l * (size_t)p;
    for (int r = 0; r < p; r++) {
        t->leaf_parent[r] = -1;
        start[node_of[r] + 1]++;
    }
    for (int n = 0; n < nnodes; n++)
        start[n + 1] += start[n];
    {
        int *fill = calloc((size_t)nnodes, sizeof(int));
        if (!fill) {
            fail(err, len, "out of memory");
            goto done;
        }
        for (int r = 0; r < p; r++)
            mem[start[node_of[r]] + fill[node_of[r]]++] = r;
        free(fill);
    }
    int R = s->rootnode, *rmem = mem + start[R], rn = start[R + 1] - start[R];
    /* Host subtrees; cluster leaves: the root node's output first, then nodes in order. */
    for (int k = 0; k < nnodes; k++) {
        int n = k == 0 ? R : (k <= R ? k - 1 : k);
        const ac_rt_fan_t *f = &s->host;
        for (int o = 0; o < s->nov; o++)
            if (n >= s->ov_lo[o] && n <= s->ov_hi[o]) f = &s->ov[o];
        int nm = start[n + 1] - start[n];
        for (int i = 0; i < nm; i++)
            leaves[i] = AC_RT_LEAF(mem[start[n] + i]);
        int L = group_levels(&b, f, leaves, nm, AC_RT_HOST, lv, lvn, maxlv);
        if (n != R && s->links != 1) {
            /* The highest level still holding >= links items sends across; vertices above it
             * run on the root node. */
            int ell = 0;
            if (s->links > 0)
                for (int l = 0; l <= L; l++)
                    if (lvn[l] >= s->links) ell = l;
            for (int l = ell + 1; l <= L; l++)
                for (int i = 0; i < lvn[l]; i++) {
                    int it = lv[l][i];
                    if (it >= 0 && t->v[it].kind == AC_RT_HOST && node_of[t->v[it].owner] == n)
                        move_vertex(&b, it, place(&b, rmem, rn, s->spread));
                }
        }
        out[k] = lv[L][0];
        outnode[k] = n;
    }
    /* Cluster-root subtree on the root node. */
    int base = t->nv;
    int L = group_levels(&b, &s->cluster, out, nnodes, AC_RT_CLUSTER, lv, lvn, maxlv);
    for (int v = base; v < t->nv; v++)
        move_vertex(&b, v, place(&b, rmem, rn, s->spread));
    /* Split: move first-level cluster vertices (never the one holding the root node's output). */
    if (s->split > 0 && L >= 1) {
        int done_n = 0;
        for (int i = 0; i < lvn[1] && done_n < s->split; i++) {
            int v = lv[1][i];
            if (v < base) continue; /* a pass-through host output, not a cluster vertex */
            int holds_root = 0, target = -1;
            for (int c = 0; c < t->v[v].nchild; c++)
                if (t->v[v].child[c] == out[0]) holds_root = 1;
            if (holds_root) continue;
            if (s->split_mode == AC_RT_SPLIT_OWN) {
                int c0 = t->v[v].child[0];
                for (int k = 0; k < nnodes; k++)
                    if (out[k] == c0) target = outnode[k];
            } else {
                for (int n = 0; n < nnodes && target < 0; n++) {
                    if (n == R || moved[n]) continue;
                    int contrib = 0;
                    for (int c = 0; c < t->v[v].nchild; c++)
                        for (int k = 0; k < nnodes; k++)
                            if (out[k] == t->v[v].child[c] && outnode[k] == n) contrib = 1;
                    if (!contrib) target = n;
                }
            }
            if (target < 0 || target == R) continue;
            moved[target] = 1;
            move_vertex(
                &b, v,
                place(&b, mem + start[target], start[target + 1] - start[target], s->spread));
            done_n++;
        }
    }
    t->root = lv[L][0];
    rc = 0;
done:
    free(b.owned);
    free(start);
    free(mem);
    free(out);
    free(outnode);
    free(leaves);
    free(lv);
    free(lvn);
    free(lvbuf);
    free(moved);
    if (rc) ac_rt_free(t);
    return rc;
}

void ac_rt_free(ac_rt_tree_t *t) {
    free(t->v);
    free(t->child_mem);
    free(t->leaf_parent);
    memset(t, 0, sizeof *t);
}

int ac_rt_top(const ac_rt_tree_t *t, int r) {
    for (int v = t->nv - 1; v >= 0; v--)
        if (t->v[v].owner == r) return v;
    return AC_RT_LEAF(r);
}

int ac_rt_check(const ac_rt_tree_t *t, char *err, size_t len) {
    int rc = 0, p = t->p;
    int *seen = calloc((size_t)p, sizeof(int));
    int *vseen = calloc((size_t)t->nv + 1, sizeof(int));
    if (!seen || !vseen) {
        rc = fail(err, len, "out of memory");
        goto done;
    }
    for (int v = 0; v < t->nv && !rc; v++) {
        const ac_rt_vertex_t *x = &t->v[v];
        if (x->nchild < 1)
            rc = fail(err, len, "vertex %d has no children", v);
        else if (x->owner < 0 || x->owner >= p)
            rc = fail(err, len, "vertex %d owner %d out of range", v, x->owner);
        else if ((x->parent == -1) != (v == t->root))
            rc = fail(err, len, "vertex %d: parent %d but root is %d", v, x->parent, t->root);
        else if (x->parent != -1 && x->parent <= v)
            rc = fail(err, len, "vertex %d: parent %d is not after it", v, x->parent);
        for (int c = 0; c < x->nchild && !rc; c++) {
            int it = x->child[c];
            if (it < 0) {
                int r = AC_RT_LEAF_RANK(it);
                if (r >= p)
                    rc = fail(err, len, "leaf rank %d out of range", r);
                else if (seen[r]++)
                    rc = fail(err, len, "rank %d is a leaf more than once", r);
                else if (t->leaf_parent[r] != v)
                    rc = fail(err, len, "leaf %d: parent mismatch", r);
            } else if (it >= v) {
                rc = fail(err, len, "vertex %d: child %d is not before it", v, it);
            } else if (vseen[it]++) {
                rc = fail(err, len, "vertex %d has two parents", it);
            } else if (t->v[it].parent != v) {
                rc = fail(err, len, "vertex %d: parent mismatch", it);
            }
        }
    }
    if (!rc && t->nv == 0 && !(p == 1 && t->root == AC_RT_LEAF(0)))
        rc = fail(err, len, "no vertices for %d ranks", p);
    if (!rc && t->nv > 0) {
        if (t->root != t->nv - 1) rc = fail(err, len, "root %d is not the last vertex", t->root);
        for (int r = 0; r < p && !rc; r++)
            if (!seen[r]) rc = fail(err, len, "rank %d is not a leaf of the tree", r);
        for (int v = 0; v + 1 < t->nv && !rc; v++)
            if (!vseen[v]) rc = fail(err, len, "vertex %d is not connected", v);
    }
done:
    free(seen);
    free(vseen);
    return rc;
}
