/* tiresias-dlas and tiresias-dlas-gpu: Tiresias' discretised LAS (NSDI'19), a multi-level
 * feedback queue on attained service: run time (dlas) or GPU time = run time x GPUs
 * (dlas-gpu). Queue thresholds come from the setting queue_limits (n limits, n + 1
 * queues; default 3250 s and 7200 s, three queues: Tiresias' code lists a third limit,
 * 18000 s, but never demotes out of its last queue, so it never matters). A job enters Q0 on
 * arrival and drops one queue at the exact instant its attained service reaches its queue's limit;
 * the policy asks for a pass then. Nothing promotes.
 *
 * Each pass computes the desired running set: the queues are scanned Q0 -> Qlast; within a
 * queue the jobs running at the start of the pass come first, then the pending ones, each
 * in entry order (time it entered the queue, then job number). A job joins the set when its
 * GPUs fit what the jobs before it left (counted per GPU type, in milli-GPUs); a running
 * job that no longer fits is preempted (at no cost); a pending job that does not fit is
 * skipped, so smaller jobs behind it may run. Then the plan preempts running jobs outside
 * the set and starts pending jobs inside it, in priority order.
 *
 * Counting is not placing: a start may still fail (a one-server gang on fragmented servers,
 * CPU, memory, shares). Such a job is treated as not fitting, and it blocks every job of
 * exactly its demand for the rest of the pass; the scan resumes from it with the GPUs it
 * would have used (jobs before it keep their decisions). A start that lands on another GPU
 * type than the count chose resumes the scan from it with the count corrected.
 *
 * Cost: running jobs sit in one array per queue sorted by entry, pending jobs in one heap
 * per (queue, demand); a queue whose running jobs all still fit is taken as a block (its
 * per-type sums), a heap whose head does not fit is skipped whole, so a pass costs
 * O(queues x demands x (starts + 1)) plus one sweep of a queue's running jobs when some of
 * them must go. A scan resumed after a failed start reads only the records of the chunks
 * that lost a job in the pass, and takes the pending jobs it gave back from a sorted run in
 * front of their heaps, not from the heaps again; the run stays there for the next passes
 * (in overload most passes have a failed start, of the same gangs pass after pass).
 * Demotions come from a heap of predicted crossing instants. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "policy/tiresias_int.h"
#include "model/alloc.h"
#include "policy/tiresias.h"
#include "sched/fairshare.h"
#include "sched/order.h"
#include "sched/plan.h"
#include "sched/settings.h"

/* ---- life cycle ---------------------------------------------------------------------- */

static void destroy(void *self)
{
    struct tiresias *s = self;
    if (!s)
        return;
    for (size_t i = 0; i < s->ndem; i++)
        for (int q = 0; q < MAXQ; q++) {
            free(s->dem[i].q[q].a);
            free(s->dem[i].q[q].back);
        }
    for (int q = 0; q < MAXQ; q++) {
        for (size_t c = 0; c < s->run[q].nc; c++)
            free(s->run[q].c[c]);
        free(s->run[q].c);
        free(s->run[q].sum);
        free(s->run[q].csum);
        free(s->run[q].cpre);
    }
    free(s->dem);
    free(s->total);
    free(s->heap);
    free(s->js);
    free(s->budget);
    free(s->tr);
    free(s->snaps);
    free(s->pre);
    free(s->excl);
    free(s->demoted);
    free(s->tmp);
    if (s->has_fs)
        berth__fs_free(&s->fs);
    berth__tenants_free(&s->ten);
    free(s);
}

struct tiresias_settings {
    struct berth__us_list queue_limits;
    int entry_order, exact_demotion;
    struct berth__order_set o; /* its fair-share part alone */
};

