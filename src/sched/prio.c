/* The generic ordering scheduler (see prio.h for its semantics and cost). */
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "sched/prio.h"

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
    uint8_t blocked; /* in the current pass */
    struct pent *a;
    size_t n, cap;
};

struct rheap { /* preemptible running jobs of one slope on one GPU type */
    int64_t slope;
    int16_t type;
    int64_t gpus; /* GPUs held by the jobs in the heap */
    struct rent *a;
    size_t n, cap;
};

enum { NOWHERE = 0, PENDING = 1, RUNNING = 2, PROTECTED = 3 };

struct protect { /* a running job that started at t and may not be preempted yet */
    berth_us t;
    uint32_t job;
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
    /* running jobs inside their minimum run time, in start order (lazy deletion) */
    struct protect *prot;
    size_t prot_head, nprot, prot_cap;
};

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
        mem = mem * 1000003 + j->spec->gpu_mem_mib;
    for (size_t i = 0; i < q->nshapes; i++) {
        struct pheap *h = &q->shapes[i];
        if (h->gpus == j->gpus && h->type_mask == j->type_mask && h->single == single &&
            h->share == share && h->cpu == cpu && h->mem == mem)
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
    pset(q, h, h->n++, (struct pent){q->cfg.key(q->cfg.ctx, &v->jobs[j]), j});
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
    __int128 rank = (__int128)q->cfg.key(q->cfg.ctx, j) - (__int128)h->slope * j->since;
    rset(q, h, h->n++, (struct rent){rank, j->idx, j->gpus});
    rup(q, h, h->n - 1);
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

static void remove_job(struct berth__prio *q, uint32_t j)
{
    size_t i = q->pos[j];
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
    free(q->shapes);
    free(q->slopes);
    free(q->pos);
    free(q->cls);
    free(q->where);
    free(q->victims);
    free(q->prot);
    free(q);
}

static int grow_jobs(struct berth__prio *q, size_t n)
{
    if (n <= q->jcap)
        return 0;
    size_t c1 = q->jcap, c2 = q->jcap, c3 = q->jcap;
    if (BERTH_GROW(q->pos, c1, n) || BERTH_GROW(q->cls, c2, n) || BERTH_GROW(q->where, c3, n))
        return BERTH_ENOMEM;
    memset(q->where + q->jcap, NOWHERE, c3 - q->jcap);
    q->jcap = c1 < c2 ? (c1 < c3 ? c1 : c3) : (c2 < c3 ? c2 : c3);
    return 0;
}

/* Brings the heaps up to date with what happened since the last pass. */
static int sync(struct berth__prio *q, const struct berth__view *v)
{
    if (grow_jobs(q, v->njobs))
        return BERTH_ENOMEM;
    for (size_t i = 0; i < v->nadopted; i++) /* as if started at adoption */
        if (push_started(q, &v->jobs[v->adopted[i]]))
            return BERTH_ENOMEM;
    for (size_t i = 0; i < v->nleft; i++)
        remove_job(q, v->left[i]);
    for (size_t i = 0; i < v->nrequeued; i++) {
        remove_job(q, v->requeued[i]);
        if (push_pending(q, v, v->requeued[i]))
            return BERTH_ENOMEM;
    }
    for (size_t i = 0; i < v->narrived; i++)
        if (push_pending(q, v, v->arrived[i]))
            return BERTH_ENOMEM;
    for (size_t i = 0; i < v->nreestimated; i++) /* a new estimate, a new key */
        if (berth__prio_rekey(q, v, v->reestimated[i]))
            return BERTH_ENOMEM;
    return expire_protection(q, v);
}

int berth__prio_rekey(struct berth__prio *q, const struct berth__view *v, uint32_t j)
{
    if (j >= q->jcap)
        return 0; /* never seen: it is keyed when it arrives */
    int where = q->where[j];
    if (where != RUNNING && where != PENDING)
        return 0; /* protected jobs are keyed when their protection ends */
    remove_job(q, j);
    return where == RUNNING ? push_preemptible(q, &v->jobs[j]) : push_pending(q, v, j);
}

/* ---- the pass ---------------------------------------------------------------------- */

static int64_t key_now(const struct rheap *h, const struct rent *e, berth_us now)
{
    return (int64_t)(e->rank + (__int128)h->slope * now);
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
        if (!h->n || (mask && (h->type < 0 || !(mask >> h->type & 1))))
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
        const struct pheap *h = &q->shapes[c];
        if (h->n && !h->blocked && (best < 0 || pless(&h->a[0], &q->shapes[best].a[0])))
            best = (int)c;
    }
    return best;
}

