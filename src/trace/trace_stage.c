/*
 * Per-stage analysis of the configurable reduction trees (allreduce `tree`). Source: seed 003
 * (Bongo et al.) §4 and Fig. 6, spec allreduce-trees.md §7.1 (wrapper timestamps t1..t4, down
 * and up latencies, arrival and departure waits, stages of a leaf's path, per-part sums) and
 * §7.2 (MPI mapping: a_i, t2, t3, d_i per vertex; entry and exit per rank; the two total
 * identities).
 *
 * Input: one call's stage records of every rank (AC_TK_TREE_*, written by
 * src/coll/allreduce/allreduce_tree.c) and its collective records, with every time already on
 * one clock (rank 0's, through the offsets of the file headers). ac_stage_call_build assembles
 * them into the tree; ac_stage_path lists rank r's stages:
 *   down: entry = ready - entry; then for each vertex v from the leaf's parent to the root, with
 *     u the item below it on r's path: edge u->v = a_u(v) - t2(u) (only when own(u) != own(v):
 *     own vertices pass their value by a local copy stamped a_u(v) = t2(u)), arrival wait
 *     a_l(v) - a_u(v) with l the last arrival, down latency t2(v) - a_l(v) (the root's is the
 *     core stage);
 *   up: the final value reaches r the way the broadcast phase sends it: from the owner of the
 *     parent w of r's highest owned item, whose own copy came the same way. Per hop, from the
 *     root outwards: up latency t4,f(w) - t3(w) with f the first departure, departure wait
 *     t4,top(w) - t4,f(w), edge t3(top) - t4,top(w); then, when r owns its leaf's parent lp, the
 *     up latency and departure wait of its own leaf at lp; then exit = exit - t4,leaf(lp) (or
 *     exit - t3 of the leaf).
 * Design choice: the spec (7.2) splits a network edge's round-trip residual
 * (t3(u) - t2(u)) - (d_u(v) - a_u(v)) half down, half up because PATHS returns the result over
 * the edge it came by. autocoll's broadcast phase sends the final value straight from the owner
 * of parent(top(r)), which is not the way up, so the down and up edges of a path are not pairs;
 * edges are therefore timed on rank 0's clock (offsets estimated by ping-pong at MPI_Init and
 * MPI_Finalize, docs/tracing.md), with an uncertainty of the two ranks' residuals. The stages
 * then telescope: down stages sum to t2(root) - entry, up stages to exit - t3(root), and since
 * t2(root) = t3(root), the two identities of §7.2 (total = down + up, with and without arrival
 * waits) hold up to the clock correction of entry and exit of one rank (drift only).
 *
 * Cost: O(V + p) per call to assemble, O(depth + hops) per path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace.h"

void ac_stage_call_free(ac_stage_call_t *c) {
    if (c->v)
        for (int i = 0; i < c->nv; i++)
            free(c->v[i].c);
    free(c->v);
    free(c->entry);
    free(c->exit);
    free(c->ready);
    free(c->fin);
    free(c->node);
    free(c->leaf_parent);
    free(c->top);
    memset(c, 0, sizeof *c);
}

#define BAD(...)                                                                                   \
    do {                                                                                           \
        snprintf(err, errlen, __VA_ARGS__);                                                        \
        return -1;                                                                                 \
    } while (0)

int ac_stage_call_build(ac_stage_call_t *c, int p, const ac_trace_rec_t *const *rec,
                        const size_t *n, char *err, size_t errlen) {
    memset(c, 0, sizeof *c);
    if (err && errlen) err[0] = '\0';
    if (p < 1 || p > (1 << 24) || !rec || !n) BAD("bad arguments");
    int nv = -1;
    for (int r = 0; r < p; r++)
        for (size_t k = 0; k < n[r]; k++)
            if (rec[r][k].kind == AC_TK_TREE_RANK) {
                int x = rec[r][k].status_tag;
                if (x < 0 || x > 4 * p + 64) BAD("rank %d: %d vertices", r, x);
                if (nv >= 0 && x != nv) BAD("rank %d: %d vertices, rank 0 says %d", r, x, nv);
                nv = x;
            }
    if (nv < 0) BAD("no tree_rank record");
    c->p = p;
    c->nv = nv;
    size_t P = (size_t)p;
    c->entry = malloc(P * sizeof *c->entry);
    c->exit = malloc(P * sizeof *c->exit);
    c->ready = malloc(P * sizeof *c->ready);
    c->fin = malloc(P * sizeof *c->fin);
    c->node = malloc(P * sizeof *c->node);
    c->leaf_parent = malloc(P * sizeof *c->leaf_parent);
    c->top = malloc(P * sizeof *c->top);
    c->v = calloc((size_t)nv + 1, sizeof *c->v);
    if (!c->entry || !c->exit || !c->ready || !c->fin || !c->node || !c->leaf_parent || !c->top ||
        !c->v)
        BAD("out of memory");
    for (int i = 0; i < nv; i++)
        c->v[i].owner = -1;
    for (int r = 0; r < p; r++) {
        int coll = 0, rk = 0;
        c->leaf_parent[r] = -2;
        for (size_t k = 0; k < n[r]; k++) {
            const ac_trace_rec_t *x = &rec[r][k];
            if (x->kind < AUTOCOLL_NCOLL) {
                c->entry[r] = x->t_in;
                c->exit[r] = x->t_out;
                coll++;
            } else if (x->kind == AC_TK_TREE_RANK) {
                if (x->ident != r || x->count != p)
                    BAD("rank %d: tree_rank record of rank %d of %d", r, x->ident, x->count);
                c->ready[r] = x->t_in;
                c->fin[r] = x->t_out;
                c->node[r] = x->tag;
                rk++;
            } else if (x->kind == AC_TK_TREE_VERTEX) {
                int v = x->ident;
                if (v < 0 || v >= nv) BAD("rank %d: vertex %d of %d", r, v, nv);
                ac_stage_vertex_t *V = &c->v[v];
                if (V->owner >= 0) BAD("vertex %d recorded by ranks %d and %d", v, V->owner, r);
                if (x->count < 1 || x->count > p + nv) BAD("vertex %d: %d children", v, x->count);
                if (x->tag < -1 || x->tag >= nv || x->tag == v)
                    BAD("vertex %d: parent %d", v, x->tag);
                V->owner = r;
                V->parent = x->tag;
                V->kind = x->status_source;
                V->level = x->status_tag;
                V->nchild = x->count;
                V->t2 = x->t_in;
                V->t3 = x->t_out;
                V->c = calloc((size_t)x->count, sizeof *V->c);
                if (!V->c) BAD("out of memory");
                for (int i = 0; i < x->count; i++)
                    V->c[i].owner = -1;
            } else if (x->kind != AC_TK_TREE_CHILD) {
                BAD("rank %d: unexpected %s record", r, ac_trace_kind_name(x->kind));
            }
        }
        if (coll != 1) BAD("rank %d: %d collective records (1 expected)", r, coll);
        if (rk != 1) BAD("rank %d: %d tree_rank records (1 expected)", r, rk);
    }
    for (int v = 0; v < nv; v++)
        if (c->v[v].owner < 0) BAD("vertex %d: no record", v);
    for (int r = 0; r < p; r++)
        for (size_t k = 0; k < n[r]; k++) {
            const ac_trace_rec_t *x = &rec[r][k];
            if (x->kind != AC_TK_TREE_CHILD) continue;
            int v = x->ident;
            if (v < 0 || v >= nv || c->v[v].owner != r)
                BAD("rank %d: child record of vertex %d it does not own", r, v);
            ac_stage_vertex_t *V = &c->v[v];
            if (x->count < 0 || x->count >= V->nchild)
                BAD("vertex %d: child position %d of %d", v, x->count, V->nchild);
            ac_stage_child_t *ch = &V->c[x->count];
            if (ch->owner >= 0) BAD("vertex %d: child %d recorded twice", v, x->count);
            int it = x->tag;
            if (it >= nv || it < -p) BAD("vertex %d: child item %d", v, it);
            if (x->status_source < 0 || x->status_source >= p)
                BAD("vertex %d: child owner %d", v, x->status_source);
            if (it >= 0 && c->v[it].parent != v)
                BAD("vertex %d: child %d has parent %d", v, it, c->v[it].parent);
            if (it >= 0 && c->v[it].owner != x->status_source)
                BAD("vertex %d: child %d owned by %d, not %d", v, it, c->v[it].owner,
                    x->status_source);
            if (it < 0) {
                int lr = -it - 1;
                if (lr != x->status_source)
                    BAD("vertex %d: leaf of rank %d owned by %d", v, lr, x->status_source);
                if (c->leaf_parent[lr] != -2) BAD("leaf of rank %d under two vertices", lr);
                c->leaf_parent[lr] = v;
            }
            ch->a = x->t_in;
            ch->d = x->t_out;
            ch->item = it;
            ch->owner = x->status_source;
            ch->dep = x->status_tag == 1;
        }
    for (int v = 0; v < nv; v++)
        for (int i = 0; i < c->v[v].nchild; i++)
            if (c->v[v].c[i].owner < 0) BAD("vertex %d: no record of child %d", v, i);
    int roots = 0;
    for (int v = 0; v < nv; v++)
        roots += c->v[v].parent < 0;
    if (nv > 0 && roots != 1) BAD("%d root vertices", roots);
    for (int r = 0; r < p; r++) {
        if (c->leaf_parent[r] == -2) {
            if (nv > 0) BAD("leaf of rank %d under no vertex", r);
            c->leaf_parent[r] = -1;
        }
        c->top[r] = -r - 1;
    }
    for (int v = 0; v < nv; v++)
        c->top[c->v[v].owner] = v; /* children before parents: the last one is the highest */
    return 0;
}

