/* The HTTP API's routes (see docs/api.md): one table, one small handler each, and what a
 * job's own token may do on them. */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/exec/cgroup.h"
#include "model/cluster.h"
#include "model/topo.h"
#include "live/jobs/report.h"
#include "live/http/http.h"
#include "live/http/routes.h"
#include "live/jobs/journal.h"
#include "live/daemon/estimator.h"
#include "live/daemon/service.h"
#include "live/http/estimate_json.h"

#define LOG_CHUNK (1 << 20)

int berth__route_admit(struct berth__daemon *d, const struct berth__route *rt, uint64_t id,
                       const char *job_token, struct berth__caller *who, uint64_t *job_id,
                       struct berth__hresp *out)
{
    if (!job_token)
        return 0;
    pthread_mutex_lock(&d->mu);
    struct berth__ljob *j = id ? berth__daemon_job(d, id) : NULL;
    int mine = j && j->token[0] && berth__auth_same(j->token, job_token);
    pthread_mutex_unlock(&d->mu);
    if (!mine) {
        berth__hresp_error(out, 401, BERTH_HTTP_UNAUTH);
        return 401;
    }
    if (!rt->job_token_ok) {
        berth__hresp_error(out, 403, "a job token may only post its own job's progress");
        return 403;
    }
    memset(who, 0, sizeof *who);
    who->job_token = 1;
    *job_id = id;
    return 0;
}

static int may_touch(const struct berth__hreq *r, const struct berth__ljob *j)
{
    return r->who->admin || (r->who->user[0] && !strcmp(r->who->user, j->user));
}

/* Finds the job of the path under d->mu, or answers 404 / 403 and returns NULL. */
static struct berth__ljob *own_job(struct berth__daemon *d, const struct berth__hreq *r,
                                   struct berth__hresp *out, int must_own)
{
    struct berth__ljob *j = berth__daemon_job(d, r->id);
    if (!j && r->id <= d->purged_below) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "id: job %llu is over and left berthd's memory (--min-job-age): GET "
                 "/v1/jobs/%llu and /v1/acct read it from the journal",
                 (unsigned long long)r->id, (unsigned long long)r->id);
        berth__hresp_error(out, 404, msg);
        return NULL;
    }
    if (!j) {
        berth__hresp_error(out, 404, "id: no such job");
        return NULL;
    }
    if (r->who->job_token ? r->job_token_id != r->id : must_own && !may_touch(r, j)) {
        berth__hresp_error(out, 403, "this job belongs to another user");
        return NULL;
    }
    return j;
}

static void submit(struct berth__daemon *d, const struct berth__hreq *r, struct berth__hresp *out)
{
    json_t *body = berth__route_body(r, out);
    if (!body)
        return;
    struct berth__ljob *j = NULL;
    struct berth_err err = {0};
    int rc = berth__ljob_from_submit(body, r->who->user, r->who->uid, r->who->gid, &j, &err);
    json_decref(body);
    if (rc) {
        berth__hresp_error(out, rc == BERTH_EINPUT ? 400 : 500, err.msg);
        return;
    }
    int retry = 0, st;
    /* the state it is accepted in (pending or held): once submitted the job is the daemon's,
     * and its scheduler may start it before this reply is written (read without the lock) */
    const char *accepted = berth__lstate_name(j->state);
    if (j->narray) { /* an array: one job per task, all accepted or none */
        size_t n = j->narray;
        struct berth__ljob **tasks = calloc(n, sizeof *tasks);
        st = tasks ? 0 : 500;
        if (tasks)
            tasks[0] = j;
        for (size_t i = 1; !st && i < n; i++)
            if (berth__ljob_clone(j, &tasks[i], &err))
                st = 500;
        if (!st)
            st = berth__daemon_submit_array(d, tasks, n, &retry, &err);
        if (st) {
            for (size_t i = 0; tasks && i < n; i++)
                berth__ljob_free(tasks[i]);
            if (!tasks)
                berth__ljob_free(j);
            free(tasks);
            berth__hresp_error(out, st, err.msg[0] ? err.msg : "out of memory");
            out->retry_after = retry;
            return;
        }
        out->status = 201;
        out->json = json_pack("{s:I,s:s,s:{s:I,s:I,s:I}}", "id", (json_int_t)tasks[0]->id, "state",
                              accepted, "array", "first", (json_int_t)tasks[0]->id, "last",
                              (json_int_t)tasks[n - 1]->id, "tasks", (json_int_t)n);
        free(tasks);
        return;
    }
    st = berth__daemon_submit(d, j, &retry, &err);
    if (st) {
        berth__ljob_free(j);
        berth__hresp_error(out, st, err.msg);
        out->retry_after = retry;
        return;
    }
    out->status = 201;
    out->json = json_pack("{s:I,s:s}", "id", (json_int_t)j->id, "state", accepted);
}

/* The run time of j's attempts so far (a live one counted to now). */
static berth_us run_time(const struct berth__ljob *j, berth_us now)
{
    return j->ran_us + (j->proc && j->attempt_us && now > j->attempt_us ? now - j->attempt_us : 0);
}

