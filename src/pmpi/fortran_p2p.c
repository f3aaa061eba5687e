/*
 * Fortran entry points of the point-to-point calls that trace_p2p.c and prepost.c wrap in C
 * (docs/fortran.md): sends (MPI_SEND, BSEND, SSEND, RSEND, ISEND, IBSEND, ISSEND, IRSEND),
 * MPI_RECV, IRECV, SENDRECV, SENDRECV_REPLACE, the waits and tests (WAIT, WAITALL, WAITANY,
 * WAITSOME, TEST, TESTALL, TESTANY, TESTSOME), the probes (PROBE, IPROBE, MPROBE, IMPROBE),
 * MPI_MRECV, IMRECV, the persistent requests (SEND_INIT, BSEND_INIT, SSEND_INIT, RSEND_INIT,
 * RECV_INIT, START, STARTALL) and MPI_REQUEST_FREE: seed 004's events (spec
 * predictors-latency.md §2.1) from Fortran programs, and receive pre-posting (§4.4) for them.
 * Cost: a handle conversion per argument (O(1)), O(n) for an array of n requests or statuses,
 * plus the C entry point's own.
 *
 * Why (the table of docs/fortran.md): Open MPI's Fortran bindings (mpif.h, use mpi, mpi_f08)
 * call PMPI_Send etc. directly, so a Fortran program would be neither traced nor served by
 * receive pre-posting. MPICH's mpif.h / use mpi routines and its mpi_f08 routines with a buffer
 * (mpi_send_f08ts_, ...) call the C MPI_Send etc. and reach trace_p2p.c already; its mpi_f08
 * routines without a buffer (waits, tests, probes, starts, MPI_Request_free) call PMPI_* and are
 * taken here under their f08 names only.
 *
 * Each entry point converts the Fortran arguments and calls the library's own C MPI_<name>
 * (trace_p2p.c), with the Fortran program's return address in ac_fortran_site so that the
 * trace names the Fortran call site:
 *  - handles (MPI_Fint) through PMPI_Comm_f2c, Type_f2c, Request_f2c/c2f, Message_f2c/c2f;
 *    request arrays element by element (up to NSTACK on the stack, else malloc: O(n) per call)
 *    and written back after the call, so completed nonpersistent requests become the Fortran
 *    MPI_REQUEST_NULL and persistent ones keep their handle;
 *  - statuses (INTEGER arrays of MPI_STATUS_SIZE = sizeof(MPI_Status) / sizeof(MPI_Fint), and
 *    mpi_f08's TYPE(MPI_Status), the same layout) through PMPI_Status_c2f; the Fortran
 *    MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE become the C ones: Open MPI's common blocks
 *    mpi_fortran_status(es)_ignore_ (four spellings, weak) and MPI_F_STATUS(ES)_IGNORE, MPICH's
 *    f08 MPI_F08_STATUS(ES)_IGNORE;
 *  - buffers: Fortran MPI_BOTTOM becomes the C one (ac_fortran_buf);
 *  - indices are 1-based in Fortran (WAITANY, TESTANY, WAITSOME, TESTSOME), MPI_UNDEFINED kept;
 *    LOGICAL flags are written as 1 / 0 (true for gfortran, flang, ifort's low-bit rule);
 *  - ierror gets the result (optional in mpi_f08: a null pointer when absent).
 * The MPI's own Fortran routine (weak) runs the call instead when ac_fortran_native() says so
 * (finalized, or a dormant build), as in fortran.c.
 */
#include <stdlib.h>
#include "fortran.h"

#if (defined(OMPI_MAJOR_VERSION) || defined(MPICH_VERSION)) && !defined(AC_SMPI)

_Static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0, "a status is a whole number of "
                                                           "Fortran integers");
enum { FSTAT = sizeof(MPI_Status) / sizeof(MPI_Fint), NSTACK = 16 };

/* ---------------------------------------------------------------- sentinels */

#if defined(OMPI_MAJOR_VERSION)
extern int mpi_fortran_status_ignore_ WEAK, mpi_fortran_status_ignore__ WEAK,
    mpi_fortran_status_ignore WEAK, MPI_FORTRAN_STATUS_IGNORE WEAK;
