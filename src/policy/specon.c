/* SpeCon and its baseline (specon.h). New jobs start in arrival order, first fit, with
 * spread placement (Kubernetes' default scheduler spreads pods over the least requested
 * nodes): the generic ordering scheduler does that part (prio.h). `specon` adds, at every
 * window pass (the first pass, then a window after the last one: its own timer):
 *   1. read every running job's metric (view->metric, else its class's curve) and, where a
 *      reading at least a window old exists, its growth g = (m(t) - m(t')) / (t - t');
 *   2. label jobs: warm-up (no such reading), near completion, cooling down after a
 *      migration, slow-growing (g < alpha) or fast;
 *   3. walk servers from the most congested down (utilisation, then running jobs, then the
 *      lower number), while they are busier than theta or jobs pend; on the first one with a
 *      slow-growing job, take its slowest (ties: the lower job number) and move it to the
 *      least loaded other server (same order, the lower number first) that fits it and would
 *      stay strictly less busy than the source is now — the move must make the busiest server
 *      lighter, never swap the roles. One migration per window; the job then cools down and
 *      starts a new warm-up window.
 * A window that moves nothing and finds that no job on a source server could move anywhere
 * pauses the timer until an arrival, start, completion or requeue; a pause longer than a
 * window restarts everyone's warm-up (growth is only ever measured over one window).
 * A migration is a preemption and a start on the target server in one plan: the engine
 * counts it and the simulator charges the restart cost. Cost per window pass: O(running
 * jobs + servers log servers); other passes cost what the ordering scheduler costs. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/curve.h"
#include "sched/plan.h"
#include "sched/prio.h"
#include "sched/settings.h"
#include "policy/specon.h"

#define NONE UINT32_MAX

struct load {
    double util; /* the busiest of its GPUs (milli-GPUs held), CPU and memory, in [0, 1] */
    int32_t jobs;
    uint32_t server;
};

/* What decides where a job fits and how much busier it makes a server. */
struct shape {
    int32_t gpus, share;
    uint64_t type_mask;
    int64_t cpu, mem, gpu_mem;
};

#define MAX_FAILED 32

/* What the policy keeps per job. */
struct sjob {
    double reading;
    berth_us read_at; /* BERTH_TIME_NONE: no reading */
    double growth;
    berth_us grown_at; /* when growth was last measured */
    berth_us cool_until;
    uint32_t pos;    /* index in running, NONE when not there */
    struct shape sh; /* its shape, taken when it starts (it does not change) */
};

struct specon {
    struct berth__prio *q;
    int migrate; /* 0: `spread`, the baseline */
    struct berth__specon_cfg cfg;
    struct sjob *job; /* per job */
    size_t cap;
    uint32_t *running; /* the jobs running after the last pass */
    size_t nrunning, running_cap;
    /* per server, rebuilt at each window pass */
    struct load *by_load;   /* most congested first */
    struct load *by_target; /* least loaded first */
    int loads_kept;         /* by_load holds every server (in the last window's order) */
    int32_t *jobs;
    uint32_t *slowest;
    size_t srv_cap;
    berth_us last_window;
    /* shapes that found no target in this window pass: sources are walked from the busiest
     * down, so the targets allowed (less busy than the source) only shrink, and a shape that
     * found none will find none later in the pass */
    struct shape failed[MAX_FAILED];
    size_t nfailed;
    uint32_t *first, *bysrv; /* stuck(): running jobs grouped by server */
    size_t bysrv_cap;
    /* the last window found no move possible for anyone: no timer until something changes
     * (an arrival, start, completion or requeue since that window) */
    int paused, changed;
    berth_us valid_from; /* readings before this are too old to give a growth */
};

