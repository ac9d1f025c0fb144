/* What the API asks of the daemon: accept a job (durably), cancel, hold and release, and
 * say why a job waits. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "live/daemon/daemon.h"
#include "model/cluster.h"
#include "live/jobs/report.h"

/* 400 when the job could never run on this cluster. */
static int check_fits(struct berth__daemon *d, const struct berth__ljob *j, struct berth_err *err)
{
    const struct berth_cluster *c = d->cluster;
    const struct berth_jobspec *s = &j->spec;
    uint64_t mask = 0;
    /* every alternative must be a type of the cluster: a typo in "v100|a10O" would otherwise
     * quietly narrow the job to the alternatives that exist (docs/api.md) */
    for (const char *p = s->gpu_type; *p;) {
        size_t n = strcspn(p, "|");
        char one[256];
        snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one ? n : sizeof one - 1), p);
        if (berth_cluster_type_find(c, one) < 0) {
            char have[256];
            size_t o = 0;
            have[0] = '\0';
            for (size_t t = 0; t < c->ntypes && o < sizeof have; t++)
                o += (size_t)snprintf(have + o, sizeof have - o, "%s%s", t ? ", " : "",
                                      c->types[t].name);
            return berth_err_set(err, BERTH_EINPUT,
                                 "gpu_type: '%s' is not a GPU type of this cluster (it has %s)",
                                 one, have);
        }
        p += n + (p[n] == '|');
    }
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
    const struct berth__policy_ops *ops = d->engine->ops;
    if (!ops->check)
        return 0;
    struct berth__job tmp;
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

void berth__daemon_count(struct berth__daemon *d, struct berth__ljob *j)
{
    j->tally = &d->tally;
    j->tally_slot = berth__tally_slot(&d->tally, j->spec.queue);
    berth__tally_move(&d->tally, j->tally_slot, -1, j->state);
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
    berth__daemon_count(d, j);
    return 0;
}

/* 507 when the state dir's file system is below its floor: new jobs would fill it. */
static int space_left(struct berth__daemon *d, struct berth_err *err)
{
    struct statvfs sv;
    if (d->o.min_free <= 0 || statvfs(d->state_dir, &sv))
        return 0;
    int64_t avail = (int64_t)sv.f_bavail * (int64_t)sv.f_frsize;
    if (avail >= d->o.min_free)
        return 0;
    berth_err_set(err, BERTH_EAGAIN,
                  "state dir: %lld MiB free on the disk of %s, below --min-free %lld MiB: "
                  "berthd takes no new jobs until space is freed (everything else goes on)",
                  (long long)(avail >> 20), d->state_dir, (long long)(d->o.min_free >> 20));
    return 507;
}

/* Under d->mu: the submitter's limits. A pass reserves the job's place in the count of the
 * user's waiting jobs (given back if the journal write fails). */
static int within_limits(struct berth__daemon *d, struct berth__ljob *j, int *retry,
                         struct berth_err *err)
{
    struct berth__limit_set lim;
    berth__limits_for(&d->o.limits, j->user, &lim);
    struct berth__usage *u = berth__usage_of(d->usage, j->user);
    if (!u) {
        berth_err_set(err, BERTH_ENOMEM, "out of memory");
        return 500;
    }
    int wait = berth__usage_take_token(u, &lim, berth__wall_us());
    if (wait) {
        *retry = wait;
        berth_err_set(err, BERTH_EAGAIN,
                      "user %s: more than %g submissions per second (bursts of %g): retry in "
                      "%d s",
                      j->user, lim.submit_rate, lim.submit_burst, wait);
        return 429;
    }
    int64_t g = j->spec.max_gpus > j->spec.num_gpus ? j->spec.max_gpus : j->spec.num_gpus;
    if (lim.max_gpus > 0 && g > lim.max_gpus) {
        berth_err_set(err, BERTH_EINPUT,
                      "gpus: asks for %lld GPUs, more than user %s may hold at once (max_gpus "
                      "%lld)",
                      (long long)g, j->user, (long long)lim.max_gpus);
        return 400;
    }
    if (lim.max_pending > 0 && u->waiting >= lim.max_pending) {
        *retry = 60;
        berth_err_set(err, BERTH_EAGAIN,
                      "user %s: %lld jobs waiting already, the limit (max_pending) is %lld: "
                      "submit more as they start",
                      j->user, (long long)u->waiting, (long long)lim.max_pending);
        return 429;
    }
    u->waiting++;
    return 0;
}

