/* Which server a gang would get first by preemption, kept per server (preempt_pick.h). */
#include <stdlib.h>
#include <string.h>

#include "sched/preempt_pick.h"

#define MAXG  8                /* gang sizes tracked at once */
#define NONE  UINT32_MAX       /* no completing job: the server cannot hold the gang */
#define SELF  (UINT32_MAX - 1) /* the server holds the gang without victims */
#define NEVER INT64_MAX        /* no crossing ahead */

struct ent { /* a server in a heap, by its completing job's line */
    __int128 rank;
    uint32_t job, server;
};

struct heap { /* max-heap on (rank, job): the worst completing job on top */
    struct ent *a;
    size_t n, cap;
};

struct cls { /* one heap per (gang size, class): a slope on a GPU type */
    int64_t slope;
    int16_t type;
};

struct ev {
    berth_us t;
    uint32_t s;
};

struct berth__ppick {
    struct berth_cluster *c;
    berth__ppick_line_fn line;
    void *ctx;
    size_t nsrv;
    int ng;
    int32_t g[MAXG];
    struct cls *cls;
    size_t ncls, clscap;
    struct heap *heaps[MAXG]; /* [gi][class] */
    size_t hcap[MAXG];
    uint32_t *cj; /* [s * MAXG + gi]: completing job, NONE or SELF */
    uint16_t *cc; /* its class */
    uint32_t *hp; /* its place in the heap */
    int32_t nself[MAXG];
    uint32_t *dirty; /* servers to summarise again, each once */
    size_t ndirty;
    uint8_t *isdirty;
    struct ev *ev; /* min-heap of crossings, stale ones skipped */
    size_t nev, evcap;
    berth_us *evt; /* per server: its live crossing, NEVER */
    /* per server, what its summary was made from: idle GPUs and who held each GPU; a change
     * the cluster reports that leaves both as they were (a placement tried and given back)
     * needs no new summary */
    uint64_t *fmask;
    uint32_t *fown; /* [s * max_per_server + g] */
};

/* A victim job on one server, for the summary. */
struct sj {
    __int128 rank;
    int64_t slope;
    uint32_t job;
    uint64_t mask; /* its GPUs on the server */
    int n;
};

static __int128 key_at(__int128 rank, int64_t slope, berth_us t)
{
    return rank + (__int128)slope * t;
}

/* a is tried before b at time t: the worse key, on a tie the higher job number */
static int before(const struct sj *a, const struct sj *b, berth_us t)
{
    __int128 ka = key_at(a->rank, a->slope, t), kb = key_at(b->rank, b->slope, t);
    return ka > kb || (ka == kb && a->job > b->job);
}

/* ---- heaps of servers ----------------------------------------------------------------- */

static int eworse(const struct ent *a, const struct ent *b)
{
    return a->rank > b->rank || (a->rank == b->rank && a->job > b->job);
}

static void eset(struct berth__ppick *pp, int gi, struct heap *h, size_t i, struct ent e)
{
    h->a[i] = e;
    pp->hp[(size_t)e.server * MAXG + (size_t)gi] = (uint32_t)i;
}

static void eup(struct berth__ppick *pp, int gi, struct heap *h, size_t i)
{
    struct ent e = h->a[i];
    while (i > 0) {
        size_t par = (i - 1) / 2;
        if (!eworse(&e, &h->a[par]))
            break;
        eset(pp, gi, h, i, h->a[par]);
        i = par;
    }
    eset(pp, gi, h, i, e);
}

static void edown(struct berth__ppick *pp, int gi, struct heap *h, size_t i)
{
    struct ent e = h->a[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && eworse(&h->a[c + 1], &h->a[c]))
            c++;
        if (!eworse(&h->a[c], &e))
            break;
        eset(pp, gi, h, i, h->a[c]);
        i = c;
    }
    eset(pp, gi, h, i, e);
}

static void heap_remove(struct berth__ppick *pp, int gi, struct heap *h, size_t i)
{
    struct ent last = h->a[--h->n];
    if (i < h->n) {
        eset(pp, gi, h, i, last);
        eup(pp, gi, h, i);
        edown(pp, gi, h, pp->hp[(size_t)last.server * MAXG + (size_t)gi]);
    }
}

