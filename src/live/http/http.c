/* berthd's HTTP server on libmicrohttpd, on TCP and on a Unix socket whose callers are
 * known by their peer credentials. A few threads (libmicrohttpd's epoll pool) read and write
 * every socket and tell callers apart (the token table has a lock of its own); whatever may
 * wait (the handler, which may take the daemon's lock or wait for a journal commit, and a
 * job token's check, which reads the job table) runs on the worker threads of workq.c while
 * its connection is suspended, so a connection costs a thread only while it is being
 * answered and an idle or slow one costs a socket.
 *
 * Bounds, so that no client can starve another or the daemon: the caller is authenticated
 * as soon as the headers are in, before any body byte is kept (a bad token, an unknown
 * route or a Content-Length over the limit is answered at once); bodies are kept up to the
 * limit; a watchdog closes connections whose headers (or, after them, whose body) do not
 * arrive within their deadlines, however slowly they trickle in (slowloris). Connections
 * not yet admitted (no request's headers in) are bounded per address (per account on the
 * Unix socket) and in all; past either bound the oldest of the address holding the most
 * goes, never the newcomer, so that a client sharing an address with a thousand slow
 * senders (the head node's loopback) still gets in.
 *
 * The server's parts: this file (answers, request counters, routes, authentication, the
 * requests' steps, start and stop), http_watchdog.c (the connection list, its deadlines and
 * the bounds on connections not yet admitted), http_listen.c (the listening sockets: a
 * restart's handover, the Unix socket, the open-files limit); what they share is
 * http_int.h. */
#define _GNU_SOURCE /* struct ucred, SO_PEERCRED */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <microhttpd.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "io/json_load.h"
#include "live/daemon/options.h"
#include "live/daemon/socket_rule.h"
#include "live/http/http.h"
#include "live/http/http_int.h"
#include "live/http/routes.h"
#include "live/http/workq.h"
#include "solve/lp_alloc.h"
#include "util/mem.h"

/* libmicrohttpd's threads reading and writing the sockets of the API and of the Unix socket
 * (the metrics address has one): they never wait on anything but the sockets */
#define BERTH_HTTP_POLL_THREADS 4

/* One request's state, from its headers to its answer. Its steps: ADMITTING (a worker
 * runs admit() while the connection is suspended), BODY (admitted: the body comes in),
 * RUNNING (a worker runs the handler, suspended again), READY (q->out is the answer). */
enum { ADMITTING, ADMITTED, BODY_IN, RUNNING, READY };
struct req {
    char *body;
    size_t len, cap;
    int too_big;
    int step;
    struct berth__caller who;
    const struct berth__route *rt;
    uint64_t id, job_token_id;
    struct berth__hresp early; /* an answer decided before the body (status != 0) */
    struct berth__hresp out;   /* the handler's */
    struct MHD_Connection *c;  /* for the worker: what it answers and resumes */
    struct listener *l;
    const char *url, *method; /* MHD's, valid for the request's life */
};

static const char *query_arg(void *conn, const char *name)
{
    return MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, name);
}

/* msg with each byte that is not part of a valid UTF-8 sequence replaced by '?' (messages
 * quote request bytes, and cut them: jansson refuses invalid UTF-8). */
static void utf8_clean(char *buf, size_t cap, const char *msg)
{
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)msg;
    while (*p && o + 1 < cap) {
        size_t n = *p < 0x80         ? 1
                   : (*p >> 5) == 6  ? 2
                   : (*p >> 4) == 14 ? 3
                   : (*p >> 3) == 30 ? 4
                                     : 0;
        size_t k = 1;
        while (n && k < n && (p[k] & 0xc0) == 0x80)
            k++;
        if (!n || k < n || o + n >= cap) {
            buf[o++] = '?';
            p++;
            continue;
        }
        memcpy(buf + o, p, n);
        o += n;
        p += n;
    }
    buf[o] = '\0';
}

