/*
 * Algorithm: configurable reduction tree: the tree given by parameter `spec` (a preset name or
 *   a specification string; see src/sched/rtree.c and docs/reduction-trees.md) is built for the
 *   communicator's node layout into a tree of partial-reduction vertices, each with an owner
 *   rank: host subtrees group the ranks of a node F1 at a time, then F2, ...; a cluster-root
 *   subtree over the node outputs lives on the root node (spread over its ranks), `links` moves
 *   upper host vertices to the root node, `split` moves first-level cluster vertices to other
 *   nodes. Reduce phase: every rank pre-posts the receives of the remote children of the
 *   vertices it owns, ordered as the senders send them (leaves by rank, then vertices in build
 *   order), sends its own value to its leaf's parent owner, then completes its vertices in build
 *   order, combining the children in a fixed order (c_0 op (c_1 op ...)) and sending the
 *   partial result to the parent's owner. Broadcast phase: rank r receives the final value from
 *   the owner of the parent of its highest owned item and forwards it to every rank whose
 *   highest item hangs below a vertex it owns (other nodes first). Only one final value exists,
 *   so all ranks hold identical bytes.
 * Cost: per level of the tree, fan-in F: F (alpha + n beta) + (F-1) n gamma at the owner, twice
 *   (reduce and broadcast); network hops per leaf-to-root path as set by links/split.
 * Restrictions: COMMUTATIVE (node order need not be rank order). Memory: one vector per owned
 *   vertex and per remote child.
 * Reference: seed 003 (Bongo et al.), sections 3-6 (gred trees, host / cluster-root subtrees,
 *   links and split reconfigurations); spec allreduce-trees.md sections 3.2 and 5.
 * Instrumentation (seed 003 §4, spec allreduce-trees.md §7.2; analysis in
 *   src/trace/trace_stage.c, records in src/trace/trace.h): when collective tracing is on and
 *   the tree runs as the whole call, every rank stamps its leaf's value leaving (t2 of the leaf)
 *   and the final value arriving (t3), and per owned vertex t2, t3 and, per child, the arrival
 *   a_i (remote children are then completed with Waitany, so each is stamped when it is seen,
 *   before the fixed-order combination) and the departure d_i (just before the send of the
 *   final value; for the owner's own items after its sends are posted). The records are pushed
 *   at the end of the call. Run as the leaders' part of a traced allreduce `hierarchical`
 *   (ac_tree_stamps set by src/coll/hier_stage.c), the same stamps give instead this rank's
 *   vertex of the rank-level tree as a reduce run and a bcast run of the part (stamp_part),
 *   which hier_stage.c writes as part_tree / part_child records of the inter-node stage under
 *   the hierarchical call's number. With tracing off the cost is one load and one branch per
 *   call (and untaken branches on the flag kept in a register).
 */
#include <stdlib.h>
#include <string.h>
#include "../algs.h"
#include "../../sched/rtree.h"
#include "../../sched/tree.h"
#include "../../trace/trace.h"

typedef struct {
    int key, vertex, pos, src;
} rchild_t;

static int key_of(int p, int item) {
    return item < 0 ? AC_RT_LEAF_RANK(item) : p + item;
}

static int cmp_rchild(const void *x, const void *y) {
    const rchild_t *a = x, *b = y;
    return (a->key > b->key) - (a->key < b->key);
}

/* Traced: completes the remote children of vertex v in arrival order (Waitany), stamping each
 * when seen (a[c], c = position); local children get their t2 (own leaf: ready). The fixed
 * combination order then waits on completed requests. */
