/* Services (service.h): their definitions and persistence, the replicas' placement on the
 * inference pool, reconciliation every tick (wanted replicas, restarts, scale-down), the
 * inference demand they drive, recovery, and the hooks the core calls. The API is in
 * service_api.c, the thread that scrapes the replicas' load in service_scrape.c. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "live/daemon/core.h"
#include "live/daemon/infer.h"
#include "live/daemon/statefile.h"
#include "live/daemon/listener.h"
#include "live/daemon/service_int.h"
#include "util/name.h"
#include "model/cluster.h"

#define SVC_FILE "services.json"

/* The job fields a service passes on to its replicas; the others are the service's own. */
static const char *const job_fields[] = {
    "argv", "env", "cwd", "shell", "gpu_type", "checkpoint_signal", "grace_s", "cpus", "mem_mib"};
static const char *const svc_fields[] = {
    "name",   "replicas_min",  "replicas_max",     "gpus",
    "pool",   "target_rps",    "headroom",         "cooldown_s",
    "scrape", "scrape_metric", "scrape_interval_s"};

static int in_list(const char *k, const char *const *l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(k, l[i]))
            return 1;
    return 0;
}

/* ---- the definitions and their file */

json_t *berth__svc_def_json(const struct berth__service *s)
{
    return json_pack("{s:I,s:s,s:s,s:i,s:i,s:i,s:i,s:i,s:f,s:f,s:f,s:s,s:s,s:f,s:O,s:I,s:b}", "id",
                     (json_int_t)s->id, "name", s->name, "user", s->user, "uid", (int)s->uid, "gid",
                     (int)s->gid, "replicas_min", s->as.min, "replicas_max", s->as.max, "gpus",
                     s->gpus, "target_rps", s->as.target, "headroom", s->as.headroom, "cooldown_s",
                     (double)s->as.cooldown_us / 1e6, "scrape", s->scrape, "scrape_metric",
                     s->metric, "scrape_interval_s", (double)s->scrape_every_us / 1e6, "job",
                     s->tmpl, "created_us", (json_int_t)s->created_us, "deleting", s->deleting);
}

int berth__svc_store(struct berth__daemon *d, struct berth_err *err)
{
    json_t *a = json_array(), *o = NULL;
    int bad = !a;
    for (size_t i = 0; !bad && i < d->svcs->n; i++)
        bad = json_array_append_new(a, berth__svc_def_json(d->svcs->s[i]));
    if (!bad)
        o = json_pack("{s:i,s:I,s:o}", "version", 1, "next_id", (json_int_t)d->svcs->next_id,
                      "services", a);
    else
        json_decref(a);
    char *txt = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (!txt)
        return berth_err_set(err, BERTH_ENOMEM, "services: out of memory");
    int rc = berth__state_write(d->state_dir, SVC_FILE, txt, strlen(txt), err);
    free(txt);
    return rc;
}

/* A service from a request body (or a definition from the file: file = 1 reads its id, user
 * and state too). BERTH_EINPUT naming the field. */