#undef BAD

static int pos_of(const ac_stage_vertex_t *V, int item) {
    for (int i = 0; i < V->nchild; i++)
        if (V->c[i].item == item) return i;
    return -1;
}

static int edge_class(const ac_stage_call_t *c, int a, int b) {
    return a == b ? AC_EDGE_RANK : c->node[a] == c->node[b] ? AC_EDGE_NODE : AC_EDGE_NET;
}

static int64_t first_departure(const ac_stage_vertex_t *V, int *ok) {
    int64_t f = 0;
    *ok = 0;
    for (int i = 0; i < V->nchild; i++)
        if (V->c[i].dep && (!*ok || V->c[i].d < f)) {
            f = V->c[i].d;
            *ok = 1;
        }
    return f;
}

#define PUSH(T, V, E, NS)                                                                          \
    do {                                                                                           \
        if (n >= max) return -1;                                                                   \
        st[n].type = (T);                                                                          \
        st[n].vertex = (V);                                                                        \
        st[n].vkind = (V) >= 0 ? c->v[V].kind : 0;                                                 \
        st[n].level = (V) >= 0 ? c->v[V].level : 0;                                                \
        st[n].edge = (E);                                                                          \
        st[n].ns = (NS);                                                                           \
        n++;                                                                                       \
    } while (0)

