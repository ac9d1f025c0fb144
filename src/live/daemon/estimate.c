/* The start-time estimate: berthd runs its live queue forward in a virtual clock with the
 * simulator's engine and pass-due rule (engine/drive.h), on a copy of the live state: the
 * same policy (name, settings, queues, placement), the same cluster with the same reserved
 * servers, the running jobs adopted on the GPUs they hold with the run time they have left,
 * and the pending jobs arrived in their order. Each job's expected run time is its estimate
 * (est_s when its user gave one or berthd re-estimated it), else its time limit, else the
 * mean run time of its user's completed jobs, else est_s's default; it never exceeds the
 * time limit. The virtual run ends when every job has started (or a horizon of a year, or
 * a bound on passes); a job that never starts there has no estimate.
 *
 * What the copy cannot know: what the policy remembered (decayed fair-share usage, LAS's
 * attained service is copied, a time slice's phase is not), jobs still outside the
 * scheduler (dependencies, array throttles, a user's GPU limit), arrivals to come, and
 * run times that differ from their estimates. The figures in the note measure it.
 *
 * Cost: one engine pass per event of the virtual run (a start, an end, a policy's timer);
 * the result is cached and computed again only when the live engine ran a pass or a job
 * entered since, at most once per BERTH_EST_MIN_US and at least ten of its own costs after
 * the last run (so it holds d->mu, which it runs under, a tenth of the time at most). */
#include <stdlib.h>
#include <string.h>

#include "live/daemon/daemon.h"
#include "model/cluster.h"
#include "util/mem.h"

#define BERTH_EST_MIN_US  (BERTH_US_PER_S / 2)
#define BERTH_EST_HORIZON (365LL * 86400 * BERTH_US_PER_S)
#define BERTH_EST_USERS   256 /* users whose history is read; the rest use the default */

struct ev {
    berth_us t;
    uint32_t job, ver;
};

/* The virtual run's state: what the virtual executor (the engine's callbacks) keeps. */
struct run {
    struct berth__engine *e;
    struct ev *heap; /* ends of running jobs, earliest first (stale ones skipped) */
    size_t nheap, heap_cap;
    uint32_t *ver;   /* per virtual job: its current heap entry's version */
    berth_us *start; /* per virtual job: first start in the virtual run (0 = none) */
    berth_us *end;   /* per virtual job: expected end (0 = none) */
    int oom;
};

static void heap_push(struct run *r, struct ev v)
{
    if (BERTH_GROW(r->heap, r->heap_cap, r->nheap + 1)) {
        r->oom = 1;
        return;
    }
    size_t i = r->nheap++;
    while (i && r->heap[(i - 1) / 2].t > v.t) {
        r->heap[i] = r->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    r->heap[i] = v;
}

static void heap_pop(struct run *r)
{
    struct ev last = r->heap[--r->nheap];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= r->nheap)
            break;
        if (c + 1 < r->nheap && r->heap[c + 1].t < r->heap[c].t)
            c++;
        if (r->heap[c].t >= last.t)
            break;
        r->heap[i] = r->heap[c];
        i = c;
    }
    if (r->nheap)
        r->heap[i] = last;
}

/* Every virtual job runs at fixed speed: work = its expected run time, done = what it ran. */
static void v_start(void *ctx, struct berth__job *j, berth_us now)
{
    struct run *r = ctx;
    j->rate = 1.0;
    j->progress_at = now;
    if (!r->start[j->idx])
        r->start[j->idx] = now;
    berth_us left = (berth_us)(j->work - j->done);
    r->end[j->idx] = now + (left > 0 ? left : 1);
    heap_push(r, (struct ev){r->end[j->idx], j->idx, ++r->ver[j->idx]});
}

static void v_stop(void *ctx, struct berth__job *j, berth_us now)
{
    struct run *r = ctx;
    j->done = berth__job_done(j, now);
    j->rate = 0;
    j->progress_at = now;
    r->ver[j->idx]++; /* its end is stale */
    r->end[j->idx] = 0;
}

static void v_migrate(void *ctx, struct berth__job *j, berth_us now)
{
    (void)ctx, (void)j, (void)now; /* fixed speed: its end stays */
}

