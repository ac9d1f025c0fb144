/* The thread that scrapes the services' replicas for their load (scrape.h does one scrape),
 * started and stopped with the daemon; what a scrape says reaches the service's autoscaler. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "live/daemon/core.h"
#include "live/daemon/infer.h"
#include "live/daemon/listener.h"
#include "live/daemon/service_int.h"
#include "util/name.h"
#include "model/cluster.h"

struct target {
    uint64_t svc, job;
    int attempt, port, replica;
    char path[BERTH_SCRAPE_PATH_MAX + 1], metric[BERTH_SCRAPE_METRIC_MAX + 1];
    int ok, refused;
    double load;
    char why[160];
};

struct replica_of {
    struct berth__daemon *d;
    const struct target *t;
};

static int replica_pids(void *ctx, pid_t *out, size_t max)
{
    const struct replica_of *r = ctx;
    const struct berth__executor *x = r->d->xo;
    return x->pids ? x->pids(r->d->xs, r->t->job, r->t->attempt, out, max) : -1;
}

/* One replica scraped, without the lock: only from a listener its own processes hold,
 * checked just before (so a port taken while it restarts is refused too) and the same
 * listener still there just after (listener.h). */
static void scrape_one(struct berth__daemon *d, struct target *t)
{
    struct berth__listener ls[BERTH_LISTEN_MAX];
    size_t n = 0;
    struct replica_of r = {d, t};
    int own =
        berth__listener_owned(t->port, t->replica, replica_pids, &r, ls, &n, t->why, sizeof t->why);
    if (own) { /* 1: no listener, a plain scrape error; -1: someone else's listener */
        t->refused = own < 0;
        return;
    }
    t->ok =
        !berth__scrape_fetch(t->port, t->path, t->metric, 500000, &t->load, t->why, sizeof t->why);
    if (t->ok && !berth__listeners_same(t->port, ls, n)) {
        t->ok = 0;
        t->refused = 1;
        snprintf(t->why, sizeof t->why, "the listener on 127.0.0.1:%d changed during the scrape",
                 t->port);
    }
}

/* A scrape's outcome taken in, under the lock. */
static void scraped(struct berth__daemon *d, struct berth__service *s, struct berth__ljob *j,
                    const struct target *t, berth_us now)
{
    char *refused = s->refused[j->replica], was[sizeof s->refused[0]];
    snprintf(was, sizeof was, "%s", refused);
    refused[0] = '\0'; /* a refusal is shown while it is the latest scrape's outcome */
    s->scrapes++;
    if (t->ok) {
        berth__svc_report(j, t->load, now);
        return;
    }
    s->scrape_errors++;
    if (t->refused) { /* no load from a listener that is not the replica's: none at all */
        s->scrapes_refused++;
        j->load_at = 0;
        snprintf(refused, sizeof s->refused[0], "scrape refused: %.140s", t->why);
        if (strcmp(was, refused)) /* logged when it starts or changes, not at every scrape */
            fprintf(d->log, "berthd: service %s: replica %d (job %" PRIu64 "): %s\n", s->name,
                    j->replica, j->id, refused);
    }
    snprintf(s->scrape_err, sizeof s->scrape_err, "replica %d: %s%.140s", j->replica,
             t->refused ? "scrape refused: " : "", t->why);
}

static void *scraper(void *arg)
{
    struct berth__daemon *d = arg;
    struct target *t = calloc(BERTH_SVC_MAX * BERTH_SVC_MAX_REPLICAS, sizeof *t);
    berth_us next[BERTH_SVC_MAX] = {0};
    uint64_t next_id[BERTH_SVC_MAX] = {0};
    while (t && !atomic_load(&d->svcs->stop)) {
        size_t n = 0;
        berth_us mono = berth__mono_us();
        pthread_mutex_lock(&d->mu);
        for (size_t i = 0; i < d->svcs->n; i++) {
            const struct berth__service *s = d->svcs->s[i];
            if (!s->scrape[0] || s->deleting)
                continue;
            if (next_id[i] == s->id && mono < next[i])
                continue;
            next_id[i] = s->id;
            next[i] = mono + s->scrape_every_us;
            for (int r = 0; r < BERTH_SVC_MAX_REPLICAS; r++) {
                const struct berth__ljob *j = s->rep[r] ? berth__daemon_job(d, s->rep[r]) : NULL;
                if (!berth__svc_alive(j) || !j->proc || j->then != BERTH_THEN_FINISH || !j->port)
                    continue;
                t[n] = (struct target){.svc = s->id,
                                       .job = j->id,
                                       .attempt = j->attempt,
                                       .port = j->port,
                                       .replica = r};
                snprintf(t[n].path, sizeof t[n].path, "%s", s->scrape);
                snprintf(t[n].metric, sizeof t[n].metric, "%s", s->metric);
                n++;
            }
        }
        pthread_mutex_unlock(&d->mu);
        for (size_t i = 0; i < n && !atomic_load(&d->svcs->stop); i++) /* without the lock */
            scrape_one(d, &t[i]);
        pthread_mutex_lock(&d->mu);
        berth_us now = berth__wall_us();
        for (size_t i = 0; i < n; i++) {
            struct berth__service *s = berth__svc_find(d, t[i].svc);
            struct berth__ljob *j = berth__daemon_job(d, t[i].job);
            if (s && berth__svc_alive(j) && j->attempt == t[i].attempt &&
                j->replica == t[i].replica)
                scraped(d, s, j, &t[i], now);
        }
        if (n)
            pthread_cond_signal(&d->wake);
        pthread_mutex_unlock(&d->mu);
        for (int k = 0; k < 5 && !atomic_load(&d->svcs->stop); k++)
            usleep(20000);
    }
    free(t);
    return NULL;
}

int berth__svc_start(struct berth__daemon *d, struct berth_err *err)
{
    pthread_mutex_lock(&d->mu); /* an HTTP thread may be making the first service */
    struct berth__svcs *v = berth__svc_svcs(d);
    pthread_mutex_unlock(&d->mu);
    if (!v)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    atomic_store(&d->svcs->stop, 0);
    if (pthread_create(&d->svcs->thr, NULL, scraper, d))
        return berth_err_set(err, BERTH_EIO, "services: cannot start the scraping thread");
    d->svcs->thr_on = 1;
    return 0;
}

void berth__svc_stop(struct berth__daemon *d)
{
    if (!d->svcs || !d->svcs->thr_on)
        return;
    atomic_store(&d->svcs->stop, 1);
    pthread_join(d->svcs->thr, NULL);
    d->svcs->thr_on = 0;
}
