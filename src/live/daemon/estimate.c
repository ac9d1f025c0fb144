/* The start-time estimate: berthd runs its live queue forward in a virtual clock with the
 * simulator's engine and pass-due rule (engine/drive.h), on a copy of the live state: the
 * same policy (name, settings, queues, placement), the same cluster with the same reserved
 * servers, the running jobs adopted on the GPUs they hold with the run time they have left,
 * and the pending jobs arrived in their order. Each job's expected run time is its estimate
 * (est_s when its user gave one or berthd re-estimated it), else its time limit, else the
 * mean run time of its user's completed jobs, else est_s's default; it never exceeds the
 * time limit. The virtual run ends when every job has started, nothing more can happen, a
 * year of virtual time went by, a bound on passes is reached or its wall-clock budget is
 * spent; a job that never starts there has no estimate, and the result says which end it
 * met (a job not reached within the budget answers "no estimate (budget)").
 *
 * What the copy cannot know: what the policy remembered (decayed fair-share usage, LAS's
 * attained service is copied, a time slice's phase is not), jobs still outside the
 * scheduler (dependencies, array throttles, a user's GPU limit), arrivals to come, and
 * run times that differ from their estimates. The figures in the note measure it.
 *
 * Cost: the snapshot is one pass over the jobs (a copy of each pending and running job's
 * spec and its strings, a hash of the users' history); that is all that holds d->mu. The
 * run is one engine pass per event of the virtual run (a start, an end, a policy's timer),
 * under no lock; estimator.c decides when it runs. */
#include <stdlib.h>
#include <string.h>

#include "live/daemon/core.h"
#include "live/daemon/estimate.h"
#include "model/cluster.h"
#include "util/hash.h"
#include "util/mem.h"

#define EST_HORIZON_US  (365LL * 86400 * BERTH_US_PER_S)
#define BERTH_EST_USERS 1024 /* users whose history is read; the rest use the default */

/* The strings of a spec the policies read, in the snapshot's buffer (offsets while it grows). */
enum { S_ID, S_QUEUE, S_TYPE, S_USER, S_GPU, S_N };

/* One pending or running job as the snapshot copied it. */
struct snap_job {
    struct berth_jobspec spec; /* its strings in the snapshot's buffer, extra = &x */
    struct berth_jobspec_extra x;
    uint32_t str[S_N]; /* the strings' offsets in the buffer (UINT32_MAX: NULL) */
    uint64_t id;
    berth_us est_us;                 /* its expected run time */
    berth_us ran, gpu_us, queued_us; /* what it ran and waited by the snapshot's instant */
    int32_t preemptions;
    int32_t nslots; /* running: its GPUs (slots[slot0 ...]) */
    size_t slot0;
    berth_us start_us; /* running: its live start */
    uint8_t running;
};

struct hist;

/* Kept by its taker from one snapshot to the next: its arrays are reused, so that taking it
 * (under d->mu) costs no fresh pages. */
struct berth__est_snap {
    struct berth_cluster *cluster; /* the live cluster (as berthd made it) */
    uint8_t *reserved;             /* per server: reserved (an inference pool's) */
    char *policy, *placement, *settings;
    struct berth__params params; /* settings points to the copy above */
    const struct berth_tput *tput;
    int32_t infer_demand;
    berth_us now, mono, snap_us;
    uint64_t passes, njobs;
    struct snap_job *job;
    size_t n, cap;
    struct berth__slot *slots;
    size_t nslots, slots_cap;
    char *str; /* every job's strings, NUL-terminated */
    size_t nstr, str_cap;
    struct hist *hist; /* HIST_SLOTS */
};

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

/* Mean run time of each user's completed jobs, in an open-addressed table by name (at most
 * BERTH_EST_USERS users: the rest take the default). */
struct hist {
    const char *user; /* the live job's string: used under d->mu only */
    berth_us sum;
    int64_t n;
};
#define HIST_SLOTS (2 * BERTH_EST_USERS)

static size_t hist_slot(struct hist *h, const char *user)
{
    size_t s = (size_t)(berth__hash_str(user) % HIST_SLOTS);
    while (h[s].user && strcmp(h[s].user, user))
        s = (s + 1) % HIST_SLOTS;
    return s;
}

