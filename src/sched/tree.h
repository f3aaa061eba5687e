/*
 * Trees and pipelines shared by the rooted collectives (bcast, reduce, gather, scatter, barrier)
 * and by composites (allreduce = reduce + bcast, ...).
 *
 * Part 1: tree shapes, pure functions without MPI (unit-tested in tests/unit/test_sched_tree.c).
 *
 *   Every shape is built on VIRTUAL ranks v = (rank - root) mod p, so the root is v = 0; convert
 *   with ac_tree_vrank / ac_tree_rank. Two families cover every tree in use:
 *
 *   AC_TREE_KNOMIAL, radix k >= 2 (binomial: k = 2; flat: k >= p)
 *     Write v in base k. The parent of v != 0 clears the lowest non-zero digit of v:
 *     v = ...d 0..0 (digit d at position i) -> parent v - d k^i. The children of v are
 *     v + d k^i for every position i below the lowest non-zero digit of v (every position with
 *     k^i < p when v = 0) and d = 1..k-1, when < p. The subtree of v is the CONTIGUOUS range of
 *     virtual ranks [v, v + ac_tree_subtree(v)), which scatter and gather rely on.
 *
 *   AC_TREE_KARY, fan-out k >= 1 (chain: k = 1; binary: k = 2)
 *     Heap numbering: children k v + 1 .. k v + k (when < p), parent (v - 1) / k. For k = 1 the
 *     subtree of v is [v, p); for k >= 2 subtrees are not contiguous.
 *
 *   Children are numbered i = 0 .. nchildren-1 in INCREASING virtual rank. For KNOMIAL the
 *   largest subtrees are the last children: a broadcast serves them first by walking i downward
 *   (ac_tree_bcast does); a reduction combines them in increasing order, which for KNOMIAL and
 *   for the chain joins adjacent ranges [v] [c_0 ..) [c_1 ..) ... in virtual-rank order.
 *
 *   In-order binary tree over REAL ranks (non-commutative reductions without a final hop):
 *   the root r covers [0, p); its left child is the middle of [0, r) and its right child the
 *   middle of [r+1, p); a node m covering [lo, hi) has children mid[lo, m) and mid[m+1, hi),
 *   where mid[a, b) = a + (b - a) / 2. The subtree of every node is a contiguous range of
 *   real ranks with the node inside it, so "left op self op right" is the rank-ordered result.
 *
 *   Split-binary pairing (ac_tree_split_pair): see there.
 *
 *   Segments: a message of count elements is cut into segments of seg elements (whole elements,
 *   at least one): ac_seg_elems turns a byte size into elements, ac_seg_count counts segments.
 *
 * Part 2: executors (MPI point-to-point on the given communicator and tag, PMPI_* only).
 *   ac_tree_bcast, ac_tree_reduce: pipelined over segments on any KNOMIAL or KARY tree.
 *   ac_tree_scatter, ac_tree_gather: KNOMIAL trees, each node forwards the contiguous virtual
 *   range of its children's subtrees; the k-1 children of one digit position are served
 *   concurrently (k-port).
 *   ac_pieces_*: the pieces of one buffer in a scatter-allgather broadcast, their binomial
 *   scatter and exchanges of piece ranges.
 */
#ifndef AC_SCHED_TREE_H
#define AC_SCHED_TREE_H
#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include "../core/ac.h" /* AC_TLS */

typedef enum { AC_TREE_KNOMIAL = 0, AC_TREE_KARY = 1 } ac_tree_kind_t;

typedef struct {
    ac_tree_kind_t kind;
    int k; /* KNOMIAL: radix >= 2; KARY: fan-out >= 1 */
    int p; /* number of ranks */
} ac_tree_t;

/* A tree of p ranks; k is clamped to its family's minimum (and KNOMIAL radix to p when larger,
 * which is the flat tree). */
ac_tree_t ac_tree_make(ac_tree_kind_t kind, int k, int p);

static inline int ac_tree_vrank(int rank, int root, int p) {
    return (rank - root + p) % p;
}
static inline int ac_tree_rank(int v, int root, int p) {
    return (v + root) % p;
}

