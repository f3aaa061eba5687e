/*
 * Checks the trace files that trace_calls.c leaves (usage: ac_trace_check DIR NP): every rank's
 * file exists and parses, and holds exactly the calls of trace_calls.h on MPI_COMM_WORLD (kind,
 * selection size, root, call numbers 1..N in order, this rank and the size, one communicator key
 * the same on every rank), the forced broadcast's instance name at every broadcast, and on the
 * even ranks the allreduce calls of the split communicator under another key. Clock estimates
 * and the network model must be present. Prints one line per problem; exit status 1 if any.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "../../src/trace/trace.h"
#include "trace_calls.h"

#include "check_line.h"

/* The records of trace_p2p.c on rank r of np. */
static void check_p2p(const ac_trace_file_t *t, const char *path, int r, int np) {
    int right = (r + 1) % np, left = (r + np - 1) % np;
    uint64_t i = 0;
    int32_t sid[2] = {-1, -1}, rid[2] = {-1, -1};
#define NEXT(K)                                                                                    \
    do {                                                                                           \
        if (i >= t->nrec) {                                                                        \
            CHECK(0, "%s: %llu records, expected more", path, (unsigned long long)t->nrec);        \
            return;                                                                                \
        }                                                                                          \
        x = &t->rec[i++];                                                                          \
        CHECK(x->kind == (K), "%s: record %llu is %s, expected %s", path,                          \
              (unsigned long long)i - 1, ac_trace_kind_name(x->kind), ac_trace_kind_name(K));      \
    } while (0)
    const ac_trace_rec_t *x;
    for (int it = 0; it < TP_ITER; it++) {
        for (int k = 0; k < 2; k++) {
            NEXT(AC_TK_IRECV);
            CHECK(x->peer == (k ? right : left) && x->tag == k + 1 && x->count == 1 &&
                      x->bytes == sizeof(int) && x->ident >= 0 && !(x->flags & AC_TF_WILDCARD),
                  "%s: irecv %d of iteration %d: peer %d tag %d count %d ident %d", path, k, it,
                  x->peer, x->tag, x->count, x->ident);
            if (it == 0) rid[k] = x->ident;
            CHECK(x->ident == rid[k], "%s: irecv %d of iteration %d: identifier %d, not %d", path,
                  k, it, x->ident, rid[k]);
        }
        for (int k = 0; k < 2; k++) {
            NEXT(AC_TK_ISEND);
            CHECK(x->peer == (k ? left : right) && x->tag == k + 1 && x->bytes == sizeof(int) &&
                      x->root == x->peer && x->seq == t->rec[0].seq,
                  "%s: isend %d of iteration %d: peer %d (world %d) tag %d key %llu", path, k, it,
                  x->peer, x->root, x->tag, (unsigned long long)x->seq);
            if (it == 0) sid[k] = x->ident;
            CHECK(x->ident == sid[k], "%s: isend %d of iteration %d: identifier %d, not %d", path,
                  k, it, x->ident, sid[k]);
        }
        NEXT(AC_TK_WAITALL);
        /* format 2: one completion per Irecv, in request order, naming its serial, the world
         * rank of its status source and the communicator's key */
        uint32_t s0 = t->rec[i - 5].inst, s1 = t->rec[i - 4].inst;
        for (int k = 0; k < 2; k++) {
            NEXT(AC_TK_RECV_DONE);
            CHECK(x->inst == (k ? s1 : s0) && (k == 0 || s1 == s0 + 1) &&
                      x->root == (k ? right : left) && x->status_source == (k ? right : left) &&
                      x->status_tag == k + 1 && x->seq == t->rec[0].seq && x->seq != 0 &&
                      x->t_in == t->rec[i - 2 - k].t_in,
                  "%s: completion %d of iteration %d: serial %u (irecvs %u %u), world source %d, "
                  "status %d/%d, key %llu, t_in %lld (waitall %lld)",
                  path, k, it, x->inst, s0, s1, x->root, x->status_source, x->status_tag,
                  (unsigned long long)x->seq, (long long)x->t_in,
                  (long long)t->rec[i - 2 - k].t_in);
        }
    }
    /* with p = 2 left and right are one destination: one send identifier */
    CHECK(np == 2 ? sid[0] == sid[1] : (sid[0] == 0 && sid[1] == 1),
          "%s: send identifiers %d %d (dense, first-seen order, one per <dest, comm>)", path,
          sid[0], sid[1]);
    CHECK(rid[0] == 0 && rid[1] == 1, "%s: receive identifiers %d %d", path, rid[0], rid[1]);
    NEXT(AC_TK_SENDRECV_REPLACE);
    CHECK((x->flags & AC_TF_REPLACE_RECV) && x->ident == sid[0] && x->status_source == left,
          "%s: sendrecv_replace: flags 0x%x ident %d status source %d", path, x->flags, x->ident,
          x->status_source);
    NEXT(AC_TK_SEND);
    NEXT(AC_TK_RECV);
    CHECK((x->flags & AC_TF_WILDCARD) && x->status_source == left && x->peer == MPI_ANY_SOURCE &&
              x->root == AC_TRACE_NONE && x->inst == (uint32_t)left,
          "%s: wildcard recv: flags 0x%x, status source %d (world %u), peer world %d", path,
          x->flags, x->status_source, x->inst, x->root);
    int32_t dup_send[2], dup_comm[2];
    uint64_t dup_key[2];
    for (int k = 0; k < 2; k++) {
        NEXT(AC_TK_SEND);
        dup_send[k] = x->ident;
        dup_comm[k] = (int32_t)x->comm;
        dup_key[k] = x->seq;
        NEXT(AC_TK_RECV);
        CHECK(x->seq == dup_key[k] && x->root == left && x->inst == (uint32_t)left,
              "%s: recv on duplicate %d: key %llu (send's %llu), world peer %d, status %u", path, k,
              (unsigned long long)x->seq, (unsigned long long)dup_key[k], x->root, x->inst);
    }
    /* keys made without communication: the same on every rank (keys[] of rank 0) */
    static uint64_t keys[3];
    if (r == 0) {
        keys[0] = t->rec[0].seq;
        keys[1] = dup_key[0];
        keys[2] = dup_key[1];
    }
    CHECK(t->rec[0].seq == keys[0] && dup_key[0] == keys[1] && dup_key[1] == keys[2] &&
              dup_key[0] && dup_key[1] && dup_key[0] != dup_key[1] && dup_key[0] != t->rec[0].seq &&
              dup_key[1] != t->rec[0].seq,
          "%s: communicator keys world %llu, duplicates %llu %llu; rank 0's %llu %llu %llu", path,
          (unsigned long long)t->rec[0].seq, (unsigned long long)dup_key[0],
          (unsigned long long)dup_key[1], (unsigned long long)keys[0], (unsigned long long)keys[1],
          (unsigned long long)keys[2]);
    CHECK(dup_send[0] != dup_send[1] && dup_send[0] != sid[0] && dup_send[1] != sid[0] &&
              dup_comm[0] != dup_comm[1],
          "%s: sends on two successive duplicates share identifier %d / %d (comm %d / %d)", path,
          dup_send[0], dup_send[1], dup_comm[0], dup_comm[1]);
    CHECK(i == t->nrec, "%s: %llu records, expected %llu", path, (unsigned long long)t->nrec,
          (unsigned long long)i);
}

