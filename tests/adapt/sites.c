/*
 * Programs the adaptive engine must survive: the same collective called from different call
 * sites on different ranks (if (rank == root) MPI_Bcast(...) else MPI_Bcast(...)), branches
 * that depend on per-rank data and on shared data, many distinct sizes (exact keys, then size
 * classes), per-rank alltoallv sizes, user operations, sub-communicators created and freed
 * while the engine is learning. Every result is checked; run under AUTOCOLL_CHECK=1 (every call
 * verifies that all ranks run the same algorithm) with and without AUTOCOLL_SITES.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed, passed;

static void expect(int ok, const char *what, int iter) {
    if (ok) {
        passed++;
    } else if (failed++ < 10) {
        int r;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        fprintf(stderr, "rank %d: %s wrong at iteration %d\n", r, what, iter);
    }
}

/* a (+) b = a + b + 1 on ints: associative and commutative, but not a predefined op. */
static void plus1(void *in, void *inout, int *len, MPI_Datatype *t) {
    (void)t;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i] + 1;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int p, me, iters = argc > 1 ? atoi(argv[1]) : 120;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    enum { MAXN = 4096 };
    int *a = malloc(MAXN * sizeof(int) * (size_t)p), *b = malloc(MAXN * sizeof(int) * (size_t)p);
    int *sc = malloc((size_t)p * sizeof(int)), *sd = malloc((size_t)p * sizeof(int));
    int *rc = malloc((size_t)p * sizeof(int)), *rd = malloc((size_t)p * sizeof(int));
    MPI_Op op;
    MPI_Op_create(plus1, 1, &op);
    int shared = 0;
    for (int it = 0; it < iters; it++) {
        /* 1. Rooted call from a different site on the root. */
        int root = it % p, n = 16 << (it % 3);
        for (int i = 0; i < n; i++)
            a[i] = me == root ? i * 3 + it : -1;
        if (me == root)
            MPI_Bcast(a, n, MPI_INT, root, MPI_COMM_WORLD);
        else
            MPI_Bcast(a, n, MPI_INT, root, MPI_COMM_WORLD);
        int ok = 1;
        for (int i = 0; i < n; i++)
            ok &= a[i] == i * 3 + it;
        expect(ok, "bcast from split sites", it);

        /* 2. Branch on per-rank data: ranks reach allreduce from different sites. */
        for (int i = 0; i < 64; i++)
            a[i] = me + i;
        if ((me + it) % 3 == 0)
            MPI_Allreduce(a, b, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        else
            MPI_Allreduce(a, b, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        ok = 1;
        for (int i = 0; i < 64; i++)
            ok &= b[i] == p * (p - 1) / 2 + p * i;
        expect(ok, "allreduce from per-rank branches", it);

        /* 3. Branch on shared data: every rank takes the same site. */
        if (shared % 2)
            MPI_Allreduce(&it, &shared, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        else
            MPI_Allreduce(&it, &shared, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        expect(shared == it, "allreduce from shared branches", it);

        /* 4. Many sizes: exact keys first, then size classes. */
        int m = 1 + (it * 37) % 700;
        for (int i = 0; i < m; i++)
            a[i] = me * 1000 + i;
        MPI_Allgather(a, m, MPI_INT, b, m, MPI_INT, MPI_COMM_WORLD);
        ok = 1;
        for (int r = 0; r < p; r++)
            for (int i = 0; i < m; i++)
                ok &= b[r * m + i] == r * 1000 + i;
        expect(ok, "allgather of many sizes", it);

        /* 5. alltoallv: sizes differ per rank. */
        int off = 0;
        for (int r = 0; r < p; r++) {
            sc[r] = (me + r + it) % 5;
            sd[r] = off;
            for (int i = 0; i < sc[r]; i++)
                a[off + i] = me * 100 + r * 10 + i;
            off += sc[r];
        }
        off = 0;
        for (int r = 0; r < p; r++) {
            rc[r] = (r + me + it) % 5;
            rd[r] = off;
            off += rc[r];
        }
        MPI_Alltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD);
        ok = 1;
        for (int r = 0; r < p; r++)
            for (int i = 0; i < rc[r]; i++)
                ok &= b[rd[r] + i] == r * 100 + me * 10 + i;
        expect(ok, "alltoallv", it);

        /* 6. User operation on a short-lived sub-communicator. */
        if (it % 20 == 0) {
            MPI_Comm sub;
            MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &sub);
            int sp, sr;
            MPI_Comm_size(sub, &sp);
            MPI_Comm_rank(sub, &sr);
            for (int k = 0; k < 25; k++) {
                for (int i = 0; i < 32; i++)
                    a[i] = sr + i;
                MPI_Reduce(a, b, 32, MPI_INT, op, sp - 1, sub);
                if (sr == sp - 1) {
                    ok = 1;
                    for (int i = 0; i < 32; i++)
                        ok &= b[i] == sp * (sp - 1) / 2 + sp * i + (sp - 1);
                    expect(ok, "user-op reduce on a sub-communicator", it);
                }
            }
            MPI_Comm_free(&sub);
        }
    }
    int f = failed, pz = passed, F = 0, P = 0;
    MPI_Allreduce(&f, &F, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&pz, &P, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) printf("%d passed, %d failed\n", P, F);
    MPI_Op_free(&op);
    free(a);
    free(b);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    MPI_Finalize();
    return F != 0;
}