int ac_tree_parent(const ac_tree_t *t, int v);       /* -1 for v == 0 */
int ac_tree_nchildren(const ac_tree_t *t, int v);    /* 0 for leaves */
int ac_tree_child(const ac_tree_t *t, int v, int i); /* i-th child, increasing virtual rank */
/* KNOMIAL: number of ranks in the subtree of v (contiguous [v, v+size)); KARY: number of ranks
 * in the subtree of v (not contiguous unless k == 1). */
int ac_tree_subtree(const ac_tree_t *t, int v);
/* KNOMIAL: digit position of child i of v (children sharing a position are sent concurrently
 * by the k-port executors). KARY: 0. */
int ac_tree_child_level(const ac_tree_t *t, int v, int i);
/* Depth of the tree (edges on the longest root-leaf path). */
int ac_tree_height(const ac_tree_t *t);

/* In-order binary tree over real ranks rooted at root (see above). Writes the parent (-1 at the
 * root), the left and right children (-1 when absent) and the range [lo, hi) of the subtree. */
void ac_inorder_node(int p, int root, int rank, int *parent, int *left, int *right, int *lo,
                     int *hi);

/* Split-binary broadcast on the binary (KARY k = 2) tree of virtual ranks: half 0 of the data
 * goes down the subtree of v = 1 ("left"), half 1 down the subtree of v = 2 ("right"). Listing
 * both subtrees in increasing virtual rank, the i-th left rank and the i-th right rank swap
 * halves; ranks without a partner (the larger side's tail) get the missing half from the root.
 * Returns for virtual rank v >= 1: *side (0 left, 1 right) and *partner, the virtual rank to
 * exchange with, or 0 when the root sends the missing half. For v = 0 *side = -1 and *partner =
 * -1. */
void ac_tree_split_pair(int p, int v, int *side, int *partner);
/* Virtual ranks that get their missing half from the root, in increasing order: returns how
 * many and writes up to max of them into out (NULL allowed). */
int ac_tree_split_orphans(int p, int *out, int max);

/* Elements per segment for a segment of seg_bytes: at least 1, at most count (or 1 when count
 * is 0); a type of size 0 gives count. */
size_t ac_seg_elems(size_t seg_bytes, size_t type_size, size_t count);
/* Segments of a message of count elements cut into seg-element pieces (0 when count is 0). */
size_t ac_seg_count(size_t count, size_t seg);

/* ---------------------------------------------------------------- executors (MPI) */

/* Stage stamps of the tree executors (seed 003 §4, spec allreduce-trees.md §7.2: t1..t4 of the
 * vertex a rank is in a k-nomial or k-ary tree). When ac_tree_stamps is set on this thread,
 * every ac_node_bcast and ac_node_reduce run stores one ac_tree_run_t (up to maxrun; a run that
 * does not fit, or has more than cap children, is counted in lost). The caller, a layer above
 * that records them (src/coll/hier_stage.c), owns the storage and the clock; unset (NULL), the
 * cost is one thread-local load per executor call (AC_TLS: per rank under SMPI too). */
typedef struct {
    int op; /* AC_TREE_RUN_REDUCE / _GATHER (values go up to the root), _BCAST / _SCATTER */
    int parent, nch; /* real ranks in the executor's communicator; parent -1 at the root */
    int64_t entry;   /* the executor starts */
    /* reduce: t2, the partial result leaves for the parent (the send of its last segment is
     * posted; root: the result is complete); bcast: t3, the value is here (the last segment
     * from the parent received; root: entry) */
    int64_t mid;
    int *child; /* cap entries: the children, in service (bcast) or combination (reduce) order */
    /* cap entries: reduce: t1,i, child i's partial seen complete (its last segment received, in
     * combination order: a blocking receive, so a late earlier child delays the stamp of a
     * later one); bcast: t4,i, the send of the last segment to child i posted */
    int64_t *at;
} ac_tree_run_t;
/* Gather runs (ac_tree_gather) are stamped like reduce runs (t1,i: child i's blocks received,
 * in completion order; t2: just before the send to the parent; root: all blocks in), scatter
 * runs (ac_tree_scatter) like bcast runs (t3: the subtree's blocks received; root: entry; t4,i:
 * just before the send to child i). */
enum {
    AC_TREE_RUN_REDUCE = 0,
    AC_TREE_RUN_BCAST = 1,
    AC_TREE_RUN_GATHER = 2,
    AC_TREE_RUN_SCATTER = 3
};
typedef struct {
    int64_t (*now)(void); /* the clock of the stamps */
    int cap, maxrun;      /* children per run, runs */
    int nrun, lost;       /* runs stored, runs not stored */
    ac_tree_run_t *run;
} ac_tree_stamps_t;
extern AC_TLS ac_tree_stamps_t *ac_tree_stamps;

