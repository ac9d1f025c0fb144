/* The generic ordering scheduler (see prio.h for its semantics and cost). */
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "sched/fairshare.h"
#include "sched/preempt_pick.h"
#include "sched/prio.h"
#include "sched/quota.h"
#include "sched/reserve.h"
#include "sched/tenant.h"

struct pent { /* a pending job: min-heap on (key, job) */
    int64_t key;
    uint32_t job;
};

struct rent {      /* a running job: key(t) = rank + slope * t; max-heap, worst on top */
    __int128 rank; /* key at start minus slope * start time: orders a heap at any time */
    uint32_t job;
    int32_t gpus;
};

struct pheap {
    int32_t gpus;
    uint64_t type_mask;
    int32_t share;    /* milli of one GPU (1000 = whole GPUs) */
    int64_t cpu, mem; /* per GPU, when the cluster models them */
    uint8_t single;
    uint8_t blocked;  /* in the current pass */
    int32_t tq, tu;   /* with quotas: the jobs' queue and user (-1: any) */
    uint32_t blocker; /* the job at its head when it was blocked (for why) */
    struct pent *a;
    size_t n, cap;
    /* jobs backfill set aside, in (key, job) order: side[sh..sn), side[sh] live when
     * sh < sn, dead entries (the job started, left, re-keyed) dropped lazily. The shape's
     * head is the better of side[sh] and a[0]: set-aside jobs skip the heap's log n. */
    struct pent *side;
    size_t sh, sn, scap;
    size_t nnew, fill; /* this pass's set-aside jobs of the shape, while they go in */
};

struct rheap { /* preemptible running jobs of one slope on one GPU type */
    int64_t slope;
    int16_t type;
    int64_t gpus; /* GPUs held by the jobs in the heap */
    struct rent *a;
    size_t n, cap;
};

enum { NOWHERE = 0, PENDING = 1, RUNNING = 2, PROTECTED = 3, ASIDE = 4 /* pending, in side */ };

struct protect { /* a running job that started at t and may not be preempted yet */
    berth_us t;
    uint32_t job;
};

struct skip { /* a job backfill set aside this pass: its key and shape then */
    int64_t key;
    uint32_t job;
    int32_t shape; /* -1: it goes back into the heap */
};

struct berth__prio {
    struct berth__prio_cfg cfg;
    struct pheap *shapes;
    size_t nshapes, shapes_cap;
    struct rheap *slopes;
    size_t nslopes, slopes_cap;
    /* per job */
    uint32_t *pos;
    uint16_t *cls;
    uint8_t *where;
    size_t jcap;
    /* scratch for one admission */
    uint32_t *victims;
    size_t nvictims, vcap;
    uint8_t *vwas; /* a reclaim's victims: where each was (protected ones stay protected) */
    size_t vwcap;
    /* running jobs inside their minimum run time, in start order (lazy deletion) */
    struct protect *prot;
    size_t prot_head, nprot, prot_cap;
    /* the controls (cfg.queues, backfill, fair-share); all absent in the plain scheduler */
    int controls; /* any of them is on */
    struct berth__tenants ten;
    struct berth__quota *quota;
    struct berth__fairshare fs;
    int has_fs;
    struct berth__reserve rs;
    int has_rs;
    /* this pass's reservation (backfill) */
    int res_on, res_type;
    berth_us res_t;
    int32_t res_extra;
    uint32_t res_job;
    int res_topo_on;              /* the reservation lies in one topology domain: */
    struct berth__rtopo res_topo; /* that domain (extra: its GPUs left over at res_t) */
    struct skip *skip;            /* jobs backfill left out of this pass (put back after it) */
    size_t nskip, skip_cap;
    int entitled; /* the last quota refusal was only the cohort's borrowers (a reclaim) */
    /* why, per job: the pass that last looked at it, what it found, who held it */
    uint32_t pass, *wpass, *wblk;
    uint8_t *wcode;
    uint32_t strict_head; /* the job a strict stop stopped at this pass, NOBODY */
    double npreempted;    /* this pass's victims that stayed preempted (cfg.max_preempt) */
    int budget_hit;       /* this pass stopped preempting at cfg.max_preempt */
    /* an admission's trial (admit_in_trial): starts are made in the plan only, and what
     * the bookkeeping needs afterwards is kept here */
    int trial, trial_on_res;
    int trial_counted; /* the trial stopped where p's gang had enough idle GPUs (count_type) */
    struct berth__slot *tslots; /* the GPUs the trial gave the job */
    size_t tslots_cap;
    uint8_t *kept; /* per victim of the trial: the job needed its GPUs */
    size_t kept_cap;
    size_t *walk; /* victims_hold's stack of heap positions */
    size_t walk_cap;
    int nofit; /* why the last try_start did not start its job (enum berth__nofit) */
    /* the fast path of admissions by preemption (admit_fast), made at the first one */
    struct berth__ppick *pp;
    const struct berth_cluster *pp_cluster;
    int pp_off;
    const struct berth__job *vjobs; /* the view's jobs, for remove_job's word to pp */
};

