/*
 * Vertex metrics of the trees run inside hierarchical calls (records AC_TK_PART_*, written by
 *   src/coll/hier_stage.c): the arrival wait and down latency of a reduce vertex, the up latency
 *   and departure wait of a bcast vertex.
 * Reference: seed 003 (Bongo et al.) §4, spec allreduce-trees.md §7.2 (metrics of a vertex:
 *   arrival wait t1,l - t1,f, down latency t2 - t1,l, up latency t4,f - t3, departure wait
 *   t4,i - t4,f).
 *   The path of a rank through a whole hierarchical call (ac_part_path): spec 7.1, stages of
 *   a leaf's path, down (entry, reduce and gather parts, core) then up (bcast and scatter parts,
 *   exit); every stage is a difference of two stamps of the rank's own clock taken in order, so
 *   the stages telescope to exit - entry and the two identities of §7.2 (total with / without
 *   arrival waits = down with / without arrival waits + up) hold exactly on one clock.
 *   Table 1 at a tree root whose tree goes one way only (ac_part_orders; bcast or reduce
 *   `hier` alone): the spec's matrix relates the order in which children reach a vertex to the
 *   order in which they are let go; a reduce tree has the arrivals (t1,i) but lets a child go
 *   when its part ends, a bcast tree has the departures (t4,i) but a child arrives when it
 *   enters the tree (ready for the value), so each side missing from the vertex's records is
 *   taken from the child's (ac_part_child_time), on the common clock.
 * Cost: O(children) per vertex, O(records) per path, O(children^2) per order matrix call.
 * Design: the records of a hierarchical call carry one tree per operation (a reduce tree has
 *   only t1 and t2, a bcast tree only t3 and t4), so each vertex is measured on its own rank's
 *   clock, with no cross-rank correction; edges (child t2 to parent t1, parent t4 to child t3)
 *   need the file offsets and are left to the reader (tools/autocoll-report.c,
 *   tests/mpi/trace_hier_check.c). The part's time outside its tree stamps (the part
 *   algorithm's dispatch before the tree, the sends after t2 or the last t4) is one stage after
 *   the tree stages, so a timemap shows it at the part's end.
 */
#include <stdio.h>
#include "trace.h"

#define BAD(...)                                                                                   \
    do {                                                                                           \
        if (err && errlen) snprintf(err, errlen, __VA_ARGS__);                                     \
        return -1;                                                                                 \
    } while (0)

int ac_part_vertex(const ac_trace_rec_t *rec, size_t n, ac_part_vertex_t *v, char *err,
                   size_t errlen) {
    if (err && errlen) err[0] = '\0';
    if (!rec || !v || n == 0) BAD("no record");
    const ac_trace_rec_t *t = &rec[0];
    if (t->kind != AC_TK_PART_TREE)
        BAD("first record is %s, not part_tree",
            ac_trace_kind_name(t->kind) ? ac_trace_kind_name(t->kind) : "of an unknown kind");
    if (t->status_source != AC_HIER_INTRA && t->status_source != AC_HIER_INTER)
        BAD("stage %d", t->status_source);
    if (t->status_tag != AC_PART_REDUCE && t->status_tag != AC_PART_BCAST &&
        t->status_tag != AC_PART_GATHER && t->status_tag != AC_PART_SCATTER)
        BAD("operation %d", t->status_tag);
    int gathers = ac_part_op_gathers(t->status_tag);
    if (t->t_out < t->t_in) BAD("t2/t3 before entry");
    *v = (ac_part_vertex_t){
        t->status_source, t->status_tag, t->peer, t->root, 0, t->t_out - t->t_in, 0, 0, 0, 0};
    int64_t first = 0, last = 0;
    size_t k = 1;
    for (; k < n && rec[k].kind == AC_TK_PART_CHILD; k++) {
        const ac_trace_rec_t *c = &rec[k];
        if (c->seq != t->seq || c->peer != t->peer || c->status_source != t->status_source ||
            c->status_tag != t->status_tag)
            BAD("child record %zu does not belong to the tree record", k);
        if (c->count != v->nch) BAD("child position %d, expected %d", c->count, v->nch);
        int64_t x;
        if (gathers) {
            x = c->t_in; /* t1,i */
            if (c->t_out != t->t_out || x > t->t_out) BAD("child %d: t1 after t2", c->count);
        } else {
            x = c->t_out; /* t4,i */
            if (c->t_in != t->t_out || x < t->t_out) BAD("child %d: t4 before t3", c->count);
        }
        if (v->nch == 0 || x < first) first = x;
        if (v->nch == 0 || x > last) last = x;
        v->nch++;
    }
    if (gathers) {
        v->arrival_wait = v->nch ? last - first : 0;
        v->down_latency = v->nch ? t->t_out - last : t->t_out - t->t_in;
    } else if (v->nch) {
        v->up_latency = first - t->t_out;
        v->departure_wait = last - first;
    }
    return (int)k;
}

