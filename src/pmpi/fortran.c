/*
 * Fortran entry points (docs/fortran.md). Open MPI's Fortran bindings (mpif.h, use mpi, mpi_f08)
 * call PMPI_* directly, and so do MPICH's mpi_f08 MPI_Barrier, MPI_Init, MPI_Init_thread and
 * MPI_Finalize: a Fortran program would bypass the MPI_* entry points of wrappers.c. The entry
 * points here take the Fortran arguments (everything by reference, handles as MPI_Fint), turn
 * the MPI's Fortran sentinels MPI_IN_PLACE and MPI_BOTTOM into the C ones, and call the
 * library's own MPI_<Coll> (wrappers.c), so that a Fortran call goes exactly the way of a C
 * call; the Fortran ierror gets the result.
 *
 * Symbols: mpif.h and `use mpi` in the four spellings of Fortran compilers (mpi_allreduce_,
 * mpi_allreduce__, mpi_allreduce, MPI_ALLREDUCE); `use mpi_f08`: Open MPI's mpi_<coll>_f08_
 * (the same arguments, ierror optional: a null pointer when absent). MPICH's f08 collectives
 * with a buffer take compiler-specific array descriptors and call the C MPI_<Coll> themselves
 * (intercepted by wrappers.c): only its f08 MPI_Barrier and life cycle are here.
 *
 * The MPI's own Fortran entry (pmpi_<coll>_, weak) runs the call instead when the library is
 * dormant (a build for the other MPI family, see abi_guard in wrappers.c) or finalized, and
 * when the MPI's sentinels cannot be found. The point-to-point calls are in fortran_p2p.c, with
 * the helpers of fortran.h. MPI_INIT runs the MPI's own Fortran MPI_INIT
 * (MPICH records its sentinels there), then the library's set-up; MPI_FINALIZE the library's
 * teardown, then the MPI's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include "fortran.h"

#if (defined(OMPI_MAJOR_VERSION) || defined(MPICH_VERSION)) && !defined(AC_SMPI)

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "count arrays are passed on as int arrays");

/* ---------------------------------------------------------------- sentinels */

#if defined(OMPI_MAJOR_VERSION)
/* Open MPI: common blocks (mpif.h, use mpi) or BIND(C) variables (mpi_f08) of these names,
 * defined by libmpi and the Fortran program; their addresses are the sentinels. */
extern int mpi_fortran_in_place_ WEAK, mpi_fortran_in_place__ WEAK, mpi_fortran_in_place WEAK,
    MPI_FORTRAN_IN_PLACE WEAK;
extern int mpi_fortran_bottom_ WEAK, mpi_fortran_bottom__ WEAK, mpi_fortran_bottom WEAK,
    MPI_FORTRAN_BOTTOM WEAK;

static int sentinels_known(void) {
    return &mpi_fortran_in_place_ || &mpi_fortran_in_place__ || &mpi_fortran_in_place ||
           &MPI_FORTRAN_IN_PLACE;
}
static int is_in_place(const void *p) {
    return p && (p == &mpi_fortran_in_place_ || p == &mpi_fortran_in_place__ ||
                 p == &mpi_fortran_in_place || p == &MPI_FORTRAN_IN_PLACE);
}
static int is_bottom(const void *p) {
    return p && (p == &mpi_fortran_bottom_ || p == &mpi_fortran_bottom__ ||
                 p == &mpi_fortran_bottom || p == &MPI_FORTRAN_BOTTOM);
}
#else
/* MPICH (libmpichfort): pointers to the common block MPIPRIV1 that its Fortran MPI_INIT (or
 * its first Fortran call, MPIR_F_NeedInit) records with mpirinitf_. */
extern void *MPIR_F_MPI_IN_PLACE WEAK, *MPIR_F_MPI_BOTTOM WEAK;
extern int MPIR_F_NeedInit WEAK;
extern void mpirinitf_(void) WEAK;

static int sentinels_known(void) {
    if (!&MPIR_F_MPI_IN_PLACE || !&MPIR_F_MPI_BOTTOM) return 0;
    if (&MPIR_F_NeedInit && MPIR_F_NeedInit && mpirinitf_) { /* as MPICH's own entry points */
        mpirinitf_();
        MPIR_F_NeedInit = 0;
    }
    return 1;
}
static int is_in_place(const void *p) {
    return p && p == MPIR_F_MPI_IN_PLACE;
}
static int is_bottom(const void *p) {
    return p && p == MPIR_F_MPI_BOTTOM;
}
#endif

