/* The HTTP API's one table of routes and what a handler sees (http.c parses, authenticates
 * the caller and dispatches; routes.c decides what a job token may do and answers). */
#ifndef BERTH_LIVE_ROUTES_H
#define BERTH_LIVE_ROUTES_H

#include <jansson.h>

#include "live/daemon/auth.h"
#include "live/daemon/daemon.h"

struct berth__hreq {
    const char *method;
    uint64_t id; /* the {id} of the path, 0 when none */
    const struct berth__caller *who;
    uint64_t job_token_id; /* the job a job token belongs to (who->job_token) */
    const char *body;      /* NUL-terminated, may be empty */
    size_t body_len;
    const char *(*arg)(void *conn, const char *name); /* query arguments */
    void *conn;
    const char *url; /* the path (a public route's handler reads its tail) */
};

struct berth__hresp {
    int status;
    json_t *json; /* the body (owned), or NULL */
    char *text;   /* a plain-text body (owned), when json is NULL */
    size_t text_len;
    long long offset;        /* >= 0: sent as X-Berth-Offset */
    int more;                /* X-Berth-More: 1 while a log may still grow */
    int retry_after;         /* > 0: sent as Retry-After (seconds), with 429 and 503 */
    const char *type;        /* the text body's Content-Type (NULL: text/plain; charset=utf-8) */
    const void *static_body; /* a body that lives as long as berthd (the UI's files) */
    size_t static_len;
    const char *csp;      /* a Content-Security-Policy to send (pages, pictures) */
    const char *location; /* a redirect's Location */
};

typedef void (*berth__route_fn)(struct berth__daemon *d, const struct berth__hreq *r,
                                struct berth__hresp *out);

struct berth__route {
    const char *method;
    const char *path; /* "/v1/jobs/{id}/cancel" */
    berth__route_fn fn;
    int job_token_ok; /* a job's own token may call it (progress only) */
    int open;         /* no caller needed: /healthz, /metrics, /ui/ (GET, no body) */
};

/* The answer to a bearer token that is no valid token (401). */
#define BERTH_HTTP_UNAUTH "Authorization: expected 'Bearer TOKEN' with a valid token"

extern const struct berth__route berth__routes[];
extern const size_t berth__nroutes;

/* An error answer: {"error": MSG, "field": FIELD} (field = the text before the first ':'
 * of msg when it names one). */
void berth__hresp_error(struct berth__hresp *out, int status, const char *msg);

/* The route of method and url ({id} into *id), or NULL (*path_known says 405 or 404). A
 * pattern ending in '*' takes any rest of the path. HEAD finds the GET route (answered the
 * same, without the body). */
const struct berth__route *berth__route_find(const char *method, const char *url, uint64_t *id,
                                             int *path_known);
/* Whether the caller may call rt, decided from the headers alone, before any body byte is
 * kept (docs/api.md "Authentication", step 3): 0, or the refusal in out (its status set,
 * and returned). job_token NULL: the caller is a user (who, authenticated by http.c); what
 * it may touch is its handler's to say. Else the bearer token is no user token and is taken
 * for the token of the job of the path's {id}: 401 when the route has no {id}, there is no
 * such job, or the token is not that job's; 403 when it is, but the route does not take job
 * tokens; else *who becomes that job's caller (who->job_token) and *job_id its id. Takes
 * d->mu for the look-up. */
int berth__route_admit(struct berth__daemon *d, const struct berth__route *rt, uint64_t id,
                       const char *job_token, struct berth__caller *who, uint64_t *job_id,
                       struct berth__hresp *out);
/* Answers an authenticated request on its route (http.c calls it once the body is in; the
 * request fuzzer calls it directly). */
void berth__http_dispatch(struct berth__daemon *d, const struct berth__route *rt,
                          const struct berth__hreq *r, struct berth__hresp *out);

/* Where rt is in the table (for the request counters); berth__nroutes when NULL. */
size_t berth__route_index(const struct berth__route *rt);

/* The open routes' handlers (metrics.c, ui.c) and the dashboard's charts (charts.c). */
void berth__route_metrics(struct berth__daemon *d, const struct berth__hreq *r,
                          struct berth__hresp *out);
void berth__route_healthz(struct berth__daemon *d, const struct berth__hreq *r,
                          struct berth__hresp *out);
void berth__route_ui(struct berth__daemon *d, const struct berth__hreq *r,
                     struct berth__hresp *out);
void berth__route_ui_redirect(struct berth__daemon *d, const struct berth__hreq *r,
                              struct berth__hresp *out);
void berth__route_chart(struct berth__daemon *d, const struct berth__hreq *r,
                        struct berth__hresp *out);
/* The request's body as JSON (duplicate keys refused), or NULL with a 400 in out. */
json_t *berth__route_body(const struct berth__hreq *r, struct berth__hresp *out);
/* The same for a body of one field: any other field is a 400 naming it; *val is the field's
 * value (NULL when absent). */
json_t *berth__route_body_one(const struct berth__hreq *r, struct berth__hresp *out,
                              const char *field, json_t **val);
/* Services (routes_service.c). */
void berth__route_svc_create(struct berth__daemon *d, const struct berth__hreq *r,
                             struct berth__hresp *out);
void berth__route_svc_list(struct berth__daemon *d, const struct berth__hreq *r,
                           struct berth__hresp *out);
void berth__route_svc_show(struct berth__daemon *d, const struct berth__hreq *r,
                           struct berth__hresp *out);
void berth__route_svc_delete(struct berth__daemon *d, const struct berth__hreq *r,
                             struct berth__hresp *out);
void berth__route_job_load(struct berth__daemon *d, const struct berth__hreq *r,
                           struct berth__hresp *out);

#endif
