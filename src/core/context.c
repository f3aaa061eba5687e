/*
 * Per-communicator context, cached on the user's communicator with an MPI attribute.
 *
 * Created on the first intercepted collective on a communicator (that call is collective, so
 * every rank creates it at the same point): a private duplicate for all library traffic, and the
 * node layout. Communicator budget (docs/messages.md): one duplicate per user communicator that
 * calls a collective; a node and a leader communicator only once a node-aware algorithm runs on
 * it (ac_ctx_nodes). The split that finds the layout is freed at once; it is made only on
 * the first communicator of every world rank, whose layout then gives every later
 * communicator's without communication (world_node, layout_known). They are not shared
 * between user communicators of the same group: calls on two such communicators may interleave
 * differently on different ranks (threads, or any order MPI allows), and shared internal
 * communicators would then mix their messages. Freed by the attribute's delete callback when the
 * user frees the communicator, and for MPI_COMM_WORLD / MPI_COMM_SELF just before MPI_Finalize.
 * Attributes are not copied by MPI_Comm_dup: a duplicate gets its own context on first use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ac.h"

static int keyval = MPI_KEYVAL_INVALID;
static long next_id;

static void (*free_hook)(ac_ctx_t *);
void ac_ctx_set_free_hook(void (*fn)(ac_ctx_t *ctx)) {
    free_hook = fn;
}

static void (*create_hook)(ac_ctx_t *);
void ac_ctx_set_create_hook(void (*fn)(ac_ctx_t *ctx)) {
    create_hook = fn;
}

static void ctx_destroy(ac_ctx_t *ctx) {
    if (free_hook) free_hook(ctx);
    if (ctx->topo_free) ctx->topo_free(ctx->topo);
    if (ctx->grid_free) ctx->grid_free(ctx->grid);
    if (!ac_g.finalized) {
        if (ctx->leader_comm != MPI_COMM_NULL) PMPI_Comm_free(&ctx->leader_comm);
        if (ctx->node_comm != MPI_COMM_NULL) PMPI_Comm_free(&ctx->node_comm);
        if (ctx->comm != MPI_COMM_NULL) PMPI_Comm_free(&ctx->comm);
    }
    free(ctx->node_of);
    free(ctx->leader_of);
    free(ctx->scratch);
    free(ctx);
}

/* Attribute value of an intercommunicator: its calls go to the MPI library (ac_ctx_peek). */
static char inter_mark;

unsigned ac_ctx_gen; /* ac.h */

