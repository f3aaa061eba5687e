/*
 * AUTOCOLL_TOPOLOGY: the switch-tree topology of the job, loaded once at MPI_Init, and its
 * per-communicator view with the schedules derived from it, cached with the context.
 *
 * Source: seed 000 (Faraj 2006) §3.1 (the topology information the generators need) and §3.2.3
 * (schedules and tokens are computed once, offline, and reused); spec star-stage-ethernet.md
 * sections 3.1-3.5.
 *
 * Loading (collective over MPI_COMM_WORLD, like the tuning table): world rank 0 reads the file
 * and broadcasts its bytes; every rank parses the same bytes, so every rank reaches the same
 * verdict. Rank 0 alone reports problems, each as "file:line: reason". A file that does not
 * parse, or that places another number of ranks than the job has, leaves the topology
 * algorithms inapplicable (restriction TOPOLOGY_FILE): never an abort.
 *
 * Per communicator (ac_topo_attach, the context's create hook; local, no communication): the
 * communicator's ranks are mapped to world ranks (MPI_Group_translate_ranks), and a topology of
 * those ranks only is derived (comm rank i on the machine of its world rank; machines and
 * switches without ranks pruned). The AAPC schedule, the token sets of each scheme (up to
 * AC_AAPC_TOKEN_MAX_P ranks; above, only each rank's own tokens, while its program is built),
 * the programs and the logical ring are built on first use and kept until the communicator is
 * freed.
 */
#ifndef AC_TOPO_LOAD_H
#define AC_TOPO_LOAD_H

#include "../core/ac.h"
#include "aapc.h"
#include "rings.h"
#include "topo.h"

/* One rank's program for one scheme (spec 3.3): in phase p, receive from from[p] and send to
 * to[p] (-1: none); before the send, wait for the tokens wsrc[w], w in [wstart[p], wstart[p+1]);
 * after the phase's own operation, send one token to each of sdst[sstart[p] .. sstart[p+1]).
 * Tokens carry no data, and the order in which a rank sends its tokens to another is not always
 * the order in which that rank awaits them (partial schemes): token w is the wseq[w]-th token
 * (from 0) that wsrc[w] sends to this rank, so the wait is over once wseq[w] + 1 tokens from
 * wsrc[w] have arrived (MPI keeps their order). The dummy scheme adds, in the phases where this
 * rank has no send (no receive), the dummy of ac_aapc_dummies it sends (receives). */
typedef struct {
    int nphases, me; /* nphases -1: not built, -2: could not be built for me */
    int *to, *from;
    int *wstart, *wsrc, *wseq;
    int *sstart, *sdst;
    int *dto, *dfrom; /* dummy scheme only (else NULL): the dummy message this rank sends to
                       * dto[p] / receives from dfrom[p] in phase p (-1: none) */
    int *dself;       /* dummy scheme: 1 when the rank also sends a dummy to itself in phase p
                       * (a local copy, no link) */
} ac_topo_prog_t;

typedef struct {
    ac_ts_t ts;
    int ntok; /* -1: the whole token set could not be built, -2: not built (yet); above
               * AC_AAPC_TOKEN_MAX_P ranks it is not built for the program (ac_topo_program) */
    ac_token_t *tok;
    ac_topo_prog_t prog; /* of one rank (the local one in the collectives) */
} ac_topo_tokset_t;

typedef struct ac_topo_comm {
    ac_topo_t *t;   /* ranks = the communicator's ranks */
    int aapc_state; /* 0 not built, 1 built, -1 failed */
    ac_aapc_t aapc;
    int ntoksets;
    ac_topo_tokset_t toksets[AC_TS_NSCHEMES * 5];
    int reduce_max_p; /* token sets reduced up to this many ranks; 0: AC_AAPC_TOKEN_MAX_P (a
                       * test lowers it to build small communicators' programs per rank) */
    /* Per scheme and block size (ac_topo_agreed_slot): 0 not asked yet, 1 every rank built its
     * program, -1 some rank could not (agreed by the alltoall's first call). */
    signed char prog_agreed[AC_TS_NSCHEMES * 5];
    int ring_state; /* 0 not built, 1 built, -1 failed */
    int *ring;      /* contention-free logical ring (LR3, else LR2, else LR1) */
    int ring_len;   /* its longest path in switches */
    int **bt_child; /* [p] per root: child1, child2 of every rank (Algorithm 5), NULL: not built */
} ac_topo_comm_t;

/* Reads AUTOCOLL_TOPOLOGY (collective over MPI_COMM_WORLD when collective is set, else every
 * rank reads the file itself) and keeps the job's topology; reports on world rank 0. */
void ac_topo_setup(int collective);
void ac_topo_teardown(void);
/* The job's topology (world ranks), NULL when none is loaded or it is not usable. */
const ac_topo_t *ac_topo_world(void);

/* Context create hook: sets ctx->topo when the job's topology covers ctx's ranks. */
void ac_topo_attach(ac_ctx_t *ctx);
/* Frees a view (the context's topo_free). */
void ac_topo_comm_free(void *tc);
/* ctx's topology view, NULL when the topology algorithms are not applicable on ctx. */
static inline ac_topo_comm_t *ac_topo_of(ac_ctx_t *ctx) {
    return (ac_topo_comm_t *)ctx->topo;
}

/* The AAPC schedule of the communicator (built on first use), NULL on no memory. */
const ac_aapc_t *ac_topo_aapc(ac_topo_comm_t *tc);
/* The whole token set of scheme ts (built on first use and kept): reduced up to
 * AC_AAPC_TOKEN_MAX_P ranks, else unreduced (the set the per-rank programs are subsequences of;
 * the collectives never ask for it there). 0, or -1 when it cannot be built. */
int ac_topo_tokens(ac_topo_comm_t *tc, ac_ts_t ts, const ac_token_t **tok, int *ntok);
/* Rank me's program under scheme ts (built on first use), NULL when it cannot be built. Up to
 * AC_AAPC_TOKEN_MAX_P ranks it is cut from the reduced token set (ac_topo_tokens), above from
 * the unreduced tokens of me alone (ac_aapc_tokens_rank). */
const ac_topo_prog_t *ac_topo_program(ac_topo_comm_t *tc, ac_ts_t ts, int me);
/* The index of scheme ts in ac_topo_comm_t.prog_agreed. */
static inline int ac_topo_agreed_slot(ac_ts_t ts) {
    int b = ts.bs <= 0 ? 0 : ts.bs <= 2 ? 1 : ts.bs <= 4 ? 2 : ts.bs <= 8 ? 3 : 4;
    return (int)ts.scheme * 5 + b;
}
/* The contention-free logical ring of the communicator, NULL on no memory. */
const int *ac_topo_ring(ac_topo_comm_t *tc);

/* Algorithm 5 binary tree from root (built on first use per root): child[2r], child[2r+1] are
 * the children of rank r (-1: none). NULL when it cannot be built. */
const int *ac_topo_bintree(ac_topo_comm_t *tc, int root);

/* A topology of the ranks world_of[0..n) of t: rank i on the machine of rank world_of[i] of t.
 * Returns NULL (and, if errs, a malloc'd reason) when a world rank is out of range. */
ac_topo_t *ac_topo_subset(const ac_topo_t *t, const int *world_of, int n, char **errs);

#endif
