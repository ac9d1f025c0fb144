/* berthd's /metrics (Prometheus text exposition, version 0.0.4) and /healthz, open to any
 * caller: aggregate counts only. Labels are the states, the GPU types of the inventory, the
 * routes of the table, status codes, and the queue names tally.h allows (the queues file's,
 * or at most BERTH_TALLY_QUEUES);
 * never a job's name, command, user or token (docs/security.md). Rendering is O(types +
 * queues x states + routes x codes + buckets) whatever the job table holds, and takes the
 * daemon's lock for a copy of a few counters only, waiting at most 2 s for it. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "berth/berth.h"
#include "live/http/http.h"
#include "live/http/routes.h"
#include "model/cluster.h"

#define LOCK_WAIT_S 2

/* label values are ours (states, type names, route patterns, checked queue names), but are
 * escaped all the same */
static void label(FILE *f, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            fprintf(f, "\\%c", *v);
        else if (*v == '\n')
            fputs("\\n", f);
        else
            fputc(*v, f);
    }
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void hist(FILE *f, const char *name, const char *help, const struct berth__hist *h)
{
    uint64_t cum[BERTH_HIST_MAX + 1], count;
    double sum;
    berth__hist_read(h, cum, &count, &sum);
    family(f, name, "histogram", help);
    for (size_t i = 0; i < h->n; i++)
        fprintf(f, "%s_bucket{le=\"%g\"} %llu\n", name, h->le[i], (unsigned long long)cum[i]);
    fprintf(f, "%s_bucket{le=\"+Inf\"} %llu\n%s_sum %.6f\n%s_count %llu\n", name,
            (unsigned long long)count, name, sum, name, (unsigned long long)count);
}

/* What the exposition reads under the daemon's lock, copied. */
struct snapshot {
    char policy[64], placement[32], executor[16];
    uint64_t preemptions, migrations, resizes, passes;
    uint64_t refused_limit, refused_space, refused_journal;
    struct berth__tally tally; /* its counts copied (allocated before the lock); its names
                                * are the daemon's: a given slot's name never changes */
    size_t ntypes;
    char types[BERTH_TEL_TYPES * 2][32];
    int32_t busy[BERTH_TEL_TYPES * 2], idle[BERTH_TEL_TYPES * 2], reserved[BERTH_TEL_TYPES * 2],
        draining[BERTH_TEL_TYPES * 2];
};

#define MAX_TYPES (BERTH_TEL_TYPES * 2)

static int take(struct berth__daemon *d, struct snapshot *s)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += LOCK_WAIT_S;
    if (pthread_mutex_timedlock(&d->mu, &ts))
        return -1;
    snprintf(s->policy, sizeof s->policy, "%s", d->engine->ops->name);
    snprintf(s->placement, sizeof s->placement, "%s",
             berth_placement_name((size_t)d->engine->params.placement));
    snprintf(s->executor, sizeof s->executor, "%s", d->xo->name);
    s->preemptions = d->engine->preemptions;
    s->migrations = d->engine->migrations;
    s->resizes = d->engine->resizes;
    s->passes = d->engine->passes;
    s->refused_limit = d->refused_limit;
    s->refused_space = d->refused_space;
    s->refused_journal = d->refused_journal;
    s->tally.nnames = d->tally.nnames;
    memcpy(s->tally.n, d->tally.n, ((size_t)s->tally.cap + 1) * sizeof *s->tally.n);
    const struct berth_cluster *c = d->engine->cluster;
    s->ntypes = c->ntypes < MAX_TYPES ? c->ntypes : MAX_TYPES;
    for (size_t t = 0; t < s->ntypes; t++) {
        snprintf(s->types[t], sizeof s->types[t], "%s", c->types[t].name);
        s->busy[t] = s->idle[t] = s->reserved[t] = s->draining[t] = 0;
    }
    for (size_t v = 0; v < c->nsrv; v++) {
        const struct berth__server *sv = &c->srv[v];
        if (sv->type >= s->ntypes)
            continue;
        if (sv->reserved) {
            s->reserved[sv->type] += sv->ngpus;
            continue;
        }
        int drain = 0;
        for (int g = 0; g < sv->ngpus; g++)
            drain += d->drain[v * BERTH_MAX_SERVER_GPUS + (size_t)g] > 0;
        s->busy[sv->type] += sv->ngpus - sv->nfree;
        s->draining[sv->type] += drain;
        s->idle[sv->type] += sv->nfree - drain > 0 ? sv->nfree - drain : 0;
    }
    pthread_mutex_unlock(&d->mu);
    return 0;
}