void berth__hresp_error(struct berth__hresp *out, int status, const char *msg_in)
{
    out->status = status;
    json_decref(out->json);
    char msg[1024];
    utf8_clean(msg, sizeof msg, msg_in);
    const char *colon = strstr(msg, ": ");
    json_t *o = json_pack("{s:s}", "error", msg);
    if (!o) { /* what jansson still refuses (an overlong form, a surrogate): ASCII only */
        for (char *c = msg; *c; c++)
            if ((unsigned char)*c >= 0x80)
                *c = '?';
        o = json_pack("{s:s}", "error", msg);
    }
    if (o && colon && colon - msg < 64 && !memchr(msg, ' ', (size_t)(colon - msg)))
        json_object_set_new(o, "field", json_stringn(msg, (size_t)(colon - msg)));
    out->json = o;
}

static enum MHD_Result send_resp(struct MHD_Connection *c, struct berth__hresp *r)
{
    char *buf = NULL;
    size_t len = 0;
    const char *type = "application/json";
    enum MHD_ResponseMemoryMode mode = MHD_RESPMEM_MUST_FREE;
    if (r->json) {
        /* 15 digits: a share of 0.4 reads 0.4, not 0.40000000000000002 */
        buf = berth__json_dumps(r->json, JSON_COMPACT | JSON_REAL_PRECISION(15));
        len = buf ? strlen(buf) : 0;
        json_decref(r->json);
        r->json = NULL;
    } else if (r->static_body) {
        buf = (char *)r->static_body;
        len = r->static_len;
        type = r->type ? r->type : "application/octet-stream";
        mode = MHD_RESPMEM_PERSISTENT;
    } else if (r->text) {
        buf = r->text;
        len = r->text_len;
        type = r->type ? r->type : "text/plain; charset=utf-8";
        r->text = NULL;
    }
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        len, buf ? buf : (void *)"", buf ? mode : MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        if (mode == MHD_RESPMEM_MUST_FREE)
            free(buf);
        return MHD_NO;
    }
    if (len)
        MHD_add_response_header(resp, "Content-Type", type);
    /* every answer: no sniffing, no framing, no referrer leaving berthd */
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "X-Frame-Options", "DENY");
    MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    if (r->csp)
        MHD_add_response_header(resp, "Content-Security-Policy", r->csp);
    if (r->location)
        MHD_add_response_header(resp, "Location", r->location);
    if (r->offset >= 0) {
        char v[32];
        snprintf(v, sizeof v, "%lld", r->offset);
        MHD_add_response_header(resp, "X-Berth-Offset", v);
        MHD_add_response_header(resp, "X-Berth-More", r->more ? "1" : "0");
    }
    if (r->retry_after > 0) {
        char v[32];
        snprintf(v, sizeof v, "%d", r->retry_after);
        MHD_add_response_header(resp, "Retry-After", v);
    }
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)r->status, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* ---- request counters ------------------------------------------------------------------ */

/* The routes berthd's main gave (berth__http_routes); the server knows no handler by name. */
static struct berth__http_table table;

void berth__http_routes(const struct berth__http_table *t)
{
    table = *t;
}

const struct berth__http_table *berth__http_table(void)
{
    return &table;
}

const int berth__http_codes[BERTH_HTTP_CODES] = {200, 201, 204, 301, 400, 401, 403, 404,
                                                 405, 409, 413, 429, 500, 503, 507, 0};

static size_t code_index(int status)
{
    for (size_t i = 0; i + 1 < BERTH_HTTP_CODES; i++)
        if (berth__http_codes[i] == status)
            return i;
    return BERTH_HTTP_CODES - 1;
}

static void count(struct httpd *h, const struct berth__route *rt, int status)
{
    if (h->counts)
        atomic_fetch_add_explicit(
            &h->counts[berth__route_index(rt) * BERTH_HTTP_CODES + code_index(status)], 1,
            memory_order_relaxed);
}

