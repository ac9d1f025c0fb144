/* The tiresias policies' queues as containers (tiresias.c's top comment, "Cost"): per
 * (queue, demand) a heap of pending jobs with its run given back in front, per queue the
 * running jobs in sorted chunks with their per-type sums, and the heap of demotion instants. */
#include <stdlib.h>
#include <string.h>

#include "policy/tiresias_int.h"

/* ---- attained service and demotion instants ------------------------------------------ */

/* The first instant a running job's attained service reaches limit (its service is folded
 * at since and grows at rate per microsecond), or BERTH_TIME_NONE when it never grows. */
static berth_us crossing(const struct tiresias *s, const struct berth__job *j, berth_us limit)
{
    int64_t a = berth__tiresias_attained(s, j), r = berth__tiresias_rate(s, j);
    if (r <= 0)
        return BERTH_TIME_NONE;
    if (a >= limit)
        return j->since;
    return j->since + (limit - a + r - 1) / r;
}

/* ---- pending heaps ------------------------------------------------------------------- */

int berth__tiresias_hless(const struct hent *a, const struct hent *b)
{
    if (a->fk != b->fk)
        return a->fk < b->fk;
    return a->key < b->key || (a->key == b->key && a->job < b->job);
}

/* A pending job's fair-share key: its attained service less the weight times its factor
 * (0 for every job without fair-share, so the order is the discipline's alone). */
int64_t berth__tiresias_fs_key(const struct tiresias *s, const struct berth__job *j)
{
    if (!s->has_fs)
        return 0;
    return berth__tiresias_attained(s, j) -
           (int64_t)((double)s->fs_weight * berth__fs_factor(&s->fs, j->idx));
}

static void hset(struct tiresias *s, struct pheap *h, size_t i, struct hent e)
{
    h->a[i] = e;
    s->js[e.job].pos = (uint32_t)i;
}

static void hup(struct tiresias *s, struct pheap *h, size_t i)
{
    struct hent e = h->a[i];
    for (; i > 0 && berth__tiresias_hless(&e, &h->a[(i - 1) / 2]); i = (i - 1) / 2)
        hset(s, h, i, h->a[(i - 1) / 2]);
    hset(s, h, i, e);
}

void berth__tiresias_hdown(struct tiresias *s, struct pheap *h, size_t i)
{
    struct hent e = h->a[i];
    for (size_t c; (c = 2 * i + 1) < h->n; i = c) {
        if (c + 1 < h->n && berth__tiresias_hless(&h->a[c + 1], &h->a[c]))
            c++;
        if (!berth__tiresias_hless(&h->a[c], &e))
            break;
        hset(s, h, i, h->a[c]);
    }
    hset(s, h, i, e);
}

/* The first pending entry of h: the last given back, else the heap's top; NULL if none. */
const struct hent *berth__tiresias_phead(const struct pheap *h)
{
    return h->nback ? &h->back[h->nback - 1] : h->n ? &h->a[0] : NULL;
}

void berth__tiresias_hremove(struct tiresias *s, struct pheap *h, size_t i)
{
    struct hent last = h->a[--h->n];
    if (i < h->n) {
        hset(s, h, i, last);
        hup(s, h, i);
        berth__tiresias_hdown(s, h, s->js[last.job].pos);
    }
}

/* The demand of j: its heap index, or -1 when out of memory. */
static int demand_of(struct tiresias *s, const struct berth__job *j, const struct berth_cluster *c)
{
    struct demand k = {.gpus = j->gpus,
                       .share = berth__job_share(j),
                       .type_mask = j->type_mask,
                       .single = j->single};
    if (c->has_cpu_mem) {
        k.cpu = berth__job_cpu_per_gpu(j);
        k.mem = berth__job_mem_per_gpu(j);
    }
    if (c->has_gpu_mem)
        k.mem = k.mem * 1000003 + berth_jobspec_extra(j->spec)->gpu_mem_mib;
    for (size_t i = 0; i < s->ndem; i++) {
        const struct demand *d = &s->dem[i];
        if (d->gpus == k.gpus && d->share == k.share && d->type_mask == k.type_mask &&
            d->single == k.single && d->cpu == k.cpu && d->mem == k.mem)
            return (int)i;
    }
    if (s->ndem >= UINT16_MAX || BERTH_GROW(s->dem, s->dem_cap, s->ndem + 1))
        return -1;
    s->dem[s->ndem] = k;
    return (int)s->ndem++;
}

/* The run in front of h goes back into the heap (into room it keeps for it). */
void berth__tiresias_rejoin(struct tiresias *s, struct pheap *h)
{
    for (; h->nback; h->nback--) {
        s->js[h->back[h->nback - 1].job].where = PENDING;
        hset(s, h, h->n++, h->back[h->nback - 1]);
        hup(s, h, h->n - 1);
    }
}

