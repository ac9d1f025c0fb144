/* berthd's life: create (inventory, engine, journal, the subsystems registered with the
 * core), the scheduler loop (recovery, then ticks), and teardown (see daemon.h). The only
 * file of the daemon room that knows every subsystem by name. */
#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "berth/queues.h"
#include "io/json_load.h"
#include "live/exec/cgroup.h"
#include "live/daemon/daemon.h"
#include "live/daemon/estimator.h"
#include "live/daemon/service.h"
#include "live/daemon/telemetry.h"
#include "live/daemon/socket_rule.h"
#include "live/daemon/options.h"
#include "util/hash.h"
#include "model/cluster.h"
#include "model/curve.h"
#include "model/queues.h"
#include "model/tput.h"

void berth__daemon_opts_init(struct berth__daemon_opts *o)
{
    memset(o, 0, sizeof *o);
    o->addr = "127.0.0.1";
    o->port = 8470;
    o->state_dir = "berthd-state";
    o->policy = "fifo";
    o->executor = "local";
    o->max_body = 1 << 20;
    o->tick_us = 50000;
    o->quantum_us = 60 * BERTH_US_PER_S;
    o->seed = 1;
    o->threads = 0;
    o->isolation = "auto";
    o->log_cap = INT64_C(256) << 20;
    o->min_free = INT64_C(512) << 20;
    o->est_overrun = 2;
    o->est_budget_us = BERTH_US_PER_S / 5;
    o->job_pids_max = 4096;
    o->max_array = 1000;
    o->min_job_age_us = 300 * BERTH_US_PER_S;
    o->max_job_count = 200000;
    o->header_timeout_us = 10 * BERTH_US_PER_S;
    o->body_timeout_us = 60 * BERTH_US_PER_S;
    o->max_connections = 1000;
    o->max_conn_per_addr = 64;
    o->http_workers = 64;
    o->slurm_failsafe_us = 60 * BERTH_US_PER_S;
    o->slurm_node_poll_us = 5 * BERTH_US_PER_S;
    berth__limits_init(&o->limits);
}

/* The executor, given the host interface (d->host, over d->ex), builds the inventory; berthd
 * keeps the map of each server's first GPU. */
static int load_cluster(struct berth__daemon *d, struct berth_err *err)
{
    d->ex = (struct berth__lexec){d->state_dir,  d->self_exe,  d->api_url,        d->spool_dir,
                                  d->multi_user, d->o.log_cap, d->o.job_pids_max, d->iso};
    berth__daemon_host_init(d);
    int rc = d->xo->open(&d->host, &d->xs, &d->cluster, err);
    if (rc)
        return rc;
    d->gpu_base = calloc(d->cluster->nsrv + 1, sizeof *d->gpu_base);
    d->drain = calloc(d->cluster->nsrv * BERTH_MAX_SERVER_GPUS + 1, sizeof *d->drain);
    if (!d->gpu_base || !d->drain)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    for (size_t i = 0; i < d->cluster->nsrv; i++)
        d->gpu_base[i + 1] = d->gpu_base[i] + d->cluster->srv[i].ngpus;
    return 0;
}

/* A folder of berthd's own with exactly mode: made, or an existing one checked (another
 * account's folder, or a link, is refused: it could read or swap what berthd writes). */
static int own_dir(const char *path, mode_t mode, struct berth_err *err)
{
    if (mkdir(path, mode) && errno != EEXIST)
        return berth_err_set(err, BERTH_EIO, "%s: %s", path, strerror(errno));
    struct stat st;
    if (lstat(path, &st) || !S_ISDIR(st.st_mode))
        return berth_err_set(err, BERTH_EIO, "%s: not a folder", path);
    if (st.st_uid != geteuid())
        return berth_err_set(err, BERTH_EINPUT,
                             "%s: owned by uid %u, not by berthd's account (uid %u): berthd "
                             "keeps its journal and job files only in folders of its own",
                             path, (unsigned)st.st_uid, (unsigned)geteuid());
    if ((st.st_mode & 07777) != mode && chmod(path, mode))
        return berth_err_set(err, BERTH_EIO, "%s: chmod %o: %s", path, (unsigned)mode,
                             strerror(errno));
    return 0;
}

/* STATE (0700; 0711 in multi-user mode, so that each account reaches the socket and its
 * own jobs' spool folders without listing anything), STATE/jobs (0700: control files),
 * STATE/spool (0711 or 0700: a folder per job, its account's). */
