/* blox-las and blox-fifo: the Las and Fifo schedulers of Blox (EuroSys'24) with Blox's
 * placement loop, re-planned at every pass and asking for a pass every round (the
 * parameters' round_us, default 300 s; rounds on a grid from time 0) while jobs exist.
 *
 * Order. blox-fifo: job number (submit order). blox-las: ascending (job priority, attained
 * service, job number), where
 *   - attained service counts whole rounds run, whatever the gang size: at each round
 *     boundary g (a multiple of the round length from time 0) every job that has held GPUs
 *     without a break since g - round or earlier gains one round. With passes only at round
 *     ends (Blox's own time) that is Blox's "+round per round run"; in plain DES a round a
 *     job only partly ran is not counted;
 *   - job priority is 999 and drops to 1, for good, once a job has waited 1000 h (3.6 M s,
 *     Blox's fixed threshold) without holding GPUs, counted from its arrival or from the
 *     last time it was stopped. That is the starvation guard. (Blox's counter for a job it
 *     stopped starts one round later, so there the drop comes one round later too.)
 *
 * Placement loop (Blox's `place`). Walk the order; running jobs stay. A pending job starts
 * on idle GPUs if it fits; otherwise running jobs are evicted from the tail of the order
 * (lowest priority first, only jobs after it), one at a time, until it can be placed. If it
 * still cannot, the evictions stand and the loop stops: nothing behind it starts (no
 * backfill). A job evicted earlier in the same pass is reached again later in the walk and
 * gets its own GPUs back when they are still idle (then nothing happened to it). Preemption
 * is free and unlimited.
 *
 * Blox's placement bugs are not reproduced: a gang takes exactly the GPUs it still needs
 * from each server (Blox's scattered placement may overshoot and fail), and the tightest
 * server is really used (Blox's consolidated placement only accepts exact fits). Placement
 * is berth's (--placement, default consolidate).
 *
 * Cost: pending jobs sit in a min-heap, running jobs in a max-heap on the order, so a pass
 * costs O((starts + evictions) log n); each round boundary re-keys the running jobs (O(n)). */
#include <stdlib.h>
#include <string.h>

#include "policy/blox.h"
#include "sched/plan.h"

#define STARVE_US (3600LL * 1000 * BERTH_US_PER_S) /* Blox's priority_thresh, 1000 h */

enum { NOWHERE = 0, PENDING = 1, RUNNING = 2 };

struct key {        /* the order: lower first */
    int64_t prio;   /* 1 once starved, else 999 (blox-fifo: always 999) */
    int64_t rounds; /* whole rounds run (blox-fifo: 0) */
    uint32_t job;
};

struct heap {
    struct key *a;
    size_t n, cap;
    int max; /* 1: the worst job on top (running), 0: the best (pending) */
};

struct wait { /* job started waiting at t (stale once it ran again) */
    berth_us t;
    uint32_t job;
};

struct jstate {          /* the policy's view of one job */
    int64_t rounds;      /* whole rounds run */
    berth_us wait_since; /* waiting since (arrival or last stop) */
    berth_us run_since;  /* holding GPUs without a break since */
    uint32_t pos;        /* index in its heap */
    uint8_t starved;     /* priority 1 for good */
    uint8_t where;       /* NOWHERE, PENDING or RUNNING */
    uint8_t victim;      /* it was running when this pass evicted it */
};

struct blox {
    int las;
    berth_us round, starve;
    int64_t last_round; /* index of the last round boundary credited, -1 before the first */
    struct heap pend, run;
    struct wait *waits; /* in time order; head at wait0 */
    size_t wait0, nwaits, waits_cap;
    struct jstate *js; /* per job */
    size_t jcap;
    /* per pass */
    uint32_t *touched;
    size_t ntouched, touched_cap;
};

/* ---- heaps with positions ------------------------------------------------------------ */

static int kless(const struct key *a, const struct key *b)
{
    if (a->prio != b->prio)
        return a->prio < b->prio;
    if (a->rounds != b->rounds)
        return a->rounds < b->rounds;
    return a->job < b->job;
}

