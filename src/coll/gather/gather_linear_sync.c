/*
 * Algorithm: linear gather with synchronisation: for each rank i in turn (root+1, root+2, ...)
 *   the root posts the receive of i's first segment (seg bytes), sends i a zero-byte token, posts
 *   the receive of the rest and waits for the first segment before serving i+1; rank i waits
 *   for the token, then sends its first segment and the rest. The root thus admits one sender
 *   at a time. The block travels as bytes (contiguous types directly, others packed with
 *   PMPI_Pack / PMPI_Unpack), so the split needs no common element size of stype and rtype.
 * Cost: (p-1)(2 alpha + delta_l + n beta) at the root.
 * Restrictions: none. Memory: p-1 requests; p blocks of packed bytes at a root whose rtype is
 *   not contiguous, one packed block on other ranks whose stype is not contiguous.
 * Reference: seed 000 (Faraj 2006), §4.1.1.1 light-weight synchronisation (delta_l) applied to
 *   the linear gather; seed 004 (Afsahi 2000) §5.5 S1 reversed.
 */
#include <stdlib.h>
#include "../../core/ac.h"

int ac_gather_linear_sync(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, root = a->root, tag = AC_TAG(a);
    int nreq = 0, pos = 0;
    size_t seg = (size_t)ac_param_int(in, "seg");
    char *packed = NULL;
    MPI_Request *req = NULL, first = MPI_REQUEST_NULL;
    if (me != root) {
        size_t bytes = (size_t)a->scount * ac_dt_size(a->stype);
        size_t f = seg < bytes ? seg : bytes;
        const char *src = a->sbuf;
        if (!ac_dt_is_contig(a->stype) && bytes > 0) {
            packed = malloc(bytes);
            if (!packed) return MPI_ERR_NO_MEM;
            AC_CHECK(PMPI_Pack(a->sbuf, a->scount, a->stype, packed, (int)bytes, &pos, a->comm));
            src = packed;
        }
        AC_CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, root, tag, a->comm, MPI_STATUS_IGNORE));
        AC_CHECK(PMPI_Send(src, (int)f, MPI_BYTE, root, tag, a->comm));
        AC_CHECK(PMPI_Send(src + f, (int)(bytes - f), MPI_BYTE, root, tag, a->comm));
        goto fn_exit;
    }
    size_t bytes = (size_t)a->rcount * ac_dt_size(a->rtype);
    size_t f = seg < bytes ? seg : bytes;
    MPI_Aint blk = (MPI_Aint)a->rcount * ac_dt_extent(a->rtype);
    int contig = ac_dt_is_contig(a->rtype);
    char *rbuf = a->rbuf;
    req = malloc((size_t)p * sizeof *req);
    if (!req) return MPI_ERR_NO_MEM;
    if (!contig && bytes > 0) {
        packed = malloc(bytes * (size_t)p);
        if (!packed) {
            err = MPI_ERR_NO_MEM;
            goto fn_exit;
        }
    }
    for (int s = 1; s < p; s++) {
        int i = (root + s) % p;
        char *dst = contig ? rbuf + (MPI_Aint)i * blk : packed + (size_t)i * bytes;
        AC_CHECK(PMPI_Irecv(dst, (int)f, MPI_BYTE, i, tag, a->comm, &first));
        AC_CHECK(PMPI_Send(NULL, 0, MPI_BYTE, i, tag, a->comm));
        AC_CHECK(PMPI_Irecv(dst + f, (int)(bytes - f), MPI_BYTE, i, tag, a->comm, &req[nreq++]));
        AC_CHECK(PMPI_Wait(&first, MPI_STATUS_IGNORE));
    }
    if (a->sbuf != MPI_IN_PLACE)
        AC_CHECK(ac_dt_copy(a->sbuf, a->scount, a->stype, rbuf + (MPI_Aint)me * blk, a->rcount,
                            a->rtype));
    AC_CHECK(PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    nreq = 0;
    if (packed)
        for (int i = 0; i < p; i++) {
            if (i == me) continue;
            pos = 0;
            AC_CHECK(PMPI_Unpack(packed + (size_t)i * bytes, (int)bytes, &pos,
                                 rbuf + (MPI_Aint)i * blk, a->rcount, a->rtype, a->comm));
        }
fn_exit:
    if (err != MPI_SUCCESS) {
        if (first != MPI_REQUEST_NULL) PMPI_Wait(&first, MPI_STATUS_IGNORE);
        if (nreq > 0) PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    }
    free(req);
    free(packed);
    return err;
}
