/* The modelled executor: job rates, progress folding, restart costs, co-location (see
 * progress.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/cluster.h"
#include "model/topo_rate.h"
#include "sim/progress.h"
#include "util/mem.h"

#define NONE    UINT32_MAX
#define FOREVER (INT64_MAX / 4)

/* The started state of job i (it must have started and not finished). */
static struct berth__run *started(const struct berth__progress *p, uint32_t i)
{
    return &p->run[p->run_of[i]];
}

static uint32_t gpu_key(const struct berth__slot *s)
{
    return s->server * BERTH_MAX_SERVER_GPUS + s->gpu;
}

static int is_fractional(const struct berth__job *j)
{
    return j->gpus == 1 && j->share < 1000;
}

static double model_rate(const struct berth__progress *p, const struct berth__job *j, int t,
                         int spread)
{
    if (t < 0)
        return 0.0;
    return berth__tput_rate_sp(p->m, &p->sp, j->cls, p->mtype[t], j->gpus, spread);
}

/* Flat progress's reference: the first cluster type (in cluster order) the model can run j
 * on, whatever j may use. */
static int first_type(const struct berth__progress *p, const struct berth__job *j)
{
    for (size_t t = 0; t < p->cluster->ntypes; t++)
        if (model_rate(p, j, (int)t, 0) > 0)
            return (int)t;
    return -1;
}

/* Work per microsecond of j on what it holds now, before co-location and restarts. */
static double base_rate(const struct berth__progress *p, const struct berth__job *j)
{
    if (p->flat)
        return p->steps[j->idx] ? model_rate(p, j, first_type(p, j), 0) / 1e6 : 1.0;
    if (p->trate) { /* a topology: one-island rate times the factor of the level spanned */
        double f =
            berth__topo_rate_factor(p->trate, berth_jobspec_extra(j->spec)->job_type, j->span);
        return p->steps[j->idx] ? model_rate(p, j, j->type, 0) / 1e6 * f : f;
    }
    int spread = j->servers > 1;
    if (p->steps[j->idx])
        return model_rate(p, j, j->type, spread) / 1e6;
    if (!spread)
        return 1.0;
    /* a fixed-speed job slows by the spread ratio: an explicit penalty, else its class's
     * measured ratio (when the run uses measured rates), else nothing */
    return berth__tput_spread_ratio(p->m, &p->sp, j->cls,
                                    p->m && j->type >= 0 ? p->mtype[j->type] : -1, j->gpus);
}

/* j's normalised speed next to the other fractional jobs on its GPU. */
static double colocated(const struct berth__progress *p, const struct berth__job *j)
{
    if (p->flat || !p->res_head || !is_fractional(j) || p->res_at[j->idx] == NONE)
        return 1.0;
    double f = 1.0;
    for (uint32_t k = p->res_head[p->res_at[j->idx]]; k != NONE; k = p->res_next[k]) {
        if (k == j->idx)
            continue;
        double s = 0.0;
        if (p->m && j->cls >= 0 && p->jobs[k].cls >= 0)
            s = berth__tput_pair(p->m, j->cls, p->jobs[k].cls, p->mtype ? p->mtype[j->type] : -1);
        f *= s > 0 ? s : p->colocate;
    }
    return f;
}

/* Microseconds rounded up, absorbing the rounding noise of a division (a relative 1e-12,
 * at most a thousandth of a microsecond) so that exact figures stay exact: 333.33333 steps
 * at 1e-5 steps/us are 33333333 us, not one more when the division lands a hair above. */
static berth_us ceil_us(double us)
{
    us -= fmin(us * 1e-12, 1e-3);
    return us >= (double)FOREVER ? FOREVER : (berth_us)ceil(us);
}