int berth__svc_from_json(struct berth__daemon *d, const json_t *b, int file,
                         struct berth__service **out, struct berth_err *err)
{
    if (!json_is_object(b))
        return berth_err_set(err, BERTH_EINPUT, "body: expected a JSON object");
    const char *k;
    const json_t *v;
    static const char *const file_fields[] = {"id",  "user",       "uid",     "gid",
                                              "job", "created_us", "deleting"};
    json_object_foreach((json_t *)b, k, v)
    {
        if (!in_list(k, svc_fields, sizeof svc_fields / sizeof *svc_fields) &&
            !in_list(k, job_fields, sizeof job_fields / sizeof *job_fields) &&
            !(file && in_list(k, file_fields, sizeof file_fields / sizeof *file_fields)))
            return berth_err_set(err, BERTH_EINPUT, "%.64s: unknown field", k);
    }
    struct berth__service *s = calloc(1, sizeof *s);
    if (!s)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    int rc = 0;
    int64_t mn = 1, mx = -1, g = 1;
    double target = 0, head = 0.1, cool = 30, every = 1;
    const char *name = json_string_value(json_object_get(b, "name"));
    const json_t *pool = json_object_get(b, "pool");
    if (!name || !*name || strlen(name) >= sizeof s->name || !berth__name_printable(name) ||
        strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") !=
            strlen(name))
        rc = berth_err_set(err, BERTH_EINPUT,
                           "name: required, 1 to %zu letters, digits, '-', '_' or '.'",
                           sizeof s->name - 1);
    else if (pool && (!json_is_string(pool) || strcasecmp(json_string_value(pool), "inference")))
        rc = berth_err_set(err, BERTH_EINPUT,
                           "pool: expected \"inference\" (services run on the inference pool; "
                           "the other pools' servers are the scheduler's)");
    else if ((rc = berth__json_int(b, "replicas_min", 1, BERTH_SVC_MAX_REPLICAS, &mn, err)) ||
             (rc = berth__json_int(b, "replicas_max", 1, BERTH_SVC_MAX_REPLICAS, &mx, err)) ||
             (rc = berth__json_int(b, "gpus", 1, BERTH_MAX_SERVER_GPUS, &g, err)) ||
             (rc = berth__json_num(b, "target_rps", 0, 1e9, &target, err)) ||
             (rc = berth__json_num(b, "headroom", 0, 0.9, &head, err)) ||
             (rc = berth__json_num(b, "cooldown_s", 0, 86400, &cool, err)) ||
             (rc = berth__json_num(b, "scrape_interval_s", 0.1, 3600, &every, err)))
        ;
    else if (mx >= 0 && mx < mn)
        rc = berth_err_set(err, BERTH_EINPUT, "replicas_max: expected at least replicas_min (%lld)",
                           (long long)mn);
    if (rc)
        goto fail;
    snprintf(s->name, sizeof s->name, "%s", name);
    s->gpus = (int32_t)g;
    s->as = (struct berth__as_params){.min = (int32_t)mn,
                                      .max = (int32_t)(mx < 0 ? mn : mx),
                                      .target = target,
                                      .headroom = head,
                                      .cooldown_us = (berth_us)(cool * 1e6)};
    s->ast.low_since = BERTH_TIME_NONE;
    s->scrape_every_us = (berth_us)(every * 1e6);
    snprintf(s->metric, sizeof s->metric, "load");
    const json_t *sc = json_object_get(b, "scrape"), *sm = json_object_get(b, "scrape_metric");
    if (sc && !json_is_string(sc)) {
        rc = berth_err_set(err, BERTH_EINPUT, "scrape: expected a string (a URL or a path)");
        goto fail;
    }
    if (sc && *json_string_value(sc) &&
        (rc = berth__scrape_url(json_string_value(sc), s->scrape, sizeof s->scrape, err)))
        goto fail;
    if (sm && (!json_is_string(sm) || !berth__scrape_metric_ok(json_string_value(sm)))) {
        rc = berth_err_set(err, BERTH_EINPUT,
                           "scrape_metric: expected a Prometheus metric name "
                           "([a-zA-Z_:][a-zA-Z0-9_:]*, at most %d bytes)",
                           BERTH_SCRAPE_METRIC_MAX);
        goto fail;
    }
    if (sm)
        snprintf(s->metric, sizeof s->metric, "%s", json_string_value(sm));
    if (file) {
        s->id = (uint64_t)json_integer_value(json_object_get(b, "id"));
        snprintf(s->user, sizeof s->user, "%s", json_string_value(json_object_get(b, "user")));
        s->uid = (uint32_t)json_integer_value(json_object_get(b, "uid"));
        s->gid = (uint32_t)json_integer_value(json_object_get(b, "gid"));
        s->created_us = json_integer_value(json_object_get(b, "created_us"));
        s->deleting = json_is_true(json_object_get(b, "deleting"));
        s->tmpl = json_deep_copy(json_object_get(b, "job"));
    } else {
        s->tmpl = json_object();
        json_object_foreach((json_t *)b, k, v)
        {
            if (s->tmpl && in_list(k, job_fields, sizeof job_fields / sizeof *job_fields))
                json_object_set_new(s->tmpl, k, json_deep_copy(v));
        }
    }
    if (!s->tmpl) {
        rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
        goto fail;
    }
    (void)d;
    s->wanted = s->as.min;
    s->last_up_us = -1;
    *out = s;
    return 0;
fail:
    berth__svc_free_one(s);
    return rc;
}

