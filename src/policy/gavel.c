/* The Gavel policy family (gavel-fifo, gavel-max-min, gavel-max-min-perf) and Themis'
 * finish-time fairness (themis-ftf) as Gavel runs them: an allocation x_ij (the share of time
 * job i should get on GPU type j) turned into who runs, round by round.
 *
 * Allocation. gavel-fifo: in arrival order each job gets x = 1 on one type, the fastest with
 * room left (a running job keeps its type), until one finds no room: it and everyone after
 * get nothing (the head blocks). The others solve an LP (lp_alloc.h): max-min fairness with
 * throughputs ignored, max-min on throughputs normalised by each job's equal-split rate, and
 * finish-time fairness. The allocation is recomputed at a round start when jobs arrived or
 * left since the last one, but at most once per params.min_realloc_us (0: Gavel's 1920 s). Each
 * recompute is a reset: a job's deficit on a type grows by what it should have had since the
 * last reset (x * elapsed) minus what it got, and the time it got starts again from 0.
 *
 * Rounds (params.round_us, 0: Gavel's 360 s; a timer while jobs run; after an idle spell
 * the first pass past the due time starts one). At a round start every allocated (job, type) gets a
 * priority x / (the job's share of the time jobs ran on that type since the reset), x * 1e9
 * when it got none yet; entries are ranked by (priority, deficit, x) descending, then job
 * number, then type. Walking the ranking, a job is chosen on the first type whose GPUs (counted,
 * in milli-GPUs) still hold its gang. Running jobs chosen on their own type keep their GPUs;
 * chosen jobs that are pending start, taking the GPUs of running jobs that were not chosen
 * (worst ranked first, jobs outside the allocation before all others, newest first) only
 * when the idle GPUs are not enough; a victim whose GPUs nobody took in the end keeps running.
 * A job chosen on another type than the one it runs on moves.
 *
 * Between rounds, and after each round's choice, GPUs left idle are filled without preempting
 * anyone: pending jobs of the round's ranking first (on the ranked type), then every pending
 * job in arrival order on its fastest type with room; gavel-fifo fills in arrival order only
 * and stops at the first job that does not fit. So a job outside the allocation (one that
 * arrived since the last recompute) runs when GPUs are idle, and a job that finishes early
 * hands its GPUs on at once.
 *
 * Throughputs T_ij: 1 on every type the job may use when there is no throughput model or the
 * job has no class; otherwise the model's rate for its class and gang on that type (0 where
 * the model does not know the type). A job cannot be allocated on a type too small for its
 * gang. CPU-only jobs take no part in the allocation and are only filled in. themis-ftf's
 * rho takes each job's time since arrival, its work left (work - done: steps for a class job,
 * else seconds, a fixed-speed job's done being at least its run time) and its isolated-
 * equivalent time, which grows at each recompute by the work done since the last one over
 * the isolated rate of then. Every job has weight 1.
 *
 * Settings (--mode gavel sets each as Gavel runs): fill (the idle-GPU fill above; off in
 * gavel mode); for gavel-fifo, fastest_type (the capacity-checked fastest type; off: Gavel's
 * base fifo, alloc_fifo_gavel, with Python's generator seeded by params.seed for its one
 * draw); and three rules of Gavel's priorities (scheduler.py), on in gavel mode: exec_time
 * (time received is the time a job's work ran at its rate, as Gavel adds its micro-tasks'
 * execution times, not the time it held GPUs), half_credit (time received starts at half a
 * round at arrival and at each reset, and a type's total keeps finished jobs' time until
 * the next reset) and zero_reset (while the last reset was at time 0 the next may come at
 * any round: Gavel's `_last_reset_time == 0`). With params.round_passes (the simulator's
 * rounds that end early) every pass starts a round. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "policy/gavel_rank.h"
#include "solve/lp_alloc.h"
#include "sched/plan.h"
#include "sched/refuse.h"
#include "sched/settings.h"
#include "util/pyrand.h"
#include "util/sort.h"

enum kind { FIFO, MAX_MIN, MAX_MIN_PERF, FTF };

#define DEFAULT_ROUND_US   (360 * BERTH_US_PER_S)
#define DEFAULT_REALLOC_US (1920 * BERTH_US_PER_S)
#define NONE               UINT32_MAX
#define X_MIN              1e-9 /* allocations below this are solver noise */

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
static double credit(const struct gavel *g)
{
    return g->half_credit ? (double)g->round_us / 2 : 0;
}

/* ---- throughputs ------------------------------------------------------------------------ */

/* T of job j on cluster type t (0: it may not or cannot run there). */
static double tput(const struct berth__view *v, const struct berth__job *j, size_t t)
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
static int64_t demand(const struct berth__job *j)
{
    return (int64_t)j->gpus * j->share;
}

/* Work done by now in the unit of T: steps for a class job, seconds for a fixed-speed one
 * (whose done is its run time, should the executor not report progress). */
static double work_done(const struct berth__view *v, const struct berth__job *j)
{
    double d = berth__job_done(j, v->now);
    if (j->cls >= 0 && v->tput)
        return d;
    d = fmax(d, (double)berth__job_run_us(j, v->now));
    return fmin(d, j->work) / 1e6;
}

static double work_total(const struct berth__view *v, const struct berth__job *j)
{
    return j->cls >= 0 && v->tput ? j->work : j->work / 1e6;
}

/* ---- the active set ----------------------------------------------------------------------- */

static int grow_x(struct gavel *g, size_t n)
{
    if (n * g->nt <= g->xcap)
        return 0;
    size_t cap = g->xcap ? g->xcap : 64;
    while (cap < n * g->nt)
        cap *= 2;
    /* each array is kept as soon as it moved: a later one failing leaves them all valid */
    double **a[3] = {&g->x, &g->recv, &g->deficit};
    for (int i = 0; i < 3; i++) {
        double *p = realloc(*a[i], cap * sizeof *p);
        if (!p)
            return BERTH_ENOMEM;
        *a[i] = p;
    }
    g->xcap = cap;
    return 0;
}

static int add_job(struct gavel *g, const struct berth__job *j)
{
    uint32_t job = j->idx;
    if (job >= g->pos_cap) {
        size_t old = g->pos_cap;
        if (BERTH_GROW(g->pos, g->pos_cap, (size_t)job + 1))
            return BERTH_ENOMEM;
        for (size_t i = old; i < g->pos_cap; i++)
            g->pos[i] = NONE;
    }
    if (BERTH_GROW(g->act, g->act_cap, g->nact + 1) ||
        BERTH_GROW(g->in_run, g->in_run_cap, g->nact + 1) || grow_x(g, g->nact + 1))
        return BERTH_ENOMEM;
    size_t k = g->nact++;
    g->in_run[k] = 0;
    g->act[k] = (struct act){.job = job,
                             .chosen = -1,
                             .arrival = j->spec->arrival_us,
                             .pat_type = -1,
                             .sum_gen = g->sum_gen - 1};
    for (size_t t = 0; t < g->nt; t++) {
        g->x[k * g->nt + t] = g->deficit[k * g->nt + t] = 0;
        g->recv[k * g->nt + t] = credit(g);
    }
    g->pos[job] = (uint32_t)k;
    g->ncpu += j->gpus == 0;
    if (g->fill_ok) { /* a new job is the last active one: the list stays in act order */
        if (BERTH_GROW(g->fjob, g->fjob_cap, g->nfjob + 1))
            return BERTH_ENOMEM;
        g->fjob[g->nfjob++] = job;
    }
    return 0;
}

/* Drops both summaries (the lists changed other than at their ends, or a summed-up job left). */
static void sum_drop(struct gavel *g)
{
    g->sum[0].ok = g->sum[1].ok = 0;
    g->sum_gen++;
}

/* Marks the jobs that left (done) since the last pass. */
static void mark_left(struct gavel *g, const struct berth__view *v)
{
    for (size_t i = 0; i < v->nleft; i++) {
        uint32_t job = v->left[i];
        if (job < g->pos_cap && g->pos[job] != NONE) {
            g->act[g->pos[job]].gone = 1;
            g->left = 1;
            if (g->act[g->pos[job]].sum_gen == g->sum_gen) /* it left pending */
                sum_drop(g);
        }
    }
}

/* Drops the jobs that left, keeping arrival order (a CPU-only job stays one: ncpu loses
 * those that left). */