/* Broadcast buf (count x type) from root over tree t (t->p == size of comm), segment by
 * segment (seg elements, >= 1; seg >= count disables pipelining). A rank posts the receive of
 * segment s+1 before forwarding segment s. */
int ac_tree_bcast(void *buf, int count, MPI_Datatype type, int root, int rank, MPI_Comm comm,
                  int tag, const ac_tree_t *t, size_t seg);

/* The same on explicit links (real ranks; parent -1 at the root): receive each segment from
 * parent, forward it to child[0..nch) in that order; at most nch sends in flight. The
 * topology-specific trees (src/topo) have no closed form and use this directly. */
int ac_node_bcast(void *buf, int count, MPI_Datatype type, int parent, const int *child, int nch,
                  MPI_Comm comm, int tag, size_t seg);

/* Reduce over tree t, segment by segment, result in rbuf at root (rbuf is not touched on other
 * ranks). mine is this rank's input (it may be rbuf at the root: in place). Each node computes
 * mine op child_0 op child_1 op ... in increasing child virtual rank. When inorder is set (a
 * non-commutative operation) the tree is rooted at rank 0 instead, so virtual and real ranks
 * coincide and the combination is in rank order for KNOMIAL and chain trees; rank 0 then sends
 * the result to root. inorder with a KARY tree of k >= 2 is not rank-ordered: do not. */
int ac_tree_reduce(const void *mine, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                   int rank, MPI_Comm comm, int tag, const ac_tree_t *t, size_t seg, int inorder);

/* The same on explicit links: combines mine op child[0] op ... op child[nch-1] per segment,
 * sends it to parent (one send in flight), or at the root (parent -1) writes the result into
 * res (which may be mine: in place). */
int ac_node_reduce(const void *mine, void *res, int count, MPI_Datatype type, MPI_Op op, int parent,
                   const int *child, int nch, MPI_Comm comm, int tag, size_t seg);

/* Scatter over a KNOMIAL tree: root sends block r of sbuf (scount x stype each) to rank r.
 * rbuf == MPI_IN_PLACE at the root leaves its block in sbuf. */
int ac_tree_scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                    MPI_Datatype rtype, int root, int rank, MPI_Comm comm, int tag,
                    const ac_tree_t *t);

/* Pieces of a scatter-allgather broadcast: buf (count elements of type) on the p ranks of comm
 * is cut into p pieces of c = ceil(count / p) elements (the last ones short or empty); piece i
 * belongs to virtual rank i = (rank - root) mod p. A range of pieces [lo, hi) is the element
 * range [lo c, hi c) clipped to count (so [0, p) is the whole buffer). Messages use tag. */
typedef struct {
    char *buf;
    MPI_Datatype type;
    int count, c, p, root, v, tag;
    MPI_Comm comm;
} ac_pieces_t;
/* Fills pc and runs the binomial scatter of the pieces from root: virtual rank v receives
 * pieces [v, v + subtree(v)) from its parent into place, then sends each child ch its range
 * [ch, ch + subtree(ch)), largest subtree first. Afterwards virtual rank v holds piece v. */
int ac_pieces_scatter(ac_pieces_t *pc, void *buf, int count, MPI_Datatype type, int root, int rank,
                      int p, MPI_Comm comm, int tag);
/* Pieces [lo, hi) to (from) virtual rank w. */
int ac_pieces_send(const ac_pieces_t *pc, int lo, int hi, int w);
int ac_pieces_recv(const ac_pieces_t *pc, int lo, int hi, int w);
/* One sendrecv: pieces [slo, shi) to virtual rank to, pieces [rlo, rhi) from virtual rank from. */
int ac_pieces_sendrecv(const ac_pieces_t *pc, int slo, int shi, int to, int rlo, int rhi, int from);

/* Gather over a KNOMIAL tree into rbuf at root (rcount x rtype per rank, rank order). sbuf ==
 * MPI_IN_PLACE at the root: its block is already in rbuf. */
int ac_tree_gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                   MPI_Datatype rtype, int root, int rank, MPI_Comm comm, int tag,
                   const ac_tree_t *t);

#endif