static int make_dirs(struct berth__daemon *d, struct berth_err *err)
{
    char path[4200];
    mode_t traverse = d->multi_user ? 0711 : 0700;
    int rc = own_dir(d->o.state_dir, traverse, err);
    if (rc)
        return rc;
    if (!realpath(d->o.state_dir, d->state_dir))
        return berth_err_set(err, BERTH_EIO, "--state-dir %s: %s", d->o.state_dir, strerror(errno));
    snprintf(path, sizeof path, "%s/jobs", d->state_dir);
    if ((rc = own_dir(path, 0700, err)))
        return rc;
    snprintf(d->spool_dir, sizeof d->spool_dir, "%s/spool", d->state_dir);
    if ((rc = own_dir(d->spool_dir, traverse, err)))
        return rc;
    if (!d->o.socket)
        snprintf(d->socket_path, sizeof d->socket_path, "%s/berthd.sock", d->state_dir);
    else if (strcmp(d->o.socket, "none"))
        snprintf(d->socket_path, sizeof d->socket_path, "%s", d->o.socket);
    return 0;
}

/* Who jobs run as: multi-user mode when berthd is root, else every job is berthd's own. */
static int load_identity(struct berth__daemon *d, struct berth_err *err)
{
    d->multi_user = berth__ident_multi_user();
    int rc = berth__account_self(&d->self, err);
    if (rc)
        return rc;
    struct berth__auth_opts ao = {d->multi_user, &d->self, 1};
    if ((rc = berth__auth_load(d->o.tokens, &ao, &d->auth, err)))
        return rc;
    return berth__socket_rule_parse(d->o.socket_users, d->o.socket_requires_token, &d->socket_rule,
                                    err);
}

/* Cgroups where writable (--isolation auto), else process groups, said at start. */
static int load_isolation(struct berth__daemon *d, struct berth_err *err)
{
    if (strcmp(d->o.isolation, "auto") && strcmp(d->o.isolation, "none"))
        return berth_err_set(err, BERTH_EINPUT, "--isolation %s: expected auto or none",
                             d->o.isolation);
    if (!strcmp(d->o.isolation, "auto")) {
        /* one subtree per state dir: two berthds on a machine never share attempt groups */
        char instance[32];
        snprintf(instance, sizeof instance, "berth-%012llx",
                 (unsigned long long)(berth__hash_str(d->state_dir) & 0xffffffffffffULL));
        struct berth_err e = {0};
        if (berth__iso_open(instance, NULL, &d->iso, &e))
            fprintf(d->log, "berthd: cgroups: %s\n", e.msg);
    }
    if (d->iso && berth__iso_kind(d->iso) != BERTH_ISO_NONE) {
        fprintf(d->log, "berthd: isolation: %s\n", berth__iso_describe(d->iso));
        return 0;
    }
    fprintf(d->log,
            "berthd: isolation: WARNING: no writable cgroup%s: each attempt is only a process "
            "group, so a process that calls setsid escapes cancel and the end of its job, and "
            "cpus and mem_mib are not enforced (docs/security.md)\n",
            strcmp(d->o.isolation, "none") ? "" : " (--isolation none)");
    (void)err;
    return 0;
}

/* The view's metric: what the job reported last (its progress file or POST .../progress,
 * "metric"), else its class's progress curve, as the simulator reads it. The engine's job
 * record points at the ljob's own spec, so the ljob is found from it. Under the lock (a
 * pass). */
static double reported_metric(void *ctx, const struct berth__job *j, berth_us now)
{
    (void)ctx;
    const struct berth__ljob *lj =
        (const struct berth__ljob *)((const char *)j->spec - offsetof(struct berth__ljob, spec));
    return lj->has_metric ? lj->metric : berth__curve_job_metric(NULL, j, now);
}

/* /metrics' queue labels: the queues file's queues own them (tally.h). */
static int init_tally(struct berth__daemon *d, struct berth_err *err)
{
    size_t n = d->queues ? d->queues->nq : 0;
    const char **names = n ? calloc(n, sizeof *names) : NULL;
    if (n && !names)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        names[i] = d->queues->q[i].name;
    int rc = berth__tally_init(&d->tally, names, n);
    free(names);
    return rc ? berth_err_set(err, BERTH_ENOMEM, "out of memory") : 0;
}

