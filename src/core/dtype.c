/*
 * Datatype helpers. All byte arithmetic in size_t / MPI_Aint; a (count, type) pair with any type
 * map (vector with gaps, resized, struct) is first class.
 */
#include <stdlib.h>
#include <string.h>
#include "ac.h"

size_t ac_dt_size(MPI_Datatype t) {
    MPI_Count s = 0;
    if (t == MPI_DATATYPE_NULL) return 0; /* the call is then handed to MPI, which reports it */
    PMPI_Type_size_x(t, &s);
    return s > 0 ? (size_t)s : 0;
}

MPI_Aint ac_dt_extent(MPI_Datatype t) {
    MPI_Aint lb = 0, ext = 0;
    if (t == MPI_DATATYPE_NULL) return 0;
    PMPI_Type_get_extent(t, &lb, &ext);
    return ext;
}

size_t ac_dt_span(MPI_Datatype t, size_t count, MPI_Aint *true_lb) {
    MPI_Aint tlb, text, lb, ext;
    PMPI_Type_get_true_extent(t, &tlb, &text);
    PMPI_Type_get_extent(t, &lb, &ext);
    if (true_lb) *true_lb = tlb;
    if (count == 0) return 0;
    /* The last element starts (count-1)*extent after the first; a negative extent is legal. */
    MPI_Aint step = (MPI_Aint)(count - 1) * ext;
    return (size_t)(text + (step < 0 ? -step : step));
}

int ac_dt_is_contig(MPI_Datatype t) {
    MPI_Aint lb, ext, tlb, text;
    PMPI_Type_get_extent(t, &lb, &ext);
    PMPI_Type_get_true_extent(t, &tlb, &text);
    return lb == 0 && tlb == 0 && ext == text && (size_t)ext == ac_dt_size(t);
}

void *ac_dt_alloc(MPI_Datatype t, size_t count, void **base) {
    MPI_Aint tlb;
    size_t span = ac_dt_span(t, count, &tlb);
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(t, &lb, &ext);
    if (ext < 0 && count > 1) tlb += (MPI_Aint)(count - 1) * ext; /* lowest byte touched */
    *base = malloc(span ? span : 1);
    if (!*base) return NULL;
    return (char *)*base - tlb;
}

int ac_dt_copy(const void *src, int scount, MPI_Datatype stype, void *dst, int dcount,
               MPI_Datatype dtype) {
    if (scount == 0 || dcount == 0 || src == dst) return MPI_SUCCESS;
    if (stype == dtype && scount == dcount && ac_dt_is_contig(stype)) {
        memcpy(dst, src, (size_t)scount * ac_dt_size(stype));
        return MPI_SUCCESS;
    }
    /* Any two type maps with the same signature: a message to self moves exactly the typed
     * elements, with no size limit of a pack buffer. */
    return PMPI_Sendrecv(src, scount, stype, 0, 0, dst, dcount, dtype, 0, 0, MPI_COMM_SELF,
                         MPI_STATUS_IGNORE);
}