/* Tests only: admit_fast off (every admission by preemption runs as a trial), and how many
 * admissions admit_fast decided; a trial that needed every victim taken back and made again
 * (commit_trial off), and how many trials commit_trial kept. */
int berth__prio_no_fast, berth__prio_no_commit;
unsigned long long berth__prio_fast_used, berth__prio_commits;

/* ---- heaps with positions ---------------------------------------------------------- */

/* Both heaps are 4-ary: half the depth of a binary heap, and a node's children share a
 * cache line, which matters once hundreds of thousands of jobs wait. */
#define ARITY 4

static int pless(const struct pent *a, const struct pent *b)
{
    return a->key < b->key || (a->key == b->key && a->job < b->job);
}

static void pset(struct berth__prio *q, struct pheap *h, size_t i, struct pent e)
{
    h->a[i] = e;
    q->pos[e.job] = (uint32_t)i;
}

static void pup(struct berth__prio *q, struct pheap *h, size_t i)
{
    struct pent e = h->a[i];
    while (i > 0) {
        size_t par = (i - 1) / ARITY;
        if (!pless(&e, &h->a[par]))
            break;
        pset(q, h, i, h->a[par]);
        i = par;
    }
    pset(q, h, i, e);
}

static void pdown(struct berth__prio *q, struct pheap *h, size_t i)
{
    struct pent e = h->a[i];
    for (;;) {
        size_t first = ARITY * i + 1, c = first;
        if (first >= h->n)
            break;
        for (size_t k = first + 1; k < first + ARITY && k < h->n; k++)
            if (pless(&h->a[k], &h->a[c]))
                c = k;
        if (!pless(&h->a[c], &e))
            break;
        pset(q, h, i, h->a[c]);
        i = c;
    }
    pset(q, h, i, e);
}

/* Compares running entries of one heap (one slope) by their key at any common time. */
static int rworse(const struct rheap *h, const struct rent *a, const struct rent *b)
{
    (void)h;
    return a->rank > b->rank || (a->rank == b->rank && a->job > b->job);
}

static void rset(struct berth__prio *q, struct rheap *h, size_t i, struct rent e)
{
    h->a[i] = e;
    q->pos[e.job] = (uint32_t)i;
}

static void rup(struct berth__prio *q, struct rheap *h, size_t i)
{
    struct rent e = h->a[i];
    while (i > 0) {
        size_t par = (i - 1) / ARITY;
        if (!rworse(h, &e, &h->a[par]))
            break;
        rset(q, h, i, h->a[par]);
        i = par;
    }
    rset(q, h, i, e);
}

static void rdown(struct berth__prio *q, struct rheap *h, size_t i)
{
    struct rent e = h->a[i];
    for (;;) {
        size_t first = ARITY * i + 1, c = first;
        if (first >= h->n)
            break;
        for (size_t k = first + 1; k < first + ARITY && k < h->n; k++)
            if (rworse(h, &h->a[k], &h->a[c]))
                c = k;
        if (!rworse(h, &h->a[c], &e))
            break;
        rset(q, h, i, h->a[c]);
        i = c;
    }
    rset(q, h, i, e);
}

