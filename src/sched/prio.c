/* The generic ordering scheduler (see prio.h for its semantics and cost): its life cycle,
 * the pass that admits jobs in key order (with quotas and backfill), and what it says of
 * them. Its heaps are prio_heap.c, admission by preemption prio_preempt.c. */
#include <stdlib.h>
#include <string.h>

#include "sched/prio_int.h"

/* ---- life cycle -------------------------------------------------------------------- */

int berth__prio_create(const struct berth__prio_cfg *cfg, struct berth__prio **out,
                       struct berth_err *err)
{
    struct berth__prio *q = calloc(1, sizeof *q);
    if (!q)
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    q->cfg = *cfg;
    q->strict_head = BERTH_WHY_NOBODY;
    q->has_fs = cfg->fs_weight_us > 0 || cfg->fs_order;
    q->controls = cfg->queues || cfg->backfill || q->has_fs;
    berth__tenants_init(&q->ten, cfg->queues);
    if (cfg->queues && (cfg->queues->nq && !q->ten.qname)) {
        berth__prio_destroy(q);
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    }
    if (cfg->queues && berth__quota_create(cfg->queues, &q->ten, &q->quota)) {
        berth__prio_destroy(q);
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    }
    if (q->has_fs)
        berth__fs_init(&q->fs, cfg->queues, &q->ten,
                       cfg->fs_half_life_us > 0 ? cfg->fs_half_life_us : 7 * 86400 * BERTH_US_PER_S,
                       cfg->fs_period_us > 0 ? cfg->fs_period_us : 300 * BERTH_US_PER_S);
    if (cfg->backfill && berth__reserve_init(&q->rs, BERTH_MAX_GPU_TYPES)) {
        berth__prio_destroy(q);
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    }
    q->has_rs = cfg->backfill;
    if (q->cfg.backfill_depth <= 0)
        q->cfg.backfill_depth = 1000;
    *out = q;
    return 0;
}

void berth__prio_destroy(struct berth__prio *q)
{
    if (!q)
        return;
    for (size_t i = 0; i < q->nshapes; i++)
        free(q->shapes[i].a);
    for (size_t i = 0; i < q->nslopes; i++)
        free(q->slopes[i].a);
    for (size_t i = 0; i < q->nshapes; i++)
        free(q->shapes[i].side);
    free(q->shapes);
    free(q->slopes);
    free(q->pos);
    free(q->cls);
    free(q->where);
    free(q->victims);
    free(q->vwas);
    free(q->tslots);
    free(q->kept);
    free(q->walk);
    berth__ppick_destroy(q->pp);
    free(q->prot);
    free(q->skip);
    free(q->wpass);
    free(q->wblk);
    free(q->wcode);
    berth__quota_free(q->quota);
    if (q->has_fs)
        berth__fs_free(&q->fs);
    if (q->has_rs)
        berth__reserve_free(&q->rs);
    berth__tenants_free(&q->ten);
    free(q);
}

static int grow_jobs(struct berth__prio *q, size_t n)
{
    if (n <= q->jcap)
        return 0;
    size_t c1 = q->jcap, c2 = q->jcap, c3 = q->jcap;
    if (BERTH_GROW(q->pos, c1, n) || BERTH_GROW(q->cls, c2, n) || BERTH_GROW(q->where, c3, n))
        return BERTH_ENOMEM;
    size_t c = c1 < c2 ? (c1 < c3 ? c1 : c3) : (c2 < c3 ? c2 : c3);
    if (q->controls) { /* why, per job (the plain scheduler keeps none) */
        size_t c4 = q->jcap, c5 = q->jcap, c6 = q->jcap;
        if (BERTH_GROW(q->wpass, c4, c) || BERTH_GROW(q->wblk, c5, c) ||
            BERTH_GROW(q->wcode, c6, c))
            return BERTH_ENOMEM;
        c = c4 < c ? c4 : c;
        c = c5 < c ? c5 : c;
        c = c6 < c ? c6 : c;
        memset(q->wpass + q->jcap, 0, (c - q->jcap) * sizeof *q->wpass);
    }
    memset(q->where + q->jcap, NOWHERE, c - q->jcap);
    q->jcap = c;
    return 0;
}

/* When running job j is expected to end: its time limit left, else its expected time left,
 * counted from when it (re)started. */
static berth_us expected_end(const struct berth__job *j)
{
    berth_us lim = j->limit_us, left;
    if (lim > 0)
        left = lim > j->run_us ? lim - j->run_us : 1;
    else
        left = berth__job_left_us(j, j->since);
    return j->since + (left > 0 ? left : 1);
}

