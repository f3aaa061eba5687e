/*
 * The lean traced path (src/pmpi/dispatch.c, docs/tracing.md "Cost") writes the records the full
 * traced path writes. usage:
 *   ac_trace_lean run            the calls below (run under AUTOCOLL_TRACE=collectives)
 *   ac_trace_lean cmp A B NP     the trace files of two runs, one per rank in each directory:
 *                                the same records in the same order, every field but the times
 *                                equal (instance and call-site ids compared by their strings),
 *                                and at least one record per collective of the lean path
 * The script runs the calls once where the lean path is taken (AUTOCOLL_MODE=native, a forced
 * native instance, a settled adaptive key on the MPI library's algorithm) and once with
 * AUTOCOLL_VERBOSE=1, which sends every call through the full path, and compares the files.
 * The calls: the seven collectives with a raw path from two call sites, rooted at every rank,
 * in place and not, a zero-count and a derived-type broadcast, on MPI_COMM_WORLD and on a
 * split communicator. Results are checked against values computed here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "../../src/trace/trace.h"

enum { ITER = 24, N = 4 };

#include "check_line.h"

/* One round of the calls on comm; results checked. */
static void round_on(MPI_Comm comm, int it, MPI_Datatype vec) {
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int root = it % p;
    int b[N], s[N], r[N], all[N * 64], rs[N * 64];
    for (int k = 0; k < N; k++)
        b[k] = me == root ? it * 10 + k : -1;
    MPI_Bcast(b, N, MPI_INT, root, comm);
    CHECK(b[N - 1] == it * 10 + N - 1, "bcast 1: %d", b[N - 1]);
    for (int k = 0; k < N; k++)
        b[k] = me == 0 ? it + k : -1;
    MPI_Bcast(b, N, MPI_INT, 0, comm); /* a second call site */
    CHECK(b[0] == it, "bcast 2: %d", b[0]);
    MPI_Bcast(b, 0, MPI_INT, root, comm); /* no data */
    int v[2 * N];
    for (int k = 0; k < 2 * N; k++)
        v[k] = me == root ? it + k : -1;
    MPI_Bcast(v, 1, vec, root, comm); /* every other int of v */
    CHECK(v[2] == it + 2 && (me == root || v[1] == -1), "vector bcast: %d %d", v[2], v[1]);
    for (int k = 0; k < N; k++)
        s[k] = me + k;
    int sum0 = p * (p - 1) / 2;
    MPI_Reduce(s, r, N, MPI_INT, MPI_SUM, root, comm);
    CHECK(me != root || r[1] == sum0 + p, "reduce: %d", r[1]);
    if (me == root) {
        memcpy(r, s, sizeof r);
        MPI_Reduce(MPI_IN_PLACE, r, N, MPI_INT, MPI_MAX, root, comm);
        CHECK(r[0] == p - 1, "reduce in place: %d", r[0]);
    } else {
        MPI_Reduce(s, NULL, N, MPI_INT, MPI_MAX, root, comm);
    }
    MPI_Allreduce(s, r, N, MPI_INT, MPI_SUM, comm);
    CHECK(r[2] == sum0 + 2 * p, "allreduce: %d", r[2]);
    memcpy(r, s, sizeof r);
    MPI_Allreduce(MPI_IN_PLACE, r, N, MPI_INT, MPI_MIN, comm);
    CHECK(r[3] == 3, "allreduce in place: %d", r[3]);
    MPI_Allgather(s, N, MPI_INT, all, N, MPI_INT, comm);
    CHECK(all[N * (p - 1)] == p - 1, "allgather: %d", all[N * (p - 1)]);
    for (int k = 0; k < N * p; k++)
        rs[k] = me * 1000 + k;
    MPI_Alltoall(rs, N, MPI_INT, all, N, MPI_INT, comm);
    CHECK(all[N * (p - 1)] == (p - 1) * 1000 + N * me, "alltoall: %d", all[N * (p - 1)]);
    MPI_Reduce_scatter_block(rs, r, N, MPI_INT, MPI_SUM, comm);
    CHECK(r[0] == 1000 * sum0 + p * N * me, "reduce_scatter_block: %d", r[0]);
    MPI_Barrier(comm);
}

