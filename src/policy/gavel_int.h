/* The state of a Gavel policy (gavel.c), shared by its parts: the allocation (gavel_alloc.c),
 * the fill with its segment summaries (gavel_fill.c) and the rounds (gavel.c). */
#ifndef BERTH_POLICY_GAVEL_INT_H
#define BERTH_POLICY_GAVEL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "policy/gavel_rank.h"
#include "sched/plan.h"
#include "util/pyrand.h"

enum kind { FIFO, MAX_MIN, MAX_MIN_PERF, FTF };

#define NONE  UINT32_MAX
#define X_MIN 1e-9 /* allocations below this are solver noise */

struct act { /* an active job: arrived, not yet left */
    uint32_t job;
    int16_t chosen;   /* type chosen at this round's start, -1 */
    uint8_t gone;     /* it left (done): dropped at the next compaction */
    int64_t run_seen; /* run time already counted into recv */
    berth_us arrival; /* the spec's (read at every solve: one spec fewer to load) */
    double done_seen; /* exec_time: work already counted into recv */
    /* consolidate-or-wait's patience on type pat_type (-1: none yet), for the work done and
     * estimate it was reckoned with (both fixed while the job is pending) */
    berth_us patience, pat_est;
    double pat_done;
    int16_t pat_type;
    uint32_t sum_gen; /* equal to gavel.sum_gen: in a worklist's summary (pending) */
    uint32_t at[2];   /* its positions in the summed-up fill lists, when there */
    /* finish-time fairness: isolated-equivalent time of the work done, counted at solves */
    double iso_time, prev_done, prev_rate;
};

struct victim {
    uint64_t key; /* larger = preempted sooner */
    uint32_t k;   /* act index */
};

#define SUM_LETTERS 8   /* distinct gang sizes a segment follows */
#define SEG_RUN     512 /* entries a segment's run holds at most (what a live one walks) */

/* A segment of a fill worklist's summary: a run of pending entries the shortcut answers,
 * summed up for a pass in which none of them can start (fill_skip): trying them all then
 * changes only the order of the free-GPU buckets, by the refused starts of the gangs among
 * them that fit by count. The entry after the run (end), one the shortcut cannot answer (a
 * single GPU, a fraction, CPU only, a gang no server holds), is tried as the walk would. */
struct fseg {
    size_t start; /* list position of its run's first entry */
    /* past its run (SIZE_MAX: the last segment, whose run goes on to the summary's end);
     * when close, the entry there closes it (else the run was cut at SEG_RUN entries) */
    size_t end;
    int close;
    int nl;                       /* letters: the run's gang sizes, as first seen */
    int32_t letter[SUM_LETTERS];  /* gang size */
    berth_us minpat[SUM_LETTERS]; /* their least patience */
    uint32_t minjob[SUM_LETTERS]; /* a job that has it */
    /* per cut c (the letters up to letter[c], those that fit by count): the gangs of the
     * run's entries in list order, reduced (two refused starts of one size in a row leave
     * the buckets as they were, so adjacent equal gangs cancel), and how many of each
     * letter it holds */
    int32_t *word[SUM_LETTERS];
    size_t nword[SUM_LETTERS], word_cap[SUM_LETTERS];
    size_t count[SUM_LETTERS][SUM_LETTERS];
};

struct fitem { /* a list position's job, summed up (fsum.item) */
    berth_us pat;
    int32_t gang;
};

/* A fill worklist's first n entries, all pending jobs when summed up, as segments. */
struct fsum {
    int ok;   /* 0: to be rebuilt from the list */
    size_t n; /* entries summed up */
    struct fseg *seg;
    size_t nseg, seg_cap; /* segments beyond nseg keep their word buffers for reuse */
    /* per list position: the gang of a pending job in a segment's run (0: an entry closing a
     * segment, or a job that started since) and its patience, so that a segment is summed
     * up again, or walked, without reading the jobs */
    struct fitem *item;
    size_t item_cap;
};

struct fentry { /* Gavel's base fifo: a job it allocated, and the type, kept until it is done */
    uint32_t job;
    int16_t type;
};