static const struct berth__setting settings[] = {
    {"window", BERTH_SET_SECONDS, offsetof(struct berth__specon_cfg, window_us), 1e-3, 1e9,
     "growth is measured over one window, one migration per window, seconds (default 10)"},
    {"cooldown", BERTH_SET_SECONDS, offsetof(struct berth__specon_cfg, cooldown_us), 0, 1e9,
     "a migrated job is not moved again before this, seconds (default 60)"},
    {"alpha", BERTH_SET_DOUBLE, offsetof(struct berth__specon_cfg, alpha), 0, 1e9,
     "slow-growing: below alpha metric points per second (default 0.1)"},
    {"theta", BERTH_SET_DOUBLE, offsetof(struct berth__specon_cfg, theta), 0, 1,
     "a source server must be busier than this, or jobs pend (default 0.5)"},
    {"near_epochs", BERTH_SET_DOUBLE, offsetof(struct berth__specon_cfg, near_epochs), 0, 1e9,
     "fewer epochs left than this: near completion, never moved (default 2)"},
};

int berth__specon_cfg(const char *policy, const char *s, struct berth__specon_cfg *cfg,
                      struct berth_err *err)
{
    *cfg = (struct berth__specon_cfg){10 * BERTH_US_PER_S, 60 * BERTH_US_PER_S, 0.1, 0.5, 2.0};
    return berth__settings_parse(policy, s, settings, sizeof settings / sizeof *settings, cfg, err);
}

double berth__specon_growth(double prev, berth_us prev_at, double cur, berth_us t)
{
    return (cur - prev) * (double)BERTH_US_PER_S / (double)(t - prev_at);
}

int berth__specon_label(const struct berth__specon_cfg *cfg, const struct berth__job *j,
                        berth_us now, int has_growth, double growth, berth_us cool_until)
{
    if (!has_growth)
        return BERTH_SPECON_WARMUP;
    const struct berth_curve *c = berth__curve_find(berth_jobspec_extra(j->spec)->job_type);
    if (c->epochs - berth__curve_epochs(j, now) < cfg->near_epochs)
        return BERTH_SPECON_NEAR_END;
    if (now < cool_until)
        return BERTH_SPECON_COOLING;
    return growth < cfg->alpha ? BERTH_SPECON_SLOW : BERTH_SPECON_FAST;
}

static int64_t key_arrival(void *ctx, const struct berth__job *j)
{
    (void)ctx;
    return (int64_t)j->idx;
}

static int create(const struct berth__params *p, int migrate, void **self, struct berth_err *err)
{
    struct berth__specon_cfg sc;
    int rc = berth__specon_cfg(migrate ? "specon" : "spread", p->settings, &sc, err);
    if (rc)
        return rc;
    struct specon *s = calloc(1, sizeof *s);
    if (!s)
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    struct berth__prio_cfg cfg = {.key = key_arrival, .slope = berth__prio_slope_none};
    rc = berth__prio_create(&cfg, &s->q, err);
    if (rc) {
        free(s);
        return rc;
    }
    s->migrate = migrate;
    s->cfg = sc;
    s->last_window = BERTH_TIME_NONE;
    *self = s;
    return 0;
}

static int create_specon(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create(p, 1, self, err);
}

static int create_spread(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create(p, 0, self, err);
}

static void destroy(void *self)
{
    struct specon *s = self;
    if (!s)
        return;
    berth__prio_destroy(s->q);
    free(s->job);
    free(s->running);
    free(s->by_load);
    free(s->by_target);
    free(s->first);
    free(s->bysrv);
    free(s->jobs);
    free(s->slowest);
    free(s);
}

static int grow_jobs(struct specon *s, size_t n)
{
    size_t old = s->cap;
    if (n <= old)
        return 0;
    if (BERTH_GROW(s->job, s->cap, n))
        return BERTH_ENOMEM;
    for (size_t i = old; i < s->cap; i++)
        s->job[i] =
            (struct sjob){.read_at = BERTH_TIME_NONE, .grown_at = BERTH_TIME_NONE, .pos = NONE};
    return 0;
}

static struct shape shape_of(const struct berth__job *j)
{
    return (struct shape){j->gpus,
                          j->share,
                          j->type_mask,
                          berth__job_cpu_per_gpu(j),
                          berth__job_mem_per_gpu(j),
                          berth_jobspec_extra(j->spec)->gpu_mem_mib};
}

