/* What the API asks of the daemon: accept a job (durably), cancel, hold and release, and
 * say why a job waits. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "model/cluster_int.h"
#include "report.h"

/* 400 when the job could never run on this cluster. */
static int check_fits(struct berth__daemon *d, const struct berth__ljob *j, struct berth_err *err)
{
    const struct berth_cluster *c = d->cluster;
    const struct berth_jobspec *s = &j->spec;
    uint64_t mask = 0;
    if (s->gpu_type[0] && berth__cluster_type_mask(c, s->gpu_type, &mask))
        return berth_err_set(err, BERTH_EINPUT, "gpu_type: '%s' is not a GPU type of this cluster",
                             s->gpu_type);
    int32_t have = 0, per = 0;
    for (size_t t = 0; t < c->ntypes; t++)
        if (!mask || (mask >> t & 1)) {
            int32_t tot = c->types[t].total, mx = c->types[t].max_per_server;
            have = tot > have ? tot : have;
            per = mx > per ? mx : per;
        }
    int32_t need = s->min_gpus;
    if (need > have)
        return berth_err_set(err, BERTH_EINPUT,
                             "gpus: asks for %d GPUs, the cluster has at most %d of one type", need,
                             have);
    if ((s->single_server || !c->allow_span) && need > per)
        return berth_err_set(err, BERTH_EINPUT,
                             "gpus: asks for %d GPUs on one server, servers have at most %d", need,
                             per);
    return 0;
}

/* 400 when the policy says it can never run the job (its optional check hook, as the
 * simulator asks before a run); under the engine's lock, since a check may set the policy up. */
static int check_policy(struct berth__daemon *d, const struct berth__ljob *j, struct berth_err *err)
{
    const struct berth_policy_ops *ops = d->engine->ops;
    if (!ops->check)
        return 0;
    struct berth_job tmp;
    int rc = berth__job_init(&tmp, &j->spec, 0, d->engine->cluster)
                 ? BERTH_EINPUT
                 : ops->check(d->engine->self, d->engine->cluster, &tmp, err);
    if (rc) {
        char why[BERTH_ERR_MSG_MAX];
        snprintf(why, sizeof why, "%s", err->msg);
        berth_err_set(err, BERTH_EINPUT, "gpus: policy %s cannot run this job: %s", ops->name, why);
    }
    return rc;
}

int berth__daemon_refuses(struct berth__daemon *d, const struct berth__ljob *j,
                          struct berth_err *err)
{
    return check_fits(d, j, err) || check_policy(d, j, err);
}

int berth__daemon_insert(struct berth__daemon *d, struct berth__ljob *j, uint64_t id,
                         struct berth_err *err)
{
    if (BERTH_GROW(d->jobs, d->cap, (size_t)id) ||
        BERTH_GROW(d->incoming, d->incoming_cap, d->nincoming + 1))
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    for (size_t i = d->njobs; i < id; i++)
        d->jobs[i] = NULL;
    if (id > d->njobs)
        d->njobs = (size_t)id;
    d->jobs[id - 1] = j;
    d->incoming[d->nincoming++] = (uint32_t)id;
    d->submitted++; /* the loop takes it at its next tick */
    return 0;
}

int berth__daemon_submit(struct berth__daemon *d, struct berth__ljob *j, struct berth_err *err)
{
    pthread_mutex_lock(&d->mu); /* a policy's check may set the policy up */
    int refused = berth__daemon_refuses(d, j, err);
    pthread_mutex_unlock(&d->mu);
    if (refused)
        return 400;
    if (berth__auth_new_token(j->token, sizeof j->token)) {
        berth_err_set(err, BERTH_EIO, "no randomness for the job token");
        return 500;
    }
    uint64_t id = atomic_fetch_add(&d->next_id, 1);
    berth__ljob_set_id(j, id);
    j->submit_us = berth__wall_us();
    if (berth__ljob_note(j, j->submit_us, j->state, "submitted by %s%s", j->user,
                         j->state == BERTH_L_HELD ? " (held)" : "") ||
        berth__daemon_save(d, j, 1, err)) /* on disk before the answer */
        return 500;
    pthread_mutex_lock(&d->mu);
    int rc = berth__daemon_insert(d, j, id, err) ? 500 : 0;
    pthread_mutex_unlock(&d->mu);
    return rc;
}