int ac_part_op_up(int op) {
    return op == AC_PART_BCAST || op == AC_PART_SCATTER;
}

const char *ac_part_op_name(int op) {
    static const char *const nm[AC_PART_NOPS] = {"reduce", "bcast", "gather", "scatter",
                                                 "exchange"};
    return op >= 0 && op < AC_PART_NOPS ? nm[op] : NULL;
}

typedef struct {
    ac_stage_t *st;
    int n, max, *neg;
} path_t;

static int add(path_t *p, int type, int stage, int op, int level, int64_t ns) {
    if (p->n >= p->max) return -1;
    p->st[p->n++] = (ac_stage_t){type, op, stage, level, 0, ns};
    if (ns < 0) ++*p->neg;
    return 0;
}

#define ADD(...)                                                                                   \
    do {                                                                                           \
        if (add(&pa, __VA_ARGS__)) BAD("more than %d stages", max);                                \
    } while (0)

int ac_part_path(const ac_trace_rec_t *rec, size_t n, ac_stage_t *st, int max, int *neg, char *err,
                 size_t errlen) {
    int nneg = 0;
    if (neg) *neg = 0;
    if (err && errlen) err[0] = '\0';
    if (!rec || !st || n == 0) BAD("no record");
    const ac_trace_rec_t *call = &rec[0];
    if (call->kind >= AUTOCOLL_NCOLL) BAD("first record is not a collective call");
    path_t pa = {st, 0, max, &nneg};
    int64_t cur = call->t_in;
    int parts = 0;
    size_t i = 1;
    while (i < n) {
        /* One part: its tree runs, then its step record. */
        size_t j = i;
        while (j < n && rec[j].kind == AC_TK_PART_TREE) {
            ac_part_vertex_t v;
            int used = ac_part_vertex(&rec[j], n - j, &v, err, errlen);
            if (used < 1) return -1;
            j += (size_t)used;
        }
        if (j >= n || rec[j].kind != AC_TK_PART_STEP)
            BAD("record %zu: part records without their part_step record", j);
        const ac_trace_rec_t *s = &rec[j];
        if (s->seq != call->seq)
            BAD("record %zu: part of call %llu in call %llu", j, (unsigned long long)s->seq,
                (unsigned long long)call->seq);
        int stage = s->status_source, op = s->status_tag;
        if ((stage != AC_HIER_INTRA && stage != AC_HIER_INTER) || !ac_part_op_name(op))
            BAD("record %zu: stage %d, operation %d", j, stage, op);
        int up = ac_part_op_up(op);
        int ptype = up ? AC_ST_PART_UP : AC_ST_PART_DOWN;
        if (parts++ == 0)
            ADD(AC_ST_ENTRY, stage, op, 0, s->t_in - cur);
        else
            ADD(ptype, stage, op, 1, s->t_in - cur);
        int64_t c = s->t_in, rest = 0;
        for (size_t k = i; k < j;) {
            const ac_trace_rec_t *t = &rec[k];
            ac_part_vertex_t v;
            int used = ac_part_vertex(t, j - k, &v, err, errlen);
            if (used < 1) return -1;
            if (t->seq != call->seq || t->status_source != stage)
                BAD("record %zu: tree of another call or stage than its part", k);
            rest += t->t_in - c;
            if (t->t_in - c < 0) nneg++;
            int64_t first = 0, last = 0;
            for (int q = 1; q < used; q++) {
                int64_t x = ac_part_op_gathers(v.op) ? t[q].t_in : t[q].t_out;
                if (q == 1 || x < first) first = x;
                if (q == 1 || x > last) last = x;
            }
            if (ac_part_op_gathers(v.op)) {
                int core = v.parent < 0 && stage == AC_HIER_INTER && v.op == AC_PART_REDUCE;
                if (v.nch) {
                    ADD(AC_ST_CHILD_WAIT, stage, v.op, 0, first - t->t_in);
                    ADD(AC_ST_ARRIVAL_WAIT, stage, v.op, 0, v.arrival_wait);
                }
                ADD(core ? AC_ST_CORE : AC_ST_DOWN, stage, v.op, 0, v.down_latency);
                c = t->t_out;
            } else {
                if (v.parent >= 0) ADD(AC_ST_PARENT_WAIT, stage, v.op, 0, t->t_out - t->t_in);
                c = t->t_out;
                if (v.nch) {
                    ADD(AC_ST_UP, stage, v.op, 0, v.up_latency);
                    ADD(AC_ST_DEPARTURE_WAIT, stage, v.op, 0, v.departure_wait);
                    c = last;
                }
            }
            k += (size_t)used;
        }
        rest += s->t_out - c;
        if (s->t_out - c < 0) nneg++;
        ADD(i == j && op == AC_PART_EXCHANGE ? AC_ST_CORE : ptype, stage, op, 0, rest);
        cur = s->t_out;
        i = j + 1;
    }
    ADD(AC_ST_EXIT, AC_HIER_INTRA, 0, 0, call->t_out - cur);
    if (neg) *neg = nneg;
    return pa.n;
}