static int add_running(struct specon *s, const struct berth__view *v, uint32_t j)
{
    if (s->job[j].pos != NONE)
        return 0;
    if (BERTH_GROW(s->running, s->running_cap, s->nrunning + 1))
        return BERTH_ENOMEM;
    s->job[j].pos = (uint32_t)s->nrunning;
    s->running[s->nrunning++] = j;
    s->job[j].read_at = BERTH_TIME_NONE; /* a (re)start begins a new warm-up window */
    s->job[j].sh = shape_of(&v->jobs[j]);
    return 0;
}

static void remove_running(struct specon *s, uint32_t j)
{
    uint32_t k = s->job[j].pos;
    if (k == NONE)
        return;
    uint32_t last = s->running[--s->nrunning];
    s->running[k] = last;
    s->job[last].pos = k;
    s->job[j].pos = NONE;
}

/* Step 1: every running job's reading now, and its growth since its last reading when that
 * is at least a window old (exactly one window while the timer runs; a round in the round
 * modes). */
static void read_metrics(struct specon *s, const struct berth__view *v)
{
    for (size_t k = 0; k < s->nrunning; k++) {
        uint32_t i = s->running[k];
        const struct berth__job *j = &v->jobs[i];
        double m = v->metric ? v->metric(v->metric_ctx, j, v->now)
                             : berth__curve_job_metric(NULL, j, v->now);
        if (s->job[i].read_at != BERTH_TIME_NONE && s->job[i].read_at >= s->valid_from &&
            v->now - s->job[i].read_at >= s->cfg.window_us) {
            s->job[i].growth =
                berth__specon_growth(s->job[i].reading, s->job[i].read_at, m, v->now);
            s->job[i].grown_at = v->now;
        }
        s->job[i].reading = m;
        s->job[i].read_at = v->now;
    }
}

/* Utilisation of server sv with extra milli-GPUs, CPU and memory added: the busiest of its
 * GPUs (milli held, whole GPUs 1000 each), CPU and memory. */
static double util_of(const struct berth_cluster *c, uint32_t sv, int64_t milli, int64_t cpu,
                      int64_t mem)
{
    const struct berth__server *v = &c->srv[sv];
    double u = 0;
    if (v->ngpus) {
        int64_t held = milli;
        uint64_t busy =
            ~v->free_mask & (v->ngpus < 64 ? (UINT64_C(1) << v->ngpus) - 1 : ~UINT64_C(0));
        if (!v->shares) /* whole GPUs only: count them */
            held += 1000 * (int64_t)__builtin_popcountll(busy);
        else
            for (; busy; busy &= busy - 1) {
                int g = __builtin_ctzll(busy);
                held += v->shares->used[g] ? v->shares->used[g] : 1000;
            }
        u = (double)held / (1000.0 * v->ngpus);
    }
    if (v->cpu_milli) {
        double x = (double)(v->cpu_milli - v->cpu_free + cpu) / (double)v->cpu_milli;
        u = x > u ? x : u;
    }
    if (v->mem_mib) {
        double x = (double)(v->mem_mib - v->mem_free + mem) / (double)v->mem_mib;
        u = x > u ? x : u;
    }
    return u;
}

static int cmp_congested(const void *a, const void *b)
{
    const struct load *x = a, *y = b;
    if (x->util != y->util)
        return x->util > y->util ? -1 : 1;
    if (x->jobs != y->jobs)
        return x->jobs > y->jobs ? -1 : 1;
    return x->server < y->server ? -1 : 1;
}

/* Sorts a[0..n) most congested first (cmp_congested's total order) by a merge sort with the
 * comparison inlined, using tmp[0..n): a window pass sorts every server, and qsort's calls
 * through a pointer were a fifth of a Philly run under specon. */
static void sort_loads(struct load *a, struct load *tmp, size_t n)
{
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                tmp[o++] = cmp_congested(&a[j], &a[i]) < 0 ? a[j++] : a[i++];
            while (i < mid)
                tmp[o++] = a[i++];
            while (j < hi)
                tmp[o++] = a[j++];
        }
        memcpy(a, tmp, n * sizeof *a);
    }
}

/* Sorts a[0..n) most congested first by insertion, giving up (0, a then in some order) after
 * budget moves; 1 sorted. */
