/*
 * Grid broadcasts under real MPI (seed 002; spec adaptive-bcast-grid.md section 18 test 6):
 * the instance forced by AUTOCOLL_BCAST (grid_g2, grid_greedy or grid_adaptive) against the MPI
 * library's PMPI_Bcast, byte for byte on every rank (guard bytes after the buffer included),
 * every root, sizes 0 B .. 2 MiB on both sides of AUTOCOLL_BCAST_PACK_MAX, contiguous bytes and
 * a strided vector of ints, calls issued back to back with no synchronisation between them
 * (with AUTOCOLL_GRID_RANDOM_TREES=1 every call gets another tree, so a rank whose parent is
 * slow sees messages of later calls arrive first: the sequence tags must keep them apart).
 * Also checks that the forced instance ran (autocoll_last_choice).
 *
 * --quick (larger p, kept short): sizes 0 B, 1 B, 4097 B (packed with the header) and 256 KiB
 * (header and payload apart), the vector at the sizes divisible by 4, roots p-1 and p/3 only;
 * then three times a duplicate of MPI_COMM_WORLD is made, broadcast on and freed (the grid
 * state goes with the communicator's context). --algs a,b,c forces each instance in turn with
 * autocoll_force on every rank (one launch for all of them; otherwise AUTOCOLL_BCAST decides).
 *
 * usage: ac_grid_bcast [--rounds N] [--quick] [--algs LIST]
 *   (prints "grid_bcast: N cases, N failed"; exit 1 on failure)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"

enum { GUARD = 32 };

static unsigned char pattern(int root, long size, int round, long i) {
    return (unsigned char)((i * 131 + (long)root * 17 + size * 7 + round * 29) & 0xff);
}

/* One instance (want, NULL: whatever runs) on comm: every size back to back, then the
 * reference pass with PMPI_Bcast, compared byte for byte with the guards. */
static void run_pass(MPI_Comm comm, const char *want, const long *sizes, int ns, const int *roots,
                     int nroots, int rounds, unsigned char *a, unsigned char *b, int *cases,
                     int *fails) {
    int me;
    MPI_Comm_rank(comm, &me);
    size_t off[16] = {0};
    for (int k = 0; k < ns; k++)
        off[k + 1] = off[k] + 2 * (size_t)sizes[k] + GUARD;
    for (int round = 0; round < rounds; round++)
        for (int vtype = 0; vtype < 2; vtype++)
            for (int ri = 0; ri < nroots; ri++) {
                int root = roots[ri];
                for (int k = 0; k < ns; k++) {
                    size_t cap = off[k + 1] - off[k];
                    unsigned char *x = a + off[k], *y = b + off[k];
                    memset(x, 0xEE, cap);
                    memset(y, 0xEE, cap);
                    if (me == root)
                        for (size_t i = 0; i < cap - GUARD; i++)
                            x[i] = y[i] = pattern(root, sizes[k], round, (long)i);
                }
                for (int pass = 0; pass < 2; pass++)
                    for (int k = 0; k < ns; k++) {
                        long s = sizes[k];
                        if (vtype && s % 4) continue;
                        unsigned char *buf = (pass ? b : a) + off[k];
                        int (*bc)(void *, int, MPI_Datatype, int, MPI_Comm) =
                            pass ? PMPI_Bcast : MPI_Bcast;
                        if (vtype) {
                            MPI_Datatype t;
                            MPI_Type_vector((int)(s / 4), 1, 2, MPI_INT, &t);
                            MPI_Type_commit(&t);
                            bc(buf, s ? 1 : 0, t, root, comm);
                            MPI_Type_free(&t);
                        } else {
                            bc(buf, (int)s, MPI_BYTE, root, comm);
                        }
                        if (!pass) {
                            char name[128] = "";
                            autocoll_last_choice(comm, AUTOCOLL_BCAST, name, sizeof name);
                            if (want && s && strncmp(name, want, strlen(want)) != 0 &&
                                (*fails)++ < 10)
                                fprintf(stderr, "rank %d: expected %s to run, ran '%s'\n", me, want,
                                        name);
                            continue;
                        }
                        (*cases)++;
                        if (memcmp(a + off[k], b + off[k], off[k + 1] - off[k]) != 0 &&
                            (*fails)++ < 10)
                            fprintf(stderr,
                                    "rank %d: %s round %d root %d size %ld %s: data differ from "
                                    "PMPI_Bcast\n",
                                    me, want ? want : "", round, root, s,
                                    vtype ? "vector" : "bytes");
                    }
            }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, p, rounds = 2, fails = 0, cases = 0, quick = 0;
    const char *algs = NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--algs") && i + 1 < argc)
            algs = argv[++i];
    }
    static const long full[] = {0, 1, 7, 1000, 65536, 65537, 300000, 2097152};
    static const long small[] = {0, 1, 4097, 262144};
    const long *sizes = quick ? small : full;
    int ns = quick ? 4 : 8;
    size_t total = 0;
    for (int k = 0; k < ns; k++)
        total += 2 * (size_t)sizes[k] + GUARD;
    int *roots = malloc((size_t)p * sizeof *roots), nroots = 0;
    if (quick) {
        roots[nroots++] = p - 1;
        if (p / 3 != p - 1) roots[nroots++] = p / 3;
    } else {
        for (int r = 0; r < p; r++)
            roots[nroots++] = r;
    }
    unsigned char *a = malloc(total), *b = malloc(total);
    char list[256] = "";
    const char *env = getenv("AUTOCOLL_BCAST");
    snprintf(list, sizeof list, "%s", algs ? algs : env ? env : "");
    const char *want[8] = {NULL};
    int nw = 0;
    for (char *w = strtok(list, ","); w && nw < 8; w = strtok(NULL, ","))
        want[nw++] = w;
    for (int w = 0; w < (nw ? nw : 1); w++) {
        if (algs && autocoll_force(AUTOCOLL_BCAST, want[w]) != MPI_SUCCESS && fails++ < 10)
            fprintf(stderr, "rank %d: cannot force %s\n", me, want[w]);
        run_pass(MPI_COMM_WORLD, want[w], sizes, ns, roots, nroots, rounds, a, b, &cases, &fails);
        if (quick) /* contexts (and their grid state) made and freed with the communicator */
            for (int i = 0; i < 3; i++) {
                MPI_Comm d;
                MPI_Comm_dup(MPI_COMM_WORLD, &d);
                int r1 = (i + 1) % p;
                run_pass(d, want[w], small + 2, 1, &r1, 1, 1, a, b, &cases, &fails);
                MPI_Comm_free(&d);
            }
    }
    int all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("grid_bcast p=%d %s: %d cases per rank, %d failed\n", p,
               algs  ? algs
               : env ? env
                     : "(none)",
               cases, all);
    free(roots);
    free(a);
    free(b);
    MPI_Finalize();
    return all ? 1 : 0;
}
