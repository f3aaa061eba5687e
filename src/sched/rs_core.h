/*
 * Reduction schedules shared by allreduce, reduce_scatter and reduce_scatter_block:
 * block splits, the fold of p ranks onto g participants, recursive halving / doubling over the
 * participants, the ring pass (reduce or copy mode, optionally segmented) and the k-ary
 * exchange of recursive multiplying.
 *
 * Conventions: buffers are typed (count elements of `type`, element i at buf + i * extent);
 * PMPI_Reduce_local(in, inout) computes inout = in op inout, so "lower op higher" is obtained by
 * passing the lower-ranked operand as `in`. Every function is collective over the ranks it
 * names and uses only point-to-point on (comm, tag). Patterns only, with plain parameters: the
 * algorithms that run them on a call's argument record live in src/coll.
 */
#ifndef AC_RS_CORE_H
#define AC_RS_CORE_H
#include <stdlib.h>
#include "../core/ac.h"

/* Element offsets of g blocks of a vector of count elements: block b has count/g elements plus
 * one when b < count % g. off has g + 1 entries (off[g] = count). */
void ac_rs_split(size_t count, int g, size_t *off);

/* Largest power of k (k >= 2) not above p. */
int ac_rs_pow_floor(int p, int k);

/* Fold of p ranks onto g <= p participants: participant j is the contiguous rank group
 * [first(j), first(j) + size(j)); the first p % g groups have p/g + 1 ranks, the others p/g.
 * The participant is the LAST rank of its group (for groups of two: the odd rank, as in the
 * MPICH scheme). */
typedef struct {
    int p, g;
    int group;  /* my group (= participant index when I am the leader) */
    int leader; /* comm rank of my group's leader */
    int active; /* 1 when I am a leader */
} ac_fold_t;
void ac_fold_init(ac_fold_t *f, int p, int g, int rank);
int ac_fold_first(const ac_fold_t *f, int j); /* first comm rank of group j */
int ac_fold_size(const ac_fold_t *f, int j);
static inline int ac_fold_leader_of(const ac_fold_t *f, int j) {
    return ac_fold_first(f, j) + ac_fold_size(f, j) - 1;
}

/* Fold step: members send their input vector (mine, count elements) to the leader; the leader
 * combines the group's vectors in rank order into acc (acc = x_first op ... op x_last). tmp is
 * a scratch vector of count elements (leaders only). mine may equal acc only on non-leaders. */
int ac_fold_reduce(const ac_fold_t *f, const void *mine, char *acc, char *tmp, int count,
                   MPI_Datatype t, MPI_Op op, MPI_Comm comm, int tag);
/* The leader sends buf (count elements) to the other ranks of its group, which receive it. */
int ac_fold_bcast(const ac_fold_t *f, char *buf, int count, MPI_Datatype t, MPI_Comm comm, int tag);

/* Recursive halving over the g = 2^m participants (map[j] = comm rank of participant j, me =
 * my participant index). blk has g + 1 element offsets into buf (participant blocks are
 * contiguous and in order). ascending = 1 exchanges at distance 1, 2, 4, ...: the operands of
 * every combination are contiguous participant ranges, combined lower op higher, so the result
 * is the rank-ordered reduction; participant j ends owning block bitrev(j). ascending = 0
 * exchanges at distance g/2, ..., 1 (commutative operations only): participant j ends owning
 * block j. On return buf holds the reduced block [blk[*own], blk[*own + 1]) (other parts of buf are
 * scratch). tmp: scratch of half the vector (blk[g] - blk[0] elements is always enough). */
int ac_rs_halving(int g, int me, const int *map, int ascending, const size_t *blk, char *buf,
                  char *tmp, MPI_Datatype t, MPI_Op op, MPI_Comm comm, int tag, int *own);
/* The inverse schedule: recursive doubling allgather of the blocks left by ac_rs_halving with
 * the same (g, me, ascending, blk): afterwards every participant holds the whole vector. */
int ac_rs_doubling(int g, int me, const int *map, int ascending, const size_t *blk, char *buf,
                   MPI_Datatype t, MPI_Comm comm, int tag);
/* Block owned by participant j after ac_rs_halving. */
int ac_rs_owner_block(int g, int j, int ascending);

/* Segments of a segmented ring step in flight per direction (receives from the left, sends to
 * the right): segment k is posted when segment k - W has completed. Without a bound a step
 * posts all ceil(block / seg) segments at once (thousands for a 100 MB vector with 8 KiB
 * segments), the MPI library's posted-receive and unexpected-message queues grow to that
 * length and every match walks them, so the step costs time quadratic in its segment count.
 * 16 keeps the queues short and still covers a link's bandwidth-delay product with the default
 * 8 KiB segments (128 KiB in flight, a 10 Gb/s link at 50 us round trip holds 62.5 KiB), and
 * any W >= 2 overlaps the combination of one segment with the transfer of the next. */
#ifndef AC_RS_RING_WINDOW /* overridable at build time for measurements */
#define AC_RS_RING_WINDOW 16
#endif

/* One ring pass over the p ranks of comm (rank r sends to r + 1, receives from r - 1) on a
 * vector split into p blocks at element offsets blk (p + 1 entries). Step s = 0 .. p - 2 sends
 * block (r - s + shift) mod p and receives block (r - s - 1 + shift) mod p, which is combined
 * into buf (reduce = 1: received op own, commutative operations only) or stored (reduce = 0).
 * seg > 0 cuts every block into messages of at most seg elements so that the combination of
 * one segment overlaps the arrival of the next, with at most AC_RS_RING_WINDOW segments in
 * flight each way; seg = 0 sends every block as one message. tmp (reduce): scratch of
 * min(largest block, AC_RS_RING_WINDOW * seg) elements, segment k lands in slot k mod W. */
int ac_rs_ring(int p, int r, const size_t *blk, int shift, int reduce, size_t seg, char *buf,
               char *tmp, MPI_Datatype t, MPI_Op op, MPI_Comm comm, int tag);

/* Recursive multiplying among g = k^m participants: at distance d = 1, k, k^2, ... every
 * participant exchanges its whole vector with the k - 1 others of its group of k (participants
 * that agree except in digit d) and combines the k vectors in participant order, the same on
 * every member, so they keep identical bytes. tmp: (k - 1) * count elements of scratch. */
int ac_rs_knomial(int g, int k, int me, const int *map, char *buf, char *tmp, int count,
                  MPI_Datatype t, MPI_Op op, MPI_Comm comm, int tag);

#endif
