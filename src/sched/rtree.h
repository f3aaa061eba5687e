/*
 * Configurable hierarchy-aware reduction trees (seed 003, Bongo et al.; spec allreduce-trees.md
 * section 5): a compact specification string, its parser, named presets (the shapes of the
 * paper's experiments), and the builder that turns a specification and a node layout into an
 * explicit tree of partial-reduction vertices with owner ranks. No MPI calls here: the trees
 * are data, unit-tested without an MPI runtime, and run by allreduce `tree`.
 * Grammar and semantics: docs/reduction-trees.md.
 */
#ifndef AC_RTREE_H
#define AC_RTREE_H
#include <stddef.h>

enum { AC_RT_MAXLV = 16, AC_RT_MAXOV = 8 };

/* Fan-in list from the leaf side. nlv == 0: flat (one vertex over everything). rep: the last
 * fan-in repeats until one item remains ("2*"). */
typedef struct {
    int nlv;
    int f[AC_RT_MAXLV];
    int rep;
} ac_rt_fan_t;

enum { AC_RT_SPLIT_OWN = 0, AC_RT_SPLIT_SHIFT = 1 };
enum { AC_RT_ORDER_REMOTE_FIRST = 0, AC_RT_ORDER_STATIC = 1 };

typedef struct {
    ac_rt_fan_t host; /* host subtree of every node ... */
    int nov;          /* ... except nodes [ov_lo, ov_hi] of an override "host@A-B=" */
    int ov_lo[AC_RT_MAXOV], ov_hi[AC_RT_MAXOV];
    ac_rt_fan_t ov[AC_RT_MAXOV];
    ac_rt_fan_t cluster;   /* cluster-root subtree over the host outputs */
    int links;             /* partial results each non-root node sends (>= 1); 0 = all */
    int split, split_mode; /* first-level cluster-root vertices moved off the root node */
    int spread;            /* cluster-root vertices spread over the root node's ranks */
    int rootnode;          /* node owning the final vertex */
    int order;             /* broadcast order at a vertex */
} ac_rt_spec_t;

/* Parse a specification. Returns 0, or -1 with a one-line message in err. */
int ac_rt_parse(const char *spec, ac_rt_spec_t *out, char *err, size_t errlen);

/* Named presets 0 .. ac_rt_npresets() - 1 (values of the allreduce `tree` parameter `spec`). */
int ac_rt_npresets(void);
const char *ac_rt_preset_name(int i); /* NULL when out of range */
const char *ac_rt_preset_spec(int i); /* NULL when out of range */

/* Tree items: a vertex index v >= 0, or the leaf of rank r written AC_RT_LEAF(r) (< 0). */
#define AC_RT_LEAF(r) (-(r)-1)
#define AC_RT_LEAF_RANK(it) (-(it)-1)

enum { AC_RT_HOST = 0, AC_RT_CLUSTER = 1 };

typedef struct {
    int owner;  /* rank that combines the children and passes the result on */
    int kind;   /* AC_RT_HOST or AC_RT_CLUSTER */
    int parent; /* vertex index, -1 for the root */
    int nchild;
    int *child; /* items in combination order */
} ac_rt_vertex_t;

/* Vertices are numbered children before parents (a topological order). */
typedef struct {
    int p, nv;
    ac_rt_vertex_t *v;
    int root;         /* root item: a vertex, or AC_RT_LEAF(0) when p == 1 */
    int *leaf_parent; /* vertex above the leaf of rank r (-1 when the leaf is the root) */
    int *child_mem;
} ac_rt_tree_t;

/* Build the tree of spec for p ranks where rank r lives on node node_of[r] (nodes numbered
 * 0 .. nnodes - 1 by their lowest rank). Returns 0, or -1 with a message in err. */
int ac_rt_build(const ac_rt_spec_t *s, int p, const int *node_of, ac_rt_tree_t *t, char *err,
                size_t errlen);
void ac_rt_free(ac_rt_tree_t *t);
static inline int ac_rt_owner(const ac_rt_tree_t *t, int item) {
    return item < 0 ? AC_RT_LEAF_RANK(item) : t->v[item].owner;
}
static inline int ac_rt_parent(const ac_rt_tree_t *t, int item) {
    return item < 0 ? t->leaf_parent[AC_RT_LEAF_RANK(item)] : t->v[item].parent;
}
/* Structural check: every rank is a leaf exactly once, every vertex has children, parents come
 * after their children, one root, owners in range. Returns 0 or -1 with a message. */
int ac_rt_check(const ac_rt_tree_t *t, char *err, size_t errlen);
/* The highest item owned by rank r (its last owned vertex, else its leaf): the item through
 * which r receives the final result. */
int ac_rt_top(const ac_rt_tree_t *t, int r);

#endif
