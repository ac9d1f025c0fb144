/* What a job waits for outside the scheduler before it may enter it: its dependencies
 * (after, afterok, afternotok, afterany: sbatch's --dependency) and its array's throttle
 * (--array 0-99%8: at most 8 tasks in the scheduler at once). Event-driven: a job that
 * starts or ends, or a task that leaves the scheduler, is "moved"; the next tick looks at
 * the jobs that depend on it (a reverse index kept in memory, rebuilt at recovery) and at
 * its array's waiting tasks, never at every job. A dependency that can never be met (afterok
 * on a job that failed) ends its job failed, naming it; its own dependents follow. */
#include <stdlib.h>
#include <string.h>

#include "live/daemon/deps.h"
#include "util/mem.h"

/* The subsystem's own state: the jobs that started or ended since the last tick, whose
 * dependents (or array's waiting tasks) the next tick looks at. */
struct berth__deps {
    uint64_t *moved;
    size_t nmoved, moved_cap;
    int moved_all; /* a moved job could not be listed: look at every waiting job */
};

/* The jobs a dependency on id stands for: the job, or every task of the array whose first
 * task it is. */
static void span_of(struct berth__daemon *d, uint64_t id, uint64_t *first, uint64_t *last)
{
    struct berth__ljob *t = berth__daemon_job(d, id);
    *first = *last = id;
    if (t && t->array_id == id && t->array_n > 1)
        *last = id + t->array_n - 1;
}

/* 0 every dependency of j is met, 1 one is not yet, 2 one never can be (why, when not NULL,
 * says which, either way). */
static int deps_state(struct berth__daemon *d, const struct berth__ljob *j, char *why, size_t len)
{
    int wait = 0;
    for (size_t i = 0; i < j->ndeps; i++) {
        const struct berth__ldep *dp = &j->deps[i];
        uint64_t a, b;
        span_of(d, dp->job, &a, &b);
        size_t ended = 0, ok = 0, started = 0, n = 0;
        const struct berth__ljob *bad = NULL;
        for (uint64_t k = a; k <= b; k++) {
            const struct berth__ljob *t = berth__daemon_job(d, k);
            if (!t)
                continue;
            n++;
            int fin = berth__lstate_final(t->state);
            ended += fin;
            ok += t->state == BERTH_L_COMPLETED;
            started += fin || t->start_us > 0;
            if (fin && t->state != BERTH_L_COMPLETED && !bad)
                bad = t;
        }
        int met = 0, never = 0;
        switch (dp->type) {
        case BERTH_DEP_AFTER:
            met = started == n;
            break;
        case BERTH_DEP_OK:
            met = ok == n;
            never = bad != NULL;
            break;
        case BERTH_DEP_NOTOK:
            met = ended == n && ok < n;
            never = ok == n;
            break;
        default:
            met = ended == n;
        }
        if (never) {
            if (why) {
                const struct berth__ljob *t =
                    dp->type == BERTH_DEP_OK ? bad : berth__daemon_job(d, dp->job);
                snprintf(why, len, "%s:%llu can never be met: job %s ended %s",
                         berth__dep_name(dp->type), (unsigned long long)dp->job, t ? t->idstr : "?",
                         t ? berth__lstate_name(t->state) : "?");
            }
            return 2;
        }
        if (!met && !wait) {
            wait = 1;
            if (why)
                snprintf(why, len, "%s:%llu (job %llu is %s)", berth__dep_name(dp->type),
                         (unsigned long long)dp->job, (unsigned long long)dp->job,
                         berth__daemon_job(d, dp->job)
                             ? berth__lstate_name(berth__daemon_job(d, dp->job)->state)
                             : "unknown");
        }
    }
    return wait;
}

/* The tasks of j's array inside the scheduler now. */
static uint32_t array_inside(struct berth__daemon *d, const struct berth__ljob *j)
{
    uint32_t in = 0;
    for (uint64_t k = j->array_id; k < j->array_id + j->array_n; k++) {
        const struct berth__ljob *t = berth__daemon_job(d, k);
        in += t && t != j && t->in_engine &&
              (t->state == BERTH_L_PENDING || t->state == BERTH_L_RUNNING);
    }
    return in;
}

/* j's array has its throttle's tasks in the scheduler. */
static int array_full(struct berth__daemon *d, const struct berth__ljob *j)
{
    return j->array_id && j->array_max && array_inside(d, j) >= j->array_max;
}

/* j joins the reverse index of the jobs it depends on (hook joined); out of memory, every
 * waiting job is looked at again at the next tick. */
static int deps_link(struct berth__daemon *d, void *self, struct berth__ljob *j)
{
    struct berth__deps *s = self;
    for (size_t i = 0; i < j->ndeps; i++) {
        struct berth__ljob *t = berth__daemon_job(d, j->deps[i].job);
        if (!t)
            continue;
        if (t->nrdeps && t->rdeps[t->nrdeps - 1] == j->id)
            continue; /* two dependencies on one job: linked once */
        if (BERTH_GROW(t->rdeps, t->rdcap, t->nrdeps + 1)) {
            s->moved_all = 1;
            return BERTH_ENOMEM;
        }
        t->rdeps[t->nrdeps++] = j->id;
    }
    return 0;
}

/* j started or ended (hook moved): its dependents look again at the next tick. */
static void moved(struct berth__daemon *d, void *self, struct berth__ljob *j)
{
    struct berth__deps *s = self;
    (void)d;
    if (!j->nrdeps && !j->array_id)
        return; /* nobody waits on it */
    if (!BERTH_GROW(s->moved, s->moved_cap, s->nmoved + 1))
        s->moved[s->nmoved++] = j->id;
    else /* out of memory: every waiting job is looked at again at the next tick */
        s->moved_all = 1;
}

