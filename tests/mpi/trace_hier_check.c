/*
 * Checks the stage records of the node-aware calls of trace_hier.c (usage: ac_trace_hier_check
 * DIR NP PPN; nodes of PPN consecutive ranks, PPN >= 2 dividing NP): per call and rank, the
 * trees of the intra-node and inter-node stages (docs/tracing.md, "Stage records of
 * hierarchical calls"; seed 003 §4):
 *  - which runs each rank has: bcast `hier` one intra-node bcast tree on every rank and one
 *    inter-node bcast tree on every node leader; reduce `hier` an intra-node reduce tree and, on
 *    leaders, an inter-node one; allreduce `hierarchical` an intra-node reduce then an
 *    intra-node bcast tree (its leaders' part, recursive doubling, is no tree);
 *  - the labels: an intra-node tree spans the ranks of one node (size PPN, node rank), an
 *    inter-node tree the node leaders (size NP / PPN, node index);
 *  - the shape: a rank's parent lists it as a child and its children name it as parent, one
 *    root per tree, the roots the algorithms use (the bcast root on its node, the leaders
 *    elsewhere and between nodes; the leader of the reduce root's node between nodes);
 *  - the times: every stamp inside the rank's call; on rank 0's clock (file offsets) within the
 *    two ranks' clock uncertainty, a reduce child's t2 before its parent's t1 of it and a bcast
 *    parent's t4 to a child before the child's t3; on a leader, the inter-node bcast tree's t3
 *    before its intra-node tree starts (other nodes) and the intra-node reduce tree's t2 before
 *    the inter-node one starts;
 *  - every run's records give its vertex metrics (ac_part_vertex);
 *  - no whole-call record of allreduce `tree` (tree_rank, tree_vertex, tree_child) when the
 *    tree runs as the leaders' part of allreduce `hierarchical` (the script's last run, fourth
 *    argument `tree`); there every leader has instead an inter-node reduce tree then an
 *    inter-node bcast tree over the leaders (the rank-level tree of allreduce `tree`), the two
 *    with the same root and shape, after the intra-node reduce and before the intra-node bcast;
 *  - with the fourth argument `steps`, the run of trace_hier.c steps (gather, scatter,
 *    allgather, alltoall `hier`): the intra-node trees of every call, stamped by the executors
 *    (gather and scatter `hier`: a gather or scatter tree per node) or by hand (allgather: a flat
 *    gather tree to the leader then a bcast tree from it; alltoall: a flat gather tree to the
 *    leader then a flat scatter tree from it, every member a child of its leader), with the
 *    same checks of labels, shape and stamps (gather trees as reduce trees, scatter trees as
 *    bcast trees), and on a leader the gather's t2 before the next tree's entry.
 *  - Table 1 of a tree that goes one way (docs/tracing.md, "Order matrices of trees that go one
 *    way"), worked out here from the records on its own for the vertex the report's rule names
 *    at p = 6 (nodes of 3: leader 0's intra-node tree; nodes of 2: the inter-node tree of the
 *    leader of the root's node): bcast `hier` from 0 and from NP - 1, reduce `hier` (steps:
 *    alltoall `hier`'s gather tree at leader 0, nodes of 3 and more). Printed as "matrix NAME"
 *    and the rows in the report's form, for the script to compare with the report's.
 * usage: ac_trace_hier_check DIR NP PPN [tree|steps]
 * Prints one line per problem and a summary; exit status 1 if any.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "../../src/trace/trace.h"
#include "trace_hier.h"

static int fails, checked;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checked++;                                                                                 \
        if (!(cond)) {                                                                             \
            if (++fails <= 40) {                                                                   \
                printf(__VA_ARGS__);                                                               \
                printf("\n");                                                                      \
            }                                                                                      \
        }                                                                                          \
    } while (0)

enum { MAXCALL = 4 * AC_TRACE_HIER_ROUNDS, MAXRUN = 4, MAXCH = 64 };

typedef struct {
    int stage, op, ident, count, parent; /* parent: rank in the call's communicator, -1 root */
    int64_t entry, mid;                  /* own clock */
    int nch, child[MAXCH];               /* ranks in the call's communicator */
    int64_t at[MAXCH];                   /* t1 (reduce) or t4 (bcast), own clock */
    int64_t end;                         /* t_out of the part_step after the run, own clock */
} run_t;

