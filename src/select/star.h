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
 *
 * Racing (cfg.race, AUTOCOLL_LEARN=race, the default; docs/adaptive.md "Learning cost"): the
 * measurement is a sequence of small batches, each closed by one reduction (MAX of each rank's
 * summed time per batch entry), so every decision below uses agreed numbers only:
 *  - no-regret: the incumbent (the caller's best known choice, e.g. the MPI library's own
 *    algorithm) runs whenever the exploration budget is spent: what the calls of other
 *    candidates cost beyond as many calls of the initial incumbent (the regret) may not exceed
 *    cfg.explore x the time accumulated on the key, plus one batch of probes whose cost was
 *    underestimated; a candidate replaces the incumbent only once it has race_iter samples and
 *    a better mean, and what it saves funds further exploration;
 *  - successive elimination: after each batch, a candidate whose mean is above the best mean
 *    by more than race_margin plus the relative spread seen on the best (capped at 0.25) is
 *    dropped and never run again while measuring; the survivors are sampled up to race_iter
 *    times, then the best is kept and monitored as in STAR.
 * Cost: a clearly slower candidate costs one call; one reduction per batch of at least three
 * probes (fewer only at the end).
 *
 * Sampled monitoring (beyond STAR, which times every call): a monitoring period still spans
 * delta x iter calls and its last iter calls are all timed (the "last" average), but before them
 * only every (delta/2)-th call is timed. The period's average is the mean of its timed calls, an
 * unbiased estimate of STAR's mean over all of them from at least 2 x iter samples, so decisions
 * come at the same calls as in STAR while a settled key reads the clock on about 30 of 640
 * calls at delta = 64 instead of all of them (the clock is the larger part of a settled call's
 * cost, docs/bench.md).
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
    /* Racing and no-regret (0: classic STAR measurement as above; the fields below unused). */
    int race;
    double race_margin; /* base drop margin (fraction of the best mean) */
    double explore;     /* exploration budget: fraction of the time accumulated on the key */
    int race_iter;      /* samples a candidate needs before it can be chosen */
    int incumbent;      /* the best known candidate, run while the budget is spent */
    int clean_probe;    /* 1: a candidate's first probe runs two calls and is scored by the
                           second (rooted collectives: the first call after another candidate
                           pays for the skew that candidate left, see star.c) */
} ac_star_cfg_t;

typedef enum { AC_STAR_MEASURE = 0, AC_STAR_MONITOR } ac_star_stage_t;

typedef struct {
    ac_star_cfg_t cfg;
    int nprocs;
    int n;
    int group[AC_STAR_MAX];
    double score[AC_STAR_MAX]; /* seconds; < 0 when not timed */
    int stage;
    int awaiting; /* ac_star_record returned 1 and ac_star_decide has not run: the caller's
                     reduction of the buffer is under way (adapt.c defers it to the key's next
                     call); ac_star_next and ac_star_record may not be called */
    int round2;   /* the grouping's second round has been planned */
    int plan[AC_STAR_MAX], nplan, pidx, it;
    long long *buf; /* reduction buffer: nplan*iter (measure) or 2 (monitor) nanoseconds */
    int buflen;
    int cur, delta, mon;
    int nmon;  /* timed calls of the monitoring period (ac_star_timed) */
    int tnext; /* the next timed call of the period (its mon) */
    double tot_all, tot_last;
    /* Counters for the summary. */
    long calls, probe_calls, switches, decisions;
    double probe_time; /* local seconds spent in probe calls */
    /* Racing (cfg.race): agreed samples per candidate, the current batch, the budget. */
    int alive[AC_STAR_MAX];
    long nsamp[AC_STAR_MAX];
    long ncln[AC_STAR_MAX]; /* samples that were not the first call of their entry */
    double tsum[AC_STAR_MAX], csum[AC_STAR_MAX], smin[AC_STAR_MAX], smax[AC_STAR_MAX];
    int rplan[2 * AC_STAR_MAX], rcalls[2 * AC_STAR_MAX];
    double total, regret;     /* agreed seconds: all calls of the key, excess over the initial
                             incumbent's time for as many calls */
    long ntotal;              /* calls behind total */
    double xsum;              /* agreed seconds of the calls of candidates other than the initial
                             incumbent */
    long xn;                  /* calls behind xsum */
    double first;             /* agreed seconds: sum of the first samples of probed candidates */
    long nfirst;              /* candidates behind first */
    double skew[AC_STAR_MAX]; /* racing: agreed seconds, sum over the candidate's entries of
                                 two or more calls (but the key's first) of what their first
                                 call cost beyond the mean of the others: the skew a reduction
                                 leaves, or the latency a pipelined candidate shows after it */
    int nskew[AC_STAR_MAX];   /* entries behind skew */
    long drops;               /* candidates eliminated */
    int late[AC_STAR_MAX];    /* racing: probe after every untried candidate of a lower level
                              (0, 1 or 2; set by the caller after ac_star_init, alike on every
                              rank) */
    double pred[AC_STAR_MAX]; /* racing: the models' predicted time (seconds; <= 0: none), set
                                 by the caller after ac_star_init, alike on every rank */
    int fam[AC_STAR_MAX];     /* racing: the candidate's algorithm (instances of one algorithm
                                 with the same parts, other numbers, share it; ac_star_init:
                                 each its own) */
    double hint[AC_STAR_MAX]; /* racing: order of the untried candidates within a level, lower
                                 first, ties in probe order (0 by default; ac_star_transfer) */
    long long rbuf[4 * AC_STAR_MAX]; /* racing: the reduction buffer (buf), inside the state so
                                        that a key's creation cannot fail on one rank only */
} ac_star_t;

