/* Services' API (service.h): create, delete, show and list, with who may see a service's
 * ports; the definitions' checks and file are service.c's. */
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

int berth__svc_create(struct berth__daemon *d, const json_t *body, const struct berth__caller *who,
                      json_t **out, struct berth_err *err)
{
    if (!who->admin) {
        berth_err_set(err, BERTH_EINPUT,
                      "only an admin may create a service (a service drives the inference "
                      "demand, which only an admin sets)");
        return 403;
    }
    struct berth__service *s = NULL;
    int rc = berth__svc_from_json(d, body, 0, &s, err);
    if (rc)
        return rc == BERTH_EINPUT ? 400 : 500;
    /* the replicas' job body must be a valid job, checked once here */
    struct berth__ljob *probe = NULL;
    json_t *b = json_deep_copy(s->tmpl);
    if (b)
        json_object_set_new(b, "gpus", json_integer(s->gpus));
    rc = b ? berth__ljob_from_submit(b, who->user, who->uid, who->gid, &probe, err)
           : berth_err_set(err, BERTH_ENOMEM, "out of memory");
    json_decref(b);
    berth__ljob_free(probe);
    if (rc) {
        berth__svc_free_one(s);
        return rc == BERTH_EINPUT ? 400 : 500;
    }
    snprintf(s->user, sizeof s->user, "%s", who->user);
    s->uid = who->uid;
    s->gid = who->gid;
    s->created_us = berth__wall_us();
    pthread_mutex_lock(&d->mu);
    int st = 0;
    int32_t sg = berth__svc_server_gpus(d);
    if (!berth__svc_svcs(d))
        st = 500, berth_err_set(err, BERTH_ENOMEM, "out of memory");
    else if (!d->infer->servers)
        st = 400, berth_err_set(err, BERTH_EINPUT,
                                "pool: this cluster has no server in pool \"inference\" (the "
                                "cluster file's \"pool\" of each server)");
    else if (strcmp(d->xo->name, "local"))
        st = 400, berth_err_set(err, BERTH_EINPUT,
                                "pool: services run on the local executor only (this berthd runs "
                                "--executor %s)",
                                d->xo->name);
    else if (s->gpus > sg)
        st = 400, berth_err_set(err, BERTH_EINPUT,
                                "gpus: %d per replica, but the inference pool's servers have %d",
                                s->gpus, sg);
    else if (d->svcs->n >= BERTH_SVC_MAX)
        st = 429, berth_err_set(err, BERTH_EINPUT, "services: at most %d at once", BERTH_SVC_MAX);
    for (size_t i = 0; !st && i < d->svcs->n; i++)
        if (!strcmp(d->svcs->s[i]->name, s->name))
            st = 409, berth_err_set(err, BERTH_EINPUT, "name: service %s exists (id %" PRIu64 ")",
                                    s->name, d->svcs->s[i]->id);
    if (!st) {
        s->id = d->svcs->next_id++;
        d->svcs->s[d->svcs->n++] = s;
        if (berth__svc_store(d, err)) { /* not durable, not made */
            d->svcs->n--;
            d->svcs->next_id--;
            st = 503;
        }
    }
    if (!st) {
        *out = berth__svc_json(d, s->id, who);
        fprintf(d->log,
                "berthd: service %s (%" PRIu64 ") created by %s: %d..%d replicas of %d GPUs\n",
                s->name, s->id, s->user, s->as.min, s->as.max, s->gpus);
        pthread_cond_signal(&d->wake);
    }
    pthread_mutex_unlock(&d->mu);
    if (st)
        berth__svc_free_one(s);
    return st;
}

int berth__svc_delete(struct berth__daemon *d, uint64_t id, const struct berth__caller *who,
                      struct berth_err *err)
{
    if (!who->admin) {
        berth_err_set(err, BERTH_EINPUT, "only an admin may delete a service");
        return 403;
    }
    struct berth__service *s = berth__svc_find(d, id);
    if (!s) {
        berth_err_set(err, BERTH_EINPUT, "id: no such service");
        return 404;
    }
    if (s->deleting)
        return 0;
    s->deleting = 1;
    if (berth__svc_store(d, err)) {
        s->deleting = 0;
        return 503;
    }
    pthread_cond_signal(&d->wake);
    return 0;
}