uint64_t berth__http_count(struct berth__daemon *d, size_t route, size_t code)
{
    struct httpd *h = d->http;
    if (!h || !h->counts || route > table.n || code >= BERTH_HTTP_CODES)
        return 0;
    return atomic_load_explicit(&h->counts[route * BERTH_HTTP_CODES + code], memory_order_relaxed);
}

const char *berth__http_metrics_addr(struct berth__daemon *d)
{
    struct httpd *h = d->http;
    return h && h->met ? h->met_addr : "";
}

/* Answers r on the connection and counts it. */
static enum MHD_Result answer(struct httpd *h, struct MHD_Connection *c,
                              const struct berth__route *rt, struct berth__hresp *r)
{
    count(h, rt, r->status);
    return send_resp(c, r);
}

/* ---- routes ------------------------------------------------------------------------ */

/* Matches path against pattern; "{id}" takes a whole number >= 1. */
static int match(const char *pattern, const char *path, uint64_t *id)
{
    while (*pattern && *path) {
        if (pattern[0] == '*' && !pattern[1])
            return 1; /* the rest of the path, whatever it is (the handler looks it up) */
        if (!strncmp(pattern, "{id}", 4)) {
            char *end;
            if (*path < '1' || *path > '9')
                return 0;
            errno = 0;
            unsigned long long v = strtoull(path, &end, 10);
            if (errno)
                return 0;
            *id = v;
            path = end;
            pattern += 4;
            continue;
        }
        if (*pattern++ != *path++)
            return 0;
    }
    if (pattern[0] == '*' && !pattern[1])
        return 1; /* an empty rest */
    return !*pattern && !*path;
}

size_t berth__route_index(const struct berth__route *rt)
{
    return rt ? (size_t)(rt - table.routes) : table.n;
}

const struct berth__route *berth__route_find(const char *method, const char *url, uint64_t *id,
                                             int *path_known)
{
    *path_known = 0;
    /* HEAD is GET without the body (RFC 9110 9.3.2): the same route, status and headers;
     * libmicrohttpd sends no body for it */
    if (!strcmp(method, "HEAD"))
        method = "GET";
    for (size_t i = 0; i < table.n; i++) {
        uint64_t v = 0;
        if (match(table.routes[i].path, url, &v)) {
            *path_known = 1;
            if (!strcmp(table.routes[i].method, method)) {
                *id = v;
                return &table.routes[i];
            }
        }
    }
    return NULL;
}

void berth__http_dispatch(struct berth__daemon *d, const struct berth__route *rt,
                          const struct berth__hreq *r, struct berth__hresp *out)
{
    rt->fn(d, r, out);
}

/* ---- authentication, before any body byte is kept ----------------------------------- */

static const char *bearer(struct MHD_Connection *c)
{
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    return h && !strncmp(h, "Bearer ", 7) ? h + 7 : NULL;
}

