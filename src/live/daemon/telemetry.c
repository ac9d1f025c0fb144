/* berthd's own measurements and its bounded history (see telemetry.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "live/daemon/core.h"
#include "live/daemon/telemetry.h"

/* pass latency: 50 µs to 10 s; queue wait: 1 s to a week */
static const double pass_le[] = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
                                 0.025,   0.05,   0.1,     0.25,   0.5,   1,      2.5,   10};
static const double wait_le[] = {1,    5,    15,   30,    60,    120,   300,    600,
                                 1800, 3600, 7200, 14400, 28800, 86400, 259200, 604800};

int berth__telemetry_init(struct berth__telemetry *t)
{
    memset(t, 0, sizeof *t);
    berth__hist_init(&t->pass, pass_le, sizeof pass_le / sizeof *pass_le);
    berth__hist_init(&t->wait, wait_le, sizeof wait_le / sizeof *wait_le);
    atomic_init(&t->submitted, 0);
    atomic_init(&t->last_tick_us, 0);
    t->ring = calloc(BERTH_TEL_SAMPLES, sizeof *t->ring);
    t->starts = calloc(BERTH_TEL_STARTS, sizeof *t->starts);
    return t->ring && t->starts ? 0 : -1;
}

void berth__telemetry_free(struct berth__telemetry *t)
{
    free(t->ring);
    free(t->starts);
    t->ring = NULL;
    t->starts = NULL;
}

/* Jain's index over users with jobs (running or waiting) of the GPUs their running jobs
 * hold: one pass over the loop's work list (the running jobs) and one over the users. */
enum { JAIN_USERS = 256 };
struct jain_ctx {
    const void *who[JAIN_USERS];
    double gpus[JAIN_USERS];
    int n;
};

static void add_waiting(void *ctx, struct berth__usage *u)
{
    struct jain_ctx *c = ctx;
    if (u->waiting <= 0)
        return;
    for (int k = 0; k < c->n; k++)
        if (c->who[k] == u)
            return;
    if (c->n < JAIN_USERS) {
        c->who[c->n] = u;
        c->gpus[c->n++] = 0;
    }
}

static float users_jain(struct berth__daemon *d)
{
    struct jain_ctx c;
    c.n = 0;
    for (size_t i = 0; i < d->nactive; i++) {
        const struct berth__ljob *j = berth__daemon_job(d, d->active[i]);
        if (!j || j->state != BERTH_L_RUNNING || !j->usage)
            continue;
        int k = 0;
        while (k < c.n && c.who[k] != j->usage)
            k++;
        if (k == c.n && c.n < JAIN_USERS) {
            c.who[c.n] = j->usage;
            c.gpus[c.n++] = 0;
        }
        if (k < c.n)
            c.gpus[k] += j->nslots;
    }
    berth__usage_each(d->usage, add_waiting, &c);
    double sum = 0, sq = 0;
    for (int k = 0; k < c.n; k++) {
        sum += c.gpus[k];
        sq += c.gpus[k] * c.gpus[k];
    }
    return c.n >= 2 && sq > 0 ? (float)(sum * sum / (c.n * sq)) : NAN;
}

