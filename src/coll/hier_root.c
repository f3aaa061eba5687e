/* The root's node-ordered buffer of the hierarchical gather and scatter (see hier_root.h). */
#include <stdlib.h>
#include "hier_root.h"
#include "../sched/sched.h"

int ac_hier_root_init(ac_hier_root_t *h, const ac_ctx_t *ctx, int p, int count, MPI_Datatype type) {
    int nn = ctx->nnodes;
    h->nreq = 0;
    h->count = count;
    h->type = type;
    h->blk = (MPI_Aint)count * ac_dt_extent(type);
    h->size = malloc((size_t)nn * sizeof *h->size);
    h->start = malloc((size_t)nn * sizeof *h->start);
    h->pos = malloc((size_t)p * sizeof *h->pos);
    h->req = malloc((size_t)nn * sizeof *h->req);
    h->all = ac_dt_alloc(type, (size_t)count * (size_t)p, &h->base);
    if (!h->size || !h->start || !h->pos || !h->req || !h->all) return MPI_ERR_NO_MEM;
    ac_node_regions(ctx->node_of, p, nn, h->size, h->start, h->pos);
    return MPI_SUCCESS;
}

int ac_hier_root_post(ac_hier_root_t *h, const ac_ctx_t *ctx, int send, MPI_Comm comm, int tag) {
    int err = MPI_SUCCESS, own = ctx->node_rank == 0 ? ctx->node_id : -1;
    for (int n = 0; n < ctx->nnodes; n++) {
        if (n == own) continue;
        char *at = ac_hier_root_at(h, h->start[n]);
        int c = h->count * h->size[n];
        if (send)
            AC_CHECK(PMPI_Isend(at, c, h->type, ctx->leader_of[n], tag, comm, &h->req[h->nreq++]));
        else
            AC_CHECK(PMPI_Irecv(at, c, h->type, ctx->leader_of[n], tag, comm, &h->req[h->nreq++]));
    }
fn_exit:
    return err;
}

int ac_hier_root_wait(ac_hier_root_t *h) {
    int n = h->nreq;
    h->nreq = 0;
    return PMPI_Waitall(n, h->req, MPI_STATUSES_IGNORE);
}

void ac_hier_root_free(ac_hier_root_t *h) {
    if (h->nreq > 0) ac_hier_root_wait(h);
    free(h->base);
    free(h->size);
    free(h->start);
    free(h->pos);
    free(h->req);
}