static int heap_push(struct berth__ppick *pp, int gi, struct heap *h, struct ent e)
{
    if (BERTH_GROW(h->a, h->cap, h->n + 1))
        return -1;
    eset(pp, gi, h, h->n++, e);
    eup(pp, gi, h, h->n - 1);
    return 0;
}

/* The class of (slope, type), made when new (every tracked gang size gets its heap). */
static int class_of(struct berth__ppick *pp, int64_t slope, int16_t type)
{
    for (size_t k = 0; k < pp->ncls; k++)
        if (pp->cls[k].slope == slope && pp->cls[k].type == type)
            return (int)k;
    if (pp->ncls >= UINT16_MAX || BERTH_GROW(pp->cls, pp->clscap, pp->ncls + 1))
        return -1;
    for (int gi = 0; gi < pp->ng; gi++) {
        size_t old = pp->hcap[gi];
        if (BERTH_GROW(pp->heaps[gi], pp->hcap[gi], pp->ncls + 1))
            return -1;
        memset(pp->heaps[gi] + old, 0, (pp->hcap[gi] - old) * sizeof *pp->heaps[gi]);
    }
    pp->cls[pp->ncls] = (struct cls){slope, type};
    return (int)pp->ncls++;
}

/* ---- events ----------------------------------------------------------------------------- */

static int ev_push(struct berth__ppick *pp, berth_us t, uint32_t s)
{
    if (BERTH_GROW(pp->ev, pp->evcap, pp->nev + 1))
        return -1;
    size_t i = pp->nev++;
    while (i > 0 && pp->ev[(i - 1) / 2].t > t) {
        pp->ev[i] = pp->ev[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    pp->ev[i] = (struct ev){t, s};
    return 0;
}

static void ev_pop(struct berth__ppick *pp)
{
    struct ev e = pp->ev[--pp->nev];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= pp->nev)
            break;
        if (c + 1 < pp->nev && pp->ev[c + 1].t < pp->ev[c].t)
            c++;
        if (pp->ev[c].t >= e.t)
            break;
        pp->ev[i] = pp->ev[c];
        i = c;
    }
    if (pp->nev)
        pp->ev[i] = e;
}

/* The first time after now at which b is tried before a (a is now), NEVER when never. */
static berth_us flip_after(const struct sj *a, const struct sj *b, berth_us now)
{
    if (b->slope <= a->slope)
        return NEVER; /* b's key never gains on a's */
    __int128 d = a->rank - b->rank, db = (__int128)b->slope - a->slope, q;
    if (d >= INT64_MIN && d <= INT64_MAX && db <= INT64_MAX) /* a machine division */
        q = (int64_t)d / (int64_t)db;
    else
        q = d / db;
    if (q * db > d) /* floor */
        q--;
    __int128 t = q * db == d && b->job > a->job ? q : q + 1;
    if (t <= now)
        t = now + 1;
    return t >= (__int128)NEVER ? NEVER : (berth_us)t;
}

/* ---- summaries ------------------------------------------------------------------------- */

static void mark(struct berth__ppick *pp, uint32_t s)
{
    if (s < pp->nsrv && !pp->isdirty[s]) {
        pp->isdirty[s] = 1;
        pp->dirty[pp->ndirty++] = s;
    }
}

/* Server s's victims, tried-first first at time now; returns how many. */
static int collect(struct berth__ppick *pp, uint32_t s, berth_us now, struct sj *out)
{
    const struct berth_cluster *c = pp->c;
    const struct berth__server *v = &c->srv[s];
    const uint32_t *own = c->owner + (size_t)s * (size_t)c->max_per_server;
    int n = 0;
    for (int g = 0; g < v->ngpus; g++) {
        uint32_t o = own[g];
        if (o == UINT32_MAX)
            continue;
        int k = 0;
        while (k < n && out[k].job != o)
            k++;
        if (k == n) {
            struct berth__ppick_line l;
            pp->line(pp->ctx, o, &l);
            out[n++] = (struct sj){l.rank, l.slope, o, 0, l.victim ? 0 : -1};
        }
        if (out[k].n >= 0) {
            out[k].mask |= UINT64_C(1) << g;
            out[k].n++;
        }
    }
    int m = 0; /* drop the jobs that are no victims: their GPUs stay theirs */
    for (int k = 0; k < n; k++)
        if (out[k].n > 0)
            out[m++] = out[k];
    for (int i = 1; i < m; i++) { /* insertion sort: at most 64 */
        struct sj x = out[i];
        int k = i;
        for (; k > 0 && before(&x, &out[k - 1], now); k--)
            out[k] = out[k - 1];
        out[k] = x;
    }
    return m;
}