/* Job j started (on = 1) or stopped holding its GPUs: the controls count it. */
int berth__prio_note_run(struct berth__prio *q, const struct berth__job *j, int on)
{
    if (!q->controls)
        return 0;
    if (q->quota && berth__quota_charge(q->quota, j, on))
        return BERTH_ENOMEM;
    if (q->has_fs && berth__fs_charge(&q->fs, j, on, j->since))
        return BERTH_ENOMEM;
    if (q->has_rs) {
        if (!on)
            berth__reserve_remove(&q->rs, j->idx);
        else if (j->gpus && berth__job_share(j) == 1000 &&
                 berth__reserve_add(&q->rs, j->idx, j->type, j->gpus, expected_end(j)))
            return BERTH_ENOMEM;
    }
    return 0;
}

/* A job the policy hears of for the first time: its user and queue get their numbers. */
static int see(struct berth__prio *q, const struct berth__view *v, uint32_t j)
{
    if (!q->controls)
        return 0;
    int rc = berth__tenants_see(&q->ten, &v->jobs[j]);
    if (rc == BERTH_EINPUT)
        return 0; /* its queue is not in the file: the check hook refused it before the run */
    if (rc || (q->has_fs && berth__fs_see(&q->fs, &v->jobs[j], v->now)))
        return BERTH_ENOMEM;
    return 0;
}

static int sync(struct berth__prio *q, const struct berth__view *v)
{
    if (grow_jobs(q, v->njobs))
        return BERTH_ENOMEM;
    for (size_t i = 0; i < v->nadopted; i++) { /* as if started at adoption */
        uint32_t j = v->adopted[i];
        if (see(q, v, j) || berth__prio_push_started(q, &v->jobs[j]) ||
            berth__prio_note_run(q, &v->jobs[j], 1))
            return BERTH_ENOMEM;
    }
    for (size_t i = 0; i < v->nleft; i++) {
        berth__prio_remove_job(q, v->left[i]);
        if (berth__prio_note_run(q, &v->jobs[v->left[i]], 0))
            return BERTH_ENOMEM;
    }
    for (size_t i = 0; i < v->nrequeued; i++) {
        berth__prio_remove_job(q, v->requeued[i]);
        if (berth__prio_note_run(q, &v->jobs[v->requeued[i]], 0) ||
            berth__prio_push_pending(q, v, v->requeued[i]))
            return BERTH_ENOMEM;
    }
    for (size_t i = 0; i < v->narrived; i++)
        if (see(q, v, v->arrived[i]) || berth__prio_push_pending(q, v, v->arrived[i]))
            return BERTH_ENOMEM;
    for (size_t i = 0; i < v->nreestimated; i++) /* a new estimate, a new key */
        if (berth__prio_rekey(q, v, v->reestimated[i]))
            return BERTH_ENOMEM;
    if (q->has_fs && berth__fs_update(&q->fs, v->now) && berth__prio_rekey_all(q, v))
        return BERTH_ENOMEM;
    return berth__prio_expire_protection(q, v);
}

int berth__prio_rekey(struct berth__prio *q, const struct berth__view *v, uint32_t j)
{
    if (j >= q->jcap)
        return 0; /* never seen: it is keyed when it arrives */
    int where = q->where[j];
    if (where != RUNNING && where != PENDING && where != ASIDE)
        return 0; /* protected jobs are keyed when their protection ends */
    q->vjobs = v->jobs;
    berth__prio_remove_job(q, j);
    return where == RUNNING ? berth__prio_push_preemptible(q, &v->jobs[j])
                            : berth__prio_push_pending(q, v, j);
}

/* ---- the pass ---------------------------------------------------------------------- */

/* The shape whose head is the best unblocked pending job, or -1. */
static int best_pending(const struct berth__prio *q)
{
    int best = -1;
    for (size_t c = 0; c < q->nshapes; c++) {
        const struct pent *e = berth__prio_phead(&q->shapes[c]);
        if (e && !q->shapes[c].blocked &&
            (best < 0 || berth__prio_pless(e, berth__prio_phead(&q->shapes[best]))))
            best = (int)c;
    }
    return best;
}

/* j started (on_res: on the reserved type of a backfill pass): it leaves the pending heaps
 * and the controls count it. In an admission's trial the start is the plan's only: what to
 * do is kept for when the trial is over (admit_in_trial). */