int berth__daemon_create(const struct berth__daemon_opts *o, struct berth__daemon **out,
                         struct berth_err *err)
{
    struct berth__daemon *d = calloc(1, sizeof *d);
    if (!d)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    d->o = *o;
    d->log = stderr;
    d->next_id = 1;
    berth__drive_init(&d->drive, 0);
    pthread_mutex_init(&d->mu, NULL);
    pthread_rwlock_init(&d->auth_lock, NULL);
    pthread_cond_init(&d->wake, NULL);
    snprintf(d->self_exe, sizeof d->self_exe, "%s", o->self_exe ? o->self_exe : "");
    int rc;
    struct berth__params params = {
        .seed = o->seed, .quantum_us = o->quantum_us, .settings = o->policy_settings};
    struct berth__engine_exec exec = {d, berth__daemon_on_start, berth__daemon_on_stop,
                                      berth__daemon_on_migrate};
    char jpath[4200];
    d->xo = berth__executor_find(o->executor ? o->executor : "local");
    if (!d->xo) {
        rc =
            berth_err_set(err, BERTH_EINPUT, "--executor %s: expected local or slurm", o->executor);
        goto fail;
    }
    if (!o->tokens) {
        rc = berth_err_set(err, BERTH_EINPUT,
                           "--tokens: required (a file of lines TOKEN USER [admin])");
        goto fail;
    }
    if ((rc = load_identity(d, err)) || (rc = make_dirs(d, err)) || (rc = load_isolation(d, err)) ||
        (rc = berth__usage_create(&d->usage) || berth__usage_create(&d->qusage) ||
                      berth__telemetry_init(&d->tel)
                  ? berth_err_set(err, BERTH_ENOMEM, "out of memory")
                  : 0) ||
        (rc = load_cluster(d, err)) ||
        (rc = o->queues ? berth_queues_load(o->queues, d->cluster, &d->queues, err) : 0) ||
        (rc = init_tally(d, err)))
        goto fail;
    /* the subsystems, in the order their hooks run: dependencies first (a job they hold
     * never enters the scheduler), then services, whose replicas set the inference demand,
     * then the loaning's integrals over that demand, then telemetry */
    if ((rc = berth__deps_attach(d, err)) || (rc = berth__svc_attach(d, err)) ||
        (rc = berth__infer_attach(d, err)) || (rc = berth__telemetry_attach(d, err)))
        goto fail;
    params.queues = d->queues; /* the policy enforces them (quotas, limits, shares) */
    if ((rc = berth__engine_create(d->cluster, o->policy, o->placement, &params, &exec, &d->engine,
                                   err)))
        goto fail;
    berth__engine_set_check(d->engine, 1);
    berth__engine_set_metric(d->engine, reported_metric, d);
    if ((rc = o->throughputs ? berth_tput_load_gavel(o->throughputs, &d->tput, err)
                             : berth_tput_builtin(&d->tput, err)) ||
        (rc = berth__engine_set_tput(d->engine, d->tput, err)))
        goto fail;
    snprintf(jpath, sizeof jpath, "%s/journal.db", d->state_dir);
    if ((rc = berth__journal_open(jpath, NULL, &d->jn, err)))
        goto fail;
    /* it holds every job's token: berthd's alone (an older berthd made it 0644) */
    static const char *const sfx[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < 3; i++) {
        char p[4300];
        snprintf(p, sizeof p, "%s%s", jpath, sfx[i]);
        if (chmod(p, 0600) && errno != ENOENT) {
            rc = berth_err_set(err, BERTH_EIO, "%s: chmod 600: %s", p, strerror(errno));
            goto fail;
        }
    }
    *out = d;
    return 0;
fail:
    berth__daemon_destroy(d);
    return rc;
}

void berth__daemon_destroy(struct berth__daemon *d)
{
    if (!d)
        return;
    berth__journal_close(d->jn);
    berth__engine_destroy(d->engine);
    berth_tput_free(d->tput);
    if (d->xo && d->xs)
        d->xo->close(d->xs);
    for (size_t i = 0; i < d->njobs; i++)
        berth__ljob_free(d->jobs[i]);
    free(d->jobs);
    free(d->by_eidx);
    free(d->incoming);
    berth__estimator_free(d);
    free(d->active);
    free(d->stop_due);
    free(d->drain);
    free(d->gpu_base);
    berth_cluster_free(d->cluster);
    berth__auth_free(d->auth);
    berth__socket_rule_free(d->socket_rule);
    berth__usage_free(d->usage);
    berth__usage_free(d->qusage);
    berth_queues_free(d->queues);
    berth__tally_free(&d->tally);
    berth__telemetry_free(&d->tel);
    berth__daemon_subs_free(d); /* services, the loaning, dependencies */
    berth__iso_close(d->iso);
    berth__limits_free(&d->o.limits);
    pthread_mutex_destroy(&d->mu);
    pthread_rwlock_destroy(&d->auth_lock);
    pthread_cond_destroy(&d->wake);
    free(d);
}

