/* The scheduling pass and the job life cycle (see engine.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/engine.h"
#include "model/alloc.h"
#include "model/topo.h"

int berth__engine_create(const struct berth_cluster *c, const char *policy, const char *placement,
                         const struct berth__params *params, const struct berth__engine_exec *exec,
                         struct berth__engine **out, struct berth_err *err)
{
    const struct berth__policy_ops *ops = berth__policy_lookup(policy);
    if (!ops) {
        char names[512] = "";
        size_t o = 0;
        for (size_t i = 0; i < berth_policy_count() && o < sizeof names; i++)
            o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", i ? ", " : "",
                                  berth_policy_name(i));
        return berth_err_set(err, BERTH_EINPUT,
                             "--policy: unknown policy '%s' (expected one of: %s)", policy, names);
    }
    if (params->queues && !ops->queues)
        return berth_err_set(err, BERTH_EINPUT,
                             "--queues: policy %s does not enforce queues (quotas, fair-share); "
                             "the ordering policies do (fifo, fifo-skip, backfill, sjf, srtf, las, "
                             "priority, fairshare)",
                             ops->name);
    if (!ops->nsettings && params->settings && *params->settings) {
        int rc = berth__settings_parse(ops->name, params->settings, NULL, 0, NULL, err);
        if (rc)
            return rc;
    }
    struct berth__placement place;
    int rc = berth__placement_open(placement ? placement : ops->default_placement, &place, err);
    if (rc)
        return rc;
    struct berth__engine *e = calloc(1, sizeof *e);
    if (!e) {
        berth__placement_close(&place);
        return berth_err_set(err, BERTH_ENOMEM, "engine: out of memory");
    }
    e->place = place;
    e->cluster = berth__cluster_clone(c);
    if (!e->cluster || berth__cluster_track_owners(e->cluster)) { /* consolidate-or-wait's */
        berth__engine_destroy(e);
        return berth_err_set(err, BERTH_ENOMEM, "engine: out of memory");
    }
    e->ops = ops;
    e->infer_demand = -1;
    e->spread = (struct berth__spread){0, 1};
    e->params = *params;
    e->params.placement = place.id;
    if (exec)
        e->exec = *exec;
    berth__plan_init(&e->plan);
    rc = ops->create(&e->params, &e->self, err);
    if (rc) {
        berth__engine_destroy(e);
        return rc;
    }
    *out = e;
    return 0;
}

void berth__engine_destroy(struct berth__engine *e)
{
    if (!e)
        return;
    if (e->self)
        e->ops->destroy(e->self);
    for (size_t i = 0; i < e->njobs; i++)
        free(e->jobs[i].slots);
    free(e->jobs);
    free(e->arrived);
    free(e->adopted);
    free(e->reestimated);
    free(e->left);
    free(e->requeued);
    free(e->tput_type);
    berth__plan_free(&e->plan);
    berth__placement_close(&e->place);
    berth_cluster_free(e->cluster);
    free(e);
}

int berth__engine_set_tput(struct berth__engine *e, const struct berth_tput *m,
                           struct berth_err *err)
{
    free(e->tput_type);
    e->tput_type = NULL;
    e->tput = m;
    if (!m)
        return 0;
    size_t nt = e->cluster->ntypes;
    e->tput_type = malloc((nt ? nt : 1) * sizeof *e->tput_type);
    if (!e->tput_type)
        return berth_err_set(err, BERTH_ENOMEM, "engine: out of memory");
    for (size_t t = 0; t < nt; t++)
        e->tput_type[t] = (int16_t)berth__tput_type_find(m, e->cluster->types[t].name);
    return 0;
}

int berth__engine_reserve_pool(struct berth__engine *e, const char *pool, size_t *n,
                               struct berth_err *err)
{
    struct berth_cluster *c = e->cluster;
    *n = 0;
    for (size_t s = 0; s < c->nsrv; s++) {
        int32_t p = c->srv[s].pool;
        if (p < 0 || strcasecmp(c->pools[p], pool))
            continue;
        if (berth__cluster_reserve(c, (uint32_t)s))
            return berth_err_set(err, BERTH_EINTERNAL, "engine: server %s of pool %s is in use",
                                 c->srv[s].name, pool);
        (*n)++;
    }
    return 0;
}

