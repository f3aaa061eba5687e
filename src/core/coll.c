/*
 * What the library knows of each collective (the list include/autocoll_colls.def) and of each
 * restriction (the catalogue src/core/restrictions.def), and the public functions built on them.
 * Nothing here depends on the algorithms: the registry (src/select) and the tools use these.
 */
#include <stdio.h>
#include <string.h>
#include "ac.h"

#define AC_SIZE_R 0
#define AC_SIZE_S 1
static const struct {
    const char *name, *mpi_name;
    int rooted, reduces, size, side;
} colls[AUTOCOLL_NCOLL] = {
#define AC_COLL(ID, NAME, ROOTED, REDUCES, SIZE, SIDE, FN)                                         \
    [AUTOCOLL_##ID] = {#NAME, #FN, ROOTED, REDUCES, AUTOCOLL_SIZE_##SIZE, AC_SIZE_##SIDE},
#include "autocoll_colls.def"
#undef AC_COLL
};

const char *ac_coll_name(int coll) {
    return (coll >= 0 && coll < AUTOCOLL_NCOLL) ? colls[coll].name : NULL;
}

int ac_coll_from_name(const char *name) {
    for (int c = 0; name && c < AUTOCOLL_NCOLL; c++)
        if (strcmp(colls[c].name, name) == 0) return c;
    return -1;
}

int ac_coll_rooted(int coll) {
    return coll >= 0 && coll < AUTOCOLL_NCOLL && colls[coll].rooted;
}

int ac_coll_reduces(int coll) {
    return coll >= 0 && coll < AUTOCOLL_NCOLL && colls[coll].reduces;
}

static size_t sum_counts(const int *c, int n) {
    size_t s = 0;
    if (!c) return 0;
    for (int i = 0; i < n; i++)
        s += c[i] > 0 ? (size_t)c[i] : 0;
    return s;
}

/* The selection size of a call (docs/tuning-table.md), from its kind in autocoll_colls.def. */
static size_t ac_coll_bytes(const ac_args_t *a, int *local) {
    *local = 0;
    switch (colls[a->coll].size) {
    case AUTOCOLL_SIZE_BLOCK: {
        /* the root counts one block of its side; the other ranks count theirs, on the other */
        int recv = colls[a->coll].side == AC_SIZE_R;
        if (colls[a->coll].rooted && a->rank != a->root) recv = !recv;
        return recv ? (size_t)a->rcount * ac_dt_size(a->rtype)
                    : (size_t)a->scount * ac_dt_size(a->stype);
    }
    case AUTOCOLL_SIZE_TOTAL:
        return sum_counts(a->rcounts, a->size) * ac_dt_size(a->rtype);
    case AUTOCOLL_SIZE_BUFFER:
        return (size_t)a->rcount * ac_dt_size(a->rtype);
    case AUTOCOLL_SIZE_LOCAL:
        *local = 1;
        return a->inplace ? sum_counts(a->rcounts, a->size) * ac_dt_size(a->rtype)
                          : sum_counts(a->scounts, a->size) * ac_dt_size(a->stype);
    default:
        return 0;
    }
}

/* ---------------------------------------------------------------- the argument record
 *
 * Completion of the argument record: in-place flag, commutativity and the selection size.
 *
 * The selection size `bytes` must be identical on every rank (DESIGN.md, agreement), so it is
 * defined per collective from arguments that MPI requires to match (the size column of
 * autocoll_colls.def, computed by ac_coll_bytes above):
 *   allgather, alltoall            bytes of one block (recvcount x size(recvtype))
 *   allgatherv, reduce_scatter     total bytes of the result vector (sum of recvcounts)
 *   reduce_scatter_block           bytes of one block
 *   bcast, reduce, allreduce       bytes of the buffer
 *   gather, scatter                bytes of one block (root: its recv/send side; others: theirs)
 *   barrier                        0
 *   alltoallv                      this rank's send bytes; differs between ranks, so bytes_local
 *                                  is set and nothing may be selected on it.
 */

/* Reproducible mode (docs/reproducible.md): which reductions give different bits when their
 * contributions are combined in another order. Integer (and logical) sums and products are exact
 * in any order, as are the minimum, maximum, bitwise, logical and location operations; a sum or
 * product of anything else (floating-point and complex types, or a derived type, which MPI does
 * not define for predefined operations: counted in, to be safe) and every user-defined operation
 * depend on the order. */
static int order_sensitive(MPI_Op o, MPI_Datatype t) {
    if (o == MPI_MAX || o == MPI_MIN || o == MPI_BAND || o == MPI_BOR || o == MPI_BXOR ||
        o == MPI_LAND || o == MPI_LOR || o == MPI_LXOR || o == MPI_MAXLOC || o == MPI_MINLOC ||
        o == MPI_REPLACE || o == MPI_NO_OP)
        return 0;
    if (o != MPI_SUM && o != MPI_PROD) return 1; /* user-defined */
    const MPI_Datatype exact[] = {
        MPI_CHAR,    MPI_SIGNED_CHAR,    MPI_UNSIGNED_CHAR, MPI_BYTE,
        MPI_SHORT,   MPI_UNSIGNED_SHORT, MPI_INT,           MPI_UNSIGNED,
        MPI_LONG,    MPI_UNSIGNED_LONG,  MPI_LONG_LONG,     MPI_UNSIGNED_LONG_LONG,
        MPI_INT8_T,  MPI_INT16_T,        MPI_INT32_T,       MPI_INT64_T,
        MPI_UINT8_T, MPI_UINT16_T,       MPI_UINT32_T,      MPI_UINT64_T,
        MPI_WCHAR,   MPI_AINT,           MPI_OFFSET,        MPI_COUNT,
        MPI_C_BOOL,  MPI_INTEGER,        MPI_LOGICAL};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (t == exact[i] && t != MPI_DATATYPE_NULL) return 0;
    return 1;
}

int ac_op_predefined(MPI_Op o) {
    static const MPI_Op pre[] = {MPI_SUM,  MPI_MAX,  MPI_MIN, MPI_PROD, MPI_BAND,   MPI_BOR,
                                 MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_MAXLOC, MPI_MINLOC};
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
        if (o == pre[i]) return 1;
    return 0;
}

void ac_args_finish(ac_args_t *a) {
    /* MPI_IN_PLACE is the send buffer everywhere except scatter, where the root passes it as the
     * receive buffer. For rooted collectives only the root knows: nothing selects on it. */
    a->inplace = a->coll == AUTOCOLL_SCATTER ? a->rbuf == MPI_IN_PLACE : a->sbuf == MPI_IN_PLACE;
    a->commutative = 1;
    /* The predefined operations are commutative: no call for them (the common ones first). */
    MPI_Op o = a->op;
    if (colls[a->coll].reduces && o != MPI_OP_NULL && o != 0 && !ac_op_predefined(o))
        PMPI_Op_commutative(o, &a->commutative);
    a->fixed_order =
        ac_g.set.reproducible && colls[a->coll].reduces && order_sensitive(o, a->rtype);
    a->bytes = ac_coll_bytes(a, &a->bytes_local);
}

int ac_dbl_cmp(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

size_t ac_size_class(size_t bytes) {
    size_t c = 1;
    if (bytes == 0) return 0;
    while (c <= bytes / 2)
        c *= 2;
    return c;
}

AC_EXPORT const char *autocoll_coll_name(int coll) {
    return ac_coll_name(coll);
}
AC_EXPORT int autocoll_coll_from_name(const char *name) {
    return ac_coll_from_name(name);
}

AC_EXPORT int autocoll_coll_info(int coll, autocoll_coll_info_t *info) {
    if (coll < 0 || coll >= AUTOCOLL_NCOLL || !info) return MPI_ERR_ARG;
    info->name = colls[coll].name;
    info->mpi_name = colls[coll].mpi_name;
    info->rooted = colls[coll].rooted;
    info->reduces = colls[coll].reduces;
    info->size = colls[coll].size;
    return MPI_SUCCESS;
}

AC_EXPORT unsigned long long autocoll_selection_size(int coll, unsigned long long block, int p) {
    if (coll < 0 || coll >= AUTOCOLL_NCOLL) return 0;
    switch (colls[coll].size) {
    case AUTOCOLL_SIZE_NONE:
        return 0;
    case AUTOCOLL_SIZE_TOTAL:
    case AUTOCOLL_SIZE_LOCAL:
        return block * (unsigned long long)(p > 0 ? p : 0);
    default:
        return block;
    }
}

/* ---------------------------------------------------------------- restrictions */

static const struct {
    unsigned flag;
    const char *name, *reason;
} restr[] = {
#define AC_RESTR(FLAG, HOLDS, REASON) {AUTOCOLL_R_##FLAG, #FLAG, REASON},
#include "restrictions.def"
#undef AC_RESTR
};
enum { AC_NRESTR = sizeof restr / sizeof restr[0] };

const char *ac_restriction_reason(unsigned flags, const autocoll_situation_t *s) {
#define AC_RESTR(FLAG, HOLDS, REASON)                                                              \
    if ((flags & AUTOCOLL_R_##FLAG) && !(HOLDS)) return REASON;
#include "restrictions.def"
#undef AC_RESTR
    return NULL;
}

AC_EXPORT const char *autocoll_restriction_reason(unsigned restrictions,
                                                  const autocoll_situation_t *s) {
    return s ? ac_restriction_reason(restrictions, s) : "no situation given";
}

AC_EXPORT const char *autocoll_restriction_text(unsigned flag) {
    for (int i = 0; i < AC_NRESTR; i++)
        if (restr[i].flag == flag) return restr[i].reason;
    return NULL;
}

AC_EXPORT int autocoll_restrictions_string(unsigned r, char *buf, int len) {
    if (!buf || len <= 0) return MPI_ERR_ARG;
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned b = 0; b < 32; b++) /* in bit order */
        for (int i = 0; i < AC_NRESTR; i++)
            if ((r & (1u << b)) && restr[i].flag == 1u << b)
                used += (size_t)snprintf(buf + used, used < (size_t)len ? (size_t)len - used : 0,
                                         "%s%s", used ? "|" : "", restr[i].name);
    if (!used) snprintf(buf, (size_t)len, "-");
    return MPI_SUCCESS;
}
