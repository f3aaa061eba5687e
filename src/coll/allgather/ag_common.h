/*
 * Block geometry and message helpers shared by the allgather and allgatherv algorithms.
 *
 * Every allgather(v) algorithm here works on the receive buffer only: after ac_agb_setup the own
 * block sits in its slot (copied from sbuf, or already there in place), and every message is a
 * list of blocks of that buffer. Block b is ac_agb_count(g, b) elements of the receive type at
 * ac_agb_addr(g, b) (allgather: rcount elements at b*rcount*extent; allgatherv: rcounts[b] at
 * rdispls[b]*extent). A list of blocks travels as one message: (count, rtype) at the first block
 * when the blocks are adjacent in memory in list order, otherwise a committed
 * MPI_Type_create_hindexed of the blocks (freed right after posting). Sender and receiver use the
 * same list in the same order, so the type signatures match on every rank.
 *
 * allgatherv.def names the allgather functions: every one of them serves allgatherv calls too,
 * since the geometry comes from the argument record (ac_agb_view reads rcounts and rdispls when
 * a->coll is AUTOCOLL_ALLGATHERV).
 */
#ifndef AC_AG_COMMON_H
#define AC_AG_COMMON_H
#include "../../core/ac.h"
#include "../../sched/sched.h"

typedef struct {
    char *buf;
    MPI_Datatype type;
    MPI_Aint ext;
    size_t tsize;
    int p, me, tag;
    MPI_Comm comm;
    int count;                  /* allgather: elements per block */
    const int *counts, *displs; /* allgatherv; NULL for allgather */
} ac_agb_t;

static inline int ac_agb_count(const ac_agb_t *g, int b) {
    return g->counts ? g->counts[b] : g->count;
}
static inline char *ac_agb_addr(const ac_agb_t *g, int b) {
    return g->buf + (g->counts ? (MPI_Aint)g->displs[b] : (MPI_Aint)b * g->count) * g->ext;
}
/* 1 when block b carries no bytes (identical on every rank: type signatures match). */
static inline int ac_agb_empty(const ac_agb_t *g, int b) {
    return ac_agb_count(g, b) == 0 || g->tsize == 0;
}

/* Fill g from an allgather or allgatherv argument record (the receive buffer's blocks). */
void ac_agb_view(const ac_args_t *a, ac_agb_t *g);
/* The same, and put the own block in its slot. */
int ac_agb_setup(const ac_args_t *a, ac_agb_t *g);
/* Same geometry on another communicator / buffer (no local copy). */
void ac_agb_init(ac_agb_t *g, void *buf, MPI_Datatype type, int p, int me, MPI_Comm comm, int tag,
                 int count, const int *counts, const int *displs);

/* Post one message carrying the n blocks of list blk. */
int ac_agb_isend(const ac_agb_t *g, const int *blk, int n, int peer, MPI_Request *req);
int ac_agb_irecv(const ac_agb_t *g, const int *blk, int n, int peer, MPI_Request *req);
int ac_agb_sendrecv(const ac_agb_t *g, const int *sblk, int ns, int to, const int *rblk, int nr,
                    int from);
/* out[t] = (start + t) mod p, t < n; returns n. */
int ac_agb_range(int *out, int start, int n, int p);

/* Step families of STAR-MPI (spec star-stage-ethernet.md 2.0): p-1 steps, at step s the own
 * block goes to `to` and block `from` comes from `from`, with
 *   AC_AGS_RING: to = me + s, from = me - s;   AC_AGS_PAIR: to = from = me ^ s (p power of two)
 * and synchronisation between steps:
 *   AC_SYNC_NONE, AC_SYNC_LIGHT (zero-byte receiver-ready token, exact protocol of 2.0),
 *   AC_SYNC_MPI (PMPI_Barrier between consecutive steps), AC_SYNC_NBAR (nbar barriers, evenly
 *   placed with ac_nbar_count). */
enum { AC_AGS_RING = 0, AC_AGS_PAIR = 1 };
enum { AC_SYNC_NONE = 0, AC_SYNC_LIGHT, AC_SYNC_MPI, AC_SYNC_NBAR };
int ac_agx_steps(const ac_args_t *a, int kind, int sync, int nbar);

/* Tag of the zero-byte synchronisation tokens (distinct from data: a token and a data message
 * can travel between the same two ranks in the same step). */
#define AC_AG_TOKEN_TAG(a) AC_TAG_SYNC(a)

/* Bodies shared by two algorithms (each registered for allgather and allgatherv): sparbit and
 * sparbit_packed (allgather_sparbit.c), mesh2d and mesh3d (allgather_mesh2d.c). */
int ac_agx_sparbit(const ac_args_t *a, int packed);
int ac_agx_mesh(const ac_args_t *a, int nd);
#endif