int ac_stage_path(const ac_stage_call_t *c, int r, ac_stage_t *st, int max) {
    if (!c || r < 0 || r >= c->p || !st || max < 1) return -1;
    int n = 0;
    PUSH(AC_ST_ENTRY, -1, 0, c->ready[r] - c->entry[r]);
    /* Down: from the leaf to the root. */
    int u = -r - 1, ownu = r, hops = 0;
    int64_t t2u = c->ready[r];
    for (int v = c->leaf_parent[r]; v >= 0; v = c->v[v].parent) {
        if (++hops > c->nv) return -1; /* a cycle */
        const ac_stage_vertex_t *V = &c->v[v];
        int i = pos_of(V, u);
        if (i < 0) return -1;
        int64_t al = V->c[0].a;
        for (int k = 1; k < V->nchild; k++)
            if (V->c[k].a > al) al = V->c[k].a;
        if (V->owner != ownu) {
            PUSH(AC_ST_EDGE_DOWN, -1, edge_class(c, ownu, V->owner), V->c[i].a - t2u);
            st[n - 1].vkind = V->kind;
            st[n - 1].level = V->level;
        }
        PUSH(AC_ST_ARRIVAL_WAIT, v, 0, al - V->c[i].a);
        PUSH(V->parent < 0 ? AC_ST_CORE : AC_ST_DOWN, v, 0, V->t2 - al);
        u = v;
        ownu = V->owner;
        t2u = V->t2;
    }
    /* Up: the ranks the final value passed through on its way to r, root side first. */
    int chain[64], nc = 0, x = r;
    for (;;) {
        int top = c->top[x];
        int w = top < 0 ? c->leaf_parent[-top - 1] : c->v[top].parent;
        if (w < 0) break;
        if (nc == (int)(sizeof chain / sizeof *chain) || nc > c->p) return -1;
        chain[nc++] = x;
        x = c->v[w].owner;
        if (x == chain[nc - 1]) return -1;
    }
    for (int k = nc - 1; k >= 0; k--) {
        int y = chain[k], top = c->top[y];
        int w = top < 0 ? c->leaf_parent[-top - 1] : c->v[top].parent;
        const ac_stage_vertex_t *W = &c->v[w];
        int i = pos_of(W, top), ok;
        if (i < 0 || !W->c[i].dep) return -1;
        int64_t f = first_departure(W, &ok);
        PUSH(AC_ST_UP, w, 0, f - W->t3);
        PUSH(AC_ST_DEPARTURE_WAIT, w, 0, W->c[i].d - f);
        PUSH(AC_ST_EDGE_UP, -1, edge_class(c, W->owner, y), c->fin[y] - W->c[i].d);
        st[n - 1].vkind = W->kind;
        st[n - 1].level = W->level;
    }
    int lp = c->leaf_parent[r];
    int64_t last = c->fin[r];
    if (lp >= 0 && c->v[lp].owner == r) {
        const ac_stage_vertex_t *L = &c->v[lp];
        int i = pos_of(L, -r - 1), ok;
        if (i < 0 || !L->c[i].dep) return -1;
        int64_t f = first_departure(L, &ok);
        PUSH(AC_ST_UP, lp, 0, f - L->t3);
        PUSH(AC_ST_DEPARTURE_WAIT, lp, 0, L->c[i].d - f);
        last = L->c[i].d;
    }
    PUSH(AC_ST_EXIT, -1, 0, c->exit[r] - last);
    return n;
}

