/* The host interface berthd gives its executor (executor.h): each callback a thin wrapper
 * over the daemon, so that an executor sees the job records it works on and these calls,
 * never struct berth__daemon. The callbacks other than log and now are made under d->mu
 * (the executor's ops that may make them are called with it held). */
#include <stdatomic.h>
#include <stdio.h>

#include "live/daemon/core.h"
#include "live/exec/executor.h"
#include "model/cluster.h"

static void host_log(void *ctx, const char *fmt, va_list ap)
{
    struct berth__daemon *d = ctx;
    vfprintf(d->log, fmt, ap);
}

static berth_us host_now(void *ctx)
{
    (void)ctx;
    return berth__wall_us();
}

static char **host_job_env(void *ctx, const struct berth__ljob *j, int devices)
{
    return berth__daemon_job_env(ctx, j, devices);
}

static struct berth__ljob *host_job(void *ctx, uint64_t id)
{
    return berth__daemon_job(ctx, id);
}

/* *cursor is an index of the job table (every job, gaps skipped) or of the work list. */
static struct berth__ljob *host_next_job(void *ctx, int walk, size_t *cursor)
{
    struct berth__daemon *d = ctx;
    if (walk == BERTH_EXEC_BUSY)
        return *cursor < d->nactive ? berth__daemon_job(d, d->active[(*cursor)++]) : NULL;
    while (*cursor < d->njobs) {
        struct berth__ljob *j = d->jobs[(*cursor)++];
        if (j)
            return j;
    }
    return NULL;
}

static int host_refuses(void *ctx, const struct berth__ljob *j, struct berth_err *err)
{
    return berth__daemon_refuses(ctx, j, err);
}

/* As a submission gets them: a token, the next id, its place in its user's count of waiting
 * jobs; then the job table and the loop's incoming list. */
static int host_adopt(void *ctx, struct berth__ljob *j, struct berth_err *err)
{
    struct berth__daemon *d = ctx;
    if (berth__auth_new_token(j->token, sizeof j->token))
        return berth_err_set(err, BERTH_EIO, "no randomness for the job token");
    uint64_t id = atomic_fetch_add(&d->next_id, 1);
    berth__ljob_set_id(j, id);
    j->usage = berth__usage_of(d->usage, j->user);
    if (j->usage)
        j->usage->waiting++;
    j->qusage = berth__usage_of(d->qusage, j->spec.queue);
    if (j->qusage)
        j->qusage->waiting++;
    int rc = berth__daemon_insert(d, j, id, err);
    if (rc && j->qusage) {
        j->qusage->waiting--;
        j->qusage = NULL;
    }
    if (rc && j->usage) { /* still the caller's: nothing of it stays counted */
        j->usage->waiting--;
        j->usage = NULL;
    }
    return rc;
}

static int host_adopt_array(void *ctx, struct berth__ljob **jobs, size_t n, size_t *taken,
                            struct berth_err *err)
{
    struct berth__daemon *d = ctx;
    *taken = 0;
    for (size_t i = 0; i < n; i++)
        if (berth__auth_new_token(jobs[i]->token, sizeof jobs[i]->token))
            return berth_err_set(err, BERTH_EIO, "no randomness for the job token");
    uint64_t first = atomic_fetch_add(&d->next_id, n);
    for (size_t i = 0; i < n; i++) {
        struct berth__ljob *t = jobs[i];
        berth__ljob_set_id(t, first + i);
        t->array_id = first;
        t->array_task = jobs[0]->array_idx[i];
        t->array_n = (uint32_t)n;
        t->array_max = jobs[0]->array_max;
        t->usage = berth__usage_of(d->usage, t->user);
        t->qusage = berth__usage_of(d->qusage, t->spec.queue);
        if (t->usage)
            t->usage->waiting++;
        if (t->qusage)
            t->qusage->waiting++;
        if (berth__daemon_insert(d, t, first + i, err)) { /* nothing of it stays counted */
            if (t->usage)
                t->usage->waiting--;
            if (t->qusage)
                t->qusage->waiting--;
            t->usage = t->qusage = NULL;
            return BERTH_ENOMEM;
        }
        *taken = i + 1;
        berth__daemon_joined(d, t);
    }
    return 0;
}

static int host_cancel(void *ctx, struct berth__ljob *j, berth_us now, struct berth_err *err)
{
    return berth__daemon_cancel_locked(ctx, j, now, err);
}

static int host_save(void *ctx, struct berth__ljob *j, struct berth_err *err)
{
    return berth__daemon_save(ctx, j, 0, err);
}

/* In the engine's cluster: the live free-GPU state that passes place on. */
static int host_reserve(void *ctx, uint32_t server, int on)
{
    struct berth__daemon *d = ctx;
    return on ? berth__cluster_reserve(d->engine->cluster, server)
              : berth__cluster_unreserve(d->engine->cluster, server);
}

static void host_close_server(void *ctx, uint32_t server, int on)
{
    struct berth__daemon *d = ctx;
    berth__cluster_close(d->engine->cluster, server, on);
}

static void host_hold_out(void *ctx, uint32_t server, int32_t n)
{
    struct berth__daemon *d = ctx;
    berth__cluster_hold_out(d->engine->cluster, server, n);
}

static void host_pass_due(void *ctx)
{
    struct berth__daemon *d = ctx;
    berth__drive_touch(&d->drive);
}

static void host_counted_read(void *ctx)
{
    struct berth__daemon *d = ctx;
    d->sync_reads++;
}

static void host_restart(void *ctx, const char *why)
{
    struct berth__daemon *d = ctx;
    if (d->restart)
        return;
    fprintf(d->log,
            "berthd: %s: berthd runs itself again to schedule it (running jobs go on "
            "and are re-adopted)\n",
            why);
    fflush(d->log);
    d->restart = 1;
    d->stop = 1;
}

void berth__daemon_host_init(struct berth__daemon *d)
{
    d->host = (struct berth__exec_host){.ctx = d,
                                        .files = &d->ex,
                                        .gpus = d->o.gpus,
                                        .slurm_conf = d->o.slurm_conf,
                                        .slurm_partitions = d->o.slurm_partitions,
                                        .slurm_failsafe_us = d->o.slurm_failsafe_us,
                                        .slurm_node_poll_us = d->o.slurm_node_poll_us,
                                        .log = host_log,
                                        .now = host_now,
                                        .job_env = host_job_env,
                                        .job = host_job,
                                        .next_job = host_next_job,
                                        .refuses = host_refuses,
                                        .adopt = host_adopt,
                                        .adopt_array = host_adopt_array,
                                        .cancel = host_cancel,
                                        .save = host_save,
                                        .reserve = host_reserve,
                                        .close_server = host_close_server,
                                        .hold_out = host_hold_out,
                                        .pass_due = host_pass_due,
                                        .counted_read = host_counted_read,
                                        .restart = host_restart};
}
