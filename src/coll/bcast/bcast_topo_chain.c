/*
 * Algorithm: pipelined linear tree on the contention-free chain of Algorithm 4: root, the other
 *   ranks of the root's switch, then the ranks of the switches in DFS order of the switch tree
 *   from the root's switch (src/topo/rings.c, ac_bcast_chain). The buffer is cut into
 *   X = ceil(count / s) segments of s elements (s = max(1, seg / type size)); each rank receives
 *   segment j from its predecessor and forwards it to its successor while segment j+1 is
 *   already posted. Messages of different senders never share a directed link (Lemma 11,
 *   Theorem 4), so the pipeline runs at the speed of one link.
 *   Also holds the pipelined executor on explicit trees shared with topo_tree and the reduce
 *   mirror (topo_pipe.h).
 * Cost: (X + p - 2)(alpha + (n/X) beta) with gamma = 0 -> n beta for X >> p; n = message bytes.
 *   Chain built per call in O(|V|).
 * Restrictions: TOPOLOGY_FILE. Memory: the chain (p ints), one request per segment and child.
 * Reference: seed 000 (Faraj 2006), §3.4.1 (pipelined broadcast) and §3.4.2 (Algorithm 4,
 *   Lemmas 9-11, Theorem 4); spec star-stage-ethernet.md sections 2.5 and 3.5.
 */
#include <stdlib.h>
#include <string.h>
#include "topo_pipe.h"
#include "../../sched/tree.h"
#include "../../topo/load.h"

int ac_topo_pipe_bcast(void *buf, int count, MPI_Datatype type, int parent, const int *child,
                       int nchild, size_t seg, MPI_Comm comm, int tag) {
    int err = MPI_SUCCESS, nreq = 0;
    if (count <= 0 || ac_dt_size(type) == 0) return MPI_SUCCESS;
    if (seg < 1) seg = 1;
    size_t X = ((size_t)count + seg - 1) / seg;
    MPI_Aint ext = ac_dt_extent(type);
    MPI_Request rr = MPI_REQUEST_NULL, *sreq = malloc((X * (size_t)nchild + 1) * sizeof *sreq);
    if (!sreq) return MPI_ERR_NO_MEM;
#define SEG_AT(j) ((char *)buf + (MPI_Aint)((j)*seg) * ext)
#define SEG_N(j) ((int)((j) + 1 < X ? seg : (size_t)count - (j)*seg))
    if (parent >= 0) AC_CHECK(PMPI_Irecv(SEG_AT(0), SEG_N(0), type, parent, tag, comm, &rr));
    for (size_t j = 0; j < X; j++) {
        if (parent >= 0) {
            AC_CHECK(PMPI_Wait(&rr, MPI_STATUS_IGNORE));
            if (j + 1 < X)
                AC_CHECK(PMPI_Irecv(SEG_AT(j + 1), SEG_N(j + 1), type, parent, tag, comm, &rr));
        }
        for (int c = 0; c < nchild; c++)
            AC_CHECK(PMPI_Isend(SEG_AT(j), SEG_N(j), type, child[c], tag, comm, &sreq[nreq++]));
    }
fn_exit:
    if (rr != MPI_REQUEST_NULL) {
        PMPI_Cancel(&rr);
        PMPI_Wait(&rr, MPI_STATUS_IGNORE);
    }
    if (nreq) {
        int e2 = PMPI_Waitall(nreq, sreq, MPI_STATUSES_IGNORE);
        if (err == MPI_SUCCESS) err = e2;
    }
    free(sreq);
    return err;
}

int ac_topo_pipe_reduce(const void *mine, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                        int parent, const int *child, int nchild, size_t seg, MPI_Comm comm,
                        int tag) {
    int err = MPI_SUCCESS;
    void *accb = NULL, *tmpb = NULL;
    MPI_Request sr = MPI_REQUEST_NULL;
    if (count <= 0) return MPI_SUCCESS;
    if (seg < 1) seg = 1;
    size_t X = ((size_t)count + seg - 1) / seg;
    MPI_Aint ext = ac_dt_extent(type);
    /* the root accumulates in rbuf, the others in a work copy of mine */
    char *acc = parent < 0 ? rbuf : ac_dt_alloc(type, (size_t)count, &accb);
    char *tmp = nchild ? ac_dt_alloc(type, seg, &tmpb) : NULL;
    if (!acc || (nchild && !tmp)) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    if (mine != acc) AC_CHECK(ac_dt_copy(mine, count, type, acc, count, type));
    for (size_t j = 0; j < X; j++) {
        char *at = acc + (MPI_Aint)(j * seg) * ext;
        int n = (int)(j + 1 < X ? seg : (size_t)count - j * seg);
        for (int c = 0; c < nchild; c++) {
            AC_CHECK(PMPI_Recv(tmp, n, type, child[c], tag, comm, MPI_STATUS_IGNORE));
            AC_CHECK(PMPI_Reduce_local(tmp, at, n, type, op));
        }
        if (parent >= 0) {
            /* one send in flight: segment j is final, j-1's buffer is not touched again */
            AC_CHECK(PMPI_Wait(&sr, MPI_STATUS_IGNORE));
            AC_CHECK(PMPI_Isend(at, n, type, parent, tag, comm, &sr));
        }
    }
fn_exit:
    if (sr != MPI_REQUEST_NULL) {
        int e2 = PMPI_Wait(&sr, MPI_STATUS_IGNORE);
        if (err == MPI_SUCCESS) err = e2;
    }
    free(accb);
    free(tmpb);
    return err;
}
#undef SEG_AT
#undef SEG_N

int ac_bcast_topo_chain(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    ac_topo_comm_t *tc = ac_topo_of(ctx);
    if (!tc || a->comm != ctx->comm || tc->t->nranks != a->size) return MPI_ERR_ARG;
    int p = a->size, *order = malloc((size_t)p * sizeof *order), k = 0;
    if (!order || ac_bcast_chain(tc->t, a->root, order) != 0) {
        free(order);
        return MPI_ERR_NO_MEM;
    }
    while (k < p && order[k] != a->rank)
        k++;
    int parent = k > 0 ? order[k - 1] : -1, child = k + 1 < p ? order[k + 1] : -1;
    size_t seg =
        ac_seg_elems((size_t)ac_param_int(in, "seg"), ac_dt_size(a->rtype), (size_t)a->rcount);
    int err = ac_topo_pipe_bcast(a->rbuf, a->rcount, a->rtype, parent, &child, child >= 0, seg,
                                 a->comm, AC_TAG(a));
    free(order);
    return err;
}