struct gavel {
    int kind;
    int fill;                  /* fill idle GPUs without preempting (Gavel does not) */
    int fastest;               /* gavel-fifo: the fastest type with room (else Gavel's base fifo) */
    int round_passes;          /* every pass starts a round (params.round_passes) */
    int half_credit;           /* Gavel's half-round credit in the time received (below) */
    int zero_reset;            /* a reset at time 0 does not count as one (Gavel's test) */
    int exec_time;             /* time received = time the job's work ran (Gavel's) */
    struct berth__pyrand rand; /* Gavel's base fifo's random.Random(seed) */
    struct fentry *falloc;     /* Gavel's base fifo's allocation, by job number */
    size_t nfalloc, falloc_cap;
    struct fentry *fadd; /* scratch: its new entries */
    size_t nfadd, fadd_cap;
    berth_us round_us, realloc_us;
    size_t nt;       /* cluster GPU types, known from the first pass */
    size_t ncpu;     /* active CPU-only jobs (those that left go at the next compaction) */
    struct act *act; /* in job-number (arrival) order */
    size_t nact, act_cap;
    /* beside act: 1 when the job is in g->run (so it may have run since the last round
     * start); apart, so that a round start's walk over them reads a byte per job */
    uint8_t *in_run;
    size_t in_run_cap;
    double *x, *recv, *deficit; /* [nact * nt], beside act; recv in microseconds */
    double wtime[64];           /* half_credit: Gavel's time so far per type since the reset */
    size_t xcap;
    /* recv summed over the active jobs, per type: whole microseconds, so the running sum is
     * exactly what summing recv again would give (in any order) */
    int64_t wsum[64];
    uint32_t *run; /* jobs that may have run since the last round start (job order once a
                      round start has filtered it; starts append) */
    size_t nrun, run_cap;
    uint32_t *alloc; /* jobs with some x > X_MIN at the last reset, in job order */
    size_t nalloc, alloc_cap;
    int left;      /* a job left since the last compaction */
    uint32_t *pos; /* per job: index in act, or NONE */
    size_t pos_cap;
    int changed, solved;
    berth_us next_round, last_reset;
    struct berth__gavel_entry *ent; /* the last round's ranking */
    size_t nent, ent_cap;
    struct berth__gavel_entry *ent_tmp; /* scratch of the ranking's sort */
    size_t ent_tmp_cap;
    int ent_same; /* ent holds the (job, type) pairs of the allocation (no reset since) */
    /* the fill's worklists between rounds: the ranked entries (indices into ent) and the
     * active jobs (act order) whose job may be pending. A job that is not pending leaves
     * them; none comes back before the next round start or requeue, which rebuild them. */
    uint32_t *fent, *fjob;
    size_t nfent, fent_cap, nfjob, fjob_cap;
    int fill_ok;
    size_t fifo_from;   /* gavel-fifo's fill: the active jobs before it are not pending (or can
                           run nowhere) */
    struct fsum sum[2]; /* of fent and of fjob */
    int32_t *word;      /* scratch: a reduced word of gangs (seg_live) */
    size_t word_cap;
    /* the jobs the last round preempted: their work done, so their patience, was that of their
     * last report when the round's pass summed them up; refreshed at the next pass (stale) */
    uint32_t *pre;
    size_t npre, pre_cap, nrun_round; /* run's first nrun_round: running at the round start */
    int stale;
    uint32_t sum_gen; /* bumped when the summaries are dropped */
    /* scratch */
    struct victim *victims;
    size_t nvictims, victims_cap;
    int64_t *vsort; /* their sort keys */
    size_t vsort_cap;
    uint64_t *key; /* per act index: its best rank, or unranked */
    size_t key_cap;
    uint32_t *wait; /* a round's chosen entries (ent indices) not started yet */
    size_t wait_cap;
    double *lp; /* LP inputs and outputs */
    size_t lp_cap;
    uint32_t *lpk; /* LP row -> act index */
    size_t lpk_cap;
};

/* What a job's time received on a type starts at (Gavel: half a round, `_add_job` and
 * `_reset_time_run_so_far`), in microseconds. */
static inline double berth__gavel_credit(const struct gavel *g)
{
    return g->half_credit ? (double)g->round_us / 2 : 0;
}

/* ---- throughputs ------------------------------------------------------------------------ */

/* T of job j on cluster type t (0: it may not or cannot run there). */
static inline double berth__gavel_tput(const struct berth__view *v, const struct berth__job *j,
                                       size_t t)
{
    const struct berth__gputype *ty = &v->cluster->types[t];
    if ((j->type_mask && !(j->type_mask >> t & 1)) || j->gpus > ty->total ||
        (j->single && j->gpus > ty->max_per_server))
        return 0;
    if (!v->tput || j->cls < 0)
        return 1;
    int mt = v->tput_type ? v->tput_type[t] : -1;
    return mt < 0 ? 0 : berth__tput_rate(v->tput, j->cls, mt, j->gpus, 0);
}

/* The job's demand in milli-GPUs. */
static inline int64_t berth__gavel_demand(const struct berth__job *j)
{
    return (int64_t)j->gpus * j->share;
}

/* Grows scratch *p to at least need (1 when 0) elements: *p, or NULL. */
static inline void *berth__gavel_grow_scratch(void **p, size_t *cap, size_t need, size_t elem)
{
    return berth__grow(p, cap, need ? need : 1, elem) ? NULL : *p;
}

/* Tests' switches and counters (gavel.c). */
extern int berth__gavel_no_fast;
extern size_t berth__gavel_seg_run;
extern unsigned long long berth__gavel_fast_used, berth__gavel_skipped, berth__gavel_skip_starts,
    berth__gavel_seg_walks;

/* gavel.c */
berth_us berth__gavel_patience_of(struct gavel *g, const struct berth__view *v,
                                  const struct berth__plan *p, size_t k, int t);
int berth__gavel_try_start(struct gavel *g, const struct berth__view *v, struct berth__plan *p,
                           size_t k, int t, struct berth_err *err);

/* gavel_alloc.c */
int berth__gavel_reset(struct gavel *g, const struct berth__view *v, struct berth_err *err);

/* gavel_fill.c */
void berth__gavel_sum_drop(struct gavel *g);
int berth__gavel_fill(struct gavel *g, const struct berth__view *v, struct berth__plan *p,
                      struct berth_err *err);

#endif
