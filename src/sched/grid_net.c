/*
 * Stored network description (seed 002, Gupta & Vadhiyar, §2.2, §2.5; spec
 * adaptive-bcast-grid.md sections 4.1, 4.3, 4.4): parser, atomic writer, expansion of the
 * cluster-level matrices to the node-level model, and the initiation cost at a message size.
 *
 * Format (text, one record a line, '#' comments and blank lines allowed, keywords in this
 * order; units seconds and bytes/s):
 *   autocoll-gridnet 1
 *   version <integer>            timestamp <seconds>
 *   clusters <N>                 then N lines  cluster <i> <name>   (i = 0..N-1)
 *   L <i> <N latencies>          N lines, row i (>= 0)
 *   B <i> <N bandwidths>         N lines, row i (> 0)
 *   nodes <P>                    then P lines  node <v> <cluster> <o_s...>   (v = 0..P-1;
 *                                1 value for every size, or 12 at 1 KiB, 2 KiB, ..., 2 MiB)
 *   end
 * Expansion: L[u][v] = Lc[c(u)][c(v)], B[u][v] = Bc[c(u)][c(v)] for u != v, L[v][v] = 0,
 * B[v][v] = Bc[c(v)][c(v)]; o[v] = o_s interpolated linearly in log2(m) between buckets and
 * clamped at both ends. Parse and write are O(N^2 + P); expansion O(P^2).
 */
#include "grid_tree.h"
#include "grid_int.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ac_grid_net_free(ac_grid_net_t *net) {
    if (net->name)
        for (int i = 0; i < net->nc; i++)
            free(net->name[i]);
    free(net->name);
    free(net->Lc);
    free(net->Bc);
    free(net->cluster);
    free(net->nos);
    free(net->os);
    memset(net, 0, sizeof *net);
}

/* Expect a line starting with kw and exactly ntok tokens in all. */
static int want(ac_grid_rd_t *r, const char *kw, int ntok) {
    int k = ac_grid_rd_next(r, 0);
    if (k < 0) return -1;
    if (k == 0) return ac_grid_rd_fail(r, "unexpected end of file, expected '%s'", kw);
    if (strcmp(r->tok[0], kw))
        return ac_grid_rd_fail(r, "expected '%s', found '%s'", kw, r->tok[0]);
    if (ntok >= 0 && r->ntok != ntok)
        return ac_grid_rd_fail(r, "'%s' takes %d value(s), found %d", kw, ntok - 1, r->ntok - 1);
    return 0;
}

static int index_tok(ac_grid_rd_t *r, int t, int expect, const char *what) {
    long x;
    if (ac_grid_to_long(r->tok[t], &x) || x != expect)
        return ac_grid_rd_fail(r, "%s index '%s', expected %d", what, r->tok[t], expect);
    return 0;
}

static int matrix(ac_grid_rd_t *r, const char *kw, int nc, double *M, int positive) {
    for (int i = 0; i < nc; i++) {
        if (want(r, kw, nc + 2) || index_tok(r, 1, i, kw)) return -1;
        for (int j = 0; j < nc; j++) {
            double x;
            if (ac_grid_to_double(r->tok[j + 2], &x))
                return ac_grid_rd_fail(r, "%s[%d][%d]: '%s' is not a number", kw, i, j,
                                       r->tok[j + 2]);
            if (positive ? !(x > 0) : x < 0)
                return ac_grid_rd_fail(r, "%s[%d][%d] = %g must be %s", kw, i, j, x,
                                       positive ? "> 0" : ">= 0");
            M[(size_t)i * nc + j] = x;
        }
    }
    return 0;
}