/* The servers j runs on, by name (distinct, in slot order). */
static json_t *servers_of(struct berth__daemon *d, const struct berth__ljob *j)
{
    json_t *a = json_array();
    for (int32_t i = 0; a && j->state == BERTH_L_RUNNING && i < j->nslots; i++) {
        int seen = 0;
        for (int32_t k = 0; k < i && !seen; k++)
            seen = j->slots[k].server == j->slots[i].server;
        if (!seen && j->slots[i].server < d->cluster->nsrv)
            json_array_append_new(a, json_string(d->cluster->srv[j->slots[i].server].name));
    }
    return a;
}

/* j's estimate from er and, when it has none, why (a pending or running job's only). */
static void set_estimate(json_t *o, const struct berth__est_result *er, const struct berth__ljob *j,
                         berth_us mono)
{
    char buf[256];
    const char *none = berth__est_none_text(er, j, buf, sizeof buf);
    json_object_set_new(o, "estimate", berth__est_job_json(er, j, mono));
    if (none)
        json_object_set_new(o, "estimate_none", json_string(none));
}

static json_t *summary(struct berth__daemon *d, struct berth__ljob *j, berth_us now)
{
    const struct berth_jobspec *s = &j->spec;
    json_t *o = json_pack(
        "{s:I,s:s,s:s,s:s,s:i,s:f,s:s,s:s,s:i,s:I,s:I,s:I,s:i,s:s,s:f,s:o,s:o}", "id",
        (json_int_t)j->id, "name", j->name, "user", j->user, "state", berth__lstate_name(j->state),
        "gpus", s->num_gpus, "gpu_share", s->gpu_share_milli / 1000.0, "gpu_type",
        berth_jobspec_extra(s)->gpu_type, "queue", s->queue, "priority", s->priority, "submit_us",
        (json_int_t)j->submit_us, "start_us", (json_int_t)j->start_us, "end_us",
        (json_int_t)j->end_us, "attempt", j->attempt, "reason", berth__daemon_reason(d, j, NULL, 0),
        "run_s", (double)run_time(j, now) / 1e6, "time_limit_s",
        berth_jobspec_extra(s)->time_limit_us
            ? json_real((double)berth_jobspec_extra(s)->time_limit_us / 1e6)
            : json_null(),
        "servers", servers_of(d, j));
    if (o && j->slurm_id) /* the Slurm job behind it (--executor slurm) */
        json_object_set_new(o, "slurm_job", json_integer(j->slurm_id));
    if (o && j->array_id) {
        json_object_set_new(o, "array_id", json_integer((json_int_t)j->array_id));
        json_object_set_new(o, "array_task", json_integer(j->array_task));
    }
    if (o && berth__lstate_final(j->state)) { /* how it ended, for berth submit --wait */
        json_object_set_new(o, "exit_code",
                            j->exit_code >= 0 ? json_integer(j->exit_code) : json_null());
        json_object_set_new(o, "exit_signal",
                            j->exit_signal >= 0 ? json_integer(j->exit_signal) : json_null());
    }
    return o;
}