/* Mean run time of each user's completed jobs (at most BERTH_EST_USERS users). */
struct hist {
    const char *user;
    berth_us sum;
    int64_t n;
};

static size_t read_history(struct berth__daemon *d, struct hist *h)
{
    size_t nh = 0;
    for (size_t i = 0; i < d->njobs; i++) {
        const struct berth__ljob *j = d->jobs[i];
        if (!j || j->state != BERTH_L_COMPLETED || j->ran_us <= 0)
            continue;
        size_t k = 0;
        while (k < nh && strcmp(h[k].user, j->user))
            k++;
        if (k == nh) {
            if (nh == BERTH_EST_USERS)
                continue;
            h[nh++] = (struct hist){j->user, 0, 0};
        }
        h[k].sum += j->ran_us;
        h[k].n++;
    }
    return nh;
}

static berth_us run_us_of(const struct berth__ljob *j, const struct hist *h, size_t nh)
{
    berth_us lim = berth_jobspec_extra(&j->spec)->time_limit_us, x = j->spec.duration_us;
    if (!j->est_given) {
        if (lim > 0) {
            x = lim;
        } else {
            for (size_t k = 0; k < nh; k++)
                if (!strcmp(h[k].user, j->user) && h[k].n) {
                    x = h[k].sum / h[k].n;
                    break;
                }
        }
    }
    if (lim > 0 && x > lim)
        x = lim;
    return x > 0 ? x : 1;
}