static int stamp_arrivals(const ac_rt_tree_t *tr, int v, int me, const rchild_t *rc, int nrc,
                          MPI_Request *rreq, int64_t ready, const int64_t *tv2, int64_t *a,
                          MPI_Request *wq, int *wi) {
    int nw = 0;
    for (int c = 0; c < tr->v[v].nchild; c++) {
        int it = tr->v[v].child[c];
        if (ac_rt_owner(tr, it) == me) a[c] = it < 0 ? ready : tv2[it];
    }
    for (int i = 0; i < nrc; i++)
        if (rc[i].vertex == v) {
            wq[nw] = rreq[i];
            wi[nw++] = i;
        }
    for (int left = nw; left > 0; left--) {
        int k = MPI_UNDEFINED, e = PMPI_Waitany(nw, wq, &k, MPI_STATUS_IGNORE);
        if (e != MPI_SUCCESS) return e;
        if (k == MPI_UNDEFINED) break;
        a[rc[wi[k]].pos] = ac_trace_now();
        rreq[wi[k]] = MPI_REQUEST_NULL;
    }
    return MPI_SUCCESS;
}

/* Traced: the final value leaves vertex v for its child item it. */
static void stamp_departure(const ac_rt_tree_t *tr, int v, int it, int64_t *d) {
    for (int c = 0; c < tr->v[v].nchild; c++)
        if (tr->v[v].child[c] == it) d[c] = ac_trace_now();
}

/* Level of a vertex in its subtree (host or cluster-root): 0 when no child is of its kind,
 * else 1 + the highest level of such a child. */
static int vertex_level(const ac_rt_tree_t *tr, int v) {
    int l = 0;
    for (int c = 0; c < tr->v[v].nchild; c++) {
        int it = tr->v[v].child[c];
        if (it >= 0 && tr->v[it].kind == tr->v[v].kind) {
            int x = 1 + vertex_level(tr, it);
            if (x > l) l = x;
        }
    }
    return l;
}

/* Traced as the leaders' part of a hierarchical call (ac_tree_stamps set by
 * src/coll/hier_stage.c): this rank's vertex of the rank-level tree, as two runs of the part
 * (a reduce tree then a bcast tree, like the executors' runs). The parent of rank r is the
 * owner of the parent of r's highest owned item, its children the ranks whose highest item
 * hangs below a vertex r owns: the broadcast phase's edges, and the reduce phase's for the
 * items that carry a rank's whole contribution. Reduce: entry, t2 (the highest item's value
 * leaves; root: the final value), t1,i the child's highest item seen; bcast: entry t2, t3 (the
 * final value here), t4,i the final value sent to the child. Without room for two runs, both
 * are counted as lost. */
static void stamp_part(const ac_rt_tree_t *tr, int me, int64_t entry, int64_t ready, int64_t fin,
                       const int64_t *tv2, const int64_t *ta, const int64_t *td, const int *cb) {
    ac_tree_stamps_t *s = ac_tree_stamps;
    if (s->nrun + 2 > s->maxrun || s->cap < tr->p) {
        s->lost += 2;
        return;
    }
    int top = ac_rt_top(tr, me), par = ac_rt_parent(tr, top);
    int64_t t2 = top < 0 ? ready : tv2[top];
    ac_tree_run_t *rd = &s->run[s->nrun++], *bc = &s->run[s->nrun++];
    rd->op = AC_TREE_RUN_REDUCE;
    bc->op = AC_TREE_RUN_BCAST;
    rd->parent = bc->parent = par < 0 ? -1 : tr->v[par].owner;
    rd->entry = entry;
    rd->mid = t2 > entry ? t2 : entry;
    bc->entry = rd->mid;
    bc->mid = fin > rd->mid ? fin : rd->mid;
    rd->nch = bc->nch = 0;
    for (int y = 0; y < tr->p; y++) {
        if (y == me) continue;
        int yt = ac_rt_top(tr, y), yp = ac_rt_parent(tr, yt);
        if (yp < 0 || tr->v[yp].owner != me) continue;
        int c = 0;
        while (c < tr->v[yp].nchild - 1 && tr->v[yp].child[c] != yt)
            c++;
        int64_t a1 = ta[cb[yp] + c], a4 = td[cb[yp] + c];
        rd->child[rd->nch] = bc->child[bc->nch] = y;
        rd->at[rd->nch++] = a1 < rd->mid ? a1 : rd->mid; /* t1 <= t2 */
        bc->at[bc->nch++] = a4 > bc->mid ? a4 : bc->mid; /* t4 >= t3 */
    }
}