extern int mpi_fortran_statuses_ignore_ WEAK, mpi_fortran_statuses_ignore__ WEAK,
    mpi_fortran_statuses_ignore WEAK, MPI_FORTRAN_STATUSES_IGNORE WEAK;
static int st_ignore(const void *p) {
    return p == MPI_F_STATUS_IGNORE || p == &mpi_fortran_status_ignore_ ||
           p == &mpi_fortran_status_ignore__ || p == &mpi_fortran_status_ignore ||
           p == &MPI_FORTRAN_STATUS_IGNORE;
}
static int sts_ignore(const void *p) {
    return p == MPI_F_STATUSES_IGNORE || p == &mpi_fortran_statuses_ignore_ ||
           p == &mpi_fortran_statuses_ignore__ || p == &mpi_fortran_statuses_ignore ||
           p == &MPI_FORTRAN_STATUSES_IGNORE;
}
#else
/* MPICH: only its mpi_f08 routines come here; MPI_F08_STATUS_IGNORE is the address of the
 * Fortran MPI_STATUS_IGNORE object. */
static int st_ignore(const void *p) {
    return !p || p == (const void *)MPI_F08_STATUS_IGNORE;
}
static int sts_ignore(const void *p) {
    return !p || p == (const void *)MPI_F08_STATUSES_IGNORE;
}
#endif

/* ---------------------------------------------------------------- conversions */

/* The C status to pass for Fortran status f (own, or MPI_STATUS_IGNORE). */
static MPI_Status *cst(const fint *f, MPI_Status *own) {
    return st_ignore(f) ? MPI_STATUS_IGNORE : own;
}
static void st_out(fint *f, const MPI_Status *c) {
    if (c != MPI_STATUS_IGNORE) PMPI_Status_c2f(c, f);
}

/* n C requests from the Fortran ones (stack when n <= NSTACK), NULL out of memory. */
static MPI_Request *reqs_in(int n, const fint *f, MPI_Request *stack) {
    MPI_Request *c = n <= NSTACK ? stack : malloc((size_t)n * sizeof *c);
    if (c)
        for (int i = 0; i < n; i++)
            c[i] = PMPI_Request_f2c(f[i]);
    return c;
}
static void reqs_out(int n, fint *f, MPI_Request *c, const MPI_Request *stack) {
    for (int i = 0; i < n; i++)
        f[i] = PMPI_Request_c2f(c[i]);
    if (c != stack) free(c);
}

/* n C statuses for a Fortran status array in *c (stack when n <= NSTACK), MPI_STATUSES_IGNORE
 * when ignored (which may be a null pointer); -1 out of memory. */
static int sts_in(int n, const fint *f, MPI_Status *stack, MPI_Status **c) {
    if (sts_ignore(f)) {
        *c = MPI_STATUSES_IGNORE;
        return 0;
    }
    *c = n <= NSTACK ? stack : malloc((size_t)(n > 0 ? n : 1) * sizeof(MPI_Status));
    return *c ? 0 : -1;
}
static void sts_out(int n, fint *f, MPI_Status *c, const MPI_Status *stack) {
    if (c == MPI_STATUSES_IGNORE) return;
    for (int i = 0; i < n; i++)
        PMPI_Status_c2f(&c[i], f + (size_t)i * FSTAT);
    if (c != stack) free(c);
}
static void sts_free(MPI_Status *c, const MPI_Status *stack) {
    if (c != MPI_STATUSES_IGNORE && c != stack) free(c);
}