/* ---- keys ---------------------------------------------------------------------------- */

/* The policy's key, moved by the job's fair-share factor when the policy weighs it. */
static int64_t keyof(const struct berth__prio *q, const struct berth__job *j)
{
    if (!q->has_fs)
        return q->cfg.key(q->cfg.ctx, j);
    double f = berth__fs_factor(&q->fs, j->idx);
    if (q->cfg.fs_order) /* the fairshare policy: the factor alone, ties by arrival */
        return (int64_t)((1.0 - f) * 1e15);
    return q->cfg.key(q->cfg.ctx, j) - (int64_t)((double)q->cfg.fs_weight_us * f);
}

/* ---- classes ----------------------------------------------------------------------- */

/* Jobs of one shape ask for exactly the same resources, so when the best of them cannot
 * start, none of them can: GPUs, share, allowed types, span rule, and (when the cluster
 * models them) CPU and memory per GPU. */
static int shape_of(struct berth__prio *q, const struct berth__job *j, const struct berth__view *v)
{
    uint8_t single = j->single;
    int32_t share = berth__job_share(j);
    int cm = v->cluster->has_cpu_mem;
    int64_t cpu = cm ? berth__job_cpu_per_gpu(j) : 0, mem = cm ? berth__job_mem_per_gpu(j) : 0;
    if (v->cluster->has_gpu_mem) /* GPU memory decides fit too: fold it into the shape */
        mem = mem * 1000003 + berth_jobspec_extra(j->spec)->gpu_mem_mib;
    /* with quotas, jobs of one demand but another queue (or user, under user limits) may be
     * refused where they are not: they are shapes of their own */
    int32_t tq = q->quota ? berth__tenant_queue(&q->ten, j->idx) : -1;
    int32_t tu =
        q->quota && berth__quota_splits_users(q->quota) ? berth__tenant_user(&q->ten, j->idx) : -1;
    for (size_t i = 0; i < q->nshapes; i++) {
        struct pheap *h = &q->shapes[i];
        if (h->gpus == j->gpus && h->type_mask == j->type_mask && h->single == single &&
            h->share == share && h->cpu == cpu && h->mem == mem && h->tq == tq && h->tu == tu)
            return (int)i;
    }
    if (q->nshapes >= UINT16_MAX || BERTH_GROW(q->shapes, q->shapes_cap, q->nshapes + 1))
        return -1;
    struct pheap *h = &q->shapes[q->nshapes];
    memset(h, 0, sizeof *h);
    h->gpus = j->gpus;
    h->type_mask = j->type_mask;
    h->single = single;
    h->share = share;
    h->cpu = cpu;
    h->mem = mem;
    h->tq = tq;
    h->tu = tu;
    return (int)q->nshapes++;
}

static int slope_of(struct berth__prio *q, int64_t s, int16_t type)
{
    for (size_t i = 0; i < q->nslopes; i++)
        if (q->slopes[i].slope == s && q->slopes[i].type == type)
            return (int)i;
    if (q->nslopes >= UINT16_MAX || BERTH_GROW(q->slopes, q->slopes_cap, q->nslopes + 1))
        return -1;
    memset(&q->slopes[q->nslopes], 0, sizeof *q->slopes);
    q->slopes[q->nslopes].slope = s;
    q->slopes[q->nslopes].type = type;
    return (int)q->nslopes++;
}

static int push_pending(struct berth__prio *q, const struct berth__view *v, uint32_t j)
{
    int c = shape_of(q, &v->jobs[j], v);
    if (c < 0)
        return BERTH_ENOMEM;
    struct pheap *h = &q->shapes[c];
    if (BERTH_GROW(h->a, h->cap, h->n + 1))
        return BERTH_ENOMEM;
    q->cls[j] = (uint16_t)c;
    q->where[j] = PENDING;
    pset(q, h, h->n++, (struct pent){keyof(q, &v->jobs[j]), j});
    pup(q, h, h->n - 1);
    return 0;
}

