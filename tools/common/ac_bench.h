/*
 * Shared measurement code of autocoll-bench and autocoll-tune (public API of autocoll + MPI).
 *
 * A case (acb_case_t) is one collective at one message size on one communicator: its buffers
 * with deterministic inputs, a reference result computed by the MPI library itself (PMPI_*),
 * and the functions to run one call through autocoll (autocoll_<coll>(), i.e. the selector,
 * honouring autocoll_force), to reset the outputs and to compare them with the reference.
 *
 * Message size `msg` (bytes) is what the OSU benchmarks call the size: the bytes one process
 * contributes per block. Per collective:
 *   allgather(v), alltoall(v), gather, scatter, reduce_scatter(_block): one block of msg bytes
 *     per process (v variants: every count equal);
 *   bcast, reduce, allreduce: a buffer of msg bytes;   barrier: none.
 * Data collectives move bytes (type signature MPI_CHAR); reductions are MPI_SUM over MPI_FLOAT
 * (as OSU) with small integer values, so every association order gives the same bits and results
 * can be compared bitwise with the MPI library's. The library's selection size is
 * autocoll_selection_size(): msg, or msg x p for allgatherv, alltoallv and reduce_scatter.
 *
 * Datatype kinds (acb_case_init_dtype, autocoll-bench -d). MPI lets every rank of bcast, gather,
 * scatter, allgather(v) and alltoall(v) describe its blocks with its own (count, datatype) as
 * long as the type signatures match. A block of n bytes (n >= 1) has six descriptions, all of
 * signature n x MPI_CHAR (lb 0, true lb >= 0, no overlap; "span" is the allocation one block
 * needs, gaps included):
 *   basic    n x MPI_CHAR                                                       span n
 *   contig   1 x contiguous(n, MPI_CHAR)                                        span n
 *   pairs    n/2 x contiguous(2, MPI_CHAR)  (n odd: n x MPI_CHAR)               span n
 *   vector   1 x vector(n/b, b, 2b, MPI_CHAR), b the largest of 8, 4, 2, 1 that divides n
 *            and leaves two blocks or more (n >= 2): b-byte gaps                span 2n - b
 *   resized  n x (one MPI_CHAR at displacement 1, resized to lb 0, extent 3)    span 3n - 1
 *   struct   1 x struct {h = floor(n/2) chars at displacement 2 (left out when h = 0), n - h
 *            chars at h + 8} resized to lb 0, extent n + 12: leading, inner and trailing gaps
 *                                                                               span n + 8
 * Kind basic, contig, pairs, vector, resized or struct: every rank uses that description. Kind
 * mixed: with s = floor(log2 n), rank r uses description (r + s) mod 6 (order of the table), so
 * at one size neighbouring ranks differ and across sizes every rank meets every description. A
 * rank describes what it sends and what it receives alike: Open MPI 4.1's tuned allgatherv
 * chooses its algorithm from size(sendtype) x recvcounts, so ranks whose send and receive
 * element sizes differ choose differently and the reference itself would hang. Blocks of one
 * buffer follow each other at count x extent (the MPI rule). The data (the signature bytes) are
 * those of basic; the gaps of send buffers hold other bytes, which must never arrive anywhere.
 *
 * Reference of the other kinds: the MPI library's collective called with the same per-rank
 * descriptions into a sentinel-filled allocation, so the comparison covers every byte of the
 * receive allocation, gaps included (a gap must keep the sentinel). It is checked against the
 * MPI library's MPI_CHAR result placed through the descriptions (messages to self); where they
 * differ on any rank (a defect of the MPI library, e.g. a segmentation counted in elements) the
 * latter becomes the reference and ref_bad_rank says so. Reductions and barrier always use
 * basic (MPI requires the same count and datatype on every rank for reductions).
 *
 * Timing mechanisms (STAGE-MPI, Figure 4.3, and the arrival-pattern study of §4.2):
 *   b2b          barrier; t0; ITER calls; (now - t0) / ITER                 (Mpptest)
 *   barrier      ITER x { barrier; t = now; call; sum += now - t }
 *   compute:US   ITER x { about US microseconds of dummy computation; t = now; call; ... }
 *   imbalance:R  ITER x { barrier; wait u x R x T; t = now; call; ... } where u is uniform in
 *                [0, 1] from a deterministic hash of (rank, iteration) and T the one-way time of
 *                one message of this size, measured by a ping-pong between ranks 0 and 1 in a
 *                calibration pass (the time unit of the imbalance factor, spec §6.1).
 * The per-rank result is the mean time per call; statistics are min/avg/max over ranks. Every
 * rank holds the same statistics (computed from allreduces), so decisions taken from them are
 * identical everywhere without further messages. Internal synchronisation and statistics use
 * PMPI_* so they are neither intercepted nor logged by the library.
 *
 * With validation on, every timed call is preceded by a reset of the outputs (sentinel bytes,
 * plus a guard area after the data that must stay untouched) and followed by a bitwise check
 * against the reference; these steps are outside the timed region but separate the calls, so
 * b2b then times the calls one by one.
 *
 * Under SimGrid (AC_SMPI), dummy computation and waits are simulated durations
 * (smpi_execute), since real computation is not accounted with simulate-computation:no.
 */
#ifndef AC_BENCH_H
#define AC_BENCH_H

#include <stddef.h>
#include <mpi.h>

enum { ACB_B2B, ACB_BARRIER, ACB_COMPUTE, ACB_IMBALANCE };

