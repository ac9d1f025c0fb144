/* The simulator: the engine driven by a virtual clock and a modelled executor.
 *
 * Pure discrete-event. Events are arrivals (the trace, sorted by arrival then file order),
 * completions (a heap indexed by job; a preempted job's completion leaves it at once) and the
 * policy's own timer (las' quantum). All events at one instant are applied — completions first,
 * then arrivals — and then one scheduling pass runs. The modelled executor runs a job at fixed
 * speed: it completes after duration minus the time it already ran. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "metrics.h"
#include "model/cluster_int.h"

struct ev {
    berth_us t;
    uint32_t job;
};

/* Completion events live in a heap indexed by job, so a preempted job's event is removed
 * at once and the heap never holds more than the running jobs. */
struct sim {
    struct berth_engine *e;
    struct ev *heap;
    size_t n, cap;
    uint32_t *pos; /* per job: index in heap, or NOT_QUEUED */
    int oom;
};

#define NOT_QUEUED UINT32_MAX

static int ev_less(const struct ev *a, const struct ev *b)
{
    return a->t < b->t || (a->t == b->t && a->job < b->job);
}

static void ev_set(struct sim *s, size_t i, struct ev e)
{
    s->heap[i] = e;
    s->pos[e.job] = (uint32_t)i;
}

static void ev_up(struct sim *s, size_t i)
{
    struct ev e = s->heap[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!ev_less(&e, &s->heap[p]))
            break;
        ev_set(s, i, s->heap[p]);
        i = p;
    }
    ev_set(s, i, e);
}

static void ev_down(struct sim *s, size_t i)
{
    struct ev e = s->heap[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->n)
            break;
        if (c + 1 < s->n && ev_less(&s->heap[c + 1], &s->heap[c]))
            c++;
        if (!ev_less(&s->heap[c], &e))
            break;
        ev_set(s, i, s->heap[c]);
        i = c;
    }
    ev_set(s, i, e);
}

static void ev_push(struct sim *s, struct ev e)
{
    if (BERTH_GROW(s->heap, s->cap, s->n + 1)) {
        s->oom = 1;
        return;
    }
    ev_set(s, s->n++, e);
    ev_up(s, s->n - 1);
}

static void ev_remove(struct sim *s, uint32_t job)
{
    size_t i = s->pos[job];
    if (i == NOT_QUEUED)
        return;
    s->pos[job] = NOT_QUEUED;
    struct ev last = s->heap[--s->n];
    if (i < s->n) {
        ev_set(s, i, last);
        ev_up(s, i);
        ev_down(s, s->pos[last.job]);
    }
}

static void on_start(void *ctx, struct berth_job *j, berth_us now)
{
    struct sim *s = ctx;
    ev_push(s, (struct ev){now + berth__job_remaining_us(j, now), j->idx});
}

static void on_stop(void *ctx, struct berth_job *j, berth_us now)
{
    (void)now;
    ev_remove(ctx, j->idx);
}

void berth_sim_opts_init(struct berth_sim_opts *o)
{
    memset(o, 0, sizeof *o);
    o->policy = "fifo";
    o->seed = 1;
    o->quantum_us = 60 * BERTH_US_PER_S;
}

struct order {
    berth_us t;
    uint32_t i;
};

