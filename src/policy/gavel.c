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
 * rounds that end early) every pass starts a round.
 *
 * This file holds the active set, the rounds and the policy interface; the allocation is in
 * gavel_alloc.c, the fill and its segment summaries in gavel_fill.c, their shared state in
 * gavel_int.h. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "policy/gavel_int.h"
#include "solve/lp_alloc.h"
#include "sched/plan.h"
#include "sched/refuse.h"
#include "sched/settings.h"
#include "util/pyrand.h"
#include "util/sort.h"

#define DEFAULT_ROUND_US   (360 * BERTH_US_PER_S)
#define DEFAULT_REALLOC_US (1920 * BERTH_US_PER_S)

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
        g->recv[k * g->nt + t] = berth__gavel_credit(g);
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

/* Marks the jobs that left (done) since the last pass. */
static void mark_left(struct gavel *g, const struct berth__view *v)
{
    for (size_t i = 0; i < v->nleft; i++) {
        uint32_t job = v->left[i];
        if (job < g->pos_cap && g->pos[job] != NONE) {
            g->act[g->pos[job]].gone = 1;
            g->left = 1;
            if (g->act[g->pos[job]].sum_gen == g->sum_gen) /* it left pending */
                berth__gavel_sum_drop(g);
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
            (rate = berth__gavel_tput(v, j, (size_t)j->type)) > 0)
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
                if (!(x > X_MIN) || j->gpus == 0 || berth__gavel_tput(v, j, t) <= 0)
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
berth_us berth__gavel_patience_of(struct gavel *g, const struct berth__view *v,
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
    int rc = berth__plan_start_refused(p, j, t, berth__gavel_patience_of(g, v, p, k, t));
    if (rc < 0)
        return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    berth__gavel_fast_used += (unsigned long long)rc;
    return rc;
}

/* Starts pending job k on type t when it fits there now: 1 started, 0 not, or an error. */
int berth__gavel_try_start(struct gavel *g, const struct berth__view *v, struct berth__plan *p,
                           size_t k, int t, struct berth_err *err)
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

/* Moves the running jobs (of the first nrun in g->run) chosen on another type than they run
 * on: preempted, to start on the chosen one. Collects the victims: running jobs not chosen
 * on the type they hold (so chosen nowhere), worst first: jobs outside the ranking (newest
 * first), then ranked jobs by their best rank, from the bottom. */
static int movers_and_victims(struct gavel *g, const struct berth__view *v, struct berth__plan *p,
                              size_t nrun, struct berth_err *err)
{
    int rc;
    if (!berth__gavel_grow_scratch((void **)&g->key, &g->key_cap, g->nact, sizeof *g->key))
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
 * one's run time is what it had then: all starts go through berth__gavel_try_start or a restore of
 * a job running then) and keeps the running ones in g->run, in act order, once each. Those jobs are
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
        (rc = berth__gavel_reset(g, v, err)))
        return rc;
    if ((rc = rank(g, v)))
        return berth_err_set(err, rc, "gavel: out of memory");
    /* choose by counted capacity; wait lists the chosen entries, in rank order */
    if (!berth__gavel_grow_scratch((void **)&g->wait, &g->wait_cap, g->nent, sizeof *g->wait))
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
        int64_t d = berth__gavel_demand(&v->jobs[en->job]);
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
            int32_t need = (int32_t)((berth__gavel_demand(j) + 999) / 1000);
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
            if ((rc = berth__gavel_try_start(g, v, p, en->k, en->type, err)) < 0)
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
        berth__gavel_sum_drop(g);
    mark_left(g, v);
    int round = g->round_passes || v->now >= g->next_round;
    if (round && (rc = round_start(g, v, p, err)))
        return rc;
    if ((rc = berth__gavel_fill(g, v, p, err)))
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