/* The records of trace_p2p.c --persistent on rank r of np: every start a send or a receive with
 * the request's arguments and a stable identifier; every receive start has the next serial
 * (4 per iteration: 4n .. 4n + 3 in start order) and after the MPI_Waitall that completes it a
 * completion record (in request order) with that serial, the Waitall's entry as its time, the
 * sender's world rank and tag as status, the start's identifier and key; after MPI_Request_free
 * a plain Irecv (serial 4 x TP_PITER) and Isend traced as such. */
static void check_persistent(const ac_trace_file_t *t, const char *path, int r, int np) {
    int right = (r + 1) % np, left = (r + np - 1) % np;
    uint64_t i = 0, key = 0;
    const ac_trace_rec_t *x;
    /* kind, peer, tag, count, receive side, send identifier index (0 right, 1 left) or receive
     * identifier (first-seen order) */
    struct {
        int kind, peer, tag, count, recv, id;
    } it[8] = {{AC_TK_STARTALL, left, 6, 2, 1, 0},  {AC_TK_STARTALL, right, 7, 1, 1, 1},
               {AC_TK_START, right, 6, 2, 0, 0},    {AC_TK_START, left, 7, 1, 0, 1},
               {AC_TK_START, left, 8, 1, 1, 2},     {AC_TK_START, right, 9, 1, 1, 3},
               {AC_TK_STARTALL, right, 8, 1, 0, 0}, {AC_TK_STARTALL, left, 9, 1, 0, 1}};
    int32_t sid[2] = {np == 2 ? 0 : 0, np == 2 ? 0 : 1};
    uint32_t serial = 0;
    for (int n = 0; n < TP_PITER; n++)
        for (int k = 0; k < 8; k++) {
            NEXT(it[k].kind);
            uint8_t fl = (uint8_t)(AC_TF_PERSISTENT | (it[k].recv ? AC_TF_RECV_SIDE : 0));
            int32_t id = it[k].recv ? it[k].id : sid[it[k].id];
            uint32_t inst = it[k].recv ? serial++ : AC_TRACE_NOID;
            if (!key) key = x->seq;
            CHECK(x->peer == it[k].peer && x->root == it[k].peer && x->tag == it[k].tag &&
                      x->count == it[k].count && x->bytes == (uint64_t)it[k].count * sizeof(int) &&
                      x->flags == fl && x->ident == id && x->inst == inst && x->seq == key &&
                      key != 0,
                  "%s: start %d of iteration %d: %s peer %d (world %d) tag %d count %d bytes %llu "
                  "flags 0x%x ident %d inst %u key %llu; expected peer %d tag %d count %d flags "
                  "0x%x ident %d",
                  path, k, n, ac_trace_kind_name(x->kind), x->peer, x->root, x->tag, x->count,
                  (unsigned long long)x->bytes, x->flags, x->ident, x->inst,
                  (unsigned long long)x->seq, it[k].peer, it[k].tag, it[k].count, fl, id);
            /* the records of one MPI_Startall tile its time */
            if ((k == 1 || k == 7) && i >= 2)
                CHECK(t->rec[i - 2].t_out == x->t_in,
                      "%s: Startall records of iteration %d: "
                      "%lld, %lld",
                      path, n, (long long)t->rec[i - 2].t_out, (long long)x->t_in);
            if (k != 3 && k != 7) continue;
            NEXT(AC_TK_WAITALL);
            int64_t tw = x->t_in;
            /* the two receives of this Waitall: it[k - 3] and it[k - 2], the last two serials */
            for (int m = k - 3; m <= k - 2; m++) {
                NEXT(AC_TK_RECV_DONE);
                CHECK(x->inst == serial - 2u + (uint32_t)(m - (k - 3)) && x->t_in == tw &&
                          x->root == it[m].peer && x->status_tag == it[m].tag &&
                          x->ident == it[m].id && x->seq == key,
                      "%s: completion %d of iteration %d: serial %u t_in %lld (wait %lld) "
                      "source %d tag %d ident %d",
                      path, m - (k - 3), n, x->inst, (long long)x->t_in, (long long)tw, x->root,
                      x->status_tag, x->ident);
            }
        }
    NEXT(AC_TK_IRECV);
    CHECK(x->peer == left && x->tag == 10 && x->ident == 4 && !(x->flags & AC_TF_PERSISTENT) &&
              x->inst == serial,
          "%s: irecv after the frees: peer %d tag %d ident %d flags 0x%x serial %u", path, x->peer,
          x->tag, x->ident, x->flags, x->inst);
    NEXT(AC_TK_ISEND);
    CHECK(x->peer == right && x->ident == sid[0] && !(x->flags & AC_TF_PERSISTENT),
          "%s: isend after the frees: peer %d ident %d flags 0x%x", path, x->peer, x->ident,
          x->flags);
    NEXT(AC_TK_WAITALL);
    NEXT(AC_TK_RECV_DONE);
    CHECK(x->root == left && x->status_tag == 10, "%s: completion of the irecv: source %d tag %d",
          path, x->root, x->status_tag);
    CHECK(i == t->nrec, "%s: %llu records, expected %llu", path, (unsigned long long)t->nrec,
          (unsigned long long)i);
}