/* Folds the progress made since progress_at into done. */
static void advance(struct berth__progress *p, struct berth__job *j, berth_us now)
{
    if (now > j->progress_at && j->rate > 0) {
        berth_us dt = now - j->progress_at;
        if (p->steps[j->idx]) {
            j->done += j->rate * (double)dt;
            if (p->cap && p->cap[j->idx] >= 0 && j->done > p->cap[j->idx])
                j->done = p->cap[j->idx];
        } else { /* integer microseconds of work: exact at rate 1, whatever the size */
            int64_t *d = &started(p, j->idx)->done_us;
            *d += j->rate == 1.0 ? dt : (int64_t)llround(j->rate * (double)dt);
            if (*d > j->spec->duration_us)
                *d = j->spec->duration_us;
            j->done = (double)*d;
        }
        if (j->done > j->work)
            j->done = j->work;
    }
    if (now > j->progress_at)
        j->progress_at = now;
}

static berth_us next_boundary(berth_us t, berth_us round)
{
    berth_us r = t % round;
    return r ? t - r + round : t;
}

/* Sets j's rate from its allocation and (re)schedules its completion. */
static void reschedule(struct berth__progress *p, struct berth__job *j)
{
    struct berth__run *r = started(p, j->idx);
    if (r->work_end != BERTH_TIME_NONE && j->done >= j->work)
        return; /* its work ended; it only waits for the round boundary */
    if (p->cap && p->cap[j->idx] >= 0) {
        /* its whole steps end before its work: spread evenly over the round (so that the
         * work done by any instant is known without a pause event), no end yet */
        berth_us span = p->round_end - j->progress_at;
        j->rate = span > 0 ? (p->cap[j->idx] - j->done) / (double)span : 0;
        r->work_end = BERTH_TIME_NONE;
        berth__events_set(&p->ev, j->idx, FOREVER);
        return;
    }
    j->rate = base_rate(p, j) * colocated(p, j);
    if (!(j->rate > 0)) {
        p->failed = 1;
        berth__events_remove(&p->ev, j->idx);
        return;
    }
    berth_us end;
    if (!p->steps[j->idx] && j->rate == 1.0) { /* exact */
        end = j->progress_at + (j->spec->duration_us - r->done_us);
    } else {
        double left =
            p->steps[j->idx] ? j->work - j->done : (double)(j->spec->duration_us - r->done_us);
        end = left <= 0 ? j->progress_at : j->progress_at + ceil_us(left / j->rate);
    }
    r->work_end = end;
    berth_us at = end;
    if (p->round_us)
        at = next_boundary(end, p->round_us);
    else if (p->ends && end <= p->round_end)
        at = p->round_end;
    berth__events_set(&p->ev, j->idx, at);
}

/* Refolds and reschedules every other fractional job on GPU key g (its partners changed). */
static void touch_partners(struct berth__progress *p, uint32_t g, uint32_t self, berth_us now)
{
    for (uint32_t k = p->res_head[g]; k != NONE; k = p->res_next[k]) {
        if (k == self)
            continue;
        struct berth__job *o = &p->jobs[k];
        advance(p, o, now);
        struct berth__run *r = started(p, k);
        if (r->work_end != BERTH_TIME_NONE && o->done >= o->work)
            continue; /* its work ended already; it only waits for the round boundary */
        r->work_end = BERTH_TIME_NONE;
        reschedule(p, o);
    }
}

/* The per-GPU lists of fractional jobs: made at the start when the trace has fractional
 * jobs, else when the first job runs as a share (a policy that cuts GPUs itself: Salus).
 * Returns 0 or -1 when out of memory. */
static int res_alloc(struct berth__progress *p)
{
    size_t keys = (p->cluster->nsrv ? p->cluster->nsrv : 1) * BERTH_MAX_SERVER_GPUS;
    size_t m = p->njobs ? p->njobs : 1;
    p->res_head = malloc(keys * sizeof *p->res_head);
    p->res_next = malloc(m * sizeof *p->res_next);
    p->res_prev = malloc(m * sizeof *p->res_prev);
    p->res_at = malloc(m * sizeof *p->res_at);
    if (!p->res_head || !p->res_next || !p->res_prev || !p->res_at) {
        free(p->res_head); /* all or none: a job's list position is read wherever there is a head */
        free(p->res_next);
        free(p->res_prev);
        free(p->res_at);
        p->res_head = p->res_at = p->res_next = p->res_prev = NULL;
        return -1;
    }
    memset(p->res_head, 0xff, keys * sizeof *p->res_head);
    memset(p->res_at, 0xff, m * sizeof *p->res_at);
    return 0;
}