/* Puts running job j into its slope's heap. Its key grows from key(j) at j->since. */
static int push_preemptible(struct berth__prio *q, const struct berth__job *j)
{
    int c = slope_of(q, q->cfg.slope(q->cfg.ctx, j), j->type);
    if (c < 0)
        return BERTH_ENOMEM;
    struct rheap *h = &q->slopes[c];
    if (BERTH_GROW(h->a, h->cap, h->n + 1))
        return BERTH_ENOMEM;
    h->gpus += j->gpus;
    q->cls[j->idx] = (uint16_t)c;
    q->where[j->idx] = RUNNING;
    __int128 rank = (__int128)keyof(q, j) - (__int128)h->slope * j->since;
    rset(q, h, h->n++, (struct rent){rank, j->idx, j->gpus});
    rup(q, h, h->n - 1);
    if (q->pp) /* a new victim, or a new key: its servers' summaries are stale */
        berth__ppick_touch_job(q->pp, j);
    return 0;
}

/* A job that has just started: protected for the minimum run time, if there is one. */
static int push_started(struct berth__prio *q, const struct berth__job *j)
{
    if (q->cfg.min_run_us <= 0)
        return push_preemptible(q, j);
    if (q->prot_head > 0 && q->prot_head == q->nprot)
        q->prot_head = q->nprot = 0;
    if (BERTH_GROW(q->prot, q->prot_cap, q->nprot + 1))
        return BERTH_ENOMEM;
    q->prot[q->nprot++] = (struct protect){j->since, j->idx};
    q->where[j->idx] = PROTECTED;
    return 0;
}

/* Moves jobs whose protection has ended into the preemptible heaps. */
static int expire_protection(struct berth__prio *q, const struct berth__view *v)
{
    while (q->prot_head < q->nprot && q->prot[q->prot_head].t + q->cfg.min_run_us <= v->now) {
        struct protect e = q->prot[q->prot_head++];
        const struct berth__job *j = &v->jobs[e.job];
        /* stale entries: the job finished, was requeued, or restarted later */
        if (q->where[e.job] != PROTECTED || j->since != e.t)
            continue;
        if (push_preemptible(q, j))
            return BERTH_ENOMEM;
    }
    if (q->prot_head > 4096 && q->prot_head * 2 > q->nprot) {
        memmove(q->prot, q->prot + q->prot_head, (q->nprot - q->prot_head) * sizeof *q->prot);
        q->nprot -= q->prot_head;
        q->prot_head = 0;
    }
    return 0;
}

/* Whether side entry i of shape c is its job's live place. */
static int side_live(const struct berth__prio *q, size_t c, size_t i)
{
    uint32_t j = q->shapes[c].side[i].job;
    return q->where[j] == ASIDE && q->cls[j] == c && q->pos[j] == i;
}

/* The shape's best pending job, or NULL. */
static const struct pent *phead(const struct pheap *h)
{
    if (h->sh < h->sn && (!h->n || pless(&h->side[h->sh], &h->a[0])))
        return &h->side[h->sh];
    return h->n ? &h->a[0] : NULL;
}

