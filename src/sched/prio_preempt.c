/* Admission by preemption for the ordering scheduler: the victims (worst running job first,
 * or a reclaim's), the trial of the plan that tries them and keeps, commits or undoes it,
 * and the fast path that knows the trial's outcome without running it. */
#include <string.h>

#include "sched/prio_int.h"

/* Tests only: admit_fast off (every admission by preemption runs as a trial), and how many
 * admissions admit_fast decided; a trial that needed every victim taken back and made again
 * (commit_trial off), and how many trials commit_trial kept. */
int berth__prio_no_fast, berth__prio_no_commit;
unsigned long long berth__prio_fast_used, berth__prio_commits;

static int64_t key_now(const struct rheap *h, const struct rent *e, berth_us now)
{
    return (int64_t)(e->rank + (__int128)h->slope * now);
}

/* Whether heap h's jobs run on a GPU type in mask (0 = any). */
static int heap_in(const struct rheap *h, uint64_t mask)
{
    return !mask || (h->type >= 0 && (mask >> h->type & 1));
}

/* Whether a running job (key k, number job) is a victim for pending job pj with bar: its key
 * is worse, or on a tie its number is higher. */
static int worse_than(int64_t k, uint32_t job, int64_t bar, uint32_t pj)
{
    return k > bar || (k == bar && job > pj);
}

/* The heap whose top is the worst preemptible job now on a GPU type in mask (0 = any), or
 * -1 when there is none. */
static int worst_running(const struct berth__prio *q, berth_us now, uint64_t mask)
{
    int best = -1;
    int64_t bk = 0;
    uint32_t bj = 0;
    for (size_t c = 0; c < q->nslopes; c++) {
        const struct rheap *h = &q->slopes[c];
        if (!h->n || !heap_in(h, mask))
            continue;
        int64_t k = key_now(h, &h->a[0], now);
        if (best < 0 || k > bk || (k == bk && h->a[0].job > bj)) {
            best = (int)c;
            bk = k;
            bj = h->a[0].job;
        }
    }
    return best;
}

/* The next victim of an admission by preemption: the worst preemptible job on a type p may
 * use, when its key is worse than bar (on a tie, its number is higher than p's); NOBODY. */
static uint32_t next_victim(struct berth__prio *q, berth_us now, const struct berth__job *p,
                            int64_t bar)
{
    int c = worst_running(q, now, p->type_mask);
    if (c < 0)
        return BERTH_WHY_NOBODY;
    const struct rheap *h = &q->slopes[c];
    int64_t k = key_now(h, &h->a[0], now);
    if (!worse_than(k, h->a[0].job, bar, p->idx))
        return BERTH_WHY_NOBODY; /* every running job it could use is at least as good as p */
    return h->a[0].job;
}

/* Whether the running jobs next_victim would name for p (a key worse than bar) hold at least
 * need GPUs: a walk down each heap p may use, pruned where a job is no victim (its children's
 * keys are no worse), stopped as soon as need is reached. 1 or 0; -1 out of memory. */
static int victims_hold(struct berth__prio *q, berth_us now, const struct berth__job *p,
                        int64_t bar, int64_t need)
{
    int64_t got = 0;
    for (size_t c = 0; c < q->nslopes && got < need; c++) {
        const struct rheap *h = &q->slopes[c];
        if (!h->n || !heap_in(h, p->type_mask))
            continue;
        size_t top = 0;
        if (BERTH_GROW(q->walk, q->walk_cap, ARITY))
            return -1;
        q->walk[top++] = 0;
        while (top && got < need) {
            size_t i = q->walk[--top];
            if (!worse_than(key_now(h, &h->a[i], now), h->a[i].job, bar, p->idx))
                continue;
            got += h->a[i].gpus;
            if (BERTH_GROW(q->walk, q->walk_cap, top + ARITY))
                return -1;
            for (size_t ch = ARITY * i + 1; ch <= ARITY * i + ARITY && ch < h->n; ch++)
                q->walk[top++] = ch;
        }
    }
    return got >= need;
}

/* The next victim of a reclaim: the youngest job of a cohort mate that borrows what p's queue
 * is guaranteed; NOBODY. */