static void list(struct berth__daemon *d, const struct berth__hreq *r, struct berth__hresp *out)
{
    const char *why = r->arg(r->conn, "why");
    if (why && strcmp(why, "0") && strcmp(why, "1")) {
        berth__hresp_error(out, 400, "why: expected 0 or 1");
        return;
    }
    const char *state = r->arg(r->conn, "state"), *user = r->arg(r->conn, "user");
    const char *queue = r->arg(r->conn, "queue"), *lim = r->arg(r->conn, "limit");
    const char *all = r->arg(r->conn, "all"), *mine = r->arg(r->conn, "mine");
    if (mine && !strcmp(mine, "1")) { /* the caller's own jobs (berth queue --me) */
        if (user && strcmp(user, r->who->user)) {
            berth__hresp_error(out, 400, "mine: the caller's jobs, and user names another user");
            return;
        }
        user = r->who->user;
    }
    char states[BERTH_L_NSTATES] = {1, 1, 1, 0, 0, 0, 0}; /* default: jobs not over */
    if (all && !strcmp(all, "1"))
        memset(states, 1, sizeof states);
    if (state) {
        memset(states, 0, sizeof states);
        char buf[128];
        snprintf(buf, sizeof buf, "%s", state);
        char *save = NULL;
        for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
            int s = berth__lstate_find(w);
            if (s < 0) {
                berth__hresp_error(out, 400,
                                   "state: expected pending, held, running, completed, failed, "
                                   "cancelled or timeout (comma-separated)");
                return;
            }
            states[s] = 1;
        }
    }
    long limit = 10000;
    if (lim) {
        char *end;
        limit = strtol(lim, &end, 10);
        if (*end || limit < 1 || limit > 1000000) {
            berth__hresp_error(out, 400, "limit: expected a whole number from 1 to 1000000");
            return;
        }
    }
    unsigned long long array = 0; /* the tasks of one array (berth submit --wait) */
    const char *arr = r->arg(r->conn, "array");
    if (arr) {
        char *end;
        array = strtoull(arr, &end, 10);
        if (!*arr || *end || !array) {
            berth__hresp_error(out, 400, "array: expected an array's id (its first task's)");
            return;
        }
    }
    unsigned long long after = 0; /* a page: the jobs whose id is after this one */
    const char *aft = r->arg(r->conn, "after");
    if (aft) {
        char *end;
        after = strtoull(aft, &end, 10);
        if (!*aft || *end) {
            berth__hresp_error(out, 400, "after: expected a job id");
            return;
        }
    }
    const char *est = r->arg(r->conn, "estimate"); /* berth queue --start */
    if (est && strcmp(est, "1") && strcmp(est, "0")) {
        berth__hresp_error(out, 400, "estimate: expected 1 (with each job's predicted start) or 0");
        return;
    }
    int with_est = est && !strcmp(est, "1");
    json_t *a = json_array();
    json_int_t total = 0, next = 0; /* matching jobs in all; the last id of this page */
    /* the estimate, read before the lock: waiting for a run never holds it */
    struct berth__est_result *er = with_est ? berth__estimator_get(d, 1) : NULL;
    berth_us mono = berth__mono_us();
    pthread_mutex_lock(&d->mu);
    berth_us now = berth__wall_us();
    if (array && array - 1 > after) /* an array's tasks are consecutive ids */
        after = array - 1;
    for (size_t i = after < d->njobs ? (size_t)after : d->njobs; i < d->njobs; i++) {
        struct berth__ljob *j = d->jobs[i];
        if (!j || !states[j->state] || (user && strcmp(user, j->user)) ||
            (queue && strcmp(queue, j->spec.queue)) || (array && j->array_id != array))
            continue;
        total++;
        if ((long)json_array_size(a) < limit) {
            json_t *o = summary(d, j, now);
            if (o && why && !strcmp(why, "1") && !berth__lstate_final(j->state)) {
                char text[512]; /* the short reason: O(1) per job, not the queue position */
                berth__daemon_why_brief(d, (struct berth__ljob *)j, text, sizeof text);
                json_object_set_new(o, "why", json_string(text));
            }
            if (o && with_est)
                set_estimate(o, er, j, mono);
            json_array_append_new(a, o);
            next = (json_int_t)j->id;
        }
    }
    pthread_mutex_unlock(&d->mu);
    out->json = json_pack("{s:o,s:I}", "jobs", a, "total", total);
    if (with_est && out->json)
        json_object_set_new(out->json, "estimate", berth__est_run_json(er, mono));
    berth__estimator_put(d, er);
    if (total > (json_int_t)json_array_size(a)) /* more after this page: ?after=next */
        json_object_set_new(out->json, "next", json_integer(next));
}

/* A job that left memory (daemon/core_purge.c), from the journal's document, under no lock: what
 * its record says, as GET /v1/jobs/ID gives it, with "purged": true. 0 when answered, 1 when the
 * journal has no such job. */
static int show_purged(struct berth__daemon *d, const struct berth__hreq *r,
                       struct berth__hresp *out)
{
    char *doc = NULL;
    struct berth_err err = {0};
    int rc = berth__journal_get(d->jn, r->id, &doc, &err);
    if (rc == 1)
        return 1;
    json_t *o = rc ? NULL : json_loads(doc, 0, NULL);
    free(doc);
    struct berth__ljob *j = NULL;
    if (rc || !o || berth__ljob_from_journal(o, &j, &err)) {
        json_decref(o);
        berth__hresp_error(out, 503, rc ? err.msg : "journal: this job's document is damaged");
        return 0;
    }
    json_decref(o);
    if (r->who->job_token ? r->job_token_id != r->id : 0) {
        berth__hresp_error(out, 403, "this job belongs to another user");
    } else {
        out->json = berth__ljob_json(j, 0);
        json_object_set_new(out->json, "why",
                            json_string("over; it left berthd's memory (--min-job-age), this is "
                                        "its journal record"));
        json_object_set_new(out->json, "run_s", json_real((double)j->ran_us / 1e6));
        json_object_set_new(out->json, "purged", json_true());
    }
    berth__ljob_free(j);
    return 0;
}