static const struct berth__setting settings[] = {
    {"queue_limits", BERTH_SET_SECONDS_LIST, offsetof(struct tiresias_settings, queue_limits), 1e-6,
     1e12,
     "queue thresholds in attained service (seconds, or GPU-seconds for -gpu), increasing, "
     "':' between them (default 3250:7200)"},
    {"entry_order", BERTH_SET_BOOL, offsetof(struct tiresias_settings, entry_order), 0, 1,
     "berth's order within a queue: by the time a job entered it, running jobs first (default "
     "off: Tiresias' list, arrivals and demoted jobs at the tail, pending jobs moved behind "
     "running ones after each pass: the newest started is preempted first, the newest "
     "preempted resumes first)"},
    {"exact_demotion", BERTH_SET_BOOL, offsetof(struct tiresias_settings, exact_demotion), 0, 1,
     "a pass at the exact instant a job reaches its queue's limit (default on; off: at "
     "Tiresias' predicted instant now + (limit - run time) / GPUs in whole seconds, late for "
     "-gpu jobs that ran before; --mode tiresias sets off)"},
    BERTH_FAIRSHARE_SETTINGS(struct tiresias_settings, o,
                             "attained service (seconds, GPU-seconds for -gpu) a pending job's "
                             "place in its queue improves by at a fair-share factor of 1 "
                             "(default 0: fair-share not weighed, the queue's list order alone)"),
};

static int create(const struct berth__params *p, int gpu_time, void **self, struct berth_err *err)
{
    struct tiresias_settings set = {
        .queue_limits = {{3250 * BERTH_US_PER_S, 7200 * BERTH_US_PER_S}, 2}, .exact_demotion = 1};
    berth__order_defaults(&set.o, 0);
    int rc = berth__settings_parse(gpu_time ? "tiresias-dlas-gpu" : "tiresias-dlas", p->settings,
                                   settings, sizeof settings / sizeof *settings, &set, err);
    if (rc)
        return rc;
    const berth_us *lim = set.queue_limits.v;
    int n = set.queue_limits.n;
    struct tiresias *s = calloc(1, sizeof *s);
    if (!s)
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    s->gpu_time = gpu_time;
    s->list = !set.entry_order;
    s->exact = set.exact_demotion;
    s->nq = n + 1;
    berth__tenants_init(&s->ten, NULL); /* no queues file: shares 1, GPU weights 1 */
    s->fs_weight = set.o.fs_weight_us;
    s->has_fs = s->fs_weight > 0;
    if (s->has_fs)
        berth__fs_init(&s->fs, NULL, &s->ten, set.o.fs_half_life_us, set.o.fs_period_us);
    for (int q = 0; q < MAXQ; q++)
        s->run[q].chunk = CHUNK;
    memcpy(s->limit, lim, (size_t)n * sizeof *lim);
    *self = s;
    return 0;
}

void berth__tiresias_set_chunk(void *self, size_t n)
{
    struct tiresias *s = self;
    for (int q = 0; q < MAXQ; q++)
        s->run[q].chunk = n < 2 ? 2 : n;
}

void berth__tiresias_set_plain(void *self)
{
    ((struct tiresias *)self)->plain = 1;
}

static int create_dlas(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create(p, 0, self, err);
}

static int create_dlas_gpu(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create(p, 1, self, err);
}

/* Zeroes the new entries only (NOWHERE, not excluded): the rest of the doubled capacity
 * is never touched, so it costs no memory (ten million jobs: 16.7 million entries). */
static int grow_jobs(struct tiresias *s, size_t n)
{
    if (n <= s->jn)
        return 0;
    if (BERTH_GROW(s->js, s->jcap, n))
        return BERTH_ENOMEM;
    memset(s->js + s->jn, 0, (n - s->jn) * sizeof *s->js);
    s->jn = n;
    return 0;
}

/* Sizes the per-type arrays the first time the policy sees its cluster. */
static int init_types(struct tiresias *s, const struct berth_cluster *c)
{
    if (s->total)
        return 0;
    size_t nt = c->ntypes ? c->ntypes : 1;
    s->ntypes = c->ntypes;
    s->total = calloc(nt, sizeof *s->total);
    s->budget = calloc(nt, sizeof *s->budget);
    if (!s->total || !s->budget)
        return BERTH_ENOMEM;
    for (size_t t = 0; t < c->ntypes; t++)
        s->total[t] = (int64_t)c->types[t].total * 1000;
    for (int q = 0; q < s->nq; q++) {
        s->run[q].nt = nt;
        if (!(s->run[q].sum = calloc(nt, sizeof *s->run[q].sum)))
            return BERTH_ENOMEM;
    }
    return 0;
}