static int cmp_order(const void *a, const void *b)
{
    const struct order *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int record(struct berth_sim_result *r, size_t *cap, berth_us t, const struct berth_engine *e)
{
    struct berth_series_row row = {t, berth__engine_busy_gpus(e), (int32_t)e->nrunning,
                                   (int32_t)e->npending};
    if (r->nseries) {
        const struct berth_series_row *last = &r->series[r->nseries - 1];
        if (last->busy_gpus == row.busy_gpus && last->running == row.running &&
            last->pending == row.pending)
            return 0;
    }
    if (BERTH_GROW(r->series, *cap, r->nseries + 1))
        return -1;
    r->series[r->nseries++] = row;
    return 0;
}

int berth_sim_run(const struct berth_trace *t, const struct berth_cluster *c,
                  const struct berth_sim_opts *o, struct berth_sim_result *out,
                  struct berth_err *err)
{
    double wall0 = wall_now();
    memset(out, 0, sizeof *out);
    int rc = berth_trace_check(t, c, err);
    if (rc)
        return rc;
    size_t n = berth_trace_count(t);
    const struct berth_jobspec *specs = berth_trace_jobs(t);
    struct sim s = {0};
    struct order *ord = malloc((n ? n : 1) * sizeof *ord);
    s.pos = malloc((n ? n : 1) * sizeof *s.pos);
    out->jobs = calloc(n ? n : 1, sizeof *out->jobs);
    if (!ord || !s.pos || !out->jobs) {
        rc = berth_err_set(err, BERTH_ENOMEM, "sim: out of memory");
        goto done;
    }
    struct berth_params params = {.seed = o->seed, .quantum_us = o->quantum_us};
    struct berth_exec exec = {&s, on_start, on_stop, NULL};
    if ((rc = berth__engine_create(c, o->policy, o->placement, &params, &exec, &s.e, err)))
        goto done;
    s.e->check = o->check_invariants;
    snprintf(out->policy, sizeof out->policy, "%s", s.e->ops->name);
    snprintf(out->placement, sizeof out->placement, "%s",
             berth_placement_name((size_t)s.e->params.placement));
    for (size_t i = 0; i < n; i++) {
        ord[i] = (struct order){specs[i].arrival_us, (uint32_t)i};
        s.pos[i] = NOT_QUEUED;
    }
    qsort(ord, n, sizeof *ord, cmp_order);
    for (size_t i = 0; i < n; i++) {
        uint32_t idx;
        if ((rc = berth__engine_add(s.e, &specs[ord[i].i], &idx, err)))
            goto done;
    }

    size_t next = 0, series_cap = 0;
    berth_us now = n ? specs[ord[0].i].arrival_us : 0, tick = BERTH_TIME_NONE;
    double busy_integral = 0;
    uint64_t events = 0;
    for (;;) {
        berth_us tnext = BERTH_TIME_NONE;
        if (next < n)
            tnext = s.e->jobs[next].spec->arrival_us;
        if (s.n && (tnext == BERTH_TIME_NONE || s.heap[0].t < tnext))
            tnext = s.heap[0].t;
        if (tick != BERTH_TIME_NONE && (tnext == BERTH_TIME_NONE || tick < tnext))
            tnext = tick;
        if (tnext == BERTH_TIME_NONE)
            break;
        busy_integral +=
            (double)berth__cluster_busy_milli(s.e->cluster) / 1000.0 * (double)(tnext - now);
        now = tnext;
        while (s.n && s.heap[0].t == now) {
            struct ev ev = s.heap[0];
            ev_remove(&s, ev.job);
            events++;
            if ((rc = berth__engine_finish(s.e, ev.job, now, err)))
                goto done;
        }
        while (next < n && s.e->jobs[next].spec->arrival_us == now) {
            events++;
            if ((rc = berth__engine_arrive(s.e, (uint32_t)next++, now, err)))
                goto done;
        }
        events += tick == now;
        if ((rc = berth__engine_pass(s.e, now, err)))
            goto done;
        if (s.oom) {
            rc = berth_err_set(err, BERTH_ENOMEM, "sim: out of memory");
            goto done;
        }
        tick = berth__engine_next_pass(s.e, now);
        if (o->record_series && record(out, &series_cap, now, s.e)) {
            rc = berth_err_set(err, BERTH_ENOMEM, "sim: out of memory");
            goto done;
        }
    }
    if (s.e->ndone != n) {
        rc = berth_err_set(err, BERTH_EINTERNAL,
                           "sim: stalled at t=%lld us with %zu of %zu jobs done (%zu pending)",
                           (long long)now, s.e->ndone, n, s.e->npending);
        goto done;
    }
    out->njobs = n;
    for (size_t i = 0; i < n; i++) {
        const struct berth_job *j = &s.e->jobs[i];
        out->jobs[i] = (struct berth_job_result){
            j->spec, j->first_start, j->finish, j->run_us, j->preemptions, j->type, j->servers};
    }
    if (berth__summarise(out, busy_integral, berth_cluster_gpus(c))) {
        rc = berth_err_set(err, BERTH_ENOMEM, "sim: out of memory");
        goto done;
    }
    out->summary.preemptions = s.e->preemptions;
    out->summary.migrations = s.e->migrations;
    out->summary.passes = s.e->passes;
    out->summary.events = events;
done:
    berth__engine_destroy(s.e);
    free(s.heap);
    free(s.pos);
    free(ord);
    if (rc)
        berth_sim_result_free(out);
    else
        out->summary.wall_s = wall_now() - wall0;
    return rc;
}

void berth_sim_result_free(struct berth_sim_result *r)
{
    free(r->jobs);
    free(r->series);
    r->jobs = NULL;
    r->series = NULL;
    r->njobs = r->nseries = 0;
}