int berth__engine_check(struct berth__engine *e, uint32_t *bad, struct berth_err *err)
{
    for (size_t i = 0; i < e->njobs && e->ops->check; i++) {
        int rc = e->ops->check(e->self, e->cluster, &e->jobs[i], err);
        if (rc) {
            *bad = (uint32_t)i;
            return rc;
        }
    }
    return 0;
}

struct berth__job *berth__engine_take_jobs(struct berth__engine *e)
{
    struct berth__job *jobs = e->jobs;
    for (size_t i = 0; i < e->njobs; i++)
        free(jobs[i].slots);
    e->jobs = NULL;
    e->njobs = e->cap = 0;
    return jobs;
}

int berth__engine_add(struct berth__engine *e, const struct berth_jobspec *spec, uint32_t *idx,
                      struct berth_err *err)
{
    if (e->njobs >= UINT32_MAX - 1 || BERTH_GROW(e->jobs, e->cap, e->njobs + 1))
        return berth_err_set(err, BERTH_ENOMEM, "engine: out of memory");
    struct berth__job *j = &e->jobs[e->njobs];
    if (berth__job_init(j, spec, (uint32_t)e->njobs, e->cluster))
        return berth_err_set(err, BERTH_EINPUT, "job %s: GPU type '%s' is not in the cluster",
                             spec->id, berth_jobspec_extra(spec)->gpu_type);
    if (berth__job_share(j) < 1000 && berth__cluster_enable_shares(e->cluster))
        return berth_err_set(err, BERTH_ENOMEM, "engine: out of memory");
    *idx = j->idx;
    e->njobs++;
    return 0;
}

static int push(uint32_t **list, size_t *n, size_t *cap, uint32_t j)
{
    if (BERTH_GROW(*list, *cap, *n + 1))
        return BERTH_ENOMEM;
    (*list)[(*n)++] = j;
    return 0;
}

int berth__engine_arrive(struct berth__engine *e, uint32_t ji, berth_us now, struct berth_err *err)
{
    struct berth__job *j = &e->jobs[ji];
    if (j->state != BERTH_JOB_WAITING)
        return berth_err_set(err, BERTH_EINTERNAL, "engine: job %s arrived twice", j->spec->id);
    if (push(&e->arrived, &e->narrived, &e->arrived_cap, ji))
        return berth_err_set(err, BERTH_ENOMEM, "engine: out of memory");
    j->state = BERTH_JOB_PENDING;
    j->since = j->queued_us = now;
    e->npending++;
    return 0;
}

int berth__engine_finish(struct berth__engine *e, uint32_t ji, berth_us now, struct berth_err *err)
{
    struct berth__job *j = &e->jobs[ji];
    if (j->state != BERTH_JOB_RUNNING)
        return berth_err_set(err, BERTH_EINTERNAL, "engine: job %s finished while not running",
                             j->spec->id);
    if (push(&e->left, &e->nleft, &e->left_cap, ji))
        return berth_err_set(err, BERTH_ENOMEM, "engine: out of memory");
    berth__job_fold(j, now);
    berth__alloc_give(e->cluster, j);
    free(j->slots);
    j->slots = NULL;
    j->state = BERTH_JOB_DONE;
    j->finish = now;
    e->nrunning--;
    e->ndone++;
    return 0;
}

int berth__engine_cancel(struct berth__engine *e, uint32_t ji, berth_us now, struct berth_err *err)
{
    struct berth__job *j = &e->jobs[ji];
    if (j->state == BERTH_JOB_RUNNING)
        return berth__engine_finish(e, ji, now, err);
    if (j->state != BERTH_JOB_PENDING)
        return berth_err_set(err, BERTH_EINTERNAL, "engine: job %s cancelled while not queued",
                             j->spec->id);
    size_t a = 0;
    while (a < e->narrived && e->arrived[a] != ji)
        a++;
    if (a < e->narrived) /* arrived since the last pass: the policy never heard of it */
        memmove(e->arrived + a, e->arrived + a + 1, (--e->narrived - a) * sizeof *e->arrived);
    else if (push(&e->left, &e->nleft, &e->left_cap, ji))
        return berth_err_set(err, BERTH_ENOMEM, "engine: out of memory");
    j->state = BERTH_JOB_DONE;
    j->since = j->finish = now;
    e->npending--;
    e->ndone++;
    return 0;
}