static void show(struct berth__daemon *d, const struct berth__hreq *r, struct berth__hresp *out)
{
    /* the estimate, read before the lock (a finished job's answer never waits for one) */
    pthread_mutex_lock(&d->mu);
    struct berth__ljob *j0 = berth__daemon_job(d, r->id);
    int wants = j0 && (j0->state == BERTH_L_PENDING || j0->state == BERTH_L_RUNNING);
    int gone = !j0 && r->id <= d->purged_below;
    pthread_mutex_unlock(&d->mu);
    if (gone && !show_purged(d, r, out))
        return;
    struct berth__est_result *er = wants ? berth__estimator_get(d, 0) : NULL;
    berth_us mono = berth__mono_us();
    pthread_mutex_lock(&d->mu);
    struct berth__ljob *j = own_job(d, r, out, 0);
    if (j) {
        char why[768];
        const char *reason = berth__daemon_reason(d, j, why, sizeof why);
        out->json = berth__ljob_json(j, 0);
        if (j->svc && !r->who->job_token && !may_touch(r, j)) /* a replica's port: see service.c */
            json_object_set_new(out->json, "port", json_null());
        set_estimate(out->json, er, j, mono);
        json_object_set_new(out->json, "why", json_string(why));
        json_object_set_new(out->json, "reason", json_string(reason));
        json_object_set_new(out->json, "run_s",
                            json_real((double)run_time(j, berth__wall_us()) / 1e6));
        json_object_set_new(out->json, "servers", servers_of(d, j));
        json_t *al = json_array();
        for (int32_t i = 0; j->state == BERTH_L_RUNNING && i < j->nslots; i++) {
            const struct berth__slot *s = &j->slots[i];
            json_array_append_new(
                al, json_pack("{s:s,s:i,s:s,s:f}", "server", d->cluster->srv[s->server].name, "gpu",
                              s->gpu == BERTH_NO_GPU ? -1 : (int)s->gpu, "type",
                              d->cluster->types[d->cluster->srv[s->server].type].name, "share",
                              (j->run_share_milli > 0 ? j->run_share_milli : 1000) / 1000.0));
        }
        json_object_set_new(out->json, "allocation", al);
        if (j->state == BERTH_L_RUNNING && j->nslots && berth_cluster_has_topology(d->cluster))
            json_object_set_new(/* the level its gang spans (docs/api.md) */
                                out->json, "span",
                                json_string(berth__topo_level_name(
                                    berth__topo_span(d->cluster, j->slots, j->nslots))));
    }
    pthread_mutex_unlock(&d->mu);
    berth__estimator_put(d, er);
}

static void act(struct berth__daemon *d, const struct berth__hreq *r, struct berth__hresp *out,
                int what)
{
    pthread_mutex_lock(&d->mu);
    struct berth__ljob *j = own_job(d, r, out, 1);
    if (j) {
        struct berth_err err = {0};
        int retry = 0;
        int st = what == 0 ? berth__daemon_cancel(d, r->id, &retry, &err)
                           : berth__daemon_hold(d, r->id, what == 1, &retry, &err);
        if (st) {
            berth__hresp_error(out, st, err.msg);
            out->retry_after = retry;
        } else
            out->json = json_pack("{s:I,s:s}", "id", (json_int_t)j->id, "state",
                                  berth__lstate_name(j->state));
    }
    pthread_mutex_unlock(&d->mu);
}

static void cancel(struct berth__daemon *d, const struct berth__hreq *r, struct berth__hresp *out)
{
    act(d, r, out, 0);
}

static void hold(struct berth__daemon *d, const struct berth__hreq *r, struct berth__hresp *out)
{
    act(d, r, out, 1);
}

static void release(struct berth__daemon *d, const struct berth__hreq *r, struct berth__hresp *out)
{
    act(d, r, out, 2);
}

static void progress(struct berth__daemon *d, const struct berth__hreq *r, struct berth__hresp *out)
{
    json_t *body = berth__route_body(r, out);
    if (!body)
        return;
    struct berth__report rep;
    struct berth_err err = {0};
    int rc = berth__report_parse(body, &rep, &err);
    json_decref(body);
    if (rc) {
        berth__hresp_error(out, 400, err.msg);
        return;
    }
    pthread_mutex_lock(&d->mu);
    struct berth__ljob *j = own_job(d, r, out, 1);
    if (j && berth__lstate_final(j->state))
        berth__hresp_error(out, 409, "the job is over");
    else if (j) {
        berth__report_apply(j, berth__daemon_ejob(d, j), &rep, berth__wall_us());
        out->status = 204;
    }
    pthread_mutex_unlock(&d->mu);
}