int berth__daemon_submit(struct berth__daemon *d, struct berth__ljob *j, int *retry,
                         struct berth_err *err)
{
    pthread_mutex_lock(&d->mu); /* a policy's check may set the policy up */
    int st = berth__daemon_refuses(d, j, err) ? 400 : space_left(d, err);
    if (!st)
        st = within_limits(d, j, retry, err);
    if (st == 429)
        d->refused_limit++;
    else if (st == 507)
        d->refused_space++;
    pthread_mutex_unlock(&d->mu);
    if (st)
        return st;
    if (berth__auth_new_token(j->token, sizeof j->token)) {
        berth_err_set(err, BERTH_EIO, "no randomness for the job token");
        st = 500;
        goto unreserve;
    }
    uint64_t id = atomic_fetch_add(&d->next_id, 1);
    berth__ljob_set_id(j, id);
    j->submit_us = berth__wall_us();
    if (berth__ljob_note(j, j->submit_us, j->state, "submitted by %s%s", j->user,
                         j->state == BERTH_L_HELD ? " (held)" : "")) {
        berth_err_set(err, BERTH_ENOMEM, "out of memory");
        st = 500;
        goto unreserve;
    }
    if (berth__daemon_save(d, j, 1, err)) { /* on disk before the answer */
        *retry = 5;
        st = 503;
        goto unreserve;
    }
    pthread_mutex_lock(&d->mu);
    j->usage = berth__usage_of(d->usage, j->user); /* its place in the count is reserved */
    st = berth__daemon_insert(d, j, id, err) ? 500 : 0;
    pthread_mutex_unlock(&d->mu);
    if (!st)
        atomic_fetch_add_explicit(&d->tel.submitted, 1, memory_order_relaxed);
    return st;
unreserve:
    pthread_mutex_lock(&d->mu);
    struct berth__usage *u = berth__usage_of(d->usage, j->user);
    if (u)
        u->waiting--;
    if (st == 503)
        d->refused_journal++;
    pthread_mutex_unlock(&d->mu);
    return st;
}

/* Writes what change() makes of j's record, durably, before the change is made: a copy of
 * the record is changed and journaled (waiting for the commit); only then may the caller
 * change the job itself. 503 (nothing changed) when the journal cannot write. */
static int journal_first(struct berth__daemon *d, struct berth__ljob *j,
                         void (*change)(struct berth__ljob *c, berth_us now), berth_us now,
                         int *retry, struct berth_err *err)
{
    struct berth__ljob *c = NULL;
    if (berth__ljob_clone(j, &c, err))
        return 500;
    change(c, now);
    int rc = berth__daemon_save(d, c, 1, err);
    berth__ljob_free(c);
    if (rc) {
        *retry = 5;
        d->refused_journal++;
        return 503;
    }
    return 0;
}

void berth__daemon_cancel_record(struct berth__ljob *j, berth_us now)
{
    j->launch = 0;
    if (j->proc) {
        j->then = BERTH_THEN_CANCEL;
        berth__ljob_note(j, now, j->state, "cancel asked: %s sent",
                         berth__signal_name(j->ckpt_sig));
    } else {
        j->end_us = now;
        berth__ljob_note(j, now, BERTH_L_CANCELLED, "cancelled");
    }
}

int berth__daemon_cancel(struct berth__daemon *d, uint64_t id, int *retry, struct berth_err *err)
{
    struct berth__ljob *j = berth__daemon_job(d, id);
    if (berth__lstate_final(j->state)) {
        berth_err_set(err, BERTH_EINPUT, "job %llu is already %s", (unsigned long long)id,
                      berth__lstate_name(j->state));
        return 409;
    }
    if (j->then == BERTH_THEN_CANCEL) /* asked already: its attempt is stopping */
        return 0;
    berth_us now = berth__wall_us();
    int st = journal_first(d, j, berth__daemon_cancel_record, now, retry, err);
    if (st)
        return st;
    if (berth__daemon_cancel_locked(d, j, now, err))
        return 500;
    berth__daemon_save(d, j, 0, NULL);
    pthread_cond_signal(&d->wake);
    return 0;
}

static void hold_record(struct berth__ljob *j, berth_us now)
{
    berth__ljob_note(j, now, BERTH_L_HELD, "held");
}