static int sort_loads_near(struct load *a, size_t n, size_t budget)
{
    for (size_t i = 1; i < n; i++) {
        struct load x = a[i];
        size_t at = i;
        for (; at > 0 && cmp_congested(&x, &a[at - 1]) < 0; at--) {
            if (!budget--) {
                a[at] = x; /* keep every server in the array */
                return 0;
            }
            a[at] = a[at - 1];
        }
        a[at] = x;
    }
    return 1;
}

/* The least loaded first (util, then jobs ascending, then the lower server) from the most
 * congested order: reversed, with each run of equal util and jobs put back in server order. */
static void lightest_first(const struct load *congested, struct load *out, size_t n)
{
    for (size_t k = 0; k < n; k++)
        out[k] = congested[n - 1 - k];
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && out[b].util == out[a].util && out[b].jobs == out[a].jobs)
            b++;
        for (size_t x = a, y = b - 1; x < y; x++, y--) { /* the run ran server-descending */
            struct load t = out[x];
            out[x] = out[y];
            out[y] = t;
        }
        a = b;
    }
}

/* Whether job j (on one server now) could run on server sv alone: its GPU type and room. */
static int fits_on(const struct berth_cluster *c, const struct berth__job *j, uint32_t sv)
{
    const struct berth__server *v = &c->srv[sv];
    if (j->gpus == 0)
        return berth__server_cpu_mem_fit(c, sv, j, 1);
    if (j->type_mask && !(j->type_mask >> v->type & 1))
        return 0;
    if (berth__job_share(j) < 1000)
        return berth__server_cpu_mem_fit(c, sv, j, 1) &&
               (v->free_mask || berth__server_pick_share_gpu(c, sv, j, 0) >= 0);
    return berth__server_room(c, sv, j) >= j->gpus;
}

static int grow_servers(struct specon *s, size_t n)
{
    if (n <= s->srv_cap)
        return 0;
    free(s->by_load);
    free(s->by_target);
    free(s->first);
    free(s->jobs);
    free(s->slowest);
    s->by_load = malloc(n * sizeof *s->by_load);
    s->by_target = malloc(n * sizeof *s->by_target);
    s->first = malloc((n + 1) * sizeof *s->first);
    s->jobs = malloc(n * sizeof *s->jobs);
    s->slowest = malloc(n * sizeof *s->slowest);
    s->srv_cap = s->by_load && s->by_target && s->first && s->jobs && s->slowest ? n : 0;
    s->loads_kept = 0;
    return s->srv_cap ? 0 : BERTH_ENOMEM;
}

static int failed_before(const struct specon *s, const struct shape *sh)
{
    for (size_t k = 0; k < s->nfailed; k++) {
        const struct shape *f = &s->failed[k];
        if (f->gpus == sh->gpus && f->share == sh->share && f->type_mask == sh->type_mask &&
            f->cpu == sh->cpu && f->mem == sh->mem && f->gpu_mem == sh->gpu_mem)
            return 1;
    }
    return 0;
}

/* Moves job i to server to: a preemption and a start there in one plan. */
static int move(struct specon *s, const struct berth__view *v, struct berth__plan *plan, uint32_t i,
                uint32_t to, struct berth_err *err)
{
    int rc = berth__plan_preempt(plan, i, err);
    if (rc)
        return rc;
    rc = berth__plan_start_on(plan, i, to, err);
    if (rc == BERTH_NOFIT) /* fits_on said yes; give it its place back all the same */
        return berth__plan_restore(plan, i, err);
    if (rc)
        return rc;
    s->job[i].cool_until = v->now + s->cfg.cooldown_us;
    s->job[i].read_at = BERTH_TIME_NONE;
    return 0;
}

/* The least loaded server other than src (in by_target's order) that fits job j and would
 * stay less busy than src is now (util), or -1. */
static int32_t target_for(const struct specon *s, const struct berth_cluster *c,
                          const struct berth__job *j, uint32_t src, double util)
{
    int64_t milli = (int64_t)j->gpus * j->share;
    int64_t cpu = berth__job_cpu_per_gpu(j) * berth__job_nslots(j);
    int64_t mem = berth__job_mem_per_gpu(j) * berth__job_nslots(j);
    for (size_t b = 0; b < c->nsrv; b++) {
        const struct load *dst = &s->by_target[b];
        if (!(dst->util < util))
            break; /* every server left is at least as busy as the source */
        if (dst->server == src || !fits_on(c, j, dst->server))
            continue;
        if (!(util_of(c, dst->server, milli, cpu, mem) < util))
            continue; /* it would only swap the roles */
        return (int32_t)dst->server;
    }
    return -1;
}

