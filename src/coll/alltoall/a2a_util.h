/*
 * Helpers shared by the alltoall and alltoallv algorithms (not an algorithm of its own).
 *
 * ac_a2a_view_t gives one view of the send and receive blocks of both collectives: block j of
 * the send side is (ac_a2a_sptr(v, j), ac_a2a_scnt(v, j), v->stype), block j of the receive side
 * is (ac_a2a_rptr(v, j), ac_a2a_rcnt(v, j), v->rtype). With MPI_IN_PLACE the receive buffer is
 * first copied to a temporary buffer which then serves as the send side (same layout and type).
 *
 * The step engines below run the schedules of the STAR-MPI alltoall(v) repositories (seed 000,
 * Faraj 2006, section 4.1.1.1): one source of truth for the alltoall and alltoallv forms.
 * alltoallv.def names the alltoall functions that work through the view (linear, spread,
 * linear_bounded, the ring and pair families): they serve alltoallv calls too.
 */
#ifndef AC_A2A_UTIL_H
#define AC_A2A_UTIL_H
#include "../../core/ac.h"

typedef struct {
    int p, me, vform; /* vform: alltoallv (counts and displacements per block) */
    const char *sbuf;
    MPI_Datatype stype;
    int scount;
    const int *scounts, *sdispls;
    char *rbuf;
    MPI_Datatype rtype;
    int rcount;
    const int *rcounts, *rdispls;
    MPI_Aint sext, rext;
    size_t ssize, rsize; /* type sizes: a block moves bytes iff count * size > 0 */
    void *tmpbase;       /* in-place copy of the receive buffer (freed by ac_a2a_view_free) */
} ac_a2a_view_t;

/* Build the view of call a (copies the receive buffer when in place). */
int ac_a2a_view_init(ac_a2a_view_t *v, const ac_args_t *a);
void ac_a2a_view_free(ac_a2a_view_t *v);

static inline const char *ac_a2a_sptr(const ac_a2a_view_t *v, int j) {
    return v->sbuf + (v->vform ? (MPI_Aint)v->sdispls[j] : (MPI_Aint)j * v->scount) * v->sext;
}
static inline int ac_a2a_scnt(const ac_a2a_view_t *v, int j) {
    return v->vform ? v->scounts[j] : v->scount;
}
static inline char *ac_a2a_rptr(const ac_a2a_view_t *v, int j) {
    return v->rbuf + (v->vform ? (MPI_Aint)v->rdispls[j] : (MPI_Aint)j * v->rcount) * v->rext;
}
static inline int ac_a2a_rcnt(const ac_a2a_view_t *v, int j) {
    return v->vform ? v->rcounts[j] : v->rcount;
}
/* 1 when the send (receive) of block j carries bytes; both sides of a message agree on it. */
static inline int ac_a2a_sbytes(const ac_a2a_view_t *v, int j) {
    return ac_a2a_scnt(v, j) > 0 && v->ssize > 0;
}
static inline int ac_a2a_rbytes(const ac_a2a_view_t *v, int j) {
    return ac_a2a_rcnt(v, j) > 0 && v->rsize > 0;
}
/* Local copy of my own block (send block me -> receive block me). */
int ac_a2a_self_copy(const ac_a2a_view_t *v);

/* Tag of the zero-byte synchronisation tokens (their own tag, distinct from the data tag). */
#define AC_A2A_SYNC_TAG(a) AC_TAG_SYNC(a)

/* Windowed direct exchange: steps s = 1..p-1 (send block me+s to me+s, receive block me-s from
 * me-s) are posted `window` steps at a time (receive then send of each step), then waited for.
 * window >= p-1 posts everything at once ("spreading simple"). */
int ac_a2a_window(const ac_args_t *a, int window);

/* Step-wise families of seed 000: pattern ring (dst = me+s, src = me-s) or pair (me XOR s,
 * p a power of two), one sendrecv per step s = 1..p-1, with synchronisation between steps. */
enum { AC_A2A_RING = 0, AC_A2A_PAIR = 1 };
enum { AC_A2A_SYNC_NONE = 0, AC_A2A_SYNC_LB, AC_A2A_SYNC_MPIB, AC_A2A_SYNC_NBAR };
int ac_a2a_stepwise(const ac_args_t *a, int pattern, int sync, int nbar);

/* Fixed-size block helpers for the combining algorithms (alltoall only). Work buffers hold
 * blocks of (rcount, rtype); the send blocks are converted to that form on entry. */
typedef struct {
    int rcount;
    MPI_Datatype rtype;
    MPI_Aint blk;     /* bytes between consecutive blocks of a work buffer */
    MPI_Datatype big; /* one block as a type, made when a message passes INT_MAX elements */
} ac_a2a_blk_t;
void ac_a2a_blk_init(ac_a2a_blk_t *b, const ac_args_t *a);
/* Work buffer of nblocks blocks; *base is what to free. NULL when out of memory. */
char *ac_a2a_blk_alloc(const ac_a2a_blk_t *b, size_t nblocks, void **base);
static inline char *ac_a2a_blk_at(const ac_a2a_blk_t *b, char *buf, size_t idx) {
    return buf + (MPI_Aint)idx * b->blk;
}
int ac_a2a_blk_copy(const ac_a2a_blk_t *b, const char *src, char *dst);
/* Copy send block j of view v into the work-buffer block dst (stype -> rtype). */
int ac_a2a_blk_from_send(const ac_a2a_blk_t *b, const ac_a2a_view_t *v, int j, char *dst);
/* Message of m blocks: m * rcount elements of rtype, or, past INT_MAX elements, m elements of a
 * block type (same type signature, so both sides of a message may choose differently). */
int ac_a2a_blk_msg(ac_a2a_blk_t *b, size_t m, int *count, MPI_Datatype *type);
void ac_a2a_blk_free(ac_a2a_blk_t *b);

/* Combined total exchange (seed 004, spec predictors-latency.md 5.2/5.7) on the schedule of
 * src/sched/te.c: i splitting steps (2^i must divide p), then the direct exchange inside groups
 * of p / 2^i ranks. i = 0 is the direct exchange TE1, i = log2 p (p a power of two) is TE2. */
int ac_a2a_te(const ac_args_t *a, int i);

/* All-gather of whole send buffers, then extraction of the blocks addressed to me (seed 000's
 * mesh and recursive-doubling alltoall): over an nd-dimensional mesh (nd = 2, 3) or by
 * recursive doubling with the fold for other p (nd = 0). */
int ac_a2a_gather_all(const ac_args_t *a, int nd);

#endif