static void release_record(struct berth__ljob *j, berth_us now)
{
    berth__ljob_note(j, now, BERTH_L_PENDING, "released");
}

int berth__daemon_hold(struct berth__daemon *d, uint64_t id, int hold, int *retry,
                       struct berth_err *err)
{
    struct berth__ljob *j = berth__daemon_job(d, id);
    berth_us now = berth__wall_us();
    int want = hold ? BERTH_L_PENDING : BERTH_L_HELD;
    if (j->then == BERTH_THEN_CANCEL) { /* a cancel is final once acknowledged */
        berth_err_set(err, BERTH_EINPUT,
                      "job %llu is being cancelled (attempt %d is stopping): it cannot be %s",
                      (unsigned long long)id, j->attempt, hold ? "held" : "released");
        return 409;
    }
    if (j->state != want) {
        berth_err_set(err, BERTH_EINPUT, "job %llu is %s: only %s jobs can be %s",
                      (unsigned long long)id, berth__lstate_name(j->state),
                      hold ? "pending" : "held", hold ? "held" : "released");
        return 409;
    }
    int st = journal_first(d, j, hold ? hold_record : release_record, now, retry, err);
    if (st)
        return st;
    if (hold) {
        struct berth__job *ej = berth__daemon_ejob(d, j);
        if (ej && berth__engine_cancel(d->engine, j->eidx, now, err))
            return 500;
        if (ej)
            berth__daemon_left_sched(d, j, now);
        j->in_engine = 0;
        berth__daemon_unhold_back(d, j);
        hold_record(j, now);
    } else {
        release_record(j, now);
        if (berth__daemon_enqueue(d, j, now, err))
            return 500;
    }
    berth__drive_touch(&d->drive);
    berth__daemon_save(d, j, 0, NULL);
    pthread_cond_signal(&d->wake);
    return 0;
}

static void why(struct berth__daemon *d, struct berth__ljob *j, char *buf, size_t len, int brief);

void berth__daemon_why(struct berth__daemon *d, struct berth__ljob *j, char *buf, size_t len)
{
    why(d, j, buf, len, 0);
}

void berth__daemon_why_brief(struct berth__daemon *d, struct berth__ljob *j, char *buf, size_t len)
{
    why(d, j, buf, len, 1);
}

static void why(struct berth__daemon *d, struct berth__ljob *j, char *buf, size_t len, int brief)
{
    const struct berth_cluster *c = d->engine->cluster; /* the live free-GPU state */
    struct berth__job *ej = berth__daemon_ejob(d, j);
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
    if (!ej && j->held_back) {
        struct berth__limit_set lim;
        berth__limits_for(&d->o.limits, j->user, &lim);
        snprintf(buf, len,
                 "UserGPULimit: user %s may have jobs for %lld GPUs in the scheduler at once "
                 "(max_gpus), and has %lld there; it enters, in submission order, as they end",
                 j->user, (long long)lim.max_gpus,
                 (long long)(j->usage ? j->usage->sched_gpus : 0));
        return;
    }
    if (!ej) {
        snprintf(buf, len, "accepted; entering the queue");
        return;
    }
    size_t ahead = 0;
    for (uint32_t i = 0; !brief && i < ej->idx; i++)
        ahead += d->engine->jobs[i].state == BERTH_JOB_PENDING;
    int32_t idle = 0;
    for (size_t t = 0; t < c->ntypes; t++)
        if (!ej->type_mask || (ej->type_mask >> t & 1))
            idle += c->types[t].free;
    size_t o =
        (size_t)snprintf(buf, len, "waiting for %d %sGPU%s%s%s (%d idle of the types it may use)",
                         ej->gpus, ej->share < 1000 ? "shared " : "", ej->gpus == 1 ? "" : "s",
                         j->spec.gpu_type[0] ? " of type " : "", j->spec.gpu_type, idle);
    if (o < len && !brief)
        o += (size_t)snprintf(buf + o, len - o, "; %zu pending jobs submitted before it", ahead);
    if (o < len)
        o += (size_t)snprintf(buf + o, len - o, "; policy %s", d->engine->ops->name);
    if (j->proc && o < len)
        snprintf(buf + o, len - o, "; its preempted attempt is still checkpointing");
    else if (j->resume && o < len)
        snprintf(buf + o, len - o, "; it was preempted and resumes from its checkpoint");
}