/* Whether a server may be a source now: busier than theta, or any server while jobs pend. */
static int is_source(const struct specon *s, const struct berth__view *v, double util)
{
    return util > s->cfg.theta || v->npending > 0;
}

/* Whether no job on any source server could move anywhere, whatever the labels: then no
 * window can migrate until an arrival, start or completion changes the allocation. Sources
 * are walked from the busiest down, so a shape with no target has none on the servers after
 * (their allowed targets are a subset). More shapes than the memory holds: not sure, 0. */
static int stuck(struct specon *s, const struct berth__view *v)
{
    const struct berth_cluster *c = v->cluster;
    size_t ns = c->nsrv;
    /* the running single-server jobs grouped by server: first[k] .. first[k + 1] in bysrv */
    memset(s->first, 0, (ns + 1) * sizeof *s->first);
    for (size_t k = 0; k < s->nrunning; k++) {
        const struct berth__job *j = &v->jobs[s->running[k]];
        if (j->servers == 1)
            s->first[j->slots[0].server + 1]++;
    }
    for (size_t k = 0; k < ns; k++)
        s->first[k + 1] += s->first[k];
    for (size_t k = 0; k < s->nrunning; k++) {
        const struct berth__job *j = &v->jobs[s->running[k]];
        if (j->servers == 1)
            s->bysrv[s->first[j->slots[0].server]++] = s->running[k];
    }
    for (size_t k = ns; k > 0; k--) /* back to the starts */
        s->first[k] = s->first[k - 1];
    s->first[0] = 0;
    s->nfailed = 0;
    for (size_t a = 0; a < ns; a++) {
        const struct load *src = &s->by_load[a];
        if (!is_source(s, v, src->util))
            break;
        for (uint32_t k = s->first[src->server]; k < s->first[src->server + 1]; k++) {
            const struct berth__job *j = &v->jobs[s->bysrv[k]];
            const struct shape *sh = &s->job[s->bysrv[k]].sh;
            if (failed_before(s, sh))
                continue;
            if (target_for(s, c, j, src->server, src->util) >= 0 || s->nfailed == MAX_FAILED)
                return 0;
            s->failed[s->nfailed++] = *sh;
        }
    }
    return 1;
}

/* Steps 2 and 3: at most one migration; with none, whether to pause the window timer. */
static int migrate_one(struct specon *s, const struct berth__view *v, struct berth__plan *plan,
                       struct berth_err *err)
{
    const struct berth_cluster *c = v->cluster;
    size_t ns = c->nsrv;
    if (grow_servers(s, ns))
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    for (size_t k = 0; k < ns; k++) {
        s->jobs[k] = 0;
        s->slowest[k] = NONE;
    }
    for (size_t k = 0; k < s->nrunning; k++) {
        uint32_t i = s->running[k];
        const struct berth__job *j = &v->jobs[i];
        uint32_t sv = j->slots[0].server;
        s->jobs[sv]++;
        if (j->servers != 1)
            continue; /* a gang across servers is not moved */
        /* slow needs a growth, no cooldown and growth < alpha: tested before the label's
         * near-completion test, which reads the job's curve */
        const struct sjob *sj = &s->job[i];
        if (sj->grown_at != v->now || v->now < sj->cool_until || !(sj->growth < s->cfg.alpha) ||
            berth__specon_label(&s->cfg, j, v->now, 1, sj->growth, sj->cool_until) !=
                BERTH_SPECON_SLOW)
            continue;
        uint32_t b = s->slowest[sv];
        if (b == NONE || s->job[i].growth < s->job[b].growth ||
            (s->job[i].growth == s->job[b].growth && i < b))
            s->slowest[sv] = i;
    }
    /* the servers in the last window's order, with their loads now: loads move little in a
     * window, so an insertion sort from there is cheap; one that moves too much falls back
     * to the merge sort (both give cmp_congested's total order) */
    for (size_t k = 0; k < ns; k++) {
        uint32_t sv = s->loads_kept ? s->by_load[k].server : (uint32_t)k;
        s->by_load[k] = (struct load){util_of(c, sv, 0, 0, 0), s->jobs[sv], sv};
    }
    if (!s->loads_kept || !sort_loads_near(s->by_load, ns, 4 * ns))
        sort_loads(s->by_load, s->by_target, ns); /* by_target is the scratch */
    s->loads_kept = 1;
    lightest_first(s->by_load, s->by_target, ns);
    s->nfailed = 0;
    for (size_t a = 0; a < ns; a++) {
        const struct load *src = &s->by_load[a];
        if (!is_source(s, v, src->util))
            break; /* no server busy enough to act on */
        uint32_t i = s->slowest[src->server];
        if (i == NONE)
            continue;
        const struct shape sh = s->job[i].sh;
        if (failed_before(s, &sh))
            continue;
        int32_t to = target_for(s, c, &v->jobs[i], src->server, src->util);
        if (to >= 0)
            return move(s, v, plan, i, (uint32_t)to, err);
        if (s->nfailed < MAX_FAILED)
            s->failed[s->nfailed++] = sh;
    }
    if (BERTH_GROW(s->bysrv, s->bysrv_cap, s->nrunning + 1))
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    s->paused = stuck(s, v);
    return 0;
}