int berth__httpd_peer_uid(struct MHD_Connection *c, uid_t *uid)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    struct ucred cr;
    socklen_t len = sizeof cr;
    if (!ci || getsockopt(ci->connect_fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
        return -1;
    *uid = cr.uid;
    return 0;
}

/* Decides everything that needs no body: who calls, which route, whether the route lets that
 * caller in (the routes' berth__route_admit: what a job token may do), whether the body may
 * come. Fills q->early with the answer when the request is refused now. On a poll thread
 * (may_wait 0) it takes no lock that waits on the daemon: a job's token, which needs the job
 * table (d->mu), returns 1 and is decided again on a worker. */
static int admit(struct berth__daemon *d, struct MHD_Connection *c, const struct listener *l,
                 const char *url, const char *method, struct req *q, int may_wait)
{
    int local = l->local, path_known;
    q->rt = berth__route_find(method, url, &q->id, &path_known);
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    if (q->rt && q->rt->open) {
        /* no caller to know: no token is read, no body is taken */
        int is_metrics = !strcmp(q->rt->path, "/metrics");
        if (is_metrics && d->o.metrics_listen && !l->metrics)
            berth__hresp_error(&q->early, 404,
                               "/metrics: served on the metrics address (--metrics-listen)");
        else if (l->metrics && strcmp(q->rt->path, "/metrics") && strcmp(q->rt->path, "/healthz"))
            berth__hresp_error(&q->early, 404, "this address serves /metrics and /healthz only");
        else if (cl && strtoull(cl, NULL, 10) > 0)
            berth__hresp_error(&q->early, 413, "body: these routes take none");
        return 0;
    }
    if (l->metrics) {
        berth__hresp_error(&q->early, 404, "this address serves /metrics and /healthz only");
        return 0;
    }
    const char *tok = bearer(c);
    int who_ok = 0, job_tok = 0, has_token = 0;
    struct berth__caller *who = &q->who;
    pthread_rwlock_rdlock(&d->auth_lock); /* the token table may be reloaded (SIGHUP) */
    if (tok)
        who_ok = !berth__auth_user(d->auth, tok, who);
    else if (local) {
        uid_t uid;
        who_ok = !berth__httpd_peer_uid(c, &uid) && !berth__auth_peer(d->auth, uid, who);
        has_token = who_ok && berth__auth_has_token(d->auth, who->uid);
    }
    pthread_rwlock_unlock(&d->auth_lock);
    char why[512];
    /* an account on the socket: --socket-users, --socket-requires-token; the rule may look
     * the account's groups up (NSS), which may wait: on a worker */
    if (who_ok && !tok && d->socket_rule && !may_wait)
        return 1;
    if (who_ok && !tok &&
        berth__socket_rule_check(d->socket_rule, who, has_token, d->self.uid, why, sizeof why)) {
        berth__hresp_error(&q->early, 403, why);
        return 0;
    }
    job_tok = tok && !who_ok; /* maybe a job's own token: the route checks it */
    if (!who_ok && !job_tok) {
        berth__hresp_error(&q->early, 401,
                           local ? "caller: this account may not use berthd (peer credentials "
                                   "of the Unix socket)"
                                 : BERTH_HTTP_UNAUTH);
        return 0;
    }
    if (!q->rt) {
        berth__hresp_error(&q->early, path_known ? 405 : 404,
                           path_known ? "method not allowed" : "no such route");
        return 0;
    }
    if (job_tok && !may_wait)
        return 1;
    if (table.admit(d, q->rt, q->id, job_tok ? tok : NULL, who, &q->job_token_id, &q->early))
        return 0;
    if (cl && strtoull(cl, NULL, 10) > d->o.max_body)
        q->too_big = 1;
    if (q->too_big) {
        char msg[96];
        snprintf(msg, sizeof msg, "body: larger than the limit of %zu bytes", d->o.max_body);
        berth__hresp_error(&q->early, 413, msg);
    }
    return 0;
}

/* ---- requests ----------------------------------------------------------------------- */

/* A worker: who calls and whether they may (admit), then the connection goes on. */
static void work_admit(void *arg)
{
    struct req *q = arg;
    struct MHD_Connection *c = q->c;
    admit(q->l->h->d, c, q->l, q->url, q->method, q, 1);
    q->step = ADMITTED;
    MHD_resume_connection(c); /* q is the poll thread's again from here */
}

/* A worker: the handler, its answer left in q->out. */
static void work_run(void *arg)
{
    struct req *q = arg;
    struct MHD_Connection *c = q->c;
    struct berth__daemon *d = q->l->h->d;
    if (q->too_big && q->rt->open) {
        berth__hresp_error(&q->out, 413, "body: these routes take none");
    } else if (q->too_big) {
        char msg[96];
        snprintf(msg, sizeof msg, "body: larger than the limit of %zu bytes", d->o.max_body);
        berth__hresp_error(&q->out, 413, msg);
    } else {
        struct berth__hreq r = {.method = q->method,
                                .id = q->id,
                                .who = &q->who,
                                .job_token_id = q->job_token_id,
                                .body = q->body ? q->body : "",
                                .body_len = q->len,
                                .arg = query_arg,
                                .conn = c,
                                .url = q->url};
        berth__http_dispatch(d, q->rt, &r, &q->out);
    }
    q->step = READY;
    MHD_resume_connection(c);
}

/* Suspends q's connection and gives q to a worker; when none may take it (berthd is
 * stopping) the answer is a 503 at once. */
static void hand_off(struct httpd *h, struct req *q, berth__work_fn fn)
{
    MHD_suspend_connection(q->c);
    if (atomic_load(&h->closing) || berth__workq_push(h->wq, fn, q)) {
        berth__hresp_error(&q->out, 503, "berthd is stopping: try again in a moment");
        q->out.retry_after = 1;
        q->step = READY;
        MHD_resume_connection(q->c);
    }
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    (void)version;
    struct listener *l = cls;
    struct berth__daemon *d = l->h->d;
    struct req *q = *con_cls;
    if (!q) { /* the headers are in: a worker decides what needs no body */
        q = calloc(1, sizeof *q);
        if (!q)
            return MHD_NO;
        q->early.offset = -1;
        q->out = (struct berth__hresp){.status = 200, .offset = -1};
        q->c = c;
        q->l = l;
        q->url = url;
        q->method = method;
        *con_cls = q;
        if (admit(d, c, l, url, method, q, 0)) { /* a job's token: decided on a worker */
            q->step = ADMITTING;
            hand_off(l->h, q, work_admit);
            return MHD_YES;
        }
        q->step = ADMITTED; /* decided here, on the poll thread: go on at once */
    }
    switch (q->step) {
    case ADMITTING:
    case RUNNING: /* suspended: libmicrohttpd does not call; nothing to do if it did */
        return MHD_YES;
    case READY:
        return answer(l->h, c, q->rt, &q->out);
    case ADMITTED:
        if (q->early.status) /* refused: answer now, the body is never read */
            return answer(l->h, c, q->rt, &q->early);
        q->step = BODY_IN;
        berth__httpd_conn_phase(l->h, c, BODY);
        if (!*upload_size) /* the headers' call (or it again, after a resume): body next */
            return MHD_YES;
        break;
    default:
        break;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        if (q->rt->open) { /* a chunked body on an open route: not kept */
            *upload_size = 0;
            q->too_big = 1;
            return MHD_YES;
        }
        if (!q->too_big && q->len + n <= d->o.max_body) {
            if (BERTH_GROW(q->body, q->cap, q->len + n + 1))
                return MHD_NO;
            memcpy(q->body + q->len, upload, n);
            q->len += n;
            q->body[q->len] = '\0';
        } else {
            q->too_big = 1;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    berth__httpd_conn_phase(l->h, c, BUSY);
    q->step = RUNNING;
    hand_off(l->h, q, work_run);
    return MHD_YES;
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
                    enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    struct listener *l = cls;
    struct req *q = *con_cls;
    if (q) {
        json_decref(q->early.json);
        json_decref(q->out.json);
        free(q->out.text);
        free(q->body);
        free(q);
    }
    *con_cls = NULL;
    berth__httpd_conn_phase(l->h, c,
                            HEADERS); /* keep-alive: the next request's headers have a deadline */
}

/* ---- start and stop ----------------------------------------------------------------- */

static struct MHD_Daemon *start_mhd(struct httpd *h, struct listener *l, int listen_fd,
                                    const struct sockaddr_in *sa, int port)
{
    const struct berth__daemon_opts *o = &h->d->o;
    /* epoll on a small pool of threads; ITC: a resumed connection goes on at once, and a
     * restart's handover quiesces the daemon (MHD_quiesce_daemon needs it). The bound per
     * address is berthd's own (evict), on connections not yet admitted only. */
    unsigned flags =
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME;
    unsigned idle = (unsigned)((o->header_timeout_us + o->body_timeout_us) / BERTH_US_PER_S + 5);
    unsigned pool = l->metrics ? 1 : BERTH_HTTP_POLL_THREADS;
    if (listen_fd >= 0) /* the Unix socket, or a TCP one handed over by a restart */
        return MHD_start_daemon(flags, 0, NULL, NULL, on_request, l, MHD_OPTION_LISTEN_SOCKET,
                                listen_fd, MHD_OPTION_NOTIFY_COMPLETED, on_done, l,
                                MHD_OPTION_NOTIFY_CONNECTION, berth__httpd_on_connection, l,
                                MHD_OPTION_CONNECTION_LIMIT, (unsigned)o->max_connections,
                                MHD_OPTION_THREAD_POOL_SIZE, pool, MHD_OPTION_CONNECTION_TIMEOUT,
                                idle, MHD_OPTION_END);
    return MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, l, MHD_OPTION_SOCK_ADDR,
                            sa, MHD_OPTION_NOTIFY_COMPLETED, on_done, l,
                            MHD_OPTION_NOTIFY_CONNECTION, berth__httpd_on_connection, l,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)o->max_connections,
                            MHD_OPTION_THREAD_POOL_SIZE, pool, MHD_OPTION_CONNECTION_TIMEOUT, idle,
                            MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned)1, MHD_OPTION_END);
}