/* Returns 0, or -1 when out of memory or n is not in [1, AC_STAR_MAX]. */
int ac_star_init(ac_star_t *s, const ac_star_cfg_t *cfg, int nprocs, int n, const int *group);
void ac_star_free(ac_star_t *s);
/* Candidate to run for this call. */
int ac_star_next(const ac_star_t *s);
/* 1 when the next call must be timed: every call while measuring; while monitoring, the last
 * cfg.iter calls of each period and every (delta/2)-th call before them (sampled monitoring,
 * above); never with one candidate. Depends only on the call count: alike on every rank. */
static inline int ac_star_timed(const ac_star_t *s) {
    return s->stage == AC_STAR_MEASURE || (s->n > 1 && s->mon == s->tnext);
}
/* Local time of the call just run (ignored when ac_star_timed said the call is not timed); 1
 * when the caller must reduce the buffer and decide (the state then awaits ac_star_decide,
 * which the caller may call at a later point, the same on every rank). */
int ac_star_record(ac_star_t *s, double seconds);
/* A call ac_star_timed said is not timed, counted without its time (the same as ac_star_record
 * for it, which it may replace; such a call never ends a period). */
static inline void ac_star_skip(ac_star_t *s) {
    s->calls++;
    if (s->stage == AC_STAR_MONITOR && s->n > 1) s->mon++;
}
long long *ac_star_buffer(ac_star_t *s, int *len);
int ac_star_op_max(const ac_star_t *s); /* 1: reduce with MAX, 0: with SUM */
/* 1 when the next call explores (a candidate other than the best known). */
int ac_star_probing(const ac_star_t *s);
void ac_star_decide(ac_star_t *s);
/* Transfer (racing, before the first call; docs/adaptive.md "Transfer between keys"): start
 * on candidate start instead of cfg.incumbent (it becomes the incumbent, the reference of the
 * no-regret budget); hint (may be NULL) orders the untried candidates (lower first, the
 * measured times of a neighbouring key); a candidate whose prune[c] is 1 is probed after the
 * others (level 2 of late), one whose prune[c] is 2 is never run (confirmation only). Every
 * argument must be the same on every rank. Returns 0, or -1 when not applicable (not racing,
 * already called, start out of range); the state is then unchanged. */
int ac_star_transfer(ac_star_t *s, int start, const double *hint, const int *prune);
/* Best timed candidate other than c (-1 when none). */
int ac_star_runner_up(const ac_star_t *s, int c);

#endif