static void link_gpu(struct berth__progress *p, struct berth__job *j, berth_us now)
{
    if (!is_fractional(j))
        return;
    if (!p->res_head && res_alloc(p)) {
        p->ev.oom = 1; /* reported by the run loop */
        return;
    }
    uint32_t g = gpu_key(&j->slots[0]), i = j->idx;
    p->res_at[i] = g;
    p->res_prev[i] = NONE;
    p->res_next[i] = p->res_head[g];
    if (p->res_head[g] != NONE)
        p->res_prev[p->res_head[g]] = i;
    p->res_head[g] = i;
    touch_partners(p, g, i, now);
}

static void unlink_gpu(struct berth__progress *p, struct berth__job *j, berth_us now)
{
    if (!p->res_head || p->res_at[j->idx] == NONE)
        return;
    uint32_t i = j->idx, g = p->res_at[i];
    if (p->res_prev[i] != NONE)
        p->res_next[p->res_prev[i]] = p->res_next[i];
    else
        p->res_head[g] = p->res_next[i];
    if (p->res_next[i] != NONE)
        p->res_prev[p->res_next[i]] = p->res_prev[i];
    p->res_at[i] = NONE;
    touch_partners(p, g, i, now);
}

static berth_us restart_cost(const struct berth__progress *p, const struct berth__job *j)
{
    return berth__job_restart_us(j, j->gpus, p->restart_us, p->tiers);
}

/* Job i's started state, made at its first start (zeroed). NULL when out of memory. */
static struct berth__run *run_get(struct berth__progress *p, uint32_t i)
{
    if (p->run_of[i] != BERTH_EV_NONE)
        return started(p, i);
    uint32_t k = p->run_free;
    if (k != BERTH_EV_NONE) {
        p->run_free = p->run[k].next_free;
    } else {
        if (p->nrun >= BERTH_EV_NONE || BERTH_GROW(p->run, p->run_cap, p->nrun + 1))
            return NULL;
        k = (uint32_t)p->nrun++;
    }
    p->run_of[i] = k;
    p->run[k] = (struct berth__run){0};
    return &p->run[k];
}

int berth__progress_retire(struct berth__progress *p, const struct berth__job *j, berth_us now)
{
    uint32_t k = p->run_of[j->idx];
    if (k == BERTH_EV_NONE)
        return 0;
    const struct berth__run *r = &p->run[k];
    berth_us w =
        r->work_end == BERTH_TIME_NONE || r->work_end >= now ? BERTH_TIME_NONE : r->work_end;
    struct berth__early left = {j->idx, r->restarts, w, r->lost};
    p->run[k].next_free = p->run_free;
    p->run_free = k;
    p->run_of[j->idx] = BERTH_EV_NONE;
    if (w == BERTH_TIME_NONE && !left.restarts && !left.lost)
        return 0;
    if (BERTH_GROW(p->early, p->early_cap, p->nearly + 1))
        return -1;
    p->early[p->nearly++] = left;
    return 0;
}

static int cmp_early(const void *a, const void *b)
{
    uint32_t x = ((const struct berth__early *)a)->job, y = ((const struct berth__early *)b)->job;
    return (x > y) - (x < y);
}