static uint32_t next_reclaim(struct berth__prio *q, const struct berth__view *v,
                             const struct berth__job *p)
{
    return berth__quota_victim(q->quota, v->jobs, p, p->type_mask);
}

/* Starts p on the GPUs its admission found (they are idle: anything else is a bug). 0, or
 * < 0 error. */
static int start_found(const struct berth__view *v, struct berth__plan *plan, uint32_t pj,
                       const struct berth__slot *slots, struct berth_err *err)
{
    int rc = berth__plan_start_slots(plan, pj, slots, err);
    if (rc == BERTH_NOFIT)
        return berth_err_set(err, BERTH_EINTERNAL,
                             "policy: job %s does not fit the GPUs its admission found",
                             v->jobs[pj].spec->id);
    return rc;
}

/* An admission found: the victims p needs are preempted for good, in the order tried, and p
 * starts on the GPUs found for it (on_res: on the reserved type of a backfill pass). 1, or
 * < 0 error. */
static int admit_found(struct berth__prio *q, const struct berth__view *v, struct berth__plan *plan,
                       uint32_t pj, const uint32_t *kept, size_t nk,
                       const struct berth__slot *slots, int on_res, struct berth_err *err)
{
    int rc;
    for (size_t i = 0; i < nk; i++) {
        uint32_t w = kept[i];
        berth__prio_remove_job(q, w);
        if ((rc = berth__plan_preempt(plan, w, err)))
            return rc;
        if (berth__prio_note_run(q, &v->jobs[w], 0) || berth__prio_push_pending(q, v, w))
            return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
        q->npreempted++;
    }
    if ((rc = start_found(v, plan, pj, slots, err)))
        return rc;
    if ((rc = berth__prio_started(q, v, pj, on_res, err)) < 0)
        return rc;
    return 1;
}

/* An admission's trial where p needed all n victims tried, and none of its tries was taken
 * back: the plan keeps the victims' preemptions (in the order tried, as admit_found would make
 * them again); when p's GPUs span servers, its start alone is taken back (to before_p) and
 * made again on them (start_slots takes them in slot order, which the free-GPU buckets'
 * order follows; the placement took them in its own); and the policy's bookkeeping follows as
 * admit_found's does: the victims wait again, counted as preempted, and p has started. The
 * victims left their heaps and the controls' counts in the trial. 1, or < 0 error. */
static int commit_trial(struct berth__prio *q, const struct berth__view *v,
                        struct berth__plan *plan, uint32_t pj,
                        const struct berth__plan_mark *before_p, size_t n, int on_res,
                        struct berth_err *err)
{
    int rc;
    const struct berth__job *p = &v->jobs[pj];
    int32_t ns = berth__job_nslots(p);
    int one_server = 1;
    for (int32_t k = 1; k < ns && one_server; k++)
        one_server = p->slots[k].server == p->slots[0].server;
    if (!one_server) /* on one server the placement took them as start_slots would */
        berth__plan_trial_undo_to(plan, before_p);
    berth__plan_trial_end(plan);
    for (size_t i = 0; i < n; i++) {
        uint32_t w = q->victims[i];
        q->where[w] = NOWHERE; /* a protected victim's entry is dropped lazily */
        if (berth__prio_push_pending(q, v, w))
            return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
        q->npreempted++;
    }
    if (!one_server && (rc = start_found(v, plan, pj, q->tslots, err)))
        return rc;
    if ((rc = berth__prio_started(q, v, pj, on_res, err)) < 0)
        return rc;
    return 1;
}

/* Starts p by taking the GPUs of victims, in the order next_victim (bar set) or next_reclaim
 * (bar unset) names them, one at a time until p starts. It runs as a trial of the plan: the
 * victims are preempted and p is started there, and then all of it is taken back; when p
 * started, only the victims it needed (it got some of their GPUs) are preempted for good,
 * in the order they were tried, and p starts on the GPUs the trial gave it. The other
 * victims keep running as if never tried: the cluster, their records and the order of the
 * free-GPU buckets are as before (the controls' counters see them given back). With
 * count_type >= 0 the trial ends after the first victim that leaves p's gang enough idle GPUs
 * of that type (berth__prio_admit_preempting then knows the rest). 1 started, 0 not (nothing
 * changed), < 0 error. */