/* Traced: the stage records of this rank (src/trace/trace.h, AC_TK_TREE_*). */
static void record_stages(const ac_rt_tree_t *tr, int me, const int *node, unsigned long long seq,
                          int64_t ready, int64_t fin, const int64_t *tv2, const int64_t *ta,
                          const int64_t *td, const int *cb) {
    ac_trace_rec_t r;
    ac_trace_rec_clear(&r, AC_TK_TREE_RANK);
    r.seq = seq;
    r.t_in = ready;
    r.t_out = fin;
    r.ident = me;
    r.count = tr->p;
    r.tag = node[me];
    r.status_tag = tr->nv;
    ac_trace_record(&r);
    for (int v = 0; v < tr->nv; v++) {
        const ac_rt_vertex_t *V = &tr->v[v];
        if (V->owner != me) continue;
        ac_trace_rec_clear(&r, AC_TK_TREE_VERTEX);
        r.seq = seq;
        r.t_in = tv2[v];
        r.t_out = fin > tv2[v] ? fin : tv2[v];
        r.ident = v;
        r.count = V->nchild;
        r.tag = V->parent;
        r.status_source = V->kind;
        r.status_tag = vertex_level(tr, v);
        ac_trace_record(&r);
        for (int c = 0; c < V->nchild; c++) {
            int it = V->child[c], o = ac_rt_owner(tr, it);
            int dep = o == me || (it == ac_rt_top(tr, o));
            ac_trace_rec_clear(&r, AC_TK_TREE_CHILD);
            r.seq = seq;
            r.t_in = ta[cb[v] + c];
            r.t_out = dep ? td[cb[v] + c] : fin;
            if (r.t_out < r.t_in) r.t_out = r.t_in;
            r.ident = v;
            r.count = c;
            r.tag = it;
            r.status_source = o;
            r.status_tag = dep;
            ac_trace_record(&r);
        }
    }
}