static void compact(struct gavel *g, const struct berth__view *v)
{
    size_t w = 0, nt = g->nt;
    for (size_t k = 0; k < g->nact; k++) {
        uint32_t job = g->act[k].job;
        if (g->act[k].gone) {
            for (size_t t = 0; t < nt; t++)
                g->wsum[t] -= (int64_t)g->recv[k * nt + t];
            g->pos[job] = NONE;
            g->ncpu -= v->jobs[job].gpus == 0;
            continue;
        }
        if (w != k) {
            g->act[w] = g->act[k];
            g->in_run[w] = g->in_run[k];
            for (size_t t = 0; t < nt; t++) {
                g->x[w * nt + t] = g->x[k * nt + t];
                g->recv[w * nt + t] = g->recv[k * nt + t];
                g->deficit[w * nt + t] = g->deficit[k * nt + t];
            }
        }
        g->pos[job] = (uint32_t)w++;
    }
    g->nact = w;
}

/* Counts the run time job k got since last counted into its current (last) type. Called
 * before a job changes type, and for everyone at a round start. */
static void account(struct gavel *g, const struct berth__view *v, size_t k)
{
    const struct berth__job *j = &v->jobs[g->act[k].job];
    int64_t run = berth__job_run_us(j, v->now);
    double got = (double)(run - g->act[k].run_seen);
    if (g->exec_time) { /* the work done since, at the job's own rate on its type */
        double d = berth__job_done(j, v->now), rate;
        got = d - g->act[k].done_seen;
        if (j->cls >= 0 && v->tput && j->type >= 0 && (size_t)j->type < g->nt &&
            (rate = tput(v, j, (size_t)j->type)) > 0)
            got /= rate / 1e6;
        g->act[k].done_seen = d;
    }
    if (got > 0 && j->type >= 0 && (size_t)j->type < g->nt) {
        g->recv[k * g->nt + (size_t)j->type] += got;
        g->wtime[j->type] += got;
        if (!g->exec_time) /* whole microseconds only then */
            g->wsum[j->type] += run - g->act[k].run_seen;
    }
    g->act[k].run_seen = run;
}

/* ---- the allocation ------------------------------------------------------------------------ */

static void *grow_scratch(void **p, size_t *cap, size_t need, size_t elem)
{
    return berth__grow(p, cap, need ? need : 1, elem) ? NULL : *p;
}

static int alloc_fifo(struct gavel *g, const struct berth__view *v)
{
    int64_t room[64];
    for (size_t t = 0; t < g->nt; t++)
        room[t] = (int64_t)v->cluster->types[t].total * 1000;
    int blocked = 0;
    for (size_t k = 0; k < g->nact; k++) {
        const struct berth__job *j = &v->jobs[g->act[k].job];
        double *x = &g->x[k * g->nt];
        for (size_t t = 0; t < g->nt; t++)
            x[t] = 0;
        if (blocked || j->gpus == 0)
            continue;
        int best = -1;
        double bt = 0;
        int keep = j->state == BERTH_JOB_RUNNING && j->type >= 0 && room[j->type] >= demand(j);
        if (keep)
            best = j->type;
        for (size_t t = 0; !keep && t < g->nt; t++) {
            double r = tput(v, j, t);
            if (r > 0 && room[t] >= demand(j) && r > bt) {
                bt = r;
                best = (int)t;
            }
        }
        if (best < 0) {
            blocked = 1;
            continue;
        }
        room[best] -= demand(j);
        x[best] = 1;
    }
    return 0;
}

/* Appends a new allocation (job, type) to the scratch list. */
static int add_falloc(struct gavel *g, uint32_t job, int type)
{
    if (BERTH_GROW(g->fadd, g->fadd_cap, g->nfadd + 1))
        return BERTH_ENOMEM;
    g->fadd[g->nfadd++] = (struct fentry){job, (int16_t)type};
    return 0;
}

/* Gavel's base fifo (scheduler/policies/fifo.py, FIFOPolicy.get_allocation with
 * mode='base', ~137-163), as shipped. A job keeps the type it was allocated until it is
 * done. At each recompute: (1) jobs not allocated queue in arrival order; (2) walking the
 * allocated jobs by job id, a finished job's type goes to the head of the queue when the
 * head's gang fits that type's capacity counted so far (before the later running jobs are
 * subtracted: the type can end over-subscribed; a head that does not fit leaves the queue
 * anyway, unallocated until the next recompute), else a running job's gang is subtracted;
 * (3) the types with capacity left, sorted by name; while jobs queue, the head is taken
 * off, the types that still hold its gang are its candidates (none: stop), a random index
 * among them is drawn (random.Random(seed).randrange) and never used: the job gets the
 * stale loop variable, the last type by name of the whole cluster (whatever its room: on
 * Gavel's 3-type cluster every job goes to v100), without a capacity check, and
 * when that type's capacity is then exactly 0 the candidate at the drawn index is removed
 * from the list (a type with room may go, a full one stay). So types are over-subscribed
 * and others idle. The one guard berth adds: a job the last type cannot run at all (no
 * rate, a gang larger than the type) gets the drawn candidate instead, where Gavel would
 * never run it. */
static int alloc_fifo_gavel(struct gavel *g, const struct berth__view *v)
{
    int64_t avail[64];
    int types[64], ntypes = 0, cand[64];
    for (size_t t = 0; t < g->nt; t++)
        avail[t] = v->cluster->types[t].total;
    /* (1) the queue: active GPU jobs without an allocation, in arrival order */
    if (!grow_scratch((void **)&g->lpk, &g->lpk_cap, g->nact, sizeof *g->lpk))
        return BERTH_ENOMEM;
    size_t nq = 0, qh = 0, f = 0;
    for (size_t k = 0; k < g->nact; k++) {
        uint32_t job = g->act[k].job;
        while (f < g->nfalloc && g->falloc[f].job < job)
            f++;
        if (v->jobs[job].gpus > 0 && !(f < g->nfalloc && g->falloc[f].job == job))
            g->lpk[nq++] = (uint32_t)k;
    }
    /* (2) finished jobs hand their type to the head; running ones count */
    size_t w = 0, n0 = g->nfalloc;
    g->nfadd = 0;
    for (size_t i = 0; i < n0; i++) {
        struct fentry e = g->falloc[i];
        const struct berth__job *j = &v->jobs[e.job];
        if (j->state != BERTH_JOB_DONE) {
            avail[e.type] -= j->gpus;
            g->falloc[w++] = e;
            continue;
        }
        if (qh < nq) { /* the head leaves the queue only when it fits */
            const struct berth__job *h = &v->jobs[g->act[g->lpk[qh]].job];
            if (h->gpus <= avail[e.type] && tput(v, h, (size_t)e.type) > 0) {
                qh++;
                avail[e.type] -= h->gpus;
                if (add_falloc(g, h->idx, e.type))
                    return BERTH_ENOMEM;
            }
        }
    }
    g->nfalloc = w;
    /* (3) the types with capacity left, sorted by name (insertion: at most 64); last: the
     * loop variable left over from Gavel's walk over every type (its cluster_spec, whose
     * workers register in name order), the last name of all */
    int last = -1;
    for (size_t t = 0; t < g->nt; t++) {
        if (v->cluster->types[t].total > 0 &&
            (last < 0 || strcmp(v->cluster->types[t].name, v->cluster->types[last].name) > 0))
            last = (int)t;
        if (avail[t] <= 0)
            continue;
        int at = ntypes++;
        for (;
             at > 0 && strcmp(v->cluster->types[types[at - 1]].name, v->cluster->types[t].name) > 0;
             at--)
            types[at] = types[at - 1];
        types[at] = (int)t;
    }
    for (; qh < nq && ntypes > 0; qh++) {
        const struct berth__job *j = &v->jobs[g->act[g->lpk[qh]].job];
        int nc = 0;
        for (int i = 0; i < ntypes; i++)
            if (avail[types[i]] >= j->gpus)
                cand[nc++] = i;
        if (!nc)
            break;
        uint32_t drawn = berth__pyrand_below(&g->rand, (uint32_t)nc);
        int t = types[ntypes - 1];
        if (j->gpus > v->cluster->types[t].total)
            t = types[cand[drawn]];
        if (tput(v, j, (size_t)t) <= 0) /* off the queue, allocated at a later recompute */
            continue;
        if (add_falloc(g, j->idx, t))
            return BERTH_ENOMEM;
        avail[t] -= j->gpus;
        if (avail[t] == 0) {
            int at = cand[drawn];
            memmove(types + at, types + at + 1, (size_t)(ntypes - at - 1) * sizeof *types);
            ntypes--;
        }
    }
    /* merge the new allocations in, by job number */
    if (BERTH_GROW(g->falloc, g->falloc_cap, g->nfalloc + g->nfadd))
        return BERTH_ENOMEM;
    for (size_t i = 0; i < g->nfadd; i++) {
        size_t at = g->nfalloc;
        while (at > 0 && g->falloc[at - 1].job > g->fadd[i].job)
            at--;
        memmove(g->falloc + at + 1, g->falloc + at, (g->nfalloc - at) * sizeof *g->falloc);
        g->falloc[at] = g->fadd[i];
        g->nfalloc++;
    }
    for (size_t k = 0; k < g->nact * g->nt; k++)
        g->x[k] = 0;
    for (size_t i = 0, k = 0; i < g->nfalloc; i++) {
        while (k < g->nact && g->act[k].job < g->falloc[i].job)
            k++;
        if (k < g->nact && g->act[k].job == g->falloc[i].job)
            g->x[k * g->nt + (size_t)g->falloc[i].type] = 1;
    }
    return 0;
}