static int admit_in_trial(struct berth__prio *q, const struct berth__view *v,
                          struct berth__plan *plan, uint32_t pj, const int64_t *bar, int count_type,
                          struct berth_err *err)
{
    struct berth__job *p = &v->jobs[pj];
    int fit = 0, rc = 0, clean = 1;   /* clean: no placement was taken back in the trial */
    struct berth__plan_mark before_p; /* the plan before p's last try */
    q->nvictims = 0;
    q->trial_counted = 0;
    if (berth__plan_trial_begin(plan))
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    q->trial = 1;
    for (;;) {
        uint32_t w = bar ? next_victim(q, v->now, p, *bar) : next_reclaim(q, v, p);
        if (w == BERTH_WHY_NOBODY)
            break;
        if (BERTH_GROW(q->victims, q->vcap, q->nvictims + 1) ||
            BERTH_GROW(q->vwas, q->vwcap, q->nvictims + 1) ||
            berth__plan_trial_room(plan, v->jobs[w].gpus + p->gpus)) {
            rc = berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
            break;
        }
        q->vwas[q->nvictims] = q->where[w];
        q->victims[q->nvictims++] = w;
        if (q->where[w] == RUNNING)
            berth__prio_remove_job(q, w);
        else
            q->where[w] = NOWHERE; /* protected (a reclaim's victim): its entry goes lazily */
        if ((rc = berth__plan_preempt(plan, w, err)))
            break;
        if (berth__prio_note_run(q, &v->jobs[w], 0)) {
            rc = berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
            break;
        }
        uint64_t back = plan->taken_back;
        berth__plan_trial_mark(plan, &before_p);
        fit = berth__prio_try_admit(q, v, plan, pj, err);
        if (plan->taken_back != back)
            clean = 0; /* a placement taken back moved servers in their buckets */
        if (fit < 0) {
            rc = fit;
            break;
        }
        if (fit == STARTED)
            break;
        if (count_type >= 0 && plan->cluster->types[count_type].free >= p->gpus) {
            q->trial_counted = 1;
            break;
        }
    }
    q->trial = 0;
    fit = !rc && fit == STARTED;
    int on_res = q->trial_on_res;
    size_t n = q->nvictims, nkept = 0;
    if (fit) { /* what the trial found: p's GPUs, and the victims it took them from */
        int32_t ns = berth__job_nslots(p);
        if (BERTH_GROW(q->tslots, q->tslots_cap, (size_t)ns) ||
            BERTH_GROW(q->kept, q->kept_cap, n)) {
            fit = 0;
            rc = berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
        } else {
            memcpy(q->tslots, p->slots, (size_t)ns * sizeof *q->tslots);
            /* the victims that fit back beside p, the last tried first (shares of one GPU,
             * CPU and memory of one server: each given back leaves less room) */
            for (size_t i = n; i-- > 0 && !rc;) {
                uint32_t w = q->victims[i];
                q->kept[i] = !berth__plan_can_restore(plan, w);
                nkept += q->kept[i];
                if (!q->kept[i] && berth__plan_trial_room(plan, v->jobs[w].gpus))
                    rc = berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
                else if (!q->kept[i])
                    rc = berth__plan_restore(plan, w, err);
            }
            fit = !rc;
        }
    }
    if (fit && nkept == n && clean && !berth__prio_no_commit) { /* it needed every victim */
        berth__prio_commits++;
        return commit_trial(q, v, plan, pj, &before_p, n, on_res, err);
    }
    berth__plan_trial_undo(plan);
    /* every victim runs again as before: back where it was, and counted by the controls */
    for (size_t i = n; i-- > 0;) {
        uint32_t w = q->victims[i];
        int back = 0;
        if (q->vwas[i] == PROTECTED)
            q->where[w] = PROTECTED; /* its protection entry is still queued */
        else
            back = berth__prio_push_preemptible(q, &v->jobs[w]);
        if (back || berth__prio_note_run(q, &v->jobs[w], 1))
            return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    }
    if (!fit)
        return rc;
    size_t nk = 0; /* the victims p needed, in the order tried */
    for (size_t i = 0; i < n; i++)
        if (q->kept[i])
            q->victims[nk++] = q->victims[i];
    return admit_found(q, v, plan, pj, q->victims, nk, q->tslots, on_res, err);
}

