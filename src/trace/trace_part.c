/*
 * Vertex metrics of the trees run inside hierarchical calls (records AC_TK_PART_*, written by
 *   src/coll/hier_stage.c): the arrival wait and down latency of a reduce vertex, the up latency
 *   and departure wait of a bcast vertex.
 * Reference: seed 003 (Bongo et al.) §4, spec allreduce-trees.md §7.2 (metrics of a vertex:
 *   arrival wait t1,l - t1,f, down latency t2 - t1,l, up latency t4,f - t3, departure wait
 *   t4,i - t4,f).
 * Cost: O(children) per vertex.
 * Design: the records of a hierarchical call carry one tree per operation (a reduce tree has
 *   only t1 and t2, a bcast tree only t3 and t4), so each vertex is measured on its own rank's
 *   clock, with no cross-rank correction; edges (child t2 to parent t1, parent t4 to child t3)
 *   need the file offsets and are left to the reader (tests/mpi/trace_hier_check.c does so).
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
    if (t->status_tag != AC_PART_REDUCE && t->status_tag != AC_PART_BCAST)
        BAD("operation %d", t->status_tag);
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
        if (t->status_tag == AC_PART_REDUCE) {
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
    if (t->status_tag == AC_PART_REDUCE) {
        v->arrival_wait = v->nch ? last - first : 0;
        v->down_latency = v->nch ? t->t_out - last : t->t_out - t->t_in;
    } else if (v->nch) {
        v->up_latency = first - t->t_out;
        v->departure_wait = last - first;
    }
    return (int)k;
}