/* 1 when a belongs above b in heap h. */
static int above(const struct heap *h, const struct key *a, const struct key *b)
{
    return h->max ? kless(b, a) : kless(a, b);
}

static void hset(struct blox *s, struct heap *h, size_t i, struct key k)
{
    h->a[i] = k;
    s->js[k.job].pos = (uint32_t)i;
}

static void hup(struct blox *s, struct heap *h, size_t i)
{
    struct key k = h->a[i];
    for (; i > 0 && above(h, &k, &h->a[(i - 1) / 2]); i = (i - 1) / 2)
        hset(s, h, i, h->a[(i - 1) / 2]);
    hset(s, h, i, k);
}

static void hdown(struct blox *s, struct heap *h, size_t i)
{
    struct key k = h->a[i];
    for (size_t c; (c = 2 * i + 1) < h->n; i = c) {
        if (c + 1 < h->n && above(h, &h->a[c + 1], &h->a[c]))
            c++;
        if (!above(h, &h->a[c], &k))
            break;
        hset(s, h, i, h->a[c]);
    }
    hset(s, h, i, k);
}

static struct key key_of(const struct blox *s, uint32_t j)
{
    return (struct key){s->js[j].starved ? 1 : 999, s->js[j].rounds, j};
}

static int hpush(struct blox *s, struct heap *h, uint32_t j)
{
    if (BERTH_GROW(h->a, h->cap, h->n + 1))
        return BERTH_ENOMEM;
    hset(s, h, h->n++, key_of(s, j));
    hup(s, h, h->n - 1);
    s->js[j].where = h == &s->pend ? PENDING : RUNNING;
    return 0;
}

static void hremove(struct blox *s, uint32_t j)
{
    struct heap *h = s->js[j].where == PENDING ? &s->pend : &s->run;
    size_t i = s->js[j].pos;
    struct key last = h->a[--h->n];
    if (i < h->n) {
        hset(s, h, i, last);
        hup(s, h, i);
        hdown(s, h, s->js[last.job].pos);
    }
    s->js[j].where = NOWHERE;
}

/* ---- life cycle ---------------------------------------------------------------------- */

static void destroy(void *self)
{
    struct blox *s = self;
    if (!s)
        return;
    free(s->pend.a);
    free(s->run.a);
    free(s->waits);
    free(s->js);
    free(s->touched);
    free(s);
}

static int create(const struct berth__params *p, int las, void **self, struct berth_err *err)
{
    if (p->round_us < 0)
        return berth_err_set(err, BERTH_EINPUT, "round length: must not be negative");
    struct blox *s = calloc(1, sizeof *s);
    if (!s)
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    s->las = las;
    s->round = p->round_us ? p->round_us : 300 * BERTH_US_PER_S;
    s->starve = STARVE_US;
    s->last_round = -1;
    s->run.max = 1;
    *self = s;
    return 0;
}

static int create_las(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create(p, 1, self, err);
}

static int create_fifo(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create(p, 0, self, err);
}

void berth__blox_set_starvation(void *self, berth_us wait_us)
{
    ((struct blox *)self)->starve = wait_us;
}

static int grow_jobs(struct blox *s, size_t n)
{
    size_t old = s->jcap;
    if (n <= old || BERTH_GROW(s->js, s->jcap, n))
        return n <= old ? 0 : BERTH_ENOMEM;
    memset(s->js + old, 0, (s->jcap - old) * sizeof *s->js); /* NOWHERE, no victim */
    return 0;
}

/* Job j's starvation clock starts now. */
static int start_clock(struct blox *s, uint32_t j, berth_us now)
{
    s->js[j].wait_since = now;
    if (!s->las)
        return 0;
    if (s->wait0 > 0 && s->wait0 == s->nwaits)
        s->wait0 = s->nwaits = 0;
    if (BERTH_GROW(s->waits, s->waits_cap, s->nwaits + 1))
        return BERTH_ENOMEM;
    s->waits[s->nwaits++] = (struct wait){now, j};
    return 0;
}