struct berth__retired berth__progress_retired(struct berth__progress *p, size_t i)
{
    if (i == 0) {
        p->early_at = 0;
        if (p->nearly > 1)
            qsort(p->early, p->nearly, sizeof *p->early, cmp_early);
    }
    while (p->early_at < p->nearly && p->early[p->early_at].job < i)
        p->early_at++;
    if (p->early_at < p->nearly && p->early[p->early_at].job == i) {
        const struct berth__early *x = &p->early[p->early_at];
        return (struct berth__retired){x->work_end, x->restarts, x->lost};
    }
    return (struct berth__retired){BERTH_TIME_NONE, 0, 0};
}

/* Starts j's progress at now, after a restart cost if it ran before. */
static void begin(struct berth__progress *p, struct berth__job *j, berth_us now, int restart)
{
    struct berth__run *r = run_get(p, j->idx);
    if (!r) {
        p->ev.oom = 1; /* reported by the run loop */
        return;
    }
    berth_us cost = restart ? restart_cost(p, j) : 0;
    r->held_since = now;
    r->held_type = j->type;
    r->held_milli = (int64_t)j->gpus * j->share;
    if (restart)
        r->restarts++;
    r->lost += cost;
    r->stall_end = now + cost;
    j->progress_at = now + cost;
    r->work_end = BERTH_TIME_NONE;
    if (p->cap)
        p->cap[j->idx] = -1;
    link_gpu(p, j, now);
    reschedule(p, j);
}

/* Stops j's progress at now (giving back the restart time it did not spend). */
static void end(struct berth__progress *p, struct berth__job *j, berth_us now)
{
    /* what it held since it began (a resize or migration may have changed it since) */
    struct berth__run *r = started(p, j->idx);
    if (r->held_type >= 0)
        p->type_gpu_us[r->held_type] +=
            (double)(now - r->held_since) * (double)r->held_milli / 1000.0;
    if (r->stall_end > now)
        r->lost -= r->stall_end - now;
    r->stall_end = now;
    advance(p, j, now);
    j->progress_at = now;
    if (p->cap)
        p->cap[j->idx] = -1;
    unlink_gpu(p, j, now);
}

void berth__progress_start(void *ctx, struct berth__job *j, berth_us now)
{
    struct berth__progress *p = ctx;
    begin(p, j, now, j->preemptions > 0);
}

void berth__progress_stop(void *ctx, struct berth__job *j, berth_us now)
{
    struct berth__progress *p = ctx;
    end(p, j, now);
    j->rate = 0;
    berth__events_remove(&p->ev, j->idx);
}

void berth__progress_migrate(void *ctx, struct berth__job *j, berth_us now)
{
    struct berth__progress *p = ctx;
    end(p, j, now);
    begin(p, j, now, 1);
}

void berth__progress_finish(struct berth__progress *p, struct berth__job *j, berth_us now)
{
    berth__events_remove(&p->ev, j->idx);
    end(p, j, now);
    j->done = j->work;
    j->rate = 0;
}

/* Decides whether job j runs by steps, and keeps only the GPU types the model can run it
 * on. */
