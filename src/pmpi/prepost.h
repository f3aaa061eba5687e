/*
 * Opt-in receive pre-posting (AUTOCOLL_PREPOST=1; docs/prepost.md): spec predictors-latency.md
 * §4.4, variant (a), library staging buffers, check-first capture (hazard 5). The point-to-point
 * entry points of trace_p2p.c run AC_PP_ENTRY first and call these in place of their PMPI_ call
 * when ac_prepost_state is not 0; prepost.c also holds the entry points it alone needs (matched
 * probes, persistent receive creation).
 */
#ifndef AC_PMPI_PREPOST_H
#define AC_PMPI_PREPOST_H

#include <mpi.h>

/* -1 not decided yet (decided at the first hooked call after MPI_Init), 0 off, 1 on. */
extern int ac_prepost_state;
#define AC_PP_ON() __builtin_expect(ac_prepost_state != 0, 0)

/* Hooked entries so far, and armed streams (predicted (c, s) whose message is not captured yet). */
extern unsigned long ac_pp_calls;
extern int ac_pp_narmed;
/* Check-first capture on every armed stream (PMPI_Iprobe, then PMPI_Improbe + PMPI_Imrecv). */
void ac_pp_poll(void);
/* Served MPI_Irecv/MPI_Imrecv requests whose capture is still running, and the check that
 * completes those whose capture has finished (copy, then MPI_Grequest_complete). */
extern int ac_pp_nserve;
void ac_pp_drive(void);
/* At every hooked point-to-point entry, before anything is posted to MPI. */
#define AC_PP_ENTRY()                                                                              \
    do {                                                                                           \
        if (AC_PP_ON()) {                                                                          \
            ac_pp_calls++;                                                                         \
            if (ac_pp_nserve) ac_pp_drive();                                                       \
            if (ac_pp_narmed) ac_pp_poll();                                                        \
        }                                                                                          \
    } while (0)
/* The waits and tests of trace_p2p.c call these in place of their PMPI_ call when pre-posting
 * is not off: a served MPI_Irecv still running is waited for through its capture's receive, and
 * a persistent receive whose start was served from the queue is replaced by the request
 * receiving its message. */
int ac_pp_wait(MPI_Request *q, MPI_Status *s);
int ac_pp_waitall(int n, MPI_Request q[], MPI_Status s[]);
int ac_pp_waitany(int n, MPI_Request q[], int *idx, MPI_Status *s);
int ac_pp_waitsome(int n, MPI_Request q[], int *out, int idx[], MPI_Status s[]);
int ac_pp_test(MPI_Request *q, int *f, MPI_Status *s);
int ac_pp_testall(int n, MPI_Request q[], int *f, MPI_Status s[]);
int ac_pp_testany(int n, MPI_Request q[], int *idx, int *f, MPI_Status *s);
int ac_pp_testsome(int n, MPI_Request q[], int *out, int idx[], MPI_Status s[]);
/* Starts of persistent receives (served from the queue when one matches a message captured
 * before the receive was created), and MPI_Request_free's bookkeeping before its PMPI_ call. */
int ac_pp_start(MPI_Request *q);
int ac_pp_startall(int n, MPI_Request q[]);
void ac_pp_request_free(MPI_Request *q);

int ac_pp_recv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Status *st);
int ac_pp_irecv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request *q);
int ac_pp_sendrecv(const void *sb, int sn, MPI_Datatype stype, int dest, int stag, void *rb, int rn,
                   MPI_Datatype rtype, int src, int rtag, MPI_Comm c, MPI_Status *st);
int ac_pp_sendrecv_replace(void *b, int n, MPI_Datatype t, int dest, int stag, int src, int rtag,
                           MPI_Comm c, MPI_Status *st);
int ac_pp_probe(int src, int tag, MPI_Comm c, MPI_Status *st);
int ac_pp_iprobe(int src, int tag, MPI_Comm c, int *flag, MPI_Status *st);
int ac_pp_recv_init(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request *q);
/* Before PMPI_Comm_free: c's captured messages are completed and dropped, its state freed. */
void ac_pp_comm_free(MPI_Comm c);

#endif
