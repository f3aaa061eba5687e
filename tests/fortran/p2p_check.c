/*
 * ac_fortran_p2p_check DIR NP: the trace files of tests/fortran/p2p.F90 (AUTOCOLL_TRACE=p2p)
 * hold, on every rank r (right = r + 1, left = r - 1 mod NP), exactly the point-to-point
 * records its Fortran calls leave (docs/fortran.md, docs/tracing.md), listed here by hand from
 * the program's thirteen steps:
 *  - the send and receive events in program order, each with its kind, peer (world rank),
 *    tag, size in bytes and flags (persistent, receive side); a receive with a status has the
 *    source's world rank (inst);
 *  - one completion record per nonblocking or persistent receive (14: by tag, with the
 *    source's world rank and tag of its status), in any order (Waitany, Waitsome, Testany and
 *    Testsome complete them in an order the run decides);
 *  - the waits, tests and probes: exactly as many as the program calls where it calls them a
 *    known number of times, at least one where it loops;
 *  - every call site in the Fortran program, none in libautocoll (the Fortran entry points pass
 *    the program's return address on).
 * Prints one line per mismatch and exits 1 when there is one.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../src/trace/trace.h"

#include "../mpi/check_line.h"

enum { R, L }; /* peer: right, left */
enum { PS = AC_TF_PERSISTENT, PR = AC_TF_PERSISTENT | AC_TF_RECV_SIDE };
typedef struct {
    int kind, peer, tag, bytes, flags;
} ev_t;

/* The events of one rank, in program order. */
static const ev_t evs[] = {
    {AC_TK_SEND, R, 1, 4, 0},      {AC_TK_RECV, L, 1, 4, 0},
    {AC_TK_IRECV, L, 2, 8, 0},     {AC_TK_IRECV, R, 3, 12, 0},
    {AC_TK_ISEND, R, 2, 8, 0},     {AC_TK_ISEND, L, 3, 12, 0},
    {AC_TK_SENDRECV, R, 4, 16, 0}, {AC_TK_SENDRECV_REPLACE, L, 5, 4, AC_TF_REPLACE_RECV},
    {AC_TK_ISEND, R, 6, 8, 0},     {AC_TK_RECV, L, 6, 8, 0},
    {AC_TK_ISEND, R, 7, 4, 0},     {AC_TK_RECV, L, 7, 4, 0},
    {AC_TK_STARTALL, L, 8, 4, PR}, {AC_TK_STARTALL, R, 8, 4, PS},
    {AC_TK_STARTALL, L, 8, 4, PR}, {AC_TK_STARTALL, R, 8, 4, PS},
    {AC_TK_STARTALL, L, 8, 4, PR}, {AC_TK_STARTALL, R, 8, 4, PS},
    {AC_TK_START, R, 8, 4, PS},    {AC_TK_START, L, 8, 4, PR},
    {AC_TK_START, L, 8, 4, PR},    {AC_TK_START, R, 8, 4, PS},
    {AC_TK_IRECV, L, 9, 4, 0},     {AC_TK_IRECV, R, 10, 4, 0},
    {AC_TK_ISEND, R, 9, 4, 0},     {AC_TK_ISEND, L, 10, 4, 0},
    {AC_TK_IRECV, L, 11, 4, 0},    {AC_TK_ISSEND, R, 11, 4, 0},
    {AC_TK_IRECV, L, 12, 4, 0},    {AC_TK_ISEND, R, 12, 4, 0},
    {AC_TK_ISEND, R, 13, 4, 0},    {AC_TK_ISEND, R, 14, 4, 0},
    {AC_TK_SENDRECV, R, 15, 4, 0}, {AC_TK_IRECV, L, 16, 4, 0},
    {AC_TK_SSEND, R, 16, 4, 0},    {AC_TK_IRECV, L, 17, 4, 0},
    {AC_TK_IRECV, L, 18, 4, 0},    {AC_TK_RSEND, R, 17, 4, 0},
    {AC_TK_IRSEND, R, 18, 4, 0},
};
enum { NEV = sizeof evs / sizeof evs[0] };

/* Completion records per tag (index = tag, 0..18) and the side of their source. */
static const int done_n[19] = {0, 0, 1, 1, 0, 0, 0, 0, 5, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1};
static const int done_peer[19] = {0, 0, L, R, 0, 0, 0, 0, L, L, R, L, L, 0, 0, 0, L, L, L};

/* Calls recorded for their duration: exactly n, or at least n (min). */
static const struct {
    int kind, n, min;
} other[] = {
    {AC_TK_WAIT, 5, 0},  {AC_TK_WAITALL, 5, 0}, {AC_TK_WAITANY, 1, 0},  {AC_TK_WAITSOME, 1, 1},
    {AC_TK_TEST, 1, 1},  {AC_TK_TESTANY, 1, 1}, {AC_TK_TESTSOME, 1, 1}, {AC_TK_TESTALL, 1, 1},
    {AC_TK_PROBE, 1, 0}, {AC_TK_IPROBE, 1, 1},
};
enum { NOTHER = sizeof other / sizeof other[0] };