static void logs(struct berth__daemon *d, const struct berth__hreq *r, struct berth__hresp *out)
{
    const char *stream = r->arg(r->conn, "stream"), *off = r->arg(r->conn, "offset");
    const char *tail = r->arg(r->conn, "tail");
    long long tail_n = -1;
    if (tail) {
        char *end;
        tail_n = strtoll(tail, &end, 10);
        if (!*tail || *end || tail_n < 1 || tail_n > LOG_CHUNK || off) {
            berth__hresp_error(out, 400,
                               off ? "tail: expected either offset or tail, found both"
                                   : "tail: expected a number of bytes from 1 to 1048576");
            return;
        }
    }
    if (stream && strcmp(stream, "stdout") && strcmp(stream, "stderr")) {
        berth__hresp_error(out, 400, "stream: expected stdout or stderr");
        return;
    }
    long long offset = 0;
    if (off) {
        char *end;
        offset = strtoll(off, &end, 10);
        if (*end || offset < 0) {
            berth__hresp_error(out, 400, "offset: expected a whole number >= 0");
            return;
        }
    }
    char path[4200], f[32];
    uint32_t uid = 0;
    pthread_mutex_lock(&d->mu);
    struct berth__ljob *j = own_job(d, r, out, 1);
    int over = j && berth__lstate_final(j->state) && !j->proc;
    if (j) {
        snprintf(f, sizeof f, "%s.log", stream ? stream : "stdout");
        berth__lexec_spool(&d->ex, j->id, f, path, sizeof path);
        uid = j->uid;
    }
    pthread_mutex_unlock(&d->mu);
    if (!j)
        return;
    char *buf = malloc(LOG_CHUNK);
    /* the job's account owns its spool folder: never a link it put there, nor a file of
     * another account's (a hard link), is read for it */
    int fd = berth__lexec_open_job_file(&d->ex, uid, path);
    struct stat st;
    if (fd >= 0 && !fstat(fd, &st) && offset > (long long)st.st_size)
        offset = 0; /* the log was cut to its cap since: from its (new) start */
    if (fd >= 0 && tail_n > 0 && !fstat(fd, &st)) /* the last tail_n bytes */
        offset = (long long)st.st_size > tail_n ? (long long)st.st_size - tail_n : 0;
    ssize_t n =
        buf && fd >= 0 ? pread(fd, buf, tail_n > 0 ? (size_t)tail_n : LOG_CHUNK, (off_t)offset) : 0;
    if (fd >= 0)
        close(fd);
    out->text = buf;
    out->text_len = n > 0 ? (size_t)n : 0;
    out->offset = offset + (long long)out->text_len;
    out->more = !over || out->text_len == LOG_CHUNK;
}

/* A time query value: Unix seconds (a decimal number). 0 absent, 1 good, -1 bad. */
static int time_arg(const struct berth__hreq *r, const char *name, berth_us *out)
{
    const char *v = r->arg(r->conn, name);
    if (!v)
        return 0;
    char *end;
    double x = strtod(v, &end);
    if (!*v || *end || !(x >= 0) || x > 1e11)
        return -1;
    *out = (berth_us)(x * 1e6);
    return 1;
}

/* A whole-number query value up to max: 0 (absent: *out untouched, or good), -1 bad. */
static int count_arg(const struct berth__hreq *r, const char *name, uint64_t max, uint64_t *out)
{
    const char *v = r->arg(r->conn, name);
    if (!v)
        return 0;
    if (!*v || strspn(v, "0123456789") != strlen(v) || strlen(v) > 19)
        return -1;
    uint64_t x = strtoull(v, NULL, 10);
    if (x > max)
        return -1;
    *out = x;
    return 0;
}

/* Rows of one /v1/acct answer at most (the rest: after=next_after) */
#define BERTH_ACCT_ROWS 10000

/* Accounting (sacct / sreport): a user sees their own jobs (and the totals of those); an
 * admin every job, or one user's. */
static void accounting(struct berth__daemon *d, const struct berth__hreq *r,
                       struct berth__hresp *out)
{
    struct berth__acct_query q = {0};
    if (time_arg(r, "since", &q.since_us) < 0 || time_arg(r, "until", &q.until_us) < 0) {
        berth__hresp_error(out, 400,
                           time_arg(r, "since", &q.since_us) < 0
                               ? "since: expected Unix seconds (a number >= 0)"
                               : "until: expected Unix seconds (a number >= 0)");
        return;
    }
    if (q.until_us && q.until_us <= q.since_us) {
        berth__hresp_error(out, 400, "until: expected a time after since");
        return;
    }
    q.user = r->arg(r->conn, "user");
    q.queue = r->arg(r->conn, "queue");
    if (!r->who->admin) {
        if (q.user && strcmp(q.user, r->who->user)) {
            berth__hresp_error(out, 403, "user: only an admin sees another user's accounting");
            return;
        }
        q.user = r->who->user;
    }
    uint64_t after = 0, limit = BERTH_ACCT_ROWS;
    if (count_arg(r, "after", UINT64_MAX / 2, &after)) {
        berth__hresp_error(out, 400, "after: expected a job id (a whole number >= 0)");
        return;
    }
    if (count_arg(r, "limit", BERTH_ACCT_ROWS, &limit)) {
        berth__hresp_error(out, 400, "limit: expected rows per answer, 0 to 10000");
        return;
    }
    q.after = after;
    q.limit = (size_t)limit;
    /* from the journal, under no lock: another user's requests never wait for this scan */
    pthread_mutex_lock(&d->mu);
    size_t gpus = (size_t)berth_cluster_gpus(d->cluster);
    pthread_mutex_unlock(&d->mu);
    struct berth_err err = {0};
    if (berth__daemon_acct_journal(d, &q, gpus, &out->json, &err))
        berth__hresp_error(out, err.code == BERTH_ENOMEM ? 500 : 503, err.msg);
}