/* A buffer argument where MPI_IN_PLACE is allowed, and one where only MPI_BOTTOM is. */
static void *f2c_inplace(void *p) {
    return is_in_place(p) ? MPI_IN_PLACE : is_bottom(p) ? MPI_BOTTOM : p;
}
static void *f2c_buf(void *p) {
    return is_bottom(p) ? MPI_BOTTOM : p;
}

/* 1 when the MPI library's own Fortran entry point must run the call. */
static int native(void) {
    return ac_g.finalized || !sentinels_known();
}

int ac_fortran_native(void) {
    return native();
}
void *ac_fortran_buf(void *p) {
    return f2c_buf(p);
}

#define set_ierr ac_fortran_ierr

/* ---------------------------------------------------------------- collectives
 * Each: the MPI's Fortran PMPI entry (weak: null when absent), the implementation, its names. */

void pmpi_allgather_(void *, fint *, fint *, void *, fint *, fint *, fint *, fint *) WEAK;
static void f_allgather(void *sb, fint *sc, fint *st, void *rb, fint *rc, fint *rt, fint *comm,
                        fint *ierr) {
    if (native() && pmpi_allgather_) {
        fint e = MPI_SUCCESS;
        pmpi_allgather_(sb, sc, st, rb, rc, rt, comm, &e);
        set_ierr(ierr, e);
        return;
    }
    set_ierr(ierr, ac_call_allgather(f2c_inplace(sb), *sc, PMPI_Type_f2c(*st), f2c_buf(rb), *rc,
                                     PMPI_Type_f2c(*rt), PMPI_Comm_f2c(*comm), SITE));
}
F77(mpi_allgather, MPI_ALLGATHER, f_allgather)

void pmpi_allgatherv_(void *, fint *, fint *, void *, fint *, fint *, fint *, fint *, fint *) WEAK;
static void f_allgatherv(void *sb, fint *sc, fint *st, void *rb, fint *rcs, fint *dis, fint *rt,
                         fint *comm, fint *ierr) {
    if (native() && pmpi_allgatherv_) {
        fint e = MPI_SUCCESS;
        pmpi_allgatherv_(sb, sc, st, rb, rcs, dis, rt, comm, &e);
        set_ierr(ierr, e);
        return;
    }
    set_ierr(ierr, ac_call_allgatherv(f2c_inplace(sb), *sc, PMPI_Type_f2c(*st), f2c_buf(rb), rcs,
                                      dis, PMPI_Type_f2c(*rt), PMPI_Comm_f2c(*comm), SITE));
}
F77(mpi_allgatherv, MPI_ALLGATHERV, f_allgatherv)

void pmpi_alltoall_(void *, fint *, fint *, void *, fint *, fint *, fint *, fint *) WEAK;
static void f_alltoall(void *sb, fint *sc, fint *st, void *rb, fint *rc, fint *rt, fint *comm,
                       fint *ierr) {
    if (native() && pmpi_alltoall_) {
        fint e = MPI_SUCCESS;
        pmpi_alltoall_(sb, sc, st, rb, rc, rt, comm, &e);
        set_ierr(ierr, e);
        return;
    }
    set_ierr(ierr, ac_call_alltoall(f2c_inplace(sb), *sc, PMPI_Type_f2c(*st), f2c_buf(rb), *rc,
                                    PMPI_Type_f2c(*rt), PMPI_Comm_f2c(*comm), SITE));
}
F77(mpi_alltoall, MPI_ALLTOALL, f_alltoall)

void pmpi_alltoallv_(void *, fint *, fint *, fint *, void *, fint *, fint *, fint *, fint *,
                     fint *) WEAK;
