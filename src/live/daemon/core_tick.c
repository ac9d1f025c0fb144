/* What the scheduler loop does with processes: the engine's start / stop / migrate calls,
 * launching attempts once their GPUs are free of draining processes, the checkpoint signal
 * and the SIGKILL after the grace period, and each attempt's end. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "live/daemon/core.h"
#include "model/cluster.h"
#include "live/jobs/report.h"

static struct berth__ljob *ljob_of(struct berth__daemon *d, const struct berth__job *ej)
{
    return berth__daemon_job(d, d->by_eidx[ej->idx]);
}

static void describe_slots(struct berth__daemon *d, const struct berth__slot *s, int32_t n,
                           char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int32_t i = 0; i < n && o < len; i++) {
        if (s[i].server >= d->cluster->nsrv) { /* journaled on a node that is gone */
            o += (size_t)snprintf(buf + o, len - o, "%s(gone)", i ? "," : "");
            continue;
        }
        const struct berth__server *v = &d->cluster->srv[s[i].server];
        if (s[i].gpu == BERTH_NO_GPU)
            o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "," : "", v->name);
        else
            o += (size_t)snprintf(buf + o, len - o, "%s%s:%u", i ? "," : "", v->name, s[i].gpu);
    }
}

/* The process's GPUs stay busy until it exits, whatever the engine does meanwhile. */
void berth__daemon_drain(struct berth__daemon *d, struct berth__ljob *j, int on)
{
    if (!j->proc || j->draining == on)
        return;
    j->draining = on;
    for (int32_t i = 0; i < j->npslots; i++)
        if (j->pslots[i].gpu != BERTH_NO_GPU && j->pslots[i].server < d->cluster->nsrv)
            d->drain[j->pslots[i].server * BERTH_MAX_SERVER_GPUS + j->pslots[i].gpu] +=
                on ? 1 : (uint16_t)-1;
}

/* Asks the running attempt to end: the checkpoint signal once the decision is journaled
 * (at the end of this tick, berth__daemon_stops_flush), SIGKILL after the grace. An attempt
 * that checkpointed on a signal whose decision the journal never got would look, after a
 * crash, like one that finished (exit 0 while berthd was down: completed). */
static void ask_to_stop(struct berth__daemon *d, struct berth__ljob *j, int then, berth_us now)
{
    j->then = (uint8_t)then;
    berth__daemon_drain(d, j, 1);
    if (!j->kill_at) {
        j->kill_at = now + (j->grace_us > 0 ? j->grace_us : 1);
        if (BERTH_GROW(d->stop_due, d->stop_due_cap, d->nstop_due + 1))
            d->xo->stop(d->xs, j, 0); /* out of memory: at once, as before */
        else
            d->stop_due[d->nstop_due++] = (uint32_t)j->id;
    }
}

void berth__daemon_stops_flush(struct berth__daemon *d)
{
    if (!d->nstop_due)
        return;
    /* the journal commits in order: once a document queued after every decision's has
     * committed, so have they */
    struct berth__ljob *last = berth__daemon_job(d, d->stop_due[d->nstop_due - 1]);
    struct berth_err e = {0};
    if (last && berth__daemon_save(d, last, 1, &e))
        fprintf(d->log, "berthd: %s (stops signalled all the same)\n", e.msg);
    for (size_t i = 0; i < d->nstop_due; i++) {
        struct berth__ljob *j = berth__daemon_job(d, d->stop_due[i]);
        if (j && j->proc && j->kill_at)
            d->xo->stop(d->xs, j, 0);
    }
    d->nstop_due = 0;
}

void berth__daemon_activate(struct berth__daemon *d, struct berth__ljob *j)
{
    for (size_t i = 0; i < d->nactive; i++)
        if (d->active[i] == (uint32_t)j->id)
            return;
    if (!BERTH_GROW(d->active, d->active_cap, d->nactive + 1))
        d->active[d->nactive++] = (uint32_t)j->id;
}