static void nodes(struct berth__daemon *d, const struct berth__hreq *r, struct berth__hresp *out)
{
    (void)r;
    pthread_mutex_lock(&d->mu);
    const struct berth_cluster *c = d->engine->cluster; /* the live free-GPU state */
    json_t **gj = calloc(c->nsrv * BERTH_MAX_SERVER_GPUS + 1, sizeof *gj);
    json_t *a = json_array();
    for (size_t s = 0; gj && s < c->nsrv; s++)
        for (int g = 0; g < c->srv[s].ngpus; g++)
            gj[s * BERTH_MAX_SERVER_GPUS + (size_t)g] = json_array();
    for (size_t i = 0; gj && i < d->njobs; i++) {
        const struct berth__ljob *j = d->jobs[i];
        if (!j || j->state != BERTH_L_RUNNING)
            continue;
        for (int32_t k = 0; k < j->nslots; k++)
            if (j->slots[k].gpu != BERTH_NO_GPU)
                json_array_append_new(
                    gj[j->slots[k].server * BERTH_MAX_SERVER_GPUS + j->slots[k].gpu],
                    json_integer((json_int_t)j->id));
    }
    for (size_t s = 0; gj && s < c->nsrv; s++) {
        const struct berth__server *v = &c->srv[s];
        json_t *gs = json_array();
        for (int g = 0; g < v->ngpus; g++) {
            size_t k = s * BERTH_MAX_SERVER_GPUS + (size_t)g;
            json_array_append_new(gs, json_pack("{s:i,s:I,s:b,s:i,s:o}", "index", g, "device",
                                                (json_int_t)(d->gpu_base[s] + (size_t)g), "idle",
                                                (int)(v->free_mask >> g & 1), "draining",
                                                d->drain[k], "jobs", gj[k]));
        }
        json_t *nj =
            json_pack("{s:s,s:s,s:i,s:I,s:i,s:b,s:i,s:o,s:o}", "name", v->name, "gpu_type",
                      c->types[v->type].name, "gpus", v->ngpus, "gpu_mem_mib",
                      (json_int_t)v->gpu_mem_mib, "idle_gpus", v->nfree, "reserved",
                      (int)(v->reserved || v->closed), "outside_gpus", (int)v->out_want, "pool",
                      v->pool >= 0 ? json_string(c->pools[v->pool]) : json_null(), "gpu_list", gs);
        if (nj && berth_cluster_has_topology(c)) { /* only then: a flat cluster's stays as it was */
            static const char *const key[3] = {"rack", "block", "nvlink"};
            static const int level[3] = {BERTH_TOPO_RACK, BERTH_TOPO_BLOCK, BERTH_TOPO_NVLINK};
            for (int k = 0; k < 3; k++) {
                const char *dom = berth_cluster_server_domain(c, s, level[k]);
                json_object_set_new(nj, key[k], dom ? json_string(dom) : json_null());
            }
            json_object_set_new(nj, "nvl", json_integer(v->nvl ? v->nvl : v->ngpus));
        }
        json_array_append_new(a, nj);
    }
    free(gj);
    pthread_mutex_unlock(&d->mu);
    out->json = json_pack("{s:o,s:i,s:i}", "nodes", a, "gpus", berth_cluster_gpus(c), "idle_gpus",
                          berth_cluster_free_gpus(c));
}

static void policies(struct berth__daemon *d, const struct berth__hreq *r, struct berth__hresp *out)
{
    (void)r;
    json_t *a = json_array();
    for (size_t i = 0; i < berth_policy_count(); i++)
        json_array_append_new(a, json_pack("{s:s,s:s,s:s}", "name", berth_policy_name(i), "summary",
                                           berth_policy_summary(i), "placement",
                                           berth_policy_default_placement(i)));
    out->json = json_pack("{s:s,s:s,s:o}", "current", d->engine->ops->name, "placement",
                          berth_placement_name((size_t)d->engine->params.placement), "policies", a);
}

/* "degraded" and why, when something that keeps berthd's promises is failing now: the
 * journal cannot commit (submissions get 503), or the state dir's disk is below its floor
 * (submissions get 507). Everything else goes on being served. */
static json_t *health_status(struct berth__daemon *d, const struct berth__journal_health *h)
{
    json_t *why = json_array();
    if (h->degraded)
        json_array_append_new(why,
                              json_sprintf("journal: %s (%llu documents waiting to be written)",
                                           h->last_error, (unsigned long long)h->pending));
    struct statvfs sv;
    if (d->o.min_free > 0 && !statvfs(d->state_dir, &sv) &&
        (int64_t)sv.f_bavail * (int64_t)sv.f_frsize < d->o.min_free)
        json_array_append_new(
            why, json_sprintf("state dir: %lld MiB free, below --min-free",
                              (long long)((int64_t)sv.f_bavail * (int64_t)sv.f_frsize >> 20)));
    return why;
}