static int parse(ac_grid_rd_t *r, ac_grid_net_t *net) {
    long x;
    double d;
    if (want(r, "autocoll-gridnet", 2)) return -1;
    if (ac_grid_to_long(r->tok[1], &x) || x != 1)
        return ac_grid_rd_fail(r, "unsupported format version '%s'", r->tok[1]);
    if (want(r, "version", 2)) return -1;
    if (ac_grid_to_long(r->tok[1], &net->version) || net->version < 0)
        return ac_grid_rd_fail(r, "bad version '%s'", r->tok[1]);
    if (want(r, "timestamp", 2)) return -1;
    if (ac_grid_to_double(r->tok[1], &net->timestamp))
        return ac_grid_rd_fail(r, "bad timestamp '%s'", r->tok[1]);
    if (want(r, "clusters", 2)) return -1;
    if (ac_grid_to_long(r->tok[1], &x) || x < 1 || x > 4096)
        return ac_grid_rd_fail(r, "bad cluster count '%s' (1..4096)", r->tok[1]);
    net->nc = (int)x;
    size_t nc = (size_t)net->nc;
    net->name = calloc(nc, sizeof(char *));
    net->Lc = malloc(nc * nc * sizeof(double));
    net->Bc = malloc(nc * nc * sizeof(double));
    if (!net->name || !net->Lc || !net->Bc) return ac_grid_rd_fail(r, "out of memory");
    for (int i = 0; i < net->nc; i++) {
        if (want(r, "cluster", 3) || index_tok(r, 1, i, "cluster")) return -1;
        for (int j = 0; j < i; j++)
            if (!strcmp(net->name[j], r->tok[2]))
                return ac_grid_rd_fail(r, "duplicate cluster name '%s'", r->tok[2]);
        net->name[i] = malloc(strlen(r->tok[2]) + 1);
        if (!net->name[i]) return ac_grid_rd_fail(r, "out of memory");
        strcpy(net->name[i], r->tok[2]);
    }
    if (matrix(r, "L", net->nc, net->Lc, 0) || matrix(r, "B", net->nc, net->Bc, 1)) return -1;
    if (want(r, "nodes", 2)) return -1;
    if (ac_grid_to_long(r->tok[1], &x) || x < 1 || x > (1L << 24))
        return ac_grid_rd_fail(r, "bad node count '%s'", r->tok[1]);
    net->np = (int)x;
    size_t np = (size_t)net->np;
    net->cluster = malloc(np * sizeof(int));
    net->nos = malloc(np * sizeof(int));
    net->os = malloc(np * AC_GRID_NBUCKETS * sizeof(double));
    if (!net->cluster || !net->nos || !net->os) return ac_grid_rd_fail(r, "out of memory");
    for (int v = 0; v < net->np; v++) {
        if (want(r, "node", -1) || (r->ntok >= 2 && index_tok(r, 1, v, "node"))) return -1;
        int k = r->ntok - 3;
        if (k != 1 && k != AC_GRID_NBUCKETS)
            return ac_grid_rd_fail(r, "node %d: expected <cluster> and 1 or %d o_s values", v,
                                   AC_GRID_NBUCKETS);
        if (ac_grid_to_long(r->tok[2], &x) || x < 0 || x >= net->nc)
            return ac_grid_rd_fail(r, "node %d: cluster '%s' out of range 0..%d", v, r->tok[2],
                                   net->nc - 1);
        net->cluster[v] = (int)x;
        net->nos[v] = k;
        for (int b = 0; b < AC_GRID_NBUCKETS; b++) {
            const char *t = r->tok[3 + (k == 1 ? 0 : b)];
            if (ac_grid_to_double(t, &d) || d < 0)
                return ac_grid_rd_fail(r, "node %d: o_s '%s' is not a number >= 0", v, t);
            net->os[(size_t)v * AC_GRID_NBUCKETS + b] = d;
        }
    }
    if (want(r, "end", 1)) return -1;
    int k = ac_grid_rd_next(r, 0);
    if (k < 0) return -1;
    if (k > 0) return ac_grid_rd_fail(r, "text after 'end'");
    return 0;
}