static void read_history(struct berth__daemon *d, struct hist *h)
{
    size_t nh = 0;
    for (size_t i = 0; i < d->njobs; i++) {
        const struct berth__ljob *j = d->jobs[i];
        if (!j || j->state != BERTH_L_COMPLETED || j->ran_us <= 0)
            continue;
        size_t s = hist_slot(h, j->user);
        if (!h[s].user) {
            if (nh == BERTH_EST_USERS)
                continue;
            h[s].user = j->user;
            nh++;
        }
        h[s].sum += j->ran_us;
        h[s].n++;
    }
}

static berth_us run_us_of(const struct berth__ljob *j, struct hist *h)
{
    berth_us lim = berth_jobspec_extra(&j->spec)->time_limit_us, x = j->spec.duration_us;
    if (!j->est_given) {
        if (lim > 0) {
            x = lim;
        } else {
            size_t s = hist_slot(h, j->user);
            if (h[s].user && h[s].n)
                x = h[s].sum / h[s].n;
        }
    }
    if (lim > 0 && x > lim)
        x = lim;
    return x > 0 ? x : 1;
}

/* str appended to the snapshot's buffer: its offset (UINT32_MAX: NULL; a failure sets *oom). */
static uint32_t dup(struct berth__est_snap *s, const char *str, int *oom)
{
    if (!str)
        return UINT32_MAX;
    size_t len = strlen(str) + 1;
    if (s->nstr + len > UINT32_MAX || BERTH_GROW(s->str, s->str_cap, s->nstr + len)) {
        *oom = 1;
        return UINT32_MAX;
    }
    memcpy(s->str + s->nstr, str, len);
    s->nstr += len;
    return (uint32_t)(s->nstr - len);
}

static const char *str_at(const struct berth__est_snap *s, uint32_t off)
{
    return off == UINT32_MAX ? NULL : s->str + off;
}

static char *dup_heap(const char *str, int *oom)
{
    if (!str)
        return NULL;
    char *c = strdup(str);
    *oom |= !c;
    return c;
}

/* Copies the spec of one engine job (its strings too) into the snapshot; 0 or out of memory.
 * The trace's final status is no policy's input: it stays "". */
static int copy_spec(struct berth__est_snap *s, struct snap_job *sj, const struct berth_jobspec *sp)
{
    int oom = 0;
    const struct berth_jobspec_extra *x = berth_jobspec_extra(sp);
    sj->spec = *sp;
    sj->x = *x;
    sj->spec.extra = NULL; /* pointers are set once the buffers stop moving */
    sj->x.status = "";
    sj->str[S_ID] = dup(s, sp->id, &oom);
    sj->str[S_QUEUE] = dup(s, sp->queue, &oom);
    sj->str[S_TYPE] = dup(s, x->job_type, &oom);
    sj->str[S_USER] = dup(s, x->user, &oom);
    sj->str[S_GPU] = dup(s, x->gpu_type, &oom);
    return oom;
}

/* Points each copied spec at its extra and its strings (the arrays are final now). */
static void fix_pointers(struct berth__est_snap *s)
{
    for (size_t i = 0; i < s->n; i++) {
        struct snap_job *sj = &s->job[i];
        sj->spec.extra = &sj->x;
        sj->spec.id = str_at(s, sj->str[S_ID]);
        sj->spec.queue = str_at(s, sj->str[S_QUEUE]);
        sj->x.job_type = str_at(s, sj->str[S_TYPE]);
        sj->x.user = str_at(s, sj->str[S_USER]);
        sj->x.gpu_type = str_at(s, sj->str[S_GPU]);
    }
}

/* Empties a snapshot for the next take, keeping its arrays; NULL: a new one. */
static struct berth__est_snap *reuse(struct berth__est_snap *s)
{
    if (!s)
        return calloc(1, sizeof *s);
    berth_cluster_free(s->cluster);
    free(s->reserved);
    free(s->policy);
    free(s->placement);
    free(s->settings);
    s->cluster = NULL;
    s->reserved = NULL;
    s->policy = s->placement = s->settings = NULL;
    s->n = s->nslots = s->nstr = 0;
    return s;
}