/* Builds the copy, runs it forward from now, and fills d->est. 0 or an error. */
static int compute(struct berth__daemon *d, berth_us now, struct berth_err *err)
{
    struct berth__engine *le = d->engine;
    struct run r = {0};
    struct berth__engine_exec exec = {&r, v_start, v_stop, v_migrate};
    struct berth__params params = le->params;
    int rc = berth__engine_create(d->cluster, le->ops->name, le->place.ops->name, &params, &exec,
                                  &r.e, err);
    if (rc)
        return rc;
    struct berth__engine *e = r.e;
    struct hist *h = malloc(BERTH_EST_USERS * sizeof *h);
    uint32_t *live = malloc((le->njobs ? le->njobs : 1) * sizeof *live); /* virtual -> live */
    if (!h || !live || (rc = berth__engine_set_tput(e, le->tput, err)))
        goto done;
    size_t nh = read_history(d, h);
    for (size_t s = 0; s < e->cluster->nsrv && s < le->cluster->nsrv; s++)
        if (le->cluster->srv[s].reserved)
            berth__cluster_reserve(e->cluster, (uint32_t)s);
    e->infer_demand = le->infer_demand;
    for (size_t i = 0; i < le->njobs; i++) {
        const struct berth__job *lj = &le->jobs[i];
        if (lj->state != BERTH_JOB_PENDING && lj->state != BERTH_JOB_RUNNING)
            continue;
        struct berth__ljob *j = berth__daemon_job(d, d->by_eidx[i]);
        uint32_t k;
        if (!j || (rc = berth__engine_add(e, lj->spec, &k, err)))
            goto done;
        live[k] = (uint32_t)i;
        struct berth__job *vj = &e->jobs[k];
        vj->est_us = run_us_of(j, h, nh);
        vj->work = (double)vj->est_us;
        berth_us ran = berth__job_run_us(lj, now);
        vj->done = (double)(ran < vj->est_us ? ran : vj->est_us);
        vj->progress_at = now;
        if (lj->state == BERTH_JOB_RUNNING) {
            if ((rc = berth__engine_adopt(e, k, lj->slots, berth__job_nslots(lj), now, err)))
                goto done;
            vj->rate = 1.0; /* its end is set below, once the arrays exist */
        } else if ((rc = berth__engine_arrive(e, k, now, err))) {
            goto done;
        }
        vj->run_us = ran;
        vj->gpu_us = berth__job_gpu_us(lj, now);
        vj->queued_us = lj->queued_us;
        vj->preemptions = lj->preemptions;
    }
    size_t n = e->njobs ? e->njobs : 1;
    r.ver = calloc(n, sizeof *r.ver);
    r.start = calloc(n, sizeof *r.start);
    r.end = calloc(n, sizeof *r.end);
    if (!r.ver || !r.start || !r.end)
        goto oom;
    for (uint32_t k = 0; k < e->njobs; k++) /* the running jobs' ends */
        if (e->jobs[k].state == BERTH_JOB_RUNNING) {
            berth_us left = (berth_us)(e->jobs[k].work - e->jobs[k].done);
            r.start[k] = now; /* started already: its live start_us is shown */
            r.end[k] = now + (left > 0 ? left : 1);
            heap_push(&r, (struct ev){r.end[k], k, r.ver[k]});
        }
    struct berth__drive dr;
    berth__drive_init(&dr, 0);
    berth__drive_touch(&dr);
    berth_us t = now;
    uint64_t passes = 0, max_passes = 4 * (uint64_t)e->njobs + 1000;
    for (;;) {
        if ((rc = berth__drive_step(&dr, e, t, NULL, err)))
            goto done;
        if (r.oom)
            goto oom;
        if (!e->npending || ++passes > max_passes)
            break;
        while (r.nheap && r.heap[0].ver != r.ver[r.heap[0].job])
            heap_pop(&r);
        berth_us next = r.nheap ? r.heap[0].t : BERTH_TIME_NONE;
        if (dr.next != BERTH_TIME_NONE && (next == BERTH_TIME_NONE || dr.next < next))
            next = dr.next;
        if (next == BERTH_TIME_NONE || next - now > BERTH_EST_HORIZON)
            break;
        t = next > t ? next : t;
        while (r.nheap && r.heap[0].t <= t) {
            struct ev v = r.heap[0];
            heap_pop(&r);
            if (v.ver != r.ver[v.job] || e->jobs[v.job].state != BERTH_JOB_RUNNING)
                continue;
            if ((rc = berth__engine_finish(e, v.job, t, err)))
                goto done;
            berth__drive_touch(&dr);
        }
    }
    /* the results, by live id */
    if (BERTH_GROW(d->est, d->est_cap, d->njobs ? d->njobs : 1))
        goto oom;
    memset(d->est, 0, d->njobs * sizeof *d->est);
    d->nest = d->njobs;
    for (uint32_t k = 0; k < e->njobs; k++) {
        uint64_t id = d->by_eidx[live[k]];
        const struct berth__ljob *j = berth__daemon_job(d, id);
        berth_us start = r.start[k];
        if (j && j->state == BERTH_L_RUNNING && j->start_us) /* its own start */
            start = j->start_us;
        if (id >= 1 && id <= d->nest)
            d->est[id - 1] = (struct berth__est){start, r.end[k]};
    }
    goto done;
oom:
    rc = berth_err_set(err, BERTH_ENOMEM, "estimate: out of memory");
done:
    if (!rc && (!h || !live))
        rc = berth_err_set(err, BERTH_ENOMEM, "estimate: out of memory");
    free(h);
    free(live);
    free(r.heap);
    free(r.ver);
    free(r.start);
    free(r.end);
    berth__engine_destroy(e);
    return rc;
}

int berth__daemon_estimate(struct berth__daemon *d, struct berth_err *err)
{
    berth_us mono = berth__mono_us();
    if (d->est_valid && d->est_passes == d->engine->passes && d->est_jobs == d->engine->njobs)
        return 0; /* nothing the policy sees changed */
    /* at most twice a second, and never more than a tenth of the time under the lock */
    berth_us gap = 10 * d->est_last_us > BERTH_EST_MIN_US ? 10 * d->est_last_us : BERTH_EST_MIN_US;
    if (d->est_valid && mono - d->est_mono < gap)
        return 0;
    int rc = compute(d, berth__wall_us(), err);
    berth_us took = berth__mono_us() - mono;
    d->est_runs++;
    d->est_last_us = took;
    d->est_max_us = took > d->est_max_us ? took : d->est_max_us;
    if (rc)
        return rc;
    d->est_valid = 1;
    d->est_mono = mono;
    d->est_passes = d->engine->passes;
    d->est_jobs = d->engine->njobs;
    return 0;
}

const struct berth__est *berth__daemon_estimate_of(struct berth__daemon *d,
                                                   const struct berth__ljob *j)
{
    if (!d->est_valid || j->id < 1 || j->id > d->nest || !d->est[j->id - 1].start_us)
        return NULL;
    return &d->est[j->id - 1];
}