static int setup_job(struct berth__progress *p, struct berth__job *j, int fixed, const char *path,
                     struct berth_err *err)
{
    const struct berth_jobspec *s = j->spec;
    if (p->m && berth_jobspec_extra(s)->job_type[0])
        j->cls = berth__tput_class_find(p->m, berth_jobspec_extra(s)->job_type);
    if (p->m && !fixed && j->cls < 0 && s->total_steps > 0 && berth_jobspec_extra(s)->job_type[0])
        return berth_err_set(err, BERTH_EINPUT,
                             "%s:%u: column job_type: expected a job type of the throughput "
                             "model for a job with total_steps (--throughputs; `berth sim "
                             "--help`), found \"%s\"",
                             path, s->line, berth_jobspec_extra(s)->job_type);
    if (!fixed && j->cls >= 0 && s->total_steps > 0 && j->gpus > 0) {
        uint64_t allowed = 0, all = 0;
        double slowest = 0, fastest = 0;
        for (size_t t = 0; t < p->cluster->ntypes; t++) {
            all |= UINT64_C(1) << t;
            double r = model_rate(p, j, (int)t, 0);
            if ((!j->type_mask || (j->type_mask >> t & 1)) && r > 0) {
                allowed |= UINT64_C(1) << t;
                slowest = !slowest || r < slowest ? r : slowest;
                fastest = r > fastest ? r : fastest;
            }
        }
        /* the same bound as durations: 10^12 s at the slowest rate it may get alone */
        if (allowed && (double)s->total_steps / slowest > 1e12)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:%u: column total_steps: expected at most 10^12 seconds of "
                                 "work at the model's rate for '%s', found %lld steps",
                                 path, s->line, berth_jobspec_extra(s)->job_type,
                                 (long long)s->total_steps);
        if (!allowed)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:%u: column job_type: the throughput model has no rate for "
                                 "'%s' on any GPU type job %s may use in this cluster",
                                 path, s->line, berth_jobspec_extra(s)->job_type, s->id);
        j->type_mask = allowed == all ? 0 : allowed;
        p->steps[j->idx] = 1;
        j->work = (double)s->total_steps;
        /* what oracles and FTF know: its time alone at its fastest allowed type */
        j->est_us = ceil_us(j->work / fastest * 1e6);
    } else if (s->duration_us <= 0) {
        return berth_err_set(err, BERTH_EINPUT,
                             "%s:%u: column duration_s: job %s has no duration, and its job_type "
                             "'%s' %s",
                             path, s->line, s->id, berth_jobspec_extra(s)->job_type,
                             fixed ? "cannot run by steps under --fixed-speed"
                                   : "with total_steps is not in the throughput model "
                                     "(--throughputs)");
    }
    j->done = 0;
    return 0;
}

int berth__progress_init(struct berth__progress *p, struct berth__engine *e,
                         const struct berth_sim_opts *o, int fixed, const struct berth__spread *sp,
                         berth_us round_release_us, const char *path, struct berth_err *err)
{
    memset(p, 0, sizeof *p);
    size_t n = e->njobs;
    p->jobs = e->jobs;
    p->njobs = n;
    p->cluster = e->cluster;
    p->m = o->tput;
    p->mtype = e->tput_type;
    p->sp = *sp;
    p->trate = e->trate;
    p->colocate = o->colocate_speed > 0 ? o->colocate_speed : 1.0;
    p->restart_us = o->restart_us;
    p->tiers = o->restart_tiers;
    p->round_us = round_release_us;
    size_t m = n ? n : 1;
    p->steps = calloc(m, 1);
    p->run_of = malloc(m * sizeof *p->run_of);
    p->run_free = BERTH_EV_NONE;
    p->type_gpu_us = calloc(e->cluster->ntypes + 1, sizeof *p->type_gpu_us);
    if (!p->type_gpu_us || !p->steps || !p->run_of || berth__events_init(&p->ev, n))
        return berth_err_set(err, BERTH_ENOMEM, "sim: out of memory");
    memset(p->run_of, 0xff, m * sizeof *p->run_of);
    int shares = 0;
    for (size_t i = 0; i < n; i++) {
        int rc = setup_job(p, &e->jobs[i], fixed, path, err);
        if (rc)
            return rc;
        shares |= is_fractional(&e->jobs[i]);
    }
    if (shares && res_alloc(p))
        return berth_err_set(err, BERTH_ENOMEM, "sim: out of memory");
    e->exec = (struct berth__engine_exec){p, berth__progress_start, berth__progress_stop,
                                          berth__progress_migrate};
    return 0;
}

int berth__progress_use_ends(struct berth__progress *p, int release)
{
    p->ends = release;
    p->round_end = BERTH_TIME_NONE;
    if (release && !(p->scratch = malloc((p->njobs ? p->njobs : 1) * sizeof *p->scratch)))
        return -1;
    return 0;
}