static void take_slots(struct berth__daemon *d, struct berth__ljob *j, const struct berth__job *ej)
{
    if (berth__ljob_slots(j)) { /* 1 KB: the engine's callback cannot fail, berthd can */
        fprintf(d->log,
                "berthd: out of memory taking job %s's GPUs: stopping (a restart "
                "re-adopts every job from the journal)\n",
                j->idstr);
        fflush(d->log);
        abort();
    }
    j->nslots = berth__job_nslots(ej);
    if (j->nslots > BERTH_L_MAX_SLOTS)
        j->nslots = BERTH_L_MAX_SLOTS;
    memcpy(j->slots, ej->slots, (size_t)j->nslots * sizeof *j->slots);
    j->run_share_milli = ej->share;
    if (j->nslots && j->slots[0].server < d->cluster->nsrv) /* for accounting */
        snprintf(j->ran_type, sizeof j->ran_type, "%s",
                 d->cluster->types[d->cluster->srv[j->slots[0].server].type].name);
}

void berth__daemon_on_start(void *ctx, struct berth__job *ej, berth_us now)
{
    struct berth__daemon *d = ctx;
    struct berth__ljob *j = ljob_of(d, ej);
    take_slots(d, j, ej);
    char where[256];
    describe_slots(d, j->slots, j->nslots, where, sizeof where);
    berth__ljob_note(j, now, BERTH_L_RUNNING, "scheduled on %s", where);
    berth__daemon_started(d, j, now);
    if (!j->start_us)
        j->start_us = now;
    j->launch = 1;
    berth__daemon_activate(d, j);
    berth__report_started(j, ej, now);
    berth__daemon_moved(d, j); /* its "after" dependents may start */
}

void berth__daemon_on_stop(void *ctx, struct berth__job *ej, berth_us now)
{
    struct berth__daemon *d = ctx;
    struct berth__ljob *j = ljob_of(d, ej);
    berth__ljob_note(j, now, BERTH_L_PENDING, "preempted by the %s policy", d->engine->ops->name);
    berth__report_stopped(ej, now);
    j->launch = 0;
    if (j->proc)
        ask_to_stop(d, j, BERTH_THEN_REQUEUE, now);
    berth__daemon_save(d, j, 0, NULL);
}

void berth__daemon_on_migrate(void *ctx, struct berth__job *ej, berth_us now)
{
    struct berth__daemon *d = ctx;
    struct berth__ljob *j = ljob_of(d, ej);
    int resize = ej->gpus != j->nslots;
    take_slots(d, j, ej);
    char where[256];
    describe_slots(d, j->slots, j->nslots, where, sizeof where);
    berth__ljob_note(j, now, BERTH_L_RUNNING, "%s to %s", resize ? "resized" : "migrated", where);
    berth__report_stopped(ej, now);
    berth__report_started(j, ej, now);
    if (j->proc)
        ask_to_stop(d, j, BERTH_THEN_RESTART, now);
    j->launch = 1;
    berth__daemon_activate(d, j);
}

int berth__free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = 29500;
    if (s >= 0 && !bind(s, (struct sockaddr *)&a, sizeof a) &&
        !getsockname(s, (struct sockaddr *)&a, &len))
        port = ntohs(a.sin_port);
    if (s >= 0)
        close(s);
    return port;
}

/* BERTH_RANK_HOSTS: the server of each rank (each GPU slot, in the plan's order, which a
 * topology-aware placement chose; a CPU-only job's one rank: its first slot's server), and
 * BERTH_HOSTFILE, where the shim writes them as a hostfile (docs/job-protocol.md). 0 when
 * out of memory. */