static int push_u32(uint32_t **a, size_t *n, size_t *cap, uint32_t j)
{
    if (BERTH_GROW(*a, *cap, *n + 1))
        return BERTH_ENOMEM;
    (*a)[(*n)++] = j;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* ---- fair-share ---------------------------------------------------------------------- */

/* Job j is known from now on: its user and queue get their numbers. */
static int fs_see(struct tiresias *s, const struct berth__view *v, uint32_t j)
{
    if (!s->has_fs)
        return 0;
    return berth__tenants_see(&s->ten, &v->jobs[j]) || berth__fs_see(&s->fs, &v->jobs[j], v->now)
               ? BERTH_ENOMEM
               : 0;
}

/* Job j starts (on = 1) or stops holding its GPUs at t (again: nothing). */
static int fs_charge(struct tiresias *s, const struct berth__job *j, int on, berth_us t)
{
    return s->has_fs ? berth__fs_charge(&s->fs, j, on, t) : 0;
}

/* The factors moved: every pending heap re-keyed and re-heaped in place, O(pending). */
static void fs_rekey(struct tiresias *s, const struct berth__view *v)
{
    for (size_t d = 0; d < s->ndem; d++)
        for (int q = 0; q < s->nq; q++) {
            struct pheap *h = &s->dem[d].q[q];
            berth__tiresias_rejoin(s, h); /* the run's order may not hold under the new keys */
            for (size_t i = 0; i < h->n; i++)
                h->a[i].fk = berth__tiresias_fs_key(s, &v->jobs[h->a[i].job]);
            for (size_t i = h->n / 2; i-- > 0;)
                berth__tiresias_hdown(s, h, i);
        }
}

/* After a pass: the jobs it preempted stop being charged, those it started are. */
static int fs_note_pass(struct tiresias *s, const struct berth__view *v)
{
    if (!s->has_fs)
        return 0;
    for (size_t i = 0; i < s->npre; i++)
        if (v->jobs[s->pre[i]].state != BERTH_JOB_RUNNING &&
            fs_charge(s, &v->jobs[s->pre[i]], 0, v->now))
            return BERTH_ENOMEM;
    for (size_t k = 0; k < s->ntr; k++)
        if (v->jobs[s->tr[k].job].state == BERTH_JOB_RUNNING &&
            fs_charge(s, &v->jobs[s->tr[k].job], 1, v->now))
            return BERTH_ENOMEM;
    return 0;
}

/* Brings the queues up to date: jobs that left, were requeued or arrived, and demotions
 * due by now (a job may cross several limits when passes come late). In entry order a job's
 * key is the time it entered its queue; in Tiresias' list (s->list) its rank: arrivals and
 * demoted jobs go to the tail, a job stopped from outside to the head of the pending ones. A
 * job demoted now waits in demoted[] (by job number, the order Tiresias walks its jobs in)
 * until the scan reaches it behind its new queue's pending jobs. */
static int sync(struct tiresias *s, const struct berth__view *v)
{
    if (grow_jobs(s, v->njobs) || init_types(s, v->cluster))
        return BERTH_ENOMEM;
    for (size_t i = 0; i < v->nadopted; i++) { /* running: in the queue its service earned */
        const struct berth__job *j = &v->jobs[v->adopted[i]];
        if (fs_see(s, v, j->idx) || fs_charge(s, j, 1, j->since))
            return BERTH_ENOMEM;
        int q = 0;
        for (; q < s->nq - 1 && berth__tiresias_attained(s, j) >= s->limit[q];)
            q++;
        s->js[j->idx].q = (uint8_t)q;
        s->js[j->idx].key = s->list ? ++s->rtail[q] : v->now;
        if (berth__tiresias_run_insert(s, j) || berth__tiresias_schedule_demotion(s, j))
            return BERTH_ENOMEM;
    }
    for (size_t i = 0; i < v->nleft + v->nrequeued; i++) {
        int requeued = i >= v->nleft;
        uint32_t j = requeued ? v->requeued[i - v->nleft] : v->left[i];
        if (s->js[j].where == RUNNING)
            berth__tiresias_run_remove(s, j);
        else if (s->js[j].where == PENDING)
            berth__tiresias_hremove(s, &s->dem[s->js[j].dm].q[s->js[j].q], s->js[j].pos);
        else if (s->js[j].where == BACK)
            berth__tiresias_back_remove(s, &s->dem[s->js[j].dm].q[s->js[j].q], j);
        s->js[j].where = NOWHERE;
        if (fs_charge(s, &v->jobs[j], 0, v->jobs[j].since))
            return BERTH_ENOMEM;
        if (!requeued)
            continue;
        int q0 = s->js[j].q;
        for (; s->js[j].q < s->nq - 1 &&
               berth__tiresias_attained(s, &v->jobs[j]) >= s->limit[s->js[j].q];
             s->js[j].q++)
            s->js[j].key = v->now;
        if (s->list)
            s->js[j].key = s->js[j].q != q0 ? ++s->ptail[s->js[j].q] : --s->phead[q0];
        if (berth__tiresias_push_pending(s, v, j))
            return BERTH_ENOMEM;
    }
    for (size_t i = 0; i < v->narrived; i++) {
        uint32_t j = v->arrived[i];
        if (fs_see(s, v, j))
            return BERTH_ENOMEM;
        s->js[j].q = 0;
        s->js[j].key = s->list ? ++s->ptail[0] : v->now;
        if (berth__tiresias_push_pending(s, v, j))
            return BERTH_ENOMEM;
    }
    while (s->nheap && s->heap[0].t <= v->now) {
        struct demote e = berth__tiresias_dem_pop(s);
        if (berth__tiresias_stale(s, v->jobs, &e))
            continue;
        if (!s->list) {
            berth__tiresias_run_remove(s, e.job);
            s->js[e.job].q = (uint8_t)(e.q + 1);
            s->js[e.job].key = e.t;
            if (berth__tiresias_run_insert(s, &v->jobs[e.job]) ||
                berth__tiresias_schedule_demotion(s, &v->jobs[e.job]))
                return BERTH_ENOMEM;
            continue;
        }
        if (s->js[e.job].where == RUNNING) {
            berth__tiresias_run_remove(s, e.job);
            if (push_u32(&s->demoted, &s->ndemoted, &s->demoted_cap, e.job))
                return BERTH_ENOMEM;
            s->js[e.job].where = DEMOTED;
        }
        s->js[e.job].q = (uint8_t)(e.q + 1);
        if (berth__tiresias_schedule_demotion(s, &v->jobs[e.job]))
            return BERTH_ENOMEM;
    }
    if (s->ndemoted > 1)
        qsort(s->demoted, s->ndemoted, sizeof *s->demoted, cmp_u32);
    if (s->has_fs && berth__fs_update(&s->fs, v->now))
        fs_rekey(s, v);
    return 0;
}

/* ---- the pass ------------------------------------------------------------------------ */

/* The first GPU type in cluster order whose budget holds demand d, -1 for a CPU-only demand,
 * -2 when none does. */
static int count_fit(const struct tiresias *s, const struct demand *d)
{
    if (d->gpus == 0)
        return -1;
    int64_t cost = d->share < 1000 ? d->share : (int64_t)d->gpus * 1000;
    for (size_t t = 0; t < s->ntypes; t++)
        if ((!d->type_mask || (d->type_mask >> t & 1)) && s->budget[t] >= cost)
            return (int)t;
    return -2;
}

static int add_torun(struct tiresias *s, struct torun e)
{
    size_t nt = s->ntypes ? s->ntypes : 1;
    if (BERTH_GROW(s->tr, s->tr_cap, s->ntr + 1))
        return BERTH_ENOMEM;
    if (s->snaps_cap < s->tr_cap * nt) {
        int64_t *p = realloc(s->snaps, s->tr_cap * nt * sizeof *p);
        if (!p)
            return BERTH_ENOMEM;
        s->snaps = p;
        s->snaps_cap = s->tr_cap * nt;
    }
    memcpy(s->snaps + s->ntr * nt, s->budget, s->ntypes * sizeof *s->budget);
    s->tr[s->ntr++] = e;
    return 0;
}

/* The running jobs of queue q from position at->ri on: each keeps its GPUs while they fit
 * the budget; one preempted earlier in the pass that fits again is to be restored. A queue,
 * then a chunk, none of whose jobs was preempted earlier in the pass (always, but in a
 * resumed scan) still runs whole: it is taken as a block when it fits, else walked without
 * reading the jobs' records. Only chunks that lost a job in this pass read them, so a scan
 * resumed after a failed start costs O(chunks + those chunks' jobs), not O(running jobs). */
static int scan_running(struct tiresias *s, const struct berth__view *v, struct scan *at)
{
    struct runq *r = &s->run[at->q];
    if (r->npre == 0 && at->ri == 0 && berth__tiresias_take_block(s, r->sum)) {
        at->ri = r->nc * r->chunk;
        return 0;
    }
    /* a position is chunk number x chunk size + index; they hold during a pass (the chunks
     * change only between passes) */
    for (size_t ci = at->ri / r->chunk, k = at->ri % r->chunk; ci < r->nc; ci++, k = 0) {
        const struct chunk *c = r->c[ci];
        int clean = s->plain ? r->npre == 0 : r->cpre[ci] == 0;
        if (clean && k == 0 && berth__tiresias_take_block(s, r->csum + ci * r->nt))
            continue;
        for (; k < c->n; k++) {
            const struct rent *e = &c->a[k];
            int fits = e->type < 0 || s->budget[e->type] >= e->cost;
            int running = 1;
            if (!clean) {
                fits = fits && !s->js[e->job].excluded;
                running = v->jobs[e->job].state == BERTH_JOB_RUNNING;
            }
            if (fits && !running) {
                if (add_torun(s, (struct torun){e->job, e->type, e->cost, RESTORE, (uint8_t)at->q,
                                                0, ci * r->chunk + k}))
                    return BERTH_ENOMEM;
            } else if (!fits && running) {
                if (push_u32(&s->pre, &s->npre, &s->pre_cap, e->job))
                    return BERTH_ENOMEM;
                r->npre++;
                r->cpre[ci]++;
            }
            if (fits && e->type >= 0)
                s->budget[e->type] -= e->cost;
        }
    }
    at->ri = r->nc * r->chunk;
    return 0;
}

/* The pending jobs of queue q: repeatedly the earliest entry among the demands whose head
 * fits the budget (a head that does not fit means none of its demand does). */
static int scan_pending(struct tiresias *s, int q)
{
    for (;;) {
        int best = -1, type = -2;
        const struct hent *bh = NULL;
        for (size_t d = 0; d < s->ndem; d++) {
            const struct hent *e = berth__tiresias_phead(&s->dem[d].q[q]);
            if (!e || s->dem[d].blocked || (bh && !berth__tiresias_hless(e, bh)))
                continue;
            int t = count_fit(s, &s->dem[d]);
            if (t > -2) {
                best = (int)d;
                type = t;
                bh = e;
            }
        }
        if (best < 0)
            return 0;
        struct pheap *h = &s->dem[best].q[q];
        uint32_t j = bh->job;
        if (h->nback)
            h->nback--;
        else
            berth__tiresias_hremove(s, h, 0);
        s->js[j].where = POPPED;
        const struct demand *d = &s->dem[best];
        int32_t cost = d->gpus == 0 ? 0 : d->share < 1000 ? d->share : d->gpus * 1000;
        if (add_torun(s, (struct torun){j, type, cost, START, (uint8_t)q, 1, 0}))
            return BERTH_ENOMEM;
        if (type >= 0)
            s->budget[type] -= cost;
    }
}

/* The jobs demoted into queue q in this pass, from demoted[at->ri] on (the list discipline:
 * behind q's pending jobs): each keeps its GPUs while they fit the budget (one preempted
 * earlier in the pass that fits again is to be restored), else it is preempted. */
static int scan_demoted(struct tiresias *s, const struct berth__view *v, struct scan *at)
{
    for (; at->ri < s->ndemoted; at->ri++) {
        uint32_t j = s->demoted[at->ri];
        if (s->js[j].q != at->q)
            continue;
        const struct berth__job *job = &v->jobs[j];
        int32_t type = job->gpus ? job->type : -1, cost = (int32_t)berth__tiresias_cost_of(job);
        int fits = (type < 0 || s->budget[type] >= cost) && !s->js[j].excluded;
        int running = job->state == BERTH_JOB_RUNNING;
        if (fits && !running) {
            if (add_torun(s, (struct torun){j, type, cost, RESTORE, (uint8_t)at->q, 2, at->ri}))
                return BERTH_ENOMEM;
        } else if (!fits && running && push_u32(&s->pre, &s->npre, &s->pre_cap, j)) {
            return BERTH_ENOMEM;
        }
        if (fits && type >= 0)
            s->budget[type] -= cost;
    }
    return 0;
}

/* Scans from at to the end, appending to the preempt and to-run lists. */
static int scan(struct tiresias *s, const struct berth__view *v, struct scan at)
{
    for (; at.q < s->nq; at.q++, at.phase = 0, at.ri = 0) {
        if (at.phase == 0 && scan_running(s, v, &at))
            return BERTH_ENOMEM;
        if (at.phase <= 1 && scan_pending(s, at.q))
            return BERTH_ENOMEM;
        if (at.phase <= 1)
            at.ri = 0;
        if (s->ndemoted && scan_demoted(s, v, &at))
            return BERTH_ENOMEM;
    }
    return 0;
}

/* Applies preempts from pre0 and to-run entries from tr0. Returns DONE, or FAILED / RETYPED
 * with the entry in *at, or < 0 on error. */
static int apply(struct tiresias *s, const struct berth__view *v, struct berth__plan *plan,
                 size_t pre0, size_t tr0, size_t *at, struct berth_err *err)
{
    int rc;
    for (size_t i = pre0; i < s->npre; i++)
        if (v->jobs[s->pre[i]].state == BERTH_JOB_RUNNING &&
            (rc = berth__plan_preempt(plan, s->pre[i], err)))
            return rc;
    for (size_t k = tr0; k < s->ntr; k++) {
        const struct torun *e = &s->tr[k];
        *at = k;
        if (e->kind == RESTORE && berth__plan_can_restore(plan, e->job)) {
            if ((rc = berth__plan_restore(plan, e->job, err)))
                return rc;
            continue;
        }
        rc = berth__plan_start(plan, e->job, err);
        if (rc == BERTH_NOFIT)
            return FAILED;
        if (rc)
            return rc;
        if (e->type >= 0 && v->jobs[e->job].type != e->type)
            return RETYPED;
    }
    return DONE;
}

/* Gives the pending jobs the scan took from entry k on back, in front of their heaps. */
static int unpop(struct tiresias *s, const struct berth__view *v, size_t k)
{
    for (size_t i = s->ntr; i-- > k;) { /* the latest taken first: the smallest ends last */
        if (s->tr[i].kind != START)
            continue;
        uint32_t j = s->tr[i].job;
        if (s->plain) {
            if (berth__tiresias_push_pending(s, v, j))
                return BERTH_ENOMEM;
            continue;
        }
        struct pheap *h = &s->dem[s->js[j].dm].q[s->js[j].q];
        if (BERTH_GROW(h->back, h->back_cap, h->nback + 1))
            return BERTH_ENOMEM;
        h->back[h->nback++] =
            (struct hent){berth__tiresias_fs_key(s, &v->jobs[j]), s->js[j].key, j};
        s->js[j].where = BACK;
    }
    return 0;
}

static int cmp_rank(const void *a, const void *b)
{
    const struct rank *x = a, *y = b;
    if (x->q != y->q)
        return x->q < y->q ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->job > y->job) - (x->job < y->job);
}

