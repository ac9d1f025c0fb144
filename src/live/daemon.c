/* berthd's life: create (inventory, engine, journal, recovery), the scheduler loop, and
 * teardown (see daemon.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "model/cluster_int.h"
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
}

berth_us berth__wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (berth_us)ts.tv_sec * BERTH_US_PER_S + ts.tv_nsec / 1000;
}

berth_us berth__mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (berth_us)ts.tv_sec * BERTH_US_PER_S + ts.tv_nsec / 1000;
}

struct berth__ljob *berth__daemon_job(struct berth__daemon *d, uint64_t id)
{
    return id >= 1 && id <= d->njobs ? d->jobs[id - 1] : NULL;
}

struct berth_job *berth__daemon_ejob(struct berth__daemon *d, struct berth__ljob *j)
{
    return j->in_engine ? &d->engine->jobs[j->eidx] : NULL;
}

int berth__daemon_save(struct berth__daemon *d, struct berth__ljob *j, int wait,
                       struct berth_err *err)
{
    json_t *o = berth__ljob_json(j, 1);
    char *doc = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (!doc)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    int rc = berth__journal_put(d->jn, j->id, doc, wait, err);
    free(doc);
    return rc;
}

int berth__daemon_enqueue(struct berth__daemon *d, struct berth__ljob *j, berth_us now,
                          struct berth_err *err)
{
    uint32_t idx;
    int rc = berth__engine_add(d->engine, &j->spec, &idx, err);
    if (rc)
        return rc;
    if (BERTH_GROW(d->by_eidx, d->by_eidx_cap, (size_t)idx + 1))
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    d->by_eidx[idx] = (uint32_t)j->id;
    j->eidx = idx;
    j->in_engine = 1;
    struct berth_job *ej = &d->engine->jobs[idx];
    if (j->spec.total_steps > 0) { /* work in steps, as reports give it */
        ej->work = (double)j->spec.total_steps;
        ej->done = (double)(j->step < j->spec.total_steps ? j->step : j->spec.total_steps);
    }
    ej->progress_at = now;
    if (d->tput && j->spec.job_type[0]) /* a type the model knows: policies see its rates */
        ej->cls = berth__tput_class_find(d->tput, j->spec.job_type);
    if (j->state == BERTH_L_RUNNING) /* adoption: the caller places it */
        return 0;
    if ((rc = berth__engine_arrive(d->engine, idx, now, err)))
        return rc;
    d->dirty = 1;
    return 0;
}

/* The executor builds the inventory; berthd keeps the map of each server's first GPU. */
static int load_cluster(struct berth__daemon *d, struct berth_err *err)
{
    int rc = d->xo->open(d, err);
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

static int make_dirs(struct berth__daemon *d, struct berth_err *err)
{
    char jobs[4200];
    if (mkdir(d->o.state_dir, 0700) && errno != EEXIST)
        return berth_err_set(err, BERTH_EIO, "--state-dir %s: %s", d->o.state_dir, strerror(errno));
    if (!realpath(d->o.state_dir, d->state_dir))
        return berth_err_set(err, BERTH_EIO, "--state-dir %s: %s", d->o.state_dir, strerror(errno));
    snprintf(jobs, sizeof jobs, "%s/jobs", d->state_dir);
    if (mkdir(jobs, 0700) && errno != EEXIST)
        return berth_err_set(err, BERTH_EIO, "%s: %s", jobs, strerror(errno));
    return 0;
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
    d->next_pass = BERTH_TIME_NONE;
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->wake, NULL);
    snprintf(d->self_exe, sizeof d->self_exe, "%s", o->self_exe ? o->self_exe : "");
    int rc;
    struct berth_params params = {.seed = o->seed, .quantum_us = o->quantum_us};
    struct berth_exec exec = {d, berth__daemon_on_start, berth__daemon_on_stop,
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
    if ((rc = berth__auth_load(o->tokens, &d->auth, err)) || (rc = make_dirs(d, err)) ||
        (rc = load_cluster(d, err)) ||
        (rc = berth__engine_create(d->cluster, o->policy, o->placement, &params, &exec, &d->engine,
                                   err)))
        goto fail;
    d->engine->check = 1;
    if ((rc = o->throughputs ? berth_tput_load_gavel(o->throughputs, &d->tput, err)
                             : berth_tput_builtin(&d->tput, err)) ||
        (rc = berth__engine_set_tput(d->engine, d->tput, err)))
        goto fail;
    snprintf(jpath, sizeof jpath, "%s/journal.db", d->state_dir);
    if ((rc = berth__journal_open(jpath, NULL, &d->jn, err)))
        goto fail;
    d->ex = (struct berth__lexec){d->state_dir, d->self_exe, d->api_url};
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
    if (d->xo)
        d->xo->close(d);
    for (size_t i = 0; i < d->njobs; i++)
        berth__ljob_free(d->jobs[i]);
    free(d->jobs);
    free(d->by_eidx);
    free(d->incoming);
    free(d->active);
    free(d->drain);
    free(d->gpu_base);
    berth_cluster_free(d->cluster);
    berth__auth_free(d->auth);
    pthread_mutex_destroy(&d->mu);
    pthread_cond_destroy(&d->wake);
    free(d);
}

int berth__daemon_run(struct berth__daemon *d, struct berth_err *err)
{
    int rc = berth__http_start(d, err);
    if (rc)
        return rc;
    snprintf(d->api_url, sizeof d->api_url, "http://%s:%d", d->o.addr, d->bound_port);
    pthread_mutex_lock(&d->mu);
    rc = berth__daemon_recover(d, err);
    pthread_mutex_unlock(&d->mu);
    if (rc) {
        berth__http_stop(d);
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
        if (d->xo->prefetch) {
            pthread_mutex_unlock(&d->mu);
            d->xo->prefetch(d);
            pthread_mutex_lock(&d->mu);
        }
        berth_us now = berth__wall_us(), t0 = berth__mono_us();
        rc = berth__daemon_tick(d, now, err);
        berth_us took = berth__mono_us() - t0;
        d->ticks++;
        d->tick_sum_us += took;
        d->tick_max_us = took > d->tick_max_us ? took : d->tick_max_us;
        if (rc)
            break;
        berth_us until = now + d->o.tick_us;
        if (d->next_pass != BERTH_TIME_NONE && d->next_pass > now && d->next_pass < until)
            until = d->next_pass;
        if (!d->dirty && !d->nincoming) {
            struct timespec ts = {(time_t)(until / BERTH_US_PER_S),
                                  (long)(until % BERTH_US_PER_S) * 1000};
            pthread_cond_timedwait(&d->wake, &d->mu, &ts);
        }
    }
    pthread_mutex_unlock(&d->mu);
    berth__http_stop(d);
    return rc;
}
