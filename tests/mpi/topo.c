/*
 * Topology-specific algorithms under real MPI (docs/topology.md): every instance of alltoall
 * topo_aapc and topo_aapc_notoken (every synchronisation scheme of Table 3.5, dummy included),
 * allgather/allgatherv topo_ring, bcast topo_chain/topo_tree, reduce topo_chain and allreduce
 * topo_rab1 and every instance of topo_rab2/topo_rab2_token (the same schemes; also with a
 * non-commutative operation) is forced and its result compared byte for byte, on every rank,
 * with the MPI library's own
 * collective (PMPI_*), on MPI_COMM_WORLD and on sub-communicators (every rank but world rank 0;
 * the even world ranks, in reverse order). Sizes: 0, 1, 7 and 3001 elements of MPI_INT (the
 * latter cut into several pipeline segments), bcast/reduce from every root.
 *
 *   topo --expect use       AUTOCOLL_TOPOLOGY is valid: the forced instance must have served
 *                           every call (autocoll_last_choice)
 *   topo --expect fallback  no or a bad topology: the forced instance must never serve a call
 *                           (the library's fallback does), results still correct
 *   --quick                 large p in SimGrid: bcast and reduce from roots 0, p/3 and p-1 only,
 *                           and counts 0, 7 and 301 (301 still cuts into several pipeline
 *                           segments of the 64 and 1024 B instances)
 *   --large                 p > 100 in SimGrid, where a call of an AAPC instance makes
 *                           thousands of phases: --quick on MPI_COMM_WORLD only (sub-communicators
 *                           are checked at p = 64), counts 7 and 301, each alltoall and allreduce
 *                           instance at one of them (by turns) and in place or not (by turns),
 *                           alltoall's reference computed once per count
 *   --tokens                p > 256 in SimGrid, where every rank derives its own tokens: --large
 *                           for the lines with tokens only (topo_aapc, topo_rab2_token), their
 *                           full and barrier-combined schemes (the partial ones post so many
 *                           early tokens that SMPI's linear matching takes many minutes there;
 *                           the unit tests check their per-rank sets), alltoall at 7 elements
 *                           and allreduce at 301
 * Exit status 0 when every check passed on every rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"

static int use_expected = 1, bad = 0, quick = 0, large = 0, tokens_only = 0;

/* --tokens: instance inst of an alltoall or allreduce line is left out */
static int skipped(const char *inst) {
    return tokens_only &&
           (!(strstr(inst, "sender") || strstr(inst, "receiver")) || strstr(inst, "_part"));
}

static void check_choice(MPI_Comm comm, int coll, const char *alg, const char *what) {
    char buf[256];
    autocoll_last_choice(comm, coll, buf, sizeof buf);
    size_t n = strlen(alg);
    int used = !strncmp(buf, alg, n) && (buf[n] == '\0' || buf[n] == ':');
    if (used != use_expected) {
        fprintf(stderr, "%s: served by '%s', expected %s%s\n", what, buf,
                use_expected ? "" : "anything but ", alg);
        bad++;
    }
}

static void cmp(const void *x, const void *y, size_t bytes, const char *what) {
    if (memcmp(x, y, bytes)) {
        fprintf(stderr, "%s: result differs from the MPI library's\n", what);
        bad++;
    }
}

static int val(int rank, int i, int salt) {
    return rank * 1000003 + i * 7919 + salt * 31 + 1;
}

/* 2x2 matrices of unsigned int (row major), multiplied modulo 2^32: associative, exact, not
 * commutative. MPI: inout = in op inout, in holding the lower ranks' contributions. */