static int alloc_lp(struct gavel *g, const struct berth__view *v, struct berth_err *err)
{
    size_t nt = g->nt, n = 0;
    if (!grow_scratch((void **)&g->lpk, &g->lpk_cap, g->nact, sizeof *g->lpk))
        return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    for (size_t k = 0; k < g->nact; k++)
        if (v->jobs[g->act[k].job].gpus > 0)
            g->lpk[n++] = (uint32_t)k;
    /* sf, T, N, elapsed, iso, remaining, x, I, done */
    size_t need = n * (2 * nt + 6) + nt;
    if (!grow_scratch((void **)&g->lp, &g->lp_cap, need, sizeof *g->lp))
        return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    double *sf = g->lp, *T = sf + n, *N = T + n * nt, *el = N + nt, *iso = el + n;
    double *rem = iso + n, *x = rem + n, *rate = x + n * nt, *done = rate + n;
    for (size_t t = 0; t < nt; t++)
        N[t] = v->cluster->types[t].total;
    for (size_t i = 0; i < n; i++) {
        struct act *a = &g->act[g->lpk[i]];
        const struct berth__job *j = &v->jobs[a->job];
        sf[i] = (double)demand(j) / 1000;
        for (size_t t = 0; t < nt; t++)
            T[i * nt + t] = tput(v, j, t);
        if (g->kind != FTF) /* max-min reads neither time nor work */
            continue;
        el[i] = (double)(v->now - a->arrival) / 1e6;
        done[i] = work_done(v, j);
        rem[i] = fmax(0, work_total(v, j) - done[i]);
    }
    struct berth__lp_problem p = {.n = n,
                                  .m = nt,
                                  .sf = sf,
                                  .tput = T,
                                  .ngpus = N,
                                  .elapsed = el,
                                  .iso_time = iso,
                                  .remaining = rem};
    int rc;
    if (g->kind == FTF) {
        /* the isolated-equivalent time of the work done since the last solve, at the
         * isolated rate of then (a job's first time: of now) */
        berth__lp_iso_rates(&p, rate);
        for (size_t i = 0; i < n; i++) {
            struct act *a = &g->act[g->lpk[i]];
            double r = a->prev_rate > 0 ? a->prev_rate : rate[i];
            if (r > 0 && done[i] > a->prev_done)
                a->iso_time += (done[i] - a->prev_done) / r;
            a->prev_done = done[i];
            a->prev_rate = rate[i];
            iso[i] = a->iso_time;
        }
        rc = berth__lp_ftf(&p, x, NULL, err);
    } else {
        rc = berth__lp_max_min(&p, g->kind == MAX_MIN_PERF, x, NULL, err);
    }
    if (rc)
        return rc;
    for (size_t k = 0; k < g->nact * nt; k++)
        g->x[k] = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t t = 0; t < nt; t++)
            g->x[g->lpk[i] * nt + t] = x[i * nt + t];
    return 0;
}

/* A reset: deficits take what each (job, type) was owed since the last reset minus what it
 * got, received time starts again, and the allocation is recomputed. */
static int reset(struct gavel *g, const struct berth__view *v, struct berth_err *err)
{
    double since = g->solved ? (double)(v->now - g->last_reset) : 0;
    for (size_t k = 0; k < g->nact * g->nt; k++) {
        g->deficit[k] += g->x[k] * since - (g->recv[k] - credit(g));
        g->recv[k] = credit(g);
    }
    for (size_t t = 0; t < g->nt; t++) {
        g->wsum[t] = 0;
        g->wtime[t] = credit(g) * (double)g->nact;
    }
    g->last_reset = v->now;
    g->solved = 1;
    g->ent_same = 0; /* the allocation changes */
    g->changed = 0;
    int rc = 0;
    if (g->kind == FIFO && !g->fastest && alloc_fifo_gavel(g, v))
        return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    if (g->kind == FIFO)
        rc = g->fastest ? alloc_fifo(g, v) : 0;
    else
        rc = alloc_lp(g, v, err);
    if (rc)
        return rc;
    /* the allocated jobs, so that a round looks at them alone */
    g->nalloc = 0;
    for (size_t k = 0; k < g->nact; k++)
        for (size_t t = 0; t < g->nt; t++)
            if (g->x[k * g->nt + t] > X_MIN) {
                if (BERTH_GROW(g->alloc, g->alloc_cap, g->nalloc + 1))
                    return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
                g->alloc[g->nalloc++] = g->act[k].job;
                break;
            }
    return 0;
}

/* ---- a round ---------------------------------------------------------------------------- */

/* Ranks every allocated (job, type) by priority. */
static int rank(struct gavel *g, const struct berth__view *v)
{
    size_t nt = g->nt;
    double w[64] = {0}; /* time all jobs ran on each type since the reset */
    if (g->half_credit) /* Gavel's totals: credits and finished jobs' time included */
        memcpy(w, g->wtime, sizeof w);
    else if (g->exec_time) /* fractional microseconds: summed over the active jobs again */
        for (size_t k = 0; k < g->nact; k++)
            for (size_t t = 0; t < nt; t++)
                w[t] += g->recv[k * nt + t];
    else
        for (size_t t = 0; t < nt; t++)
            w[t] = (double)g->wsum[t];
    if (g->ent_same) {
        /* the same pairs as at the last round, less the jobs that left: only priorities
         * moved, so the last ranking is the sort's (nearly sorted) start */
        size_t w2 = 0;
        for (size_t e = 0; e < g->nent; e++) {
            struct berth__gavel_entry en = g->ent[e];
            size_t k = g->pos[en.job];
            if (k == NONE)
                continue;
            double frac = w[en.type] > 0 ? g->recv[k * nt + (size_t)en.type] / w[en.type] : 0;
            en.prio = frac > 0 ? en.x / frac : en.x * 1e9;
            en.k = (uint32_t)k;
            g->ent[w2++] = en;
        }
        g->nent = w2;
    } else {
        g->nent = 0;
        for (size_t i = 0; i < g->nalloc; i++) { /* only they have some x: in act order */
            size_t k = g->pos[g->alloc[i]];
            if (k == NONE)
                continue; /* left since */
            const struct berth__job *j = &v->jobs[g->act[k].job];
            for (size_t t = 0; t < nt; t++) {
                double x = g->x[k * nt + t];
                if (!(x > X_MIN) || j->gpus == 0 || tput(v, j, t) <= 0)
                    continue;
                double frac = w[t] > 0 ? g->recv[k * nt + t] / w[t] : 0;
                if (BERTH_GROW(g->ent, g->ent_cap, g->nent + 1))
                    return BERTH_ENOMEM;
                g->ent[g->nent++] =
                    (struct berth__gavel_entry){.prio = frac > 0 ? x / frac : x * 1e9,
                                                .deficit = g->deficit[k * nt + t],
                                                .x = x,
                                                .job = g->act[k].job,
                                                .k = (uint32_t)k,
                                                .type = (int16_t)t};
            }
        }
        g->ent_same = 1;
    }
    if (g->nent > 1) {
        if (BERTH_GROW(g->ent_tmp, g->ent_tmp_cap, g->nent))
            return BERTH_ENOMEM;
        berth__gavel_sort(g->ent, g->ent_tmp, g->nent);
    }
    return 0;
}

/* Tests set it to try every start (the plain path the shortcuts must match), and may shorten
 * the segments' runs; the counts of starts the shortcut answered, of passes whose fill went
 * by its summaries, of the jobs such passes started at segments' ends, and of segments gone
 * through job by job. */
int berth__gavel_no_fast;
size_t berth__gavel_seg_run = SEG_RUN;
unsigned long long berth__gavel_fast_used, berth__gavel_skipped, berth__gavel_skip_starts,
    berth__gavel_seg_walks;

/* Consolidate-or-wait's patience for pending job k on type t (sched/refuse.h), kept while
 * the job's work done and estimate stay. */
static berth_us patience_of(struct gavel *g, const struct berth__view *v,
                            const struct berth__plan *p, size_t k, int t)
{
    const struct berth__job *j = &v->jobs[g->act[k].job];
    struct act *a = &g->act[k];
    if (a->pat_type != t || a->pat_done != j->done || a->pat_est != j->est_us) {
        a->patience = berth__plan_wait_patience(p, j, t);
        a->pat_type = (int16_t)t;
        a->pat_done = j->done;
        a->pat_est = j->est_us;
    }
    return a->patience;
}

