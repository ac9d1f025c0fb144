/* berthd's HTTP server on libmicrohttpd: one thread per connection (a submission blocks
 * its thread until its journal commit, while other connections go on), bodies gathered up
 * to the size limit, the bearer token checked, the route found in the table (routes.c)
 * and the answer sent as JSON. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

#include "routes.h"
#include "util/mem.h"

struct conn_state {
    char *body;
    size_t len, cap;
    int too_big;
};

static const char *query_arg(void *conn, const char *name)
{
    return MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, name);
}

void berth__hresp_error(struct berth__hresp *out, int status, const char *msg)
{
    out->status = status;
    json_decref(out->json);
    const char *colon = strstr(msg, ": ");
    json_t *o = json_pack("{s:s}", "error", msg);
    if (colon && colon - msg < 64 && !memchr(msg, ' ', (size_t)(colon - msg)))
        json_object_set_new(o, "field", json_stringn(msg, (size_t)(colon - msg)));
    out->json = o;
}

static enum MHD_Result send_resp(struct MHD_Connection *c, struct berth__hresp *r)
{
    char *buf = NULL;
    size_t len = 0;
    const char *type = "application/json";
    if (r->json) {
        buf = json_dumps(r->json, JSON_COMPACT);
        len = buf ? strlen(buf) : 0;
        json_decref(r->json);
    } else if (r->text) {
        buf = r->text;
        len = r->text_len;
        type = "text/plain; charset=utf-8";
    }
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        len, buf ? buf : (void *)"", buf ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        free(buf);
        return MHD_NO;
    }
    if (len)
        MHD_add_response_header(resp, "Content-Type", type);
    if (r->offset >= 0) {
        char v[32];
        snprintf(v, sizeof v, "%lld", r->offset);
        MHD_add_response_header(resp, "X-Berth-Offset", v);
        MHD_add_response_header(resp, "X-Berth-More", r->more ? "1" : "0");
    }
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)r->status, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* Matches path against pattern; "{id}" takes a whole number >= 1. */
static int match(const char *pattern, const char *path, uint64_t *id)
{
    while (*pattern && *path) {
        if (!strncmp(pattern, "{id}", 4)) {
            char *end;
            if (*path < '1' || *path > '9')
                return 0;
            unsigned long long v = strtoull(path, &end, 10);
            *id = v;
            path = end;
            pattern += 4;
            continue;
        }
        if (*pattern++ != *path++)
            return 0;
    }
    return !*pattern && !*path;
}

static void authenticate(struct berth__daemon *d, struct MHD_Connection *c,
                         struct berth__caller *who, uint64_t *job_id, int *ok)
{
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    *ok = 0;
    if (!h || strncmp(h, "Bearer ", 7))
        return;
    const char *tok = h + 7;
    if (!berth__auth_user(d->auth, tok, who)) {
        *ok = 1;
        return;
    }
    /* maybe a job's own token: checked against the job the path names (dispatch) */
    who->user = NULL;
    who->admin = 0;
    who->job_token = 1;
    *job_id = 0;
    *ok = 2;
}

static void dispatch(struct berth__daemon *d, struct MHD_Connection *c, const char *url,
                     const char *method, struct conn_state *st, struct berth__hresp *out)
{
    struct berth__caller who = {0};
    uint64_t job_id = 0, id = 0;
    int ok;
    authenticate(d, c, &who, &job_id, &ok);
    const struct berth__route *rt = NULL;
    int path_known = 0;
    for (size_t i = 0; i < berth__nroutes && !rt; i++) {
        uint64_t v = 0;
        if (match(berth__routes[i].path, url, &v)) {
            path_known = 1;
            if (!strcmp(berth__routes[i].method, method)) {
                rt = &berth__routes[i];
                id = v;
            }
        }
    }
    if (!ok) {
        berth__hresp_error(out, 401, "Authorization: expected 'Bearer TOKEN' with a valid token");
        return;
    }
    if (!rt) {
        berth__hresp_error(out, path_known ? 405 : 404,
                           path_known ? "method not allowed" : "no such route");
        return;
    }
    if (ok == 2) { /* not a user token: maybe this job's own token */
        const char *tok = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization") + 7;
        pthread_mutex_lock(&d->mu);
        struct berth__ljob *j = id ? berth__daemon_job(d, id) : NULL;
        int mine = j && j->token[0] && berth__auth_same(j->token, tok);
        pthread_mutex_unlock(&d->mu);
        if (!mine) {
            berth__hresp_error(out, 401,
                               "Authorization: expected 'Bearer TOKEN' with a valid token");
            return;
        }
        if (!rt->job_token_ok) {
            berth__hresp_error(out, 403, "a job token may only post its own job's progress");
            return;
        }
        job_id = id;
    }
    if (st->too_big) {
        char msg[96];
        snprintf(msg, sizeof msg, "body: larger than the limit of %zu bytes", d->o.max_body);
        berth__hresp_error(out, 413, msg);
        return;
    }
    struct berth__hreq r = {method,  id,        &who, job_id, st->body ? st->body : "",
                            st->len, query_arg, c};
    rt->fn(d, &r, out);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    (void)version;
    struct berth__daemon *d = cls;
    struct conn_state *st = *con_cls;
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st)
            return MHD_NO;
        *con_cls = st;
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        if (!st->too_big && st->len + n <= d->o.max_body) {
            if (BERTH_GROW(st->body, st->cap, st->len + n + 1))
                return MHD_NO;
            memcpy(st->body + st->len, upload, n);
            st->len += n;
            st->body[st->len] = '\0';
        } else {
            st->too_big = 1;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    struct berth__hresp out = {.status = 200, .offset = -1};
    dispatch(d, c, url, method, st, &out);
    return send_resp(c, &out);
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
                    enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    struct conn_state *st = *con_cls;
    if (st) {
        free(st->body);
        free(st);
    }
    *con_cls = NULL;
}

int berth__http_start(struct berth__daemon *d, struct berth_err *err)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)d->o.port)};
    if (inet_pton(AF_INET, d->o.addr, &sa.sin_addr) != 1)
        return berth_err_set(err, BERTH_EINPUT, "--listen: expected an IPv4 address, found '%s'",
                             d->o.addr);
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL;
    struct MHD_Daemon *h = MHD_start_daemon(
        flags, (uint16_t)d->o.port, NULL, NULL, on_request, d, MHD_OPTION_SOCK_ADDR,
        (struct sockaddr *)&sa, MHD_OPTION_NOTIFY_COMPLETED, on_done, NULL,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)1000, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
        MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned)1, MHD_OPTION_END);
    if (!h)
        return berth_err_set(err, BERTH_EIO, "cannot listen on %s:%d (in use?)", d->o.addr,
                             d->o.port);
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h, MHD_DAEMON_INFO_BIND_PORT);
    d->bound_port = info ? info->port : d->o.port;
    d->http = h;
    return 0;
}

void berth__http_stop(struct berth__daemon *d)
{
    if (d->http)
        MHD_stop_daemon(d->http);
    d->http = NULL;
}