int berth__engine_requeue(struct berth__engine *e, uint32_t ji, berth_us now, struct berth_err *err)
{
    struct berth__job *j = &e->jobs[ji];
    if (j->state != BERTH_JOB_RUNNING)
        return berth_err_set(err, BERTH_EINTERNAL, "engine: job %s requeued while not running",
                             j->spec->id);
    if (push(&e->requeued, &e->nrequeued, &e->requeued_cap, ji))
        return berth_err_set(err, BERTH_ENOMEM, "engine: out of memory");
    berth__job_fold(j, now);
    berth__alloc_give(e->cluster, j);
    j->state = BERTH_JOB_PENDING;
    e->nrunning--;
    e->npending++;
    return 0;
}

int berth__engine_unstart(struct berth__engine *e, uint32_t ji, berth_us now, struct berth_err *err)
{
    struct berth__job *j = &e->jobs[ji];
    if (j->state == BERTH_JOB_RUNNING)
        j->since = now; /* nothing attained since the start that did not happen */
    return berth__engine_requeue(e, ji, now, err);
}

int berth__engine_adopt(struct berth__engine *e, uint32_t ji, const struct berth__slot *slots,
                        int32_t n, berth_us now, struct berth_err *err)
{
    struct berth__job *j = &e->jobs[ji];
    const struct berth_jobspec *s = j->spec;
    if (j->state != BERTH_JOB_WAITING)
        return berth_err_set(err, BERTH_EINTERNAL, "engine: job %s adopted twice", s->id);
    if (n < 1 || n < s->min_gpus || (n > s->max_gpus && n > s->num_gpus) ||
        (s->num_gpus && n > 1 && j->share < 1000))
        return berth_err_set(err, BERTH_EINPUT, "job %s: %d slots do not fit its gang", s->id, n);
    int32_t most = s->max_gpus > n ? s->max_gpus : n;
    /* room in the adopted list first: once the GPUs are taken, nothing may fail */
    if (BERTH_GROW(e->adopted, e->adopted_cap, e->nadopted + 1) ||
        (!j->slots && !(j->slots = malloc((size_t)most * sizeof *j->slots))))
        return berth_err_set(err, BERTH_ENOMEM, "engine: out of memory");
    j->gpus = s->num_gpus ? n : 0;
    for (int32_t k = 0; k < n; k++) {
        const struct berth__slot *x = &slots[k];
        if (x->server >= e->cluster->nsrv ||
            (j->gpus && x->gpu >= e->cluster->srv[x->server].ngpus))
            return berth_err_set(err, BERTH_EINPUT, "job %s: slot %d does not exist", s->id, k);
        for (int32_t m = 0; m < k; m++)
            if (j->gpus && slots[m].server == x->server && slots[m].gpu == x->gpu)
                return berth_err_set(err, BERTH_EINPUT, "job %s: a GPU twice", s->id);
    }
    memcpy(j->slots, slots, (size_t)n * sizeof *slots);
    if (j->gpus) {
        j->type = (int16_t)e->cluster->srv[slots[0].server].type;
        for (int32_t k = 1; k < n; k++)
            if (e->cluster->srv[slots[k].server].type != (uint16_t)j->type)
                return berth_err_set(err, BERTH_EINPUT, "job %s: slots of two GPU types", s->id);
    }
    if ((j->type_mask && j->type >= 0 && !(j->type_mask >> j->type & 1)) ||
        !berth__alloc_can_take(e->cluster, j, j->slots))
        return berth_err_set(err, BERTH_EINPUT, "job %s: its GPUs are not free", s->id);
    berth__alloc_take(e->cluster, j);
    j->servers = 1;
    for (int32_t k = 1; k < n; k++)
        j->servers += slots[k].server != slots[k - 1].server;
    j->span = (uint8_t)(e->cluster->topo ? berth__topo_span(e->cluster, j->slots, n) : 0);
    j->state = BERTH_JOB_RUNNING;
    j->since = j->first_start = j->queued_us = now;
    e->nrunning++;
    e->adopted[e->nadopted++] = ji;
    return 0;
}