static void f_alltoallv(void *sb, fint *scs, fint *sds, fint *st, void *rb, fint *rcs, fint *rds,
                        fint *rt, fint *comm, fint *ierr) {
    if (native() && pmpi_alltoallv_) {
        fint e = MPI_SUCCESS;
        pmpi_alltoallv_(sb, scs, sds, st, rb, rcs, rds, rt, comm, &e);
        set_ierr(ierr, e);
        return;
    }
    set_ierr(ierr, ac_call_alltoallv(f2c_inplace(sb), scs, sds, PMPI_Type_f2c(*st), f2c_buf(rb),
                                     rcs, rds, PMPI_Type_f2c(*rt), PMPI_Comm_f2c(*comm), SITE));
}
F77(mpi_alltoallv, MPI_ALLTOALLV, f_alltoallv)

void pmpi_bcast_(void *, fint *, fint *, fint *, fint *, fint *) WEAK;
static void f_bcast(void *buf, fint *n, fint *t, fint *root, fint *comm, fint *ierr) {
    if (native() && pmpi_bcast_) {
        fint e = MPI_SUCCESS;
        pmpi_bcast_(buf, n, t, root, comm, &e);
        set_ierr(ierr, e);
        return;
    }
    set_ierr(ierr,
             ac_call_bcast(f2c_buf(buf), *n, PMPI_Type_f2c(*t), *root, PMPI_Comm_f2c(*comm), SITE));
}
F77(mpi_bcast, MPI_BCAST, f_bcast)

void pmpi_reduce_(void *, void *, fint *, fint *, fint *, fint *, fint *, fint *) WEAK;
static void f_reduce(void *sb, void *rb, fint *n, fint *t, fint *op, fint *root, fint *comm,
                     fint *ierr) {
    if (native() && pmpi_reduce_) {
        fint e = MPI_SUCCESS;
        pmpi_reduce_(sb, rb, n, t, op, root, comm, &e);
        set_ierr(ierr, e);
        return;
    }
    set_ierr(ierr, ac_call_reduce(f2c_inplace(sb), f2c_buf(rb), *n, PMPI_Type_f2c(*t),
                                  PMPI_Op_f2c(*op), *root, PMPI_Comm_f2c(*comm), SITE));
}
F77(mpi_reduce, MPI_REDUCE, f_reduce)

void pmpi_allreduce_(void *, void *, fint *, fint *, fint *, fint *, fint *) WEAK;
static void f_allreduce(void *sb, void *rb, fint *n, fint *t, fint *op, fint *comm, fint *ierr) {
    if (native() && pmpi_allreduce_) {
        fint e = MPI_SUCCESS;
        pmpi_allreduce_(sb, rb, n, t, op, comm, &e);
        set_ierr(ierr, e);
        return;
    }
    set_ierr(ierr, ac_call_allreduce(f2c_inplace(sb), f2c_buf(rb), *n, PMPI_Type_f2c(*t),
                                     PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm), SITE));
}
F77(mpi_allreduce, MPI_ALLREDUCE, f_allreduce)

void pmpi_reduce_scatter_(void *, void *, fint *, fint *, fint *, fint *, fint *) WEAK;
static void f_reduce_scatter(void *sb, void *rb, fint *rcs, fint *t, fint *op, fint *comm,
                             fint *ierr) {
    if (native() && pmpi_reduce_scatter_) {
        fint e = MPI_SUCCESS;
        pmpi_reduce_scatter_(sb, rb, rcs, t, op, comm, &e);
        set_ierr(ierr, e);
        return;
    }
    set_ierr(ierr, ac_call_reduce_scatter(f2c_inplace(sb), f2c_buf(rb), rcs, PMPI_Type_f2c(*t),
                                          PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm), SITE));
}
F77(mpi_reduce_scatter, MPI_REDUCE_SCATTER, f_reduce_scatter)

void pmpi_reduce_scatter_block_(void *, void *, fint *, fint *, fint *, fint *, fint *) WEAK;
static void f_reduce_scatter_block(void *sb, void *rb, fint *rc, fint *t, fint *op, fint *comm,
                                   fint *ierr) {
    if (native() && pmpi_reduce_scatter_block_) {
        fint e = MPI_SUCCESS;
        pmpi_reduce_scatter_block_(sb, rb, rc, t, op, comm, &e);
        set_ierr(ierr, e);
        return;
    }
    set_ierr(ierr,
             ac_call_reduce_scatter_block(f2c_inplace(sb), f2c_buf(rb), *rc, PMPI_Type_f2c(*t),
                                          PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm), SITE));
}
F77(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK, f_reduce_scatter_block)

