/*
 * Contention-free all-to-all (AAPC) phase schedule on a switch tree and the synchronisation
 * tokens that execute it. No MPI.
 *
 * Source: seed 000 (Faraj 2006) §3.2.2 (schedule: Lemmas 1-6, Theorem 1, Figure 3.5) and §3.2.3
 * (synchronisation schemes, Table 3.5); spec star-stage-ethernet.md sections 3.2, 3.3 and
 * Appendix A (Step 3 bound, Step 5 t_{i-1}, partial synchronisation: intra-block edges deleted
 * before the reduction).
 *
 * A schedule is a list of phases; a phase is a list of (src, dst) rank pairs. Phases are
 * contention free (no directed link used twice in a phase), every ordered pair of distinct ranks
 * appears exactly once, and there are exactly L = |M_0| (|M| - |M_0|) phases, the AAPC load.
 */
#ifndef AC_TOPO_AAPC_H
#define AC_TOPO_AAPC_H

#include <stdint.h>

#include "topo.h"

typedef struct {
    int src, dst;
} ac_pair_t;

typedef struct {
    int nranks, nphases;
    int root;       /* root switch vertex (§3.2.2.1) */
    int k;          /* subtrees of the root */
    int *sub_start; /* [k+1]; machine m_{i,j} = sub_rank[sub_start[i] + j] */
    int *sub_rank;  /* [nranks] ranks of t_0, t_1, ... (|M_0| >= |M_1| >= ...) */
    int *pstart;    /* [nphases+1]; phase p is msg[pstart[p] .. pstart[p+1]) */
    ac_pair_t *msg; /* [nranks (nranks - 1)] */
} ac_aapc_t;

/* AAPC root: the first switch vertex all of whose branches hold <= nranks/2 ranks (spec 3.2,
 * equivalent characterisation of the root of §3.2.2.1). -1 if nranks < 2. */
int ac_aapc_root(const ac_topo_t *t);
/* AAPC load: max over links of |M_u| |M_v| (0 if nranks < 2). */
int64_t ac_aapc_load(const ac_topo_t *t);
/* First phase of the group t_i -> t_j (i != j) of the extended ring schedule for subtree sizes
 * m[0..k) sorted decreasingly; L = m_0 (sum - m_0). */
int64_t ac_aapc_group_start(const int *m, int k, int i, int j);
/* Rotate pattern (§3.2.2.2) of a group with |M_i| = mi senders and |M_j| = mj receivers: sender
 * and receiver index at offset q in [0, mi mj). */
void ac_aapc_rotate(int mi, int mj, int64_t q, int *snd, int *rcv);

/* Builds the schedule. Returns 0, -1 on no memory or too many ranks (nranks > 32768). */
int ac_aapc_build(const ac_topo_t *t, ac_aapc_t *s);
void ac_aapc_free(ac_aapc_t *s);

/* ---- synchronisation schemes (Table 3.5) */
typedef enum {
    AC_TS_NOSYNC,
    AC_TS_DUMMY,
    AC_TS_SENDER,
    AC_TS_SENDER_PART,
    AC_TS_RECEIVER,
    AC_TS_RECEIVER_PART,
    AC_TS_BARRIER,
    AC_TS_BAR_NONE,
    AC_TS_BAR_SENDER,
    AC_TS_BAR_RECEIVER,
    AC_TS_NSCHEMES
} ac_ts_scheme_t;

typedef struct {
    ac_ts_scheme_t scheme;
    int bs; /* block size of the partial schemes (2, 4, 8, 16), else 0 */
} ac_ts_t;

/* "ts_sender_part:bs=4" etc. Returns 0, -1 if unknown or a bs is missing/invalid/superfluous. */
int ac_ts_parse(const char *name, ac_ts_t *out);
/* Writes the name back; returns snprintf's result. */
int ac_ts_name(ac_ts_t ts, char *buf, size_t n);
/* 1 for sender-based tokens, 2 for receiver-based, 0 for none. */
int ac_ts_token_kind(ac_ts_t ts);
/* 1 if every rank enters a barrier after phase p (never after the last phase). */
int ac_ts_barrier_after(ac_ts_t ts, int p, int nphases);

/* A token: rank `from` sends a zero-byte message to rank `to` after its part of message m1
 * (sender-based: after sending m1, receiver-based: after receiving it); `to` waits for it before
 * starting m2. m1, m2 index s->msg. */
typedef struct {
    int m1, m2, from, to;
} ac_token_t;

/* Largest rank count whose token sets are reduced: the reduction needs N^2/8 bytes for
 * N = p (p - 1) messages, 508 MiB at p = 256. Above it the token sets are derived without the
 * reduction (ac_aapc_tokens_opt), and the collectives derive only each rank's own tokens
 * (ac_aapc_tokens_rank). */
#define AC_AAPC_TOKEN_MAX_P 256

/* Token set of a scheme (§3.2.3, spec 3.3 resolution): dependence DAG of contending messages,
 * edges filtered by blocks (partial: inter-block only; barrier combined: intra-block only),
 * transitive reduction over token and program-order ("free") edges, one token per remaining
 * non-free edge. Sorted by (m2, m1). Cost O(sum of path lengths + N^2/64 per reduction step),
 * memory N^2/8 bytes for N = nranks (nranks - 1) messages. The reduction is made up to
 * AC_AAPC_TOKEN_MAX_P ranks; above, ac_aapc_tokens_opt(reduce = 0). Returns 0; -1 on no
 * memory. */
int ac_aapc_tokens(const ac_topo_t *t, const ac_aapc_t *s, ac_ts_t ts, ac_token_t **tok, int *ntok);

/* The same with the reduction chosen: reduce = 0 derives the tokens at any size without it,
 * from the chain of users of every directed link in phase order: full and combined schemes
 * order each user after the previous one (the order is transitive along the chain), partial
 * schemes each user of a block after the users of the link's previous non-empty block, keeping
 * of that block only the latest message of each token sender and of the next only the earliest
 * of each waiter (the executor finishes a phase before the next, so the others are implied);
 * program-order edges need no token. More tokens than the reduced set (about one per link of
 * every message), memory O(sum of path lengths) (partial: times bs), no N^2 term.
 * reduce = 1 above AC_AAPC_TOKEN_MAX_P returns -2. */
int ac_aapc_tokens_opt(const ac_topo_t *t, const ac_aapc_t *s, ac_ts_t ts, int reduce,
                       ac_token_t **tok, int *ntok);

/* The tokens of ac_aapc_tokens_opt(reduce = 0) that rank me sends (from == me) or awaits
 * (to == me), in the same order: a subsequence of the whole set, so that a sender and a waiter
 * agree on the order of the tokens between them. Memory while deriving O(sum of path lengths),
 * kept O(tokens of me); no rank holds the whole set. Returns 0; -1 on no memory or a bad me. */
int ac_aapc_tokens_rank(const ac_topo_t *t, const ac_aapc_t *s, ac_ts_t ts, int me,
                        ac_token_t **tok, int *ntok);

/* Dummy scheme: per phase, a rank without a send sends to the first rank under the same switch
 * without a receive (real or dummy), else to itself; a rank still without a receive then sends
 * to itself (spec 3.3 resolution: greedy in rank order). A self dummy is a local copy and uses
 * no link. dstart[nphases+1], dum[...] are malloc'd. Returns 0, -1 on no memory. */
int ac_aapc_dummies(const ac_topo_t *t, const ac_aapc_t *s, int **dstart, ac_pair_t **dum);

#endif