static void health(struct berth__daemon *d, const struct berth__hreq *r, struct berth__hresp *out)
{
    (void)r;
    struct berth__journal_health h;
    berth__journal_health(d->jn, &h);
    uint64_t open, cut_h, cut_b;
    berth__http_stats(d, &open, &cut_h, &cut_b);
    json_t *why = health_status(d, &h);
    pthread_mutex_lock(&d->mu);
    out->json = json_pack(
        "{s:s,s:o,s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:I,"
        "s:{s:I,s:I,s:b,s:s,s:I,s:I,s:I,s:I,s:I},"
        "s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I},"
        "s:{s:I,s:I,s:I},s:{s:I,s:I,s:I}}",
        "status", json_array_size(why) ? "degraded" : "ok", "why", why, "policy",
        d->engine->ops->name, "executor", d->xo->name, "mode",
        d->multi_user ? "multi-user" : "single-user", "isolation",
        d->iso && berth__iso_kind(d->iso) != BERTH_ISO_NONE ? berth__iso_describe(d->iso)
                                                            : "process groups",
        "jobs", (json_int_t)d->njobs, "pending", (json_int_t)d->engine->npending, "running",
        (json_int_t)d->engine->nrunning, "passes", (json_int_t)d->engine->passes, "preemptions",
        (json_int_t)d->engine->preemptions, "journal", "commits", (json_int_t)h.commits,
        "documents", (json_int_t)h.docs, "degraded", h.degraded, "last_error", h.last_error,
        "last_error_us", (json_int_t)h.last_error_us, "pending", (json_int_t)h.pending, "failures",
        (json_int_t)h.failures, "failed_total", (json_int_t)h.failed_total, "waiters",
        (json_int_t)h.waiters, "loop", "ticks", (json_int_t)d->ticks, "tick_us_sum",
        (json_int_t)d->tick_sum_us, "tick_us_max", (json_int_t)d->tick_max_us, "sync_us_sum",
        (json_int_t)d->sync_sum_us, "sync_us_max", (json_int_t)d->sync_max_us, "sync_reads",
        (json_int_t)d->sync_reads, "pass_us_sum", (json_int_t)d->pass_sum_us, "pass_us_max",
        (json_int_t)d->pass_max_us, "http", "open", (json_int_t)open, "cut_headers",
        (json_int_t)cut_h, "cut_body", (json_int_t)cut_b, "refused", "limit",
        (json_int_t)d->refused_limit, "space", (json_int_t)d->refused_space, "journal",
        (json_int_t)d->refused_journal);
    if (out->json) { /* the job table's bound (daemon/core_purge.c) */
        json_object_set_new(out->json, "jobs_in_memory", json_integer((json_int_t)d->nlive));
        json_object_set_new(out->json, "purged", json_integer((json_int_t)d->purged));
    }
    pthread_mutex_unlock(&d->mu);
    struct berth__http_pool hp;
    berth__http_pool_stats(d, &hp);
    json_t *hj = out->json ? json_object_get(out->json, "http") : NULL;
    if (hj) /* the connections not yet admitted and the handlers' workers */
        json_object_update_new(
            hj, json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}", "unadmitted", (json_int_t)hp.unadmitted,
                          "evicted", (json_int_t)hp.evicted, "workers", (json_int_t)hp.workers,
                          "workers_busy", (json_int_t)hp.busy, "queued", (json_int_t)hp.queued,
                          "queued_max", (json_int_t)hp.max_queued));
    struct berth__est_stats es;
    berth__estimator_stats(d, &es);
    if (out->json) /* the start-time estimate's runs: their cost apart, and under the lock */
        json_object_set_new(
            out->json, "estimate",
            json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:f}", "runs", (json_int_t)es.runs, "last_us",
                      (json_int_t)es.last_us, "max_us", (json_int_t)es.max_us, "lock_last_us",
                      (json_int_t)es.snap_last_us, "lock_max_us", (json_int_t)es.snap_max_us,
                      "budget_stops", (json_int_t)es.budget_stops, "budget_s",
                      (double)es.budget_us / 1e6));
}

/* The inference pool's state: what an inference manager and an operator watch. */
static json_t *inference_json(struct berth__daemon *d)
{
    const struct berth__infer *in = d->infer;
    json_t *last =
        in->last_reclaim_us >= 0 ? json_real((double)in->last_reclaim_us / 1e6) : json_null();
    json_t *since = in->short_since != BERTH_TIME_NONE
                        ? json_real((double)(berth__wall_us() - in->short_since) / 1e6)
                        : json_null();
    return json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:o,s:o,s:f,s:I,s:I,s:f,s:f,s:s}", "pool_servers",
                     in->servers, "pool_gpus", in->gpus, "demand_servers", in->demand,
                     "reserved_servers", in->reserved, "ready_servers", in->ready, "lent_servers",
                     in->servers - in->reserved, "short_for_s", since, "last_reclaim_s", last,
                     "max_reclaim_s", (double)in->max_reclaim_us / 1e6, "reclaims",
                     (json_int_t)in->reclaims, "changes", (json_int_t)in->changes, "lent_gpu_hours",
                     in->lent_gpu_us / 3600e6, "short_server_hours", in->short_server_us / 3600e6,
                     "policy", d->engine->ops->name);
}

static void inference(struct berth__daemon *d, const struct berth__hreq *r,
                      struct berth__hresp *out)
{
    (void)r;
    pthread_mutex_lock(&d->mu);
    out->json = inference_json(d);
    pthread_mutex_unlock(&d->mu);
}

/* The pool's recorded changes, oldest first (infer.c keeps the last BERTH_INFER_HIST): the
 * demand series a simulation of the same run replays. */
