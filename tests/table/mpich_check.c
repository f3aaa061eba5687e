/*
 * Checks that MPICH runs the algorithms an exported collective-selection file names. Built
 * WITHOUT autocoll, with MPICH's compiler wrapper: the collectives are MPICH's own.
 *
 * MPICH 4.0 prints nothing about its choices, has no MPI_T performance variables, and its
 * MPIR_* algorithms are internal to libmpich.so (they cannot be interposed as ompi_check.c does
 * for Open MPI). Reductions however call the program's own operation: a user-defined
 * commutative MPI_Op (an integer sum) notes on every rank the length of each call, and the
 * sequence of lengths on the 4 ranks names the algorithm. In units of the block (c elements)
 * or of the vector (n elements):
 *   reduce_scatter(_block): recursive_halving 2,1 on every rank; pairwise 1,1,1;
 *                           recursive_doubling 1,2,2 | 3,2 | 3,2 | 2,1,2
 *   allreduce:              recursive_doubling 1,1 on every rank
 *   reduce (root 0):        binomial 1,1 | - | 1 | -
 * MPICH runs its reduce_scatter_allgather allreduce and reduce_scatter_gather reduce for
 * predefined operations only (it asserts so): the export guards them with is_op_built_in, and
 * the allreduce and reduce cases check that a user-defined operation gets the fallback.
 *
 * Run with 4 processes and MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE, FILE being the
 * export of tests/table/mpich_table.json.
 *   mpich_check --rules     exit 0 when every case runs the algorithm of the table
 *   mpich_check --control   exit 0 when some case runs another algorithm (run without the
 *                           file: proves that the check tells algorithms apart)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P = 4, MAXCALLS = 16 };

static int ncalls, lens[MAXCALLS];

static void sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
    if (ncalls < MAXCALLS) lens[ncalls] = *len;
    ncalls++;
}

/* Known sequences: every rank's call lengths in units, ranks separated by '|'. */
static const struct {
    const char *coll, *alg, *seq;
} known[] = {
    {"reduce_scatter", "recursive_halving", "2,1|2,1|2,1|2,1"},
    {"reduce_scatter", "pairwise", "1,1,1|1,1,1|1,1,1|1,1,1"},
    {"reduce_scatter", "recursive_doubling", "1,2,2|3,2|3,2|2,1,2"},
    {"allreduce", "recursive_doubling", "1,1|1,1|1,1|1,1"},
    {"reduce", "binomial", "1,1||1|"},
};

static MPI_Op op;
static int *sbuf, *rbuf, counts[P];

static void run(const char *coll, int unit) {
    if (!strcmp(coll, "reduce_scatter_block"))
        MPI_Reduce_scatter_block(sbuf, rbuf, unit, MPI_INT, op, MPI_COMM_WORLD);
    else if (!strcmp(coll, "reduce_scatter")) {
        for (int i = 0; i < P; i++)
            counts[i] = unit;
        MPI_Reduce_scatter(sbuf, rbuf, counts, MPI_INT, op, MPI_COMM_WORLD);
    } else if (!strcmp(coll, "allreduce"))
        MPI_Allreduce(sbuf, rbuf, unit, MPI_INT, op, MPI_COMM_WORLD);
    else
        MPI_Reduce(sbuf, rbuf, unit, MPI_INT, op, 0, MPI_COMM_WORLD);
}