int ac_allreduce_tree(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    int err = MPI_SUCCESS, p = a->size, me = a->rank, n = a->rcount, tag = AC_TAG(a);
    MPI_Datatype t = a->rtype;
    MPI_Aint ext = ac_dt_extent(t);
    ac_rt_spec_t spec;
    ac_rt_tree_t tr;
    char msg[256];
    int nown = 0, nrc = 0, nsreq = 0, built = 0;
    int *vslot = NULL, *node = NULL;
    rchild_t *rc = NULL;
    MPI_Request *rreq = NULL, *sreq = NULL;
    void *vbase = NULL, *rbase = NULL, *fbase = NULL;
    char *vbuf = NULL, *rbuf = NULL, *fin = NULL;
    const char *mine = ac_rs_input(a);
    size_t span = (size_t)n; /* elements per slot */
    /* Stage tracing: one branch when off. Not as the part of a traced hierarchical call
     * (ac_tree_stamps set, src/coll/hier_stage.c): its records would name the part's
     * communicator and call numbers as the call's. */
    int traced = 0, part = 0;
    int64_t *tv2 = NULL, *ta = NULL, *td = NULL, t_ready = 0, t_fin = 0, t_entry = 0;
    if (__builtin_expect(ac_trace_on(AUTOCOLL_ALLREDUCE), 0) && ctx && a->comm == ctx->comm) {
        part = ac_tree_stamps != NULL; /* the leaders' part of a traced hierarchical call */
        traced = 1;
        t_entry = ac_trace_now();
    }
    int *cb = NULL;
    MPI_Request *wq = NULL;
    int *wi = NULL;

    /* The parameter is a preset name or a specification string (docs/reduction-trees.md). */
    const char *sv = ac_param_str(in, "spec");
    for (int i = 0; sv && i < ac_rt_npresets(); i++)
        if (strcmp(sv, ac_rt_preset_name(i)) == 0) sv = ac_rt_preset_spec(i);
    if (!sv || ac_rt_parse(sv, &spec, msg, sizeof msg) ||
        !(node = malloc((size_t)p * sizeof *node)))
        return MPI_ERR_ARG;
    /* Node of every rank of a->comm (a part may run on a sub-communicator of ctx). */
    if (a->comm == ctx->comm) {
        memcpy(node, ctx->node_of, (size_t)p * sizeof *node);
    } else {
        for (int r = 0; r < p; r++)
            node[r] = r; /* unknown layout: one rank per node */
    }
    if (ac_rt_build(&spec, p, node, &tr, msg, sizeof msg)) {
        free(node);
        return MPI_ERR_ARG;
    }
    built = 1;
    vslot = malloc(((size_t)tr.nv + 1) * sizeof *vslot);
    rc = malloc(((size_t)tr.nv + (size_t)p) * sizeof *rc);
    sreq = malloc(((size_t)tr.nv + 2 * (size_t)p + 1) * sizeof *sreq);
    if (!vslot || !rc || !sreq) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    /* Slots: an accumulator per owned vertex, a receive buffer per remote child. */
    for (int v = 0; v < tr.nv; v++) {
        vslot[v] = tr.v[v].owner == me ? nown++ : -1;
        if (tr.v[v].owner != me) continue;
        for (int c = 0; c < tr.v[v].nchild; c++) {
            int it = tr.v[v].child[c], src = ac_rt_owner(&tr, it);
            if (src != me) rc[nrc++] = (rchild_t){key_of(p, it), v, c, src};
        }
    }
    qsort(rc, (size_t)nrc, sizeof *rc, cmp_rchild);
    if (traced) {
        size_t items = (size_t)tr.nv + (size_t)p;
        tv2 = malloc(((size_t)tr.nv + 1) * sizeof *tv2);
        ta = malloc(items * sizeof *ta);
        td = malloc(items * sizeof *td);
        cb = malloc(((size_t)tr.nv + 1) * sizeof *cb);
        wq = malloc(items * sizeof *wq);
        wi = malloc(items * sizeof *wi);
        if (!tv2 || !ta || !td || !cb || !wq || !wi) {
            err = MPI_ERR_NO_MEM;
            goto fn_exit;
        }
        for (int v = 0, k = 0; v < tr.nv; v++) {
            cb[v] = k;
            k += tr.v[v].nchild;
        }
    }
    vbuf = ac_dt_alloc(t, span * (size_t)(nown ? nown : 1), &vbase);
    rbuf = ac_dt_alloc(t, span * (size_t)(nrc ? nrc : 1), &rbase);
    fin = ac_dt_alloc(t, span, &fbase);
    rreq = malloc(((size_t)nrc + 1) * sizeof *rreq);
    if (!vbuf || !rbuf || !fin || !rreq) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
#define VAL(base, i) ((base) + (MPI_Aint)(i) * (MPI_Aint)span * ext)
    for (int i = 0; i < nrc; i++) {
        AC_CHECK(PMPI_Irecv(VAL(rbuf, i), n, t, rc[i].src, tag, a->comm, &rreq[i]));
    }
    /* Reduce phase. My leaf first, then my vertices in build order. */
    if (traced) t_ready = ac_trace_now();
    {
        int lp = tr.leaf_parent[me];
        if (lp >= 0 && tr.v[lp].owner != me)
            AC_CHECK(PMPI_Isend(mine, n, t, tr.v[lp].owner, tag, a->comm, &sreq[nsreq++]));
    }
    for (int v = 0; v < tr.nv; v++) {
        if (tr.v[v].owner != me) continue;
        char *acc = VAL(vbuf, vslot[v]);
        if (traced)
            AC_CHECK(stamp_arrivals(&tr, v, me, rc, nrc, rreq, t_ready, tv2, ta + cb[v], wq, wi));
        for (int c = tr.v[v].nchild - 1; c >= 0; c--) {
            int it = tr.v[v].child[c];
            const char *val;
            if (ac_rt_owner(&tr, it) == me) {
                val = it < 0 ? mine : VAL(vbuf, vslot[it]);
            } else {
                int i = 0;
                while (!(rc[i].vertex == v && rc[i].pos == c))
                    i++;
                AC_CHECK(PMPI_Wait(&rreq[i], MPI_STATUS_IGNORE));
                val = VAL(rbuf, i);
            }
            /* acc = c_j op acc from the last child down: c_0 op (c_1 op (...)). */
            if (c == tr.v[v].nchild - 1)
                AC_CHECK(ac_dt_copy(val, n, t, acc, n, t));
            else
                AC_CHECK(PMPI_Reduce_local(val, acc, n, t, a->op));
        }
        int par = tr.v[v].parent;
        if (traced) tv2[v] = ac_trace_now();
        if (par >= 0 && tr.v[par].owner != me)
            AC_CHECK(PMPI_Isend(acc, n, t, tr.v[par].owner, tag, a->comm, &sreq[nsreq++]));
    }
    /* Broadcast phase. */
    {
        int top = ac_rt_top(&tr, me), par = ac_rt_parent(&tr, top);
        if (par < 0) {
            AC_CHECK(ac_dt_copy(top < 0 ? mine : VAL(vbuf, vslot[top]), n, t, fin, n, t));
            if (traced) t_fin = top < 0 ? t_ready : tv2[top]; /* t2 = t3 at the root */
        } else {
            AC_CHECK(PMPI_Recv(fin, n, t, tr.v[par].owner, tag, a->comm, MPI_STATUS_IGNORE));
            if (traced) t_fin = ac_trace_now();
        }
        /* Forward to the ranks whose highest item hangs below one of my vertices. */
        for (int pass = 0; pass < 2; pass++) {
            for (int y = 0; y < p; y++) {
                if (y == me) continue;
                int yp = ac_rt_parent(&tr, ac_rt_top(&tr, y));
                if (yp < 0 || tr.v[yp].owner != me) continue;
                int remote = node[y] != node[me];
                int first = spec.order == AC_RT_ORDER_STATIC ? 1 : remote;
                if ((pass == 0) != first) continue;
                if (traced) stamp_departure(&tr, yp, ac_rt_top(&tr, y), td + cb[yp]);
                AC_CHECK(PMPI_Isend(fin, n, t, y, tag, a->comm, &sreq[nsreq++]));
            }
        }
    }
    if (traced) {
        /* Own items depart once the sends are posted; remote children that get the value from
         * higher up have no departure here (flag 0, d = t3). */
        int64_t now = ac_trace_now();
        for (int v = 0; v < tr.nv; v++)
            if (tr.v[v].owner == me)
                for (int c = 0; c < tr.v[v].nchild; c++)
                    if (ac_rt_owner(&tr, tr.v[v].child[c]) == me) td[cb[v] + c] = now;
    }
    AC_CHECK(PMPI_Waitall(nsreq, sreq, MPI_STATUSES_IGNORE));
    nsreq = 0;
    AC_CHECK(ac_dt_copy(fin, n, t, a->rbuf, n, t));
    if (traced && part)
        stamp_part(&tr, me, t_entry, t_ready, t_fin, tv2, ta, td, cb);
    else if (traced)
        record_stages(&tr, me, node, ctx->calls, t_ready, t_fin, tv2, ta, td, cb);
#undef VAL
fn_exit:
    if (nsreq) PMPI_Waitall(nsreq, sreq, MPI_STATUSES_IGNORE);
    if (built) ac_rt_free(&tr);
    free(node);
    free(vslot);
    free(rc);
    free(rreq);
    free(sreq);
    free(vbase);
    free(rbase);
    free(fbase);
    free(tv2);
    free(ta);
    free(td);
    free(cb);
    free(wq);
    free(wi);
    return err;
}