static void remove_job(struct berth__prio *q, uint32_t j)
{
    size_t i = q->pos[j];
    if (q->where[j] == ASIDE) { /* dead in place; the front moves past the dead */
        size_t c = q->cls[j];
        struct pheap *h = &q->shapes[c];
        q->where[j] = NOWHERE;
        while (h->sh < h->sn && !side_live(q, c, h->sh))
            h->sh++;
        if (h->sh == h->sn)
            h->sh = h->sn = h->scap; /* empty: all the room in front */
        return;
    }
    if (q->where[j] == PENDING) {
        struct pheap *h = &q->shapes[q->cls[j]];
        struct pent last = h->a[--h->n];
        if (i < h->n) {
            pset(q, h, i, last);
            pup(q, h, i);
            pdown(q, h, q->pos[last.job]);
        }
    } else if (q->where[j] == RUNNING) {
        struct rheap *h = &q->slopes[q->cls[j]];
        if (q->pp && q->vjobs) /* no victim any more: its servers' summaries are stale (it may
                                  come back on the same GPUs, which the cluster would not tell) */
            berth__ppick_touch_job(q->pp, &q->vjobs[j]);
        h->gpus -= h->a[i].gpus;
        struct rent last = h->a[--h->n];
        if (i < h->n) {
            rset(q, h, i, last);
            rup(q, h, i);
            rdown(q, h, q->pos[last.job]);
        }
    }
    q->where[j] = NOWHERE; /* a PROTECTED entry is dropped lazily */
}

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
static int note_run(struct berth__prio *q, const struct berth__job *j, int on)
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

/* Shape c's set-aside jobs back into its heap (in place: re-heaped by the caller). */
static int unaside(struct berth__prio *q, size_t c)
{
    struct pheap *h = &q->shapes[c];
    for (size_t i = h->sh; i < h->sn; i++) {
        if (!side_live(q, c, i))
            continue;
        if (BERTH_GROW(h->a, h->cap, h->n + 1))
            return BERTH_ENOMEM;
        q->where[h->side[i].job] = PENDING;
        pset(q, h, h->n++, h->side[i]);
    }
    h->sh = h->sn = h->scap;
    return 0;
}

/* Every key again (fair-share factors moved): each heap re-keyed and re-heaped, O(n). */
static int rekey_all(struct berth__prio *q, const struct berth__view *v)
{
    for (size_t c = 0; c < q->nshapes; c++) {
        struct pheap *h = &q->shapes[c];
        if (unaside(q, c))
            return BERTH_ENOMEM;
        for (size_t i = 0; i < h->n; i++)
            h->a[i].key = keyof(q, &v->jobs[h->a[i].job]);
        for (size_t i = h->n / ARITY + 1; i-- > 0;)
            if (i < h->n)
                pdown(q, h, i);
    }
    for (size_t c = 0; c < q->nslopes; c++) {
        struct rheap *h = &q->slopes[c];
        for (size_t i = 0; i < h->n; i++) {
            const struct berth__job *j = &v->jobs[h->a[i].job];
            h->a[i].rank = (__int128)keyof(q, j) - (__int128)h->slope * j->since;
        }
        for (size_t i = h->n / ARITY + 1; i-- > 0;)
            if (i < h->n)
                rdown(q, h, i);
    }
    return 0;
}

/* Brings the heaps up to date with what happened since the last pass. */
static int sync(struct berth__prio *q, const struct berth__view *v)
{
    if (grow_jobs(q, v->njobs))
        return BERTH_ENOMEM;
    for (size_t i = 0; i < v->nadopted; i++) { /* as if started at adoption */
        uint32_t j = v->adopted[i];
        if (see(q, v, j) || push_started(q, &v->jobs[j]) || note_run(q, &v->jobs[j], 1))
            return BERTH_ENOMEM;
    }
    for (size_t i = 0; i < v->nleft; i++) {
        remove_job(q, v->left[i]);
        if (note_run(q, &v->jobs[v->left[i]], 0))
            return BERTH_ENOMEM;
    }
    for (size_t i = 0; i < v->nrequeued; i++) {
        remove_job(q, v->requeued[i]);
        if (note_run(q, &v->jobs[v->requeued[i]], 0) || push_pending(q, v, v->requeued[i]))
            return BERTH_ENOMEM;
    }
    for (size_t i = 0; i < v->narrived; i++)
        if (see(q, v, v->arrived[i]) || push_pending(q, v, v->arrived[i]))
            return BERTH_ENOMEM;
    for (size_t i = 0; i < v->nreestimated; i++) /* a new estimate, a new key */
        if (berth__prio_rekey(q, v, v->reestimated[i]))
            return BERTH_ENOMEM;
    if (q->has_fs && berth__fs_update(&q->fs, v->now) && rekey_all(q, v))
        return BERTH_ENOMEM;
    return expire_protection(q, v);
}