void berth__daemon_reload(struct berth__daemon *d)
{
    struct berth_err err = {0};
    struct berth__auth *auth = NULL;
    struct berth__auth_opts ao = {d->multi_user, &d->self, 1};
    struct berth__daemon_opts tmp = d->o;
    if (berth__auth_load(d->o.tokens, &ao, &auth, &err)) {
        fprintf(d->log, "berthd: SIGHUP: token file not reloaded, the old one stays: %s\n",
                err.msg);
        return;
    }
    if (berth__opts_reload(&tmp, d->o.argc, d->o.argv, &err)) {
        fprintf(d->log, "berthd: SIGHUP: limits not reloaded, the old ones stay: %s\n", err.msg);
        berth__auth_free(auth);
        return;
    }
    pthread_mutex_lock(&d->mu);
    struct berth__auth *old = d->auth;
    struct berth__limits old_limits = d->o.limits;
    pthread_rwlock_wrlock(&d->auth_lock);
    d->auth = auth;
    pthread_rwlock_unlock(&d->auth_lock);
    d->o.limits = tmp.limits;
    berth__daemon_limits_changed(d); /* a raised max_gpus lets jobs in now */
    berth__drive_touch(&d->drive);
    size_t ntok = berth__auth_count(auth), nlim = d->o.limits.nper;
    pthread_mutex_unlock(&d->mu);
    berth__auth_free(old);
    berth__limits_free(&old_limits);
    fprintf(d->log, "berthd: SIGHUP: reloaded %s (%zu tokens) and the limits (%zu per-user)\n",
            d->o.tokens, ntok, nlim);
    fflush(d->log);
}

int berth__daemon_run(struct berth__daemon *d, const struct berth__daemon_server *srv,
                      struct berth_err *err)
{
    int rc = srv->start(d, err);
    if (rc)
        return rc;
    snprintf(d->api_url, sizeof d->api_url, "http://%s:%d", d->o.addr, d->bound_port);
    pthread_mutex_lock(&d->mu);
    rc = berth__daemon_recover(d, err);
    if (!rc)
        rc = berth__daemon_infer_init(d, berth__wall_us(), err);
    pthread_mutex_unlock(&d->mu);
    if (!rc)
        rc = berth__svc_start(d, err);                /* the thread that scrapes services' load */
    if (!rc && (rc = berth__estimator_start(d, err))) /* the start-time estimate's */
        berth__svc_stop(d);
    if (rc) {
        srv->stop(d);
        return rc;
    }
    if (d->o.port_file) {
        FILE *f = fopen(d->o.port_file, "w");
        if (f) {
            fprintf(f, "%d\n", d->bound_port);
            fclose(f);
        }
    }
    fprintf(d->log, "berthd: serving %s (policy %s, %d GPUs), state in %s\n", d->api_url,
            d->engine->ops->name, berth_cluster_gpus(d->cluster), d->state_dir);
    fflush(d->log);
    pthread_mutex_lock(&d->mu);
    while (!d->stop && !rc) {
        if (d->reload) {
            d->reload = 0;
            pthread_mutex_unlock(&d->mu);
            berth__daemon_reload(d);
            pthread_mutex_lock(&d->mu);
        }
        pthread_mutex_unlock(&d->mu); /* slow reads, without the lock */
        if (d->xo->prefetch)
            d->xo->prefetch(d->xs);
        berth__daemon_progress_sweep(d);
        pthread_mutex_lock(&d->mu);
        berth_us now = berth__wall_us(), t0 = berth__mono_us();
        rc = berth__daemon_tick(d, now, err);
        berth__telemetry_tick(d, now);
        berth_us took = berth__mono_us() - t0;
        d->ticks++;
        d->tick_sum_us += took;
        d->tick_max_us = took > d->tick_max_us ? took : d->tick_max_us;
        if (rc)
            break;
        berth_us until = now + d->o.tick_us;
        if (d->drive.next != BERTH_TIME_NONE && d->drive.next > now && d->drive.next < until)
            until = d->drive.next;
        if (!d->drive.dirty && !d->nincoming) {
            struct timespec ts = {(time_t)(until / BERTH_US_PER_S),
                                  (long)(until % BERTH_US_PER_S) * 1000};
            pthread_cond_timedwait(&d->wake, &d->mu, &ts);
        }
    }
    pthread_mutex_unlock(&d->mu);
    berth__svc_stop(d);
    berth__estimator_stop(d); /* requests waiting for a run answer now */
    if (!rc && d->restart && srv->handover)
        srv->handover(d, d->handover, sizeof d->handover);
    srv->stop(d);
    return rc;
}