int berth__progress_use_whole_steps(struct berth__progress *p)
{
    if (!(p->cap = malloc((p->njobs ? p->njobs : 1) * sizeof *p->cap)) ||
        (!p->scratch && !(p->scratch = malloc((p->njobs ? p->njobs : 1) * sizeof *p->scratch))))
        return -1;
    for (size_t i = 0; i < p->njobs; i++)
        p->cap[i] = -1;
    return 0;
}

/* Whole steps: a round starts at now. Every running job by steps that will not finish
 * within the round gets floor(rate x round) more steps; the round ends (at most now + round)
 * at the latest instant a running job's work or whole steps end; the capped jobs' steps are
 * spread over it. Returns the end. */
static berth_us cap_round(struct berth__progress *p, berth_us now, berth_us round)
{
    size_t n = 0; /* gathered first: setting moves the heap */
    for (size_t i = 0; i < p->ev.n; i++)
        p->scratch[n++] = p->ev.heap[i].job;
    berth_us last = now + 1;
    for (size_t i = 0; i < n; i++) {
        struct berth__job *j = &p->jobs[p->scratch[i]];
        if (p->steps[j->idx] && started(p, j->idx)->stall_end <= now) {
            advance(p, j, now);
            p->cap[j->idx] = -1;
            reschedule(p, j); /* its own rate again */
            double whole = floor(j->rate * (double)round);
            if (j->rate > 0 && j->work - j->done > whole) {
                p->cap[j->idx] = j->done + whole;
                berth_us m = now + ceil_us(whole / j->rate);
                last = m > last ? m : last;
                continue;
            }
        }
        berth_us w = started(p, j->idx)->work_end;
        last = w != BERTH_TIME_NONE && w > last ? w : last;
    }
    berth_us end = last < now + round ? last : now + round;
    p->round_end = end;
    for (size_t i = 0; i < n; i++)
        if (p->cap[p->scratch[i]] >= 0)
            reschedule(p, &p->jobs[p->scratch[i]]);
    return end;
}

berth_us berth__progress_round(struct berth__progress *p, berth_us now, berth_us round, int early)
{
    berth_us end = now + round;
    if (early && p->cap && p->ev.n) {
        berth_us last = cap_round(p, now, round);
        end = last < end ? last : end;
    } else if (early && p->ev.n) {
        berth_us last = now + 1;
        for (size_t i = 0; i < p->ev.n; i++) {
            berth_us w = started(p, p->ev.heap[i].job)->work_end;
            last = w != BERTH_TIME_NONE && w > last ? w : last;
        }
        end = last < end ? last : end;
    }
    p->round_end = end;
    if (!p->ends)
        return end;
    size_t n = 0; /* whose work ends by then: released then (gathered first: setting moves) */
    for (size_t i = 0; i < p->ev.n; i++) {
        uint32_t j = p->ev.heap[i].job;
        berth_us w = started(p, j)->work_end;
        if (w != BERTH_TIME_NONE && w <= end && p->ev.heap[i].t != end)
            p->scratch[n++] = j;
    }
    for (size_t i = 0; i < n; i++)
        berth__events_set(&p->ev, p->scratch[i], end);
    return end;
}

void berth__progress_free_jobs(struct berth__progress *p)
{
    uint32_t **u32[] = {&p->scratch,  &p->res_head, &p->res_next,
                        &p->res_prev, &p->res_at,   &p->run_of};
    for (size_t i = 0; i < sizeof u32 / sizeof *u32; i++) {
        free(*u32[i]);
        *u32[i] = NULL;
    }
    free(p->cap);
    free(p->run);
    free(p->early);
    p->cap = NULL;
    p->run = NULL;
    p->early = NULL;
    p->nrun = p->run_cap = p->nearly = p->early_cap = 0;
    p->run_free = BERTH_EV_NONE;
    berth__events_free(&p->ev);
    free(p->steps);
    p->steps = NULL;
}

void berth__progress_free(struct berth__progress *p)
{
    berth__progress_free_jobs(p);
    free(p->type_gpu_us);
    memset(p, 0, sizeof *p);
}