/* Whether who may see the replicas' ports and what names them (a refusal, the last scrape
 * error): an admin, or the service's owner, who sends it requests; NULL: berthd itself. Any
 * other caller would learn which port to take first (issue 34, M1). */
static int sees_ports(const struct berth__service *s, const struct berth__caller *who)
{
    return !who || who->admin || (who->user[0] && !strcmp(who->user, s->user));
}

static json_t *svc_json(struct berth__daemon *d, const struct berth__service *s,
                        const struct berth__caller *who)
{
    int see = sees_ports(s, who);
    json_t *o = berth__svc_def_json(s), *reps = json_array();
    if (!o || !reps) {
        json_decref(o);
        json_decref(reps);
        return NULL;
    }
    int32_t running = 0;
    for (int r = 0; r < BERTH_SVC_MAX_REPLICAS; r++) {
        struct berth__ljob *j = s->rep[r] ? berth__daemon_job(d, s->rep[r]) : NULL;
        if (!berth__svc_alive(j))
            continue;
        const struct berth__server *v = j->nslots && j->slots[0].server < d->cluster->nsrv
                                            ? &d->cluster->srv[j->slots[0].server]
                                            : NULL;
        running += j->proc && j->then == BERTH_THEN_FINISH;
        json_array_append_new(
            reps, json_pack("{s:i,s:I,s:o,s:s,s:b,s:i,s:o,s:o}", "replica", r, "job",
                            (json_int_t)j->id, "port", see ? json_integer(j->port) : json_null(),
                            "server", v ? v->name : "", "running",
                            j->proc && j->then == BERTH_THEN_FINISH, "restarts", (int)j->restarts,
                            "load", j->load_at ? json_real(j->load) : json_null(), "scrape_refused",
                            see && s->refused[r][0] ? json_string(s->refused[r]) : json_null()));
    }
    json_object_del(o, "uid");
    json_object_del(o, "gid");
    /* every caller reads services: the replicas' environment (which may hold secrets) stays
     * out, as a job's does from its list entry */
    json_t *job = json_deep_copy(json_object_get(o, "job"));
    json_object_del(job, "env");
    json_object_set_new(o, "job", job ? job : json_object());
    json_object_set_new(o, "state",
                        json_string(s->deleting            ? "deleting"
                                    : s->crashloop[0]      ? "crash-loop"
                                    : running >= s->wanted ? "ready"
                                                           : "scaling"));
    json_object_set_new(o, "wanted", json_integer(s->wanted));
    json_object_set_new(o, "running", json_integer(running));
    json_object_set_new(o, "load", json_real(s->load));
    json_object_set_new(o, "reporting", json_integer(s->reporting));
    json_object_set_new(o, "waiting_for_servers", json_integer(s->waiting_room));
    json_object_set_new(o, "restarts", json_integer((json_int_t)s->restarts));
    json_object_set_new(o, "scale_ups", json_integer((json_int_t)s->scale_ups));
    json_object_set_new(o, "scale_downs", json_integer((json_int_t)s->scale_downs));
    json_object_set_new(o, "scrapes", json_integer((json_int_t)s->scrapes));
    json_object_set_new(o, "scrape_errors", json_integer((json_int_t)s->scrape_errors));
    json_object_set_new(o, "scrapes_refused", json_integer((json_int_t)s->scrapes_refused));
    json_object_set_new(o, "last_scrape_error", see ? json_string(s->scrape_err) : json_null());
    json_object_set_new(o, "crash_loop", s->crashloop[0] ? json_string(s->crashloop) : json_null());
    json_object_set_new(o, "last_scale_up_s",
                        s->last_up_us >= 0 ? json_real((double)s->last_up_us / 1e6) : json_null());
    json_object_set_new(o, "max_scale_up_s", json_real((double)s->max_up_us / 1e6));
    json_object_set_new(o, "replicas", reps);
    return o;
}

json_t *berth__svc_json(struct berth__daemon *d, uint64_t id, const struct berth__caller *who)
{
    const struct berth__service *s = berth__svc_find(d, id);
    return s ? svc_json(d, s, who) : NULL;
}

json_t *berth__svc_list(struct berth__daemon *d, const struct berth__caller *who)
{
    json_t *a = json_array();
    for (size_t i = 0; a && d->svcs && i < d->svcs->n; i++)
        json_array_append_new(a, svc_json(d, d->svcs->s[i], who));
    return json_pack("{s:o}", "services", a ? a : json_array());
}
