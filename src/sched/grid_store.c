/*
 * Tree store of the broadcast advisor (seed 002, Gupta & Vadhiyar, §2.5; spec
 * adaptive-bcast-grid.md sections 10.2 replacement rule and 10.4).
 *
 * One file per key (root, communicator id, communicator size n, size bucket), named
 * bcast-<comm id, 16 hex digits>-n<n>-r<root>-b<bucket>.tree inside the store folder and
 * replaced atomically. Text format, one record a line, in this order:
 *   autocoll-gridtree 1
 *   key <comm id hex> <n> <root> <bucket>
 *   matrix-version <integer>     created <seconds>     cost <seconds>
 *   parent <n integers>          (-1 at the root)
 *   first <n+1 integers>         (CSR offsets of the child lists)
 *   child <n-1 integers>         (children of each node in send order; omitted values for n = 1)
 *   end
 * The reader checks the key, that parent is a spanning tree rooted at root, and that the CSR
 * lists hold each non-root node exactly once, under its parent. O(n) per file.
 */
#include "grid_tree.h"
#include "grid_int.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ac_grid_store_path(const char *dir, const ac_grid_key_t *k, char *out, size_t outlen) {
    int w = snprintf(out, outlen, "%s/bcast-%016" PRIx64 "-n%d-r%d-b%d.tree", dir, k->comm_id, k->n,
                     k->root, k->bucket);
    return w < 0 || (size_t)w >= outlen ? -1 : 0;
}

int ac_grid_store_write(const char *dir, const ac_grid_key_t *k, const ac_grid_meta_t *meta,
                        const ac_grid_tree_t *t, char *err, size_t errlen) {
    char path[4096];
    if (ac_grid_store_path(dir, k, path, sizeof path)) {
        if (err && errlen) snprintf(err, errlen, "%s: path too long", dir);
        return -1;
    }
    if (t->n != k->n || t->root != k->root) {
        if (err && errlen) snprintf(err, errlen, "%s: tree does not match its key", path);
        return -1;
    }
    ac_grid_sb_t b = {0};
    ac_grid_sb_printf(&b, "autocoll-gridtree 1\nkey %016" PRIx64 " %d %d %d\n", k->comm_id, k->n,
                      k->root, k->bucket);
    ac_grid_sb_printf(&b, "matrix-version %ld\ncreated %.17g\ncost %.17g\nparent",
                      meta->matrix_version, meta->created, meta->cost);
    for (int v = 0; v < t->n; v++)
        ac_grid_sb_printf(&b, " %d", t->parent[v]);
    ac_grid_sb_printf(&b, "\nfirst");
    for (int v = 0; v <= t->n; v++)
        ac_grid_sb_printf(&b, " %d", t->first[v]);
    ac_grid_sb_printf(&b, "\nchild");
    for (int i = 0; i < t->n - 1; i++)
        ac_grid_sb_printf(&b, " %d", t->child[i]);
    ac_grid_sb_printf(&b, "\nend\n");
    return ac_grid_sb_write(&b, path, err, errlen);
}

static int want(ac_grid_rd_t *r, const char *kw, int ntok) {
    int k = ac_grid_rd_next(r, 0);
    if (k < 0) return -1;
    if (k == 0) return ac_grid_rd_fail(r, "unexpected end of file, expected '%s'", kw);
    if (strcmp(r->tok[0], kw))
        return ac_grid_rd_fail(r, "expected '%s', found '%s'", kw, r->tok[0]);
    if (r->ntok != ntok)
        return ac_grid_rd_fail(r, "'%s' takes %d value(s), found %d", kw, ntok - 1, r->ntok - 1);
    return 0;
}

static int ints(ac_grid_rd_t *r, const char *kw, int count, int lo, int hi, int *out) {
    if (want(r, kw, count + 1)) return -1;
    for (int i = 0; i < count; i++) {
        long x;
        if (ac_grid_to_long(r->tok[i + 1], &x) || x < lo || x > hi)
            return ac_grid_rd_fail(r, "%s[%d] = '%s' out of range %d..%d", kw, i, r->tok[i + 1], lo,
                                   hi);
        out[i] = (int)x;
    }
    return 0;
}