int berth__engine_reestimate(struct berth__engine *e, uint32_t ji, berth_us est_us, berth_us now,
                             struct berth_err *err)
{
    struct berth__job *j = &e->jobs[ji];
    if (est_us < 1 || (j->state != BERTH_JOB_RUNNING && j->state != BERTH_JOB_PENDING))
        return berth_err_set(err, BERTH_EINTERNAL, "engine: job %s cannot be re-estimated",
                             j->spec->id);
    if (push(&e->reestimated, &e->nreestimated, &e->reestimated_cap, ji)) /* before any change */
        return berth_err_set(err, BERTH_ENOMEM, "engine: out of memory");
    if (j->work == (double)j->est_us) { /* fixed speed: the work is the run time itself */
        j->done = berth__job_done(j, now);
        j->progress_at = now;
        j->work = (double)est_us;
    }
    j->est_us = est_us;
    return 0;
}

static void commit(struct berth__engine *e, berth_us now)
{
    struct berth__plan *p = &e->plan;
    for (size_t i = 0; i < p->ntouched; i++) {
        const struct berth__touched *t = &p->touched[i];
        struct berth__job *j = &e->jobs[t->job];
        int running = j->state == BERTH_JOB_RUNNING;
        if (!t->was_running && running) {
            if (j->first_start == BERTH_TIME_NONE)
                j->first_start = now;
            if (e->exec.start)
                e->exec.start(e->exec.ctx, j, now);
        } else if (t->was_running && !running) {
            j->preemptions++;
            e->preemptions++;
            if (e->exec.stop)
                e->exec.stop(e->exec.ctx, j, now);
        } else if (t->was_running && running &&
                   (t->was_gpus != j->gpus ||
                    memcmp(p->snaps + t->snap, j->slots,
                           (size_t)berth__job_nslots(j) * sizeof *j->slots))) {
            if (t->was_gpus != j->gpus) { /* an elastic resize */
                j->resizes++;
                e->resizes++;
            } else {
                j->migrations++;
                e->migrations++;
            }
            if (e->exec.migrate)
                e->exec.migrate(e->exec.ctx, j, now);
        }
    }
    e->npending = p->npending;
    e->nrunning = p->nrunning;
}

/* What a policy sees at now, without the lists of what changed. */
static struct berth__view view_of(const struct berth__engine *e, berth_us now)
{
    return (struct berth__view){.now = now,
                                .cluster = e->cluster,
                                .jobs = e->jobs,
                                .njobs = e->njobs,
                                .npending = e->npending,
                                .nrunning = e->nrunning,
                                .tput = e->tput,
                                .tput_type = e->tput_type,
                                .spread = &e->spread,
                                .metric = e->metric,
                                .metric_ctx = e->metric_ctx,
                                .infer_demand = e->infer_demand};
}

int berth__engine_pass(struct berth__engine *e, berth_us now, struct berth_err *err)
{
    int rc = berth__plan_open(&e->plan, e->cluster, e->jobs, e->njobs, now, &e->place, e->npending,
                              e->nrunning);
    if (rc)
        return berth_err_set(err, rc, "engine: out of memory");
    e->plan.wait =
        e->spread_wait && e->tput
            ? (struct berth__plan_wait){e->tput, e->tput_type, &e->spread, e->trate, e->stable_ends}
            : (struct berth__plan_wait){0};
    if (e->place.ops->prepare &&
        (rc = e->place.ops->prepare(e->place.self, e->cluster, e->jobs, e->njobs, err)))
        return rc;
    struct berth__view v = view_of(e, now);
    v.arrived = e->arrived, v.narrived = e->narrived;
    v.left = e->left, v.nleft = e->nleft;
    v.requeued = e->requeued, v.nrequeued = e->nrequeued;
    v.adopted = e->adopted, v.nadopted = e->nadopted;
    v.reestimated = e->reestimated, v.nreestimated = e->nreestimated;
    rc = e->ops->plan(e->self, &v, &e->plan, err);
    berth__plan_unhide_all(&e->plan);
    e->lends += (uint64_t)e->plan.lent;
    e->reclaims += (uint64_t)e->plan.reclaimed;
    if (rc) {
        char msg[BERTH_ERR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s",
                 rc > 0 ? "a plan edit's BERTH_NOFIT came back as an error" : err->msg);
        return berth_err_set(err, rc == BERTH_EINPUT || rc > 0 ? BERTH_EINTERNAL : rc,
                             "policy %s at t=%lld us: %s", e->ops->name, (long long)now, msg);
    }
    e->narrived = e->nleft = e->nrequeued = e->nadopted = e->nreestimated = 0;
    commit(e, now);
    e->passes++;
    if (e->check)
        return berth__engine_verify(e, err);
    return 0;
}