typedef struct {
    int seen, kind;
    char inst[32];
    int64_t t_in, t_out;
    int nrun;
    run_t run[MAXRUN];
} call_t;

static call_t calls[MAXCALL + 1][MAXCH]; /* [seq][rank] */
static ac_trace_clock_t clk[MAXCH][2];
static int64_t res[MAXCH];

static int64_t g(int r, int64_t t) { /* rank r's time on rank 0's clock */
    return ac_trace_clock_correct(clk[r], t);
}

static const run_t *find(const call_t *c, int stage, int op) {
    for (int k = 0; k < c->nrun; k++)
        if (c->run[k].stage == stage && c->run[k].op == op) return &c->run[k];
    return NULL;
}

static int has_child(const run_t *x, int r) {
    for (int j = 0; j < x->nch; j++)
        if (x->child[j] == r) return j;
    return -1;
}

/* One tree (stage, op) over the ranks in[] of call seq: shape, root (want_root, or any when
 * -1), times. Returns the root found (-1 none). */
static int check_tree(int seq, int stage, int op, const int *in, int n, int want_root) {
    const char *sn = stage == AC_HIER_INTRA ? "intra-node" : "inter-node";
    const char *on = ac_part_op_name(op);
    int roots = 0, found = -1;
    for (int i = 0; i < n; i++) {
        int r = in[i];
        const run_t *x = find(&calls[seq][r], stage, op);
        if (!x) continue; /* reported by the caller */
        CHECK(x->ident == i && x->count == n,
              "call %d rank %d: %s %s tree: rank %d of %d, expected %d of %d", seq, r, sn, on,
              x->ident, x->count, i, n);
        int member = x->parent < 0;
        for (int j = 0; j < n; j++)
            member |= in[j] == x->parent;
        CHECK(member, "call %d rank %d: %s %s tree: parent %d is not in the tree", seq, r, sn, on,
              x->parent);
        if (x->parent < 0) {
            roots++;
            found = r;
            CHECK(want_root < 0 || r == want_root, "call %d: %s %s tree rooted at %d, expected %d",
                  seq, sn, on, r, want_root);
        } else if (member) {
            int q = x->parent;
            const run_t *y = find(&calls[seq][q], stage, op);
            int j = y ? has_child(y, r) : -1;
            CHECK(j >= 0, "call %d: %s %s tree: rank %d names parent %d, which does not list it",
                  seq, sn, on, r, q);
            if (j >= 0) {
                int64_t tol = res[r] + res[q] + 1000;
                if (ac_part_op_gathers(op))
                    CHECK(g(r, x->mid) <= g(q, y->at[j]) + tol,
                          "call %d: %s %s: rank %d's partial leaves (t2) %lld ns after its "
                          "parent %d saw it (t1)",
                          seq, sn, on, r, (long long)(g(r, x->mid) - g(q, y->at[j])), q);
                else
                    CHECK(g(q, y->at[j]) <= g(r, x->mid) + tol,
                          "call %d: %s %s: parent %d sends to rank %d (t4) %lld ns after it "
                          "has the value (t3)",
                          seq, sn, on, q, r, (long long)(g(q, y->at[j]) - g(r, x->mid)));
            }
        }
        for (int j = 0; j < x->nch; j++) {
            int c = x->child[j];
            const run_t *z = c >= 0 && c < MAXCH ? find(&calls[seq][c], stage, op) : NULL;
            CHECK(z && z->parent == r,
                  "call %d: %s %s tree: rank %d lists child %d, which names "
                  "another parent",
                  seq, sn, on, r, c);
        }
    }
    CHECK(roots == 1, "call %d: %s %s tree over rank %d..: %d roots", seq, sn, on, in[0], roots);
    return found;
}

/* Table 1 at rank v's root run of (stage, op) over the calls seq = first, first + 4, ...: rows
 * the children's arrival order, columns their departure order (reduce, gather: t1 at v against
 * the end of the child's part; bcast, scatter: the child's entry into its run against t4 at v;
 * rank 0's clock; ties by position), printed as "matrix name" and the report's rows. */
