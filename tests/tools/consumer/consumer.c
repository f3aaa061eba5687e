/*
 * consumer: a program built outside the project against an installed autocoll (pkg-config or
 * find_package(autocoll)), run by tests/tools/install_prefix.sh on 2 ranks. It calls the public
 * API: version, collective info, listing, forcing, and collectives both through MPI_<Coll> (the
 * library linked before the MPI library intercepts them) and through autocoll_<coll>, and checks
 * autocoll_last_choice after each. Prints "consumer: ok ..." on rank 0 and exits 0 when every
 * check held on every rank.
 */
#include <autocoll.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int fails;
#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fails++;                                                                               \
            fprintf(stderr, "consumer: rank %d: check failed: %s (line %d)\n", me, #c, __LINE__);  \
        }                                                                                          \
    } while (0)

/* A registered algorithm of coll other than the native one that has no restriction and no
 * parameter (its instance name is its name), found through the listing API. */
static const char *plain_alg(int coll) {
    autocoll_alg_info_t a;
    for (int i = 0; i < autocoll_alg_count(coll); i++)
        if (autocoll_alg_info(coll, i, &a) == MPI_SUCCESS && a.restrictions == 0 &&
            a.params[0] == '\0')
            return a.name;
    return NULL;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);

    /* The header and the library agree on the version. */
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", AUTOCOLL_VERSION_MAJOR, AUTOCOLL_VERSION_MINOR,
             AUTOCOLL_VERSION_PATCH);
    CHECK(autocoll_version() && strcmp(autocoll_version(), want) == 0);

    autocoll_coll_info_t ci;
    CHECK(autocoll_coll_info(AUTOCOLL_ALLREDUCE, &ci) == MPI_SUCCESS);
    CHECK(strcmp(ci.name, "allreduce") == 0 && strcmp(ci.mpi_name, "MPI_Allreduce") == 0);
    CHECK(ci.reduces == 1 && ci.rooted == 0);
    CHECK(autocoll_coll_info(AUTOCOLL_BCAST, &ci) == MPI_SUCCESS && ci.rooted == 1);
    CHECK(autocoll_coll_info(AUTOCOLL_NCOLL, &ci) != MPI_SUCCESS);
    CHECK(autocoll_coll_from_name("bcast") == AUTOCOLL_BCAST);
    CHECK(autocoll_alg_count(AUTOCOLL_ALLREDUCE) > 1 && autocoll_alg_count(AUTOCOLL_BCAST) > 1);

    const char *ar = plain_alg(AUTOCOLL_ALLREDUCE), *bc = plain_alg(AUTOCOLL_BCAST);
    CHECK(ar != NULL && bc != NULL);
    if (!ar || !bc) MPI_Abort(MPI_COMM_WORLD, 2);
    CHECK(autocoll_force(AUTOCOLL_ALLREDUCE, "no_such_algorithm") != MPI_SUCCESS);
    CHECK(autocoll_force(AUTOCOLL_ALLREDUCE, ar) == MPI_SUCCESS);
    CHECK(autocoll_force(AUTOCOLL_BCAST, bc) == MPI_SUCCESS);

    /* MPI_Allreduce: reaches the library because it is linked before the MPI library. */
    char last[128] = "";
    int in[3] = {me + 1, 2 * me, -me}, out[3] = {0, 0, 0};
    CHECK(MPI_Allreduce(in, out, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(out[0] == p * (p + 1) / 2 && out[1] == p * (p - 1) && out[2] == -p * (p - 1) / 2);
    CHECK(autocoll_last_choice(MPI_COMM_WORLD, AUTOCOLL_ALLREDUCE, last, sizeof last) ==
          MPI_SUCCESS);
    CHECK(strcmp(last, ar) == 0);

    /* autocoll_bcast: the direct entry point, root p-1. */
    double v[4] = {0};
    if (me == p - 1)
        for (int i = 0; i < 4; i++)
            v[i] = 0.5 + i;
    last[0] = '\0';
    CHECK(autocoll_bcast(v, 4, MPI_DOUBLE, p - 1, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(v[0] == 0.5 && v[3] == 3.5);
    CHECK(autocoll_last_choice(MPI_COMM_WORLD, AUTOCOLL_BCAST, last, sizeof last) == MPI_SUCCESS);
    CHECK(strcmp(last, bc) == 0);

    autocoll_force(AUTOCOLL_ALLREDUCE, NULL);
    autocoll_force(AUTOCOLL_BCAST, NULL);
    int all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("consumer: %s p=%d version %s allreduce %s bcast %s\n", all ? "FAILED" : "ok", p,
               autocoll_version(), ar, bc);
    MPI_Finalize();
    return all != 0;
}
