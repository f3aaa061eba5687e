/*
 * Per-communicator context, cached on the user's communicator with an MPI attribute.
 *
 * Created on the first intercepted collective on a communicator (that call is collective, so
 * every rank creates it at the same point): a private duplicate for all library traffic, and the
 * node layout. Freed by the attribute's delete callback when the user frees the communicator,
 * and for MPI_COMM_WORLD / MPI_COMM_SELF just before MPI_Finalize. Attributes are not copied by
 * MPI_Comm_dup: a duplicate gets its own context on first use.
 */
#include <stdlib.h>
#include <string.h>
#include "ac.h"
#include "../select/adapt.h"

static int keyval = MPI_KEYVAL_INVALID;
static long next_id;

static void ctx_destroy(ac_ctx_t *ctx) {
    ac_adapt_ctx_free(ctx);
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

static int delete_fn(MPI_Comm comm, int kv, void *val, void *extra) {
    (void)comm;
    (void)kv;
    (void)extra;
    ctx_destroy(val);
    return MPI_SUCCESS;
}

int ac_ctx_init_keyval(void) {
    if (keyval != MPI_KEYVAL_INVALID) return MPI_SUCCESS;
    return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keyval, NULL);
}

int ac_ctx_keyval(void) {
    return keyval;
}

ac_ctx_t *ac_ctx_lookup(MPI_Comm comm) {
    int flag = 0;
    void *val = NULL;
    if (comm == MPI_COMM_NULL || !ac_g.initialized || ac_g.finalized ||
        keyval == MPI_KEYVAL_INVALID)
        return NULL;
    if (PMPI_Comm_get_attr(comm, keyval, &val, &flag) != MPI_SUCCESS || !flag) return NULL;
    return val;
}

void ac_ctx_free_all(void) {
    /* Contexts of communicators the user never freed are released by MPI_Finalize itself; the
     * two predefined communicators are ours to clean before that. Order is the same on every
     * rank, as MPI_Comm_free is collective. */
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

/* Node layout. Nodes are numbered in the order of their lowest rank, which is their leader. */
static int layout(ac_ctx_t *ctx) {
    int err, p = ctx->size, me = ctx->rank, leader;
    /* SMPI counts the actors on a host, not the ranks that have arrived: synchronise first. */
    AC_CHECK(PMPI_Barrier(ctx->comm));
    if (ac_g.set.node_layout == AC_LAYOUT_BLOCK)
        AC_CHECK(PMPI_Comm_split(ctx->comm, me / ac_g.set.node_param, me, &ctx->node_comm));
    else if (ac_g.set.node_layout == AC_LAYOUT_CYCLIC)
        AC_CHECK(PMPI_Comm_split(ctx->comm, me % ac_g.set.node_param, me, &ctx->node_comm));
    else
        AC_CHECK(PMPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                      &ctx->node_comm));
    PMPI_Comm_rank(ctx->node_comm, &ctx->node_rank);
    PMPI_Comm_size(ctx->node_comm, &ctx->node_size);
    leader = me;
    AC_CHECK(PMPI_Bcast(&leader, 1, MPI_INT, 0, ctx->node_comm));
    ctx->node_of = malloc((size_t)p * sizeof(int));
    ctx->leader_of = malloc((size_t)p * sizeof(int));
    int *lead_rank = malloc((size_t)p * sizeof(int));
    int ok = ctx->node_of && ctx->leader_of && lead_rank, all_ok;
    AC_CHECK(PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, ctx->comm));
    if (!all_ok) {
        free(lead_rank);
        return MPI_ERR_NO_MEM;
    }
    AC_CHECK(PMPI_Allgather(&leader, 1, MPI_INT, lead_rank, 1, MPI_INT, ctx->comm));
    ctx->nnodes = 0;
    for (int r = 0; r < p; r++) {
        if (lead_rank[r] == r) ctx->leader_of[ctx->nnodes++] = r;
        ctx->node_of[r] = (lead_rank[r] == r) ? ctx->nnodes - 1 : ctx->node_of[lead_rank[r]];
    }
    free(lead_rank);
    ctx->node_id = ctx->node_of[me];

    int *count = calloc((size_t)ctx->nnodes, sizeof(int));
    int sequential = 1, cyclic = 1;
    if (!count) return MPI_ERR_NO_MEM; /* same on every rank only by luck; layout is tiny */
    for (int r = 0; r < p; r++) {
        count[ctx->node_of[r]]++;
        if (r > 0 && ctx->node_of[r] < ctx->node_of[r - 1]) sequential = 0;
        if (ctx->node_of[r] != r % ctx->nnodes) cyclic = 0;
    }
    ctx->ppn_uniform = 1;
    for (int n = 1; n < ctx->nnodes; n++)
        if (count[n] != count[0]) ctx->ppn_uniform = 0;
    free(count);
    ctx->placement = ctx->nnodes == 1 ? AC_PLACE_SINGLE
                     : sequential     ? AC_PLACE_SEQUENTIAL
                     : cyclic         ? AC_PLACE_CYCLIC
                                      : AC_PLACE_OTHER;
    AC_CHECK(
        PMPI_Comm_split(ctx->comm, ctx->node_rank == 0 ? 0 : MPI_UNDEFINED, me, &ctx->leader_comm));
fn_exit:
    return err;
}

int ac_ctx_get(MPI_Comm comm, ac_ctx_t **out) {
    int err, flag = 0;
    void *val = NULL;
    if (keyval == MPI_KEYVAL_INVALID) AC_CHECK(ac_ctx_init_keyval());
    AC_CHECK(PMPI_Comm_get_attr(comm, keyval, &val, &flag));
    if (flag) {
        *out = val;
        return MPI_SUCCESS;
    }
    ac_ctx_t *ctx = calloc(1, sizeof *ctx);
    int ok = ctx != NULL, all_ok;
    /* Agree before anything collective, so that no rank leaves alone. */
    AC_CHECK(PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm));
    if (!all_ok) {
        free(ctx);
        return MPI_ERR_NO_MEM;
    }
    ctx->comm = ctx->node_comm = ctx->leader_comm = MPI_COMM_NULL;
    err = PMPI_Comm_dup(comm, &ctx->comm);
    if (err == MPI_SUCCESS) {
        PMPI_Comm_set_errhandler(ctx->comm, MPI_ERRORS_RETURN);
        PMPI_Comm_rank(ctx->comm, &ctx->rank);
        PMPI_Comm_size(ctx->comm, &ctx->size);
        err = layout(ctx);
    }
    if (err == MPI_SUCCESS) err = PMPI_Comm_set_attr(comm, keyval, ctx);
    if (err != MPI_SUCCESS) {
        ctx_destroy(ctx);
        return err;
    }
    ac_lock();
    ctx->id = next_id++;
    ac_unlock();
    *out = ctx;
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