int berth__svc_load(struct berth__daemon *d, struct berth_err *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", d->state_dir, SVC_FILE);
    if (access(path, F_OK))
        return 0;
    json_error_t je;
    json_t *o = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!o || !berth__svc_svcs(d)) {
        json_decref(o);
        return berth_err_set(err, BERTH_EINPUT, "%s: line %d: %s", path, je.line, je.text);
    }
    const json_t *a = json_object_get(o, "services"), *v;
    size_t i;
    int rc = json_is_array(a) && json_array_size(a) <= BERTH_SVC_MAX
                 ? 0
                 : berth_err_set(err, BERTH_EINPUT, "%s: services: expected at most %d", path,
                                 BERTH_SVC_MAX);
    d->svcs->next_id = (uint64_t)json_integer_value(json_object_get(o, "next_id"));
    json_array_foreach(a, i, v)
    {
        struct berth__service *s = NULL;
        if (rc || (rc = berth__svc_from_json(d, v, 1, &s, err)))
            break;
        d->svcs->s[d->svcs->n++] = s;
        if (s->id >= d->svcs->next_id)
            d->svcs->next_id = s->id + 1;
    }
    if (rc && err->msg[0] && !strstr(err->msg, path)) {
        char m[sizeof err->msg];
        snprintf(m, sizeof m, "%s", err->msg);
        berth_err_set(err, BERTH_EINPUT, "%s: %s", path, m);
    }
    json_decref(o);
    return rc;
}

/* ---- replicas */

static int port_taken(struct berth__daemon *d, int port)
{
    if (port == d->bound_port)
        return 1;
    for (size_t i = 0; i < d->svcs->n; i++)
        for (int r = 0; r < BERTH_SVC_MAX_REPLICAS; r++) {
            struct berth__ljob *j =
                d->svcs->s[i]->rep[r] ? berth__daemon_job(d, d->svcs->s[i]->rep[r]) : NULL;
            if (berth__svc_alive(j) && j->port == port)
                return 1;
        }
    return 0;
}

/* A port free on this host now and no other live replica's. */
static int pick_port(struct berth__daemon *d)
{
    for (int tries = 0; tries < 32; tries++) {
        int port = berth__free_port();
        if (port != 29500 && !port_taken(d, port))
            return port;
    }
    return 0;
}

static int pool_index(const struct berth__daemon *d, uint32_t server)
{
    for (int32_t i = 0; i < d->infer->servers; i++)
        if (d->infer->srv[i] == server)
            return i;
    return -1;
}

static void occupy(struct berth__daemon *d, const struct berth__slot *sl, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        int p = pool_index(d, sl[i].server);
        if (p >= 0 && sl[i].gpu < BERTH_MAX_SERVER_GPUS)
            d->svcs->occ[(size_t)p * BERTH_MAX_SERVER_GPUS + sl[i].gpu] = 1;
    }
}

/* Rebuilds which pool GPUs replicas hold and pins their servers (so no policy lends them).
 * Returns the servers pinned. */
static int32_t pin(struct berth__daemon *d)
{
    struct berth__svcs *v = d->svcs;
    struct berth_cluster *c = d->engine->cluster;
    memset(v->occ, 0, (size_t)d->infer->servers * BERTH_MAX_SERVER_GPUS);
    for (size_t i = 0; i < v->n; i++)
        for (int r = 0; r < BERTH_SVC_MAX_REPLICAS; r++) {
            struct berth__ljob *j = v->s[i]->rep[r] ? berth__daemon_job(d, v->s[i]->rep[r]) : NULL;
            if (!berth__svc_alive(j))
                continue;
            occupy(d, j->slots, j->nslots);
            if (j->proc)
                occupy(d, j->pslots, j->npslots);
        }
    int32_t pinned = 0;
    for (int32_t p = 0; p < d->infer->servers; p++) {
        uint8_t on = 0;
        for (int g = 0; g < BERTH_MAX_SERVER_GPUS && !on; g++)
            on = v->occ[(size_t)p * BERTH_MAX_SERVER_GPUS + (size_t)g];
        c->srv[d->infer->srv[p]].pinned = on;
        pinned += on;
    }
    return pinned;
}

/* A reserved pool server with gpus GPUs free of replicas and of draining processes (of the
 * type asked, if any): one that hosts replicas already first, then the highest-numbered.
 * Fills slots; 0, or -1 when there is none. */