#undef PUSH

int ac_stage_is_up(int type) {
    return (type >= AC_ST_UP && type <= AC_ST_EXIT) || type == AC_ST_PARENT_WAIT ||
           type == AC_ST_PART_UP;
}

const char *ac_stage_type_name(int type) {
    static const char *const nm[AC_ST_NTYPES] = {
        "entry",       "edge down",      "arrival wait", "down latency", "core",
        "up latency",  "departure wait", "edge up",      "exit",         "child wait",
        "parent wait", "part",           "part"};
    return type >= 0 && type < AC_ST_NTYPES ? nm[type] : NULL;
}

void ac_stage_parts(const ac_stage_t *st, int n, int64_t total, ac_stage_parts_t *x) {
    memset(x, 0, sizeof *x);
    x->total = total;
    for (int i = 0; i < n; i++) {
        int64_t v = st[i].ns;
        switch (st[i].type) {
        case AC_ST_ENTRY:
        case AC_ST_EXIT:
            x->wrapper += v;
            break;
        case AC_ST_EDGE_DOWN:
        case AC_ST_EDGE_UP:
            if (st[i].edge == AC_EDGE_NET)
                x->net += v;
            else
                x->local += v;
            break;
        case AC_ST_ARRIVAL_WAIT:
            x->arrival_wait += v;
            break;
        case AC_ST_CORE:
            x->core += v;
            break;
        default:
            if (st[i].vkind == 1)
                x->cluster += v;
            else
                x->host += v;
        }
        if (ac_stage_is_up(st[i].type))
            x->up += v;
        else
            x->down_wait += v;
    }
    x->down_nowait = x->down_wait - x->arrival_wait;
}

static int64_t iabs64(int64_t v) {
    return v < 0 ? -v : v;
}

int64_t ac_stage_identity_error(const ac_stage_parts_t *x) {
    int64_t e1 = iabs64(x->total - (x->down_wait + x->up));
    int64_t e2 = iabs64((x->total - x->arrival_wait) - (x->down_nowait + x->up));
    return e1 > e2 ? e1 : e2;
}

void ac_stage_orders(const ac_stage_vertex_t *v, int *arr, int *dep) {
    for (int i = 0; i < v->nchild; i++) {
        int a = 0, d = 0;
        for (int j = 0; j < v->nchild; j++) {
            if (v->c[j].a < v->c[i].a || (v->c[j].a == v->c[i].a && j < i)) a++;
            if (v->c[j].dep && (v->c[j].d < v->c[i].d || (v->c[j].d == v->c[i].d && j < i))) d++;
        }
        arr[i] = a;
        dep[i] = v->c[i].dep ? d : -1;
    }
}