/* 1 when starting pending job k on type t is known to be refused by consolidate-or-wait
 * (what the refused start leaves is then done: sched/refuse.h), 0 when not known, or an
 * error. The job's patience is kept while its work done and estimate stay. */
static int refused(struct gavel *g, const struct berth__view *v, struct berth__plan *p, size_t k,
                   int t, struct berth_err *err)
{
    const struct berth__job *j = &v->jobs[g->act[k].job];
    if (berth__gavel_no_fast || j->gpus < 2)
        return 0;
    int rc = berth__plan_start_refused(p, j, t, patience_of(g, v, p, k, t));
    if (rc < 0)
        return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    berth__gavel_fast_used += (unsigned long long)rc;
    return rc;
}

/* Starts pending job k on type t when it fits there now: 1 started, 0 not, or an error. */
static int try_start(struct gavel *g, const struct berth__view *v, struct berth__plan *p, size_t k,
                     int t, struct berth_err *err)
{
    const struct berth__job *j = &v->jobs[g->act[k].job];
    if (j->gpus > 0 && j->share == 1000 && v->cluster->types[t].free < j->gpus)
        return 0;
    account(g, v, k);
    int known = refused(g, v, p, k, t, err);
    if (known)
        return known < 0 ? known : 0;
    int rc = j->gpus > 0 ? berth__plan_start_type(p, g->act[k].job, t, err)
                         : berth__plan_start(p, g->act[k].job, err);
    if (rc == BERTH_NOFIT) /* does not fit after all (server, CPU or memory) */
        return 0;
    if (!rc && BERTH_GROW(g->run, g->run_cap, g->nrun + 1))
        return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    if (!rc) {
        g->run[g->nrun++] = g->act[k].job;
        g->in_run[k] = 1;
        g->act[k].sum_gen = g->sum_gen - 1; /* not pending: in no summary */
    }
    return rc ? rc : 1;
}

