/*
 * Per-call statistics of the interposition layer (AUTOCOLL_VERBOSE >= 1): calls and time per
 * algorithm, and the calls whose forced instance could not run; summed at MPI_Finalize.
 */
#include <stdlib.h>
#include <string.h>
#include "pmpi.h"

/* Names through the public listing: pmpi asks select only for choices. */
static const char *alg_name(int coll, int i) {
    autocoll_alg_info_t in;
    return autocoll_alg_info(coll, i, &in) == MPI_SUCCESS ? in.name : "?";
}

static double st_time[AUTOCOLL_NCOLL][AC_MAX_ALGS];
static double st_calls[AUTOCOLL_NCOLL][AC_MAX_ALGS];
static double st_fallback[AUTOCOLL_NCOLL]; /* calls whose forced instance could not run */

void ac_stats_fallback(int coll) {
    if (coll < 0 || coll >= AUTOCOLL_NCOLL) return;
    ac_lock();
    st_fallback[coll] += 1;
    ac_unlock();
}

void ac_stats_add(int coll, int alg, double seconds) {
    if (coll < 0 || coll >= AUTOCOLL_NCOLL || alg < 0 || alg >= AC_MAX_ALGS) return;
    ac_lock();
    st_time[coll][alg] += seconds;
    st_calls[coll][alg] += 1;
    ac_unlock();
}

/* Collective over MPI_COMM_WORLD: the maximum over ranks of calls and time per algorithm, and
 * the number of calls (summed over communicators, each counted by its rank 0) whose forced
 * instance could not run. */
void ac_stats_report(void) {
    enum { N = AUTOCOLL_NCOLL * AC_MAX_ALGS };
    double *in = malloc(2 * N * sizeof(double)), *out = malloc(2 * N * sizeof(double));
    double fb_in[AUTOCOLL_NCOLL], fb_out[AUTOCOLL_NCOLL];
    int ok = in && out, all_ok;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_ok) {
        ac_lock();
        memcpy(in, st_calls, N * sizeof(double));
        memcpy(in + N, st_time, N * sizeof(double));
        memcpy(fb_in, st_fallback, sizeof fb_in);
        ac_unlock();
        PMPI_Reduce(in, out, 2 * N, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        PMPI_Reduce(fb_in, fb_out, AUTOCOLL_NCOLL, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (ac_g.world_rank == 0) {
            ac_log("summary (max over ranks): collective algorithm calls time_s mean_us");
            for (int c = 0; c < AUTOCOLL_NCOLL; c++)
                for (int i = 0; i < autocoll_alg_count(c) && i < AC_MAX_ALGS; i++) {
                    double n = out[c * AC_MAX_ALGS + i], t = out[N + c * AC_MAX_ALGS + i];
                    if (n > 0)
                        ac_log("summary %s %s %.0f %.6f %.2f", ac_coll_name(c), alg_name(c, i), n,
                               t, 1e6 * t / n);
                }
            for (int c = 0; c < AUTOCOLL_NCOLL; c++)
                if (fb_out[c] > 0)
                    ac_log("summary %s: the forced %s could not run %.0f call%s (all "
                           "communicators); %s",
                           ac_coll_name(c), ac_g.set.forced[c][0] ? ac_g.set.forced[c] : "instance",
                           fb_out[c], fb_out[c] > 1 ? "s" : "",
                           ac_g.set.on_error == AC_ONERR_ERROR ? "they failed with MPI_ERR_ARG"
                                                               : "the MPI library's algorithm ran");
        }
    }
    free(in);
    free(out);
}