/* Starts pending job j if the plan can place it: 1 started, 0 it does not fit (nothing
 * changed), < 0 error. */
static int try_start(struct berth__prio *q, const struct berth__view *v, struct berth__plan *plan,
                     uint32_t j, struct berth_err *err)
{
    if (berth__plan_fit(plan, &v->jobs[j]) < 0)
        return 0;
    int rc = berth__plan_start(plan, j, err);
    if (rc == BERTH_NOFIT)
        return 0; /* GPU counts fit, CPU or memory did not */
    if (rc)
        return rc;
    remove_job(q, j);
    if (push_started(q, &v->jobs[j]))
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    return 1;
}

/* Tries to start p by preempting running jobs with worse keys. Returns 1 if p started,
 * 0 if it could not (nothing changed), < 0 on error. */
static int admit_preempting(struct berth__prio *q, const struct berth__view *v,
                            struct berth__plan *plan, const struct pent *pe, struct berth_err *err)
{
    struct berth__job *p = &v->jobs[pe->job];
    q->nvictims = 0;
    /* give up at once when even every preemptible GPU of the allowed types would not do */
    int64_t could = 0;
    for (size_t t = 0; t < v->cluster->ntypes; t++)
        if (!p->type_mask || (p->type_mask >> t & 1))
            could += v->cluster->types[t].free;
    for (size_t c = 0; c < q->nslopes; c++)
        if (!p->type_mask || (q->slopes[c].type >= 0 && (p->type_mask >> q->slopes[c].type & 1)))
            could += q->slopes[c].gpus;
    if (could < p->gpus)
        return 0;
    int fit = 0, rc = 0;
    for (;;) {
        int c = worst_running(q, v->now, p->type_mask);
        if (c < 0)
            break;
        struct rheap *h = &q->slopes[c];
        struct rent top = h->a[0];
        int64_t k = key_now(h, &top, v->now);
        if (!(k > pe->key || (k == pe->key && top.job > pe->job)))
            break; /* every running job it could use is at least as good as p */
        remove_job(q, top.job);
        if (BERTH_GROW(q->victims, q->vcap, q->nvictims + 1))
            return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
        q->victims[q->nvictims++] = top.job;
        if ((rc = berth__plan_preempt(plan, top.job, err)))
            return rc;
        if ((fit = try_start(q, v, plan, pe->job, err)) < 0)
            return fit;
        if (fit)
            break;
    }
    /* victims p did not need (all of them when p did not fit) get their GPUs back */
    for (size_t i = q->nvictims; i-- > 0;) {
        uint32_t w = q->victims[i];
        if (berth__plan_can_restore(plan, w)) {
            if ((rc = berth__plan_restore(plan, w, err)))
                return rc;
            rc = push_preemptible(q, &v->jobs[w]); /* it was preemptible before */
        } else {
            rc = push_pending(q, v, w);
        }
        if (rc)
            return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    }
    return fit;
}

int berth__prio_plan(struct berth__prio *q, const struct berth__view *v, struct berth__plan *plan,
                     struct berth_err *err)
{
    int rc = sync(q, v);
    if (rc)
        return berth_err_set(err, rc, "policy: out of memory");
    for (size_t c = 0; c < q->nshapes; c++)
        q->shapes[c].blocked = 0;
    for (;;) {
        int c = best_pending(q);
        if (c < 0)
            break;
        struct pheap *h = &q->shapes[c];
        struct pent pe = h->a[0];
        if ((rc = try_start(q, v, plan, pe.job, err)) < 0)
            return rc;
        if (rc > 0)
            continue;
        if (q->cfg.strict)
            break;
        if (q->cfg.preemptive) {
            rc = admit_preempting(q, v, plan, &pe, err);
            if (rc < 0)
                return rc;
            if (rc > 0)
                continue;
        }
        h->blocked = 1;
    }
    return 0;
}

berth_us berth__prio_next_pass(struct berth__prio *q, const struct berth__view *v)
{
    if (q->cfg.quantum_us <= 0 || v->npending == 0)
        return BERTH_TIME_NONE;
    return (v->now / q->cfg.quantum_us + 1) * q->cfg.quantum_us;
}

int64_t berth__prio_slope_none(void *ctx, const struct berth__job *j)
{
    (void)ctx, (void)j;
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

int berth__prio_create_v(const struct berth__prio_cfg *cfg, void **self, struct berth_err *err)
{
    struct berth__prio *q = NULL;
    int rc = berth__prio_create(cfg, &q, err);
    if (!rc)
        *self = q;
    return rc;
}