static int parse_tree(ac_grid_rd_t *r, const ac_grid_key_t *k, ac_grid_meta_t *meta,
                      ac_grid_tree_t *t) {
    long x;
    if (want(r, "autocoll-gridtree", 2)) return -1;
    if (ac_grid_to_long(r->tok[1], &x) || x != 1)
        return ac_grid_rd_fail(r, "unsupported format version '%s'", r->tok[1]);
    if (want(r, "key", 5)) return -1;
    char *end;
    uint64_t id = strtoull(r->tok[1], &end, 16);
    long n, root, bucket;
    if (*end || end == r->tok[1] || ac_grid_to_long(r->tok[2], &n) ||
        ac_grid_to_long(r->tok[3], &root) || ac_grid_to_long(r->tok[4], &bucket))
        return ac_grid_rd_fail(r, "malformed key");
    if (id != k->comm_id || n != k->n || root != k->root || bucket != k->bucket)
        return ac_grid_rd_fail(r, "key does not match the file's name");
    if (want(r, "matrix-version", 2)) return -1;
    if (ac_grid_to_long(r->tok[1], &meta->matrix_version))
        return ac_grid_rd_fail(r, "bad matrix-version '%s'", r->tok[1]);
    if (want(r, "created", 2)) return -1;
    if (ac_grid_to_double(r->tok[1], &meta->created))
        return ac_grid_rd_fail(r, "bad creation time '%s'", r->tok[1]);
    if (want(r, "cost", 2)) return -1;
    if (ac_grid_to_double(r->tok[1], &meta->cost) || meta->cost < 0)
        return ac_grid_rd_fail(r, "bad cost '%s'", r->tok[1]);
    if (n < 1 || n > (1L << 24)) return ac_grid_rd_fail(r, "bad node count %ld", n);
    if (ac_grid_tree_alloc(t, (int)n)) return ac_grid_rd_fail(r, "out of memory");
    t->root = (int)root;
    char why[160];
    if (ints(r, "parent", t->n, -1, t->n - 1, t->parent)) return -1;
    int got = ac_grid_check_parent(t->n, t->parent, why, sizeof why);
    if (got < 0) return ac_grid_rd_fail(r, "not a tree: %s", why);
    if (got != t->root) return ac_grid_rd_fail(r, "tree rooted at %d, key says %d", got, t->root);
    if (ints(r, "first", t->n + 1, 0, t->n - 1, t->first)) return -1;
    if (t->first[0] != 0 || t->first[t->n] != t->n - 1)
        return ac_grid_rd_fail(r, "offsets must run from 0 to %d", t->n - 1);
    for (int v = 0; v < t->n; v++)
        if (t->first[v + 1] < t->first[v])
            return ac_grid_rd_fail(r, "offsets decrease at node %d", v);
    if (ints(r, "child", t->n - 1, 0, t->n - 1, t->child)) return -1;
    for (int v = 0; v < t->n; v++)
        for (int j = t->first[v]; j < t->first[v + 1]; j++)
            if (t->parent[t->child[j]] != v)
                return ac_grid_rd_fail(r, "node %d listed under %d, its parent is %d", t->child[j],
                                       v, t->parent[t->child[j]]);
    /* n-1 entries, each under its own parent: a node listed twice would leave another out,
     * and every non-root node has exactly one parent, so the lists are a permutation. */
    for (int i = 0; i < t->n - 1; i++)
        if (t->child[i] == t->root) return ac_grid_rd_fail(r, "the root is listed as a child");
    if (want(r, "end", 1)) return -1;
    int more = ac_grid_rd_next(r, 0);
    if (more < 0) return -1;
    if (more > 0) return ac_grid_rd_fail(r, "text after 'end'");
    return 0;
}

int ac_grid_store_read(const char *dir, const ac_grid_key_t *k, ac_grid_meta_t *meta,
                       ac_grid_tree_t *t, char *err, size_t errlen) {
    char path[4096];
    memset(t, 0, sizeof *t);
    if (ac_grid_store_path(dir, k, path, sizeof path)) {
        if (err && errlen) snprintf(err, errlen, "%s: path too long", dir);
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (!f) return 1;
    fclose(f);
    char *text = ac_grid_slurp(path, err, errlen);
    if (!text) return -1;
    ac_grid_rd_t r;
    ac_grid_rd_init(&r, text, path, err, errlen);
    int rc = parse_tree(&r, k, meta, t);
    ac_grid_rd_free(&r);
    free(text);
    if (rc) ac_grid_tree_free(t);
    return rc;
}

int ac_grid_store_offer(const char *dir, const ac_grid_key_t *k, const ac_grid_model_t *M,
                        long matrix_version, double now, const int *parent, char *err,
                        size_t errlen) {
    if (M->n != k->n) {
        if (err && errlen) snprintf(err, errlen, "model has %d nodes, key %d", M->n, k->n);
        return -1;
    }
    char why[160] = "it has another root";
    if (ac_grid_check_parent(M->n, parent, why, sizeof why) != k->root) {
        if (err && errlen)
            snprintf(err, errlen, "offered tree is not rooted at %d: %s", k->root, why);
        return -1;
    }
    ac_grid_eval_t *e = ac_grid_eval_new(M->n);
    ac_grid_tree_t t, old;
    if (!e || ac_grid_tree_alloc(&t, M->n)) {
        ac_grid_eval_free(e);
        if (err && errlen) snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 1;
    ac_grid_meta_t meta = {matrix_version, now, 0};
    if (ac_grid_store_read(dir, k, &meta, &old, NULL, 0) == 0) {
        /* Judge the stored tree on the current matrices, not on its recorded cost. */
        double oc = ac_grid_cost(e, M, old.parent);
        ac_grid_tree_free(&old);
        double nc = ac_grid_cost(e, M, parent);
        if (!(nc < oc)) rc = 0;
    }
    if (rc == 1) {
        meta.matrix_version = matrix_version;
        meta.created = now;
        meta.cost = ac_grid_cost(e, M, parent);
        ac_grid_eval_tree(e, parent, &t);
        if (ac_grid_store_write(dir, k, &meta, &t, err, errlen)) rc = -1;
    }
    ac_grid_tree_free(&t);
    ac_grid_eval_free(e);
    return rc;
}