void berth__route_metrics(struct berth__daemon *d, const struct berth__hreq *r,
                          struct berth__hresp *out)
{
    (void)r;
    struct snapshot *s = calloc(1, sizeof *s);
    /* the tally's size is set at start: its copy is made before the lock is taken */
    if (s) {
        s->tally.names = d->tally.names;
        s->tally.cap = d->tally.cap;
        s->tally.declared = d->tally.declared;
        s->tally.n = calloc((size_t)s->tally.cap + 1, sizeof *s->tally.n);
    }
    if (!s || !s->tally.n) {
        free(s);
        berth__hresp_error(out, 500, "out of memory");
        return;
    }
    if (take(d, s)) {
        free(s->tally.n);
        free(s);
        berth__hresp_error(out, 503, "metrics: the scheduler loop has held its lock for 2 s");
        out->retry_after = 1;
        return;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        free(s->tally.n);
        free(s);
        berth__hresp_error(out, 500, "out of memory");
        return;
    }
    family(f, "berth_up", "gauge", "1 while berthd answers.");
    fprintf(f, "berth_up 1\n");
    family(f, "berth_info", "gauge", "berthd's version, policy, placement and executor (1).");
    fprintf(f, "berth_info{version=\"%s\",policy=\"", BERTH_VERSION);
    label(f, s->policy);
    fprintf(f, "\",placement=\"");
    label(f, s->placement);
    fprintf(f, "\",executor=\"");
    label(f, s->executor);
    fprintf(f, "\"} 1\n");