/* Job j (where BACK) leaves the run in front of h. */
void berth__tiresias_back_remove(struct tiresias *s, struct pheap *h, uint32_t j)
{
    size_t i = 0;
    while (i < h->nback && h->back[i].job != j)
        i++;
    if (i < h->nback)
        memmove(h->back + i, h->back + i + 1, (h->nback - i - 1) * sizeof *h->back);
    h->nback -= i < h->nback;
    s->js[j].where = NOWHERE;
}

int berth__tiresias_push_pending(struct tiresias *s, const struct berth__view *v, uint32_t j)
{
    int d = demand_of(s, &v->jobs[j], v->cluster);
    if (d < 0)
        return BERTH_ENOMEM;
    struct pheap *h = &s->dem[d].q[s->js[j].q];
    if (BERTH_GROW(h->a, h->cap, h->n + h->nback + 1))
        return BERTH_ENOMEM;
    s->js[j].dm = (uint16_t)d;
    struct hent e = {berth__tiresias_fs_key(s, &v->jobs[j]), s->js[j].key, j};
    if (h->nback >= BACK_MAX)
        berth__tiresias_rejoin(s, h);
    if (h->nback &&
        berth__tiresias_hless(&e, &h->back[0])) { /* before the run's largest: into the run */
        if (BERTH_GROW(h->back, h->back_cap, h->nback + 1))
            return BERTH_ENOMEM;
        size_t i = h->nback; /* after every entry larger than e */
        while (i > 0 && berth__tiresias_hless(&h->back[i - 1], &e))
            i--;
        memmove(h->back + i + 1, h->back + i, (h->nback - i) * sizeof *h->back);
        h->back[i] = e;
        h->nback++;
        s->js[j].where = BACK;
        return 0;
    }
    s->js[j].where = PENDING;
    hset(s, h, h->n++, e);
    hup(s, h, h->n - 1);
    return 0;
}

/* ---- running chunks ------------------------------------------------------------------ */

/* Takes a block of running jobs (their per-type sums) from the budget when all of them fit:
 * 1 taken, 0 not. */
int berth__tiresias_take_block(struct tiresias *s, const int64_t *sum)
{
    for (size_t t = 0; t < s->ntypes; t++)
        if (s->budget[t] < sum[t])
            return 0;
    for (size_t t = 0; t < s->ntypes; t++)
        s->budget[t] -= sum[t];
    return 1;
}

/* Adds (sign 1) or takes away (-1) entry e from chunk ci's and its queue's sums. */
static void count(struct runq *r, size_t ci, const struct rent *e, int sign)
{
    if (e->type >= 0) {
        r->sum[e->type] += sign * e->cost;
        r->csum[ci * r->nt + (size_t)e->type] += sign * e->cost;
    }
}

static int rless(const struct rent *e, berth_us key, uint32_t job)
{
    return e->key < key || (e->key == key && e->job < job);
}

/* Where (key, job) is or would go: chunk *ci (the first whose last entry is not before it,
 * else the last chunk) and index *k in it. r must have a chunk. */
static void run_locate(const struct runq *r, berth_us key, uint32_t job, size_t *ci, size_t *k)
{
    size_t lo = 0, hi = r->nc - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct chunk *c = r->c[mid];
        if (rless(&c->a[c->n - 1], key, job))
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct chunk *c = r->c[lo];
    size_t l = 0, h = c->n;
    while (l < h) {
        size_t mid = l + (h - l) / 2;
        if (rless(&c->a[mid], key, job))
            l = mid + 1;
        else
            h = mid;
    }
    *ci = lo;
    *k = l;
}