int ac_part_orders(const ac_trace_rec_t *rec, size_t n, const int64_t *other, int *arr, int *dep,
                   char *err, size_t errlen) {
    ac_part_vertex_t v;
    if (!other || !arr || !dep) BAD("no output");
    int used = ac_part_vertex(rec, n, &v, err, errlen);
    if (used < 1) return -1;
    if (v.nch > AC_PART_ORDER_MAX) BAD("%d children, at most %d", v.nch, AC_PART_ORDER_MAX);
    ac_stage_child_t ch[AC_PART_ORDER_MAX];
    int gathers = ac_part_op_gathers(v.op);
    for (int i = 0; i < v.nch; i++) {
        const ac_trace_rec_t *c = &rec[1 + i];
        /* gathering: t1,i against the child's departure; spreading: its arrival against t4,i */
        ch[i] = (ac_stage_child_t){gathers ? c->t_in : other[i], gathers ? other[i] : c->t_out, i,
                                   c->root, 1};
    }
    ac_stage_vertex_t sv = {v.rank, v.parent, v.stage, 0, v.nch, 0, 0, ch};
    ac_stage_orders(&sv, arr, dep);
    return v.nch;
}

int ac_part_child_time(const ac_trace_rec_t *rec, size_t n, int stage, int op, int parent,
                       int64_t *t) {
    if (!rec || !t) return -1;
    for (size_t k = 1; k < n; k++) {
        const ac_trace_rec_t *x = &rec[k];
        if (x->kind != AC_TK_PART_TREE || x->status_source != stage || x->status_tag != op ||
            x->root != parent)
            continue;
        if (!ac_part_op_gathers(op)) {
            *t = x->t_in;
            return 0;
        }
        for (size_t j = k + 1; j < n; j++)
            if (rec[j].kind == AC_TK_PART_STEP) {
                *t = rec[j].t_out;
                return 0;
            }
        return -1;
    }
    return -1;
}