static int rank_hosts(struct berth__daemon *d, const struct berth__ljob *j, char ***v, size_t *n,
                      size_t *cap)
{
    size_t len = 1, o = 0, k = 0;
    for (int32_t i = 0; i < j->nslots; i++)
        len += strlen(d->cluster->srv[j->slots[i].server].name) + 1;
    char *hosts = malloc(len), path[4096];
    if (!hosts)
        return 0;
    hosts[0] = '\0';
    for (int32_t i = 0; i < j->nslots; i++) {
        int gpu = j->slots[i].gpu != BERTH_NO_GPU;
        if (gpu || (i == j->nslots - 1 && !k)) { /* a CPU-only job: one rank */
            const char *h = d->cluster->srv[j->slots[gpu ? i : 0].server].name;
            o += (size_t)snprintf(hosts + o, len - o, "%s%s", k++ ? "," : "", h);
        }
    }
    berth__lexec_spool(&d->ex, j->id, "hostfile", path, sizeof path);
    int ok = !k || (!berth__env_add(v, n, cap, "BERTH_RANK_HOSTS", hosts) &&
                    !berth__env_add(v, n, cap, "BERTH_HOSTFILE", path));
    free(hosts);
    return ok;
}

char **berth__daemon_job_env(struct berth__daemon *d, const struct berth__ljob *j, int devices)
{
    static const char *const ours[] = {"USER",
                                       "LOGNAME",
                                       "HOME",
                                       "BERTH_JOB_ID",
                                       "BERTH_API",
                                       "BERTH_JOB_TOKEN",
                                       "BERTH_PROGRESS_FILE",
                                       "BERTH_RESUME",
                                       "BERTH_CHECKPOINT_SIGNAL",
                                       "BERTH_GRACE_S",
                                       "BERTH_ATTEMPT",
                                       "CUDA_VISIBLE_DEVICES",
                                       "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
                                       "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT",
                                       "WORLD_SIZE",
                                       "RANK",
                                       "LOCAL_RANK",
                                       "MASTER_ADDR",
                                       "MASTER_PORT",
                                       "BERTH_ARRAY_JOB_ID",
                                       "BERTH_ARRAY_TASK_ID",
                                       "BERTH_ARRAY_TASK_COUNT",
                                       "BERTH_SERVICE_ID",
                                       "BERTH_REPLICA",
                                       "BERTH_RANK_HOSTS",
                                       "BERTH_HOSTFILE",
                                       "PORT"};
    char **v = NULL, val[4096];
    size_t n = 0, cap = 0;
    int ok = 1;
    for (size_t i = 0; j->env[i] && ok; i++) {
        size_t k = 0;
        while (k < sizeof ours / sizeof *ours &&
               (strncmp(j->env[i], ours[k], strlen(ours[k])) || j->env[i][strlen(ours[k])] != '='))
            k++;
        if (k < sizeof ours / sizeof *ours)
            continue;
        char *eq = strchr(j->env[i], '=');
        *eq = '\0';
        ok = !berth__env_add(&v, &n, &cap, j->env[i], eq + 1);
        *eq = '=';
    }
    /* the account the job runs as, whatever the submitter's environment said */
    struct berth__account acct = {0};
    if (berth__account_by_uid(j->uid, &acct, NULL))
        snprintf(acct.home, sizeof acct.home, "/");
    ok = ok && !berth__env_add(&v, &n, &cap, "USER", j->user) &&
         !berth__env_add(&v, &n, &cap, "LOGNAME", j->user) &&
         !berth__env_add(&v, &n, &cap, "HOME", acct.home);
    ok = ok && !berth__env_add(&v, &n, &cap, "BERTH_JOB_ID", j->idstr) &&
         !berth__env_add(&v, &n, &cap, "BERTH_API", d->api_url) &&
         !berth__env_add(&v, &n, &cap, "BERTH_JOB_TOKEN", j->token);
    berth__lexec_spool(&d->ex, j->id, "progress.jsonl", val, sizeof val);
    ok = ok && !berth__env_add(&v, &n, &cap, "BERTH_PROGRESS_FILE", val);
    if (j->array_id) { /* a task of an array (sbatch's SLURM_ARRAY_*) */
        snprintf(val, sizeof val, "%llu", (unsigned long long)j->array_id);
        ok = ok && !berth__env_add(&v, &n, &cap, "BERTH_ARRAY_JOB_ID", val);
        snprintf(val, sizeof val, "%u", j->array_task);
        ok = ok && !berth__env_add(&v, &n, &cap, "BERTH_ARRAY_TASK_ID", val);
        snprintf(val, sizeof val, "%u", j->array_n);
        ok = ok && !berth__env_add(&v, &n, &cap, "BERTH_ARRAY_TASK_COUNT", val);
    }
    if (j->svc) { /* a service's replica: its index and the port berthd gave it */
        snprintf(val, sizeof val, "%llu", (unsigned long long)j->svc);
        ok = ok && !berth__env_add(&v, &n, &cap, "BERTH_SERVICE_ID", val);
        snprintf(val, sizeof val, "%d", j->replica);
        ok = ok && !berth__env_add(&v, &n, &cap, "BERTH_REPLICA", val);
        snprintf(val, sizeof val, "%d", j->port);
        ok = ok && !berth__env_add(&v, &n, &cap, "PORT", val);
    }
    if (!devices)
        goto done;
    if (j->resume)
        ok = ok && !berth__env_add(&v, &n, &cap, "BERTH_RESUME", "1");
    ok = ok &&
         !berth__env_add(&v, &n, &cap, "BERTH_CHECKPOINT_SIGNAL", berth__signal_name(j->ckpt_sig));
    snprintf(val, sizeof val, "%g", (double)j->grace_us / 1e6);
    ok = ok && !berth__env_add(&v, &n, &cap, "BERTH_GRACE_S", val);
    snprintf(val, sizeof val, "%d", j->attempt);
    ok = ok && !berth__env_add(&v, &n, &cap, "BERTH_ATTEMPT", val);
    size_t o = 0;
    val[0] = '\0';
    int32_t ngpu = 0;
    for (int32_t i = 0; i < j->nslots; i++)
        if (j->slots[i].gpu != BERTH_NO_GPU) {
            o += (size_t)snprintf(val + o, sizeof val - o, "%s%zu", ngpu ? "," : "",
                                  d->gpu_base[j->slots[i].server] + j->slots[i].gpu);
            ngpu++;
        }
    ok = ok && !berth__env_add(&v, &n, &cap, "CUDA_VISIBLE_DEVICES", val);
    /* the share the engine runs it at: its gpu_share, or a salus-* lane's part of the GPU */
    int32_t share = j->run_share_milli > 0 ? j->run_share_milli : j->spec.gpu_share_milli;
    int64_t pin =
        berth_jobspec_extra(&j->spec)->gpu_mem_mib > 0
            ? berth_jobspec_extra(&j->spec)->gpu_mem_mib
            : berth_jobspec_extra(&j->spec)->persist_mib + berth_jobspec_extra(&j->spec)->ephem_mib;
    if (share < 1000 && ngpu == 1) {
        int pct = (share + 9) / 10;
        snprintf(val, sizeof val, "%d", pct < 1 ? 1 : pct);
        ok = ok && !berth__env_add(&v, &n, &cap, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", val);
        if (pin > 0) {
            snprintf(val, sizeof val, "0=%lldM", (long long)pin);
            ok = ok && !berth__env_add(&v, &n, &cap, "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", val);
        }
    }
    ok = ok && rank_hosts(d, j, &v, &n, &cap);
    snprintf(val, sizeof val, "%d", ngpu ? ngpu : 1);
    ok = ok && !berth__env_add(&v, &n, &cap, "WORLD_SIZE", val) &&
         !berth__env_add(&v, &n, &cap, "RANK", "0") &&
         !berth__env_add(&v, &n, &cap, "LOCAL_RANK", "0") &&
         !berth__env_add(&v, &n, &cap, "MASTER_ADDR", "127.0.0.1");
    snprintf(val, sizeof val, "%d", berth__free_port());
    ok = ok && !berth__env_add(&v, &n, &cap, "MASTER_PORT", val);
done:
    if (!ok) {
        berth__strv_free(v);
        return NULL;
    }
    return v;
}

static int clear_to_launch(struct berth__daemon *d, const struct berth__ljob *j, berth_us now)
{
    if (j->proc || now < j->launch_at)
        return 0;
    for (int32_t i = 0; i < j->nslots; i++)
        if (j->slots[i].gpu != BERTH_NO_GPU &&
            d->drain[j->slots[i].server * BERTH_MAX_SERVER_GPUS + j->slots[i].gpu])
            return 0;
    return 1;
}

/* Journals the attempt durably, then forks it: a crash between the two leaves a journaled
 * attempt whose lock nobody holds, which recovery requeues; never a process the journal
 * does not know. */
static int launch(struct berth__daemon *d, struct berth__ljob *j, berth_us now,
                  struct berth_err *err)
{
    j->launch = 0;
    j->attempt++;
    j->launched = j->attempt;
    j->then = BERTH_THEN_FINISH;
    j->kill_at = 0;
    j->attempt_us = now; /* its time limit counts from here */
    int rc = berth__daemon_save(d, j, 1, err);
    if (rc) { /* not durable, so not forked: the same attempt again in a second */
        fprintf(d->log, "berthd: job %s: launch put off: %s\n", j->idstr, err->msg);
        j->attempt--;
        j->launched = j->attempt;
        j->launch = 1;
        j->launch_at = now + BERTH_US_PER_S;
        j->attempt_us = 0;
        return 0;
    }
    rc = d->xo->launch(d->xs, j, now, err);
    if (rc == BERTH_EAGAIN) { /* not yet: the same attempt again at j->launch_at */
        j->attempt--;
        j->launched = j->attempt;
        j->launch = 1;
        j->attempt_us = 0;
        return 0;
    }
    if (rc && j->svc) { /* a replica: as if it exited at once (restart, or the crash loop) */
        j->attempt_us = 0;
        fprintf(d->log, "berthd: replica job %s: %s\n", j->idstr, err->msg);
        char how[160];
        snprintf(how, sizeof how, "launch failed: %.120s", err->msg);
        berth__daemon_owned_ended(d, j, how, 0, now);
        berth__daemon_save(d, j, 0, NULL);
        return 0;
    }
    if (rc) { /* the job goes back to the queue */
        j->attempt_us = 0;
        fprintf(d->log, "berthd: job %s: %s\n", j->idstr, err->msg);
        berth__ljob_note(j, now, BERTH_L_PENDING, "launch failed: %.80s", err->msg);
        berth__drive_touch(&d->drive);
        berth__daemon_save(d, j, 0, NULL);
        return berth__engine_requeue(d->engine, j->eidx, now, err);
    }
    j->proc = 1;
    j->draining = 0;
    j->npslots = j->nslots;
    if (j->nslots) /* taken at its start (take_slots) */
        memcpy(j->pslots, j->slots, (size_t)j->nslots * sizeof *j->slots);
    j->resume = 0;
    j->dropped = 0;
    berth__daemon_save(d, j, 0, NULL); /* queued: a journal that cannot write retries it */
    return 0;
}

static void note_dropped(struct berth__daemon *d, struct berth__ljob *j, berth_us now);

/* st: what poll said (1 ended, 2 lost, 3 never started). */
static int on_exit_(struct berth__daemon *d, struct berth__ljob *j, int st, berth_us now,
                    struct berth_err *err)
{
    char how[64];
    int lost = st == 2, unstarted = st == 3 && j->then == BERTH_THEN_FINISH;
    if (unstarted)
        snprintf(how, sizeof how, "%s", d->xo->unstarted ? d->xo->unstarted : d->xo->lost);
    else if (lost)
        snprintf(how, sizeof how, "%s", d->xo->lost);
    else if (j->exit_signal >= 0)
        snprintf(how, sizeof how, "killed by signal %d", j->exit_signal);
    else
        snprintf(how, sizeof how, "exit %d", j->exit_code);
    berth__daemon_drain(d, j, 0);
    j->proc = 0;
    j->kill_at = 0;
    berth_us ran = j->attempt_us && now > j->attempt_us ? now - j->attempt_us : 0;
    if (j->attempt_us && now > j->attempt_us && !unstarted) /* its run time counts to its limit */
        j->ran_us += now - j->attempt_us;
    j->attempt_us = 0;
    int rc = 0;
    struct berth__job *ej = berth__daemon_ejob(d, j);
    switch (j->svc && j->then == BERTH_THEN_FINISH ? -1 : j->then) {
    case -1: /* a service's replica ended by itself: restarted, or given up */
        berth__daemon_owned_ended(d, j, how, ran, now);
        break;
    case BERTH_THEN_FINISH:
        if (unstarted) { /* undone: not an attempt, no run time, placed again */
            berth__ljob_note(j, now, BERTH_L_PENDING, "attempt %d never started (%s): placed again",
                             j->attempt, how);
            j->attempt--;
            j->launched = j->attempt;
            j->resume = j->attempt > 0;
            rc = berth__engine_unstart(d->engine, j->eidx, now, err);
            break;
        }
        if (lost) {
            j->resume = 1;
            berth__ljob_note(j, now, BERTH_L_PENDING, "attempt %d lost (%s): requeued", j->attempt,
                             how);
            rc = berth__engine_requeue(d->engine, j->eidx, now, err);
            break;
        }
        if (ej)
            berth__report_stopped(ej, now);
        rc = ej ? berth__engine_finish(d->engine, j->eidx, now, err) : 0;
        if (ej)
            berth__daemon_left_sched(d, j, now);
        j->end_us = now;
        berth__ljob_note(j, now, j->exit_code == 0 ? BERTH_L_COMPLETED : BERTH_L_FAILED, "%s", how);
        break;
    case BERTH_THEN_REQUEUE:
        j->resume = 1;
        berth__ljob_note(j, now, j->state, "attempt %d stopped (%s); resumes when scheduled",
                         j->attempt, how);
        break;
    case BERTH_THEN_RESTART:
        j->resume = 1;
        j->launch = j->state == BERTH_L_RUNNING;
        berth__ljob_note(j, now, j->state, "attempt %d stopped (%s) for a restart", j->attempt,
                         how);
        break;
    case BERTH_THEN_CANCEL:
        if (ej && (ej->state == BERTH_JOB_PENDING || ej->state == BERTH_JOB_RUNNING)) {
            rc = berth__engine_cancel(d->engine, j->eidx, now, err); /* never left it */
            berth__daemon_left_sched(d, j, now);
        }
        j->end_us = now;
        berth__ljob_note(j, now, BERTH_L_CANCELLED, "attempt %d ended (%s)", j->attempt, how);
        break;
    case BERTH_THEN_TIMEOUT: /* it ran to its time limit and was stopped there */
        if (ej && ej->state == BERTH_JOB_RUNNING) {
            berth__report_stopped(ej, now);
            rc = berth__engine_finish(d->engine, j->eidx, now, err);
            berth__daemon_left_sched(d, j, now);
        }
        j->end_us = now;
        berth__ljob_note(j, now, BERTH_L_TIMEOUT, "stopped at its time limit (%s)", how);
        break;
    }
    note_dropped(d, j, now);
    if (berth__lstate_final(j->state))
        berth__daemon_moved(d, j); /* its dependents look again */
    berth__drive_touch(&d->drive);
    berth__daemon_save(d, j, 0, NULL);
    return rc;
}

/* The log cap dropped output: said once in the job's history per new amount. */
static void note_dropped(struct berth__daemon *d, struct berth__ljob *j, berth_us now)
{
    int64_t out, er;
    if (!d->xo->dropped) /* its executor caps no logs */
        return;
    if (j->proc && now - j->drop_checked < BERTH_US_PER_S) /* a look a second is enough */
        return;
    j->drop_checked = now;
    if (d->xo->dropped(d->xs, j, &out, &er) || out + er <= j->dropped)
        return;
    j->dropped = out + er;
    berth__ljob_note(j, now, j->state,
                     "log cap: %lld bytes of stdout and %lld of stderr dropped (the newest kept)",
                     (long long)out, (long long)er);
    berth__daemon_save(d, j, 0, NULL);
}

/* A job that ran est_overrun times its estimate gets est_overrun times its run time as its
 * estimate: a false estimate (est_s: 0.001 under srtf) buys a bounded head start, no more. */
static void overrun(struct berth__daemon *d, struct berth__ljob *j, struct berth__job *ej,
                    berth_us now)
{
    double f = d->o.est_overrun;
    if (f <= 0 || !ej || ej->state != BERTH_JOB_RUNNING)
        return;
    berth_us ran = berth__job_run_us(ej, now);
    if ((double)ran < f * (double)ej->est_us)
        return;
    berth_us est = (berth_us)(f * (double)ran);
    struct berth_err e = {0};
    if (berth__engine_reestimate(d->engine, j->eidx, est, now, &e)) {
        fprintf(d->log, "berthd: job %s: %s\n", j->idstr, e.msg);
        return;
    }
    j->spec.duration_us = est;
    j->est_given = 1;
    berth__ljob_note(j, now, j->state,
                     "ran %.0f s, %g times its estimate: re-estimated at %.0f s (--est-overrun)",
                     (double)ran / 1e6, f, (double)est / 1e6);
    berth__drive_touch(&d->drive);
    berth__daemon_save(d, j, 0, NULL);
}

/* A job that has run its time limit (over all its attempts) is stopped: the decision is
 * journaled first (a crash then still ends it in timeout), then the checkpoint signal, and
 * SIGKILL after its grace period; its end is state timeout. A journal that cannot write puts
 * it off to the next tick. */
static void time_limit(struct berth__daemon *d, struct berth__ljob *j, berth_us now)
{
    berth_us lim = berth_jobspec_extra(&j->spec)->time_limit_us;
    if (lim <= 0 || !j->attempt_us || j->state != BERTH_L_RUNNING || j->then != BERTH_THEN_FINISH ||
        j->ran_us + (now - j->attempt_us) < lim)
        return;
    struct berth_err e = {0};
    j->then = BERTH_THEN_TIMEOUT;
    if (berth__ljob_note(
            j, now, j->state, "time limit of %g s reached: %s sent, SIGKILL after %g s",
            (double)lim / 1e6, berth__signal_name(j->ckpt_sig), (double)j->grace_us / 1e6) ||
        berth__daemon_save(d, j, 1, &e)) {
        j->then = BERTH_THEN_FINISH;
        if (e.msg[0])
            fprintf(d->log, "berthd: job %s: time limit put off: %s\n", j->idstr, e.msg);
        return;
    }
    ask_to_stop(d, j, BERTH_THEN_TIMEOUT, now);
}

static int processes(struct berth__daemon *d, berth_us now, struct berth_err *err)
{
    berth_us t0 = berth__mono_us();
    int rc = d->xo->sync ? d->xo->sync(d->xs, now, err) : 0;
    berth_us took = berth__mono_us() - t0;
    d->sync_sum_us += took;
    d->sync_max_us = took > d->sync_max_us ? took : d->sync_max_us;
    if (rc)
        return rc;
    for (size_t i = 0; i < d->nactive; i++) {
        struct berth__ljob *j = berth__daemon_job(d, d->active[i]);
        if (!j->proc)
            continue;
        struct berth__job *ej = berth__daemon_ejob(d, j);
        if (j->state == BERTH_L_RUNNING && j->then == BERTH_THEN_FINISH)
            overrun(d, j, ej, now);
        time_limit(d, j, now);
        note_dropped(d, j, now);
        int st = d->xo->poll(d->xs, j);
        if (st) {
            if ((rc = on_exit_(d, j, st, now, err)))
                return rc;
        } else if (j->kill_at && now >= j->kill_at) {
            d->xo->stop(d->xs, j, 1);
            j->kill_at = INT64_MAX;
        }
    }
    return 0;
}

/* What one progress file gave outside the lock. */
struct sweep_item {
    uint64_t id;
    int attempt;
    uint32_t uid;
    struct berth__report_scan scan;
};

#define SWEEP_BUDGET (4u << 20) /* bytes read of one job's progress file per tick */

void berth__daemon_progress_sweep(struct berth__daemon *d)
{
    struct sweep_item *it = NULL;
    size_t n = 0, cap = 0;
    pthread_mutex_lock(&d->mu);
    for (size_t i = 0; i < d->nactive; i++) {
        struct berth__ljob *j = berth__daemon_job(d, d->active[i]);
        struct berth__job *ej = berth__daemon_ejob(d, j);
        if (!j->proc || j->state != BERTH_L_RUNNING || !ej || ej->state != BERTH_JOB_RUNNING)
            continue;
        if (BERTH_GROW(it, cap, n + 1))
            break;
        it[n++] = (struct sweep_item){
            j->id,
            j->attempt,
            j->uid,
            {.off = j->prog_off, .line = j->prog_line, .skipping = j->prog_skipping}};
    }
    pthread_mutex_unlock(&d->mu);
    for (size_t i = 0; i < n; i++) { /* files are read without the lock */
        char path[4200];
        berth__lexec_spool(&d->ex, it[i].id, "progress.jsonl", path, sizeof path);
        int fd = berth__lexec_open_job_file(&d->ex, it[i].uid, path);
        if (fd < 0)
            continue;
        berth__report_scan(fd, path, SWEEP_BUDGET, &it[i].scan);
        close(fd);
    }
    pthread_mutex_lock(&d->mu);
    berth_us now = berth__wall_us();
    for (size_t i = 0; i < n; i++) {
        struct berth__ljob *j = berth__daemon_job(d, it[i].id);
        struct berth__job *ej = j ? berth__daemon_ejob(d, j) : NULL;
        /* only if nothing moved meanwhile: the same attempt, read from the same place */
        if (!j || j->attempt != it[i].attempt || j->prog_off >= it[i].scan.off ||
            j->state != BERTH_L_RUNNING || !ej || ej->state != BERTH_JOB_RUNNING)
            continue;
        berth__report_scan_apply(&it[i].scan, j, ej, now, d->log);
    }
    pthread_mutex_unlock(&d->mu);
    free(it);
}

int berth__daemon_tick(struct berth__daemon *d, berth_us now, struct berth_err *err)
{
    int rc = processes(d, now, err);
    for (size_t i = 0; !rc && i < d->nincoming; i++) {
        struct berth__ljob *j = berth__daemon_job(d, d->incoming[i]);
        if (d->xo->admit && !berth__lstate_final(j->state))
            rc = d->xo->admit(d->xs, j, now, err);
        if (!rc && j->state == BERTH_L_PENDING)
            rc = berth__daemon_enqueue(d, j, now, err);
    }
    d->nincoming = 0;
    /* the subsystems, in their order: dependencies met and array tasks let in, services'
     * replicas to wanted and the inference demand they need, the loaning's integrals */
    if (!rc)
        rc = berth__daemon_subs_tick(d, now, err);
    /* a pass when one is due, by the simulator's rule (engine/drive.h) */
    if (!rc && berth__drive_due(&d->drive, now)) {
        berth_us t0 = berth__mono_us();
        rc = berth__drive_step(&d->drive, d->engine, now, NULL, err);
        berth_us took = berth__mono_us() - t0;
        berth__hist_observe_us(&d->tel.pass, took);
        d->pass_sum_us += took;
        d->pass_max_us = took > d->pass_max_us ? took : d->pass_max_us;
    }
    berth__daemon_stops_flush(d); /* the signals of the stops this tick decided */
    size_t w = 0;
    for (size_t i = 0; i < d->nactive; i++) { /* launches, and the list kept to what is due */
        struct berth__ljob *j = berth__daemon_job(d, d->active[i]);
        if (!rc && j->launch && clear_to_launch(d, j, now))
            rc = launch(d, j, now, err);
        if (j->proc || j->launch)
            d->active[w++] = d->active[i];
    }
    d->nactive = w;
    if (!rc)
        berth__daemon_purge(d, now);
    return rc;
}