/* Ends j (waiting on a dependency that can never be met) failed; its dependents follow. */
static void never(struct berth__daemon *d, struct berth__ljob *j, const char *why, berth_us now)
{
    j->dep_wait = 0;
    j->end_us = now;
    berth__ljob_note(j, now, BERTH_L_FAILED, "dependency never satisfied: %s", why);
    berth__daemon_save(d, j, 0, NULL);
    berth__daemon_moved(d, j);
}

/* Looks again at j, which waits outside the scheduler: it enters, ends, or waits on. */
static int retry(struct berth__daemon *d, struct berth__ljob *j, berth_us now,
                 struct berth_err *err)
{
    if (j->state != BERTH_L_PENDING || j->in_engine || j->then == BERTH_THEN_CANCEL ||
        !(j->dep_wait || j->array_wait))
        return 0;
    return berth__daemon_enqueue(d, j, now, err);
}

/* Each tick (hook tick): dependencies met, array tasks let in. */
static int moved_apply(struct berth__daemon *d, void *self, berth_us now, struct berth_err *err)
{
    struct berth__deps *s = self;
    int rc = 0;
    if (!s->nmoved && !s->moved_all)
        return 0;
    if (s->moved_all) { /* every job that waits outside: after a failed allocation */
        s->moved_all = 0;
        s->nmoved = 0;
        for (size_t i = 0; !rc && i < d->njobs; i++)
            if (d->jobs[i])
                rc = retry(d, d->jobs[i], now, err);
        return rc;
    }
    /* what moved may move more (a failed dependency fails its dependents): a queue */
    for (size_t m = 0; !rc && m < s->nmoved; m++) {
        struct berth__ljob *x = berth__daemon_job(d, s->moved[m]);
        if (!x)
            continue;
        for (size_t i = 0; !rc && i < x->nrdeps; i++) {
            struct berth__ljob *j = berth__daemon_job(d, x->rdeps[i]);
            if (j)
                rc = retry(d, j, now, err);
        }
        if (x->array_id) { /* its array's first task stands for the array: its dependents */
            struct berth__ljob *head = berth__daemon_job(d, x->array_id);
            for (size_t i = 0; !rc && head && head != x && i < head->nrdeps; i++) {
                struct berth__ljob *j = berth__daemon_job(d, head->rdeps[i]);
                if (j)
                    rc = retry(d, j, now, err);
            }
            /* and its waiting tasks, in index order, while the throttle allows */
            for (uint64_t k = x->array_id; !rc && k < x->array_id + x->array_n; k++) {
                struct berth__ljob *t = berth__daemon_job(d, k);
                if (t && t->array_wait)
                    rc = retry(d, t, now, err);
            }
        }
    }
    s->nmoved = 0;
    return rc;
}

/* Hook gate: 1 when j must wait outside the scheduler now (or has just ended: a dependency
 * that can never be met), with its dep_wait / array_wait set; 0 when it may enter. */
static int gate(struct berth__daemon *d, void *self, struct berth__ljob *j, berth_us now)
{
    (void)self;
    char why[256];
    if (j->ndeps) {
        int st = deps_state(d, j, why, sizeof why);
        if (st == 2) {
            never(d, j, why, now);
            return 1;
        }
        j->dep_wait = (uint8_t)st;
        if (st)
            return 1;
    }
    j->array_wait = (uint8_t)array_full(d, j);
    return j->array_wait;
}

/* Why j, outside the scheduler, waits for its dependencies or its array's throttle. */
static const char *reason(struct berth__daemon *d, void *self, struct berth__ljob *j, char *buf,
                          size_t len)
{
    (void)self;
    if (j->dep_wait) {
        char what[200];
        deps_state(d, j, what, sizeof what);
        snprintf(buf, len,
                 "Dependency: it waits for %s; it enters the queue once its "
                 "dependencies are met",
                 what);
        return "Dependency";
    }
    if (j->array_wait) {
        snprintf(buf, len,
                 "JobArrayTaskLimit: %u tasks of array %llu are in the scheduler, its throttle "
                 "(%%%u); it enters as they end",
                 j->array_max, (unsigned long long)j->array_id, j->array_max);
        return "JobArrayTaskLimit";
    }
    return NULL;
}

/* Moved jobs not yet looked at may need the ended jobs they depend on: no purge now. */
static int busy(struct berth__daemon *d, void *self)
{
    const struct berth__deps *s = self;
    (void)d;
    return s->nmoved || s->moved_all;
}

/* A job that still waits on ended job j keeps it in memory. */
static int keeps(struct berth__daemon *d, void *self, const struct berth__ljob *j)
{
    (void)self;
    for (size_t i = 0; i < j->nrdeps; i++) {
        const struct berth__ljob *w = berth__daemon_job(d, j->rdeps[i]);
        if (w && !berth__lstate_final(w->state))
            return 1;
    }
    return 0;
}

static void deps_free(void *self)
{
    struct berth__deps *s = self;
    if (s)
        free(s->moved);
    free(s);
}

static const struct berth__daemon_hooks hooks = {
    .name = "dependencies",
    .joined = deps_link,
    .moved = moved,
    .gate = gate,
    .reason = reason,
    .tick = moved_apply,
    .busy = busy,
    .keeps = keeps,
    .free = deps_free,
};

int berth__deps_attach(struct berth__daemon *d, struct berth_err *err)
{
    struct berth__deps *s = calloc(1, sizeof *s);
    if (!s)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    int rc = berth__daemon_hook(d, &hooks, s, err);
    if (rc)
        free(s);
    return rc;
}
