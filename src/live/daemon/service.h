/* Services beside batch jobs: long-running replicated jobs (an inference server) on the
 * servers of the cluster's "inference" pool. Each replica is a berthd job with GPUs of its
 * own, placed by berthd (not by the policy) on a reserved server of the pool, with
 * BERTH_REPLICA and PORT in its environment, restarted when it dies (with a backoff and a
 * crash-loop bound). The replicas' load (reported through POST /v1/jobs/ID/load or scraped
 * from http://127.0.0.1:$PORT/PATH) and the service's target per replica give the wanted
 * replicas (autoscale.h), and wanted replicas the inference demand Aryl reads (infer.c):
 * a load rise makes a lending policy reclaim servers, and new replicas start on them.
 * A server that hosts a replica is "pinned" in the engine's cluster, so no policy lends it.
 *
 * Services survive restarts: their definitions in STATE/services.json (written whole and
 * durably before an answer), their replicas in the journal like any job, re-adopted by
 * recovery (never duplicated: one live replica per index). */
#ifndef BERTH_LIVE_SERVICE_H
#define BERTH_LIVE_SERVICE_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>

#include "live/daemon/autoscale.h"
#include "live/daemon/scrape.h"
#include "live/exec/ident.h"
#include "live/jobs/ljob.h"

struct berth__daemon;
struct berth__ljob;
struct berth__caller;

#define BERTH_SVC_MAX          16 /* services at once */
#define BERTH_SVC_MAX_REPLICAS 32 /* replicas of one service */
#define BERTH_SVC_CRASH_LOOP   5  /* quick exits in a row after which a replica is given up */
#define BERTH_SVC_QUICK_S      10 /* an attempt shorter than this is a quick exit */

struct berth__service {
    uint64_t id;
    char name[64];
    char user[BERTH_ACCOUNT_NAME_MAX];
    uint32_t uid, gid;
    int32_t gpus; /* each replica's */
    struct berth__as_params as;
    struct berth__as_state ast;
    char scrape[BERTH_SCRAPE_PATH_MAX + 1]; /* "" = no scraping */
    char metric[BERTH_SCRAPE_METRIC_MAX + 1];
    berth_us scrape_every_us;
    json_t *tmpl; /* the replicas' job body (argv, env, cwd, ...) without gpus and name */
    berth_us created_us;
    int deleting;
    /* in memory */
    int32_t wanted;
    uint64_t rep[BERTH_SVC_MAX_REPLICAS]; /* replica i's job id, 0 = none */
    double load;                          /* summed over the replicas that said */
    int32_t reporting;                    /* replicas whose load is known */
    uint64_t restarts, scale_ups, scale_downs, scrapes, scrape_errors;
    uint64_t scrapes_refused; /* of scrape_errors: the listener was not the replica's */
    char refused[BERTH_SVC_MAX_REPLICAS][160]; /* replica i's latest refusal, "" = none */
    char crashloop[160]; /* "" or why the service stopped replacing replicas */
    char scrape_err[200];
    berth_us up_at;                 /* when wanted last rose, until the replicas run (0: none) */
    berth_us last_up_us, max_up_us; /* that latency (-1: none yet) */
    int32_t waiting_room;           /* replicas wanted with no server to run on */
};

struct berth__svcs {
    struct berth__service *s[BERTH_SVC_MAX];
    size_t n;
    uint64_t next_id;
    uint8_t *occ; /* per (pool server, GPU): a replica holds it */
    pthread_t thr;
    int thr_on;
    atomic_int stop;
};

/* Under d->mu unless said. load: the definitions from STATE/services.json (at recovery's
 * start). recover_job: a replica from the journal (re-adopt, restart or end it). recovered:
 * every replica back in its service, duplicates of an index and replicas of a gone service
 * stopped. */
int berth__svc_load(struct berth__daemon *d, struct berth_err *err);
int berth__svc_recover_job(struct berth__daemon *d, struct berth__ljob *j, berth_us now,
                           struct berth_err *err);
void berth__svc_recovered(struct berth__daemon *d, berth_us now);
/* POST /v1/services: 0 (201) with *out the new service, or an HTTP status with err naming
 * the field. Admins only. */
int berth__svc_create(struct berth__daemon *d, const json_t *body, const struct berth__caller *who,
                      json_t **out, struct berth_err *err);
/* DELETE /v1/services/ID: its replicas are stopped, then it is gone. 0 or a status. */
int berth__svc_delete(struct berth__daemon *d, uint64_t id, const struct berth__caller *who,
                      struct berth_err *err);
/* One service (NULL: no such), or all of them, as who sees them: the replicas' ports, their
 * scrape refusals and the last scrape error (which name ports) only for an admin or the
 * service's owner (NULL: berthd itself), null for any other caller. */
json_t *berth__svc_json(struct berth__daemon *d, uint64_t id, const struct berth__caller *who);
json_t *berth__svc_list(struct berth__daemon *d, const struct berth__caller *who);
/* Each tick: replicas started and stopped to match the wanted count, servers pinned, the
 * inference demand set. */
void berth__svc_tick(struct berth__daemon *d, berth_us now);
/* Replica j's attempt ended by itself (ran_us: how long it ran): restarted after a backoff,
 * or given up at the crash-loop bound, or ended when its service is going. */
void berth__svc_exited(struct berth__daemon *d, struct berth__ljob *j, const char *how,
                       berth_us ran_us, berth_us now);
/* A replica's load report (requests/s or a queue length, >= 0), from the scraper thread
 * (service_scrape.c) or a replica's own POST. */
static inline void berth__svc_report(struct berth__ljob *j, double load, berth_us now)
{
    j->load = load;
    j->load_at = now;
}
/* The scraping thread (not under d->mu): started after recovery, stopped before destroy. */
int berth__svc_start(struct berth__daemon *d, struct berth_err *err);
void berth__svc_stop(struct berth__daemon *d);
void berth__svc_free(struct berth__daemon *d);
/* Registers services with the core (core.h: recovery, replicas' ends, the tick, the
 * purge); at create. */
int berth__svc_attach(struct berth__daemon *d, struct berth_err *err);

#endif