/* The MPI's own routine when it must run the call; fn is its weak Fortran entry. */
#define NATIVE(fn, ...)                                                                            \
    do {                                                                                           \
        if (ac_fortran_native() && (fn)) {                                                         \
            fint e_ = MPI_SUCCESS;                                                                 \
            (fn)(__VA_ARGS__, &e_);                                                                \
            ac_fortran_ierr(ierr, e_);                                                             \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* The library's C entry point (expr, its result in e), the Fortran call site passed on. */
#define CALL(e, site, expr)                                                                        \
    do {                                                                                           \
        ac_fortran_site = (site);                                                                  \
        (e) = (expr);                                                                              \
        ac_fortran_site = NULL;                                                                    \
    } while (0)

#define TYPE(t) PMPI_Type_f2c(*(t))
#define COMM(c) PMPI_Comm_f2c(*(c))

/* ---------------------------------------------------------------- waits and tests
 * (MPICH's mpi_f08 takes these too: their f08 routines call PMPI_*.) Each takes the MPI's own
 * routine to fall back on. */

typedef void wait_fn(fint *, fint *, fint *);
static void do_wait(fint *q, fint *st, fint *ierr, wait_fn *own, const void *site) {
    NATIVE(own, q, st);
    MPI_Status s;
    MPI_Request c = PMPI_Request_f2c(*q);
    int e;
    CALL(e, site, MPI_Wait(&c, cst(st, &s)));
    *q = PMPI_Request_c2f(c);
    st_out(st, cst(st, &s));
    ac_fortran_ierr(ierr, e);
}

typedef void test_fn(fint *, fint *, fint *, fint *);
static void do_test(fint *q, fint *flag, fint *st, fint *ierr, test_fn *own, const void *site) {
    NATIVE(own, q, flag, st);
    MPI_Status s;
    MPI_Request c = PMPI_Request_f2c(*q);
    int f = 0, e;
    CALL(e, site, MPI_Test(&c, &f, cst(st, &s)));
    *q = PMPI_Request_c2f(c);
    *flag = f ? 1 : 0;
    if (f) st_out(st, cst(st, &s));
    ac_fortran_ierr(ierr, e);
}

typedef void waitany_fn(fint *, fint *, fint *, fint *, fint *);
static void do_waitany(fint *n, fint *q, fint *idx, fint *st, fint *ierr, waitany_fn *own,
                       const void *site) {
    NATIVE(own, n, q, idx, st);
    MPI_Request stack[NSTACK], *c = reqs_in(*n, q, stack);
    if (!c) {
        ac_fortran_ierr(ierr, MPI_ERR_NO_MEM);
        return;
    }
    MPI_Status s;
    int i = MPI_UNDEFINED, e;
    CALL(e, site, MPI_Waitany(*n, c, &i, cst(st, &s)));
    reqs_out(*n, q, c, stack);
    *idx = i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1;
    st_out(st, cst(st, &s));
    ac_fortran_ierr(ierr, e);
}

typedef void testany_fn(fint *, fint *, fint *, fint *, fint *, fint *);
static void do_testany(fint *n, fint *q, fint *idx, fint *flag, fint *st, fint *ierr,
                       testany_fn *own, const void *site) {
    NATIVE(own, n, q, idx, flag, st);
    MPI_Request stack[NSTACK], *c = reqs_in(*n, q, stack);
    if (!c) {
        ac_fortran_ierr(ierr, MPI_ERR_NO_MEM);
        return;
    }
    MPI_Status s;
    int i = MPI_UNDEFINED, f = 0, e;
    CALL(e, site, MPI_Testany(*n, c, &i, &f, cst(st, &s)));
    reqs_out(*n, q, c, stack);
    *idx = i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1;
    *flag = f ? 1 : 0;
    if (f) st_out(st, cst(st, &s));
    ac_fortran_ierr(ierr, e);
}

typedef void waitall_fn(fint *, fint *, fint *, fint *);
static void do_waitall(fint *n, fint *q, fint *sts, fint *ierr, waitall_fn *own, const void *site) {
    NATIVE(own, n, q, sts);
    MPI_Request rstack[NSTACK], *c = reqs_in(*n, q, rstack);
    MPI_Status sstack[NSTACK], *s = MPI_STATUSES_IGNORE;
    if (!c || sts_in(*n, sts, sstack, &s)) {
        if (c && c != rstack) free(c);
        ac_fortran_ierr(ierr, MPI_ERR_NO_MEM);
        return;
    }
    int e;
    CALL(e, site, MPI_Waitall(*n, c, s));
    reqs_out(*n, q, c, rstack);
    sts_out(*n, sts, s, sstack);
    ac_fortran_ierr(ierr, e);
}

typedef void testall_fn(fint *, fint *, fint *, fint *, fint *);
static void do_testall(fint *n, fint *q, fint *flag, fint *sts, fint *ierr, testall_fn *own,
                       const void *site) {
    NATIVE(own, n, q, flag, sts);
    MPI_Request rstack[NSTACK], *c = reqs_in(*n, q, rstack);
    MPI_Status sstack[NSTACK], *s = MPI_STATUSES_IGNORE;
    if (!c || sts_in(*n, sts, sstack, &s)) {
        if (c && c != rstack) free(c);
        ac_fortran_ierr(ierr, MPI_ERR_NO_MEM);
        return;
    }
    int f = 0, e;
    CALL(e, site, MPI_Testall(*n, c, &f, s));
    reqs_out(*n, q, c, rstack);
    *flag = f ? 1 : 0;
    if (f || e == MPI_ERR_IN_STATUS)
        sts_out(*n, sts, s, sstack);
    else
        sts_free(s, sstack);
    ac_fortran_ierr(ierr, e);
}

/* Waitsome and Testsome. */
typedef void some_fn(fint *, fint *, fint *, fint *, fint *, fint *);
static void do_some(int test, fint *n, fint *q, fint *out, fint *idx, fint *sts, fint *ierr,
                    some_fn *own, const void *site) {
    NATIVE(own, n, q, out, idx, sts);
    MPI_Request rstack[NSTACK], *c = reqs_in(*n, q, rstack);
    MPI_Status sstack[NSTACK], *s = MPI_STATUSES_IGNORE;
    if (!c || sts_in(*n, sts, sstack, &s)) {
        if (c && c != rstack) free(c);
        ac_fortran_ierr(ierr, MPI_ERR_NO_MEM);
        return;
    }
    int o = MPI_UNDEFINED;
    int e;
    CALL(e, site, test ? MPI_Testsome(*n, c, &o, idx, s) : MPI_Waitsome(*n, c, &o, idx, s));
    reqs_out(*n, q, c, rstack);
    *out = o;
    for (int k = 0; o != MPI_UNDEFINED && k < o; k++)
        idx[k] += 1;
    sts_out(o == MPI_UNDEFINED ? 0 : o, sts, s, sstack);
    ac_fortran_ierr(ierr, e);
}

/* ---------------------------------------------------------------- probes */

typedef void probe_fn(fint *, fint *, fint *, fint *, fint *);
static void do_probe(fint *src, fint *tag, fint *comm, fint *st, fint *ierr, probe_fn *own,
                     const void *site) {
    NATIVE(own, src, tag, comm, st);
    MPI_Status s;
    int e;
    CALL(e, site, MPI_Probe(*src, *tag, COMM(comm), cst(st, &s)));
    st_out(st, cst(st, &s));
    ac_fortran_ierr(ierr, e);
}

typedef void iprobe_fn(fint *, fint *, fint *, fint *, fint *, fint *);
static void do_iprobe(fint *src, fint *tag, fint *comm, fint *flag, fint *st, fint *ierr,
                      iprobe_fn *own, const void *site) {
    NATIVE(own, src, tag, comm, flag, st);
    MPI_Status s;
    int f = 0, e;
    CALL(e, site, MPI_Iprobe(*src, *tag, COMM(comm), &f, cst(st, &s)));
    *flag = f ? 1 : 0;
    if (f) st_out(st, cst(st, &s));
    ac_fortran_ierr(ierr, e);
}

typedef void mprobe_fn(fint *, fint *, fint *, fint *, fint *, fint *);
static void do_mprobe(fint *src, fint *tag, fint *comm, fint *msg, fint *st, fint *ierr,
                      mprobe_fn *own, const void *site) {
    NATIVE(own, src, tag, comm, msg, st);
    MPI_Status s;
    MPI_Message m = MPI_MESSAGE_NULL;
    int e;
    CALL(e, site, MPI_Mprobe(*src, *tag, COMM(comm), &m, cst(st, &s)));
    if (e == MPI_SUCCESS) *msg = PMPI_Message_c2f(m);
    st_out(st, cst(st, &s));
    ac_fortran_ierr(ierr, e);
}

typedef void improbe_fn(fint *, fint *, fint *, fint *, fint *, fint *, fint *);
static void do_improbe(fint *src, fint *tag, fint *comm, fint *flag, fint *msg, fint *st,
                       fint *ierr, improbe_fn *own, const void *site) {
    NATIVE(own, src, tag, comm, flag, msg, st);
    MPI_Status s;
    MPI_Message m = MPI_MESSAGE_NULL;
    int f = 0, e;
    CALL(e, site, MPI_Improbe(*src, *tag, COMM(comm), &f, &m, cst(st, &s)));
    *flag = f ? 1 : 0;
    if (f) {
        *msg = PMPI_Message_c2f(m);
        st_out(st, cst(st, &s));
    }
    ac_fortran_ierr(ierr, e);
}

/* ---------------------------------------------------------------- starts, free */

typedef void start_fn(fint *, fint *);
static void do_start(fint *q, fint *ierr, start_fn *own, const void *site) {
    NATIVE(own, q);
    MPI_Request c = PMPI_Request_f2c(*q);
    int e;
    CALL(e, site, MPI_Start(&c));
    *q = PMPI_Request_c2f(c);
    ac_fortran_ierr(ierr, e);
}

typedef void startall_fn(fint *, fint *, fint *);
static void do_startall(fint *n, fint *q, fint *ierr, startall_fn *own, const void *site) {
    NATIVE(own, n, q);
    MPI_Request stack[NSTACK], *c = reqs_in(*n, q, stack);
    if (!c) {
        ac_fortran_ierr(ierr, MPI_ERR_NO_MEM);
        return;
    }
    int e;
    CALL(e, site, MPI_Startall(*n, c));
    reqs_out(*n, q, c, stack);
    ac_fortran_ierr(ierr, e);
}

static void do_request_free(fint *q, fint *ierr, start_fn *own, const void *site) {
    NATIVE(own, q);
    MPI_Request c = PMPI_Request_f2c(*q);
    int e;
    CALL(e, site, MPI_Request_free(&c));
    *q = PMPI_Request_c2f(c);
    ac_fortran_ierr(ierr, e);
}

#if defined(OMPI_MAJOR_VERSION)

/* ---------------------------------------------------------------- Open MPI: sends, receives
 * mpif.h / use mpi in the four spellings, and mpi_f08 (the same arguments, libmpi_usempif08
 * passes TYPE(MPI_Comm) etc. as their INTEGER MPI_VAL and buffers as addresses). */

typedef void send_fn(void *, fint *, fint *, fint *, fint *, fint *, fint *);
typedef void isend_fn(void *, fint *, fint *, fint *, fint *, fint *, fint *, fint *);
typedef int c_send_fn(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int c_isend_fn(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

static void do_send(void *b, fint *n, fint *t, fint *dest, fint *tag, fint *comm, fint *ierr,
                    send_fn *own, c_send_fn *fn, const void *site) {
    NATIVE(own, b, n, t, dest, tag, comm);
    int e;
    CALL(e, site, fn(ac_fortran_buf(b), *n, TYPE(t), *dest, *tag, COMM(comm)));
    ac_fortran_ierr(ierr, e);
}

/* Nonblocking sends and the MPI_*_init calls: a request out. */
static void do_isend(void *b, fint *n, fint *t, fint *peer, fint *tag, fint *comm, fint *q,
                     fint *ierr, isend_fn *own, c_isend_fn *fn, const void *site) {
    NATIVE(own, b, n, t, peer, tag, comm, q);
    MPI_Request c = MPI_REQUEST_NULL;
    int e;
    CALL(e, site, fn(ac_fortran_buf(b), *n, TYPE(t), *peer, *tag, COMM(comm), &c));
    if (e == MPI_SUCCESS) *q = PMPI_Request_c2f(c);
    ac_fortran_ierr(ierr, e);
}

/* The receive-side C calls take a non-const buffer. */
static int c_irecv(const void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c,
                   MPI_Request *q) {
    return MPI_Irecv((void *)b, n, t, src, tag, c, q);
}
static int c_recv_init(const void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c,
                       MPI_Request *q) {
    return MPI_Recv_init((void *)b, n, t, src, tag, c, q);
}

#define SEND(name, NAME, cfn)                                                                      \
    void pmpi_##name##_(void *, fint *, fint *, fint *, fint *, fint *, fint *) WEAK;              \
    static void f_##name(void *b, fint *n, fint *t, fint *dest, fint *tag, fint *comm,             \
                         fint *ierr) {                                                             \
        do_send(b, n, t, dest, tag, comm, ierr, pmpi_##name##_, cfn, SITE);                        \
    }                                                                                              \
    F77(mpi_##name, NAME, f_##name) ALIAS(mpi_##name##_f08_, f_##name)
#define ISEND(name, NAME, cfn)                                                                     \
    void pmpi_##name##_(void *, fint *, fint *, fint *, fint *, fint *, fint *, fint *) WEAK;      \
    static void f_##name(void *b, fint *n, fint *t, fint *peer, fint *tag, fint *comm, fint *q,    \
                         fint *ierr) {                                                             \
        do_isend(b, n, t, peer, tag, comm, q, ierr, pmpi_##name##_, cfn, SITE);                    \
    }                                                                                              \
    F77(mpi_##name, NAME, f_##name) ALIAS(mpi_##name##_f08_, f_##name)

SEND(send, MPI_SEND, MPI_Send)
SEND(bsend, MPI_BSEND, MPI_Bsend)
SEND(ssend, MPI_SSEND, MPI_Ssend)
SEND(rsend, MPI_RSEND, MPI_Rsend)
ISEND(isend, MPI_ISEND, MPI_Isend)
ISEND(ibsend, MPI_IBSEND, MPI_Ibsend)
ISEND(issend, MPI_ISSEND, MPI_Issend)
ISEND(irsend, MPI_IRSEND, MPI_Irsend)
ISEND(irecv, MPI_IRECV, c_irecv)
ISEND(send_init, MPI_SEND_INIT, MPI_Send_init)
ISEND(bsend_init, MPI_BSEND_INIT, MPI_Bsend_init)
ISEND(ssend_init, MPI_SSEND_INIT, MPI_Ssend_init)
ISEND(rsend_init, MPI_RSEND_INIT, MPI_Rsend_init)
ISEND(recv_init, MPI_RECV_INIT, c_recv_init)

void pmpi_recv_(void *, fint *, fint *, fint *, fint *, fint *, fint *, fint *) WEAK;
static void f_recv(void *b, fint *n, fint *t, fint *src, fint *tag, fint *comm, fint *st,
                   fint *ierr) {
    NATIVE(pmpi_recv_, b, n, t, src, tag, comm, st);
    MPI_Status s;
    int e;
    CALL(e, SITE, MPI_Recv(ac_fortran_buf(b), *n, TYPE(t), *src, *tag, COMM(comm), cst(st, &s)));
    st_out(st, cst(st, &s));
    ac_fortran_ierr(ierr, e);
}
F77(mpi_recv, MPI_RECV, f_recv)
ALIAS(mpi_recv_f08_, f_recv)

void pmpi_sendrecv_(void *, fint *, fint *, fint *, fint *, void *, fint *, fint *, fint *, fint *,
                    fint *, fint *, fint *) WEAK;
static void f_sendrecv(void *sb, fint *sn, fint *st_, fint *dest, fint *stag, void *rb, fint *rn,
                       fint *rt, fint *src, fint *rtag, fint *comm, fint *st, fint *ierr) {
    NATIVE(pmpi_sendrecv_, sb, sn, st_, dest, stag, rb, rn, rt, src, rtag, comm, st);
    MPI_Status s;
    int e;
    CALL(e, SITE,
         MPI_Sendrecv(ac_fortran_buf(sb), *sn, TYPE(st_), *dest, *stag, ac_fortran_buf(rb), *rn,
                      TYPE(rt), *src, *rtag, COMM(comm), cst(st, &s)));
    st_out(st, cst(st, &s));
    ac_fortran_ierr(ierr, e);
}
F77(mpi_sendrecv, MPI_SENDRECV, f_sendrecv)
ALIAS(mpi_sendrecv_f08_, f_sendrecv)

void pmpi_sendrecv_replace_(void *, fint *, fint *, fint *, fint *, fint *, fint *, fint *, fint *,
                            fint *) WEAK;
static void f_sendrecv_replace(void *b, fint *n, fint *t, fint *dest, fint *stag, fint *src,
                               fint *rtag, fint *comm, fint *st, fint *ierr) {
    NATIVE(pmpi_sendrecv_replace_, b, n, t, dest, stag, src, rtag, comm, st);
    MPI_Status s;
    int e;
    CALL(e, SITE,
         MPI_Sendrecv_replace(ac_fortran_buf(b), *n, TYPE(t), *dest, *stag, *src, *rtag, COMM(comm),
                              cst(st, &s)));
    st_out(st, cst(st, &s));
    ac_fortran_ierr(ierr, e);
}
F77(mpi_sendrecv_replace, MPI_SENDRECV_REPLACE, f_sendrecv_replace)
ALIAS(mpi_sendrecv_replace_f08_, f_sendrecv_replace)

void pmpi_mrecv_(void *, fint *, fint *, fint *, fint *, fint *) WEAK;
static void f_mrecv(void *b, fint *n, fint *t, fint *msg, fint *st, fint *ierr) {
    NATIVE(pmpi_mrecv_, b, n, t, msg, st);
    MPI_Status s;
    MPI_Message m = PMPI_Message_f2c(*msg);
    int e;
    CALL(e, SITE, MPI_Mrecv(ac_fortran_buf(b), *n, TYPE(t), &m, cst(st, &s)));
    *msg = PMPI_Message_c2f(m);
    st_out(st, cst(st, &s));
    ac_fortran_ierr(ierr, e);
}
F77(mpi_mrecv, MPI_MRECV, f_mrecv)
ALIAS(mpi_mrecv_f08_, f_mrecv)

void pmpi_imrecv_(void *, fint *, fint *, fint *, fint *, fint *) WEAK;
static void f_imrecv(void *b, fint *n, fint *t, fint *msg, fint *q, fint *ierr) {
    NATIVE(pmpi_imrecv_, b, n, t, msg, q);
    MPI_Message m = PMPI_Message_f2c(*msg);
    MPI_Request c = MPI_REQUEST_NULL;
    int e;
    CALL(e, SITE, MPI_Imrecv(ac_fortran_buf(b), *n, TYPE(t), &m, &c));
    *msg = PMPI_Message_c2f(m);
    if (e == MPI_SUCCESS) *q = PMPI_Request_c2f(c);
    ac_fortran_ierr(ierr, e);
}
F77(mpi_imrecv, MPI_IMRECV, f_imrecv)
ALIAS(mpi_imrecv_f08_, f_imrecv)

/* The calls without a buffer: the MPI's own routine is its mpif.h one (pmpi_<name>_). */
#define OWN(name) pmpi_##name##_
#define F08(name) ALIAS(mpi_##name##_f08_, f_##name)
#define EXPORT(name, NAME) F77(mpi_##name, NAME, f_##name) F08(name)

#else

/* ---------------------------------------------------------------- MPICH: mpi_f08 only
 * Its routines without a buffer call PMPI_*; their arguments are those of mpif.h (handles as
 * INTEGER, statuses in the C layout, ierror optional); its own are pmpir_<name>_f08_. */
#define OWN(name) pmpir_##name##_f08_
#define EXPORT(name, NAME) ALIAS(mpi_##name##_f08_, f_##name)

#endif
/* The MPI's own routines of the calls without a buffer (OWN above). */
wait_fn OWN(wait) WEAK;
test_fn OWN(test) WEAK;
waitany_fn OWN(waitany) WEAK;
testany_fn OWN(testany) WEAK;
waitall_fn OWN(waitall) WEAK;
testall_fn OWN(testall) WEAK;
some_fn OWN(waitsome) WEAK, OWN(testsome) WEAK;
probe_fn OWN(probe) WEAK;
iprobe_fn OWN(iprobe) WEAK;
mprobe_fn OWN(mprobe) WEAK;
improbe_fn OWN(improbe) WEAK;
start_fn OWN(start) WEAK, OWN(request_free) WEAK;
startall_fn OWN(startall) WEAK;

static void f_wait(fint *q, fint *st, fint *ierr) {
    do_wait(q, st, ierr, OWN(wait), SITE);
}
static void f_test(fint *q, fint *flag, fint *st, fint *ierr) {
    do_test(q, flag, st, ierr, OWN(test), SITE);
}
static void f_waitany(fint *n, fint *q, fint *idx, fint *st, fint *ierr) {
    do_waitany(n, q, idx, st, ierr, OWN(waitany), SITE);
}
static void f_testany(fint *n, fint *q, fint *idx, fint *flag, fint *st, fint *ierr) {
    do_testany(n, q, idx, flag, st, ierr, OWN(testany), SITE);
}
static void f_waitall(fint *n, fint *q, fint *sts, fint *ierr) {
    do_waitall(n, q, sts, ierr, OWN(waitall), SITE);
}
static void f_testall(fint *n, fint *q, fint *flag, fint *sts, fint *ierr) {
    do_testall(n, q, flag, sts, ierr, OWN(testall), SITE);
}
static void f_waitsome(fint *n, fint *q, fint *out, fint *idx, fint *sts, fint *ierr) {
    do_some(0, n, q, out, idx, sts, ierr, OWN(waitsome), SITE);
}
static void f_testsome(fint *n, fint *q, fint *out, fint *idx, fint *sts, fint *ierr) {
    do_some(1, n, q, out, idx, sts, ierr, OWN(testsome), SITE);
}
static void f_probe(fint *src, fint *tag, fint *comm, fint *st, fint *ierr) {
    do_probe(src, tag, comm, st, ierr, OWN(probe), SITE);
}
static void f_iprobe(fint *src, fint *tag, fint *comm, fint *flag, fint *st, fint *ierr) {
    do_iprobe(src, tag, comm, flag, st, ierr, OWN(iprobe), SITE);
}
static void f_mprobe(fint *src, fint *tag, fint *comm, fint *msg, fint *st, fint *ierr) {
    do_mprobe(src, tag, comm, msg, st, ierr, OWN(mprobe), SITE);
}
static void f_improbe(fint *src, fint *tag, fint *comm, fint *flag, fint *msg, fint *st,
                      fint *ierr) {
    do_improbe(src, tag, comm, flag, msg, st, ierr, OWN(improbe), SITE);
}
static void f_start(fint *q, fint *ierr) {
    do_start(q, ierr, OWN(start), SITE);
}
static void f_startall(fint *n, fint *q, fint *ierr) {
    do_startall(n, q, ierr, OWN(startall), SITE);
}
static void f_request_free(fint *q, fint *ierr) {
    do_request_free(q, ierr, OWN(request_free), SITE);
}

EXPORT(wait, MPI_WAIT)
EXPORT(test, MPI_TEST)
EXPORT(waitany, MPI_WAITANY)
EXPORT(testany, MPI_TESTANY)
EXPORT(waitall, MPI_WAITALL)
EXPORT(testall, MPI_TESTALL)
EXPORT(waitsome, MPI_WAITSOME)
EXPORT(testsome, MPI_TESTSOME)
EXPORT(probe, MPI_PROBE)
EXPORT(iprobe, MPI_IPROBE)
EXPORT(mprobe, MPI_MPROBE)
EXPORT(improbe, MPI_IMPROBE)
EXPORT(start, MPI_START)
EXPORT(startall, MPI_STARTALL)
EXPORT(request_free, MPI_REQUEST_FREE)

#else
typedef int ac_fortran_p2p_none; /* neither Open MPI nor MPICH (SMPI): no Fortran entry points */
#endif