int berth__est_snap_take(struct berth__daemon *d, berth_us now, struct berth__est_snap **io,
                         struct berth_err *err)
{
    berth_us t0 = berth__mono_us();
    struct berth__engine *le = d->engine;
    struct berth__est_snap *s = reuse(*io);
    *io = s;
    if (!s || (!s->hist && !(s->hist = malloc(HIST_SLOTS * sizeof *s->hist))))
        goto fail;
    int oom = 0;
    memset(s->hist, 0, HIST_SLOTS * sizeof *s->hist);
    s->cluster = berth__cluster_clone(d->cluster);
    s->policy = dup_heap(le->ops->name, &oom);
    s->placement = dup_heap(le->place.ops->name, &oom);
    s->params = le->params;
    s->settings = dup_heap(le->params.settings, &oom);
    s->params.settings = s->settings;
    s->tput = le->tput; /* made at create, freed at destroy: outlives every run */
    s->infer_demand = le->infer_demand;
    s->now = now;
    s->passes = le->passes;
    s->njobs = le->njobs;
    s->reserved = s->cluster ? calloc(s->cluster->nsrv + 1, 1) : NULL;
    if (oom || !s->reserved ||
        BERTH_GROW(s->job, s->cap, le->npending + le->nrunning ? le->npending + le->nrunning : 1))
        goto fail;
    for (size_t i = 0; i < s->cluster->nsrv && i < le->cluster->nsrv; i++)
        s->reserved[i] = le->cluster->srv[i].reserved != 0;
    read_history(d, s->hist);
    for (size_t i = 0; i < le->njobs; i++) {
        const struct berth__job *lj = &le->jobs[i];
        if (lj->state != BERTH_JOB_PENDING && lj->state != BERTH_JOB_RUNNING)
            continue;
        struct berth__ljob *j = berth__daemon_job(d, d->by_eidx[i]);
        if (!j)
            continue;
        if (BERTH_GROW(s->job, s->cap, s->n + 1))
            goto fail;
        struct snap_job *sj = &s->job[s->n++];
        memset(sj, 0, sizeof *sj);
        if (copy_spec(s, sj, lj->spec))
            goto fail;
        sj->id = j->id;
        sj->est_us = run_us_of(j, s->hist);
        sj->ran = berth__job_run_us(lj, now);
        sj->gpu_us = berth__job_gpu_us(lj, now);
        sj->queued_us = lj->queued_us;
        sj->preemptions = lj->preemptions;
        if (lj->state == BERTH_JOB_RUNNING) {
            int32_t ns = berth__job_nslots(lj);
            if (BERTH_GROW(s->slots, s->slots_cap, s->nslots + (size_t)ns))
                goto fail;
            memcpy(s->slots + s->nslots, lj->slots, (size_t)ns * sizeof *s->slots);
            sj->running = 1;
            sj->slot0 = s->nslots;
            sj->nslots = ns;
            sj->start_us = j->state == BERTH_L_RUNNING ? j->start_us : 0;
            s->nslots += (size_t)ns;
        }
    }
    fix_pointers(s);
    s->mono = berth__mono_us();
    s->snap_us = s->mono - t0;
    return 0;
fail:
    if (s)
        s->n = 0; /* never run half a copy */
    return berth_err_set(err, BERTH_ENOMEM, "estimate: out of memory (snapshot)");
}

void berth__est_snap_free(struct berth__est_snap *s)
{
    if (!s)
        return;
    reuse(s);
    free(s->job);
    free(s->slots);
    free(s->str);
    free(s->hist);
    free(s);
}

static int by_id(const void *a, const void *b)
{
    uint64_t x = ((const struct berth__est *)a)->id, y = ((const struct berth__est *)b)->id;
    return x < y ? -1 : x > y;
}

/* Puts the snapshot's jobs into the virtual engine, running ones adopted. */
static int load(struct berth__est_snap *s, struct run *r, struct berth_err *err)
{
    struct berth__engine *e = r->e;
    int rc = berth__engine_set_tput(e, s->tput, err);
    for (size_t i = 0; i < e->cluster->nsrv && !rc; i++)
        if (s->reserved[i])
            berth__cluster_reserve(e->cluster, (uint32_t)i);
    e->infer_demand = s->infer_demand;
    for (size_t i = 0; i < s->n && !rc; i++) {
        struct snap_job *sj = &s->job[i];
        uint32_t k;
        if ((rc = berth__engine_add(e, &sj->spec, &k, err)))
            break;
        struct berth__job *vj = &e->jobs[k];
        vj->est_us = sj->est_us;
        vj->work = (double)vj->est_us;
        vj->done = (double)(sj->ran < vj->est_us ? sj->ran : vj->est_us);
        vj->progress_at = s->now;
        if (sj->running) {
            rc = berth__engine_adopt(e, k, s->slots + sj->slot0, sj->nslots, s->now, err);
            vj->rate = 1.0; /* its end is set below, once the arrays exist */
        } else {
            rc = berth__engine_arrive(e, k, s->now, err);
        }
        vj->run_us = sj->ran;
        vj->gpu_us = sj->gpu_us;
        vj->queued_us = sj->queued_us;
        vj->preemptions = sj->preemptions;
    }
    return rc;
}

