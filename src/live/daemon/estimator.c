/* When the start-time estimate runs, and how requests read it, so that no request ever
 * waits on a virtual run while holding (or queued behind) the daemon lock. One thread of
 * its own runs the estimate (estimate.c): it takes the snapshot under d->mu (the only part
 * that holds it), runs it forward under no lock within --estimate-budget, and publishes the
 * result, which requests share by reference (the newest one stays until a newer replaces
 * it and its last reader lets go). A request that finds the published result older than
 * the live state asks for a run; it waits for it (without any lock, up to the budget and a
 * second) only when there is no result yet, or when it asked for a fresh one (berth queue
 * --start) and the throttle lets the run end within that; else it answers at once with
 * what is published, which says how old it is.
 *
 * The thread runs at most twice a second and never sooner than ten of its own costs after
 * the previous run started (so it takes a tenth of one core at most), and only when a
 * request asked and the live engine ran a pass or took a job since the last result. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live/daemon/core.h"
#include "live/daemon/estimate.h"
#include "live/daemon/estimator.h"
#include "solve/lp_alloc.h"

#define BERTH_EST_MIN_US (BERTH_US_PER_S / 2)
#define BERTH_EST_WAIT   BERTH_US_PER_S /* a request waits up to the budget and this */

struct berth__estimator {
    pthread_mutex_t mu;
    pthread_cond_t want_cv, done_cv; /* CLOCK_MONOTONIC */
    pthread_t thr;
    int stop, want;
    uint64_t begun, done;             /* runs the thread began and finished (skips too) */
    struct berth__est_result *cur;    /* the newest result (NULL: none yet) */
    int cur_refs;                     /* readers of cur, and 1 while it is published */
    struct berth__est_result *old;    /* results replaced while still read: freed at 0 refs */
    berth_us last_mono, last_cost_us; /* the previous run's start and cost */
    struct berth__est_stats st;
    struct berth__est_snap *snap; /* the thread's, reused from run to run */
};

/* A result's reader count lives beside it: cur's in cur_refs, a replaced one's in the
 * result itself (refs), so that readers never touch a freed result. */

static void wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, berth_us mono)
{
    struct timespec ts = {(time_t)(mono / BERTH_US_PER_S), (long)(mono % BERTH_US_PER_S) * 1000};
    pthread_cond_timedwait(cv, mu, &ts);
}

static void publish(struct berth__estimator *E, struct berth__est_result *r)
{
    if (E->cur) {
        if (--E->cur_refs == 0) {
            berth__est_result_free(E->cur);
        } else { /* readers hold it: it waits on the list of old ones */
            E->cur->refs = E->cur_refs;
            E->cur->next_old = E->old;
            E->old = E->cur;
        }
    }
    E->cur = r;
    E->cur_refs = 1;
}

/* When the thread may begin its next run (the throttle). Under E->mu. */
static berth_us next_run_at(const struct berth__estimator *E)
{
    berth_us gap =
        10 * E->last_cost_us > BERTH_EST_MIN_US ? 10 * E->last_cost_us : BERTH_EST_MIN_US;
    return E->last_mono ? E->last_mono + gap : 0;
}

/* Whether the published result was computed from the live state at this version (the
 * engine's passes and job count). Under E->mu. */
static int is_current(const struct berth__estimator *E, uint64_t passes, uint64_t njobs)
{
    return E->cur && E->cur->passes == passes && E->cur->njobs == njobs;
}

static void run_once(struct berth__daemon *d, struct berth__estimator *E)
{
    struct berth_err err = {0};
    struct berth__est_snap **snap = &E->snap; /* this thread's only, kept between runs */
    int rc = 0, skip;
    pthread_mutex_lock(&d->mu); /* d->mu before E->mu: never the other way */
    pthread_mutex_lock(&E->mu);
    skip = is_current(E, d->engine->passes, d->engine->njobs);
    pthread_mutex_unlock(&E->mu);
    if (!skip)
        rc = berth__est_snap_take(d, berth__wall_us(), snap, &err);
    pthread_mutex_unlock(&d->mu);
    struct berth__est_result *r = NULL;
    if (!skip && !rc)
        rc = berth__est_snap_run(*snap, d->o.est_budget_us, &r, &err);
    if (rc) {
        fprintf(d->log, "berthd: estimate: %s\n", err.msg);
        fflush(d->log);
    }
    pthread_mutex_lock(&E->mu);
    if (r) {
        struct berth__est_stats *st = &E->st;
        st->runs++;
        st->budget_stops += r->stop == BERTH_EST_BUDGET;
        st->last_us = r->run_us;
        st->max_us = r->run_us > st->max_us ? r->run_us : st->max_us;
        st->snap_last_us = r->snap_us;
        st->snap_max_us = r->snap_us > st->snap_max_us ? r->snap_us : st->snap_max_us;
        E->last_cost_us = r->snap_us + r->run_us;
        publish(E, r);
    }
    E->done++;
    pthread_cond_broadcast(&E->done_cv);
    pthread_mutex_unlock(&E->mu);
}