int berth__prio_started(struct berth__prio *q, const struct berth__view *v, uint32_t j, int on_res,
                        struct berth_err *err)
{
    if (q->trial) {
        q->trial_on_res = on_res;
        return STARTED;
    }
    if (on_res) {
        const struct berth__job *job = &v->jobs[j];
        berth_us lim = job->limit_us;
        berth_us left = lim > 0 ? lim - job->run_us : berth__job_left_us(job, v->now);
        if (v->now + left > q->res_t)
            q->res_extra -= job->gpus; /* it runs past the reservation: on the extra GPUs */
    }
    berth__prio_remove_job(q, j);
    if (berth__prio_push_started(q, &v->jobs[j]) || berth__prio_note_run(q, &v->jobs[j], 1))
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    return STARTED;
}

/* Starts pending job j if the plan can place it: 1 started, 0 it does not fit (nothing
 * changed), < 0 error. */
static int try_start(struct berth__prio *q, const struct berth__view *v, struct berth__plan *plan,
                     uint32_t j, struct berth_err *err)
{
    if (berth__plan_fit(plan, &v->jobs[j]) < 0) {
        q->nofit = BERTH_NOFIT_COUNT;
        return 0;
    }
    int rc = berth__plan_start(plan, j, err);
    if (rc == BERTH_NOFIT) {
        q->nofit = plan->nofit; /* placement, or consolidate-or-wait */
        return 0;
    }
    if (rc)
        return rc;
    return berth__prio_started(q, v, j, 0, err);
}

/* Whether job j may start on the reserved type now without delaying the reserved job: it
 * ends by the reservation, or it takes no more than the GPUs left over then. */
static int backfill_ok(const struct berth__prio *q, const struct berth__job *j, berth_us now)
{
    berth_us lim = j->limit_us;
    berth_us left = lim > 0 ? (lim > j->run_us ? lim - j->run_us : 1) : berth__job_left_us(j, now);
    return now + left <= q->res_t || j->gpus <= q->res_extra;
}

/* Starts j on type t with the servers of the reservation's domain hidden, so it takes none
 * of their GPUs: STARTED (not on the reserved GPUs), 0 when it does not fit elsewhere, < 0
 * error. Not in a trial (hiding is not undone by one). */
static int start_outside(struct berth__prio *q, const struct berth__view *v,
                         struct berth__plan *plan, uint32_t j, int t, struct berth_err *err)
{
    if (q->trial || plan->trial)
        return 0;
    const struct berth_cluster *c = v->cluster;
    size_t keep = plan->nhidden;
    int rc = 0;
    for (uint32_t s = 0; s < c->nsrv && !rc; s++)
        if (c->srv[s].type == t && berth__reserve_in_domain(c, &q->res_topo, s))
            rc = berth__plan_hide(plan, s);
    if (!rc)
        rc = berth__plan_start_type(plan, j, t, err);
    berth__plan_unhide_to(plan, keep);
    if (rc == BERTH_NOFIT)
        return 0;
    if (rc)
        return rc < 0 ? rc : berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    return berth__prio_started(q, v, j, 0, err);
}

/* try_start with the controls: type by type in cluster order, each asked of the quota gate
 * and of the reservation first. STARTED, NOT_FIT, QUOTA (every type it fits was refused by
 * a quota or limit: q->entitled says whether a reclaim may help), BF_WAIT (it would delay
 * the reserved job), or < 0. */
int berth__prio_try_admit(struct berth__prio *q, const struct berth__view *v,
                          struct berth__plan *plan, uint32_t j, struct berth_err *err)
{
    struct berth__job *job = &v->jobs[j];
    if (!q->quota && !q->res_on)
        return try_start(q, v, plan, j, err);
    if (!job->gpus) /* a CPU-only job asks no quota and holds no GPU of a reservation */
        return try_start(q, v, plan, j, err);
    const struct berth_cluster *c = v->cluster;
    int quota = 0, wait = 0;
    q->entitled = 0;
    for (size_t t = 0; t < c->ntypes; t++) {
        if (job->type_mask && !(job->type_mask >> t & 1))
            continue;
        int ent = 0; /* the quota first: a refusal there is what to say, and may reclaim */
        if (q->quota && !berth__quota_admits(q->quota, job, (int)t, NULL, &ent)) {
            quota = 1;
            q->entitled |= ent;
            continue;
        }
        if (job->share == 1000 && c->types[t].free < job->gpus)
            continue;
        int on_res = q->res_on && (int)t == q->res_type;
        if (on_res && !backfill_ok(q, job, v->now)) {
            /* a reservation in one domain: the job may still start outside that domain */
            int rc = q->res_topo_on ? start_outside(q, v, plan, j, (int)t, err) : 0;
            if (rc)
                return rc;
            wait = 1;
            continue;
        }
        int rc = berth__plan_start_type(plan, j, (int)t, err);
        if (rc == BERTH_NOFIT)
            continue;
        if (rc)
            return rc;
        return berth__prio_started(q, v, j, on_res, err);
    }
    return quota ? QUOTA : wait ? BF_WAIT : NOT_FIT;
}
/* Backfill: the reservation of job j, the first that cannot start (a whole-GPU gang): on the
 * GPU type where enough GPUs free up soonest. No reservation when none ever frees enough. */