static int is_event(int k) {
    return (k >= AC_TK_SEND && k <= AC_TK_IRSEND) || k == AC_TK_RECV || k == AC_TK_IRECV ||
           k == AC_TK_SENDRECV || k == AC_TK_SENDRECV_REPLACE || k == AC_TK_START ||
           k == AC_TK_STARTALL;
}

static void check_rank(const ac_trace_file_t *t, const char *path, int r, int np) {
    int side[2] = {(r + 1) % np, (r + np - 1) % np};
    int nev = 0, done[19] = {0}, count[NOTHER] = {0}, lib_sites = 0;
    for (uint64_t i = 0; i < t->nrec; i++) {
        const ac_trace_rec_t *x = &t->rec[i];
        if (x->site != AC_TRACE_NOID && x->site < t->nstr && strstr(t->str[x->site], "libautocoll"))
            lib_sites++;
        if (x->kind == AC_TK_RECV_DONE) {
            int tag = x->status_tag;
            CHECK(tag >= 0 && tag < 19 && done_n[tag] && x->root == side[done_peer[tag]],
                  "%s: completion record of tag %d from %d", path, tag, x->root);
            if (tag >= 0 && tag < 19) done[tag]++;
            continue;
        }
        if (!is_event(x->kind)) {
            int k = 0;
            while (k < NOTHER && other[k].kind != x->kind)
                k++;
            CHECK(k < NOTHER, "%s: record %llu: unexpected %s", path, (unsigned long long)i,
                  ac_trace_kind_name(x->kind));
            if (k < NOTHER) count[k]++;
            continue;
        }
        if (nev >= NEV) {
            CHECK(0, "%s: record %llu: a %s beyond the %d events", path, (unsigned long long)i,
                  ac_trace_kind_name(x->kind), NEV);
            continue;
        }
        const ev_t *e = &evs[nev++];
        int peer = side[e->peer];
        CHECK(x->kind == e->kind && x->peer == peer && x->root == peer && x->tag == e->tag &&
                  x->bytes == (uint64_t)e->bytes && x->flags == e->flags && x->seq != 0,
              "%s: event %d: %s peer %d (world %d) tag %d bytes %llu flags 0x%x key %llu; "
              "expected %s peer %d tag %d bytes %d flags 0x%x",
              path, nev - 1, ac_trace_kind_name(x->kind), x->peer, x->root, x->tag,
              (unsigned long long)x->bytes, x->flags, (unsigned long long)x->seq,
              ac_trace_kind_name(e->kind), peer, e->tag, e->bytes, e->flags);
        int with_status =
            x->kind == AC_TK_RECV || x->kind == AC_TK_SENDRECV || x->kind == AC_TK_SENDRECV_REPLACE;
        int from = x->kind == AC_TK_SENDRECV_REPLACE ? side[R] : side[L];
        if (with_status)
            CHECK(x->inst == (uint32_t)from && x->status_source == from && x->status_tag == e->tag,
                  "%s: event %d (%s): status source %d (world %u) tag %d, expected %d tag %d", path,
                  nev - 1, ac_trace_kind_name(x->kind), x->status_source, x->inst, x->status_tag,
                  from, e->tag);
    }
    CHECK(nev == NEV, "%s: %d send and receive events, expected %d", path, nev, NEV);
    for (int tag = 0; tag < 19; tag++)
        CHECK(done[tag] == done_n[tag], "%s: %d completion records of tag %d, expected %d", path,
              done[tag], tag, done_n[tag]);
    for (int k = 0; k < NOTHER; k++)
        CHECK(other[k].min ? count[k] >= other[k].n : count[k] == other[k].n,
              "%s: %d %s records, expected %s%d", path, count[k], ac_trace_kind_name(other[k].kind),
              other[k].min ? "at least " : "", other[k].n);
    CHECK(lib_sites == 0, "%s: %d records with a call site in libautocoll", path, lib_sites);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: ac_fortran_p2p_check DIR NP\n");
        return 2;
    }
    int np = atoi(argv[2]);
    for (int r = 0; r < np; r++) {
        char path[4096], err[1024];
        snprintf(path, sizeof path, "%s/autocoll-trace.%d.bin", argv[1], r);
        ac_trace_file_t t;
        if (ac_trace_read(path, &t, err, sizeof err) != 0) {
            CHECK(0, "rank %d: %s", r, err);
            continue;
        }
        CHECK(t.rank == r && t.nprocs == np && t.drops == 0, "%s: rank %d of %d, %llu drops", path,
              t.rank, t.nprocs, (unsigned long long)t.drops);
        check_rank(&t, path, r, np);
        ac_trace_file_free(&t);
    }
    if (!fails) printf("fortran p2p trace: every record as the program's calls\n");
    return fails != 0;
}