/* Job j starts waiting now: it goes to the pending heap and its starvation clock starts. */
static int start_waiting(struct blox *s, uint32_t j, berth_us now)
{
    return start_clock(s, j, now) || hpush(s, &s->pend, j) ? BERTH_ENOMEM : 0;
}

/* Credits the round boundaries in (last credited, now] to the jobs running through them,
 * and keeps the running heap's order. Most running jobs gain all of them (kr - last_round
 * rounds): that shifts their keys alike, which keeps a parent above its children. Only a
 * job that gains fewer (it started since) falls against its children, so only it sinks;
 * walking from the bottom up, every subtree below is a heap by then. O(running jobs), with
 * a sift only for the jobs that started within the last rounds. */
static void credit_rounds(struct blox *s, berth_us now)
{
    int64_t kr = now / s->round;
    if (kr <= s->last_round)
        return;
    for (size_t i = s->run.n; i-- > 0;) {
        uint32_t j = s->run.a[i].job;
        /* boundaries k * round with k in (last_round, kr] and k * round >= run_since + round */
        int64_t kmin = (s->js[j].run_since + s->round + s->round - 1) / s->round;
        if (kmin <= s->last_round)
            kmin = s->last_round + 1;
        if (kr >= kmin)
            s->js[j].rounds += kr - kmin + 1;
        s->run.a[i].rounds = s->js[j].rounds;
        if (kmin > s->last_round + 1) /* gained fewer than all: may sink below a child */
            hdown(s, &s->run, i);
    }
    s->last_round = kr;
}

/* Jobs that have waited the starvation threshold by now get priority 1 for good. */
static void starve(struct blox *s, berth_us now)
{
    while (s->wait0 < s->nwaits && s->waits[s->wait0].t + s->starve <= now) {
        struct wait w = s->waits[s->wait0++];
        if (s->js[w.job].where != PENDING || s->js[w.job].wait_since != w.t || s->js[w.job].starved)
            continue;
        s->js[w.job].starved = 1;
        s->pend.a[s->js[w.job].pos] = key_of(s, w.job);
        hup(s, &s->pend, s->js[w.job].pos);
    }
    if (s->wait0 > 4096 && s->wait0 * 2 > s->nwaits) {
        memmove(s->waits, s->waits + s->wait0, (s->nwaits - s->wait0) * sizeof *s->waits);
        s->nwaits -= s->wait0;
        s->wait0 = 0;
    }
}

static int sync(struct blox *s, const struct berth__view *v)
{
    if (grow_jobs(s, v->njobs))
        return BERTH_ENOMEM;
    if (s->last_round < 0)
        s->last_round = v->now / s->round;     /* nothing ran before the first pass */
    for (size_t i = 0; i < v->nadopted; i++) { /* running already: as if started now */
        uint32_t j = v->adopted[i];
        s->js[j].rounds = 0;
        s->js[j].starved = 0;
        s->js[j].run_since = v->now;
        if (hpush(s, &s->run, j))
            return BERTH_ENOMEM;
    }
    for (size_t i = 0; i < v->nleft; i++)
        if (s->js[v->left[i]].where != NOWHERE)
            hremove(s, v->left[i]);
    for (size_t i = 0; i < v->nrequeued; i++) {
        uint32_t j = v->requeued[i];
        if (s->js[j].where != NOWHERE)
            hremove(s, j);
        if (start_waiting(s, j, v->now))
            return BERTH_ENOMEM;
    }
    for (size_t i = 0; i < v->narrived; i++) {
        uint32_t j = v->arrived[i];
        s->js[j].rounds = 0;
        s->js[j].starved = 0;
        if (start_waiting(s, j, v->now))
            return BERTH_ENOMEM;
    }
    if (s->las) {
        credit_rounds(s, v->now);
        starve(s, v->now);
    }
    return 0;
}

/* ---- the pass ------------------------------------------------------------------------ */

static int touch(struct blox *s, uint32_t j)
{
    if (BERTH_GROW(s->touched, s->touched_cap, s->ntouched + 1))
        return BERTH_ENOMEM;
    s->touched[s->ntouched++] = j;
    return 0;
}

