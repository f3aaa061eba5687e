/*
 * Layouts of sub-communicators (src/core/context.c, layout): once a communicator of every
 * world rank has been laid out, the library knows each world rank's node and lays out later
 * communicators without communicating. For communicators of many shapes (a duplicate of the
 * world, halves in reverse order, parity, every third rank, the ranks that are not their
 * node's first, MPI_COMM_SELF), autocoll_layout must give what MPI's own shared-memory split
 * of that communicator gives (nodes, ranks per node, uniformity, placement), and the
 * node-aware algorithms forced on it must give the MPI library's results, byte for byte, on
 * every rank. Prints "layout_sub: N communicators, M bad" on rank 0; exit status 1 when bad.
 * Meant for SimGrid on a multi-node platform (tests/mpi/layout_sub.sh), runs anywhere.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autocoll.h"

static int bad;

static int my_node; /* this rank's node: its node's lowest world rank (main) */

/* The layout of comm by MPI's shared-memory split of MPI_COMM_WORLD (SMPI's split of a
 * sub-communicator is not reliable: it can count ranks of the host that are not in it),
 * computed with the PMPI calls only. */
static void expected(MPI_Comm comm, autocoll_layout_t *l) {
    int p;
    PMPI_Comm_size(comm, &p);
    int *lead = malloc((size_t)p * sizeof(int)), *node_of = malloc((size_t)p * sizeof(int));
    int *count = calloc((size_t)p, sizeof(int));
    PMPI_Allgather(&my_node, 1, MPI_INT, lead, 1, MPI_INT, comm);
    for (int r = 0; r < p; r++) { /* lead[r]: r's node by world rank; renumber in comm order */
        int first = r;
        for (int q = 0; q < r; q++)
            if (lead[q] == lead[r]) {
                first = q;
                break;
            }
        node_of[r] = first;
    }
    for (int r = 0; r < p; r++)
        lead[r] = node_of[r]; /* the lowest comm rank of r's node */
    int n = 0, seq = 1, cyc = 1, ppn = 0;
    for (int r = 0; r < p; r++) {
        node_of[r] = lead[r] == r ? n++ : node_of[lead[r]];
        count[node_of[r]]++;
    }
    for (int r = 0; r < p; r++) {
        if (r > 0 && node_of[r] < node_of[r - 1]) seq = 0;
        if (node_of[r] != r % n) cyc = 0;
    }
    l->uniform = 1;
    for (int i = 0; i < n; i++) {
        if (count[i] > ppn) ppn = count[i];
        if (count[i] != count[0]) l->uniform = 0;
    }
    l->p = p;
    l->nodes = n;
    l->ppn = ppn;
    snprintf(l->placement, sizeof l->placement, "%s",
             n == 1 ? "single"
             : seq  ? "sequential"
             : cyc  ? "cyclic"
                    : "other");
    free(lead);
    free(node_of);
    free(count);
}

