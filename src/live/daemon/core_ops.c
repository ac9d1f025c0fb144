/* What the API asks of the daemon: accept a job (durably), cancel, hold and release, and
 * say why a job waits. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "live/daemon/core.h"
#include "model/cluster.h"
#include "model/queues.h"
#include "model/topo.h"
#include "io/json_load.h"
#include "live/jobs/report.h"

/* The most GPUs of the types in mask (0: any), all of them or only the wholly idle ones, in
 * one domain of the level's kind (multi-node island, rack, block; 0 for node and cluster,
 * and on a flat cluster). */
static int32_t most_in_domains(const struct berth_cluster *c, int level, uint64_t mask, int idle)
{
    int kind = berth__topo_level_kind(level);
    int32_t most = 0;
    for (size_t d = 0; c->topo && kind >= 0 && d < c->topo->k[kind].n; d++) {
        const int32_t *n = idle ? c->topo->k[kind].free : c->topo->k[kind].total;
        int32_t g = 0;
        for (size_t t = 0; t < c->ntypes; t++)
            if (!mask || (mask >> t & 1))
                g += n[d * c->topo->ntypes + t];
        most = g > most ? g : most;
    }
    return most;
}

/* The most GPUs of the types in mask (0: any) that one domain of the level holds: a gang on
 * one server spans at most node (nvlink within one island), so a server counts at every
 * level above; a flat cluster has no racks or blocks, and one server is the most there. */
static int32_t largest_domain(const struct berth_cluster *c, int level, uint64_t mask)
{
    int32_t most = 0;
    for (size_t s = 0; s < c->nsrv; s++) {
        const struct berth__server *v = &c->srv[s];
        int32_t g = !mask || (mask >> v->type & 1) ? v->ngpus : 0;
        if (level == BERTH_TOPO_NVLINK && g && berth__server_nvl(v))
            g = berth__server_nvl(v);
        most = g > most ? g : most;
    }
    int32_t dom = most_in_domains(c, level, mask, 0);
    return dom > most ? dom : most;
}