int main(int argc, char **argv) {
    if (argc != 3 && !(argc == 4 && (!strcmp(argv[3], "p2p") || !strcmp(argv[3], "persistent")))) {
        fprintf(stderr, "usage: ac_trace_check DIR NP [p2p|persistent]\n");
        return 2;
    }
    int np = atoi(argv[2]), p2p = argc == 4, pers = p2p && !strcmp(argv[3], "persistent");
    uint32_t world_comm = 0, sub_comm = 0;
    for (int r = 0; r < np; r++) {
        char path[4096], err[1024];
        snprintf(path, sizeof path, "%s/autocoll-trace.%d.bin", argv[1], r);
        ac_trace_file_t t;
        if (ac_trace_read(path, &t, err, sizeof err) != 0) {
            CHECK(0, "rank %d: %s", r, err);
            continue;
        }
        CHECK(t.rank == r && t.nprocs == np, "%s: rank %d of %d in the header", path, t.rank,
              t.nprocs);
        CHECK(t.drops == 0, "%s: %llu drops", path, (unsigned long long)t.drops);
        double al, be;
        CHECK(ac_trace_file_net(&t, &al, &be) == 0 && al > 0, "%s: no network model", path);
        CHECK(t.clock[0].residual >= 0 && t.clock[1].residual >= 0 &&
                  (r > 0 || (t.clock[0].offset == 0 && t.clock[1].offset == 0)),
              "%s: clock estimates missing (residuals %lld %lld)", path,
              (long long)t.clock[0].residual, (long long)t.clock[1].residual);
        if (p2p) {
            /* the wrapper overheads calibrated at MPI_Init (spec 2.3): every class present, entry
             * in (0, 100 us), exit in [0, 100 us) (two clock reads apart: may round to 0) */
            double oe[AC_WRAP_NCLASS], ox[AC_WRAP_NCLASS];
            int wr = ac_trace_file_wrap(&t, oe, ox), good = wr == 0;
            for (int c = 0; c < AC_WRAP_NCLASS; c++)
                good &= oe[c] > 0 && ox[c] >= 0 && oe[c] < 1e5 && ox[c] < 1e5;
            CHECK(good,
                  "%s: wrapper overheads missing or implausible (send %g/%g recv %g/%g other %g/%g "
                  "ns)",
                  path, oe[0], ox[0], oe[1], ox[1], oe[2], ox[2]);
            if (pers)
                check_persistent(&t, path, r, np);
            else
                check_p2p(&t, path, r, np);
            goto next;
        }
        uint64_t i = 0, seq = 0, sub = 0;
        for (int c = 0; c < TC_NWORLD; c++)
            for (int k = 0; k < tc_world[c].calls; k++) {
                /* the split communicator's records come after the world's */
                const tc_call_t *e = &tc_world[c];
                if (i >= t.nrec) {
                    CHECK(0, "%s: only %llu records, expected more %s calls", path,
                          (unsigned long long)t.nrec, ac_coll_name(e->coll));
                    goto next;
                }
                const ac_trace_rec_t *x = &t.rec[i++];
                seq++;
                if (r == 0 && seq == 1) world_comm = x->comm;
                CHECK(x->kind == e->coll, "%s: record %llu: %s, expected %s", path,
                      (unsigned long long)i - 1, ac_trace_kind_name(x->kind),
                      ac_coll_name(e->coll));
                CHECK(x->bytes == (uint64_t)e->count * (uint64_t)e->elem,
                      "%s: record %llu (%s): %llu B, expected %d", path, (unsigned long long)i - 1,
                      ac_coll_name(e->coll), (unsigned long long)x->bytes, e->count * e->elem);
                CHECK(x->root == (e->root < 0 ? AC_TRACE_NONE : e->root),
                      "%s: record %llu: root %d, expected %d", path, (unsigned long long)i - 1,
                      x->root, e->root);
                CHECK(x->seq == seq && x->peer == 0 && x->comm == world_comm && x->ident == r &&
                          x->count == np,
                      "%s: record %llu: call %llu, comm %d.%u, rank %d of %d; expected call %llu "
                      "of comm 0.%u, rank %d of %d",
                      path, (unsigned long long)i - 1, (unsigned long long)x->seq, x->peer, x->comm,
                      x->ident, x->count, (unsigned long long)seq, world_comm, r, np);
                CHECK(x->inst < t.nstr && x->src != AC_TRACE_NOSRC && !(x->flags & AC_TF_ERROR),
                      "%s: record %llu: no instance or decision source", path,
                      (unsigned long long)i - 1);
                if (e->coll == AUTOCOLL_BCAST && x->inst < t.nstr)
                    CHECK(!strcmp(t.str[x->inst], TC_BCAST_INST) && x->src == 1,
                          "%s: record %llu: bcast ran %s (source %u), expected forced %s", path,
                          (unsigned long long)i - 1, t.str[x->inst], x->src, TC_BCAST_INST);
            }
        for (; i < t.nrec; i++) {
            const ac_trace_rec_t *x = &t.rec[i];
            sub++;
            if (r == 0 && sub == 1) sub_comm = x->comm;
            CHECK(r % 2 == 0 && x->kind == AUTOCOLL_ALLREDUCE && x->bytes == 16 && x->seq == sub &&
                      x->peer == 0 && x->comm == sub_comm && sub_comm != world_comm &&
                      x->ident == r / 2 && x->count == (np + 1) / 2,
                  "%s: record %llu: %s of %llu B, call %llu, comm %d.%u, rank %d of %d: not an "
                  "expected allreduce of the split communicator",
                  path, (unsigned long long)i, ac_trace_kind_name(x->kind),
                  (unsigned long long)x->bytes, (unsigned long long)x->seq, x->peer, x->comm,
                  x->ident, x->count);
        }
        CHECK(sub == (r % 2 == 0 ? TC_SUB_ALLREDUCE : 0u), "%s: %llu split-communicator calls",
              path, (unsigned long long)sub);
    next:
        ac_trace_file_free(&t);
    }
    printf("%s: %d problem%s\n", argv[0], fails, fails == 1 ? "" : "s");
    return fails ? 1 : 0;
}
