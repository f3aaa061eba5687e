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
 * usage: ac_grid_bcast [--rounds N]   (prints "grid_bcast: N cases, N failed"; exit 1 on failure)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"

enum { GUARD = 32 };

static unsigned char pattern(int root, long size, int round, long i) {
    return (unsigned char)((i * 131 + (long)root * 17 + size * 7 + round * 29) & 0xff);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, p, rounds = 2, fails = 0, cases = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--rounds")) rounds = atoi(argv[i + 1]);
    const char *want = getenv("AUTOCOLL_BCAST");
    static const long sizes[] = {0, 1, 7, 1000, 65536, 65537, 300000, 2097152};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    /* Buffer k holds a vector of sizes[k] bytes of ints at stride 2, plus the guard. */
    size_t off[NS + 1] = {0};
    for (int k = 0; k < NS; k++)
        off[k + 1] = off[k] + 2 * (size_t)sizes[k] + GUARD;
    unsigned char *a = malloc(off[NS]), *b = malloc(off[NS]);
    for (int round = 0; round < rounds; round++)
        for (int vtype = 0; vtype < 2; vtype++)
            for (int root = 0; root < p; root++) {
                /* All sizes back to back, then one reference pass. */
                for (int k = 0; k < NS; k++) {
                    size_t cap = off[k + 1] - off[k];
                    unsigned char *x = a + off[k], *y = b + off[k];
                    memset(x, 0xEE, cap);
                    memset(y, 0xEE, cap);
                    if (me == root)
                        for (size_t i = 0; i < cap - GUARD; i++)
                            x[i] = y[i] = pattern(root, sizes[k], round, (long)i);
                }
                for (int k = 0; k < NS; k++) {
                    long s = sizes[k];
                    if (vtype && s % 4) continue;
                    if (vtype) {
                        MPI_Datatype t;
                        MPI_Type_vector((int)(s / 4), 1, 2, MPI_INT, &t);
                        MPI_Type_commit(&t);
                        MPI_Bcast(a + off[k], s ? 1 : 0, t, root, MPI_COMM_WORLD);
                        MPI_Type_free(&t);
                    } else {
                        MPI_Bcast(a + off[k], (int)s, MPI_BYTE, root, MPI_COMM_WORLD);
                    }
                    char name[128] = "";
                    autocoll_last_choice(MPI_COMM_WORLD, AUTOCOLL_BCAST, name, sizeof name);
                    if (want && s && strncmp(name, want, strlen(want)) != 0) {
                        if (fails++ < 10)
                            fprintf(stderr, "rank %d: expected %s to run, ran '%s'\n", me, want,
                                    name);
                    }
                }
                for (int k = 0; k < NS; k++) {
                    long s = sizes[k];
                    if (vtype && s % 4) continue;
                    if (vtype) {
                        MPI_Datatype t;
                        MPI_Type_vector((int)(s / 4), 1, 2, MPI_INT, &t);
                        MPI_Type_commit(&t);
                        PMPI_Bcast(b + off[k], s ? 1 : 0, t, root, MPI_COMM_WORLD);
                        MPI_Type_free(&t);
                    } else {
                        PMPI_Bcast(b + off[k], (int)s, MPI_BYTE, root, MPI_COMM_WORLD);
                    }
                    cases++;
                    if (memcmp(a + off[k], b + off[k], off[k + 1] - off[k]) != 0) {
                        if (fails++ < 10)
                            fprintf(stderr,
                                    "rank %d: round %d root %d size %ld %s: data differ from "
                                    "PMPI_Bcast\n",
                                    me, round, root, s, vtype ? "vector" : "bytes");
                    }
                }
            }
    int all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("grid_bcast p=%d %s: %d cases per rank, %d failed\n", p, want ? want : "(none)",
               cases, all);
    free(a);
    free(b);
    MPI_Finalize();
    return all ? 1 : 0;
}