/* Whether server s is as its summary saw it (idle GPUs and owners). */
static int unchanged(const struct berth__ppick *pp, uint32_t s)
{
    size_t m = (size_t)pp->c->max_per_server;
    return pp->c->srv[s].free_mask == pp->fmask[s] &&
           !memcmp(pp->c->owner + (size_t)s * m, pp->fown + (size_t)s * m, m * sizeof *pp->fown);
}

static int summarise(struct berth__ppick *pp, uint32_t s, berth_us now)
{
    const struct berth__server *v = &pp->c->srv[s];
    size_t m = (size_t)pp->c->max_per_server;
    pp->fmask[s] = v->free_mask;
    memcpy(pp->fown + (size_t)s * m, pp->c->owner + (size_t)s * m, m * sizeof *pp->fown);
    struct sj list[BERTH_MAX_SERVER_GPUS];
    int n = v->ngpus ? collect(pp, s, now, list) : 0, ks[MAXG];
    berth_us next = NEVER;
    for (int gi = 0; gi < pp->ng; gi++) {
        size_t at = (size_t)s * MAXG + (size_t)gi;
        uint32_t old = pp->cj[at];
        int k = -1; /* the completing job's place in list */
        if (v->ngpus && v->nfree < pp->g[gi]) {
            int32_t avail = v->nfree;
            for (int i = 0; i < n && k < 0; i++)
                if ((avail += list[i].n) >= pp->g[gi])
                    k = i;
        }
        /* which job completes the server changes only when the set of jobs tried before
         * it does: when a line crosses the completing job's (once per completing job) */
        int seen = 0;
        for (int h = 0; h < gi && !seen; h++)
            seen = ks[h] == k;
        ks[gi] = k;
        for (int i = 0; k >= 0 && !seen && i < n; i++)
            if (i != k) {
                berth_us t = i < k ? flip_after(&list[i], &list[k], now)
                                   : flip_after(&list[k], &list[i], now);
                next = t < next ? t : next;
            }
        if (k >= 0 && old == list[k].job && old != NONE && old != SELF &&
            pp->cls[pp->cc[at]].slope == list[k].slope &&
            pp->heaps[gi][pp->cc[at]].a[pp->hp[at]].rank == list[k].rank)
            continue; /* the same line: its place in the heap stands */
        int self = v->ngpus && v->nfree >= pp->g[gi];
        if (!self && k >= 0 && old != NONE && old != SELF &&
            pp->cls[pp->cc[at]].slope == list[k].slope) {
            /* a new line of the same class: moved in place, one sift instead of a removal
             * and a push (the heap's top, and alone's answer, depend only on its entries) */
            struct heap *h = &pp->heaps[gi][pp->cc[at]];
            size_t i = pp->hp[at];
            pp->cj[at] = list[k].job;
            eset(pp, gi, h, i, (struct ent){list[k].rank, list[k].job, s});
            eup(pp, gi, h, i);
            edown(pp, gi, h, pp->hp[at]);
            continue;
        }
        if (old == SELF)
            pp->nself[gi]--;
        else if (old != NONE)
            heap_remove(pp, gi, &pp->heaps[gi][pp->cc[at]], pp->hp[at]);
        pp->cj[at] = NONE;
        if (self) {
            pp->cj[at] = SELF;
            pp->nself[gi]++;
        } else if (k >= 0) {
            int cl = class_of(pp, list[k].slope, (int16_t)v->type);
            if (cl < 0)
                return -1;
            pp->cc[at] = (uint16_t)cl;
            pp->cj[at] = list[k].job;
            if (heap_push(pp, gi, &pp->heaps[gi][cl], (struct ent){list[k].rank, list[k].job, s}))
                return -1;
        }
    }
    pp->evt[s] = next;
    return next != NEVER ? ev_push(pp, next, s) : 0;
}

/* Brings every summary up to time now: the cluster's changed servers, the servers marked by
 * the owner, the crossings due. */