/* 400 when the job could never run on this cluster. */
static int check_fits(struct berth__daemon *d, const struct berth__ljob *j, struct berth_err *err)
{
    const struct berth_cluster *c = d->cluster;
    const struct berth_jobspec *s = &j->spec;
    uint64_t mask = 0;
    /* every alternative must be a type of the cluster: a typo in "v100|a10O" would otherwise
     * quietly narrow the job to the alternatives that exist (docs/api.md) */
    for (const char *p = berth_jobspec_extra(s)->gpu_type; *p;) {
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
    if (berth_jobspec_extra(s)->gpu_type[0] &&
        berth__cluster_type_mask(c, berth_jobspec_extra(s)->gpu_type, &mask))
        return berth_err_set(err, BERTH_EINPUT, "gpu_type: '%s' is not a GPU type of this cluster",
                             berth_jobspec_extra(s)->gpu_type);
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
    int req = berth_jobspec_extra(s)->topo_required - 1;
    if (req >= 0 && req < BERTH_TOPO_CLUSTER && need > largest_domain(c, req, mask)) {
        const char *lv = berth__topo_level_name(req);
        return berth_err_set(err, BERTH_EINPUT,
                             "topology: asks for %d GPUs within one %s, the largest %s of this "
                             "cluster has %d%s",
                             need, req == BERTH_TOPO_NVLINK ? "NVLink island" : lv,
                             req == BERTH_TOPO_NVLINK ? "island" : lv, largest_domain(c, req, mask),
                             !c->topo && req > BERTH_TOPO_NODE
                                 ? " (it has no topology: no racks or blocks, one server is the "
                                   "most)"
                                 : "");
    }
    int64_t most = c->has_gpu_mem && s->num_gpus && berth_jobspec_extra(s)->gpu_mem_mib
                       ? berth__cluster_largest_gpu_mem(c, mask)
                       : -1;
    if (most >= 0 && berth_jobspec_extra(s)->gpu_mem_mib > most)
        return berth_err_set(err, BERTH_EINPUT,
                             "gpu_mem_mib: asks for %lld MiB of GPU memory, the largest GPU it "
                             "may use has %lld",
                             (long long)berth_jobspec_extra(s)->gpu_mem_mib, (long long)most);
    int64_t split = berth_jobspec_extra(s)->persist_mib + berth_jobspec_extra(s)->ephem_mib;
    most = c->has_gpu_mem && s->num_gpus && split ? berth__cluster_largest_gpu_mem(c, mask) : -1;
    if (most >= 0 && split > most)
        return berth_err_set(err, BERTH_EINPUT,
                             "%s: persist_mib + ephem_mib = %lld MiB, more than the largest GPU "
                             "it may use has (%lld MiB)",
                             berth_jobspec_extra(s)->persist_mib ? "persist_mib" : "ephem_mib",
                             (long long)split, (long long)most);
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

/* 400 when the queues file has neither the job's queue nor "*". */
static int check_queue(struct berth__daemon *d, const struct berth__ljob *j, struct berth_err *err)
{
    const struct berth_queues *q = d->queues;
    if (!q || !q->nq || berth__queues_find(q, j->spec.queue) >= 0)
        return 0;
    char have[512];
    size_t o = 0;
    have[0] = '\0';
    for (size_t i = 0; i < q->nq && o < sizeof have; i++)
        o += (size_t)snprintf(have + o, sizeof have - o, "%s%s", i ? ", " : "", q->q[i].name);
    return berth_err_set(err, BERTH_EINPUT, "queue: '%s' is not a queue of this cluster (%s)",
                         j->spec.queue[0] ? j->spec.queue : "default", have);
}

int berth__daemon_refuses(struct berth__daemon *d, const struct berth__ljob *j,
                          struct berth_err *err)
{
    return check_fits(d, j, err) || check_queue(d, j, err) || check_policy(d, j, err);
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
    d->nlive += !d->jobs[id - 1];
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
static int within_limits(struct berth__daemon *d, struct berth__ljob *j, int64_t n, int *retry,
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
    if (lim.max_pending > 0 && u->waiting + n > lim.max_pending) {
        *retry = 60;
        berth_err_set(err, BERTH_EAGAIN,
                      "user %s: %lld jobs waiting already, the limit (max_pending) is %lld: "
                      "submit more as they start",
                      j->user, (long long)u->waiting, (long long)lim.max_pending);
        return 429;
    }
    struct berth__usage *qu = berth__usage_of(d->qusage, j->spec.queue);
    if (!qu) {
        berth_err_set(err, BERTH_ENOMEM, "out of memory");
        return 500;
    }
    if (d->queues) { /* the queues file's max_pending, for the user and for the queue */
        int64_t up = berth__queues_user_max_pending(d->queues, j->user);
        int32_t qi = d->queues->nq ? berth__queues_find(d->queues, j->spec.queue) : -1;
        int64_t qp = qi >= 0 ? d->queues->q[qi].max_pending : 0;
        if ((up > 0 && u->waiting + n > up) || (qp > 0 && qu->waiting + n > qp)) {
            *retry = 60;
            int byq = !(up > 0 && u->waiting + n > up);
            berth_err_set(err, BERTH_EAGAIN,
                          "%s %s: %lld jobs waiting already, the limit (max_pending in the queues "
                          "file) is %lld: submit more as they start",
                          byq ? "queue" : "user",
                          byq ? (j->spec.queue[0] ? j->spec.queue : "default") : j->user,
                          (long long)(byq ? qu->waiting : u->waiting), (long long)(byq ? qp : up));
            return 429;
        }
    }
    u->waiting += n;
    qu->waiting += n;
    return 0;
}

/* 400 when a dependency names a job berthd does not have. Under d->mu. */
/* Under d->mu, after the checks that gave st: the disk's floor (507), then the submitter's
 * limits for n jobs (429), each refusal counted for /v1/health; st when it already refused. */
static int admit_counted(struct berth__daemon *d, struct berth__ljob *j, int64_t n, int st,
                         int *retry, struct berth_err *err)
{
    if (!st)
        st = space_left(d, err);
    if (!st && d->o.max_job_count > 0 && (int64_t)d->nlive + n > d->o.max_job_count) {
        *retry = 60;
        berth_err_set(err, BERTH_EAGAIN,
                      "berthd holds %zu jobs and may hold %lld (--max-job-count): ended jobs "
                      "leave %g s after they end (--min-job-age); submit again later",
                      d->nlive, (long long)d->o.max_job_count,
                      (double)d->o.min_job_age_us / BERTH_US_PER_S);
        st = 503;
    }
    if (!st)
        st = within_limits(d, j, n, retry, err);
    if (st == 429 || st == 503) /* a limit of the submitter's, or the job table's */
        d->refused_limit++;
    else if (st == 507)
        d->refused_space++;
    return st;
}

static int check_deps(struct berth__daemon *d, const struct berth__ljob *j, struct berth_err *err)
{
    for (size_t i = 0; i < j->ndeps; i++)
        if (!berth__daemon_job(d, j->deps[i].job) && j->deps[i].job && j->deps[i].job <= d->njobs) {
            berth_err_set(err, BERTH_EINPUT,
                          "%s: job %llu ended and left berthd's memory (--min-job-age): a "
                          "dependency on it cannot be checked",
                          berth__dep_name(j->deps[i].type), (unsigned long long)j->deps[i].job);
            return 400;
        } else if (!berth__daemon_job(d, j->deps[i].job)) {
            berth_err_set(err, BERTH_EINPUT, "%s: no such job %llu",
                          berth__dep_name(j->deps[i].type), (unsigned long long)j->deps[i].job);
            return 400;
        }
    return 0;
}

int berth__daemon_submit(struct berth__daemon *d, struct berth__ljob *j, int *retry,
                         struct berth_err *err)
{
    pthread_mutex_lock(&d->mu); /* a policy's check may set the policy up */
    int st = berth__daemon_refuses(d, j, err) ? 400 : check_deps(d, j, err);
    st = admit_counted(d, j, 1, st, retry, err);
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
    j->qusage = berth__usage_of(d->qusage, j->spec.queue);
    st = berth__daemon_insert(d, j, id, err) ? 500 : 0;
    if (!st) /* its dependencies tell it when they move */
        berth__daemon_joined(d, j);
    pthread_mutex_unlock(&d->mu);
    if (!st)
        atomic_fetch_add_explicit(&d->tel.submitted, 1, memory_order_relaxed);
    return st;
unreserve:
    pthread_mutex_lock(&d->mu);
    struct berth__usage *u = berth__usage_of(d->usage, j->user);
    if (u)
        u->waiting--;
    struct berth__usage *qu = berth__usage_of(d->qusage, j->spec.queue);
    if (qu)
        qu->waiting--;
    if (st == 503)
        d->refused_journal++;
    pthread_mutex_unlock(&d->mu);
    return st;
}

int berth__daemon_submit_array(struct berth__daemon *d, struct berth__ljob **jobs, size_t n,
                               int *retry, struct berth_err *err)
{
    struct berth__ljob *j = jobs[0];
    pthread_mutex_lock(&d->mu);
    int st = berth__daemon_refuses(d, j, err) ? 400 : check_deps(d, j, err);
    if (!st && (int64_t)n > d->o.max_array) {
        berth_err_set(err, BERTH_EINPUT,
                      "array: %zu tasks, more than this berthd allows in one "
                      "array (--max-array %lld)",
                      n, (long long)d->o.max_array);
        st = 400;
    }
    /* one submission: one token of the user's rate, but every task waits */
    st = admit_counted(d, j, (int64_t)n, st, retry, err);
    pthread_mutex_unlock(&d->mu);
    if (st)
        return st;
    uint64_t first = atomic_fetch_add(&d->next_id, n);
    berth_us now = berth__wall_us();
    uint64_t *ids = calloc(n, sizeof *ids);
    char **docs = calloc(n, sizeof *docs);
    st = ids && docs ? 0 : 500;
    for (size_t i = 0; !st && i < n; i++) {
        struct berth__ljob *t = jobs[i];
        if (berth__auth_new_token(t->token, sizeof t->token)) {
            berth_err_set(err, BERTH_EIO, "no randomness for the job token");
            st = 500;
            break;
        }
        berth__ljob_set_id(t, first + i);
        t->array_id = first;
        t->array_task = j->array_idx[i];
        t->array_n = (uint32_t)n;
        t->array_max = j->array_max;
        t->submit_us = now;
        ids[i] = t->id;
        json_t *o = NULL;
        if (berth__ljob_note(t, now, t->state,
                             "submitted by %s (task %u of array %llu, %zu tasks%s)", t->user,
                             t->array_task, (unsigned long long)first, n,
                             t->state == BERTH_L_HELD ? ", held" : "") ||
            !(o = berth__ljob_json(t, 1)) || !(docs[i] = berth__json_dumps(o, JSON_COMPACT)))
            st = 500;
        json_decref(o);
    }
    if (st == 500 && !err->msg[0])
        berth_err_set(err, BERTH_ENOMEM, "out of memory");
    if (!st && berth__journal_put_all(d->jn, ids, docs, n, err)) { /* all on disk, or none */
        *retry = 5;
        st = 503;
    }
    for (size_t i = 0; docs && i < n; i++)
        free(docs[i]);
    free(docs);
    free(ids);
    pthread_mutex_lock(&d->mu);
    if (!st) {
        for (size_t i = 0; i < n && !st; i++) {
            jobs[i]->usage = berth__usage_of(d->usage, jobs[i]->user);
            jobs[i]->qusage = berth__usage_of(d->qusage, jobs[i]->spec.queue);
            st = berth__daemon_insert(d, jobs[i], first + i, err) ? 500 : 0;
            if (!st)
                berth__daemon_joined(d, jobs[i]);
        }
    } else { /* nothing was accepted: the places reserved in the counts go back */
        struct berth__usage *u = berth__usage_of(d->usage, j->user);
        struct berth__usage *qu = berth__usage_of(d->qusage, j->spec.queue);
        if (u)
            u->waiting -= (int64_t)n;
        if (qu)
            qu->waiting -= (int64_t)n;
        if (st == 503)
            d->refused_journal++;
    }
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

int berth__daemon_cancel_locked(struct berth__daemon *d, struct berth__ljob *j, berth_us now,
                                struct berth_err *err)
{
    int rc = 0;
    struct berth__job *ej = berth__daemon_ejob(d, j);
    if (ej && (ej->state == BERTH_JOB_PENDING || ej->state == BERTH_JOB_RUNNING)) {
        berth__report_stopped(ej, now);
        rc = berth__engine_cancel(d->engine, j->eidx, now, err);
        berth__daemon_left_sched(d, j, now);
        berth__drive_touch(&d->drive);
    }
    berth__daemon_unhold_back(d, j);
    if (j->proc) {
        berth__daemon_drain(d, j, 1);
        if (!j->kill_at) {
            j->kill_at = now + (j->grace_us > 0 ? j->grace_us : 1);
            d->xo->stop(d->xs, j, 0);
        }
    }
    berth__daemon_cancel_record(j, now);
    return rc;
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
    j->dep_wait = j->array_wait = 0;
    if (berth__lstate_final(j->state))
        berth__daemon_moved(d, j); /* afterany and afternotok dependents may go */
    berth__drive_touch(&d->drive);
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
        j->dep_wait = j->array_wait = 0; /* released, it is looked at again */
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

/* "job 3 (alice, 4 GPUs, running since 12:03)" */
static void describe_job(struct berth__daemon *d, uint32_t eidx, char *buf, size_t len)
{
    struct berth__ljob *b = eidx < d->engine->njobs ? berth__daemon_job(d, d->by_eidx[eidx]) : NULL;
    if (!b) {
        snprintf(buf, len, "a job");
        return;
    }
    snprintf(buf, len, "job %s (%s, %d GPU%s, %s)", b->idstr, b->user, b->spec.num_gpus,
             b->spec.num_gpus == 1 ? "" : "s", berth__lstate_name(b->state));
}

/* A quota or limit, said in words: "queue research uses 8 of its quota of 8 v100 GPUs (no
 * cohort to borrow from)". */
static void describe_quota(struct berth__daemon *d, const struct berth__ljob *j,
                           const struct berth__why *w, char *buf, size_t len)
{
    const char *qn = j->spec.queue[0] ? j->spec.queue : "default";
    const char *tn =
        w->type >= 0 && (size_t)w->type < d->cluster->ntypes ? d->cluster->types[w->type].name : "";
    double used = (double)w->used / 1000, cap = (double)w->cap / 1000;
    switch (w->limit) {
    case BERTH_LIMIT_NOMINAL:
        snprintf(buf, len,
                 "queue %s uses %g of its quota of %g %s GPUs and has no cohort to "
                 "borrow from",
                 qn, used, cap, tn);
        break;
    case BERTH_LIMIT_BORROW:
        snprintf(buf, len, "queue %s uses %g %s GPUs, its quota plus what it may borrow is %g", qn,
                 used, tn, cap);
        break;
    case BERTH_LIMIT_COHORT:
        snprintf(buf, len,
                 "queue %s's cohort lends %g of %g %s GPUs already: nothing is left to "
                 "borrow (it starts when its mates' jobs end)",
                 qn, used, cap, tn);
        break;
    case BERTH_LIMIT_QUEUE_GPUS:
        snprintf(buf, len, "queue %s's running jobs hold %g GPUs, its max_gpus is %g", qn, used,
                 cap);
        break;
    case BERTH_LIMIT_USER_GPUS:
        snprintf(buf, len, "user %s's running jobs hold %g GPUs, the queues file's max_gpus is %g",
                 j->user, used, cap);
        break;
    default:
        snprintf(buf, len, "a quota of queue %s", qn);
    }
}

/* The most wholly idle GPUs of the types in mask (0: any) in one domain of the level, as
 * largest_domain counts domains. */
static int32_t largest_idle(const struct berth_cluster *c, int level, uint64_t mask)
{
    int32_t most = 0;
    for (size_t s = 0; s < c->nsrv; s++) {
        const struct berth__server *v = &c->srv[s];
        if (mask && !(mask >> v->type & 1))
            continue;
        int nvl = level == BERTH_TOPO_NVLINK ? berth__server_nvl(v) : 0;
        int32_t g = nvl ? 0 : v->nfree;
        for (int i = 0; nvl && i * nvl < v->ngpus; i++) { /* its islands of nvl GPUs */
            int32_t f = __builtin_popcountll(berth__island_free(v, nvl, i));
            g = f > g ? f : g;
        }
        most = g > most ? g : most;
    }
    int32_t dom = most_in_domains(c, level, mask, 1);
    return dom > most ? dom : most;
}

/* The Topology sentence of a job the engine says waits for a domain of its required level
 * (BERTH_WHY_TOPOLOGY, engine.c): how many GPUs are idle and the most one domain has. */
static size_t topology_wait(const struct berth_cluster *c, const struct berth__ljob *j,
                            const struct berth__job *ej, int32_t idle, char *buf, size_t len)
{
    int req = berth_jobspec_extra(&j->spec)->topo_required - 1;
    if (req < 0 || req >= BERTH_TOPO_CLUSTER)
        return (size_t)snprintf(buf, len,
                                "Topology: %d idle GPUs of the types it may use, but no domain "
                                "holds its gang of %d",
                                idle, ej->gpus);
    int32_t most = largest_idle(c, req, ej->type_mask);
    const char *lv = req == BERTH_TOPO_NVLINK ? "NVLink island" : berth__topo_level_name(req);
    return (size_t)snprintf(
        buf, len,
        "Topology: it needs its %d GPUs within one %s (topology %s); %d are idle, at most "
        "%d of them in one %s",
        ej->gpus, lv, berth__topo_level_name(req), idle, most, lv);
}

/* brief: without the count of pending jobs ahead (it walks the queue), for lists. */
static const char *reason_of(struct berth__daemon *d, struct berth__ljob *j, char *buf, size_t len,
                             int brief)
{
    char tmp[8];
    if (!buf)
        buf = tmp, len = sizeof tmp;
    buf[0] = '\0';
    const struct berth_cluster *c = d->engine->cluster; /* the live free-GPU state */
    struct berth__job *ej = berth__daemon_ejob(d, j);
    switch (j->state) {
    case BERTH_L_HELD:
        snprintf(buf, len, "held: it waits until released (berth release %s)", j->idstr);
        return "Held";
    case BERTH_L_RUNNING:
        if (j->proc && j->launch)
            snprintf(buf, len, "restarting: its previous attempt is checkpointing");
        else if (!j->proc)
            snprintf(buf, len, "starting: waiting for the previous holders of its GPUs to exit");
        else if (j->then == BERTH_THEN_TIMEOUT)
            snprintf(buf, len, "stopping: it reached its time limit (attempt %d)", j->attempt);
        else
            snprintf(buf, len, "running (attempt %d)", j->attempt);
        return "None";
    case BERTH_L_PENDING:
        break;
    default:
        if (j->state == BERTH_L_FAILED && j->nhist &&
            !strncmp(j->hist[j->nhist - 1].note, "dependency never satisfied", 26)) {
            snprintf(buf, len, "failed: %s", j->hist[j->nhist - 1].note);
            return "DependencyNeverSatisfied";
        }
        if (j->exit_signal >= 0)
            snprintf(buf, len, "%s: killed by signal %d", berth__lstate_name(j->state),
                     j->exit_signal);
        else if (j->exit_code >= 0)
            snprintf(buf, len, "%s: exit %d", berth__lstate_name(j->state), j->exit_code);
        else
            snprintf(buf, len, "%s", berth__lstate_name(j->state));
        return j->state == BERTH_L_TIMEOUT ? "TimeLimit" : "None";
    }
    const char *sub = ej ? NULL : berth__daemon_sub_reason(d, j, buf, len);
    if (sub) /* a subsystem holds it outside the scheduler (dependencies, an array's throttle) */
        return sub;
    if (!ej && j->held_back) {
        struct berth__limit_set lim;
        berth__limits_for(&d->o.limits, j->user, &lim);
        snprintf(buf, len,
                 "UserGPULimit: user %s may have jobs for %lld GPUs in the scheduler at once "
                 "(max_gpus), and has %lld there; it enters, in submission order, as they end",
                 j->user, (long long)lim.max_gpus,
                 (long long)(j->usage ? j->usage->sched_gpus : 0));
        return "QuotaExceeded";
    }
    if (!ej) {
        snprintf(buf, len, "accepted; entering the queue");
        return "None";
    }
    struct berth__why w;
    berth__engine_why(d->engine, j->eidx, berth__wall_us(), &w);
    int32_t idle = 0;
    for (size_t t = 0; t < c->ntypes; t++)
        if (!ej->type_mask || (ej->type_mask >> t & 1))
            idle += c->types[t].free;
    char who[160];
    const char *code = "Priority";
    size_t o;
    switch (w.code) {
    case BERTH_WHY_QUOTA:
        describe_quota(d, j, &w, who, sizeof who);
        o = (size_t)snprintf(buf, len, "QuotaExceeded: %s", who);
        code = "QuotaExceeded";
        break;
    case BERTH_WHY_RESOURCES:
        o = (size_t)snprintf(buf, len,
                             "Resources: it is next under policy %s and waits for %d %sGPU%s%s%s "
                             "(%d idle of the types it may use)",
                             d->engine->ops->name, ej->gpus, ej->share < 1000 ? "shared " : "",
                             ej->gpus == 1 ? "" : "s",
                             berth_jobspec_extra(&j->spec)->gpu_type[0] ? " of type " : "",
                             berth_jobspec_extra(&j->spec)->gpu_type, idle);
        code = "Resources";
        break;
    case BERTH_WHY_TOPOLOGY:
        o = topology_wait(c, j, ej, idle, buf, len);
        code = "Topology";
        break;
    case BERTH_WHY_RESERVED:
        describe_job(d, w.blocker, who, sizeof who);
        o = (size_t)snprintf(buf, len,
                             "Priority: backfill holds GPUs for %s, reserved to start in %.0f s; "
                             "this job would end after that and take GPUs it needs",
                             who, (double)(w.until - berth__wall_us()) / 1e6);
        break;
    case BERTH_WHY_PRIORITY:
        if (w.blocker != BERTH_WHY_NOBODY) {
            describe_job(d, w.blocker, who, sizeof who);
            o = (size_t)snprintf(buf, len,
                                 "Priority: %s is ahead of it under policy %s and waits for GPUs "
                                 "(%d idle of the types this job may use)",
                                 who, d->engine->ops->name, idle);
            break;
        }
        /* the policy did not say who */
        __attribute__((fallthrough));
    default: {
        size_t ahead = 0;
        for (uint32_t i = 0; !brief && i < ej->idx; i++)
            ahead += d->engine->jobs[i].state == BERTH_JOB_PENDING;
        char before[64] = "";
        if (!brief)
            snprintf(before, sizeof before, "; %zu pending jobs submitted before it", ahead);
        o = (size_t)snprintf(
            buf, len,
            "%s: waiting for %d %sGPU%s%s%s (%d idle of the types it may use)%s; policy %s",
            idle >= ej->gpus ? "Priority" : "Resources", ej->gpus,
            ej->share < 1000 ? "shared " : "", ej->gpus == 1 ? "" : "s",
            berth_jobspec_extra(&j->spec)->gpu_type[0] ? " of type " : "",
            berth_jobspec_extra(&j->spec)->gpu_type, idle, before, d->engine->ops->name);
        code = idle >= ej->gpus ? "Priority" : "Resources";
    }
    }
    if (w.code == BERTH_WHY_RESOURCES && w.until > 0 && o < len)
        o += (size_t)snprintf(buf + o, len - o, "; backfill reserves its GPUs in %.0f s",
                              (double)(w.until - berth__wall_us()) / 1e6);
    if (j->proc && o < len)
        snprintf(buf + o, len - o, "; its preempted attempt is still checkpointing");
    else if (j->resume && o < len)
        snprintf(buf + o, len - o, "; it was preempted and resumes from its checkpoint");
    return code;
}

const char *berth__daemon_reason(struct berth__daemon *d, struct berth__ljob *j, char *buf,
                                 size_t len)
{
    return reason_of(d, j, buf, len, 0);
}

void berth__daemon_why(struct berth__daemon *d, struct berth__ljob *j, char *buf, size_t len)
{
    berth__daemon_reason(d, j, buf, len);
}

void berth__daemon_why_brief(struct berth__daemon *d, struct berth__ljob *j, char *buf, size_t len)
{
    reason_of(d, j, buf, len, 1);
}