static int place(struct berth__daemon *d, int32_t gpus, const char *type, struct berth__slot *slots)
{
    const struct berth_cluster *c = d->engine->cluster;
    int best = -1, best_pinned = 0;
    for (int32_t p = d->infer->servers - 1; p >= 0; p--) {
        uint32_t s = d->infer->srv[p];
        const struct berth__server *v = &c->srv[s];
        if (!v->reserved || v->ngpus < gpus ||
            (type && *type && strcasecmp(c->types[v->type].name, type)))
            continue;
        int32_t freeg = 0;
        for (int g = 0; g < v->ngpus; g++)
            freeg += !d->svcs->occ[(size_t)p * BERTH_MAX_SERVER_GPUS + (size_t)g] &&
                     !d->drain[s * BERTH_MAX_SERVER_GPUS + (size_t)g];
        if (freeg < gpus || (best >= 0 && (best_pinned || !v->pinned)))
            continue;
        best = p;
        best_pinned = v->pinned;
    }
    if (best < 0)
        return -1;
    uint32_t s = d->infer->srv[best];
    int32_t k = 0;
    for (int g = 0; g < c->srv[s].ngpus && k < gpus; g++)
        if (!d->svcs->occ[(size_t)best * BERTH_MAX_SERVER_GPUS + (size_t)g] &&
            !d->drain[s * BERTH_MAX_SERVER_GPUS + (size_t)g]) {
            slots[k++] = (struct berth__slot){.server = s, .gpu = (uint32_t)g};
            d->svcs->occ[(size_t)best * BERTH_MAX_SERVER_GPUS + (size_t)g] = 1;
        }
    d->engine->cluster->srv[s].pinned = 1;
    return 0;
}

/* Replica idx of s as a new job, placed and due to launch: 0, 1 when no server has room,
 * or an error. */