int berth__prio_rekey(struct berth__prio *q, const struct berth__view *v, uint32_t j)
{
    if (j >= q->jcap)
        return 0; /* never seen: it is keyed when it arrives */
    int where = q->where[j];
    if (where != RUNNING && where != PENDING && where != ASIDE)
        return 0; /* protected jobs are keyed when their protection ends */
    q->vjobs = v->jobs;
    remove_job(q, j);
    return where == RUNNING ? push_preemptible(q, &v->jobs[j]) : push_pending(q, v, j);
}

/* ---- the pass ---------------------------------------------------------------------- */

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

/* The shape whose head is the best unblocked pending job, or -1. */
static int best_pending(const struct berth__prio *q)
{
    int best = -1;
    for (size_t c = 0; c < q->nshapes; c++) {
        const struct pent *e = phead(&q->shapes[c]);
        if (e && !q->shapes[c].blocked && (best < 0 || pless(e, phead(&q->shapes[best]))))
            best = (int)c;
    }
    return best;
}

/* What try_admit found when the job did not start. */
enum { NOT_FIT = 0, STARTED = 1, QUOTA = 2, BF_WAIT = 3 };

/* j started (on_res: on the reserved type of a backfill pass): it leaves the pending heaps
 * and the controls count it. In an admission's trial the start is the plan's only: what to
 * do is kept for when the trial is over (admit_in_trial). */
static int started(struct berth__prio *q, const struct berth__view *v, uint32_t j, int on_res,
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
    remove_job(q, j);
    if (push_started(q, &v->jobs[j]) || note_run(q, &v->jobs[j], 1))
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
    return started(q, v, j, 0, err);
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
    return started(q, v, j, 0, err);
}

/* try_start with the controls: type by type in cluster order, each asked of the quota gate
 * and of the reservation first. STARTED, NOT_FIT, QUOTA (every type it fits was refused by
 * a quota or limit: q->entitled says whether a reclaim may help), BF_WAIT (it would delay
 * the reserved job), or < 0. */