/* Runs one case (unit: c or n elements) and names the algorithm that ran; 1 when it is alg. */
static int check(const char *coll, int unit, const char *alg) {
    int rank;
    char mine[64] = "", all[P][64], seq[P * 64 + P] = "";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ncalls = 0;
    run(coll, unit);
    for (int i = 0, o = 0; i < ncalls && i < MAXCALLS; i++)
        o += snprintf(mine + o, sizeof mine - o, "%s%d", i ? "," : "", lens[i] / unit);
    if (ncalls > MAXCALLS) snprintf(mine, sizeof mine, "(%d calls)", ncalls);
    MPI_Allgather(mine, 64, MPI_CHAR, all, 64, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < P; r++)
        strcat(strcat(seq, r ? "|" : ""), all[r]);
    int rs = !strncmp(coll, "reduce_scatter", 14); /* sizes: the whole vector */
    const char *ran = NULL, *family = rs ? "reduce_scatter" : coll;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(known[i].coll, family) && !strcmp(known[i].seq, seq)) ran = known[i].alg;
    int ok = ran && !strcmp(ran, alg), bytes = unit * 4 * (rs ? P : 1);
    if (rank == 0)
        printf("%-21s %5d B  expected %-19s ran %-19s (%s) %s\n", coll, bytes, alg,
               ran ? ran : "unknown", seq, ok ? "ok" : "DIFFERS");
    fflush(stdout);
    return ok;
}

int main(int argc, char **argv) {
    int size, rules = argc == 2 && !strcmp(argv[1], "--rules");
    int control = argc == 2 && !strcmp(argv[1], "--control");
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != P || (!rules && !control)) {
        fprintf(stderr, "usage: mpirun -n %d mpich_check --rules|--control\n", P);
        MPI_Finalize();
        return 2;
    }
    MPI_Op_create(sum, 1, &op);
    sbuf = calloc(1024 * P, sizeof(int));
    rbuf = calloc(1024 * P, sizeof(int));

    /* The table (tests/table/mpich_table.json) at p = 4, and what MPICH 4.0 runs without it.
     * Sizes as MPICH measures them (total_msg_size: the whole vector of reduce_scatter(_block),
     * 4 bytes x unit x p here). */
    int good = 0, n = 0;
    /* [0, 1024) bytes per block: pairwise; MPICH: recursive_halving (commutative, < 512 KiB) */
    good += check("reduce_scatter_block", 64, "pairwise"), n++;
    /* no rule: the export's fallback for reduce_scatter_block, recursive_doubling */
    good += check("reduce_scatter_block", 1024, "recursive_doubling"), n++;
    /* [0, 1024) bytes in all: recursive_halving (also MPICH's), [1024, null): pairwise */
    good += check("reduce_scatter", 32, "recursive_halving"), n++;
    good += check("reduce_scatter", 256, "pairwise"), n++;
    /* rabenseifner and rab, guarded: a user-defined operation gets the fallbacks */
    good += check("allreduce", 256, "recursive_doubling"), n++;
    good += check("reduce", 256, "binomial"), n++;

    /* The other collectives of the table and the export's fallbacks run, with MPICH's
     * results: every container the file names must exist in this MPICH. */
    int rank, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 1024 * P; i++)
        sbuf[i] = rank * 100000 + i;
    MPI_Allgather(sbuf, 64, MPI_INT, rbuf, 64, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < 64 * P; i++)
        bad |= rbuf[i] != (i / 64) * 100000 + i % 64;
    MPI_Alltoall(sbuf, 16, MPI_INT, rbuf, 16, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < 16 * P; i++)
        bad |= rbuf[i] != (i / 16) * 100000 + rank * 16 + i % 16;
    memcpy(rbuf, sbuf, 1024 * sizeof(int));
    MPI_Bcast(rbuf, 1024, MPI_INT, 1, MPI_COMM_WORLD);
    for (int i = 0; i < 1024; i++)
        bad |= rbuf[i] != 100000 + i;
    MPI_Gather(sbuf, 8, MPI_INT, rbuf, 8, MPI_INT, 2, MPI_COMM_WORLD);
    for (int i = 0; rank == 2 && i < 8 * P; i++)
        bad |= rbuf[i] != (i / 8) * 100000 + i % 8;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("allgather, alltoall, bcast, gather, barrier: %s\n",
               bad ? "WRONG RESULTS" : "MPICH's results");
        printf("%d of %d cases ran the table's algorithm\n", good, n);
    }
    MPI_Op_free(&op);
    free(sbuf), free(rbuf);
    MPI_Finalize();
    return bad || (rules ? good != n : good == n); /* wrong results fail both runs */
}