/* Starts pending job k on its fastest type with room (any server for a CPU-only job). */
static int start_best(struct gavel *g, const struct berth__view *v, struct berth__plan *p, size_t k,
                      struct berth_err *err)
{
    const struct berth__job *j = &v->jobs[g->act[k].job];
    if (j->gpus == 0)
        return try_start(g, v, p, k, 0, err);
    uint64_t tried = 0;
    for (size_t n = 0; n < g->nt; n++) {
        int best = -1;
        double bt = 0;
        for (size_t t = 0; t < g->nt; t++) {
            double r = (tried >> t & 1) ? 0 : tput(v, j, t);
            if (r > bt) {
                bt = r;
                best = (int)t;
            }
        }
        if (best < 0)
            return 0;
        tried |= (uint64_t)1 << best;
        int rc = try_start(g, v, p, k, best, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* Idle capacity some job could use: whole GPUs, room on shared GPUs, or CPU for CPU-only
 * jobs (any active one keeps the fill going). */
static int idle(const struct gavel *g, const struct berth__view *v)
{
    return v->cluster->free > 0 || v->cluster->frac_idle > 0 || g->ncpu > 0;
}

/* 1 when job j may run on some type (or is CPU-only). */
static int runnable(const struct gavel *g, const struct berth__view *v, const struct berth__job *j)
{
    if (j->gpus == 0)
        return 1;
    for (size_t t = 0; t < g->nt; t++)
        if (tput(v, j, t) > 0)
            return 1;
    return 0;
}

/* ---- the fill's summaries ----------------------------------------------------------------- */

/* Empties segment sg (its word buffers stay). */
static void seg_clear(struct fseg *sg)
{
    sg->end = SIZE_MAX;
    sg->close = 0;
    sg->nl = 0;
    for (int c = 0; c < SUM_LETTERS; c++) {
        sg->nword[c] = 0;
        memset(sg->count[c], 0, sizeof sg->count[c]);
    }
}

/* Opens an empty last segment, its run from list position start: 0, or BERTH_ENOMEM. */
static int seg_push(struct fsum *s, size_t start)
{
    if (s->nseg == s->seg_cap) {
        size_t old = s->seg_cap;
        if (BERTH_GROW(s->seg, s->seg_cap, s->nseg + 1))
            return BERTH_ENOMEM;
        memset(s->seg + old, 0, (s->seg_cap - old) * sizeof *s->seg);
    }
    seg_clear(&s->seg[s->nseg]);
    s->seg[s->nseg++].start = start;
    return 0;
}

static int sum_clear(struct fsum *s)
{
    s->ok = 1;
    s->n = 0;
    s->nseg = 0;
    return seg_push(s, 0);
}

/* Appends letter l's gang to cut c's reduced word: cancels an equal last one. */
static int word_push(struct fseg *s, int c, int l)
{
    size_t n = s->nword[c];
    if (n && s->word[c][n - 1] == s->letter[l]) {
        s->nword[c]--;
        s->count[c][l]--;
        return 0;
    }
    if (BERTH_GROW(s->word[c], s->word_cap[c], n + 1))
        return BERTH_ENOMEM;
    s->word[c][s->nword[c]++] = s->letter[l];
    s->count[c][l]++;
    return 0;
}

/* The patience on type 0 of pending job k the shortcut answers; INT64_MIN when it cannot. */
static berth_us sum_patience(struct gavel *g, const struct berth__view *v,
                             const struct berth__plan *p, size_t k)
{
    const struct berth__job *j = &v->jobs[g->act[k].job];
    return j->gpus >= 2 && j->share == 1000 && !j->single &&
                   j->gpus <= v->cluster->types[0].max_per_server && tput(v, j, 0) > 0
               ? patience_of(g, v, p, k, 0)
               : INT64_MIN;
}

/* Adds pending job `job`, a gang of `gang` GPUs of patience pat, at the end of segment sg's
 * run: 0, 1 when sg would follow a ninth gang size, or BERTH_ENOMEM. */
static int seg_add(struct fseg *sg, uint32_t job, int32_t gang, berth_us pat)
{
    int l = 0;
    while (l < sg->nl && sg->letter[l] != gang)
        l++;
    if (l == SUM_LETTERS)
        return 1;
    if (l == sg->nl) { /* a new size: its cut starts as the cut of the next smaller size */
        int below = -1;
        for (int c = 0; c < sg->nl; c++)
            if (sg->letter[c] < gang && (below < 0 || sg->letter[c] > sg->letter[below]))
                below = c;
        sg->nl++;
        sg->letter[l] = gang;
        sg->minpat[l] = pat;
        sg->minjob[l] = job;
        for (int c = 0; c < SUM_LETTERS; c++)
            sg->count[c][l] = 0;
        sg->nword[l] = 0;
        if (below >= 0) {
            if (BERTH_GROW(sg->word[l], sg->word_cap[l], sg->nword[below] + 1))
                return BERTH_ENOMEM;
            memcpy(sg->word[l], sg->word[below], sg->nword[below] * sizeof *sg->word[l]);
            sg->nword[l] = sg->nword[below];
            memcpy(sg->count[l], sg->count[below], sizeof sg->count[l]);
        }
    } else if (pat < sg->minpat[l]) {
        sg->minpat[l] = pat;
        sg->minjob[l] = job;
    }
    for (int c = 0; c < sg->nl; c++)
        if (sg->letter[c] >= gang && word_push(sg, c, l))
            return BERTH_ENOMEM;
    return 0;
}

/* Sums up pending job k (on type 0) at the end of s, at list position s->n: into the last
 * segment's run, or, when the shortcut cannot answer it, as the entry that closes it. A ninth
 * gang size in a segment drops the summary (rebuilt at the next round start). */
static int sum_add(struct gavel *g, const struct berth__view *v, const struct berth__plan *p,
                   struct fsum *s, size_t k)
{
    size_t at = s->n++;
    if (BERTH_GROW(s->item, s->item_cap, at + 1))
        return BERTH_ENOMEM;
    g->act[k].sum_gen = g->sum_gen;
    g->act[k].at[s == &g->sum[1]] = (uint32_t)at;
    berth_us pat = sum_patience(g, v, p, k);
    struct fseg *sg = &s->seg[s->nseg - 1];
    s->item[at] = (struct fitem){pat, pat == INT64_MIN ? 0 : v->jobs[g->act[k].job].gpus};
    if (pat == INT64_MIN) { /* the shortcut cannot answer it: it closes the segment */
        sg->end = at;
        sg->close = 1;
        return seg_push(s, at + 1);
    }
    int rc = seg_add(sg, g->act[k].job, s->item[at].gang, pat);
    if (rc == 1)
        s->ok = 0;
    if (rc)
        return rc == 1 ? 0 : rc;
    if (at + 1 - sg->start < berth__gavel_seg_run)
        return 0;
    sg->end = at + 1; /* a full run: the next entries go to a new segment */
    return seg_push(s, at + 1);
}

/* Whether the fill may go by its summaries this pass: one GPU type (a job's fastest type is
 * then its ranked type) and refused starts the plan answers without placing them. */
static int may_skip(const struct gavel *g, const struct berth__plan *p)
{
    return !berth__gavel_no_fast && g->nt == 1 && berth__plan_refusals_covered(p);
}

/* The fill's worklists from the ranking and the active set, summed up at once when the fill
 * may skip. */
static int fill_lists(struct gavel *g, const struct berth__view *v, const struct berth__plan *p)
{
    if (BERTH_GROW(g->fent, g->fent_cap, g->nent + 1) ||
        BERTH_GROW(g->fjob, g->fjob_cap, g->nact + 1))
        return BERTH_ENOMEM;
    sum_drop(g);
    int sum = may_skip(g, p);
    if (sum && (sum_clear(&g->sum[0]) || sum_clear(&g->sum[1])))
        return BERTH_ENOMEM;
    g->nfent = g->nfjob = 0;
    for (size_t e = 0; e < g->nent; e++) {
        uint32_t job = g->ent[e].job;
        if (v->jobs[job].state != BERTH_JOB_PENDING || g->pos[job] == NONE)
            continue;
        g->fent[g->nfent++] = (uint32_t)e;
        if (sum && g->sum[0].ok && sum_add(g, v, p, &g->sum[0], g->pos[job]))
            return BERTH_ENOMEM;
    }
    for (size_t k = 0; k < g->nact; k++) {
        if (v->jobs[g->act[k].job].state != BERTH_JOB_PENDING)
            continue;
        g->fjob[g->nfjob++] = g->act[k].job;
        if (sum && g->sum[1].ok && sum_add(g, v, p, &g->sum[1], k))
            return BERTH_ENOMEM;
    }
    g->fill_ok = 1;
    return 0;
}

/* Rebuilds summary i from its whole list, dropping the entries no longer pending there and
 * then (the walk passes over them, and only a round start or a requeue, which rebuild the
 * lists, makes a job pending again). */
static int sum_build(struct gavel *g, const struct berth__view *v, const struct berth__plan *p,
                     int i)
{
    struct fsum *s = &g->sum[i];
    if (sum_clear(s))
        return BERTH_ENOMEM;
    uint32_t *list = i ? g->fjob : g->fent;
    size_t *n = i ? &g->nfjob : &g->nfent, w = 0;
    for (size_t x = 0; x < *n; x++) {
        uint32_t job = i ? list[x] : g->ent[list[x]].job;
        if (v->jobs[job].state != BERTH_JOB_PENDING || g->pos[job] == NONE)
            continue;
        list[w++] = list[x];
        if (s->ok && sum_add(g, v, p, s, g->pos[job]))
            return BERTH_ENOMEM;
    }
    *n = w;
    return 0;
}

#define SKIP_SIZES 64 /* distinct gang sizes a skip follows over all segments */

/* A skip's gang sizes: per size, the least patience over both summaries when the skip began
 * (the bound its wait is sought to: at most the patience of every job still summed up), and
 * that wait once sought (known). */
struct skip {
    int n;
    int32_t size[SKIP_SIZES];
    berth_us bound[SKIP_SIZES], ready[SKIP_SIZES];
    uint8_t known[SKIP_SIZES];
    int32_t f, m; /* idle GPUs of type 0, and the most idle on one server */
};

/* The least patience per gang size over every segment of both summaries: 0 when there are
 * more than SKIP_SIZES sizes. */
static int skip_bounds(const struct gavel *g, struct skip *k)
{
    k->n = 0;
    for (int i = 0; i < 2; i++)
        for (size_t q = 0; q < g->sum[i].nseg; q++) {
            const struct fseg *sg = &g->sum[i].seg[q];
            for (int l = 0; l < sg->nl; l++) {
                int r = 0;
                while (r < k->n && k->size[r] != sg->letter[l])
                    r++;
                if (r == k->n) {
                    if (r == SKIP_SIZES)
                        return 0;
                    k->n++;
                    k->size[r] = sg->letter[l];
                    k->bound[r] = sg->minpat[l];
                    k->known[r] = 0;
                } else if (sg->minpat[l] < k->bound[r]) {
                    k->bound[r] = sg->minpat[l];
                }
            }
        }
    return 1;
}

/* The idle GPUs of type 0 and the most idle on one server; the waits are sought again. */
static void skip_capacity(const struct berth__view *v, struct skip *k)
{
    const struct berth_cluster *c = v->cluster;
    const struct berth__gputype *ty = &c->types[0];
    k->f = ty->free;
    k->m = 0;
    for (int32_t b = ty->max_per_server; b >= 1 && !k->m; b--)
        for (int32_t s = ty->head[b]; s >= 0 && !k->m; s = c->srv[s].next)
            k->m = c->srv[s].reserved ? 0 : b;
    for (int r = 0; r < k->n; r++)
        k->known[r] = 0;
}

/* 1 when a pending gang of `gang` GPUs (job `job`) and patience pat that fits by count is
 * refused: no server holds it and some server is ready sooner than its patience, as
 * berth__plan_start_refused would find (the wait of a pending gang depends on its size
 * alone). 0 when it may start, or an error. */
static int gang_dead(struct berth__plan *p, const struct berth__view *v, struct skip *k,
                     int32_t gang, uint32_t job, berth_us pat)
{
    if (gang <= k->m)
        return 0;
    int r = 0;
    while (r < k->n && k->size[r] != gang)
        r++;
    if (r == k->n)
        return 0; /* not reached: every summed-up size has a bound */
    if (!k->known[r]) {
        if (berth__plan_wait_ready(p, &v->jobs[job], 0, k->bound[r], &k->ready[r]))
            return BERTH_ENOMEM;
        k->known[r] = 1;
    }
    return k->ready[r] != BERTH_TIME_NONE && k->ready[r] < pat;
}

/* 1 when no entry of segment sg's run can start: each gang size that fits by count is
 * refused down to its least patience (gang_dead); *cut: its letters that fit by count. 0
 * when some may start, or an error. */
static int seg_dead(struct berth__plan *p, const struct berth__view *v, struct skip *k,
                    const struct fseg *sg, int *cut)
{
    *cut = -1;
    for (int c = 0; c < sg->nl; c++) {
        if (sg->letter[c] > k->f)
            continue;
        int rc = gang_dead(p, v, k, sg->letter[c], sg->minjob[c], sg->minpat[c]);
        if (rc <= 0)
            return rc;
        if (*cut < 0 || sg->letter[c] > sg->letter[*cut])
            *cut = c;
    }
    return 1;
}

/* Does what n refused starts leave, of the gangs w[0..n) in order (a reduced word: no two
 * equal gangs in a row, so with two sizes they alternate): two sizes at once, or, when the
 * word has a third size (more), one by one. */
static void word_moves(struct berth__plan *p, const int32_t *w, size_t n, int more)
{
    if (!n)
        return;
    if (more) {
        for (size_t x = 0; x < n; x++)
            berth__plan_refused_moves(p, 0, w[x]);
        return;
    }
    berth__plan_refused_alternating(p, 0, w[0], n > 1 ? w[1] : w[0], n);
}

/* word_moves on a reduced word, its sizes not known. */
static void word_apply(struct berth__plan *p, const int32_t *w, size_t n)
{
    int more = 0;
    for (size_t i = 2; i < n && !more; i++)
        more = w[i] != w[0] && w[i] != w[1];
    word_moves(p, w, n, more);
}

/* Does what trying every entry of segment s's run refused leaves: cut c's word (its sizes
 * from the letters' counts). */
static void seg_apply(struct berth__plan *p, const struct fseg *s, int c)
{
    if (c < 0 || !s->nword[c])
        return;
    const int32_t *w = s->word[c];
    int32_t b = s->nword[c] > 1 ? w[1] : w[0];
    int more = 0;
    for (int l = 0; l < s->nl; l++)
        more |= s->count[c][l] && s->letter[l] != w[0] && s->letter[l] != b;
    word_moves(p, w, s->nword[c], more);
}

/* The job at position x of fill list i. */
static uint32_t list_job(const struct gavel *g, int i, size_t x)
{
    return i ? g->fjob[x] : g->ent[g->fent[x]].job;
}

/* Tries the entry at position at of fill list i, as the walk does: 1 started, 0 not (or not
 * pending any more), or an error. */
static int try_entry(struct gavel *g, const struct berth__view *v, struct berth__plan *p, int i,
                     size_t at, struct berth_err *err)
{
    uint32_t job = list_job(g, i, at);
    if (v->jobs[job].state != BERTH_JOB_PENDING || g->pos[job] == NONE)
        return 0;
    return i ? start_best(g, v, p, g->pos[job], err)
             : try_start(g, v, p, g->pos[job], g->ent[g->fent[at]].type, err);
}

/* The list positions of segment q's run in summary s. */
static void seg_range(const struct fsum *s, size_t q, size_t *start, size_t *end)
{
    *start = s->seg[q].start;
    *end = s->seg[q].end == SIZE_MAX ? s->n : s->seg[q].end;
}

/* Sums up segment q of list i's run again from its items (the jobs that started since gone). */
static int seg_resum(struct gavel *g, int i, size_t q)
{
    struct fsum *s = &g->sum[i];
    struct fseg *sg = &s->seg[q];
    size_t start, end, keep = sg->end;
    int close = sg->close;
    seg_range(s, q, &start, &end);
    seg_clear(sg);
    sg->start = start;
    sg->end = keep;
    sg->close = close;
    for (size_t x = start; x < end; x++) {
        int rc =
            s->item[x].gang ? seg_add(sg, list_job(g, i, x), s->item[x].gang, s->item[x].pat) : 0;
        if (rc)
            return rc < 0 ? rc : 0; /* not reached: a run's sizes are fewer after a start */
    }
    return 0;
}

/* The segment whose run holds list position x of summary s. */
static size_t seg_of(const struct fsum *s, size_t x)
{
    size_t lo = 0, hi = s->nseg - 1; /* the last segment starting at or before x */
    while (lo < hi) {
        size_t mid = hi - (hi - lo) / 2;
        if (s->seg[mid].start <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The position of active job k in a segment's run of list i's summary, or SIZE_MAX when it
 * is in none (not in that list, a closing entry, or started since). */
static size_t run_pos(const struct gavel *g, int i, size_t k)
{
    const struct fsum *s = &g->sum[i];
    size_t x = g->act[k].at[i];
    return x < s->n && list_job(g, i, x) == g->act[k].job && s->item[x].gang ? x : SIZE_MAX;
}

/* Job `job`, summed up in list i's run, started: it leaves the segment that held it, which
 * is summed up again. 0, or an error. */
static int seg_started(struct gavel *g, int i, uint32_t job)
{
    size_t x = run_pos(g, i, g->pos[job]);
    if (x == SIZE_MAX)
        return 0;
    g->sum[i].item[x].gang = 0;
    return seg_resum(g, i, seg_of(&g->sum[i], x));
}

/* Fills over segment q of list i's run, some job of which may start, as the walk would, from
 * its items: the refused starts' gangs gather into a reduced word whose bucket moves are done
 * before the next job that may start is tried (a start takes the idle GPUs and the waits
 * again; with no idle capacity left the fill stops). Then the segment, and those of the other
 * list that held a job that started, are summed up again. 0, or an error. */
static int seg_live(struct gavel *g, const struct berth__view *v, struct berth__plan *p, int i,
                    size_t q, struct skip *k, struct berth_err *err)
{
    struct fsum *s = &g->sum[i];
    size_t start, end, n = 0;
    seg_range(s, q, &start, &end);
    if (BERTH_GROW(g->word, g->word_cap, end - start + 1))
        return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    int rc = 0;
    for (size_t x = start; x < end; x++) {
        int32_t gang = s->item[x].gang;
        if (!gang || gang > k->f)
            continue; /* started, or a try that does nothing */
        uint32_t job = list_job(g, i, x);
        if ((rc = gang_dead(p, v, k, gang, job, s->item[x].pat)) < 0)
            return berth_err_set(err, rc, "gavel: out of memory");
        if (rc) { /* refused: its gang joins the word (an equal last one cancels) */
            if (n && g->word[n - 1] == gang)
                n--;
            else
                g->word[n++] = gang;
            continue;
        }
        word_apply(p, g->word, n);
        n = 0;
        if ((rc = try_entry(g, v, p, i, x, err)) < 0)
            return rc;
        if (!rc)
            continue;
        s->item[x].gang = 0;
        if ((rc = seg_started(g, !i, job)))
            return berth_err_set(err, rc, "gavel: out of memory");
        skip_capacity(v, k);
        if (!idle(g, v))
            break;
    }
    word_apply(p, g->word, n);
    berth__gavel_seg_walks++;
    if ((rc = seg_resum(g, i, q)))
        return berth_err_set(err, rc, "gavel: out of memory");
    return 0;
}

/* The patiences of the jobs the last round preempted, summed up at its pass with the work
 * done of their last report, taken again: each item, and its segment's least patience when
 * lower (a higher one leaves a bound below the least, which only sends the segment to
 * seg_live, where each item answers for itself). 0, or 1 when one can no longer be answered
 * by the shortcut (the summaries are then built again). */
static int refresh_stale(struct gavel *g, const struct berth__view *v, const struct berth__plan *p)
{
    g->stale = 0;
    for (size_t n = 0; n < g->npre; n++) {
        uint32_t job = g->pre[n];
        size_t k = g->pos[job];
        if (k == NONE || g->act[k].sum_gen != g->sum_gen)
            continue; /* left, or started since */
        berth_us pat = sum_patience(g, v, p, k);
        for (int i = 0; i < 2; i++) {
            struct fsum *s = &g->sum[i];
            size_t x = run_pos(g, i, k);
            if (x == SIZE_MAX)
                continue;
            if (pat == INT64_MIN)
                return 1;
            s->item[x].pat = pat;
            struct fseg *sg = &s->seg[seg_of(s, x)];
            for (int l = 0; l < sg->nl; l++)
                if (sg->letter[l] == s->item[x].gang && pat < sg->minpat[l]) {
                    sg->minpat[l] = pat;
                    sg->minjob[l] = job;
                }
        }
    }
    return 0;
}

/* The pass's fill over the summed-up entries of both lists, segment by segment: a segment
 * none of whose run can start (seg_dead) gets only the bucket moves of its refused starts,
 * another is gone through job by job from its items (seg_live), and the entry that closes it
 * is tried as the walk would try it; after a start the idle GPUs and the waits are taken
 * again, and with no idle capacity left the fill stops, as the walk does (may_skip). 1: done (the
 * walk goes on with the entries appended to fjob since its summary); 0: the shortcut does not apply
 * (the walk goes through both lists); or an error. */
static int fill_skip(struct gavel *g, const struct berth__view *v, struct berth__plan *p,
                     struct berth_err *err)
{
    if (!may_skip(g, p))
        return 0;
    for (int i = 0; i < 2; i++)
        if (!g->sum[i].ok && sum_build(g, v, p, i))
            return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    struct skip k;
    if (!g->sum[0].ok || !g->sum[1].ok || (g->stale && refresh_stale(g, v, p)) ||
        !skip_bounds(g, &k))
        return 0;
    skip_capacity(v, &k);
    for (int i = 0; i < 2; i++) {
        struct fsum *s = &g->sum[i];
        for (size_t q = 0; q < s->nseg && idle(g, v); q++) {
            struct fseg *sg = &s->seg[q];
            int cut, rc = seg_dead(p, v, &k, sg, &cut);
            if (rc < 0)
                return berth_err_set(err, rc, "gavel: out of memory");
            if (rc)
                seg_apply(p, sg, cut);
            else if ((rc = seg_live(g, v, p, i, q, &k, err)))
                return rc;
            if (!sg->close || !idle(g, v))
                continue;
            if ((rc = try_entry(g, v, p, i, sg->end, err)) < 0)
                return rc;
            if (rc) { /* started: the cluster changed */
                skip_capacity(v, &k);
                berth__gavel_skip_starts++;
            }
        }
    }
    berth__gavel_skipped++;
    return 1;
}

/* Fills idle GPUs without preempting (see the top comment). */
static int fill(struct gavel *g, const struct berth__view *v, struct berth__plan *p,
                struct berth_err *err)
{
    int rc;
    if (!g->fill) { /* Gavel leaves idle GPUs idle; CPU-only jobs (not Gavel's) still start */
        for (size_t k = 0; k < g->nact && g->ncpu; k++)
            if (v->jobs[g->act[k].job].state == BERTH_JOB_PENDING &&
                v->jobs[g->act[k].job].gpus == 0 && (rc = try_start(g, v, p, k, 0, err)) < 0)
                return rc;
        return 0;
    }
    if (g->kind == FIFO) {
        size_t k = berth__gavel_no_fast ? 0 : g->fifo_from;
        for (; k < g->nact && idle(g, v); k++) {
            const struct berth__job *j = &v->jobs[g->act[k].job];
            if (j->state != BERTH_JOB_PENDING || !runnable(g, v, j))
                continue; /* a job that can run nowhere blocks no one */
            if ((rc = start_best(g, v, p, k, err)) < 0)
                return rc;
            if (rc == 0)
                break; /* the head blocks */
        }
        g->fifo_from = k; /* none before it may start (until a round start or a requeue) */
        return 0;
    }
    if (!g->fill_ok && (rc = fill_lists(g, v, p)))
        return berth_err_set(err, rc, "gavel: out of memory");
    size_t from[2] = {0, 0};
    if ((rc = fill_skip(g, v, p, err)) < 0)
        return rc;
    if (rc) {
        from[0] = g->nfent;
        from[1] = g->sum[1].n;
    } else { /* the walk below drops entries anywhere */
        sum_drop(g);
    }
    /* the ranked entries, then every active job: those not pending (any more) are dropped;
     * after a skip only the jobs appended to fjob since its summary */
    size_t i = from[0], w = i;
    for (; i < g->nfent && idle(g, v); i++) {
        uint32_t e = g->fent[i], job = g->ent[e].job;
        if (v->jobs[job].state != BERTH_JOB_PENDING || g->pos[job] == NONE)
            continue;
        if ((rc = try_start(g, v, p, g->pos[job], g->ent[e].type, err)) < 0)
            return rc;
        if (!rc)
            g->fent[w++] = e;
    }
    memmove(g->fent + w, g->fent + i, (g->nfent - i) * sizeof *g->fent);
    g->nfent = w + (g->nfent - i);
    for (i = from[1], w = from[1]; i < g->nfjob && idle(g, v); i++) {
        uint32_t job = g->fjob[i];
        if (v->jobs[job].state != BERTH_JOB_PENDING || g->pos[job] == NONE)
            continue;
        if ((rc = start_best(g, v, p, g->pos[job], err)) < 0)
            return rc;
        if (!rc)
            g->fjob[w++] = job;
    }
    int whole = i == g->nfjob; /* every entry kept is pending */
    memmove(g->fjob + w, g->fjob + i, (g->nfjob - i) * sizeof *g->fjob);
    g->nfjob = w + (g->nfjob - i);
    if (g->sum[1].ok && whole) /* the kept new entries join the summary */
        for (size_t x = from[1]; x < w && g->sum[1].ok; x++)
            if (sum_add(g, v, p, &g->sum[1], g->pos[g->fjob[x]]))
                return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    return 0;
}

/* Moves the running jobs (of the first nrun in g->run) chosen on another type than they run
 * on: preempted, to start on the chosen one. Collects the victims: running jobs not chosen
 * on the type they hold (so chosen nowhere), worst first: jobs outside the ranking (newest
 * first), then ranked jobs by their best rank, from the bottom. */
static int movers_and_victims(struct gavel *g, const struct berth__view *v, struct berth__plan *p,
                              size_t nrun, struct berth_err *err)
{
    int rc;
    if (!grow_scratch((void **)&g->key, &g->key_cap, g->nact, sizeof *g->key))
        return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    for (size_t i = 0; i < nrun; i++) /* only running jobs' keys are read */
        g->key[g->pos[g->run[i]]] = g->nent + g->pos[g->run[i]]; /* unranked */
    for (size_t e = g->nent; e-- > 0;)
        g->key[g->ent[e].k] = e; /* ends at each job's best rank */
    g->nvictims = 0;
    for (size_t i = 0; i < nrun; i++) { /* the running jobs, in act order */
        size_t k = g->pos[g->run[i]];
        const struct berth__job *j = &v->jobs[g->act[k].job];
        if (j->state != BERTH_JOB_RUNNING || g->act[k].chosen == j->type)
            continue;
        if (g->act[k].chosen >= 0) { /* a mover */
            account(g, v, k);
            if ((rc = berth__plan_preempt(p, g->act[k].job, err)))
                return rc;
        } else if (j->gpus > 0) {
            if (BERTH_GROW(g->victims, g->victims_cap, g->nvictims + 1))
                return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
            g->victims[g->nvictims++] = (struct victim){g->key[k], (uint32_t)k};
        }
    }
    if (g->nvictims > 1) { /* by radix on key << 32 | k: keys are distinct and below nent +
                            * nact <= nact * (types + 1) < 2^31, so the packed values are
                            * positive */
        if (BERTH_GROW(g->vsort, g->vsort_cap, g->nvictims))
            return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
        for (size_t i = 0; i < g->nvictims; i++)
            g->vsort[i] = (int64_t)(g->victims[i].key << 32 | g->victims[i].k);
        if (berth__sort_i64(g->vsort, g->nvictims))
            return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
        for (size_t i = 0; i < g->nvictims; i++) { /* largest key first */
            uint64_t x = (uint64_t)g->vsort[g->nvictims - 1 - i];
            g->victims[i] = (struct victim){x >> 32, (uint32_t)(x & UINT32_MAX)};
        }
    }
    return 0;
}

/* Counts the time of every job that may have run since the last round start (every other
 * one's run time is what it had then: all starts go through try_start or a restore of a job
 * running then) and keeps the running ones in g->run, in act order, once each. Those jobs are
 * the ones marked in_run: a walk over the active set, in act (= job) order, gives what
 * sorting run's appended starts and merging them in gave, without the sort (qsort's calls
 * were 5 % of themis-ftf's run on Philly). No more are marked than run holds. */
static void running(struct gavel *g, const struct berth__view *v)
{
    size_t w = 0;
    for (size_t k = 0; k < g->nact; k++) {
        if (!g->in_run[k])
            continue;
        account(g, v, k);
        if (v->jobs[g->act[k].job].state == BERTH_JOB_RUNNING)
            g->run[w++] = g->act[k].job;
        else
            g->in_run[k] = 0;
    }
    g->nrun = w;
}

static int round_start(struct gavel *g, const struct berth__view *v, struct berth__plan *p,
                       struct berth_err *err)
{
    int rc;
    g->fill_ok = 0; /* a new ranking, compacted indices, preempted jobs pending again */
    if (g->left)    /* nothing to drop otherwise */
        compact(g, v);
    g->left = 0;
    running(g, v);
    size_t nrun = g->nrun; /* running at the round start (starts append) */
    g->nrun_round = nrun;
    g->stale = 0;     /* the lists are built again */
    g->fifo_from = 0; /* compacted, and jobs preempted below */
    if (g->changed &&
        (!g->solved || v->now - g->last_reset >= g->realloc_us ||
         (g->zero_reset && g->last_reset == 0)) &&
        (rc = reset(g, v, err)))
        return rc;
    if ((rc = rank(g, v)))
        return berth_err_set(err, rc, "gavel: out of memory");
    /* choose by counted capacity; wait lists the chosen entries, in rank order */
    if (!grow_scratch((void **)&g->wait, &g->wait_cap, g->nent, sizeof *g->wait))
        return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    size_t nwait = 0, open = 0; /* types with room left (every entry's demand is >= 1) */
    int64_t room[64];
    for (size_t t = 0; t < g->nt; t++) {
        room[t] = (int64_t)v->cluster->types[t].total * 1000;
        open += room[t] > 0;
    }
    /* chosen is read for ranked and running jobs only */
    for (size_t e = 0; e < g->nent; e++)
        g->act[g->ent[e].k].chosen = -1;
    for (size_t i = 0; i < nrun; i++)
        g->act[g->pos[g->run[i]]].chosen = -1;
    for (size_t e = 0; e < g->nent && open; e++) {
        struct berth__gavel_entry *en = &g->ent[e];
        struct act *a = &g->act[en->k];
        if (a->chosen >= 0 || room[en->type] <= 0)
            continue;
        int64_t d = demand(&v->jobs[en->job]);
        if (room[en->type] < d)
            continue;
        a->chosen = en->type;
        room[en->type] -= d;
        open -= room[en->type] == 0;
        g->wait[nwait++] = (uint32_t)e;
    }
    if ((rc = movers_and_victims(g, v, p, nrun, err)))
        return rc;
    /* chosen pending jobs in rank order: first those that fit the idle GPUs, then the rest,
     * taking victims' GPUs of their type (a cursor per type: each victim is looked at once) */
    size_t cursor[64] = {0};
    /* each pass keeps in wait what it left pending: no other job becomes a candidate (a
     * running job chosen on its own type stays chosen; a victim is chosen nowhere) */
    for (int pass = 0; pass < 2; pass++) {
        size_t keep = 0;
        for (size_t i = 0; i < nwait; i++) {
            const struct berth__gavel_entry *en = &g->ent[g->wait[i]];
            const struct berth__job *j = &v->jobs[en->job];
            if (j->state != BERTH_JOB_PENDING)
                continue;
            const struct berth__gputype *ty = &v->cluster->types[en->type];
            int32_t need = (int32_t)((demand(j) + 999) / 1000);
            size_t *q = &cursor[en->type];
            for (; pass == 1 && ty->free < need && *q < g->nvictims; ++*q) {
                size_t vk = g->victims[*q].k;
                const struct berth__job *vj = &v->jobs[g->act[vk].job];
                if (vj->state != BERTH_JOB_RUNNING || vj->type != en->type)
                    continue;
                account(g, v, vk);
                if ((rc = berth__plan_preempt(p, g->act[vk].job, err)))
                    return rc;
            }
            if ((rc = try_start(g, v, p, en->k, en->type, err)) < 0)
                return rc;
            if (!rc)
                g->wait[keep++] = g->wait[i];
        }
        nwait = keep;
    }
    /* victims and movers whose GPUs nobody took keep running (they ran at the round start) */
    for (size_t i = 0; i < nrun; i++)
        if (berth__plan_can_restore(p, g->run[i]) && (rc = berth__plan_restore(p, g->run[i], err)))
            return rc;
    g->next_round = v->now + g->round_us;
    return 0;
}

/* ---- the policy interface ------------------------------------------------------------------ */

static int gavel_plan(void *self, const struct berth__view *v, struct berth__plan *p,
                      struct berth_err *err)
{
    struct gavel *g = self;
    int rc;
    if (!g->nt && v->cluster->ntypes) {
        if (v->cluster->ntypes > 64)
            return berth_err_set(err, BERTH_EINPUT, "gavel: more than 64 GPU types");
        g->nt = v->cluster->ntypes;
    }
    for (size_t i = 0; i < v->narrived; i++)
        if (add_job(g, &v->jobs[v->arrived[i]]))
            return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    g->changed |= v->narrived > 0 || v->nleft > 0;
    if (v->nrequeued) { /* pending again: back into the fill's lists */
        g->fill_ok = 0;
        g->fifo_from = 0;
    }
    if (v->nreestimated) /* patiences change */
        sum_drop(g);
    mark_left(g, v);
    int round = g->round_passes || v->now >= g->next_round;
    if (round && (rc = round_start(g, v, p, err)))
        return rc;
    if ((rc = fill(g, v, p, err)))
        return rc;
    /* a job the round preempted is pending with the work done it had at its last report
     * until the pass is applied: its patience summed up now is stale at the next pass */
    if (round) {
        g->npre = 0;
        for (size_t i = 0; i < g->nrun_round; i++) {
            size_t k = g->pos[g->run[i]];
            if (g->act[k].sum_gen != g->sum_gen)
                continue; /* not summed up (running) */
            if (BERTH_GROW(g->pre, g->pre_cap, g->npre + 1))
                return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
            g->pre[g->npre++] = g->run[i];
        }
        g->stale = g->npre > 0;
    }
    return 0;
}

/* The next round start while jobs run. With nothing running a round changes nothing (no
 * time is received, and the fill has already started whatever could start), so there is no
 * timer then: the next arrival starts a round. */
static berth_us gavel_next_pass(void *self, const struct berth__view *v)
{
    struct gavel *g = self;
    /* without the fill a pending job starts only at a round: rounds go on while jobs wait */
    return v->nrunning > 0 || (!g->fill && v->npending > 0) ? g->next_round : BERTH_TIME_NONE;
}

struct gavel_settings {
    int fill, half_credit, zero_reset, exec_time, fastest_type;
};

static const struct berth__setting settings[] = {
    {"fill", BERTH_SET_BOOL, offsetof(struct gavel_settings, fill), 0, 1,
     "start pending jobs on idle GPUs at once, without preempting, between and after the "
     "rounds' choices (default on; off: Gavel leaves them idle until the next round or "
     "re-solve; --mode gavel sets off)"},
    {"half_credit", BERTH_SET_BOOL, offsetof(struct gavel_settings, half_credit), 0, 1,
     "Gavel's half-round credit: every job's time received on every type starts at half a "
     "round when it arrives and at each reset, and the time on a type keeps what finished "
     "jobs ran until the next reset (default off: time received starts at 0 and a type's "
     "total is its active jobs'; --mode gavel sets on)"},
    {"zero_reset", BERTH_SET_BOOL, offsetof(struct gavel_settings, zero_reset), 0, 1,
     "Gavel's test for the last reset, `_last_reset_time == 0`: while the last reset was at "
     "time 0, the next may come at any round, not only after the minimum interval (default "
     "off; --mode gavel sets on)"},
    {"exec_time", BERTH_SET_BOOL, offsetof(struct gavel_settings, exec_time), 0, 1,
     "time received counts the time a job's work ran at its rate (Gavel's micro-task "
     "execution times), not the time it held GPUs; they differ under --whole-steps (default "
     "off; --mode gavel sets on)"},
    {"fastest_type", BERTH_SET_BOOL, offsetof(struct gavel_settings, fastest_type), 0, 1,
     "gavel-fifo: each job on the fastest GPU type with room (default on; off: Gavel's base "
     "fifo.py: the last by name of the types that had room, without a capacity check, a random "
     "index drawn and used only to drop a type, a finished job's type refilled before the "
     "running jobs are counted; --mode gavel sets off)"},
};

static int create(int kind, const struct berth__params *prm, void **self, struct berth_err *err)
{
    static const char *const names[] = {"gavel-fifo", "gavel-max-min", "gavel-max-min-perf",
                                        "themis-ftf"};
    struct gavel_settings set = {1, 0, 0, 0, 1};
    int rc = berth__settings_parse(names[kind], prm->settings, settings, kind == FIFO ? 5 : 4, &set,
                                   err);
    if (rc)
        return rc;
    struct gavel *g = calloc(1, sizeof *g);
    if (!g)
        return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    g->kind = kind;
    g->fill = set.fill;
    g->fastest = set.fastest_type;
    g->half_credit = set.half_credit;
    g->zero_reset = set.zero_reset;
    g->exec_time = set.exec_time;
    g->round_passes = prm->round_passes;
    berth__pyrand_seed(&g->rand, prm->seed);
    g->round_us = prm->round_us > 0 ? prm->round_us : DEFAULT_ROUND_US;
    g->realloc_us = prm->min_realloc_us > 0 ? prm->min_realloc_us : DEFAULT_REALLOC_US;
    *self = g;
    return 0;
}

static void gavel_destroy(void *self)
{
    struct gavel *g = self;
    if (!g)
        return;
    free(g->act);
    free(g->in_run);
    free(g->run);
    free(g->alloc);
    free(g->x);
    free(g->recv);
    free(g->deficit);
    free(g->pos);
    free(g->ent);
    free(g->ent_tmp);
    free(g->fent);
    free(g->fjob);
    for (int i = 0; i < 2; i++) {
        for (size_t q = 0; q < g->sum[i].seg_cap; q++)
            for (int c = 0; c < SUM_LETTERS; c++)
                free(g->sum[i].seg[q].word[c]);
        free(g->sum[i].seg);
        free(g->sum[i].item);
    }
    free(g->word);
    free(g->pre);
    free(g->victims);
    free(g->vsort);
    free(g->key);
    free(g->wait);
    free(g->lp);
    free(g->lpk);
    free(g->falloc);
    free(g->fadd);
    free(g);
}

static int create_fifo(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create(FIFO, p, self, err);
}

static int create_max_min(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create(MAX_MIN, p, self, err);
}

static int create_max_min_perf(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create(MAX_MIN_PERF, p, self, err);
}

static int create_ftf(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create(FTF, p, self, err);
}

const struct berth__policy_ops berth__policy_gavel_fifo = {
    .name = "gavel-fifo",
    .summary =
        "Gavel rounds, FIFO allocation: arrival order on the fastest type with room, head blocks",
    .default_placement = "consolidate",
    .create = create_fifo,
    .destroy = gavel_destroy,
    .plan = gavel_plan,
    .next_pass = gavel_next_pass,
    .settings = settings,
    .nsettings = 5,
};

const struct berth__policy_ops berth__policy_gavel_max_min = {
    .name = "gavel-max-min",
    .summary = "Gavel rounds, max-min fair shares of GPU time (Gavel's LAS; LP, GLPK)",
    .default_placement = "consolidate",
    .create = create_max_min,
    .destroy = gavel_destroy,
    .plan = gavel_plan,
    .next_pass = gavel_next_pass,
    .settings = settings,
    .nsettings = 4,
};

const struct berth__policy_ops berth__policy_gavel_max_min_perf = {
    .name = "gavel-max-min-perf",
    .summary =
        "Gavel rounds, max-min fairness on throughput normalised per job (heterogeneity-aware)",
    .default_placement = "consolidate",
    .create = create_max_min_perf,
    .destroy = gavel_destroy,
    .plan = gavel_plan,
    .next_pass = gavel_next_pass,
    .settings = settings,
    .nsettings = 4,
};

const struct berth__policy_ops berth__policy_themis_ftf = {
    .name = "themis-ftf",
    .summary =
        "Gavel rounds, Themis finish-time fairness: minimise the worst finish-time ratio rho",
    .default_placement = "consolidate",
    .create = create_ftf,
    .destroy = gavel_destroy,
    .plan = gavel_plan,
    .next_pass = gavel_next_pass,
    .settings = settings,
    .nsettings = 4,
};