static int try_admit(struct berth__prio *q, const struct berth__view *v, struct berth__plan *plan,
                     uint32_t j, struct berth_err *err)
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
        return started(q, v, j, on_res, err);
    }
    return quota ? QUOTA : wait ? BF_WAIT : NOT_FIT;
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
        remove_job(q, w);
        if ((rc = berth__plan_preempt(plan, w, err)))
            return rc;
        if (note_run(q, &v->jobs[w], 0) || push_pending(q, v, w))
            return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
        q->npreempted++;
    }
    if ((rc = start_found(v, plan, pj, slots, err)))
        return rc;
    if ((rc = started(q, v, pj, on_res, err)) < 0)
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
        if (push_pending(q, v, w))
            return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
        q->npreempted++;
    }
    if (!one_server && (rc = start_found(v, plan, pj, q->tslots, err)))
        return rc;
    if ((rc = started(q, v, pj, on_res, err)) < 0)
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
 * of that type (admit_preempting then knows the rest). 1 started, 0 not (nothing changed),
 * < 0 error. */
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
            remove_job(q, w);
        else
            q->where[w] = NOWHERE; /* protected (a reclaim's victim): its entry goes lazily */
        if ((rc = berth__plan_preempt(plan, w, err)))
            break;
        if (note_run(q, &v->jobs[w], 0)) {
            rc = berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
            break;
        }
        uint64_t back = plan->taken_back;
        berth__plan_trial_mark(plan, &before_p);
        fit = try_admit(q, v, plan, pj, err);
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
            back = push_preemptible(q, &v->jobs[w]);
        if (back || note_run(q, &v->jobs[w], 1))
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
static int admit_preempting(struct berth__prio *q, const struct berth__view *v,
                            struct berth__plan *plan, const struct pent *pe, struct berth_err *err)
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
static int admit_reclaiming(struct berth__prio *q, const struct berth__view *v,
                            struct berth__plan *plan, uint32_t pj, struct berth_err *err)
{
    return admit_in_trial(q, v, plan, pj, NULL, -1, err);
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

/* Room for k entries in front of shape c's side queue: its live entries move to the end of
 * a buffer with at least k free in front. */
static int side_room(struct berth__prio *q, size_t c, size_t k)
{
    struct pheap *h = &q->shapes[c];
    if (h->sh >= k)
        return 0;
    size_t live = 0;
    for (size_t i = h->sh; i < h->sn; i++)
        live += (size_t)side_live(q, c, i);
    size_t cap = 2 * (k + live) + 16;
    struct pent *a = malloc(cap * sizeof *a);
    if (!a)
        return BERTH_ENOMEM;
    size_t at = cap;
    for (size_t i = h->sn; i-- > h->sh;)
        if (side_live(q, c, i)) {
            a[--at] = h->side[i];
            q->pos[a[at].job] = (uint32_t)at;
        }
    free(h->side);
    h->side = a;
    h->scap = cap;
    h->sh = at;
    h->sn = cap;
    return 0;
}

/* After the pass: the jobs backfill set aside wait on. Each was its shape's head when set
 * aside, so a shape's in set-aside order come before all that is left in its side queue:
 * they go in front of it, in order, unless the job's shape or key moved since (then into
 * the heap, as everything did before the side queue; cfg.aside_in_heap: always). */
static int put_aside(struct berth__prio *q, const struct berth__view *v)
{
    for (size_t i = 0; i < q->nskip; i++) {
        struct skip *s = &q->skip[i];
        int c = shape_of(q, &v->jobs[s->job], v);
        if (c < 0)
            return BERTH_ENOMEM;
        if (q->cfg.aside_in_heap || c != s->shape || keyof(q, &v->jobs[s->job]) != s->key) {
            s->shape = -1;
            if (push_pending(q, v, s->job))
                return BERTH_ENOMEM;
            continue;
        }
        q->shapes[c].nnew++;
    }
    for (size_t c = 0; c < q->nshapes; c++) {
        struct pheap *h = &q->shapes[c];
        if (!h->nnew)
            continue;
        if (side_room(q, c, h->nnew))
            return BERTH_ENOMEM;
        h->sh -= h->nnew;
        h->fill = h->sh;
        h->nnew = 0;
    }
    for (size_t i = 0; i < q->nskip; i++) {
        const struct skip *s = &q->skip[i];
        if (s->shape < 0)
            continue;
        struct pheap *h = &q->shapes[s->shape];
        size_t at = h->fill++;
        h->side[at] = (struct pent){s->key, s->job};
        q->where[s->job] = ASIDE;
        q->cls[s->job] = (uint16_t)s->shape;
        q->pos[s->job] = (uint32_t)at;
    }
    q->nskip = 0;
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
        struct pent pe = *phead(h);
        if (q->res_on && ++looked > q->cfg.backfill_depth)
            break;
        if ((rc = try_admit(q, v, plan, pe.job, err)) < 0)
            return rc;
        if (rc == STARTED)
            continue;
        if (rc == QUOTA) { /* ineligible for now: it blocks its own shape (queue, user) only */
            if (q->entitled && (rc = admit_reclaiming(q, v, plan, pe.job, err)) != 0) {
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
            remove_job(q, pe.job);
            if (BERTH_GROW(q->skip, q->skip_cap, q->nskip + 1))
                return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
            q->skip[q->nskip++] = (struct skip){pe.key, pe.job, c};
            continue;
        }
        if (q->cfg.preemptive && q->cfg.max_preempt > 0 && q->npreempted >= q->cfg.max_preempt)
            q->budget_hit = 1; /* the rest of the wave: the next pass */
        else if (q->cfg.preemptive) {
            rc = admit_preempting(q, v, plan, &pe, err);
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
    if (put_aside(q, v))
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
                 : phead(h)                         ? phead(h)->job
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
