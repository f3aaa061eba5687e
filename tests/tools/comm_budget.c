/*
 * Communicator budget: duplicates MPI_COMM_WORLD until the MPI library refuses (errors return
 * there), calling an allreduce on every new communicator (errors fatal there, the default), and
 * prints how many it made. Then checks that collectives still work on every communicator once the
 * limit is reached, also on new ones the library could give no private duplicate. Run natively and
 * under autocoll (tests/tools/ comm_budget.sh compares the counts: autocoll costs one communicator
 * per user communicator). usage: ac_comm_budget [MAX]   prints "communicators N" and "collectives
 * ok" or "FAIL ..."
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, p, max = argc > 1 ? atoi(argv[1]) : 100000, n = 0, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm *c = malloc((size_t)max * sizeof *c);
    while (n < max) {
        if (MPI_Comm_dup(MPI_COMM_WORLD, &c[n]) != MPI_SUCCESS) break;
        /* The default handler: an internal failure raised on it would abort the job. */
        MPI_Comm_set_errhandler(c[n], MPI_ERRORS_ARE_FATAL);
        int in = me + 1, out = 0;
        if (MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, c[n]) != MPI_SUCCESS ||
            out != p * (p + 1) / 2) {
            bad = 1;
            printf("FAIL allreduce on communicator %d\n", n);
            break;
        }
        n++;
    }
    if (me == 0) printf("communicators %d\n", n);
    /* At the limit: every communicator still answers its collectives. */
    for (int i = 0; i < n && !bad; i += 1 + n / 64) {
        int in = me, out = -1;
        if (MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, c[i]) != MPI_SUCCESS || out != p - 1)
            bad = 1;
        char b = me == 0 ? 42 : 0;
        if (MPI_Bcast(&b, 1, MPI_CHAR, 0, c[i]) != MPI_SUCCESS || b != 42) bad = 1;
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0) printf(any ? "FAIL collectives at the limit\n" : "collectives ok\n");
    for (int i = 0; i < n; i++)
        MPI_Comm_free(&c[i]);
    free(c);
    MPI_Finalize();
    return any;
}