/* Adds job j at its place in its queue's list to tmp (sorted by sort_tmp). */
static int add_tmp(struct tiresias *s, uint32_t j)
{
    if (BERTH_GROW(s->tmp, s->tmp_cap, s->ntmp + 1))
        return BERTH_ENOMEM;
    s->tmp[s->ntmp++] = (struct rank){s->js[j].key, j, s->js[j].q};
    return 0;
}

static void sort_tmp(struct tiresias *s)
{
    if (s->ntmp > 1)
        qsort(s->tmp, s->ntmp, sizeof *s->tmp, cmp_rank);
}

/* The list discipline's end of a pass (Tiresias moves pending jobs behind running ones,
 * keeping their order): per queue the running segment is the jobs that kept running in their
 * order, then the jobs started now in their pending order, then the jobs demoted now that
 * kept running; the pending segment is the jobs preempted now from the running segment (they
 * were ahead), then the pending jobs in their order, then the demoted jobs preempted now. */
static int commit_list(struct tiresias *s, const struct berth__view *v)
{
    s->ntmp = 0; /* preempted from the running arrays */
    for (size_t i = 0; i < s->npre; i++) {
        uint32_t j = s->pre[i];
        if (s->js[j].where == RUNNING && v->jobs[j].state != BERTH_JOB_RUNNING) {
            berth__tiresias_run_remove(s, j);
            s->js[j].where = POPPED;
            if (add_tmp(s, j))
                return BERTH_ENOMEM;
        }
    }
    sort_tmp(s);
    for (size_t i = s->ntmp; i-- > 0;) { /* the first in the list ends first at the head */
        uint32_t j = s->tmp[i].job;
        s->js[j].key = --s->phead[s->js[j].q];
        if (berth__tiresias_push_pending(s, v, j))
            return BERTH_ENOMEM;
    }
    s->ntmp = 0; /* started now, and restored */
    for (size_t k = 0; k < s->ntr; k++) {
        const struct berth__job *j = &v->jobs[s->tr[k].job];
        if (j->state != BERTH_JOB_RUNNING || s->tr[k].phase == 2)
            continue;
        if (s->tr[k].kind == RESTORE) { /* it may have moved to other GPUs: refresh its type */
            berth__tiresias_run_remove(s, j->idx);
            if (berth__tiresias_run_insert(s, j))
                return BERTH_ENOMEM;
        } else if (add_tmp(s, j->idx)) {
            return BERTH_ENOMEM;
        }
    }
    sort_tmp(s);
    for (size_t i = 0; i < s->ntmp; i++) {
        const struct berth__job *j = &v->jobs[s->tmp[i].job];
        s->js[j->idx].key = ++s->rtail[s->js[j->idx].q];
        if (berth__tiresias_run_insert(s, j) || berth__tiresias_schedule_demotion(s, j))
            return BERTH_ENOMEM;
    }
    for (size_t i = 0; i < s->ndemoted; i++) { /* demoted now: at the tail of either segment */
        uint32_t j = s->demoted[i];
        int q = s->js[j].q;
        if (v->jobs[j].state == BERTH_JOB_RUNNING) {
            s->js[j].key = ++s->rtail[q];
            if (berth__tiresias_run_insert(s, &v->jobs[j]) ||
                berth__tiresias_schedule_demotion(s, &v->jobs[j]))
                return BERTH_ENOMEM;
        } else {
            s->js[j].key = ++s->ptail[q];
            if (berth__tiresias_push_pending(s, v, j))
                return BERTH_ENOMEM;
        }
    }
    s->ndemoted = 0;
    return 0;
}