static int start_replica(struct berth__daemon *d, struct berth__service *s, int idx, berth_us now,
                         struct berth_err *err)
{
    json_t *b = json_deep_copy(s->tmpl);
    char name[96];
    snprintf(name, sizeof name, "%s-%d", s->name, idx);
    if (!b || json_object_set_new(b, "gpus", json_integer(s->gpus)) ||
        json_object_set_new(b, "name", json_string(name))) {
        json_decref(b);
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    struct berth__ljob *j = NULL;
    int rc = berth__ljob_from_submit(b, s->user, s->uid, s->gid, &j, err);
    json_decref(b);
    if (rc)
        return rc;
    struct berth__slot slots[BERTH_MAX_SERVER_GPUS];
    if (place(d, s->gpus, berth_jobspec_extra(&j->spec)->gpu_type, slots)) {
        berth__ljob_free(j);
        return 1;
    }
    if (berth__auth_new_token(j->token, sizeof j->token)) {
        berth__ljob_free(j);
        return berth_err_set(err, BERTH_EIO, "no randomness for the replica's token");
    }
    if (berth__ljob_slots(j)) {
        berth__ljob_free(j);
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    uint64_t id = atomic_fetch_add(&d->next_id, 1);
    berth__ljob_set_id(j, id);
    j->svc = s->id;
    j->replica = idx;
    j->port = pick_port(d);
    j->submit_us = j->start_us = now;
    j->nslots = s->gpus;
    memcpy(j->slots, slots, (size_t)s->gpus * sizeof *slots);
    j->run_share_milli = 1000;
    const struct berth_cluster *c = d->engine->cluster;
    snprintf(j->ran_type, sizeof j->ran_type, "%s", c->types[c->srv[slots[0].server].type].name);
    if (berth__ljob_note(j, now, BERTH_L_PENDING, "replica %d of service %s (%" PRIu64 ")", idx,
                         s->name, s->id) || /* no port: every caller reads the history */
        berth__ljob_note(j, now, BERTH_L_RUNNING, "placed on %s (inference pool)",
                         c->srv[slots[0].server].name)) {
        berth__ljob_free(j);
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    if ((rc = berth__daemon_insert(d, j, id, err))) {
        berth__ljob_free(j);
        return rc;
    }
    j->usage = berth__usage_of(d->usage, j->user);
    j->qusage = berth__usage_of(d->qusage, j->spec.queue);
    j->launch = 1;
    berth__daemon_activate(d, j);
    berth__daemon_save(d, j, 0, NULL); /* the launch journals it durably before its fork */
    s->rep[idx] = id;
    s->refused[idx][0] = '\0';
    fprintf(d->log, "berthd: service %s: replica %d is job %" PRIu64 " on %s, port %d\n", s->name,
            idx, id, c->srv[slots[0].server].name, j->port);
    return 0;
}

static void stop_replica(struct berth__daemon *d, struct berth__ljob *j, const char *why,
                         berth_us now)
{
    if (j->then == BERTH_THEN_CANCEL)
        return;
    struct berth_err e = {0};
    berth__daemon_cancel_locked(d, j, now, &e);
    berth__ljob_note(j, now, j->state, "%s", why);
    berth__daemon_save(d, j, 0, NULL);
}

void berth__svc_exited(struct berth__daemon *d, struct berth__ljob *j, const char *how,
                       berth_us ran_us, berth_us now)
{
    struct berth__service *s = berth__svc_find(d, j->svc);
    if (!s || s->deleting) {
        j->end_us = now;
        berth__ljob_note(j, now, j->exit_code == 0 ? BERTH_L_COMPLETED : BERTH_L_FAILED, "%s", how);
        return;
    }
    j->quick_fails = ran_us < (berth_us)BERTH_SVC_QUICK_S * BERTH_US_PER_S ? j->quick_fails + 1 : 0;
    j->load_at = 0;
    if (j->quick_fails >= BERTH_SVC_CRASH_LOOP) {
        j->end_us = now;
        berth__ljob_note(j, now, BERTH_L_FAILED,
                         "crash loop: %u exits within %d s of their start in a row (last: %s): "
                         "given up",
                         j->quick_fails, BERTH_SVC_QUICK_S, how);
        snprintf(s->crashloop, sizeof s->crashloop,
                 "replica %d (job %" PRIu64 ") exited %u times in a row within %d s of its "
                 "start (last: %.40s)",
                 j->replica, j->id, j->quick_fails, BERTH_SVC_QUICK_S, how);
        fprintf(d->log, "berthd: service %s: %s: no more replicas are started\n", s->name,
                s->crashloop);
        return;
    }
    /* backoff: 0.25 s, doubling with each quick exit in a row, at most 30 s */
    berth_us back = (berth_us)250000 << (j->quick_fails ? j->quick_fails - 1 : 0);
    back = back > 30 * BERTH_US_PER_S ? 30 * BERTH_US_PER_S : back;
    j->restarts++;
    s->restarts++;
    j->resume = 1;
    j->launch = 1;
    j->launch_at = now + back;
    berth__ljob_note(j, now, BERTH_L_RUNNING, "replica exited (%s): restart %u in %.2f s", how,
                     j->restarts, (double)back / 1e6);
    berth__daemon_activate(d, j);
}

/* ---- reconciliation */

int32_t berth__svc_server_gpus(const struct berth__daemon *d)
{
    int32_t g = 0; /* the pool's smallest server */
    for (int32_t i = 0; i < d->infer->servers; i++) {
        int32_t n = d->engine->cluster->srv[d->infer->srv[i]].ngpus;
        g = !g || n < g ? n : g;
    }
    return g;
}

static void reconcile(struct berth__daemon *d, struct berth__service *s, berth_us now)
{
    int32_t live = 0, running = 0, reporting = 0;
    double load = 0;
    for (int r = 0; r < BERTH_SVC_MAX_REPLICAS; r++) {
        struct berth__ljob *j = s->rep[r] ? berth__daemon_job(d, s->rep[r]) : NULL;
        if (!berth__svc_alive(j)) {
            s->rep[r] = 0;
            continue;
        }
        live++;
        running += j->proc && j->then == BERTH_THEN_FINISH;
        if (j->load_at && j->proc) {
            load += j->load;
            reporting++;
        }
    }
    if (s->deleting) {
        for (int r = 0; r < BERTH_SVC_MAX_REPLICAS; r++)
            if (s->rep[r])
                stop_replica(d, berth__daemon_job(d, s->rep[r]), "its service is deleted", now);
        return;
    }
    s->load = load;
    s->reporting = reporting;
    int32_t w = s->as.target > 0 && reporting
                    ? berth__autoscale_step(&s->as, &s->ast, s->wanted, load, now)
                : s->wanted < s->as.min ? s->as.min
                : s->wanted > s->as.max ? s->as.max
                                        : s->wanted;
    if (w != s->wanted) {
        fprintf(d->log, "berthd: service %s: load %.2f over %d replicas: %d wanted (was %d)\n",
                s->name, load, reporting, w, s->wanted);
        if (w > s->wanted) {
            s->scale_ups++;
            if (!s->up_at)
                s->up_at = now;
        } else
            s->scale_downs++;
        s->wanted = w;
    }
    s->waiting_room = 0;
    for (int r = 0; r < BERTH_SVC_MAX_REPLICAS; r++) {
        struct berth__ljob *j = s->rep[r] ? berth__daemon_job(d, s->rep[r]) : NULL;
        if (r < s->wanted && !j && !s->crashloop[0]) {
            struct berth_err e = {0};
            int rc = start_replica(d, s, r, now, &e);
            if (rc == 1)
                s->waiting_room++;
            else if (rc)
                fprintf(d->log, "berthd: service %s: replica %d: %s\n", s->name, r, e.msg);
        } else if (r >= s->wanted && j) {
            stop_replica(d, j, "scaled down", now);
        }
    }
    if (s->up_at && running >= s->wanted) {
        s->last_up_us = now - s->up_at;
        s->max_up_us = s->last_up_us > s->max_up_us ? s->last_up_us : s->max_up_us;
        fprintf(d->log, "berthd: service %s: %d replicas run, %.3f s after the scale-up\n", s->name,
                running, (double)s->last_up_us / 1e6);
        s->up_at = 0;
    }
}

void berth__svc_tick(struct berth__daemon *d, berth_us now)
{
    struct berth__svcs *v = d->svcs;
    if (!v || !d->infer->servers)
        return;
    if (!v->occ && !(v->occ = calloc((size_t)d->infer->servers * BERTH_MAX_SERVER_GPUS, 1)))
        return;
    pin(d);
    int gone = 0;
    for (size_t i = 0; i < v->n; i++)
        reconcile(d, v->s[i], now);
    /* a deleted service with no replica left is gone */
    for (size_t i = 0; i < v->n;) {
        struct berth__service *s = v->s[i];
        int left = 0;
        for (int r = 0; r < BERTH_SVC_MAX_REPLICAS; r++)
            left += s->rep[r] && berth__svc_alive(berth__daemon_job(d, s->rep[r]));
        if (s->deleting && !left) {
            fprintf(d->log, "berthd: service %s (%" PRIu64 ") is gone\n", s->name, s->id);
            berth__svc_free_one(s);
            v->s[i] = v->s[--v->n];
            gone = 1;
        } else
            i++;
    }
    struct berth_err e = {0};
    if (gone && berth__svc_store(d, &e))
        fprintf(d->log, "berthd: services: %s (the deleted service is written again later)\n",
                e.msg);
    if (!v->n && !gone)
        return;
    int32_t pinned = pin(d), need = 0, sg = berth__svc_server_gpus(d);
    for (size_t i = 0; i < v->n; i++) {
        int32_t n =
            berth__autoscale_servers(v->s[i]->deleting ? 0 : v->s[i]->wanted, v->s[i]->gpus, sg);
        need += n > 0 ? n : 0;
    }
    int32_t dem = need > pinned ? need : pinned;
    dem = dem > d->infer->servers ? d->infer->servers : dem;
    if (dem != d->infer->demand && berth__daemon_infer_set(d, dem, now, &e))
        fprintf(d->log, "berthd: services: inference demand %d: %s\n", dem, e.msg);
}

/* ---- recovery */

int berth__svc_recover_job(struct berth__daemon *d, struct berth__ljob *j, berth_us now,
                           struct berth_err *err)
{
    (void)err;
    j->in_engine = 0;
    if (!j->launched || j->launched != j->attempt) { /* its attempt was never journaled */
        j->launch = 1;
        berth__daemon_activate(d, j);
        return berth__ljob_note(j, now, j->state, "replica launched after a restart");
    }
    int st = d->xo->poll(d->xs, j);
    if (st == 0) { /* its shim lives: re-adopted on its GPUs */
        j->proc = 1;
        berth__daemon_activate(d, j);
        if (!j->npslots) {
            if (j->nslots)
                memcpy(j->pslots, j->slots, (size_t)j->nslots * sizeof *j->slots);
            j->npslots = j->nslots;
        }
        if (j->then == BERTH_THEN_CANCEL) { /* it was being stopped: let it finish */
            berth__daemon_drain(d, j, 1);
            j->kill_at = now + (j->grace_us > 0 ? j->grace_us : 1);
            d->xo->stop(d->xs, j, 0);
            return 0;
        }
        return berth__ljob_note(j, now, BERTH_L_RUNNING,
                                "replica re-adopted after a restart (pid %d)", j->shim_pid);
    }
    j->proc = 0;
    if (j->then == BERTH_THEN_CANCEL) {
        j->end_us = now;
        return berth__ljob_note(j, now, BERTH_L_CANCELLED, "ended while berthd was down");
    }
    j->restarts++;
    j->resume = 1;
    j->launch = 1;
    j->then = BERTH_THEN_FINISH;
    berth__daemon_activate(d, j);
    return berth__ljob_note(j, now, BERTH_L_RUNNING,
                            "replica attempt %d %s while berthd was down: restarted", j->attempt,
                            st == 1 ? "ended" : "lost its supervisor");
}

void berth__svc_recovered(struct berth__daemon *d, berth_us now)
{
    for (size_t i = 0; i < d->njobs; i++) {
        struct berth__ljob *j = d->jobs[i];
        if (!berth__svc_alive(j) || !j->svc)
            continue;
        struct berth__service *s = berth__svc_find(d, j->svc);
        if (!s || j->replica < 0 || j->replica >= BERTH_SVC_MAX_REPLICAS ||
            (s->rep[j->replica] && s->rep[j->replica] != j->id)) {
            stop_replica(d, j,
                         s ? "a second replica of the same index: stopped" : "its service is gone",
                         now);
            continue;
        }
        s->rep[j->replica] = j->id;
    }
    for (size_t i = 0; d->svcs && i < d->svcs->n; i++) {
        struct berth__service *s = d->svcs->s[i];
        int32_t n = 0;
        for (int r = 0; r < BERTH_SVC_MAX_REPLICAS; r++)
            n += s->rep[r] != 0;
        s->wanted = n < s->as.min ? s->as.min : n > s->as.max ? s->as.max : n;
        fprintf(d->log, "berthd: service %s (%" PRIu64 "): %d replicas recovered, %d wanted\n",
                s->name, s->id, n, s->wanted);
    }
}

void berth__svc_free(struct berth__daemon *d)
{
    if (!d->svcs)
        return;
    berth__svc_stop(d);
    for (size_t i = 0; i < d->svcs->n; i++)
        berth__svc_free_one(d->svcs->s[i]);
    free(d->svcs->occ);
    free(d->svcs);
    d->svcs = NULL;
}

/* ---- the hooks the core calls (core.h); self is the daemon */

static int hook_load(struct berth__daemon *d, void *self, struct berth_err *err)
{
    (void)self;
    return berth__svc_load(d, err);
}

static int hook_recover_job(struct berth__daemon *d, void *self, struct berth__ljob *j,
                            berth_us now, struct berth_err *err)
{
    (void)self;
    return j->svc ? berth__svc_recover_job(d, j, now, err) : 0;
}

static void hook_recovered(struct berth__daemon *d, void *self, berth_us now)
{
    (void)self;
    berth__svc_recovered(d, now);
}

static void hook_ended(struct berth__daemon *d, void *self, struct berth__ljob *j, const char *how,
                       berth_us ran, berth_us now)
{
    (void)self;
    if (j->svc)
        berth__svc_exited(d, j, how, ran, now);
}

static int hook_tick(struct berth__daemon *d, void *self, berth_us now, struct berth_err *err)
{
    (void)self, (void)err;
    berth__svc_tick(d, now);
    return 0;
}

/* A service that still names ended job j as a replica keeps it in memory. */
static int hook_keeps(struct berth__daemon *d, void *self, const struct berth__ljob *j)
{
    (void)self;
    if (j->svc && d->svcs)
        for (size_t s = 0; s < d->svcs->n; s++)
            for (int r = 0; d->svcs->s[s] && r < BERTH_SVC_MAX_REPLICAS; r++)
                if (d->svcs->s[s]->rep[r] == j->id)
                    return 1;
    return 0;
}

static void hook_free(void *self)
{
    berth__svc_free(self);
}

static const struct berth__daemon_hooks hooks = {
    .name = "services",
    .load = hook_load,
    .recover_job = hook_recover_job,
    .recovered = hook_recovered,
    .owned_ended = hook_ended,
    .tick = hook_tick,
    .keeps = hook_keeps,
    .free = hook_free,
};

int berth__svc_attach(struct berth__daemon *d, struct berth_err *err)
{
    return berth__daemon_hook(d, &hooks, d, err);
}