void pmpi_gather_(void *, fint *, fint *, void *, fint *, fint *, fint *, fint *, fint *) WEAK;
static void f_gather(void *sb, fint *sc, fint *st, void *rb, fint *rc, fint *rt, fint *root,
                     fint *comm, fint *ierr) {
    if (native() && pmpi_gather_) {
        fint e = MPI_SUCCESS;
        pmpi_gather_(sb, sc, st, rb, rc, rt, root, comm, &e);
        set_ierr(ierr, e);
        return;
    }
    set_ierr(ierr, ac_call_gather(f2c_inplace(sb), *sc, PMPI_Type_f2c(*st), f2c_buf(rb), *rc,
                                  PMPI_Type_f2c(*rt), *root, PMPI_Comm_f2c(*comm), SITE));
}
F77(mpi_gather, MPI_GATHER, f_gather)

void pmpi_scatter_(void *, fint *, fint *, void *, fint *, fint *, fint *, fint *, fint *) WEAK;
static void f_scatter(void *sb, fint *sc, fint *st, void *rb, fint *rc, fint *rt, fint *root,
                      fint *comm, fint *ierr) {
    if (native() && pmpi_scatter_) {
        fint e = MPI_SUCCESS;
        pmpi_scatter_(sb, sc, st, rb, rc, rt, root, comm, &e);
        set_ierr(ierr, e);
        return;
    }
    /* MPI_IN_PLACE is the root's receive buffer here. */
    set_ierr(ierr, ac_call_scatter(f2c_buf(sb), *sc, PMPI_Type_f2c(*st), f2c_inplace(rb), *rc,
                                   PMPI_Type_f2c(*rt), *root, PMPI_Comm_f2c(*comm), SITE));
}
F77(mpi_scatter, MPI_SCATTER, f_scatter)

void pmpi_barrier_(fint *, fint *) WEAK;
static void f_barrier(fint *comm, fint *ierr) {
    if (ac_g.finalized && pmpi_barrier_) { /* no buffer: the sentinels do not matter */
        fint e = MPI_SUCCESS;
        pmpi_barrier_(comm, &e);
        set_ierr(ierr, e);
        return;
    }
    set_ierr(ierr, ac_call_barrier(PMPI_Comm_f2c(*comm), SITE));
}
F77(mpi_barrier, MPI_BARRIER, f_barrier)

/* ---------------------------------------------------------------- life cycle */

typedef void init_fn(fint *ierr);
typedef void init_thread_fn(fint *required, fint *provided, fint *ierr);
typedef void finalize_fn(fint *ierr);

/* The MPI's Fortran MPI_INIT (entry, or the C one when the MPI has none we know of), then the
 * library's set-up: MPICH's Fortran MPI_INIT calls the C MPI_Init of wrappers.c, which has then
 * set the library up already. */
static void init_with(init_fn *entry, fint *ierr) {
    ac_abi_guard();
    fint e;
    if (entry) {
        e = MPI_SUCCESS;
        entry(&e);
    } else {
        e = PMPI_Init(NULL, NULL);
    }
    if (e == MPI_SUCCESS && !ac_g.initialized) {
        ac_g.thread_level = MPI_THREAD_SINGLE;
        ac_setup(1);
    }
    set_ierr(ierr, e);
}

static void init_thread_with(init_thread_fn *entry, fint *required, fint *provided, fint *ierr) {
    ac_abi_guard();
    fint e;
    if (entry) {
        e = MPI_SUCCESS;
        entry(required, provided, &e);
    } else {
        int prov = MPI_THREAD_SINGLE;
        e = PMPI_Init_thread(NULL, NULL, *required, &prov);
        *provided = prov;
    }
    if (e == MPI_SUCCESS && !ac_g.initialized) {
        ac_g.thread_level = *provided;
        ac_setup(1);
    }
    set_ierr(ierr, e);
}

static void finalize_with(finalize_fn *entry, fint *ierr) {
    ac_teardown();
    fint e;
    if (entry) {
        e = MPI_SUCCESS;
        entry(&e);
    } else {
        e = PMPI_Finalize();
    }
    set_ierr(ierr, e);
}

void pmpi_init_(fint *) WEAK;
void pmpi_init_thread_(fint *, fint *, fint *) WEAK;
void pmpi_finalize_(fint *) WEAK;

