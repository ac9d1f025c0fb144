/* The services' routes (docs/api.md "Services"): create, list, show and delete a service
 * (service.h), and a replica's load report, which its own job token may post. */
#include <math.h>
#include <string.h>

#include "live/daemon/service.h"
#include "live/http/routes.h"

void berth__route_svc_create(struct berth__daemon *d, const struct berth__hreq *r,
                             struct berth__hresp *out)
{
    if (!r->who->admin) { /* before the body is looked at */
        berth__hresp_error(out, 403,
                           "only an admin may create a service (it drives the inference demand)");
        return;
    }
    json_t *body = berth__route_body(r, out);
    if (!body)
        return;
    struct berth_err err = {0};
    json_t *o = NULL;
    int st = berth__svc_create(d, body, r->who, &o, &err);
    json_decref(body);
    if (st) {
        berth__hresp_error(out, st, err.msg[0] ? err.msg : "out of memory");
        if (st == 503)
            out->retry_after = 5;
        return;
    }
    out->status = 201;
    out->json = o;
}

void berth__route_svc_list(struct berth__daemon *d, const struct berth__hreq *r,
                           struct berth__hresp *out)
{
    pthread_mutex_lock(&d->mu);
    out->json = berth__svc_list(d, r->who);
    pthread_mutex_unlock(&d->mu);
}

void berth__route_svc_show(struct berth__daemon *d, const struct berth__hreq *r,
                           struct berth__hresp *out)
{
    pthread_mutex_lock(&d->mu);
    out->json = berth__svc_json(d, r->id, r->who);
    pthread_mutex_unlock(&d->mu);
    if (!out->json)
        berth__hresp_error(out, 404, "id: no such service");
}

void berth__route_svc_delete(struct berth__daemon *d, const struct berth__hreq *r,
                             struct berth__hresp *out)
{
    struct berth_err err = {0};
    pthread_mutex_lock(&d->mu);
    int st = berth__svc_delete(d, r->id, r->who, &err);
    if (!st)
        out->json = berth__svc_json(d, r->id, r->who);
    pthread_mutex_unlock(&d->mu);
    if (st) {
        berth__hresp_error(out, st, err.msg);
        if (st == 503)
            out->retry_after = 5;
    }
}

/* {"load": x}: requests/s (or a queue length) the replica sees now. */
void berth__route_job_load(struct berth__daemon *d, const struct berth__hreq *r,
                           struct berth__hresp *out)
{
    json_t *l = NULL, *body = berth__route_body_one(r, out, "load", &l);
    if (!body)
        return;
    if (!json_is_number(l) || !isfinite(json_number_value(l)) || json_number_value(l) < 0 ||
        json_number_value(l) > 1e12) {
        berth__hresp_error(out, 400, "load: required, a number from 0 to 1e12 (requests/s)");
        json_decref(body);
        return;
    }
    double load = json_number_value(l);
    json_decref(body);
    pthread_mutex_lock(&d->mu);
    struct berth__ljob *j = berth__daemon_job(d, r->id);
    if (!j)
        berth__hresp_error(out, 404, "id: no such job");
    else if (r->who->job_token ? r->job_token_id != r->id
                               : !r->who->admin && strcmp(r->who->user, j->user))
        berth__hresp_error(out, 403, "this job belongs to another user");
    else if (!j->svc)
        berth__hresp_error(out, 409, "id: not a service's replica (only replicas report load)");
    else if (berth__lstate_final(j->state) || !j->proc)
        berth__hresp_error(out, 409, "the replica does not run");
    else {
        berth__svc_report(j, load, berth__wall_us());
        pthread_cond_signal(&d->wake);
        out->status = 204;
    }
    pthread_mutex_unlock(&d->mu);
}