/* The fast path's view of running job j (preempt_pick.h): a victim when preemptible, with
 * its heap's line. */
static void pp_line(void *ctx, uint32_t j, struct berth__ppick_line *out)
{
    const struct berth__prio *q = ctx;
    if (j >= q->jcap || q->where[j] != RUNNING) {
        out->victim = 0;
        return;
    }
    const struct rheap *h = &q->slopes[q->cls[j]];
    *out = (struct berth__ppick_line){1, h->a[q->pos[j]].rank, h->slope};
}

/* The GPU type p may use when it is exactly one, else -1. */
static int one_type(const struct berth_cluster *c, const struct berth__job *p)
{
    if (!p->type_mask)
        return c->ntypes == 1 ? 0 : -1;
    if (p->type_mask & (p->type_mask - 1))
        return -1;
    int t = __builtin_ctzll(p->type_mask);
    return (size_t)t < c->ntypes ? t : -1;
}

/* admit_fast for one GPU with none idle (free 0) on its type: the first victim completes
 * every server it holds, and the placement takes the tightest of them (the one where it holds
 * the fewest GPUs; then the last in its slots, as the buckets have it) and its lowest GPU
 * there. 1 found, 0 no victim, -1 not this case. */
static int one_gpu(struct berth__prio *q, const struct berth__view *v, const struct berth__job *p,
                   int32_t free, int64_t bar, struct berth__ppick_result *r)
{
    if (free != 0)
        return -1;
    uint32_t w = next_victim(q, v->now, p, bar);
    if (w == BERTH_WHY_NOBODY)
        return 0;
    const struct berth__job *wj = &v->jobs[w];
    int32_t best_n = 0, ns = berth__job_nslots(wj);
    for (int32_t k = 0; k < ns; k++) { /* each run of its slots, as its give pushes them */
        uint32_t s = wj->slots[k].server, low = wj->slots[k].gpu;
        if (k + 1 < ns && wj->slots[k + 1].server == s)
            continue; /* the run's last slot stands for it */
        int32_t n = 0;
        for (int32_t i = 0; i < ns; i++)
            if (wj->slots[i].server == s) {
                n++;
                low = wj->slots[i].gpu < low ? wj->slots[i].gpu : low;
            }
        if (!best_n || n <= best_n) {
            best_n = n;
            r->server = s;
            r->slots[0] = (struct berth__slot){s, low};
        }
    }
    r->nkept = 1;
    r->kept[0] = w;
    return 1;
}

/* Admission by preemption without the trial, where its outcome is known to be "the first
 * server its victims complete" (preempt_pick.h): p takes whole GPUs of one type, on one
 * server because it must, or because it is one GPU, or because consolidate-or-wait refused
 * to spread it just now (victims only make servers ready sooner, so it refuses again until
 * one server holds p); placement takes the tightest server that holds a gang (consolidate,
 * best-fit); no controls, no CPU, memory or shares, nothing held out or hidden. The result is
 * the trial's: the same victims, preempted in the same order, and p on the same GPUs
 * (tests/sim/test_las_fast.c compares the two on random overloaded runs). 1 started, 0 not
 * (nothing changed), -1 not known here (the caller runs the trial), < -1 error. */