static void inference_history(struct berth__daemon *d, const struct berth__hreq *r,
                              struct berth__hresp *out)
{
    (void)r;
    json_t *a = json_array();
    pthread_mutex_lock(&d->mu);
    const struct berth__infer *in = d->infer;
    uint64_t first = in->nhist > BERTH_INFER_HIST ? in->nhist - BERTH_INFER_HIST : 0;
    for (uint64_t i = first; a && in->hist && i < in->nhist; i++) {
        const struct berth__infer_rec *h = &in->hist[i % BERTH_INFER_HIST];
        json_t *took = h->reclaim_us >= 0 ? json_real((double)h->reclaim_us / 1e6) : json_null();
        if (json_array_append_new(a, json_pack("{s:I,s:i,s:i,s:i,s:i,s:o}", "t_us",
                                               (json_int_t)h->t_us, "demand_servers", h->demand,
                                               "reserved_servers", h->reserved, "ready_servers",
                                               h->ready, "lent_servers", in->servers - h->reserved,
                                               "reclaim_s", took))) {
            json_decref(a);
            a = NULL;
        }
    }
    out->json = a ? json_pack("{s:i,s:I,s:I,s:o}", "pool_servers", in->servers, "recorded",
                              (json_int_t)in->nhist, "dropped", (json_int_t)first, "changes", a)
                  : NULL;
    pthread_mutex_unlock(&d->mu);
    if (!out->json)
        berth__hresp_error(out, 503, "inference history: out of memory");
}

/* An inference manager says how many of its pool's servers inference needs now (admin). */
static void inference_set(struct berth__daemon *d, const struct berth__hreq *r,
                          struct berth__hresp *out)
{
    if (!r->who->admin) {
        berth__hresp_error(out, 403, "only an admin sets the inference demand");
        return;
    }
    json_t *dem = NULL, *body = berth__route_body_one(r, out, "demand_servers", &dem);
    if (!body)
        return;
    if (!json_is_integer(dem) || json_integer_value(dem) < 0 ||
        json_integer_value(dem) > INT32_MAX) {
        berth__hresp_error(out, 400, "demand_servers: required, an integer >= 0");
        json_decref(body);
        return;
    }
    struct berth_err err = {0};
    pthread_mutex_lock(&d->mu);
    if (d->svcs && d->svcs->n) { /* the services' wanted replicas set it */
        pthread_mutex_unlock(&d->mu);
        json_decref(body);
        berth__hresp_error(out, 409,
                           "demand_servers: services run on the inference pool: their wanted "
                           "replicas set the demand (delete them to set it by hand)");
        return;
    }
    int rc = berth__daemon_infer_set(d, (int32_t)json_integer_value(dem), berth__wall_us(), &err);
    if (!rc) {
        out->json = inference_json(d);
        pthread_cond_signal(&d->wake);
    }
    pthread_mutex_unlock(&d->mu);
    json_decref(body);
    if (rc)
        berth__hresp_error(out, rc == BERTH_EINPUT ? 400 : 503, err.msg);
}

const struct berth__route berth__routes[] = {
    {"POST", "/v1/jobs", submit, 0, 0},
    {"GET", "/v1/jobs", list, 0, 0},
    {"GET", "/v1/jobs/{id}", show, 0, 0},
    {"POST", "/v1/jobs/{id}/cancel", cancel, 0, 0},
    {"POST", "/v1/jobs/{id}/hold", hold, 0, 0},
    {"POST", "/v1/jobs/{id}/release", release, 0, 0},
    {"POST", "/v1/jobs/{id}/progress", progress, 1, 0},
    {"POST", "/v1/jobs/{id}/load", berth__route_job_load, 1, 0},
    {"GET", "/v1/jobs/{id}/logs", logs, 0, 0},
    {"GET", "/v1/acct", accounting, 0, 0},
    {"GET", "/v1/nodes", nodes, 0, 0},
    {"GET", "/v1/policies", policies, 0, 0},
    {"GET", "/v1/inference", inference, 0, 0},
    {"GET", "/v1/inference/history", inference_history, 0, 0},
    {"POST", "/v1/inference", inference_set, 0, 0},
    {"POST", "/v1/services", berth__route_svc_create, 0, 0},
    {"GET", "/v1/services", berth__route_svc_list, 0, 0},
    {"GET", "/v1/services/{id}", berth__route_svc_show, 0, 0},
    {"DELETE", "/v1/services/{id}", berth__route_svc_delete, 0, 0},
    {"GET", "/v1/health", health, 0, 0},
    {"GET", "/v1/charts/*", berth__route_chart, 0, 0},
    /* open: no caller, no body (docs/security.md) */
    {"GET", "/healthz", berth__route_healthz, 0, 1},
    {"GET", "/metrics", berth__route_metrics, 0, 1},
    {"GET", "/ui", berth__route_ui_redirect, 0, 1},
    {"GET", "/ui/*", berth__route_ui, 0, 1},
};

const size_t berth__nroutes = sizeof berth__routes / sizeof *berth__routes;