/* Starts pending job j if it can be placed now (a job evicted in this pass gets its own GPUs
 * back when it can): 1 started, 0 not (nothing changed), < 0 error. */
static int try_start(struct blox *s, const struct berth__view *v, struct berth__plan *plan,
                     uint32_t j, struct berth_err *err)
{
    if (s->js[j].victim && berth__plan_can_restore(plan, j)) {
        int rc = berth__plan_restore(plan, j, err);
        return rc ? rc : 1;
    }
    if (berth__plan_fit(plan, &v->jobs[j]) < 0)
        return 0;
    int rc = berth__plan_start(plan, j, err);
    return rc == BERTH_NOFIT ? 0 : rc ? rc : 1;
}

/* Evicts running jobs after pending job p in the order, from the tail, until p starts.
 * Returns 1 when p started, 0 when even that did not place it, < 0 on error. */
static int evict_for(struct blox *s, const struct berth__view *v, struct berth__plan *plan,
                     uint32_t p, struct berth_err *err)
{
    struct key kp = key_of(s, p);
    while (s->run.n && kless(&kp, &s->run.a[0])) {
        uint32_t w = s->run.a[0].job;
        hremove(s, w);
        int rc = berth__plan_preempt(plan, w, err);
        if (rc)
            return rc;
        if (!s->js[w].victim && touch(s, w))
            return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
        s->js[w].victim = 1;
        if (hpush(s, &s->pend, w)) /* after p in the order: p stays on top */
            return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
        if ((rc = try_start(s, v, plan, p, err)))
            return rc;
    }
    return 0;
}

/* Settles what the pass did: started jobs begin their run (a victim that got GPUs back
 * ran on without a break), stopped ones begin waiting. */
static int commit(struct blox *s, const struct berth__view *v)
{
    for (size_t i = 0; i < s->ntouched; i++) {
        uint32_t j = s->touched[i];
        int was_running = s->js[j].victim;
        s->js[j].victim = 0;
        if (v->jobs[j].state == BERTH_JOB_RUNNING) {
            if (!was_running)
                s->js[j].run_since = v->now;
        } else if (s->js[j].where == PENDING && start_clock(s, j, v->now)) {
            /* evicted: pending already, on its key (the pass changes no key), and its
             * starvation clock restarts */
            return BERTH_ENOMEM;
        }
    }
    s->ntouched = 0;
    return 0;
}

static int plan(void *self, const struct berth__view *v, struct berth__plan *plan,
                struct berth_err *err)
{
    struct blox *s = self;
    if (sync(s, v))
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    while (s->pend.n) {
        uint32_t p = s->pend.a[0].job;
        int rc = try_start(s, v, plan, p, err);
        if (rc == 0)
            rc = evict_for(s, v, plan, p, err);
        if (rc < 0)
            return rc;
        if (rc == 0)
            break; /* Blox stops at the first job it cannot place */
        hremove(s, p);
        if ((!s->js[p].victim && touch(s, p)) || hpush(s, &s->run, p))
            return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    }
    if (commit(s, v))
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    return 0;
}

static berth_us next_pass(void *self, const struct berth__view *v)
{
    struct blox *s = self;
    if (v->npending + v->nrunning == 0)
        return BERTH_TIME_NONE;
    return (v->now / s->round + 1) * s->round;
}

const struct berth__policy_ops berth__policy_blox_las = {
    .name = "blox-las",
    .summary = "Blox's Las: fewest rounds run first, 1000 h starvation guard, evict from the tail, "
               "no backfill",
    .default_placement = "consolidate",
    .create = create_las,
    .destroy = destroy,
    .plan = plan,
    .next_pass = next_pass,
};

const struct berth__policy_ops berth__policy_blox_fifo = {
    .name = "blox-fifo",
    .summary = "Blox's Fifo: submit order, head-of-line blocking, a pass every round",
    .default_placement = "consolidate",
    .create = create_fifo,
    .destroy = destroy,
    .plan = plan,
    .next_pass = next_pass,
};