int berth__est_snap_run(struct berth__est_snap *s, berth_us budget_us,
                        struct berth__est_result **out, struct berth_err *err)
{
    berth_us t0 = berth__mono_us(), now = s->now;
    struct run r = {0};
    struct berth__engine_exec exec = {&r, v_start, v_stop, v_migrate};
    struct berth__params params = s->params;
    struct berth__est_result *res = calloc(1, sizeof *res);
    if (!res)
        return berth_err_set(err, BERTH_ENOMEM, "estimate: out of memory");
    int rc = berth__engine_create(s->cluster, s->policy, s->placement, &params, &exec, &r.e, err);
    if (rc) {
        free(res);
        return rc;
    }
    struct berth__engine *e = r.e;
    if ((rc = load(s, &r, err)))
        goto done;
    size_t n = e->njobs ? e->njobs : 1;
    r.ver = calloc(n, sizeof *r.ver);
    r.start = calloc(n, sizeof *r.start);
    r.end = calloc(n, sizeof *r.end);
    res->e = calloc(n, sizeof *res->e);
    if (!r.ver || !r.start || !r.end || !res->e)
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
    res->stop = BERTH_EST_DONE;
    for (;;) {
        if ((rc = berth__drive_step(&dr, e, t, NULL, err)))
            goto done;
        if (r.oom)
            goto oom;
        if (!e->npending)
            break;
        if (++passes > max_passes) {
            res->stop = BERTH_EST_PASSES;
            break;
        }
        if (berth__mono_us() - t0 >= budget_us) {
            res->stop = BERTH_EST_BUDGET;
            break;
        }
        while (r.nheap && r.heap[0].ver != r.ver[r.heap[0].job])
            heap_pop(&r);
        berth_us next = r.nheap ? r.heap[0].t : BERTH_TIME_NONE;
        if (dr.next != BERTH_TIME_NONE && (next == BERTH_TIME_NONE || dr.next < next))
            next = dr.next;
        if (next == BERTH_TIME_NONE)
            break;
        if (next - now > EST_HORIZON_US) {
            res->stop = BERTH_EST_HORIZON;
            break;
        }
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
    /* the results, by id (the virtual jobs are the snapshot's, in its order) */
    for (uint32_t k = 0; k < e->njobs; k++) {
        const struct snap_job *sj = &s->job[k];
        berth_us start = r.start[k];
        if (sj->running && sj->start_us) /* its own start */
            start = sj->start_us;
        res->e[k] = (struct berth__est){sj->id, start, r.end[k]};
        res->started += start != 0;
    }
    res->n = e->njobs;
    qsort(res->e, res->n, sizeof *res->e, by_id);
    res->vpasses = passes;
    goto done;
oom:
    rc = berth_err_set(err, BERTH_ENOMEM, "estimate: out of memory");
done:
    free(r.heap);
    free(r.ver);
    free(r.start);
    free(r.end);
    berth__engine_destroy(e);
    if (rc) {
        berth__est_result_free(res);
        return rc;
    }
    res->wall_us = s->now;
    res->mono_us = s->mono;
    res->passes = s->passes;
    res->njobs = s->njobs;
    res->snap_us = s->snap_us;
    res->budget_us = budget_us;
    res->run_us = berth__mono_us() - t0;
    *out = res;
    return 0;
}

void berth__est_result_free(struct berth__est_result *r)
{
    if (r) {
        free(r->e);
        free(r);
    }
}

const struct berth__est *berth__est_find(const struct berth__est_result *r, uint64_t id)
{
    struct berth__est key = {.id = id};
    return r && r->n ? bsearch(&key, r->e, r->n, sizeof *r->e, by_id) : NULL;
}

const char *berth__est_stop_name(int stop)
{
    switch (stop) {
    case BERTH_EST_BUDGET:
        return "budget";
    case BERTH_EST_PASSES:
        return "passes";
    case BERTH_EST_HORIZON:
        return "horizon";
    default:
        return "done";
    }
}