int berth__http_start(struct berth__daemon *d, struct berth_err *err)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)d->o.port)};
    if (inet_pton(AF_INET, d->o.addr, &sa.sin_addr) != 1)
        return berth_err_set(err, BERTH_EINPUT, "--listen: expected an IPv4 address, found '%s'",
                             d->o.addr);
    struct httpd *h = calloc(1, sizeof *h);
    if (!h)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    h->d = d;
    h->ltcp = (struct listener){h, 0, 0};
    h->lunix = (struct listener){h, 1, 0};
    h->lmet = (struct listener){h, 0, 1};
    size_t ncounts = (table.n + 1) * BERTH_HTTP_CODES;
    h->counts = malloc(ncounts * sizeof *h->counts);
    if (!h->counts) {
        free(h);
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < ncounts; i++)
        atomic_init(&h->counts[i], 0);
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->wake, NULL);
    d->http = h;
    berth__httpd_raise_nofile(d);
    /* one queued item per connection at most: the queue never refuses one */
    int rc = berth__workq_start((size_t)d->o.http_workers, (size_t)d->o.max_connections * 3 + 8,
                                berth__lp_thread_done, &h->wq, err);
    if (rc) {
        berth__http_stop(d);
        return rc;
    }
    char env[128] = "";
    const char *fds = getenv("BERTH_LISTEN_FDS"); /* a restart's handover; jobs never see it */
    if (fds) {
        snprintf(env, sizeof env, "%s", fds);
        unsetenv("BERTH_LISTEN_FDS");
    }
    int tfd = berth__httpd_handed_fd(env, "tcp"), mfd = berth__httpd_handed_fd(env, "met"),
        ufd = berth__httpd_handed_fd(env, "unix");
    h->tcp = start_mhd(h, &h->ltcp, tfd, &sa, d->o.port);
    if (!h->tcp) {
        berth__http_stop(d);
        return berth_err_set(err, BERTH_EIO, "cannot listen on %s:%d (in use?)", d->o.addr,
                             d->o.port);
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->tcp, MHD_DAEMON_INFO_BIND_PORT);
    d->bound_port = tfd >= 0 ? berth__httpd_bound_port_of(tfd) : info ? info->port : d->o.port;
    if (d->o.metrics_listen) {
        struct sockaddr_in ms = {.sin_family = AF_INET};
        char addr[64];
        int port = 0;
        if (berth__parse_listen(d->o.metrics_listen, addr, sizeof addr, &port) ||
            inet_pton(AF_INET, addr, &ms.sin_addr) != 1) {
            berth__http_stop(d);
            return berth_err_set(err, BERTH_EINPUT,
                                 "--metrics-listen: expected ADDR:PORT (IPv4), found '%s'",
                                 d->o.metrics_listen);
        }
        ms.sin_port = htons((uint16_t)port);
        h->met = start_mhd(h, &h->lmet, mfd, &ms, port);
        if (!h->met) {
            berth__http_stop(d);
            return berth_err_set(err, BERTH_EIO, "--metrics-listen: cannot listen on %s (in use?)",
                                 d->o.metrics_listen);
        }
        const union MHD_DaemonInfo *mi = MHD_get_daemon_info(h->met, MHD_DAEMON_INFO_BIND_PORT);
        snprintf(h->met_addr, sizeof h->met_addr, "%s:%d", addr,
                 mfd >= 0 ? berth__httpd_bound_port_of(mfd)
                 : mi     ? mi->port
                          : port);
        fprintf(d->log, "berthd: metrics on http://%s/metrics\n", h->met_addr);
        fflush(d->log);
    }
    if (d->socket_path[0]) {
        int fd = ufd >= 0 ? ufd : berth__httpd_unix_listen(d->socket_path, err);
        if (fd < 0) {
            berth__http_stop(d);
            return fd;
        }
        h->unix_ = start_mhd(h, &h->lunix, fd, NULL, 0);
        if (!h->unix_) {
            close(fd);
            berth__http_stop(d);
            return berth_err_set(err, BERTH_EIO, "--socket %s: cannot serve it", d->socket_path);
        }
    }
    if (pthread_create(&h->watchdog, NULL, berth__httpd_watchdog_main, h)) {
        berth__http_stop(d);
        return berth_err_set(err, BERTH_EIO, "cannot start the HTTP watchdog thread");
    }
    h->watching = 1;
    return 0;
}