/* The node-aware algorithms forced on comm against the MPI library's own collectives. */
static int node_aware(MPI_Comm comm, const char *what) {
    int p, me, wrong = 0;
    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &me);
    enum { N = 37 };
    int *in = malloc(N * sizeof(int)), *a = malloc((size_t)p * N * sizeof(int)),
        *b = malloc((size_t)p * N * sizeof(int));
    for (int i = 0; i < N; i++)
        in[i] = me * 1000 + i;
    autocoll_force(AUTOCOLL_ALLGATHER, "hier");
    MPI_Allgather(in, N, MPI_INT, a, N, MPI_INT, comm);
    PMPI_Allgather(in, N, MPI_INT, b, N, MPI_INT, comm);
    wrong |= memcmp(a, b, (size_t)p * N * sizeof(int)) != 0;
    autocoll_force(AUTOCOLL_ALLREDUCE, "hierarchical");
    MPI_Allreduce(in, a, N, MPI_INT, MPI_SUM, comm);
    PMPI_Allreduce(in, b, N, MPI_INT, MPI_SUM, comm);
    wrong |= memcmp(a, b, N * sizeof(int)) != 0;
    autocoll_force(AUTOCOLL_BCAST, "hier");
    memcpy(a, in, N * sizeof(int));
    memcpy(b, in, N * sizeof(int));
    MPI_Bcast(a, N, MPI_INT, p - 1, comm);
    PMPI_Bcast(b, N, MPI_INT, p - 1, comm);
    wrong |= memcmp(a, b, N * sizeof(int)) != 0;
    autocoll_force(AUTOCOLL_REDUCE, "hier");
    memset(a, 0, N * sizeof(int));
    memset(b, 0, N * sizeof(int));
    MPI_Reduce(in, a, N, MPI_INT, MPI_SUM, 1 % p, comm);
    PMPI_Reduce(in, b, N, MPI_INT, MPI_SUM, 1 % p, comm);
    wrong |= memcmp(a, b, N * sizeof(int)) != 0;
    for (int c = 0; c < AUTOCOLL_NCOLL; c++)
        autocoll_force(c, NULL);
    if (wrong) fprintf(stderr, "layout_sub: %s: node-aware results differ on rank %d\n", what, me);
    free(in);
    free(a);
    free(b);
    return wrong;
}

static void check(MPI_Comm comm, const char *what, int *n) {
    autocoll_layout_t got, want;
    memset(&got, 0, sizeof got);
    int me, wrong = autocoll_layout(comm, &got) != MPI_SUCCESS;
    PMPI_Comm_rank(comm, &me);
    expected(comm, &want);
    if (!wrong && (got.p != want.p || got.nodes != want.nodes || got.ppn != want.ppn ||
                   got.uniform != want.uniform || strcmp(got.placement, want.placement))) {
        fprintf(stderr,
                "layout_sub: %s, rank %d: p %d nodes %d ppn %d uniform %d %s, MPI says p %d "
                "nodes %d ppn %d uniform %d %s\n",
                what, me, got.p, got.nodes, got.ppn, got.uniform, got.placement, want.p, want.nodes,
                want.ppn, want.uniform, want.placement);
        wrong = 1;
    }
    wrong |= node_aware(comm, what);
    int any = 0;
    PMPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, comm);
    bad += any && me == 0;
    ++*n;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int p, me, n = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm c, node;
    int nr;
    PMPI_Barrier(MPI_COMM_WORLD); /* SMPI counts the actors on a host that have arrived */
    PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    PMPI_Comm_rank(node, &nr);
    my_node = me;
    PMPI_Bcast(&my_node, 1, MPI_INT, 0, node);
    PMPI_Comm_free(&node);
    check(MPI_COMM_WORLD, "MPI_COMM_WORLD", &n); /* laid out by communication */
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    check(c, "duplicate", &n);
    MPI_Comm_free(&c);
    MPI_Comm_split(MPI_COMM_WORLD, me < p / 2, -me, &c);
    check(c, "halves, reversed", &n);
    MPI_Comm_free(&c);
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &c);
    check(c, "parity", &n);
    MPI_Comm_free(&c);
    MPI_Comm_split(MPI_COMM_WORLD, me % 3, (me * 7) % p, &c);
    check(c, "every third, shuffled", &n);
    MPI_Comm_free(&c);
    MPI_Comm_split(MPI_COMM_WORLD, nr > 0 ? 0 : MPI_UNDEFINED, me, &c);
    if (c != MPI_COMM_NULL) {
        check(c, "not the first of their node", &n);
        MPI_Comm_free(&c);
    }
    check(MPI_COMM_SELF, "MPI_COMM_SELF", &n);
    int total = 0;
    PMPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) printf("layout_sub: %d communicators, %d bad\n", n, total);
    MPI_Finalize();
    return total ? 1 : 0;
}