static int reserve_for(struct berth__prio *q, const struct berth__view *v, uint32_t j)
{
    const struct berth__job *job = &v->jobs[j];
    if (!job->gpus || job->share != 1000)
        return 0;
    const struct berth_cluster *c = v->cluster;
    int lv = q->cfg.backfill_topology ? berth__reserve_topo_level(c, job) : -1;
    for (size_t t = 0; t < c->ntypes; t++) {
        if (job->type_mask && !(job->type_mask >> t & 1))
            continue;
        berth_us at;
        int32_t extra;
        struct berth__rtopo rt = {0};
        int rc = lv >= 0
                     ? berth__reserve_topo(&q->rs, c, v->jobs, (int)t, lv, v->now, job->gpus, &rt)
                     : berth__reserve_shadow(&q->rs, (int)t, v->now, c->types[t].free, job->gpus,
                                             &at, &extra);
        if (rc < 0)
            return BERTH_ENOMEM;
        if (rc)
            continue;
        if (lv >= 0)
            at = rt.T, extra = rt.extra;
        if (!q->res_on || at < q->res_t) {
            q->res_on = 1;
            q->res_type = (int)t;
            q->res_t = at;
            q->res_extra = extra;
            q->res_job = j;
            q->res_topo_on = lv >= 0;
            q->res_topo = rt;
        }
    }
    return 0;
}

static void note_why(struct berth__prio *q, uint32_t j, int code, uint32_t blocker)
{
    if (!q->controls)
        return;
    q->wpass[j] = q->pass;
    q->wcode[j] = (uint8_t)code;
    q->wblk[j] = blocker;
}

int berth__prio_plan(struct berth__prio *q, const struct berth__view *v, struct berth__plan *plan,
                     struct berth_err *err)
{
    q->vjobs = v->jobs;
    int rc = sync(q, v);
    if (rc)
        return berth_err_set(err, rc, "policy: out of memory");
    for (size_t c = 0; c < q->nshapes; c++)
        q->shapes[c].blocked = 0;
    q->pass++;
    q->res_on = 0;
    q->res_topo_on = 0;
    q->nskip = 0;
    q->strict_head = BERTH_WHY_NOBODY;
    q->npreempted = 0;
    q->budget_hit = 0;
    int64_t looked = 0; /* jobs looked at past the reservation */
    for (;;) {
        int c = best_pending(q);
        if (c < 0)
            break;
        struct pheap *h = &q->shapes[c];
        struct pent pe = *berth__prio_phead(h);
        if (q->res_on && ++looked > q->cfg.backfill_depth)
            break;
        if ((rc = berth__prio_try_admit(q, v, plan, pe.job, err)) < 0)
            return rc;
        if (rc == STARTED)
            continue;
        if (rc == QUOTA) { /* ineligible for now: it blocks its own shape (queue, user) only */
            if (q->entitled && (rc = berth__prio_admit_reclaiming(q, v, plan, pe.job, err)) != 0) {
                if (rc < 0)
                    return rc;
                continue;
            }
            note_why(q, pe.job, BERTH_WHY_QUOTA, BERTH_WHY_NOBODY);
            h->blocked = 1;
            h->blocker = pe.job;
            continue;
        }
        if (rc == BF_WAIT) { /* set aside: later jobs of its shape may still backfill */
            note_why(q, pe.job, BERTH_WHY_RESERVED, q->res_job);
            berth__prio_remove_job(q, pe.job);
            if (BERTH_GROW(q->skip, q->skip_cap, q->nskip + 1))
                return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
            q->skip[q->nskip++] = (struct skip){pe.key, pe.job, c};
            continue;
        }
        if (q->cfg.preemptive && q->cfg.max_preempt > 0 && q->npreempted >= q->cfg.max_preempt)
            q->budget_hit = 1; /* the rest of the wave: the next pass */
        else if (q->cfg.preemptive) {
            rc = berth__prio_admit_preempting(q, v, plan, &pe, err);
            if (rc < 0)
                return rc;
            if (rc > 0)
                continue;
        }
        note_why(q, pe.job, BERTH_WHY_RESOURCES, BERTH_WHY_NOBODY);
        h->blocked = 1;
        h->blocker = pe.job;
        if (q->has_rs && !q->res_on) {
            if (reserve_for(q, v, pe.job))
                return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
            if (q->res_on)
                continue; /* the others may backfill around it */
        }
        if (q->cfg.strict && !q->res_on) {
            q->strict_head = pe.job;
            break;
        }
    }
    if (berth__prio_put_aside(q, v))
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    return 0;
}

