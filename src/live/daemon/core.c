/* The daemon core's job table (see core.h): lookups, the journal write of a job's record,
 * entering the engine (past the subsystems' gates and the user's GPU limit) and leaving it,
 * and the registry of the subsystems' hooks with the points the core calls them at. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/json_load.h"
#include "live/daemon/core.h"
#include "model/cluster.h"
#include "model/tput.h"
#include "util/mem.h"

berth_us berth__wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (berth_us)ts.tv_sec * BERTH_US_PER_S + ts.tv_nsec / 1000;
}

berth_us berth__mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (berth_us)ts.tv_sec * BERTH_US_PER_S + ts.tv_nsec / 1000;
}

struct berth__ljob *berth__daemon_job(struct berth__daemon *d, uint64_t id)
{
    return id >= 1 && id <= d->njobs ? d->jobs[id - 1] : NULL;
}

struct berth__job *berth__daemon_ejob(struct berth__daemon *d, struct berth__ljob *j)
{
    return j->in_engine ? &d->engine->jobs[j->eidx] : NULL;
}

/* The names of the servers of n slots, which recovery maps back to indices (the inventory
 * may differ after a restart: Slurm nodes added or removed). */
static json_t *slot_names(const struct berth_cluster *c, const struct berth__slot *s, int32_t n)
{
    json_t *a = json_array();
    for (int32_t i = 0; a && i < n; i++)
        if (json_array_append_new(
                a, json_string(s[i].server < c->nsrv ? c->srv[s[i].server].name : ""))) {
            json_decref(a);
            return NULL;
        }
    return a;
}

int berth__daemon_save(struct berth__daemon *d, struct berth__ljob *j, int wait,
                       struct berth_err *err)
{
    json_t *o = berth__ljob_json(j, 1);
    if (o && (json_object_set_new(o, "slot_nodes",
                                  slot_names(d->engine->cluster, j->slots, j->nslots)) ||
              json_object_set_new(o, "pslot_nodes",
                                  slot_names(d->engine->cluster, j->pslots, j->npslots)))) {
        json_decref(o);
        o = NULL;
    }
    char *doc = o ? berth__json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (!doc)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    int rc = berth__journal_put(d->jn, j->id, doc, wait, err);
    free(doc);
    return rc;
}

/* The GPUs a job counts against its user's max_gpus: the most it may hold. */
static int64_t limit_gpus(const struct berth__ljob *j)
{
    return j->spec.max_gpus > j->spec.num_gpus ? j->spec.max_gpus : j->spec.num_gpus;
}

/* 1 when j must wait outside the scheduler for its user's GPU limit. */
static int over_gpu_limit(struct berth__daemon *d, const struct berth__ljob *j)
{
    struct berth__limit_set lim;
    berth__limits_for(&d->o.limits, j->user, &lim);
    return j->usage && lim.max_gpus > 0 && j->usage->sched_gpus + limit_gpus(j) > lim.max_gpus;
}

static int engine_add(struct berth__daemon *d, struct berth__ljob *j, berth_us now,
                      struct berth_err *err)
{
    uint32_t idx;
    int rc = berth__engine_add(d->engine, &j->spec, &idx, err);
    if (rc)
        return rc;
    if (BERTH_GROW(d->by_eidx, d->by_eidx_cap, (size_t)idx + 1))
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    d->by_eidx[idx] = (uint32_t)j->id;
    j->eidx = idx;
    j->in_engine = 1;
    j->held_back = 0;
    if (j->usage && !j->sched_counted) {
        j->usage->sched_gpus += limit_gpus(j);
        j->sched_counted = 1;
    }
    struct berth__job *ej = &d->engine->jobs[idx];
    ej->run_us = j->ran_us; /* what its attempts ran before (backfill reserves by the rest) */
    if (j->spec.total_steps > 0) { /* work in steps, as reports give it */
        ej->work = (double)j->spec.total_steps;
        ej->done = (double)(j->step < j->spec.total_steps ? j->step : j->spec.total_steps);
    }
    ej->progress_at = now;
    if (d->tput && berth_jobspec_extra(&j->spec)
                       ->job_type[0]) /* a type the model knows: policies see its rates */
        ej->cls = berth__tput_class_find(d->tput, berth_jobspec_extra(&j->spec)->job_type);
    if (j->state == BERTH_L_RUNNING) /* adoption: the caller places it */
        return 0;
    if ((rc = berth__engine_arrive(d->engine, idx, now, err)))
        return rc;
    berth__drive_touch(&d->drive);
    return 0;
}

int berth__daemon_hook(struct berth__daemon *d, const struct berth__daemon_hooks *h, void *self,
                       struct berth_err *err)
{
    if (d->nsub >= BERTH_DAEMON_SUBS)
        return berth_err_set(err, BERTH_EINPUT, "%s: too many daemon subsystems (at most %d)",
                             h->name, BERTH_DAEMON_SUBS);
    d->sub[d->nsub++] = (struct berth__daemon_sub){h, self};
    return 0;
}

/* Every subsystem's hook NAME, called with ARGS after d and self. */
#define EACH(NAME, ...)                                                                            \
    for (int s_ = 0; s_ < d->nsub; s_++)                                                           \
        if (d->sub[s_].h->NAME)                                                                    \
    d->sub[s_].h->NAME(d, d->sub[s_].self, __VA_ARGS__)

int berth__daemon_joined(struct berth__daemon *d, struct berth__ljob *j)
{
    int rc = 0;
    for (int s = 0; s < d->nsub; s++)
        if (d->sub[s].h->joined && d->sub[s].h->joined(d, d->sub[s].self, j))
            rc = -1;
    return rc;
}