static int bring_up(struct berth__ppick *pp, berth_us now)
{
    struct berth__changes *ch = pp->c->changes;
    for (size_t i = 0; i < ch->n; i++)
        if (!unchanged(pp, ch->list[i]))
            mark(pp, ch->list[i]);
    berth__cluster_changes_clear(pp->c);
    while (pp->nev && pp->ev[0].t <= now) {
        struct ev e = pp->ev[0];
        ev_pop(pp);
        if (pp->evt[e.s] == e.t) {
            pp->evt[e.s] = NEVER;
            mark(pp, e.s);
        }
    }
    for (size_t i = 0; i < pp->ndirty; i++) {
        uint32_t s = pp->dirty[i];
        pp->isdirty[s] = 0;
        if (summarise(pp, s, now)) { /* the rest, this one too, at the next question */
            pp->isdirty[s] = 1;
            memmove(pp->dirty, pp->dirty + i, (pp->ndirty - i) * sizeof *pp->dirty);
            pp->ndirty -= i;
            return -1;
        }
    }
    pp->ndirty = 0;
    return 0;
}

/* The index of gang size g, tracked from now on when new; -1 when MAXG are tracked, -2 out
 * of memory. */
static int track(struct berth__ppick *pp, int32_t g)
{
    for (int gi = 0; gi < pp->ng; gi++)
        if (pp->g[gi] == g)
            return gi;
    if (pp->ng == MAXG)
        return -1;
    int gi = pp->ng;
    size_t cap = pp->ncls ? pp->ncls : 1;
    if (!(pp->heaps[gi] = calloc(cap, sizeof *pp->heaps[gi])))
        return -2;
    pp->hcap[gi] = cap;
    pp->g[gi] = g;
    pp->nself[gi] = 0;
    for (size_t s = 0; s < pp->nsrv; s++) {
        pp->cj[s * MAXG + (size_t)gi] = NONE;
        mark(pp, (uint32_t)s);
    }
    pp->ng++;
    return gi;
}

/* ---- the interface ------------------------------------------------------------------- */

struct berth__ppick *berth__ppick_create(struct berth_cluster *c, berth__ppick_line_fn line,
                                         void *ctx)
{
    struct berth__ppick *pp = calloc(1, sizeof *pp);
    size_t n = c->nsrv ? c->nsrv : 1;
    if (!pp)
        return NULL;
    pp->c = c;
    pp->line = line;
    pp->ctx = ctx;
    pp->nsrv = c->nsrv;
    pp->cj = malloc(n * MAXG * sizeof *pp->cj);
    pp->cc = calloc(n * MAXG, sizeof *pp->cc);
    pp->hp = calloc(n * MAXG, sizeof *pp->hp);
    pp->dirty = malloc(n * sizeof *pp->dirty);
    pp->isdirty = calloc(n, 1);
    pp->evt = malloc(n * sizeof *pp->evt);
    pp->fmask = calloc(n, sizeof *pp->fmask);
    pp->fown = calloc(n * (size_t)(c->max_per_server ? c->max_per_server : 1), sizeof *pp->fown);
    if (!pp->cj || !pp->cc || !pp->hp || !pp->dirty || !pp->isdirty || !pp->evt || !pp->fmask ||
        !pp->fown) {
        berth__ppick_destroy(pp);
        return NULL;
    }
    for (size_t s = 0; s < n; s++)
        pp->evt[s] = NEVER;
    return pp;
}

void berth__ppick_destroy(struct berth__ppick *pp)
{
    if (!pp)
        return;
    for (int gi = 0; gi < MAXG; gi++) {
        for (size_t k = 0; pp->heaps[gi] && k < pp->hcap[gi]; k++)
            free(pp->heaps[gi][k].a);
        free(pp->heaps[gi]);
    }
    free(pp->cls);
    free(pp->cj);
    free(pp->cc);
    free(pp->hp);
    free(pp->dirty);
    free(pp->isdirty);
    free(pp->ev);
    free(pp->evt);
    free(pp->fmask);
    free(pp->fown);
    free(pp);
}

int berth__ppick_touch_job(struct berth__ppick *pp, const struct berth__job *j)
{
    if (!j->slots || !j->gpus)
        return 0;
    for (int32_t k = 0; k < berth__job_nslots(j); k++)
        if (k == 0 || j->slots[k].server != j->slots[k - 1].server)
            mark(pp, j->slots[k].server);
    return 0;
}