/* Moves the jobs the pass changed between the running arrays and the pending heaps. */
static int commit(struct tiresias *s, const struct berth__view *v)
{
    if (s->list)
        return commit_list(s, v);
    for (size_t i = 0; i < s->npre; i++) {
        uint32_t j = s->pre[i];
        if (s->js[j].where == RUNNING && v->jobs[j].state != BERTH_JOB_RUNNING) {
            berth__tiresias_run_remove(s, j);
            if (berth__tiresias_push_pending(s, v, j))
                return BERTH_ENOMEM;
        }
    }
    for (size_t k = 0; k < s->ntr; k++) {
        const struct berth__job *j = &v->jobs[s->tr[k].job];
        if (j->state != BERTH_JOB_RUNNING)
            continue;
        if (s->tr[k].kind == RESTORE) /* it may have moved to other GPUs: refresh its type */
            berth__tiresias_run_remove(s, j->idx);
        if (berth__tiresias_run_insert(s, j) ||
            (s->tr[k].kind == START && berth__tiresias_schedule_demotion(s, j)))
            return BERTH_ENOMEM;
    }
    return 0;
}

static int plan(void *self, const struct berth__view *v, struct berth__plan *plan,
                struct berth_err *err)
{
    struct tiresias *s = self;
    if (sync(s, v))
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    for (size_t d = 0; d < s->ndem; d++)
        s->dem[d].blocked = 0;
    for (int q = 0; q < s->nq; q++) {
        struct runq *r = &s->run[q];
        if (r->npre)
            memset(r->cpre, 0, r->nc * sizeof *r->cpre);
        r->npre = 0;
    }
    for (size_t i = 0; i < s->nexcl; i++)
        s->js[s->excl[i]].excluded = 0;
    s->ntr = s->npre = s->nexcl = 0;
    memcpy(s->budget, s->total, s->ntypes * sizeof *s->budget);
    struct scan at = {0, 0, 0};
    size_t pre0 = 0, tr0 = 0, nt = s->ntypes ? s->ntypes : 1;
    for (;;) {
        if (scan(s, v, at))
            return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
        size_t k = 0;
        int rc = apply(s, v, plan, pre0, tr0, &k, err);
        if (rc < 0)
            return rc;
        pre0 = s->npre;
        if (rc == DONE)
            break;
        /* resume the scan at entry k with the budget it had there */
        struct torun e = s->tr[k];
        memcpy(s->budget, s->snaps + k * nt, s->ntypes * sizeof *s->budget);
        size_t keep = k + 1;
        if (rc == RETYPED) { /* it runs, on another type than counted */
            s->budget[v->jobs[e.job].type] -= e.cost;
        } else if (e.kind == START) { /* it stays pending; its demand is blocked */
            s->dem[s->js[e.job].dm].blocked = 1;
            keep = k;
        } else { /* a preempted job that cannot get GPUs again stays out */
            if (push_u32(&s->excl, &s->nexcl, &s->excl_cap, e.job))
                return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
            s->js[e.job].excluded = 1;
        }
        if (unpop(s, v, keep))
            return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
        s->ntr = tr0 = keep;
        at = (struct scan){e.q, e.phase, e.kind == START ? 0 : e.ri + 1};
    }
    if (commit(s, v) || fs_note_pass(s, v))
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    return 0;
}