static void sample(struct berth__daemon *d, berth_us now)
{
    struct berth__telemetry *t = &d->tel;
    struct berth__sample *s = &t->ring[(t->head + t->n) % BERTH_TEL_SAMPLES];
    if (t->n == BERTH_TEL_SAMPLES) {
        s = &t->ring[t->head];
        t->head = (t->head + 1) % BERTH_TEL_SAMPLES;
    } else {
        t->n++;
    }
    memset(s, 0, sizeof *s);
    s->t = now;
    const struct berth_cluster *c = d->engine->cluster;
    for (size_t v = 0; v < c->nsrv; v++) {
        const struct berth__server *sv = &c->srv[v];
        int type = sv->type < BERTH_TEL_TYPES ? (int)sv->type : -1;
        s->gpus += sv->ngpus;
        if (type >= 0)
            s->type_gpus[type] += sv->ngpus;
        if (sv->reserved) {
            s->reserved += sv->ngpus;
            continue;
        }
        int busy = sv->ngpus - sv->nfree;
        s->busy += busy;
        if (type >= 0)
            s->type_busy[type] += busy;
        for (int g = 0; g < sv->ngpus; g++)
            s->draining += d->drain[v * BERTH_MAX_SERVER_GPUS + (size_t)g] > 0;
    }
    for (int i = 0; d->tally.n && i <= d->tally.cap; i++) {
        s->pending += (int32_t)d->tally.n[i][BERTH_L_PENDING];
        s->held += (int32_t)d->tally.n[i][BERTH_L_HELD];
        s->running += (int32_t)d->tally.n[i][BERTH_L_RUNNING];
    }
    s->jain = users_jain(d);
}

void berth__telemetry_tick(struct berth__daemon *d, berth_us now)
{
    struct berth__telemetry *t = &d->tel;
    atomic_store_explicit(&t->last_tick_us, berth__mono_us(), memory_order_relaxed);
    if (now >= t->next_at) {
        sample(d, now);
        t->next_at = now + BERTH_TEL_EVERY_US;
    }
}

void berth__telemetry_started(struct berth__daemon *d, const struct berth__ljob *j, berth_us now)
{
    struct berth__telemetry *t = &d->tel;
    if (j->start_us) /* a restart: the wait was counted at the first start */
        return;
    berth_us wait = now - j->submit_us;
    berth__hist_observe_us(&t->wait, wait);
    struct berth__start_rec *r = &t->starts[(t->starts_head + t->nstarts) % BERTH_TEL_STARTS];
    if (t->nstarts == BERTH_TEL_STARTS) {
        r = &t->starts[t->starts_head];
        t->starts_head = (t->starts_head + 1) % BERTH_TEL_STARTS;
    } else {
        t->nstarts++;
    }
    r->t = now;
    r->wait_s = (float)((double)wait / 1e6);
}

int berth__telemetry_copy(const struct berth__telemetry *t, berth_us since, size_t max,
                          struct berth__sample **samples, size_t *n, float **waits, size_t *nwaits)
{
    *samples = NULL;
    *waits = NULL;
    *n = *nwaits = 0;
    size_t first = t->n; /* the first sample at or after since */
    for (size_t i = 0; i < t->n; i++)
        if (t->ring[(t->head + i) % BERTH_TEL_SAMPLES].t >= since) {
            first = i;
            break;
        }
    size_t have = t->n - first, take = have < max ? have : max;
    *samples = calloc(take + 1, sizeof **samples);
    *waits = calloc(t->nstarts + 1, sizeof **waits);
    if (!*samples || !*waits) {
        free(*samples);
        free(*waits);
        *samples = NULL;
        *waits = NULL;
        return -1;
    }
    for (size_t k = 0; k < take; k++) { /* evenly picked, the newest always in */
        size_t i =
            first + (take > 1 ? (size_t)((double)k * (double)(have - 1) / (double)(take - 1) + 0.5)
                              : have - 1);
        (*samples)[k] = t->ring[(t->head + i) % BERTH_TEL_SAMPLES];
    }
    *n = take;
    for (size_t i = 0; i < t->nstarts; i++) {
        const struct berth__start_rec *r = &t->starts[(t->starts_head + i) % BERTH_TEL_STARTS];
        if (r->t >= since)
            (*waits)[(*nwaits)++] = r->wait_s;
    }
    return 0;
}

static void hook_started(struct berth__daemon *d, void *self, const struct berth__ljob *j,
                         berth_us now)
{
    (void)self;
    berth__telemetry_started(d, j, now);
}

static const struct berth__daemon_hooks hooks = {.name = "telemetry", .started = hook_started};

int berth__telemetry_attach(struct berth__daemon *d, struct berth_err *err)
{
    return berth__daemon_hook(d, &hooks, &d->tel, err);
}