static int plan_pass(void *self, const struct berth__view *v, struct berth__plan *plan,
                     struct berth_err *err)
{
    struct specon *s = self;
    if (grow_jobs(s, v->njobs))
        return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
    for (size_t k = 0; k < v->nleft; k++)
        remove_running(s, v->left[k]);
    for (size_t k = 0; k < v->nrequeued; k++)
        remove_running(s, v->requeued[k]);
    s->changed |= v->narrived || v->nleft || v->nrequeued;
    int window = s->migrate &&
                 (s->last_window == BERTH_TIME_NONE || v->now - s->last_window >= s->cfg.window_us);
    if (window) {
        /* after a pause that outlasted a window the chain is broken: older readings are no
         * growth over the last window, so everyone warms up again */
        if (s->paused && v->now - s->last_window != s->cfg.window_us)
            s->valid_from = v->now;
        s->paused = 0;
        s->changed = 0;
        s->last_window = v->now;
        read_metrics(s, v);
    }
    int rc = berth__prio_plan(s->q, v, plan, err);
    if (rc)
        return rc;
    for (size_t k = 0; k < plan->ntouched; k++) { /* the jobs it started */
        uint32_t i = plan->touched[k].job;
        if (!plan->touched[k].was_running && v->jobs[i].state == BERTH_JOB_RUNNING) {
            if (add_running(s, v, i))
                return berth_err_set(err, BERTH_ENOMEM, "policy: out of memory");
            s->changed |= !window;
        }
    }
    return window ? migrate_one(s, v, plan, err) : 0;
}

static berth_us next_pass(void *self, const struct berth__view *v)
{
    const struct specon *s = self;
    if (!s->migrate || v->nrunning == 0 || s->last_window == BERTH_TIME_NONE ||
        (s->paused && !s->changed))
        return BERTH_TIME_NONE;
    berth_us t = s->last_window + s->cfg.window_us;
    return t > v->now ? t : v->now + 1;
}

const struct berth__policy_ops berth__policy_specon = {
    .name = "specon",
    .summary =
        "SpeCon: spread placement; each window the slowest-growing job on the most congested "
        "server moves to the least loaded one",
    .default_placement = "spread",
    .create = create_specon,
    .destroy = destroy,
    .plan = plan_pass,
    .next_pass = next_pass,
    .settings = settings,
    .nsettings = sizeof settings / sizeof *settings,
};

const struct berth__policy_ops berth__policy_spread = {
    .name = "spread",
    .summary = "Kubernetes-like baseline of specon: first come first served, first fit, spread "
               "placement, no migration",
    .default_placement = "spread",
    .create = create_spread,
    .destroy = destroy,
    .plan = plan_pass,
    .settings = settings,
    .nsettings = sizeof settings / sizeof *settings,
};