static int delete_fn(MPI_Comm comm, int kv, void *val, void *extra) {
    (void)comm;
    (void)kv;
    (void)extra;
    if (val != &inter_mark) ctx_destroy(val);
    __atomic_add_fetch(&ac_ctx_gen, 1, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

int ac_ctx_init_keyval(void) {
    if (keyval != MPI_KEYVAL_INVALID) return MPI_SUCCESS;
    return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keyval, NULL);
}

int ac_ctx_keyval(void) {
    return keyval;
}

/* The last context found by this thread (ac.h): a program calling collectives on one
 * communicator finds it without an attribute lookup. */
AC_TLS ac_ctx_seen_t ac_ctx_seen;

ac_ctx_t *ac_ctx_peek(MPI_Comm comm, int *inter) {
    int flag = 0;
    void *val = NULL;
    *inter = 0;
    unsigned gen = __atomic_load_n(&ac_ctx_gen, __ATOMIC_ACQUIRE);
    if (ac_ctx_seen.ctx && ac_ctx_seen.comm == comm && ac_ctx_seen.gen == gen)
        return ac_ctx_seen.ctx;
    if (keyval != MPI_KEYVAL_INVALID) PMPI_Comm_get_attr(comm, keyval, &val, &flag);
    if (flag && val != &inter_mark) {
        ac_ctx_seen.comm = comm;
        ac_ctx_seen.ctx = val;
        ac_ctx_seen.gen = gen;
    }
    if (flag) {
        *inter = val == &inter_mark;
        return *inter ? NULL : val;
    }
    /* First call on comm: asked once, remembered for an intercommunicator. */
    if (PMPI_Comm_test_inter(comm, inter) != MPI_SUCCESS)
        *inter = 1;
    else if (*inter && keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_set_attr(comm, keyval, &inter_mark);
    return NULL;
}

ac_ctx_t *ac_ctx_lookup(MPI_Comm comm) {
    int flag = 0;
    void *val = NULL;
    if (comm == MPI_COMM_NULL || !ac_g.initialized || ac_g.finalized ||
        keyval == MPI_KEYVAL_INVALID)
        return NULL;
    if (PMPI_Comm_get_attr(comm, keyval, &val, &flag) != MPI_SUCCESS || !flag) return NULL;
    return val == &inter_mark ? NULL : val;
}

/* The shared-memory node of every rank of MPI_COMM_WORLD (numbered as in the layout of a
 * communicator of all of them), once some such communicator has been laid out: later
 * communicators find their layout from it without communicating (layout_known, layout).
 * Written at the same collective call on every rank, then unchanged until MPI_Finalize. */
static int *world_node, world_size;

void ac_ctx_free_all(void) {
    /* Contexts of communicators the user never freed are released by MPI_Finalize itself; the
     * two predefined communicators are ours to clean before that. Order is the same on every
     * rank, as MPI_Comm_free is collective. */
    free(world_node);
    world_node = NULL;
    if (keyval == MPI_KEYVAL_INVALID) return;
    MPI_Comm pre[2] = {MPI_COMM_SELF, MPI_COMM_WORLD};
    for (int i = 0; i < 2; i++) {
        int flag = 0;
        void *val;
        PMPI_Comm_get_attr(pre[i], keyval, &val, &flag);
        if (flag) PMPI_Comm_delete_attr(pre[i], keyval);
    }
    PMPI_Comm_free_keyval(&keyval);
}

/* This rank's world ranks of ctx's ranks (caller frees), or NULL. */
static int *world_ranks(const ac_ctx_t *ctx) {
    MPI_Group g = MPI_GROUP_NULL, w = MPI_GROUP_NULL;
    int p = ctx->size, *r = malloc((size_t)p * sizeof(int)),
        *w_of = malloc((size_t)p * sizeof(int));
    int ok = r && w_of && PMPI_Comm_group(ctx->comm, &g) == MPI_SUCCESS &&
             PMPI_Comm_group(MPI_COMM_WORLD, &w) == MPI_SUCCESS;
    if (ok) {
        for (int i = 0; i < p; i++)
            r[i] = i;
        ok = PMPI_Group_translate_ranks(g, p, r, w, w_of) == MPI_SUCCESS;
    }
    for (int i = 0; ok && i < p; i++)
        ok = w_of[i] != MPI_UNDEFINED;
    if (g != MPI_GROUP_NULL) PMPI_Group_free(&g);
    if (w != MPI_GROUP_NULL) PMPI_Group_free(&w);
    free(r);
    if (!ok) free(w_of);
    return ok ? w_of : NULL;
}

/* 1 when a layout can come from world_node (the shared-memory layout; w: the world ranks of
 * the communicator's ranks, NULL when some are not in MPI_COMM_WORLD). Local; the caller
 * agrees. */
static int layout_known(const int *w) {
    return w && __atomic_load_n(&world_node, __ATOMIC_ACQUIRE) &&
           ac_g.set.node_layout == AC_LAYOUT_AUTO;
}

/* Node layout. Nodes are numbered in the order of their lowest rank, which is their leader.
 * lead_rank[r]: the lowest rank on r's node. Known (layout_known, agreed by the caller): from
 * world_node and w (world_ranks), without communicating. Otherwise the node communicator that
 * finds it is transient, freed before returning (node_comm and leader_comm are made only when
 * a node-aware algorithm needs them, ac_ctx_nodes). */
static int layout(ac_ctx_t *ctx, int known, const int *w) {
    int err = MPI_SUCCESS, p = ctx->size, me = ctx->rank, leader;
    MPI_Comm node = MPI_COMM_NULL;
    ctx->node_of = malloc((size_t)p * sizeof(int));
    ctx->leader_of = malloc((size_t)p * sizeof(int));
    int *lead_rank = malloc((size_t)p * sizeof(int));
    int ok = ctx->node_of && ctx->leader_of && lead_rank, all_ok;
    if (known) {
        int *first = ok ? malloc((size_t)world_size * sizeof(int)) : NULL;
        if (!first) {
            free(lead_rank);
            return MPI_ERR_NO_MEM; /* the caller agrees */
        }
        for (int i = 0; i < world_size; i++)
            first[i] = -1;
        ctx->node_rank = ctx->node_size = 0;
        for (int r = 0; r < p; r++) {
            int nd = world_node[w[r]];
            if (first[nd] < 0) first[nd] = r;
            lead_rank[r] = first[nd];
        }
        for (int r = 0; r < p; r++)
            if (lead_rank[r] == lead_rank[me]) {
                ctx->node_size++;
                if (r < me) ctx->node_rank++;
            }
        free(first);
    } else {
        /* SMPI counts the actors on a host, not the ranks that have arrived: synchronise
         * first. */
        AC_CHECK(PMPI_Barrier(ctx->comm));
        if (ac_g.set.node_layout == AC_LAYOUT_BLOCK)
            AC_CHECK(PMPI_Comm_split(ctx->comm, me / ac_g.set.node_param, me, &node));
        else if (ac_g.set.node_layout == AC_LAYOUT_CYCLIC)
            AC_CHECK(PMPI_Comm_split(ctx->comm, me % ac_g.set.node_param, me, &node));
        else
            AC_CHECK(
                PMPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
        PMPI_Comm_rank(node, &ctx->node_rank);
        PMPI_Comm_size(node, &ctx->node_size);
        leader = me;
        AC_CHECK(PMPI_Bcast(&leader, 1, MPI_INT, 0, node));
        AC_CHECK(PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, ctx->comm));
        if (!all_ok) {
            free(lead_rank);
            err = MPI_ERR_NO_MEM;
            goto fn_exit;
        }
        AC_CHECK(PMPI_Allgather(&leader, 1, MPI_INT, lead_rank, 1, MPI_INT, ctx->comm));
    }
    ctx->nnodes = 0;
    for (int r = 0; r < p; r++) {
        if (lead_rank[r] == r) ctx->leader_of[ctx->nnodes++] = r;
        ctx->node_of[r] = (lead_rank[r] == r) ? ctx->nnodes - 1 : ctx->node_of[lead_rank[r]];
    }
    ctx->node_id = ctx->node_of[me];

    int sequential = 1, cyclic = 1, *count = lead_rank; /* reused: nnodes <= p counters */
    memset(count, 0, (size_t)ctx->nnodes * sizeof(int));
    for (int r = 0; r < p; r++) {
        count[ctx->node_of[r]]++;
        if (r > 0 && ctx->node_of[r] < ctx->node_of[r - 1]) sequential = 0;
        if (ctx->node_of[r] != r % ctx->nnodes) cyclic = 0;
    }
    ctx->ppn_uniform = 1;
    for (int n = 1; n < ctx->nnodes; n++)
        if (count[n] != count[0]) ctx->ppn_uniform = 0;
    free(lead_rank);
    ctx->placement = ctx->nnodes == 1 ? AC_PLACE_SINGLE
                     : sequential     ? AC_PLACE_SEQUENTIAL
                     : cyclic         ? AC_PLACE_CYCLIC
                                      : AC_PLACE_OTHER;
    /* A communicator of every world rank, laid out by the shared-memory rule: keep the
     * world's layout for later communicators (every rank of the world is here, at this call). */
    int wsize = 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (!known && !world_node && w && p == wsize && ac_g.set.node_layout == AC_LAYOUT_AUTO) {
        int *map = malloc((size_t)p * sizeof(int));
        if (map) {
            for (int r = 0; r < p; r++)
                map[w[r]] = ctx->node_of[r];
            world_size = p;
            __atomic_store_n(&world_node, map, __ATOMIC_RELEASE);
        }
    }
fn_exit:
    if (node != MPI_COMM_NULL) PMPI_Comm_free(&node);
    return err;
}

int ac_ctx_nodes(ac_ctx_t *ctx) {
    if (ctx->nodes == 1) return MPI_SUCCESS;
    if (ctx->nodes == -1) return MPI_ERR_OTHER;
    /* Collective over ctx->comm, at the same call on every rank (the same instance runs). */
    int me = ctx->rank, ok, all_ok = 0;
    int err = PMPI_Comm_split(ctx->comm, ctx->node_id, me, &ctx->node_comm);
    if (err == MPI_SUCCESS)
        err = PMPI_Comm_split(ctx->comm, ctx->node_rank == 0 ? 0 : MPI_UNDEFINED, me,
                              &ctx->leader_comm);
    ok = err == MPI_SUCCESS;
    /* Agree, so that every rank runs the same thing next; a failed split may leave a result. */
    if (PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, ctx->comm) != MPI_SUCCESS) all_ok = 0;
    if (all_ok) {
        ctx->nodes = 1;
        return MPI_SUCCESS;
    }
    if (ctx->leader_comm != MPI_COMM_NULL) PMPI_Comm_free(&ctx->leader_comm);
    if (ctx->node_comm != MPI_COMM_NULL) PMPI_Comm_free(&ctx->node_comm);
    ctx->nodes = -1;
    return err != MPI_SUCCESS ? err : MPI_ERR_OTHER;
}

/* Creation, collective over comm. Errors of the MPI library (no communicator left, ...) are
 * returned, never raised on the user's communicator, and every rank ends with the same
 * outcome: a context, or none (the call then goes to the MPI library). */
static int ctx_create(MPI_Comm comm, ac_ctx_t **out) {
    MPI_Errhandler user_eh;
    int err, ok, all_ok = 0;
    PMPI_Comm_get_errhandler(comm, &user_eh);
    PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    ac_ctx_t *ctx = calloc(1, sizeof *ctx);
    if (ctx) {
        ctx->comm = ctx->node_comm = ctx->leader_comm = MPI_COMM_NULL;
        ctx->raw_type = MPI_DATATYPE_NULL; /* its size, 0, is raw_tsize's */
    }
    err = ctx ? PMPI_Comm_dup(comm, &ctx->comm) : MPI_ERR_NO_MEM;
    /* A rank whose duplicate failed must not enter the layout's collectives alone; whether the
     * layout is known without them (layout_known) is agreed with it. */
    int v[2] = {err == MPI_SUCCESS, 0}, *w = NULL;
    if (v[0]) {
        PMPI_Comm_rank(ctx->comm, &ctx->rank);
        PMPI_Comm_size(ctx->comm, &ctx->size);
        w = world_ranks(ctx);
        v[1] = layout_known(w);
    }
    if (PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) v[0] = 0;
    all_ok = v[0];
    if (all_ok) {
        PMPI_Comm_set_errhandler(ctx->comm, MPI_ERRORS_RETURN);
        err = layout(ctx, v[1], w);
        ok = err == MPI_SUCCESS;
        if (PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) all_ok = 0;
    }
    free(w);
    if (all_ok) {
        err = PMPI_Comm_set_attr(comm, keyval, ctx);
        all_ok = err == MPI_SUCCESS;
    }
    PMPI_Comm_set_errhandler(comm, user_eh);
    PMPI_Errhandler_free(&user_eh);
    if (!all_ok) {
        if (ctx) ctx_destroy(ctx);
        return err != MPI_SUCCESS ? err : MPI_ERR_OTHER;
    }
    ac_lock();
    ctx->id = next_id++;
    ac_unlock();
    if (ac_g.set.verbose >= 2 && ctx->rank == 0)
        ac_log("comm %ld: %d ranks on %d nodes, layout %s", ctx->id, ctx->size, ctx->nnodes,
               v[1] ? "from MPI_COMM_WORLD's (no communication)" : "found by communication");
    if (create_hook) create_hook(ctx);
    *out = ctx;
    return MPI_SUCCESS;
}

int ac_ctx_get(MPI_Comm comm, ac_ctx_t **out) {
    int err, flag = 0;
    void *val = NULL;
    if (keyval == MPI_KEYVAL_INVALID) AC_CHECK(ac_ctx_init_keyval());
    AC_CHECK(PMPI_Comm_get_attr(comm, keyval, &val, &flag));
    if (flag && val != &inter_mark) {
        *out = val;
        return MPI_SUCCESS;
    }
    if (flag) return MPI_ERR_COMM;
    return ctx_create(comm, out);
fn_exit:
    return err;
}

void *ac_ctx_scratch(ac_ctx_t *ctx, size_t bytes) {
    if (bytes <= ctx->scratch_size) return ctx->scratch;
    void *p = realloc(ctx->scratch, bytes);
    if (!p) return NULL;
    ctx->scratch = p;
    ctx->scratch_size = bytes;
    return p;
}

AC_EXPORT int autocoll_layout(MPI_Comm comm, autocoll_layout_t *l) {
    ac_ctx_t *ctx;
    if (!l || comm == MPI_COMM_NULL || !ac_g.initialized || ac_g.finalized) return MPI_ERR_ARG;
    int err = ac_ctx_get(comm, &ctx); /* collective on first use */
    if (err != MPI_SUCCESS) return err;
    int *count = calloc((size_t)ctx->nnodes, sizeof *count), largest = 0;
    if (!count) return MPI_ERR_NO_MEM;
    for (int r = 0; r < ctx->size; r++)
        if (++count[ctx->node_of[r]] > largest) largest = count[ctx->node_of[r]];
    free(count);
    static const char *names[] = {"single", "sequential", "cyclic", "other"};
    l->p = ctx->size;
    l->nodes = ctx->nnodes;
    l->ppn = largest;
    l->uniform = ctx->ppn_uniform;
    snprintf(l->placement, sizeof l->placement, "%s", names[ctx->placement]);
    return MPI_SUCCESS;
}

int ac_group_ranks(MPI_Group from, int n, MPI_Group to, int *out) {
    int *in = malloc((size_t)(n > 0 ? n : 1) * sizeof *in);
    if (!in) return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        in[i] = i;
    int err = PMPI_Group_translate_ranks(from, n, in, to, out);
    free(in);
    return err;
}

int ac_comm_ranks(MPI_Comm from, int n, MPI_Comm to, int *out) {
    MPI_Group fg, tg;
    int err = PMPI_Comm_group(from, &fg);
    if (err != MPI_SUCCESS) return err;
    if ((err = PMPI_Comm_group(to, &tg)) == MPI_SUCCESS) {
        err = ac_group_ranks(fg, n, tg, out);
        PMPI_Group_free(&tg);
    }
    PMPI_Group_free(&fg);
    return err;
}