int berth__tiresias_run_insert(struct tiresias *s, const struct berth__job *j)
{
    struct runq *r = &s->run[s->js[j->idx].q];
    struct rent e = {s->js[j->idx].key, j->idx, (int32_t)berth__tiresias_cost_of(j),
                     j->gpus ? j->type : -1};
    size_t ci = 0, k = 0;
    if (r->nc)
        run_locate(r, e.key, e.job, &ci, &k);
    size_t half = r->chunk / 2;
    if (!r->nc || r->c[ci]->n == r->chunk) { /* a first chunk, or split a full one */
        size_t nt = r->nt;
        struct chunk *c = calloc(1, sizeof *c + r->chunk * sizeof c->a[0]);
        if (!c || BERTH_GROW(r->c, r->ccap, r->nc + 1) ||
            BERTH_GROW(r->csum, r->csum_cap, (r->nc + 1) * nt) ||
            BERTH_GROW(r->cpre, r->cpre_cap, r->nc + 1)) {
            free(c);
            return BERTH_ENOMEM;
        }
        size_t at = r->nc ? ci + 1 : 0;
        memmove(r->c + at + 1, r->c + at, (r->nc - at) * sizeof *r->c);
        memmove(r->csum + (at + 1) * nt, r->csum + at * nt, (r->nc - at) * nt * sizeof *r->csum);
        memmove(r->cpre + at + 1, r->cpre + at, (r->nc - at) * sizeof *r->cpre);
        memset(r->csum + at * nt, 0, nt * sizeof *r->csum);
        r->cpre[at] = 0; /* chunks change only between passes */
        r->c[at] = c;
        r->nc++;
        if (at > 0) { /* the upper part moves to the new chunk, with its share of the sums */
            struct chunk *full = r->c[ci];
            c->n = r->chunk - half;
            memcpy(c->a, full->a + half, c->n * sizeof *c->a);
            full->n = half;
            for (size_t i = 0; i < c->n; i++)
                if (c->a[i].type >= 0) {
                    r->csum[at * nt + (size_t)c->a[i].type] += c->a[i].cost;
                    r->csum[ci * nt + (size_t)c->a[i].type] -= c->a[i].cost;
                }
            if (k > half) {
                ci++;
                k -= half;
            }
        }
    }
    struct chunk *c = r->c[ci];
    memmove(c->a + k + 1, c->a + k, (c->n - k) * sizeof *c->a);
    c->a[k] = e;
    c->n++;
    count(r, ci, &e, 1);
    s->js[j->idx].where = RUNNING;
    return 0;
}

void berth__tiresias_run_remove(struct tiresias *s, uint32_t j)
{
    struct runq *r = &s->run[s->js[j].q];
    size_t ci, k;
    run_locate(r, s->js[j].key, j, &ci, &k);
    struct chunk *c = r->c[ci];
    count(r, ci, &c->a[k], -1);
    memmove(c->a + k, c->a + k + 1, (c->n - k - 1) * sizeof *c->a);
    if (--c->n == 0) {
        free(c);
        size_t after = r->nc - ci - 1;
        memmove(r->c + ci, r->c + ci + 1, after * sizeof *r->c);
        memmove(r->csum + ci * r->nt, r->csum + (ci + 1) * r->nt, after * r->nt * sizeof *r->csum);
        memmove(r->cpre + ci, r->cpre + ci + 1, after * sizeof *r->cpre);
        r->nc--;
    }
    s->js[j].where = NOWHERE;
}

/* ---- demotion heap ------------------------------------------------------------------- */

static int dless(const struct demote *a, const struct demote *b)
{
    return a->t < b->t || (a->t == b->t && a->job < b->job);
}

static int dem_push(struct tiresias *s, struct demote e)
{
    if (BERTH_GROW(s->heap, s->heap_cap, s->nheap + 1))
        return BERTH_ENOMEM;
    size_t i = s->nheap++;
    for (; i > 0 && dless(&e, &s->heap[(i - 1) / 2]); i = (i - 1) / 2)
        s->heap[i] = s->heap[(i - 1) / 2];
    s->heap[i] = e;
    return 0;
}

struct demote berth__tiresias_dem_pop(struct tiresias *s)
{
    struct demote top = s->heap[0], e = s->heap[--s->nheap];
    size_t i = 0;
    for (size_t c; (c = 2 * i + 1) < s->nheap; i = c) {
        if (c + 1 < s->nheap && dless(&s->heap[c + 1], &s->heap[c]))
            c++;
        if (!dless(&s->heap[c], &e))
            break;
        s->heap[i] = s->heap[c];
    }
    if (s->nheap)
        s->heap[i] = e;
    return top;
}

/* Predicts when running job j leaves its queue (nothing to predict in the last one). */
int berth__tiresias_schedule_demotion(struct tiresias *s, const struct berth__job *j)
{
    int q = s->js[j->idx].q;
    if (q >= s->nq - 1)
        return 0;
    berth_us t = crossing(s, j, s->limit[q]);
    return t == BERTH_TIME_NONE ? 0 : dem_push(s, (struct demote){t, j->idx, (uint8_t)q});
}

int berth__tiresias_stale(const struct tiresias *s, const struct berth__job *jobs,
                          const struct demote *e)
{
    const struct berth__job *j = &jobs[e->job];
    int where = s->js[e->job].where;
    return (where != RUNNING && where != DEMOTED) || j->state != BERTH_JOB_RUNNING ||
           s->js[e->job].q != e->q || crossing(s, j, s->limit[e->q]) != e->t;
}