/* Tiresias' next demotion check (exact_demotion off): for every running job below the last
 * queue, now + (limit - run time) / GPUs (dlas-gpu; dlas: limit - run time) in whole seconds,
 * floored as Python 2 divides integers. For a -gpu job that ran before this is later than
 * the instant its GPU time reaches the limit (that would be (limit - run time x GPUs) / GPUs):
 * it is demoted at the first pass after the crossing, which may be this check. */
static berth_us predicted(const struct tiresias *s, const struct berth__view *v)
{
    berth_us best = BERTH_TIME_NONE;
    for (int q = 0; q < s->nq - 1; q++)
        for (size_t c = 0; c < s->run[q].nc; c++)
            for (size_t i = 0; i < s->run[q].c[c]->n; i++) {
                const struct berth__job *j = &v->jobs[s->run[q].c[c]->a[i].job];
                int64_t left =
                    s->limit[q] / BERTH_US_PER_S - berth__job_run_us(j, v->now) / BERTH_US_PER_S;
                int64_t g = berth__tiresias_rate(s, j) > 0 ? berth__tiresias_rate(s, j) : 1;
                berth_us t = v->now + (left > 0 ? left / g : 0) * BERTH_US_PER_S;
                if (best == BERTH_TIME_NONE || t < best)
                    best = t;
            }
    return best;
}