typedef struct {
    int kind;
    double param;  /* microseconds (compute) or imbalance factor R */
    char text[48]; /* canonical spelling, e.g. "compute:50" */
} acb_mech_t;

/* Parses "b2b", "barrier", "compute:US", "imbalance:R". 0 on success, -1 otherwise. */
int acb_mech_parse(const char *s, acb_mech_t *m);

/* "4096", "4K", "1M": 0 on success, -1 when not a number. */
int acb_parse_size(const char *s, unsigned long long *v);
/* "[min:]max" (or "min:"): 0 on success, -1 otherwise. */
int acb_parse_range(const char *s, unsigned long long *lo, unsigned long long *hi);
/* STAGE-MPI iteration counts per size (§4.2). */
int acb_default_iters(size_t msg);

int acb_is_reduction(int coll); /* autocoll_coll_info */
int acb_is_rooted(int coll);    /* autocoll_coll_info */
size_t acb_elem_size(int coll); /* 4 (float) or 1 (char) */

/* Restrictions that exclude an algorithm on this communicator for the calls made here (sum is
 * commutative, no MPI_IN_PLACE; topology: autocoll_topology_applies on the communicator): NULL
 * when applicable, else the reason. */
const char *acb_restriction_reason(unsigned restrictions, const autocoll_layout_t *l, int topology);
/* Registry index of the algorithm named by instance "name[:params]" of coll, or -1. */
int acb_alg_index(int coll, const char *instance);
/* 1 when the library's last choice (autocoll_last_choice) is known and is neither instance
 * "name[:params]" nor a parameter instance "instance:..." of it: the library ran another one. */
int acb_ran_other(const char *last, const char *instance);

/* Datatype kinds: the six descriptions of a block (in the order of the table above), then mixed. */
enum {
    ACB_DT_BASIC,
    ACB_DT_CONTIG,
    ACB_DT_PAIRS,
    ACB_DT_VECTOR,
    ACB_DT_RESIZED,
    ACB_DT_STRUCT,
    ACB_DT_MIXED,
    ACB_DT_NDESC = ACB_DT_MIXED /* number of descriptions */
};
/* "basic", ..., "mixed": the kind, or -1. */
int acb_dtype_parse(const char *s);
const char *acb_dtype_name(int kind);
/* 1 when coll moves data that ranks may describe differently (bcast, gather, scatter, allgather,
 * allgatherv, alltoall, alltoallv). */
int acb_dtype_applies(int coll);

typedef struct {
    int coll, root, rank, size;
    MPI_Comm comm;
    size_t msg, esize;
    int count; /* elements of the basic type (MPI_CHAR or MPI_FLOAT) per block */
    MPI_Datatype type;
    int dkind;                 /* ACB_DT_*: basic for reductions and barrier */
    int desc;                  /* this rank's description of a block (ACB_DT_BASIC..STRUCT) */
    int scount, rcount;        /* count per send / receive block (the same here) */
    MPI_Datatype stype, rtype; /* one committed type; freed by acb_case_free when derived */
    int own_type;              /* stype is a derived type */
    char dtext[96];            /* e.g. "1 x contiguous(512)" */
    int ref_bad_rank;          /* -1, or the first rank where the MPI library's result with the
                                  descriptions differed from its MPI_CHAR result (see above) */
    long long ref_bad_offset;  /* there, the first differing byte (-1: an MPI error) */
    char *sbuf, *rbuf, *ref;   /* rbuf and ref: rlen + guard bytes */
    size_t slen, rlen;         /* allocations, gaps included */
    int *cnts, *dsps;          /* v collectives: send side (reduce_scatter: its counts) */
    int *rcnts, *rdsps;        /* v collectives: receive side */
    int check_out;             /* this rank's output is significant */
    double msg_time;           /* imbalance unit T (seconds), < 0 until calibrated */
} acb_case_t;

/* Collective: allocates and fills the buffers, computes the reference with PMPI (with the same
 * per-rank descriptions). Returns MPI_SUCCESS, or MPI_ERR_NO_MEM when any rank could not
 * allocate (then nothing is held). acb_case_init is kind basic. */
int acb_case_init(acb_case_t *k, MPI_Comm comm, int coll, size_t msg, int root);
int acb_case_init_dtype(acb_case_t *k, MPI_Comm comm, int coll, size_t msg, int root, int kind);
void acb_case_free(acb_case_t *k);
int acb_call(acb_case_t *k);              /* one call through autocoll_<coll>(); MPI error code */
void acb_reset(acb_case_t *k);            /* sentinel into the outputs (bcast root: its data) */
long long acb_check(const acb_case_t *k); /* -1 when equal to the reference, else byte offset */

typedef struct {
    double min, avg, max; /* over ranks of the per-rank mean seconds per call */
    int iters;
    int valid;            /* -1 not checked, 1 every call matched, 0 a mismatch */
    int bad_rank;         /* first rank with a mismatch */
    long bad_iter;        /* its first failing iteration */
    long long bad_offset; /* first differing byte of its output */
    long long bad_len;    /* its output's data length (bad_offset >= bad_len: guard area) */
    char bad_desc[96];    /* its description of a block (acb_case_t.dtext) */
    int errors;           /* number of ranks whose calls returned an MPI error */
} acb_result_t;

/* Collective: warmup calls, then iters timed calls with mechanism m (validated when validate).
 * Every rank gets the same *r. */
int acb_measure(acb_case_t *k, const acb_mech_t *m, int iters, int warmup, int validate,
                acb_result_t *r);

/* Seconds since the first call of any acb_ function on this process (PMPI_Wtime based). */
double acb_now(void);

#endif