void berth__http_stats(struct berth__daemon *d, uint64_t *open, uint64_t *cut_headers,
                       uint64_t *cut_body)
{
    struct httpd *h = d->http;
    *open = *cut_headers = *cut_body = 0;
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    *open = h->nconns;
    *cut_headers = h->cut_headers;
    *cut_body = h->cut_body;
    pthread_mutex_unlock(&h->mu);
}

void berth__http_pool_stats(struct berth__daemon *d, struct berth__http_pool *p)
{
    struct httpd *h = d->http;
    *p = (struct berth__http_pool){0};
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    p->evicted = h->evicted;
    p->unadmitted = h->unadmitted;
    pthread_mutex_unlock(&h->mu);
    struct berth__workq_stats st;
    berth__workq_stats(h->wq, &st);
    p->done = st.done;
    p->refused = st.refused;
    p->workers = st.threads;
    p->busy = st.busy;
    p->queued = st.queued;
    p->max_queued = st.max_queued;
}

void berth__http_stop(struct berth__daemon *d)
{
    struct httpd *h = d->http;
    if (!h)
        return;
    if (h->watching) {
        pthread_mutex_lock(&h->mu);
        h->stop = 1;
        pthread_cond_signal(&h->wake);
        pthread_mutex_unlock(&h->mu);
        pthread_join(h->watchdog, NULL);
    }
    /* what the workers hold or have queued is answered and resumed before libmicrohttpd
     * stops (it must find no connection suspended); later requests get a 503 */
    atomic_store(&h->closing, 1);
    berth__workq_stop(h->wq);
    if (h->tcp)
        MHD_stop_daemon(h->tcp);
    if (h->met)
        MHD_stop_daemon(h->met);
    if (h->unix_) {
        MHD_stop_daemon(h->unix_);
        if (!h->handed) /* else the next berthd serves it */
            unlink(d->socket_path);
    }
    berth__workq_free(h->wq);
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->wake);
    free(h->counts);
    free(h);
    d->http = NULL;
}
