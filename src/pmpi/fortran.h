/*
 * What the Fortran entry points share (src/pmpi/fortran.c: collectives and life cycle;
 * src/pmpi/fortran_p2p.c: point-to-point; docs/fortran.md).
 */
#ifndef AC_PMPI_FORTRAN_H
#define AC_PMPI_FORTRAN_H

#include "pmpi.h"

/* The Fortran program's call site while a Fortran entry point runs the library's own C
 * point-to-point entry (trace_p2p.c records it instead of its caller's address), else NULL. */
extern _Thread_local const void *ac_fortran_site;

#if (defined(OMPI_MAJOR_VERSION) || defined(MPICH_VERSION)) && !defined(AC_SMPI)

typedef MPI_Fint fint;

#define WEAK __attribute__((weak))
#define SITE __builtin_return_address(0) /* the Fortran program's call site */

/* One function per entry point; every spelling is an alias of it. */
#define ALIAS(name, impl) AC_EXPORT __typeof__(impl) name __attribute__((alias(#impl)));
#define F77(lower, upper, impl)                                                                    \
    ALIAS(lower##_, impl) ALIAS(lower##__, impl) ALIAS(lower, impl) ALIAS(upper, impl)

/* 1 when the MPI library's own Fortran entry point must run the call (finalized, or the MPI's
 * Fortran sentinels not found: a dormant build). */
int ac_fortran_native(void);
/* A Fortran buffer argument: MPI_BOTTOM turned into the C constant. */
void *ac_fortran_buf(void *p);

static inline void ac_fortran_ierr(fint *ierr, int err) {
    if (ierr) *ierr = (fint)err; /* optional in mpi_f08 */
}

#endif
#endif
