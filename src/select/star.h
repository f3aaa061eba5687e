/*
 * The adaptive selection state machine of one key (STAR-MPI's dynamic AEOS algorithm, seed 000
 * section 4.3, as corrected in spec/star-stage-ethernet.md 5.3 and 5.4), free of MPI so that it
 * can be driven by an injected clock in unit tests.
 *
 * The caller owns the communication: every rank drives its own copy with the same calls
 * (ac_star_next, run the candidate, ac_star_record with the local time). When ac_star_record
 * returns 1 the caller reduces the buffer returned by ac_star_buffer over all ranks (MPI_SUM or
 * MPI_MAX as ac_star_op says, 64-bit integers: exact, so every rank gets the same numbers in
 * any reduction order) and calls ac_star_decide. Decisions depend only on reduced values and
 * on the call count, so every copy makes the same decision at the same call.
 *
 * Candidates are given in probe order (best predicted first) with a group id each; the
 * representative of a group is its first candidate. Grouping (enhanced AEOS): the first round
 * times one representative per group, the second the other members of the winning group; a
 * later switch into a group with untimed members times them before settling. Beyond STAR, the
 * second round can also cover groups whose representative came within cfg.margin of the best
 * one, since a representative (the best-predicted member) can misjudge its group.
 */
#ifndef AC_STAR_H
#define AC_STAR_H

enum { AC_STAR_MAX = 64 };

typedef struct {
    int iter;      /* timed calls per candidate and round (STAR: 10) */
    double eps;    /* tolerance of the monitoring comparison (STAR: 0.10) */
    int delta_max; /* cap of the monitoring factor delta (64) */
    int stat_max;  /* 0: score = min over calls of the mean over ranks (STAR); 1: the max over
                      ranks of each rank's mean over the calls (for calls that do not
                      synchronise the ranks, where per-call minima reward skew) */
    int grouping;  /* enhanced AEOS */
    double margin; /* grouping: also time the members of every group whose representative is
                      within this fraction of the best representative (0: STAR, best group only) */
} ac_star_cfg_t;

typedef enum { AC_STAR_MEASURE = 0, AC_STAR_MONITOR } ac_star_stage_t;

typedef struct {
    ac_star_cfg_t cfg;
    int nprocs;
    int n;
    int group[AC_STAR_MAX];
    double score[AC_STAR_MAX]; /* seconds; < 0 when not timed */
    int stage;
    int round2; /* the grouping's second round has been planned */
    int plan[AC_STAR_MAX], nplan, pidx, it;
    long long *buf; /* reduction buffer: nplan*iter (measure) or 2 (monitor) nanoseconds */
    int buflen;
    int cur, delta, mon;
    double tot_all, tot_last;
    /* Counters for the summary. */
    long calls, probe_calls, switches, decisions;
    double probe_time; /* local seconds spent in probe calls */
} ac_star_t;

/* Returns 0, or -1 when out of memory or n is not in [1, AC_STAR_MAX]. */
int ac_star_init(ac_star_t *s, const ac_star_cfg_t *cfg, int nprocs, int n, const int *group);
void ac_star_free(ac_star_t *s);
/* Candidate to run for this call. */
int ac_star_next(const ac_star_t *s);
/* Local time of the call just run; 1 when the caller must reduce the buffer and decide. */
int ac_star_record(ac_star_t *s, double seconds);
long long *ac_star_buffer(ac_star_t *s, int *len);
int ac_star_op_max(const ac_star_t *s); /* 1: reduce with MAX, 0: with SUM */
void ac_star_decide(ac_star_t *s);
/* Best timed candidate other than c (-1 when none). */
int ac_star_runner_up(const ac_star_t *s, int c);

#endif