static void one_way(const char *name, int first, int maxseq, int v, int stage, int op) {
    static long cnt[MAXCH][MAXCH];
    int n = -1;
    memset(cnt, 0, sizeof cnt);
    for (int seq = first; seq <= maxseq; seq += 4) {
        const run_t *x = find(&calls[seq][v], stage, op);
        CHECK(x && x->parent < 0 && (n < 0 || x->nch == n),
              "call %d: %s: rank %d is not the root of a tree of %d children", seq, name, v, n);
        if (!x || x->parent >= 0 || (n >= 0 && x->nch != n)) continue;
        n = x->nch;
        int64_t a[MAXCH], d[MAXCH];
        int ok = 1;
        for (int j = 0; j < n; j++) {
            int q = x->child[j];
            const run_t *y = q >= 0 && q < MAXCH ? find(&calls[seq][q], stage, op) : NULL;
            ok &= y && y->parent == v && y->end != INT64_MIN;
            if (!ok) break;
            if (ac_part_op_gathers(op)) {
                a[j] = g(v, x->at[j]);
                d[j] = g(q, y->end);
            } else {
                a[j] = g(q, y->entry);
                d[j] = g(v, x->at[j]);
            }
        }
        CHECK(ok, "call %d: %s: a child of rank %d without its run or part end", seq, name, v);
        if (!ok) continue;
        for (int i = 0; i < n; i++) {
            int ra = 0, rd = 0;
            for (int j = 0; j < n; j++) {
                ra += a[j] < a[i] || (a[j] == a[i] && j < i);
                rd += d[j] < d[i] || (d[j] == d[i] && j < i);
            }
            cnt[ra][rd]++;
        }
    }
    printf("matrix %s\n", name);
    for (int i = 0; i < n; i++) {
        long rs = 0;
        for (int j = 0; j < n; j++)
            rs += cnt[i][j];
        printf("| %d |", i + 1);
        for (int j = 0; j < n; j++)
            printf(" %.1f |", rs ? 100.0 * (double)cnt[i][j] / (double)rs : 0);
        printf("\n");
    }
    printf("\n");
}