    family(f, "berth_jobs", "gauge",
           s->tally.declared
               ? "Jobs by state and queue (the queues file's queues; the others, and jobs "
                 "without a queue unless it declares default, under _other)."
               : "Jobs by state and queue (at most 16 queue names; the others, and jobs "
                 "without a queue, under _other).");
    for (int q = 0; q <= s->tally.cap; q++) {
        if (q < s->tally.cap && q >= s->tally.nnames)
            continue;
        for (int st = 0; st < BERTH_TALLY_STATES; st++) {
            fprintf(f, "berth_jobs{state=\"%s\",queue=\"", berth__lstate_name(st));
            label(f, berth__tally_name(&s->tally, (uint16_t)q));
            fprintf(f, "\"} %lld\n", (long long)s->tally.n[q][st]);
        }
    }
    family(f, "berth_gpus", "gauge",
           "GPUs by type and state: busy (held by jobs), idle, reserved (a pool's, or a "
           "drained node), draining (a stopped job's process still holds it).");
    static const char *const states[] = {"busy", "idle", "reserved", "draining"};
    for (size_t t = 0; t < s->ntypes; t++) {
        const int32_t v[] = {s->busy[t], s->idle[t], s->reserved[t], s->draining[t]};
        for (int k = 0; k < 4; k++) {
            fprintf(f, "berth_gpus{type=\"");
            label(f, s->types[t]);
            fprintf(f, "\",state=\"%s\"} %d\n", states[k], v[k]);
        }
    }
    hist(f, "berth_queue_wait_seconds", "Time from a job's submission to its first start.",
         &d->tel.wait);
    hist(f, "berth_scheduling_pass_duration_seconds",
         "Time the policy's scheduling pass took (engine and policy).", &d->tel.pass);
    hist(f, "berth_journal_commit_duration_seconds",
         "Time a journal transaction took, from the writer taking it to its commit.",
         berth__journal_commit_hist(d->jn));
    family(f, "berth_scheduling_passes_total", "counter", "Scheduling passes run.");
    fprintf(f, "berth_scheduling_passes_total %llu\n", (unsigned long long)s->passes);
    family(f, "berth_preemptions_total", "counter", "Jobs preempted by the policy.");
    fprintf(f, "berth_preemptions_total %llu\n", (unsigned long long)s->preemptions);
    family(f, "berth_migrations_total", "counter", "Jobs migrated by the policy.");
    fprintf(f, "berth_migrations_total %llu\n", (unsigned long long)s->migrations);
    family(f, "berth_resizes_total", "counter", "Elastic jobs resized by the policy.");
    fprintf(f, "berth_resizes_total %llu\n", (unsigned long long)s->resizes);
    family(f, "berth_submissions_total", "counter", "Submissions accepted (journaled).");
    fprintf(f, "berth_submissions_total %llu\n",
            (unsigned long long)atomic_load_explicit(&d->tel.submitted, memory_order_relaxed));
    family(f, "berth_submissions_refused_total", "counter",
           "Submissions refused: a per-user limit (429), the disk below --min-free (507), the "
           "journal failing (503).");
    fprintf(f,
            "berth_submissions_refused_total{reason=\"user_limit\"} %llu\n"
            "berth_submissions_refused_total{reason=\"disk\"} %llu\n"
            "berth_submissions_refused_total{reason=\"journal\"} %llu\n",
            (unsigned long long)s->refused_limit, (unsigned long long)s->refused_space,
            (unsigned long long)s->refused_journal);
    struct berth__journal_health jh;
    berth__journal_health(d->jn, &jh);
    family(f, "berth_journal_degraded", "gauge", "1 while the journal's last commit failed.");
    fprintf(f, "berth_journal_degraded %d\n", jh.degraded ? 1 : 0);
    family(f, "berth_journal_pending_documents", "gauge",
           "Job records waiting to be written to the journal.");
    fprintf(f, "berth_journal_pending_documents %llu\n", (unsigned long long)jh.pending);
    uint64_t open = 0, cut_h = 0, cut_b = 0;
    berth__http_stats(d, &open, &cut_h, &cut_b);
    family(f, "berth_http_connections", "gauge", "HTTP connections open now.");
    fprintf(f, "berth_http_connections %llu\n", (unsigned long long)open);
    family(f, "berth_http_connections_cut_total", "counter",
           "Connections closed for missing their headers' or body's deadline.");
    fprintf(f,
            "berth_http_connections_cut_total{phase=\"headers\"} %llu\n"
            "berth_http_connections_cut_total{phase=\"body\"} %llu\n",
            (unsigned long long)cut_h, (unsigned long long)cut_b);
    struct berth__http_pool hp;
    berth__http_pool_stats(d, &hp);
    family(f, "berth_http_connections_evicted_total", "counter",
           "Connections still waiting for their headers closed to let a newcomer in (their "
           "address, or all such connections, past its bound).");
    fprintf(f, "berth_http_connections_evicted_total %llu\n", (unsigned long long)hp.evicted);
    family(f, "berth_http_workers_busy", "gauge", "Threads answering a request now.");
    fprintf(f, "berth_http_workers_busy %zu\n", hp.busy);
    family(f, "berth_http_requests_queued", "gauge",
           "Requests waiting for a thread to answer them now.");
    fprintf(f, "berth_http_requests_queued %zu\n", hp.queued);
    family(f, "berth_http_requests_total", "counter",
           "HTTP requests answered, by route (the table's pattern; \"other\" for any other "
           "path), method and status code (\"other\" for codes berthd does not use).");
    const struct berth__http_table *tab = berth__http_table();
    for (size_t rt = 0; rt <= tab->n; rt++)
        for (size_t k = 0; k < BERTH_HTTP_CODES; k++) {
            uint64_t n = berth__http_count(d, rt, k);
            if (!n)
                continue;
            fprintf(f, "berth_http_requests_total{route=\"");
            label(f, rt < tab->n ? tab->routes[rt].path : "other");
            fprintf(f, "\",method=\"%s\",code=\"", rt < tab->n ? tab->routes[rt].method : "other");
            if (berth__http_codes[k])
                fprintf(f, "%d", berth__http_codes[k]);
            else
                fputs("other", f);
            fprintf(f, "\"} %llu\n", (unsigned long long)n);
        }
    int64_t last = atomic_load_explicit(&d->tel.last_tick_us, memory_order_relaxed);
    family(f, "berth_scheduler_last_tick_age_seconds", "gauge",
           "Seconds since the scheduler loop's last tick (/healthz fails past its limit).");
    fprintf(f, "berth_scheduler_last_tick_age_seconds %.3f\n",
            last ? (double)(berth__mono_us() - last) / 1e6 : 0.0);
    int bad = ferror(f);
    fclose(f);
    free(s->tally.n);
    free(s);
    if (bad || !buf) {
        free(buf);
        berth__hresp_error(out, 500, "out of memory");
        return;
    }
    out->status = 200;
    out->text = buf;
    out->text_len = len;
    out->type = "text/plain; version=0.0.4; charset=utf-8";
}

void berth__route_healthz(struct berth__daemon *d, const struct berth__hreq *r,
                          struct berth__hresp *out)
{
    (void)r;
    /* the loop's last tick, read without the lock: a wedged loop must not wedge the probe */
    int64_t last = atomic_load_explicit(&d->tel.last_tick_us, memory_order_relaxed);
    berth_us age = last ? berth__mono_us() - last : 0;
    berth_us limit =
        20 * d->o.tick_us > 10 * BERTH_US_PER_S ? 20 * d->o.tick_us : 10 * BERTH_US_PER_S;
    char msg[96];
    int ok = age <= limit;
    snprintf(msg, sizeof msg, ok ? "ok\n" : "stalled: no scheduler tick for %.0f s\n",
             (double)age / 1e6);
    out->status = ok ? 200 : 503;
    out->text = strdup(msg);
    out->text_len = out->text ? strlen(out->text) : 0;
}