void berth__daemon_moved(struct berth__daemon *d, struct berth__ljob *j)
{
    EACH(moved, j);
}

void berth__daemon_started(struct berth__daemon *d, const struct berth__ljob *j, berth_us now)
{
    EACH(started, j, now);
}

void berth__daemon_owned_ended(struct berth__daemon *d, struct berth__ljob *j, const char *how,
                               berth_us ran, berth_us now)
{
    EACH(owned_ended, j, how, ran, now);
}

int berth__daemon_subs_tick(struct berth__daemon *d, berth_us now, struct berth_err *err)
{
    int rc = 0;
    for (int s = 0; !rc && s < d->nsub; s++)
        if (d->sub[s].h->tick)
            rc = d->sub[s].h->tick(d, d->sub[s].self, now, err);
    return rc;
}

const char *berth__daemon_sub_reason(struct berth__daemon *d, struct berth__ljob *j, char *buf,
                                     size_t len)
{
    for (int s = 0; s < d->nsub; s++) {
        const char *r =
            d->sub[s].h->reason ? d->sub[s].h->reason(d, d->sub[s].self, j, buf, len) : NULL;
        if (r)
            return r;
    }
    return NULL;
}

int berth__daemon_subs_busy(struct berth__daemon *d)
{
    for (int s = 0; s < d->nsub; s++)
        if (d->sub[s].h->busy && d->sub[s].h->busy(d, d->sub[s].self))
            return 1;
    return 0;
}

int berth__daemon_subs_keep(struct berth__daemon *d, const struct berth__ljob *j)
{
    for (int s = 0; s < d->nsub; s++)
        if (d->sub[s].h->keeps && d->sub[s].h->keeps(d, d->sub[s].self, j))
            return 1;
    return 0;
}

int berth__daemon_subs_load(struct berth__daemon *d, struct berth_err *err)
{
    int rc = 0;
    for (int s = 0; !rc && s < d->nsub; s++)
        if (d->sub[s].h->load)
            rc = d->sub[s].h->load(d, d->sub[s].self, err);
    return rc;
}

int berth__daemon_subs_recover_job(struct berth__daemon *d, struct berth__ljob *j, berth_us now,
                                   struct berth_err *err)
{
    int rc = 0;
    for (int s = 0; !rc && s < d->nsub; s++)
        if (d->sub[s].h->recover_job)
            rc = d->sub[s].h->recover_job(d, d->sub[s].self, j, now, err);
    return rc;
}

void berth__daemon_subs_recovered(struct berth__daemon *d, berth_us now)
{
    EACH(recovered, now);
}

void berth__daemon_subs_free(struct berth__daemon *d)
{
    for (int s = 0; s < d->nsub; s++)
        if (d->sub[s].h->free)
            d->sub[s].h->free(d->sub[s].self);
    d->nsub = 0;
}

/* 1 when a subsystem keeps j outside the scheduler now (its dependencies, its array). */
static int gated(struct berth__daemon *d, struct berth__ljob *j, berth_us now)
{
    for (int s = 0; s < d->nsub; s++)
        if (d->sub[s].h->gate && d->sub[s].h->gate(d, d->sub[s].self, j, now))
            return 1;
    return 0;
}

int berth__daemon_enqueue(struct berth__daemon *d, struct berth__ljob *j, berth_us now,
                          struct berth_err *err)
{
    if (j->state != BERTH_L_RUNNING && gated(d, j, now))
        return 0; /* its dependencies or its array's throttle: it waits outside */
    if (j->state != BERTH_L_RUNNING && over_gpu_limit(d, j)) {
        struct berth__usage *u = j->usage;
        if (BERTH_GROW(u->held_back, u->held_cap, u->nheld + 1))
            return berth_err_set(err, BERTH_ENOMEM, "out of memory");
        u->held_back[u->nheld++] = (uint32_t)j->id;
        j->held_back = 1;
        return 0;
    }
    return engine_add(d, j, now, err);
}

void berth__daemon_unhold_back(struct berth__daemon *d, struct berth__ljob *j)
{
    (void)d;
    j->held_back = 0; /* its entry in the user's list is skipped when reached */
}

/* The user's jobs held back by the GPU limit enter the scheduler while they fit, in order. */
static void admit_held(struct berth__daemon *d, struct berth__usage *u, berth_us now)
{
    while (u->held_head < u->nheld) { /* the user's held-back jobs, in submission order */
        struct berth__ljob *h = berth__daemon_job(d, u->held_back[u->held_head]);
        if (h && h->held_back && h->state == BERTH_L_PENDING) {
            if (over_gpu_limit(d, h))
                break;
            struct berth_err e = {0};
            if (engine_add(d, h, now, &e)) {
                fprintf(d->log, "berthd: job %s: %s\n", h->idstr, e.msg);
                break;
            }
        }
        u->held_head++;
    }
    if (u->held_head == u->nheld)
        u->held_head = u->nheld = 0;
}

void berth__daemon_left_sched(struct berth__daemon *d, struct berth__ljob *j, berth_us now)
{
    if (j->array_id) /* a task left: another of its array may enter */
        berth__daemon_moved(d, j);
    struct berth__usage *u = j->usage;
    if (!u || !j->sched_counted)
        return;
    j->sched_counted = 0;
    u->sched_gpus -= limit_gpus(j);
    admit_held(d, u, now);
}

static void admit_held_cb(void *ctx, struct berth__usage *u)
{
    struct berth__daemon *d = ctx;
    admit_held(d, u, berth__wall_us());
}

void berth__daemon_limits_changed(struct berth__daemon *d)
{
    berth__usage_each(d->usage, admit_held_cb, d);
}