int main(int argc, char **argv) {
    if (argc != 4 && !(argc == 5 && (!strcmp(argv[4], "tree") || !strcmp(argv[4], "steps")))) {
        fprintf(stderr, "usage: ac_trace_hier_check DIR NP PPN [tree|steps]\n");
        return 2;
    }
    int np = atoi(argv[2]), ppn = atoi(argv[3]);
    int intree = argc == 5 && !strcmp(argv[4], "tree"), steps = argc == 5 && !intree;
    if (np < 2 || np > MAXCH || ppn < 2 || np % ppn) {
        fprintf(stderr, "ac_trace_hier_check: NP 2..%d, PPN >= 2 dividing NP\n", MAXCH);
        return 2;
    }
    int nn = np / ppn, maxseq = 0;
    for (int r = 0; r < np; r++) {
        char path[4096], err[512];
        ac_trace_file_t t;
        snprintf(path, sizeof path, "%s/autocoll-trace.%d.bin", argv[1], r);
        if (ac_trace_read(path, &t, err, sizeof err) != 0) {
            printf("%s\n", err);
            return 1;
        }
        memcpy(clk[r], t.clock, sizeof t.clock);
        for (int k = 0; k < 2; k++)
            res[r] += t.clock[k].residual > 0 ? t.clock[k].residual : 0;
        run_t pend[MAXRUN];
        int npend = 0, lost = 0;
        uint64_t pseq = 0;
        for (uint64_t k = 0; k < t.nrec; k++) {
            const ac_trace_rec_t *x = &t.rec[k];
            if (x->kind == AC_TK_PART_TREE) {
                if (npend == MAXRUN) {
                    lost++;
                    continue;
                }
                run_t *u = &pend[npend++];
                memset(u, 0, sizeof *u);
                *u = (run_t){x->status_source, x->status_tag, x->ident, x->count, x->root,
                             x->t_in,          x->t_out,      0,        {0},      {0},
                             INT64_MIN};
                CHECK(x->peer == r, "rank %d: part_tree record names rank %d", r, x->peer);
                ac_part_vertex_t pv;
                char why[128];
                int used = ac_part_vertex(x, (size_t)(t.nrec - k), &pv, why, sizeof why);
                CHECK(used >= 1, "rank %d: vertex metrics: %s", r, why);
                CHECK(npend == 1 || x->seq == pseq, "rank %d: part records of two calls", r);
                pseq = x->seq;
            } else if (x->kind == AC_TK_PART_CHILD) {
                run_t *u = npend ? &pend[npend - 1] : NULL;
                CHECK(u && u->nch == x->count && x->seq == pseq && x->peer == r,
                      "rank %d: part_child record out of place", r);
                if (u && u->nch < MAXCH) {
                    u->child[u->nch] = x->root;
                    u->at[u->nch++] = ac_part_op_gathers(u->op) ? x->t_in : x->t_out;
                }
            } else if (x->kind == AC_TK_PART_STEP) {
                for (int i = 0; i < npend; i++) /* the part of the runs not yet ended */
                    if (pend[i].end == INT64_MIN) pend[i].end = x->t_out;
            } else if (x->kind >= AC_TK_TREE_RANK && x->kind <= AC_TK_TREE_CHILD) {
                /* Whole-call records of allreduce `tree`: never inside a hierarchical call (a
                 * tree part would name the leaders' communicator as the call's). */
                CHECK(0, "rank %d: %s record (call %llu) inside a hierarchical call", r,
                      ac_trace_kind_name(x->kind), (unsigned long long)x->seq);
            } else if (x->kind < AUTOCOLL_NCOLL) {
                if (x->seq >= 1 && x->seq <= MAXCALL && r < MAXCH) {
                    call_t *c = &calls[x->seq][r];
                    c->seen = 1;
                    c->kind = x->kind;
                    /* The algorithm's name: the instance string up to its parameters. */
                    snprintf(c->inst, sizeof c->inst, "%s",
                             x->inst < t.nstr ? t.str[x->inst] : "?");
                    c->inst[strcspn(c->inst, ":")] = '\0';
                    c->t_in = x->t_in;
                    c->t_out = x->t_out;
                    CHECK(npend == 0 || pseq == x->seq,
                          "rank %d: part records of call %llu before call %llu", r,
                          (unsigned long long)pseq, (unsigned long long)x->seq);
                    memcpy(c->run, pend, sizeof pend);
                    c->nrun = npend;
                    if ((int)x->seq > maxseq) maxseq = (int)x->seq;
                }
                npend = 0;
            }
        }
        CHECK(lost == 0 && npend == 0, "rank %d: %d part records beyond %d runs, %d left over", r,
              lost, MAXRUN, npend);
        ac_trace_file_free(&t);
    }
    CHECK(maxseq == MAXCALL, "%d traced calls, expected %d", maxseq, MAXCALL);
    int nodes[MAXCH], leaders[MAXCH], nruns = 0;
    for (int i = 0; i < nn; i++)
        leaders[i] = i * ppn;
    for (int seq = 1; seq <= maxseq; seq++) {
        for (int r = 0; r < np; r++) {
            const call_t *c = &calls[seq][r];
            CHECK(c->seen, "call %d: no record on rank %d", seq, r);
            if (!c->seen) continue;
            nruns += c->nrun;
            int lead = r % ppn == 0, want[2][4] = {{0}, {0}}; /* [stage][op] */
            if (steps) {
                static const int colls[4] = {AUTOCOLL_GATHER, AUTOCOLL_SCATTER, AUTOCOLL_ALLGATHER,
                                             AUTOCOLL_ALLTOALL};
                int k = (seq - 1) % 4; /* gather, scatter, allgather, alltoall */
                CHECK(c->kind == colls[k] && !strcmp(c->inst, "hier"),
                      "call %d rank %d: collective %d ran %s, expected %d hier", seq, r, c->kind,
                      c->inst, colls[k]);
                want[AC_HIER_INTRA][AC_PART_GATHER] = k != 1;
                want[AC_HIER_INTRA][AC_PART_SCATTER] = k == 1 || k == 3;
                want[AC_HIER_INTRA][AC_PART_BCAST] = k == 2;
            } else if (c->kind == AUTOCOLL_BCAST) {
                CHECK(!strcmp(c->inst, "hier"), "call %d rank %d: bcast ran %s", seq, r, c->inst);
                want[AC_HIER_INTRA][AC_PART_BCAST] = 1;
                want[AC_HIER_INTER][AC_PART_BCAST] = lead && nn > 1;
            } else if (c->kind == AUTOCOLL_REDUCE) {
                CHECK(!strcmp(c->inst, "hier"), "call %d rank %d: reduce ran %s", seq, r, c->inst);
                want[AC_HIER_INTRA][AC_PART_REDUCE] = 1;
                want[AC_HIER_INTER][AC_PART_REDUCE] = lead && nn > 1;
            } else if (c->kind == AUTOCOLL_ALLREDUCE) {
                CHECK(!strcmp(c->inst, "hierarchical"), "call %d rank %d: allreduce ran %s", seq, r,
                      c->inst);
                want[AC_HIER_INTRA][AC_PART_REDUCE] = want[AC_HIER_INTRA][AC_PART_BCAST] = 1;
                want[AC_HIER_INTER][AC_PART_REDUCE] = want[AC_HIER_INTER][AC_PART_BCAST] =
                    intree && lead && nn > 1;
            } else {
                CHECK(0, "call %d rank %d: unexpected collective %d", seq, r, c->kind);
            }
            int got[2][4] = {{0}, {0}};
            for (int k = 0; k < c->nrun; k++) {
                const run_t *x = &c->run[k];
                int ok = (x->stage == 0 || x->stage == 1) && x->op >= 0 && x->op < 4;
                CHECK(ok, "call %d rank %d: run %d: stage %d op %d", seq, r, k, x->stage, x->op);
                if (!ok) continue;
                got[x->stage][x->op]++;
                CHECK(c->t_in <= x->entry && x->entry <= x->mid && x->mid <= c->t_out,
                      "call %d rank %d: run %d: stamps outside the call", seq, r, k);
                for (int j = 0; j < x->nch; j++)
                    CHECK(c->t_in <= x->at[j] && x->at[j] <= c->t_out,
                          "call %d rank %d: run %d child %d: stamp outside the call", seq, r, k, j);
            }
            for (int s = 0; s < 2; s++)
                for (int o = 0; o < 4; o++)
                    CHECK(got[s][o] == want[s][o],
                          "call %d rank %d (%s): %d %s %s trees, expected %d", seq, r, c->inst,
                          got[s][o], s ? "inter-node" : "intra-node", ac_part_op_name(o),
                          want[s][o]);
            /* allgather, alltoall: the gather's t2 before the bcast or scatter tree starts */
            const run_t *gt = find(c, AC_HIER_INTRA, AC_PART_GATHER),
                        *sp = find(c, AC_HIER_INTRA, AC_PART_SCATTER);
            if (!sp) sp = find(c, AC_HIER_INTRA, AC_PART_BCAST);
            if (gt && sp)
                CHECK(gt->mid <= sp->entry,
                      "call %d rank %d: the intra-node gather ends after "
                      "the next tree starts",
                      seq, r);
            /* Stage order on a leader. */
            const run_t *ib = find(c, AC_HIER_INTER, AC_PART_BCAST),
                        *lb = find(c, AC_HIER_INTRA, AC_PART_BCAST),
                        *ir = find(c, AC_HIER_INTER, AC_PART_REDUCE),
                        *lr = find(c, AC_HIER_INTRA, AC_PART_REDUCE);
            if (ib && lb && ib->parent >= 0)
                CHECK(ib->mid <= lb->entry,
                      "call %d leader %d: intra-node bcast starts before the "
                      "inter-node value arrived",
                      seq, r);
            if (ir && lr)
                CHECK(lr->mid <= ir->entry,
                      "call %d leader %d: inter-node reduce starts before the "
                      "node's result",
                      seq, r);
            if (ir && ib) /* allreduce `tree` among the leaders: reduce, then bcast */
                CHECK(ir->mid <= ib->entry && ib->mid <= (lb ? lb->entry : c->t_out) &&
                          ir->parent == ib->parent && ir->nch == ib->nch,
                      "call %d leader %d: leaders' reduce and bcast trees out of order or "
                      "of different shapes",
                      seq, r);
        }
        /* Trees. */
        const call_t *c0 = &calls[seq][0];
        int root = -1;
        if (steps) {
            for (int nd = 0; nd < nn; nd++) {
                for (int i = 0; i < ppn; i++)
                    nodes[i] = nd * ppn + i;
                int lead = nd * ppn,
                    hand = c0->kind == AUTOCOLL_ALLGATHER || c0->kind == AUTOCOLL_ALLTOALL;
                if (c0->kind != AUTOCOLL_SCATTER)
                    check_tree(seq, AC_HIER_INTRA, AC_PART_GATHER, nodes, ppn, hand ? lead : -1);
                if (c0->kind == AUTOCOLL_SCATTER || c0->kind == AUTOCOLL_ALLTOALL)
                    check_tree(seq, AC_HIER_INTRA, AC_PART_SCATTER, nodes, ppn, hand ? lead : -1);
                if (c0->kind == AUTOCOLL_ALLGATHER)
                    check_tree(seq, AC_HIER_INTRA, AC_PART_BCAST, nodes, ppn, lead);
                /* written out by hand: a flat gather (both) and a flat scatter (alltoall) */
                const run_t *fg = find(&calls[seq][lead], AC_HIER_INTRA, AC_PART_GATHER),
                            *fs = find(&calls[seq][lead], AC_HIER_INTRA, AC_PART_SCATTER);
                if (hand)
                    CHECK(fg && fg->nch == ppn - 1,
                          "call %d leader %d: gather tree with %d children, expected %d", seq, lead,
                          fg ? fg->nch : -1, ppn - 1);
                if (c0->kind == AUTOCOLL_ALLTOALL)
                    CHECK(fs && fs->nch == ppn - 1,
                          "call %d leader %d: scatter tree with %d children, expected %d", seq,
                          lead, fs ? fs->nch : -1, ppn - 1);
            }
            continue;
        }
        if (c0->kind == AUTOCOLL_BCAST) {
            int k = (seq - 1) % 4; /* bcast 0, bcast np-1, reduce, allreduce */
            root = k == 0 ? 0 : np - 1;
        } else if (c0->kind == AUTOCOLL_REDUCE) {
            root = 1;
        }
        for (int nd = 0; nd < nn; nd++) {
            for (int i = 0; i < ppn; i++)
                nodes[i] = nd * ppn + i;
            if (c0->kind == AUTOCOLL_BCAST) {
                check_tree(seq, AC_HIER_INTRA, AC_PART_BCAST, nodes, ppn,
                           root / ppn == nd ? root : nd * ppn);
            } else {
                check_tree(seq, AC_HIER_INTRA, AC_PART_REDUCE, nodes, ppn, nd * ppn);
                if (c0->kind == AUTOCOLL_ALLREDUCE)
                    check_tree(seq, AC_HIER_INTRA, AC_PART_BCAST, nodes, ppn, nd * ppn);
            }
        }
        if (nn > 1 && root >= 0)
            check_tree(seq, AC_HIER_INTER,
                       c0->kind == AUTOCOLL_BCAST ? AC_PART_BCAST : AC_PART_REDUCE, leaders, nn,
                       (root / ppn) * ppn);
        if (nn > 1 && intree && c0->kind == AUTOCOLL_ALLREDUCE) {
            int rr = check_tree(seq, AC_HIER_INTER, AC_PART_REDUCE, leaders, nn, -1);
            check_tree(seq, AC_HIER_INTER, AC_PART_BCAST, leaders, nn, rr);
        }
    }
    /* Table 1 of the trees that go one way (the vertex by the report's rule at p = 6). */
    if (steps && ppn >= 3) {
        one_way("alltoall", 4, maxseq, 0, AC_HIER_INTRA, AC_PART_GATHER);
    } else if (!steps && !intree) {
        int st = ppn >= 3 ? AC_HIER_INTRA : AC_HIER_INTER;
        one_way("bcast0", 1, maxseq, 0, st, AC_PART_BCAST);
        one_way("bcastlast", 2, maxseq, st == AC_HIER_INTRA ? 0 : (np - 1) / ppn * ppn, st,
                AC_PART_BCAST);
        one_way("reduce", 3, maxseq, st == AC_HIER_INTRA ? 0 : 1 / ppn * ppn, st, AC_PART_REDUCE);
    }
    printf("%d calls, %d tree runs, %d checks, %d failed\n", maxseq, nruns, checked, fails);
    return fails != 0;
}