int berth__daemon_cancel(struct berth__daemon *d, uint64_t id, struct berth_err *err)
{
    struct berth__ljob *j = berth__daemon_job(d, id);
    if (berth__lstate_final(j->state)) {
        berth_err_set(err, BERTH_EINPUT, "job %llu is already %s", (unsigned long long)id,
                      berth__lstate_name(j->state));
        return 409;
    }
    berth_us now = berth__wall_us();
    if (berth__daemon_cancel_locked(d, j, now, err) || berth__daemon_save(d, j, 1, err))
        return 500;
    pthread_cond_signal(&d->wake);
    return 0;
}

int berth__daemon_hold(struct berth__daemon *d, uint64_t id, int hold, struct berth_err *err)
{
    struct berth__ljob *j = berth__daemon_job(d, id);
    berth_us now = berth__wall_us();
    if (hold) {
        if (j->state != BERTH_L_PENDING) {
            berth_err_set(err, BERTH_EINPUT, "job %llu is %s: only pending jobs can be held",
                          (unsigned long long)id, berth__lstate_name(j->state));
            return 409;
        }
        struct berth_job *ej = berth__daemon_ejob(d, j);
        if (ej && berth__engine_cancel(d->engine, j->eidx, now, err))
            return 500;
        j->in_engine = 0;
        berth__ljob_note(j, now, BERTH_L_HELD, "held");
    } else {
        if (j->state != BERTH_L_HELD) {
            berth_err_set(err, BERTH_EINPUT, "job %llu is %s: only held jobs can be released",
                          (unsigned long long)id, berth__lstate_name(j->state));
            return 409;
        }
        berth__ljob_note(j, now, BERTH_L_PENDING, "released");
        if (berth__daemon_enqueue(d, j, now, err))
            return 500;
    }
    d->dirty = 1;
    if (berth__daemon_save(d, j, 1, err))
        return 500;
    pthread_cond_signal(&d->wake);
    return 0;
}

void berth__daemon_why(struct berth__daemon *d, struct berth__ljob *j, char *buf, size_t len)
{
    const struct berth_cluster *c = d->engine->cluster; /* the live free-GPU state */
    struct berth_job *ej = berth__daemon_ejob(d, j);
    switch (j->state) {
    case BERTH_L_HELD:
        snprintf(buf, len, "held: it waits until released (berth release %s)", j->idstr);
        return;
    case BERTH_L_RUNNING:
        if (j->proc && j->launch)
            snprintf(buf, len, "restarting: its previous attempt is checkpointing");
        else if (!j->proc)
            snprintf(buf, len, "starting: waiting for the previous holders of its GPUs to exit");
        else
            snprintf(buf, len, "running (attempt %d)", j->attempt);
        return;
    case BERTH_L_PENDING:
        break;
    default:
        if (j->exit_signal >= 0)
            snprintf(buf, len, "%s: killed by signal %d", berth__lstate_name(j->state),
                     j->exit_signal);
        else if (j->exit_code >= 0)
            snprintf(buf, len, "%s: exit %d", berth__lstate_name(j->state), j->exit_code);
        else
            snprintf(buf, len, "%s", berth__lstate_name(j->state));
        return;
    }
    if (!ej) {
        snprintf(buf, len, "accepted; entering the queue");
        return;
    }
    size_t ahead = 0;
    for (uint32_t i = 0; i < ej->idx; i++)
        ahead += d->engine->jobs[i].state == BERTH_JOB_PENDING;
    int32_t idle = 0;
    for (size_t t = 0; t < c->ntypes; t++)
        if (!ej->type_mask || (ej->type_mask >> t & 1))
            idle += c->types[t].free;
    size_t o = (size_t)snprintf(
        buf, len,
        "waiting for %d %sGPU%s%s%s (%d idle of the types it may use); %zu pending jobs "
        "submitted before it; policy %s",
        ej->gpus, ej->share < 1000 ? "shared " : "", ej->gpus == 1 ? "" : "s",
        j->spec.gpu_type[0] ? " of type " : "", j->spec.gpu_type, idle, ahead,
        d->engine->ops->name);
    if (j->proc && o < len)
        snprintf(buf + o, len - o, "; its preempted attempt is still checkpointing");
    else if (j->resume && o < len)
        snprintf(buf + o, len - o, "; it was preempted and resumes from its checkpoint");
}