/* Whether heap h's top is its only entry of that line (no other server completes with the
 * same job: entries equal to the top sit among its children, the top being the largest). */
static int alone(const struct heap *h)
{
    for (size_t c = 1; c <= 2 && c < h->n; c++)
        if (h->a[c].rank == h->a[0].rank && h->a[c].job == h->a[0].job)
            return 0;
    return 1;
}

/* The victims on server s tried up to and with the line (krank, kslope, kjob) at time now. */
static int prefix(struct berth__ppick *pp, uint32_t s, berth_us now, const struct sj *last,
                  struct sj *out)
{
    struct sj all[BERTH_MAX_SERVER_GPUS];
    int n = collect(pp, s, now, all), m = 0;
    for (int k = 0; k < n; k++)
        if (all[k].job == last->job || before(&all[k], last, now))
            out[m++] = all[k];
    return m;
}

int berth__ppick_find(struct berth__ppick *pp, const struct berth__job *jobs, int t, int32_t g,
                      int64_t bar, uint32_t pj, berth_us now, struct berth__ppick_result *res)
{
    if (g < 1 || g > BERTH_MAX_SERVER_GPUS)
        return -1;
    int gi = track(pp, g);
    if (gi < 0)
        return gi == -1 ? -1 : -2;
    if (bring_up(pp, now))
        return -2;
    if (pp->nself[gi] > 0)
        return -1;
    /* the worst completing job on type t: one heap top per slope */
    struct sj best = {0, 0, NONE, 0, 0};
    const struct heap *bh = NULL;
    for (size_t k = 0; k < pp->ncls; k++) {
        const struct heap *h = &pp->heaps[gi][k];
        if (pp->cls[k].type != t || !h->n)
            continue;
        struct sj x = {h->a[0].rank, pp->cls[k].slope, h->a[0].job, 0, 0};
        if (best.job == NONE || before(&x, &best, now)) {
            best = x;
            bh = h;
        }
    }
    if (best.job == NONE)
        return 0;
    __int128 kb = key_at(best.rank, best.slope, now);
    if (!(kb > bar || (kb == bar && best.job > pj)))
        return 0; /* it is not worse than the waiting job: no server can be freed for it */
    /* the servers it completes; the placement's tightest of them: the fewest idle GPUs once
     * freed, then the last one it gave back (the head of that bucket) */
    const struct berth__slot *ks = NULL;
    int32_t nks = 1;
    struct berth__slot one = {bh->a[0].server, 0};
    if (alone(bh)) {
        ks = &one; /* the usual case: its job completes one server, the heap's top */
    } else {
        const struct berth__job *kj = &jobs[best.job];
        ks = kj->slots;
        nks = berth__job_nslots(kj);
    }
    uint32_t s_best = NONE;
    int f_best = 0, n_best = 0;
    uint64_t m_best = 0;
    struct sj buf[2][BERTH_MAX_SERVER_GPUS], *pre = buf[0], *bpre = buf[1];
    for (int32_t k = 0; k < nks; k++) {
        uint32_t s = ks[k].server;
        if ((k > 0 && s == ks[k - 1].server) || s >= pp->nsrv ||
            pp->cj[(size_t)s * MAXG + (size_t)gi] != best.job)
            continue;
        int n = prefix(pp, s, now, &best, pre);
        uint64_t m = pp->c->srv[s].free_mask;
        for (int i = 0; i < n; i++)
            m |= pre[i].mask;
        int f = __builtin_popcountll(m);
        if (s_best == NONE || f <= f_best) {
            s_best = s;
            f_best = f;
            m_best = m;
            n_best = n;
            struct sj *x = bpre; /* keep this server's victims */
            bpre = pre;
            pre = x;
        }
    }
    if (s_best == NONE || f_best < g)
        return -1; /* not what the summary said: let the trial decide */
    res->server = s_best;
    uint64_t chosen = 0, m = m_best;
    for (int32_t k = 0; k < g; k++, m &= m - 1) {
        unsigned b = (unsigned)__builtin_ctzll(m);
        chosen |= UINT64_C(1) << b;
        res->slots[k] = (struct berth__slot){s_best, b};
    }
    res->nkept = 0;
    for (int i = 0; i < n_best; i++) /* in the order tried */
        if (bpre[i].mask & chosen)
            res->kept[res->nkept++] = bpre[i].job;
    return 1;
}