void berth__engine_why(struct berth__engine *e, uint32_t j, berth_us now, struct berth__why *w)
{
    *w = (struct berth__why){.blocker = BERTH_WHY_NOBODY, .queue = -1, .type = -1};
    if (j >= e->njobs)
        return;
    struct berth__view v = view_of(e, now);
    if (e->ops->why)
        e->ops->why(e->self, &v, j, w);
    /* a job that has the GPUs but no domain of its required level: Topology, whatever the
     * policy (it asks nothing of the policy's state), unless a quota, a backfill
     * reservation or a job ahead of it is what holds it */
    if (w->code != BERTH_WHY_QUOTA && w->code != BERTH_WHY_RESERVED &&
        !(w->code == BERTH_WHY_PRIORITY && w->blocker != BERTH_WHY_NOBODY) &&
        berth__place_topo_blocks(e->cluster, &e->jobs[j]))
        w->code = BERTH_WHY_TOPOLOGY;
}

berth_us berth__engine_next_pass(struct berth__engine *e, berth_us now)
{
    if (!e->ops->next_pass)
        return BERTH_TIME_NONE;
    struct berth__view v = view_of(e, now);
    return e->ops->next_pass(e->self, &v);
}

int berth__engine_verify(const struct berth__engine *e, struct berth_err *err)
{
    int rc = berth__cluster_verify(e->cluster, err);
    if (rc)
        return rc;
    const struct berth_cluster *c = e->cluster;
    /* re-derive what every server and GPU should hold from the running jobs alone */
    size_t ns = c->nsrv ? c->nsrv : 1;
    uint16_t(*milli)[BERTH_MAX_SERVER_GPUS] = calloc(ns, sizeof *milli);
    int64_t(*gmem)[BERTH_MAX_SERVER_GPUS] = calloc(ns, sizeof *gmem);
    int64_t *cpu = calloc(ns, sizeof *cpu), *mem = calloc(ns, sizeof *mem);
    if (!milli || !cpu || !mem || !gmem) {
        free(gmem);
        free(milli);
        free(cpu);
        free(mem);
        return berth_err_set(err, BERTH_ENOMEM, "verify: out of memory");
    }
    size_t pending = 0, running = 0, done = 0;
    for (size_t i = 0; i < e->njobs && !rc; i++) {
        const struct berth__job *j = &e->jobs[i];
        pending += j->state == BERTH_JOB_PENDING;
        done += j->state == BERTH_JOB_DONE;
        if (j->state != BERTH_JOB_RUNNING)
            continue;
        running++;
        int32_t share = berth__job_share(j);
        if (j->gpus == 0) { /* CPU-only: its server's CPU and memory */
            cpu[j->slots[0].server] += berth__job_cpu_per_gpu(j);
            mem[j->slots[0].server] += berth__job_mem_per_gpu(j);
        }
        for (int32_t k = 0; k < j->gpus && !rc; k++) {
            const struct berth__slot *s = &j->slots[k];
            if (s->server >= c->nsrv || s->gpu >= c->srv[s->server].ngpus) {
                rc = berth_err_set(err, BERTH_EINTERNAL, "job %s holds a GPU that does not exist",
                                   j->spec->id);
                break;
            }
            const struct berth__server *v = &c->srv[s->server];
            uint16_t *m = &milli[s->server][s->gpu];
            if (*m + share > 1000 || (share == 1000 && *m))
                rc = berth_err_set(err, BERTH_EINTERNAL,
                                   "GPU %u of server %s is over-committed (job %s adds %d milli "
                                   "to %d)",
                                   s->gpu, v->name, j->spec->id, share, *m);
            else if ((v->free_mask >> s->gpu) & 1)
                rc = berth_err_set(err, BERTH_EINTERNAL,
                                   "job %s holds GPU %u of server %s, which is marked idle",
                                   j->spec->id, s->gpu, v->name);
            else if (v->type != j->type || (j->type_mask && !(j->type_mask >> j->type & 1)))
                rc = berth_err_set(err, BERTH_EINTERNAL, "job %s holds a GPU of the wrong type",
                                   j->spec->id);
            else if (j->single && s->server != j->slots[0].server)
                rc = berth_err_set(err, BERTH_EINTERNAL, "job %s spans servers", j->spec->id);
            *m = (uint16_t)(*m + share);
            if (share < 1000)
                gmem[s->server][s->gpu] += berth_jobspec_extra(j->spec)->gpu_mem_mib;
            else if (v->gpu_mem_mib && berth_jobspec_extra(j->spec)->gpu_mem_mib > v->gpu_mem_mib)
                rc = berth_err_set(err, BERTH_EINTERNAL, "job %s is on GPUs with too little memory",
                                   j->spec->id);
            cpu[s->server] += berth__job_cpu_per_gpu(j);
            mem[s->server] += berth__job_mem_per_gpu(j);
        }
        char why[200];
        if (!rc && c->topo && berth__place_topo_verify(c, j, why, sizeof why))
            rc = berth_err_set(err, BERTH_EINTERNAL, "%s", why);
    }
    for (size_t s = 0; s < c->nsrv && !rc; s++) {
        const struct berth__server *v = &c->srv[s];
        for (int g = 0; g < v->ngpus && !rc; g++) {
            int held = milli[s][g], idle = (v->free_mask >> g) & 1;
            int shared = v->shares ? v->shares->used[g] : 0;
            int64_t shmem = v->shares ? v->shares->mem[g] : 0;
            if (!rc && (shmem != gmem[s][g] || (v->gpu_mem_mib && shmem > v->gpu_mem_mib)))
                rc = berth_err_set(err, BERTH_EINTERNAL,
                                   "GPU %d of server %s: fractional jobs hold %lld MiB, the "
                                   "cluster says %lld (of %lld)",
                                   g, v->name, (long long)gmem[s][g], (long long)shmem,
                                   (long long)v->gpu_mem_mib);
            int out = (v->out_mask >> g) & 1; /* busy with work outside the engine */
            if (v->reserved || out ? (held || idle)
                                   : ((held == 0) != idle || (shared && shared != held)))
                rc = berth_err_set(err, BERTH_EINTERNAL,
                                   "GPU %d of server %s: jobs hold %d milli, the cluster says %s "
                                   "(%d shared)%s",
                                   g, v->name, held, idle ? "idle" : "busy", shared,
                                   v->reserved ? " on a reserved server" : "");
        }
        if (!rc && ((v->cpu_milli && v->cpu_milli - v->cpu_free != cpu[s]) ||
                    (v->mem_mib && v->mem_mib - v->mem_free != mem[s])))
            rc = berth_err_set(err, BERTH_EINTERNAL,
                               "server %s: jobs hold %lld CPU milli / %lld MiB, the cluster "
                               "says %lld / %lld",
                               v->name, (long long)cpu[s], (long long)mem[s],
                               (long long)(v->cpu_milli - v->cpu_free),
                               (long long)(v->mem_mib - v->mem_free));
    }
    free(milli);
    free(gmem);
    free(cpu);
    free(mem);
    if (rc)
        return rc;
    if (pending != e->npending || running != e->nrunning || done != e->ndone)
        return berth_err_set(err, BERTH_EINTERNAL,
                             "job counts drifted: pending %zu/%zu running %zu/%zu done %zu/%zu",
                             pending, e->npending, running, e->nrunning, done, e->ndone);
    return 0;
}