static void f_init(fint *ierr) {
    init_with(pmpi_init_, ierr);
}
F77(mpi_init, MPI_INIT, f_init)

static void f_init_thread(fint *required, fint *provided, fint *ierr) {
    init_thread_with(pmpi_init_thread_, required, provided, ierr);
}
F77(mpi_init_thread, MPI_INIT_THREAD, f_init_thread)

static void f_finalize(fint *ierr) {
    finalize_with(pmpi_finalize_, ierr);
}
F77(mpi_finalize, MPI_FINALIZE, f_finalize)

/* ---------------------------------------------------------------- mpi_f08 */

#if defined(OMPI_MAJOR_VERSION)
/* Open MPI's mpi_f08 procedures: buffers as addresses (assumed-size, no descriptor), handles as
 * TYPE(MPI_Comm) etc. by reference (one INTEGER MPI_VAL: the Fortran handle), ierror optional:
 * the arguments of the mpif.h entry points, which accept a null ierror. */
ALIAS(mpi_allgather_f08_, f_allgather)
ALIAS(mpi_allgatherv_f08_, f_allgatherv)
ALIAS(mpi_alltoall_f08_, f_alltoall)
ALIAS(mpi_alltoallv_f08_, f_alltoallv)
ALIAS(mpi_bcast_f08_, f_bcast)
ALIAS(mpi_reduce_f08_, f_reduce)
ALIAS(mpi_allreduce_f08_, f_allreduce)
ALIAS(mpi_reduce_scatter_f08_, f_reduce_scatter)
ALIAS(mpi_reduce_scatter_block_f08_, f_reduce_scatter_block)
ALIAS(mpi_gather_f08_, f_gather)
ALIAS(mpi_scatter_f08_, f_scatter)
ALIAS(mpi_barrier_f08_, f_barrier)
/* Its f08 life cycle (libmpi_usempif08). */
void pmpi_init_f08_(fint *) WEAK;
void pmpi_init_thread_f08_(fint *, fint *, fint *) WEAK;
void pmpi_finalize_f08_(fint *) WEAK;
#define F08_INIT (pmpi_init_f08_ ? pmpi_init_f08_ : pmpi_init_)
#define F08_INIT_THREAD (pmpi_init_thread_f08_ ? pmpi_init_thread_f08_ : pmpi_init_thread_)
#define F08_FINALIZE (pmpi_finalize_f08_ ? pmpi_finalize_f08_ : pmpi_finalize_)
#else
/* MPICH's mpi_f08: the collectives with a buffer (mpi_<coll>_f08ts_) receive the compiler's
 * array descriptors and call the C MPI_<Coll>, which wrappers.c intercepts; MPI_Barrier
 * (comm by reference, ierror optional) calls PMPI_Barrier and is taken here. */
ALIAS(mpi_barrier_f08_, f_barrier)
/* Its f08 life cycle calls PMPI_Init, PMPI_Init_thread and PMPI_Finalize (libmpichfort 4.0
 * names its profiling entries pmpir_<name>_f08_). */
void pmpir_init_f08_(fint *) WEAK;
void pmpir_init_thread_f08_(fint *, fint *, fint *) WEAK;
void pmpir_finalize_f08_(fint *) WEAK;
#define F08_INIT (pmpir_init_f08_ ? pmpir_init_f08_ : pmpi_init_)
#define F08_INIT_THREAD (pmpir_init_thread_f08_ ? pmpir_init_thread_f08_ : pmpi_init_thread_)
#define F08_FINALIZE (pmpir_finalize_f08_ ? pmpir_finalize_f08_ : pmpi_finalize_)
#endif

AC_EXPORT void mpi_init_f08_(fint *ierr) {
    init_with(F08_INIT, ierr);
}
AC_EXPORT void mpi_init_thread_f08_(fint *required, fint *provided, fint *ierr) {
    init_thread_with(F08_INIT_THREAD, required, provided, ierr);
}
AC_EXPORT void mpi_finalize_f08_(fint *ierr) {
    finalize_with(F08_FINALIZE, ierr);
}

#else
typedef int ac_fortran_none; /* neither Open MPI nor MPICH (SMPI): no Fortran entry points */
#endif