static MPI_Datatype mat_type;
static MPI_Op mat_op;
static void mat_mul(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    const unsigned *a = in;
    unsigned *b = inout;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        unsigned c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                         a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

static void run(MPI_Comm comm, const char *cname) {
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    /* --quick: 7 elements stand for 1 as well (both fewer than p) */
    static const int all[] = {0, 1, 7, 3001}, few[] = {0, 7, 301};
    const int *counts = large ? few + 1 : quick ? few : all, ncounts = large ? 2 : quick ? 3 : 4;
    char what[512], inst[200];
    for (int ci = 0; ci < ncounts; ci++) {
        int n = counts[ci];
        size_t tot = (size_t)n * (size_t)p;
        int *s = malloc((tot + 1) * sizeof *s), *r = malloc((tot + 1) * sizeof *r),
            *x = malloc((tot + 1) * sizeof *x);
        int *rc = malloc((size_t)p * sizeof *rc), *rd = malloc((size_t)p * sizeof *rd);
        /* alltoall: every instance of topo_aapc (token schemes) and topo_aapc_notoken (nosync,
         * dummy, barriers), then schemes that are no candidate but can be forced */
        int coll = autocoll_coll_from_name("alltoall");
        static const char *a2a_algs[] = {"topo_aapc", "topo_aapc_notoken"};
        static const char *extra[] = {"topo_aapc:sync=receiver_part4",
                                      "topo_aapc:sync=bar_receiver4",
                                      "topo_aapc:sync=sender_part2",
                                      "topo_aapc:sync=nosync",
                                      "topo_aapc:sync=dummy",
                                      "topo_aapc_notoken:sync=bar_none2",
                                      "topo_aapc_notoken:sync=bar_none16"};
        enum { NEXTRA = sizeof extra / sizeof extra[0] };
        int ref_ok = 0; /* --large: one reference per count (send data the same for every
                         * instance) */
        for (int ai = 0; ai < 3; ai++) {
            int idx = -1, ninst = NEXTRA;
            for (int k = 0; ai < 2 && k < autocoll_alg_count(coll); k++) {
                autocoll_alg_info_t inf;
                autocoll_alg_info(coll, k, &inf);
                if (!strcmp(inf.name, a2a_algs[ai])) idx = k;
            }
            if (ai < 2) ninst = autocoll_instance_count(coll, idx);
            for (int i = 0; i < ninst; i++) {
                if (ai < 2)
                    autocoll_instance_name(coll, idx, i, inst, sizeof inst);
                else
                    snprintf(inst, sizeof inst, "%s", extra[i]);
                char alg[64];
                snprintf(alg, sizeof alg, "%.*s", (int)strcspn(inst, ":"), inst);
                if (skipped(inst) || (large && !tokens_only && i % 2 != ci) ||
                    (tokens_only && ci != 0))
                    continue;
                for (int in_place = 0; in_place < 2; in_place++) {
                    if (large && in_place != (i / 2 + ai) % 2) continue;
                    for (size_t k = 0; k < tot; k++)
                        s[k] = val(me, (int)k, large ? 0 : i), r[k] = -1;
                    autocoll_force(coll, inst);
                    if (in_place) {
                        memcpy(r, s, tot * sizeof *r);
                        MPI_Alltoall(MPI_IN_PLACE, n, MPI_INT, r, n, MPI_INT, comm);
                    } else {
                        MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, comm);
                    }
                    autocoll_force(coll, NULL);
                    if (!ref_ok) {
                        for (size_t k = 0; k < tot; k++)
                            x[k] = -1;
                        PMPI_Alltoall(s, n, MPI_INT, x, n, MPI_INT, comm);
                        ref_ok = large;
                    }
                    snprintf(what, sizeof what, "%s p=%d rank %d alltoall %s n=%d%s", cname, p, me,
                             inst, n, in_place ? " in place" : "");
                    cmp(r, x, tot * sizeof *r, what);
                    check_choice(comm, coll, alg, what);
                }
            }
        }
        /* allgather and allgatherv (counts vary by rank: n + rank mod 3, block order reversed) */
        for (int v = 0; v < 2 && !tokens_only; v++) {
            coll = autocoll_coll_from_name(v ? "allgatherv" : "allgather");
            size_t span = 0;
            for (int q = 0; q < p; q++)
                rc[q] = v ? n + q % 3 : n;
            for (int q = p - 1; q >= 0; q--)
                rd[q] = (int)span, span += (size_t)rc[q];
            int *rv = malloc((span + 1) * sizeof *rv), *xv = malloc((span + 1) * sizeof *xv);
            for (size_t k = 0; k < (size_t)rc[me]; k++)
                s[k] = val(me, (int)k, 5 + v);
            for (size_t k = 0; k < span; k++)
                rv[k] = xv[k] = -1;
            autocoll_force(coll, "topo_ring");
            if (v)
                MPI_Allgatherv(s, rc[me], MPI_INT, rv, rc, rd, MPI_INT, comm);
            else
                MPI_Allgather(s, n, MPI_INT, rv, n, MPI_INT, comm);
            autocoll_force(coll, NULL);
            if (v)
                PMPI_Allgatherv(s, rc[me], MPI_INT, xv, rc, rd, MPI_INT, comm);
            else
                PMPI_Allgather(s, n, MPI_INT, xv, n, MPI_INT, comm);
            snprintf(what, sizeof what, "%s p=%d rank %d %s topo_ring n=%d", cname, p, me,
                     v ? "allgatherv" : "allgather", n);
            cmp(rv, xv, (v ? span : tot) * sizeof *rv, what);
            check_choice(comm, coll, "topo_ring", what);
            free(rv), free(xv);
        }
        /* bcast and reduce from every root */
        static const char *bc[] = {"topo_chain:seg=8192", "topo_chain:seg=1024",
                                   "topo_tree:seg=8192", "topo_tree:seg=64"};
        static const char *rd_inst[] = {"topo_chain:seg=8192", "topo_chain:seg=64"};
        for (int root = 0; root < p && !tokens_only; root++) {
            if (quick && root != 0 && root != p / 3 && root != p - 1) continue;
            coll = autocoll_coll_from_name("bcast");
            for (int b = 0; b < 4; b++) {
                for (int k = 0; k < n; k++)
                    r[k] = me == root ? val(root, k, b) : -1;
                autocoll_force(coll, bc[b]);
                MPI_Bcast(r, n, MPI_INT, root, comm);
                autocoll_force(coll, NULL);
                for (int k = 0; k < n; k++)
                    x[k] = val(root, k, b);
                snprintf(what, sizeof what, "%s p=%d rank %d bcast %s root %d n=%d", cname, p, me,
                         bc[b], root, n);
                cmp(r, x, (size_t)n * sizeof *r, what);
                check_choice(comm, coll, bc[b][5] == 'c' ? "topo_chain" : "topo_tree", what);
            }
            coll = autocoll_coll_from_name("reduce");
            for (int b = 0; b < 2; b++)
                for (int in_place = 0; in_place < 2; in_place++) {
                    for (int k = 0; k < n; k++)
                        s[k] = val(me, k, b), r[k] = x[k] = -1;
                    int ip = in_place && me == root;
                    if (ip) memcpy(r, s, (size_t)n * sizeof *r);
                    autocoll_force(coll, rd_inst[b]);
                    MPI_Reduce(ip ? MPI_IN_PLACE : s, r, n, MPI_INT, MPI_SUM, root, comm);
                    autocoll_force(coll, NULL);
                    PMPI_Reduce(s, x, n, MPI_INT, MPI_SUM, root, comm);
                    snprintf(what, sizeof what, "%s p=%d rank %d reduce %s root %d n=%d%s", cname,
                             p, me, rd_inst[b], root, n, ip ? " in place" : "");
                    if (me == root) cmp(r, x, (size_t)n * sizeof *r, what);
                    check_choice(comm, coll, "topo_chain", what);
                }
        }
        /* allreduce topo_rab1, every instance of topo_rab2 (schemes without tokens) and of
         * topo_rab2_token (token schemes), then schemes that are no candidate but can be forced
         * (the Rab compositions on the contention-free AAPC phases and ring): sum of MPI_INT, in
         * place too, and a non-commutative operation (2x2 matrix product modulo 2^32, exact),
         * which must come out as x_0 x_1 ... x_{p-1} */
        coll = autocoll_coll_from_name("allreduce");
        static const char *ar_algs[] = {"topo_rab1", "topo_rab2", "topo_rab2_token"};
        static const char *ar_extra[] = {"topo_rab2_token:sync=receiver_part4",
                                         "topo_rab2_token:sync=bar_receiver4",
                                         "topo_rab2_token:sync=sender_part2",
                                         "topo_rab2_token:sync=receiver_part16",
                                         "topo_rab2:sync=bar_none2",
                                         "topo_rab2:sync=bar_none16"};
        enum { NAR_EXTRA = sizeof ar_extra / sizeof ar_extra[0] };
        unsigned *ms = malloc((4 * (size_t)n + 1) * sizeof *ms),
                 *mr = malloc((4 * (size_t)n + 1) * sizeof *mr),
                 *mx = malloc((4 * (size_t)n + 1) * sizeof *mx);
        for (int ai = 0; ai < 4; ai++) {
            int idx = -1, ninst = NAR_EXTRA;
            for (int k = 0; ai < 3 && k < autocoll_alg_count(coll); k++) {
                autocoll_alg_info_t inf;
                autocoll_alg_info(coll, k, &inf);
                if (!strcmp(inf.name, ar_algs[ai])) idx = k;
            }
            if (ai < 3 && idx < 0) {
                fprintf(stderr, "allreduce %s is not registered\n", ar_algs[ai]);
                bad++;
                continue;
            }
            if (ai < 3) ninst = autocoll_instance_count(coll, idx);
            for (int i = 0; i < ninst; i++) {
                if (ai < 3)
                    autocoll_instance_name(coll, idx, i, inst, sizeof inst);
                else
                    snprintf(inst, sizeof inst, "%s", ar_extra[i]);
                char alg[64];
                snprintf(alg, sizeof alg, "%.*s", (int)strcspn(inst, ":"), inst);
                if (skipped(inst) || (large && !tokens_only && i % 2 != ci) ||
                    (tokens_only && ci != 1))
                    continue;
                for (int in_place = 0; in_place < 2; in_place++) {
                    if (large && in_place != (i / 2 + ai) % 2) continue;
                    for (int k = 0; k < n; k++)
                        s[k] = val(me, k, ai * 16 + i), r[k] = in_place ? s[k] : -1, x[k] = -1;
                    autocoll_force(coll, inst);
                    MPI_Allreduce(in_place ? MPI_IN_PLACE : s, r, n, MPI_INT, MPI_SUM, comm);
                    autocoll_force(coll, NULL);
                    PMPI_Allreduce(s, x, n, MPI_INT, MPI_SUM, comm);
                    snprintf(what, sizeof what, "%s p=%d rank %d allreduce %s sum n=%d%s", cname, p,
                             me, inst, n, in_place ? " in place" : "");
                    cmp(r, x, (size_t)n * sizeof *r, what);
                    check_choice(comm, coll, alg, what);
                }
                for (int k = 0; k < 4 * n; k++)
                    ms[k] = (unsigned)val(me, k, ai * 16 + i) % 7u +
                            (k % 4 == 1 ? 3u * (unsigned)me : 0u),
                    mr[k] = mx[k] = 0;
                autocoll_force(coll, inst);
                MPI_Allreduce(ms, mr, n, mat_type, mat_op, comm);
                autocoll_force(coll, NULL);
                PMPI_Allreduce(ms, mx, n, mat_type, mat_op, comm);
                snprintf(what, sizeof what, "%s p=%d rank %d allreduce %s matrix product n=%d",
                         cname, p, me, inst, n);
                cmp(mr, mx, 4 * (size_t)n * sizeof *mr, what);
                check_choice(comm, coll, alg, what);
            }
        }
        /* a token scheme is no value of the lines without tokens, nor is an unknown name: the
         * call fails on every rank alike (error handler of the communicator), never runs
         * another scheme; n > 0 (an empty call is served without an algorithm) */
        static const char *refused[][2] = {{"allreduce", "topo_rab2:sync=sender"},
                                           {"allreduce", "topo_rab2:sync=bar_receiver4"},
                                           {"allreduce", "topo_rab2_token:sync=fastest"},
                                           {"alltoall", "topo_aapc_notoken:sync=receiver"}};
        for (int f = 0; use_expected && n > 0 && p > 1 && f < 4; f++) {
            coll = autocoll_coll_from_name(refused[f][0]);
            MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
            autocoll_force(coll, refused[f][1]);
            int rc = f < 3 ? MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, comm)
                           : MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, comm);
            autocoll_force(coll, NULL);
            MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
            if (rc == MPI_SUCCESS) {
                fprintf(stderr, "%s p=%d rank %d %s %s n=%d: accepted, expected an error\n", cname,
                        p, me, refused[f][0], refused[f][1], n);
                bad++;
            }
        }
        free(ms), free(mr), free(mx);
        free(s), free(r), free(x), free(rc), free(rd);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        if (!strcmp(argv[i], "--large")) quick = large = 1;
        if (!strcmp(argv[i], "--tokens")) quick = large = tokens_only = 1;
        if (!strcmp(argv[i], "--expect") && i + 1 < argc)
            use_expected = !strcmp(argv[i + 1], "use");
    }
    int wr, wp;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &wp);
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat_type);
    MPI_Type_commit(&mat_type);
    MPI_Op_create(mat_mul, 0, &mat_op);
    run(MPI_COMM_WORLD, "world");
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, wr == 0 || large ? MPI_UNDEFINED : 0, wr, &sub);
    if (sub != MPI_COMM_NULL) {
        run(sub, "without-0");
        MPI_Comm_free(&sub);
    }
    MPI_Comm_split(MPI_COMM_WORLD, wr % 2 || large ? MPI_UNDEFINED : 0, -wr, &sub);
    if (sub != MPI_COMM_NULL) {
        run(sub, "even-reversed");
        MPI_Comm_free(&sub);
    }
    MPI_Op_free(&mat_op);
    MPI_Type_free(&mat_type);
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wr == 0) printf("topo p=%d: %s (%d failed checks)\n", wp, all ? "FAILED" : "ok", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