berth_us berth__prio_next_pass(struct berth__prio *q, const struct berth__view *v)
{
    if (q->budget_hit && v->npending)
        return v->now + 1;
    if (q->cfg.quantum_us <= 0 || v->npending == 0)
        return BERTH_TIME_NONE;
    return (v->now / q->cfg.quantum_us + 1) * q->cfg.quantum_us;
}

int64_t berth__prio_slope_none(void *ctx, const struct berth__job *j)
{
    (void)ctx, (void)j;
    return 0;
}

void berth__prio_why(const struct berth__prio *q, const struct berth__view *v, uint32_t j,
                     struct berth__why *w)
{
    *w = (struct berth__why){.blocker = BERTH_WHY_NOBODY, .queue = -1, .type = -1};
    if (j >= q->jcap || (q->where[j] != PENDING && q->where[j] != ASIDE) ||
        v->jobs[j].state != BERTH_JOB_PENDING)
        return;
    const struct pheap *h = &q->shapes[q->cls[j]];
    if (q->controls && q->wpass[j] == q->pass) {
        w->code = q->wcode[j];
        w->blocker = q->wblk[j];
        if (w->code == BERTH_WHY_QUOTA && q->quota) { /* what refuses it, on its first type */
            int ent;
            for (size_t t = 0; t < v->cluster->ntypes; t++)
                if ((!v->jobs[j].type_mask || (v->jobs[j].type_mask >> t & 1)) &&
                    !berth__quota_admits(q->quota, &v->jobs[j], (int)t, w, &ent))
                    break;
        }
        if (q->res_on && (w->code == BERTH_WHY_RESERVED || q->res_job == j))
            w->until = q->res_t;
        return;
    }
    /* the head that could not start, or a job behind something that holds it */
    w->blocker = q->strict_head != BERTH_WHY_NOBODY ? q->strict_head
                 : h->blocked                       ? h->blocker
                 : berth__prio_phead(h)             ? berth__prio_phead(h)->job
                                                    : BERTH_WHY_NOBODY;
    w->code = w->blocker == j ? BERTH_WHY_RESOURCES : BERTH_WHY_PRIORITY;
    if (w->blocker == j)
        w->blocker = BERTH_WHY_NOBODY;
}

int berth__prio_check(const struct berth__prio *q, const struct berth_cluster *c,
                      const struct berth__job *j, struct berth_err *err)
{
    (void)c;
    const struct berth_queues *qf = q->cfg.queues;
    if (qf && qf->nq && berth__queues_find(qf, j->spec->queue) < 0)
        return berth_err_set(err, BERTH_EINPUT,
                             "queue '%s' is not in the queues file %s (which has no queue \"*\" "
                             "for the others)",
                             j->spec->queue[0] ? j->spec->queue : "default", qf->path);
    return 0;
}

/* ---- adapters for the policy function table ---------------------------------------- */

void berth__prio_destroy_v(void *self)
{
    berth__prio_destroy(self);
}

int berth__prio_plan_v(void *self, const struct berth__view *v, struct berth__plan *plan,
                       struct berth_err *err)
{
    return berth__prio_plan(self, v, plan, err);
}

berth_us berth__prio_next_pass_v(void *self, const struct berth__view *v)
{
    return berth__prio_next_pass(self, v);
}

void berth__prio_why_v(void *self, const struct berth__view *v, uint32_t j, struct berth__why *w)
{
    berth__prio_why(self, v, j, w);
}

int berth__prio_check_v(void *self, const struct berth_cluster *c, const struct berth__job *j,
                        struct berth_err *err)
{
    return berth__prio_check(self, c, j, err);
}

int berth__prio_create_v(const struct berth__prio_cfg *cfg, void **self, struct berth_err *err)
{
    struct berth__prio *q = NULL;
    int rc = berth__prio_create(cfg, &q, err);
    if (!rc)
        *self = q;
    return rc;
}
