/* The ordering scheduler's places for jobs: pending jobs in a heap per shape (with the side
 * queue of those backfill set aside), preemptible running jobs in a heap per slope and GPU
 * type, protected ones in a queue by start time; the keys that order them. */
#include <stdlib.h>
#include <string.h>

#include "sched/prio_int.h"

/* ---- heaps with positions ---------------------------------------------------------- */

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
        if (!berth__prio_pless(&e, &h->a[par]))
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
            if (berth__prio_pless(&h->a[k], &h->a[c]))
                c = k;
        if (!berth__prio_pless(&h->a[c], &e))
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

int berth__prio_push_pending(struct berth__prio *q, const struct berth__view *v, uint32_t j)
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
int berth__prio_push_preemptible(struct berth__prio *q, const struct berth__job *j)
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
int berth__prio_push_started(struct berth__prio *q, const struct berth__job *j)
{
    if (q->cfg.min_run_us <= 0)
        return berth__prio_push_preemptible(q, j);
    if (q->prot_head > 0 && q->prot_head == q->nprot)
        q->prot_head = q->nprot = 0;
    if (BERTH_GROW(q->prot, q->prot_cap, q->nprot + 1))
        return BERTH_ENOMEM;
    q->prot[q->nprot++] = (struct protect){j->since, j->idx};
    q->where[j->idx] = PROTECTED;
    return 0;
}

/* Moves jobs whose protection has ended into the preemptible heaps. */
int berth__prio_expire_protection(struct berth__prio *q, const struct berth__view *v)
{
    while (q->prot_head < q->nprot && q->prot[q->prot_head].t + q->cfg.min_run_us <= v->now) {
        struct protect e = q->prot[q->prot_head++];
        const struct berth__job *j = &v->jobs[e.job];
        /* stale entries: the job finished, was requeued, or restarted later */
        if (q->where[e.job] != PROTECTED || j->since != e.t)
            continue;
        if (berth__prio_push_preemptible(q, j))
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

void berth__prio_remove_job(struct berth__prio *q, uint32_t j)
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
int berth__prio_rekey_all(struct berth__prio *q, const struct berth__view *v)
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
int berth__prio_put_aside(struct berth__prio *q, const struct berth__view *v)
{
    for (size_t i = 0; i < q->nskip; i++) {
        struct skip *s = &q->skip[i];
        int c = shape_of(q, &v->jobs[s->job], v);
        if (c < 0)
            return BERTH_ENOMEM;
        if (q->cfg.aside_in_heap || c != s->shape || keyof(q, &v->jobs[s->job]) != s->key) {
            s->shape = -1;
            if (berth__prio_push_pending(q, v, s->job))
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