static int run(void) {
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    MPI_Datatype vec;
    MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (int it = 0; it < ITER; it++) {
        round_on(MPI_COMM_WORLD, it, vec);
        round_on(half, it, vec);
    }
    MPI_Type_free(&vec);
    MPI_Comm_free(&half);
    int all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return all != 0;
}

static const char *str(const ac_trace_file_t *t, uint32_t id) {
    return id < t->nstr ? t->str[id] : "(none)";
}

/* Records of two runs of rank r: equal but for the times. */
static void cmp_rank(const char *da, const char *db, int r, int seen[AUTOCOLL_NCOLL]) {
    char pa[1024], pb[1024], err[512];
    snprintf(pa, sizeof pa, "%s/autocoll-trace.%d.bin", da, r);
    snprintf(pb, sizeof pb, "%s/autocoll-trace.%d.bin", db, r);
    ac_trace_file_t a, b;
    if (ac_trace_read(pa, &a, err, sizeof err)) {
        CHECK(0, "%s", err);
        return;
    }
    if (ac_trace_read(pb, &b, err, sizeof err)) {
        CHECK(0, "%s", err);
        ac_trace_file_free(&a);
        return;
    }
    CHECK(a.nrec == b.nrec && a.drops == 0 && b.drops == 0, "rank %d: %llu records against %llu", r,
          (unsigned long long)a.nrec, (unsigned long long)b.nrec);
    for (uint64_t i = 0; i < a.nrec && i < b.nrec; i++) {
        const ac_trace_rec_t *x = &a.rec[i], *y = &b.rec[i];
        int same = x->kind == y->kind && x->bytes == y->bytes && x->seq == y->seq &&
                   x->comm == y->comm && x->root == y->root && x->peer == y->peer &&
                   x->tag == y->tag && x->ident == y->ident && x->count == y->count &&
                   x->alg == y->alg && x->src == y->src && x->flags == y->flags &&
                   x->status_source == y->status_source && x->status_tag == y->status_tag &&
                   !strcmp(str(&a, x->inst), str(&b, y->inst)) &&
                   !strcmp(str(&a, x->site), str(&b, y->site)) && x->t_out >= x->t_in;
        CHECK(same,
              "rank %d record %llu: %s seq %llu comm %u/%d bytes %llu root %d alg %d src %d "
              "flags %d inst %s site %s | against %s seq %llu comm %u/%d bytes %llu root %d alg "
              "%d src %d flags %d inst %s site %s",
              r, (unsigned long long)i, ac_trace_kind_name(x->kind), (unsigned long long)x->seq,
              x->comm, x->peer, (unsigned long long)x->bytes, x->root, x->alg, x->src, x->flags,
              str(&a, x->inst), str(&a, x->site), ac_trace_kind_name(y->kind),
              (unsigned long long)y->seq, y->comm, y->peer, (unsigned long long)y->bytes, y->root,
              y->alg, y->src, y->flags, str(&b, y->inst), str(&b, y->site));
        if (!same && fails > 20) break;
        if (x->kind < AUTOCOLL_NCOLL) seen[x->kind]++;
    }
    ac_trace_file_free(&a);
    ac_trace_file_free(&b);
}

int main(int argc, char **argv) {
    if (argc == 2 && !strcmp(argv[1], "run")) {
        MPI_Init(&argc, &argv);
        int rc = run();
        MPI_Finalize();
        return rc;
    }
    if (argc != 5 || strcmp(argv[1], "cmp")) {
        fprintf(stderr, "usage: %s run | cmp DIR_A DIR_B NP\n", argv[0]);
        return 2;
    }
    int np = atoi(argv[4]), seen[AUTOCOLL_NCOLL] = {0};
    for (int r = 0; r < np; r++)
        cmp_rank(argv[2], argv[3], r, seen);
    const int lean[] = {AUTOCOLL_BCAST,     AUTOCOLL_REDUCE,   AUTOCOLL_ALLREDUCE,
                        AUTOCOLL_ALLGATHER, AUTOCOLL_ALLTOALL, AUTOCOLL_REDUCE_SCATTER_BLOCK,
                        AUTOCOLL_BARRIER};
    for (size_t k = 0; k < sizeof lean / sizeof lean[0]; k++)
        CHECK(seen[lean[k]] >= ITER, "%s: %d records", ac_trace_kind_name(lean[k]), seen[lean[k]]);
    if (!fails) printf("%d ranks: the same records\n", np);
    return fails != 0;
}