int ac_grid_net_parse(const char *text, const char *name, ac_grid_net_t *net, char *err,
                      size_t errlen) {
    memset(net, 0, sizeof *net);
    ac_grid_rd_t r;
    ac_grid_rd_init(&r, text, name, err, errlen);
    int rc = parse(&r, net);
    ac_grid_rd_free(&r);
    if (rc) ac_grid_net_free(net);
    return rc;
}

int ac_grid_net_read(const char *path, ac_grid_net_t *net, char *err, size_t errlen) {
    memset(net, 0, sizeof *net);
    char *text = ac_grid_slurp(path, err, errlen);
    if (!text) return -1;
    int rc = ac_grid_net_parse(text, path, net, err, errlen);
    free(text);
    return rc;
}

int ac_grid_net_write(const char *path, const ac_grid_net_t *net, char *err, size_t errlen) {
    for (int i = 0; i < net->nc; i++) { /* names are single tokens in the file */
        const char *nm = net->name[i];
        if (!nm || !*nm || strpbrk(nm, " \t\r\n#")) {
            if (err && errlen)
                snprintf(err, errlen, "%s: cluster %d: name empty or with blanks or '#'", path, i);
            return -1;
        }
    }
    ac_grid_sb_t b = {0};
    ac_grid_sb_printf(&b, "autocoll-gridnet 1\nversion %ld\ntimestamp %.17g\nclusters %d\n",
                      net->version, net->timestamp, net->nc);
    for (int i = 0; i < net->nc; i++)
        ac_grid_sb_printf(&b, "cluster %d %s\n", i, net->name[i]);
    for (int m = 0; m < 2; m++) {
        const double *M = m ? net->Bc : net->Lc;
        for (int i = 0; i < net->nc; i++) {
            ac_grid_sb_printf(&b, "%s %d", m ? "B" : "L", i);
            for (int j = 0; j < net->nc; j++)
                ac_grid_sb_printf(&b, " %.17g", M[(size_t)i * net->nc + j]);
            ac_grid_sb_printf(&b, "\n");
        }
    }
    ac_grid_sb_printf(&b, "nodes %d\n", net->np);
    for (int v = 0; v < net->np; v++) {
        ac_grid_sb_printf(&b, "node %d %d", v, net->cluster[v]);
        int k = net->nos[v] == 1 ? 1 : AC_GRID_NBUCKETS;
        for (int j = 0; j < k; j++)
            ac_grid_sb_printf(&b, " %.17g", net->os[(size_t)v * AC_GRID_NBUCKETS + j]);
        ac_grid_sb_printf(&b, "\n");
    }
    ac_grid_sb_printf(&b, "end\n");
    return ac_grid_sb_write(&b, path, err, errlen);
}

double ac_grid_net_os(const ac_grid_net_t *net, int v, double m) {
    const double *os = net->os + (size_t)v * AC_GRID_NBUCKETS;
    if (net->nos[v] == 1) return os[0];
    double x = m > 0 ? log2(m) - 10.0 : 0.0; /* bucket 0 is 2^10 bytes */
    if (x <= 0) return os[0];
    if (x >= AC_GRID_NBUCKETS - 1) return os[AC_GRID_NBUCKETS - 1];
    int i = (int)x;
    double f = x - i;
    return os[i] + f * (os[i + 1] - os[i]);
}

void ac_grid_net_expand(const ac_grid_net_t *net, double m, double *o, double *L, double *B) {
    int P = net->np, N = net->nc;
    for (int u = 0; u < P; u++) {
        o[u] = ac_grid_net_os(net, u, m);
        int cu = net->cluster[u];
        for (int v = 0; v < P; v++) {
            int cv = net->cluster[v];
            L[(size_t)u * P + v] = u == v ? 0.0 : net->Lc[(size_t)cu * N + cv];
            B[(size_t)u * P + v] = net->Bc[(size_t)cu * N + cv];
        }
    }
}