static int admit_fast(struct berth__prio *q, const struct berth__view *v, struct berth__plan *plan,
                      const struct pent *pe, int64_t bar, struct berth_err *err)
{
    const struct berth_cluster *c = plan->cluster;
    struct berth__job *p = &v->jobs[pe->job];
    int t = one_type(c, p);
    if (berth__prio_no_fast || q->pp_off || q->controls || t < 0 || p->share != 1000 ||
        p->gpus < 1 || !(p->single || p->gpus == 1 || q->nofit == BERTH_NOFIT_WAIT) || !c->owner ||
        c->has_cpu_mem || c->has_gpu_mem || c->shares_ready || c->reserved_servers || c->nclosed ||
        c->nout_want || c->out_gpus || plan->nhidden ||
        (plan->placement != BERTH_PLACE_CONSOLIDATE && plan->placement != BERTH_PLACE_BEST_FIT) ||
        berth__plan_placement_for(plan, p) != plan->place)
        return -1; /* (a job the topology placement places: the trial) */
    if (q->pp && q->pp_cluster != c) {
        berth__ppick_destroy(q->pp);
        q->pp = NULL;
    }
    if (!q->pp) {
        if (berth__cluster_track_changes(plan->cluster) ||
            !(q->pp = berth__ppick_create(plan->cluster, pp_line, q)))
            return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
        q->pp_cluster = c;
    }
    struct berth__ppick_result r;
    int rc = p->gpus == 1 ? one_gpu(q, v, p, c->types[t].free, bar, &r)
                          : berth__ppick_find(q->pp, v->jobs, t, p->gpus, bar, pe->job, v->now, &r);
    if (rc == -2)
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    if (rc >= 0)
        berth__prio_fast_used++;
    if (rc <= 0)
        return rc;
    return admit_found(q, v, plan, pe->job, r.kept, (size_t)r.nkept, r.slots, 0, err);
}

/* Tries to start p by preempting running jobs with worse keys, worst first (a trial:
 * admit_in_trial; admit_fast where it knows the outcome). Returns 1 if p started, 0 if it
 * could not (nothing changed), < 0 on error. */
int berth__prio_admit_preempting(struct berth__prio *q, const struct berth__view *v,
                                 struct berth__plan *plan, const struct pent *pe,
                                 struct berth_err *err)
{
    struct berth__job *p = &v->jobs[pe->job];
    /* give up at once when even every preemptible GPU of the allowed types would not do */
    int64_t idle = 0, could;
    for (size_t t = 0; t < v->cluster->ntypes; t++)
        if (!p->type_mask || (p->type_mask >> t & 1))
            idle += v->cluster->types[t].free;
    could = idle;
    for (size_t c = 0; c < q->nslopes; c++)
        if (heap_in(&q->slopes[c], p->type_mask))
            could += q->slopes[c].gpus;
    if (could < p->gpus)
        return 0;
    int64_t bar = pe->key; /* a victim's key is worse than this (on a tie, its number) */
    if (q->cfg.hysteresis > 0 && pe->key > 0) {
        double more = q->cfg.hysteresis * (double)pe->key;
        bar = more < (double)(INT64_MAX - pe->key) ? bar + (int64_t)more : INT64_MAX;
    }
    /* nor when the idle GPUs and those of every job worse than p would not: the trial would
     * try them all and take it back (most admissions that fail, fail so) */
    int hold = p->share == 1000 ? victims_hold(q, v->now, p, bar, p->gpus - idle) : 1;
    if (hold < 0)
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    if (!hold)
        return 0;
    int rc = admit_fast(q, v, plan, pe, bar, err);
    if (rc != -1)
        return rc;
    if (q->nofit == BERTH_NOFIT_COUNT && !q->controls && p->gpus > 1 && !p->single) {
        /* too few idle GPUs now: try victims until the count is there, where consolidate-or-
         * wait decides afresh; if it waits, only a server the victims complete is left */
        int t = one_type(plan->cluster, p);
        if (t >= 0 && (rc = admit_in_trial(q, v, plan, pe->job, &bar, t, err)) != 0)
            return rc;
        if (t < 0)
            return admit_in_trial(q, v, plan, pe->job, &bar, -1, err);
        if (!q->trial_counted)
            return 0; /* every victim would not make the count: nothing can start it */
        {
            q->nofit = BERTH_NOFIT_WAIT;
            rc = admit_fast(q, v, plan, pe, bar, err);
            if (rc != -1)
                return rc;
        }
    }
    return admit_in_trial(q, v, plan, pe->job, &bar, -1, err);
}

/* A reclaim (Kueue's): p is refused only because its cohort mates borrow what its queue is
 * guaranteed; their youngest jobs are preempted, one at a time, until p starts (a trial:
 * admit_in_trial). 1 started, 0 not (nothing changed), < 0 error. */
int berth__prio_admit_reclaiming(struct berth__prio *q, const struct berth__view *v,
                                 struct berth__plan *plan, uint32_t pj, struct berth_err *err)
{
    return admit_in_trial(q, v, plan, pj, NULL, -1, err);
}