static berth_us next_pass(void *self, const struct berth__view *v)
{
    struct tiresias *s = self;
    while (s->nheap && berth__tiresias_stale(s, v->jobs, &s->heap[0]))
        berth__tiresias_dem_pop(s);
    if (!s->nheap)
        return BERTH_TIME_NONE;
    berth_us t = s->exact ? s->heap[0].t : predicted(s, v);
    if (t == BERTH_TIME_NONE)
        return BERTH_TIME_NONE;
    return t > v->now ? t : v->now + 1;
}

const struct berth__policy_ops berth__policy_tiresias_dlas = {
    .name = "tiresias-dlas",
    .summary =
        "Tiresias' discretised LAS: queues on attained run time (3250 s, 7200 s), skip, preempt",
    .default_placement = "consolidate",
    .create = create_dlas,
    .destroy = destroy,
    .plan = plan,
    .next_pass = next_pass,
    .settings = settings,
    .nsettings = sizeof settings / sizeof *settings,
};

const struct berth__policy_ops berth__policy_tiresias_dlas_gpu = {
    .name = "tiresias-dlas-gpu",
    .summary = "Tiresias' discretised LAS on attained GPU-time (time x GPUs), skip, preempt",
    .default_placement = "consolidate",
    .create = create_dlas_gpu,
    .destroy = destroy,
    .plan = plan,
    .next_pass = next_pass,
    .settings = settings,
    .nsettings = sizeof settings / sizeof *settings,
};