static void *loop(void *arg)
{
    struct berth__daemon *d = arg;
    struct berth__estimator *E = d->estr;
    pthread_mutex_lock(&E->mu);
    while (!E->stop) {
        if (!E->want) {
            pthread_cond_wait(&E->want_cv, &E->mu);
            continue;
        }
        berth_us now = berth__mono_us();
        if (now < next_run_at(E)) {
            wait_until(&E->want_cv, &E->mu, next_run_at(E));
            continue;
        }
        E->want = 0;
        E->begun++;
        E->last_mono = now;
        pthread_mutex_unlock(&E->mu);
        run_once(d, E);
        pthread_mutex_lock(&E->mu);
    }
    pthread_mutex_unlock(&E->mu);
    berth__lp_thread_done(); /* the policies' LPs ran on this thread */
    return NULL;
}

int berth__estimator_start(struct berth__daemon *d, struct berth_err *err)
{
    struct berth__estimator *E = calloc(1, sizeof *E);
    pthread_condattr_t ca;
    if (!E)
        return berth_err_set(err, BERTH_ENOMEM, "estimate: out of memory");
    pthread_mutex_init(&E->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&E->want_cv, &ca);
    pthread_cond_init(&E->done_cv, &ca);
    pthread_condattr_destroy(&ca);
    E->st.budget_us = d->o.est_budget_us;
    d->estr = E;
    int e = pthread_create(&E->thr, NULL, loop, d);
    if (e) {
        d->estr = NULL;
        pthread_cond_destroy(&E->want_cv);
        pthread_cond_destroy(&E->done_cv);
        pthread_mutex_destroy(&E->mu);
        free(E);
        return berth_err_set(err, BERTH_EIO, "estimate: cannot start its thread: %s", strerror(e));
    }
    return 0;
}

void berth__estimator_stop(struct berth__daemon *d)
{
    struct berth__estimator *E = d->estr;
    if (!E)
        return;
    pthread_mutex_lock(&E->mu);
    E->stop = 1;
    pthread_cond_broadcast(&E->want_cv);
    pthread_cond_broadcast(&E->done_cv);
    pthread_mutex_unlock(&E->mu);
    pthread_join(E->thr, NULL);
}

void berth__estimator_free(struct berth__daemon *d)
{
    struct berth__estimator *E = d->estr;
    if (!E)
        return;
    berth__est_result_free(E->cur); /* every reader is gone: the HTTP server stopped */
    berth__est_snap_free(E->snap);
    while (E->old) {
        struct berth__est_result *n = E->old->next_old;
        berth__est_result_free(E->old);
        E->old = n;
    }
    pthread_cond_destroy(&E->want_cv);
    pthread_cond_destroy(&E->done_cv);
    pthread_mutex_destroy(&E->mu);
    free(E);
    d->estr = NULL;
}

struct berth__est_result *berth__estimator_get(struct berth__daemon *d, int fresh)
{
    struct berth__estimator *E = d->estr;
    if (!E)
        return NULL;
    pthread_mutex_lock(&d->mu); /* the live state's version, read in a moment */
    uint64_t passes = d->engine->passes, njobs = d->engine->njobs;
    pthread_mutex_unlock(&d->mu);
    berth_us now = berth__mono_us(), deadline = now + d->o.est_budget_us + BERTH_EST_WAIT;
    pthread_mutex_lock(&E->mu);
    if (!E->stop && !is_current(E, passes, njobs)) {
        uint64_t target = E->begun + 1; /* a run begun after this request came */
        E->want = 1;
        pthread_cond_signal(&E->want_cv);
        /* wait when there is nothing to answer with, or when asked to and the throttle
         * lets the run begin soon enough to end before the deadline */
        int wait = fresh && (!E->cur || next_run_at(E) + d->o.est_budget_us < deadline);
        while (wait && !E->stop && E->done < target && berth__mono_us() < deadline)
            wait_until(&E->done_cv, &E->mu, deadline);
    }
    struct berth__est_result *r = E->cur;
    if (r)
        E->cur_refs++;
    pthread_mutex_unlock(&E->mu);
    return r;
}

void berth__estimator_put(struct berth__daemon *d, struct berth__est_result *r)
{
    struct berth__estimator *E = d->estr;
    if (!E || !r)
        return;
    pthread_mutex_lock(&E->mu);
    if (r == E->cur) {
        E->cur_refs--;
    } else if (--r->refs == 0) { /* an old one: off the list, freed */
        struct berth__est_result **p = &E->old;
        while (*p && *p != r)
            p = &(*p)->next_old;
        if (*p)
            *p = r->next_old;
        berth__est_result_free(r);
    }
    pthread_mutex_unlock(&E->mu);
}

void berth__estimator_stats(struct berth__daemon *d, struct berth__est_stats *out)
{
    struct berth__estimator *E = d->estr;
    *out = (struct berth__est_stats){.budget_us = d->o.est_budget_us};
    if (!E)
        return;
    pthread_mutex_lock(&E->mu);
    *out = E->st;
    pthread_mutex_unlock(&E->mu);
}
