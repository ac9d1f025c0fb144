/* goodput and goodput-hetero: an elastic policy in the spirit of Pollux and Sia. Every job with
 * a scaling curve (the throughput model's steps/s against gang size) gets the number of GPUs
 * that raises the cluster's total normalised goodput, with restart costs counted.
 *
 * A pass (at every arrival and completion, and every round, params.round_us, default 60 s):
 *  1. Admission. Active jobs in order: running jobs inside their hold (they (re)started less
 *     than a round ago, or less than HOLD_RESTARTS restart costs ago) first, then pending jobs
 *     that have waited longer than STARVE_US and twice their run time (by job number: the
 *     starvation guard, which also forgets the service they attained, as Tiresias' promotion
 *     does, so that they keep running), then the rest by attained GPU-time in doubling
 *     levels, running jobs first within a level (a discretised LAS: Pollux sorts by attained
 *     service); ties by job number.
 *     A job is admitted at its smallest size (max(1, min_gpus)) on a GPU type with that many
 *     GPUs not yet promised: its current type when running, else the first allowed type in
 *     cluster order (goodput) or the type where its smallest gang runs fastest (goodput-hetero,
 *     the Sia-like variant). A held job is admitted at its current size.
 *  2. Sizes. Per GPU type, one multiple-choice knapsack (mckp.c) over the admitted jobs that
 *     are not held: job i's options are g = lo..hi GPUs (weight g - lo) valued by Pollux's
 *     fairness-weighted utility u(s) = -1/s (generalised mean with p = -1), where s is its
 *     speedup rate(g)/rate(lo) from the throughput model (a gang wider than one server at
 *     the model's spread rate). Restart costs count: an option that changes a running job's
 *     size (or any start of a job that ran before) scales s by L/(L + H*R), L being the time
 *     the job's remaining work takes at g and R its restart cost at g, with H = HYST for a
 *     resize (1 for a restart that cannot be avoided). So a job grows only when the time it
 *     saves exceeds H restart costs; a change must also raise s by RESIZE_GAIN (hysteresis,
 *     which keeps jobs from flapping when restarts are free). The capacity is the type's GPUs
 *     left after the smallest sizes.
 *  3. Changes. Running jobs whose size changes (or that were not admitted) are preempted;
 *     then pending admitted jobs start at their sizes, largest gangs first so that they get
 *     whole servers (consolidated placement packs each gang onto the fewest servers). A start
 *     that cannot be placed falls back to smaller sizes (to its old GPUs when that is its
 *     old size); idle GPUs left over go to pending jobs at their smallest size in admission
 *     order; preempted jobs whose GPUs nobody took keep running. Jobs without a class (fixed
 *     speed) have a flat curve and so stay at their smallest size; fractional and CPU-only
 *     jobs take no part and are started in arrival order where they fit, never preempted. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solve/mckp.h"
#include "model/alloc.h"
#include "sched/plan.h"

#define DEFAULT_ROUND_US (60 * BERTH_US_PER_S)
#define STARVE_US        (3600 * BERTH_US_PER_S) /* pending this long ... */
#define STARVE_RATIO     2                       /* ... and twice its run time: admitted first */
#define LEVEL_US         (3600 * BERTH_US_PER_S) /* attained GPU-time of the first level */
#define HOLD_RESTARTS    4                       /* hold also covers this many restart costs */
#define HYST             2.0                     /* a resize must save HYST restart costs */
#define RESIZE_GAIN      0.05                    /* ... and raise the speedup by 5 % */
#define EXACT_CELLS      (1 << 16) /* knapsacks up to this many DP cells are solved exactly */
#define CURVE_MAX        64        /* gang sizes cached per (class, type) */
#define NONE             UINT32_MAX

enum kind { PLAIN, HETERO };

/* Scratch per active index during a pass. */
struct gscratch {
    int16_t type; /* admitted type, -1 = not admitted */
    uint8_t held;
    uint8_t state; /* the job's state, GPUs and type at the pass's start */
    int16_t jtype;
    int32_t lo, hi, tgt;
    int32_t gpus;
};

/* The policy's state of an active job, beside act[]: what a pass reads of its spec (the specs,
 * and arrays by job number, are far apart in memory: reading them in every pass was a cache
 * miss per job) and what the policy remembers of it. */
struct gact {
    int32_t bot;       /* max(1, min_gpus) */
    int32_t maxg;      /* spec->max_gpus */
    uint8_t single;    /* j->single (fixed when the job is made) */
    int32_t hold_g;    /* the gang hold_end was computed for, -1 = none */
    berth_us hold_s;   /* ... and the start */
    berth_us hold_end; /* the end of its hold, cached */
    berth_us started;  /* when the policy last (re)started it */
    int64_t forgot;    /* attained GPU-time forgotten at its last promotion */
};

struct gp {
    int kind;
    berth_us round_us, restart_us;
    int restart_tiers;
    uint32_t *act; /* active whole-GPU jobs (arrived, not left), in job-number order */
    size_t nact, act_cap;
    struct gact *ai; /* per active index, beside act[] */
    size_t ai_cap;
    uint32_t *other; /* active fractional and CPU-only jobs */
    size_t nother, other_cap;
    /* scratch per pass, per active index */
    uint64_t *ord; /* admission order: bucket << 32 | active index, sorted */
    uint64_t *ord_tmp;
    size_t ord_tmp_cap;
    size_t ord_cap;
    struct gscratch *sc;
    size_t sc_cap;
    struct berth__mckp_option *opts;
    size_t opts_cap;
    uint32_t *first, *grp, *choice;
    size_t first_cap, grp_cap, choice_cap;
    uint64_t *starts; /* (largest gang first, job) keys of this pass's starts */
    size_t starts_cap;
    /* rate curves: per (class, model type), rates at 1..CURVE_MAX GPUs (NAN = not cached) */
    double *curve;
    size_t curve_cap;
    int ncls, nmt;
    uint64_t sized;   /* this pass: the types with an admitted job to size (bit per type) */
    int curves_ready; /* the cache is sized (once: the model does not change) */
    int rounds;       /* after the last pass: a round may change something */
};

/* ---- rates ------------------------------------------------------------------------------ */

/* 1 when job j progresses by the model's steps (its speed depends on its gang). */
static int by_steps(const struct berth__view *v, const struct berth__job *j)
{
    return v->tput && j->cls >= 0 && j->spec->total_steps > 0 &&
           j->work == (double)j->spec->total_steps;
}

/* Rate (work per second) of job j on n GPUs of cluster type t: the model's, across servers when
 * n is more than a server holds; 1 for a job without a class (fixed speed). */
static double rate(struct gp *g, const struct berth__view *v, const struct berth__job *j, int t,
                   int32_t n)
{
    if (!by_steps(v, j))
        return 1;
    int mt = v->tput_type ? v->tput_type[t] : -1;
    if (mt < 0)
        return 0;
    int spread = n > v->cluster->types[t].max_per_server;
    if (n > CURVE_MAX || j->cls >= g->ncls || mt >= g->nmt)
        return berth__tput_rate_sp(v->tput, v->spread, j->cls, mt, n, spread);
    double *c = &g->curve[((size_t)j->cls * (size_t)g->nmt + (size_t)mt) * CURVE_MAX];
    if (isnan(c[n - 1]))
        c[n - 1] = berth__tput_rate_sp(v->tput, v->spread, j->cls, mt, n, spread);
    return c[n - 1];
}

/* Sizes the rate cache for the model's classes and types (once: the model does not change). */
static int curves_init(struct gp *g, const struct berth__view *v)
{
    if (!v->tput || g->curves_ready)
        return 0;
    g->curves_ready = 1;
    int ncls = 0, nmt = 0;
    for (size_t i = 0; i < v->njobs; i++)
        if (v->jobs[i].cls >= ncls)
            ncls = v->jobs[i].cls + 1;
    for (size_t t = 0; t < v->cluster->ntypes && v->tput_type; t++)
        if (v->tput_type[t] >= nmt)
            nmt = v->tput_type[t] + 1;
    size_t n = (size_t)ncls * (size_t)nmt * CURVE_MAX;
    if (!n)
        return 0;
    if (!(g->curve = malloc(n * sizeof *g->curve)))
        return BERTH_ENOMEM;
    for (size_t i = 0; i < n; i++)
        g->curve[i] = NAN;
    g->ncls = ncls;
    g->nmt = nmt;
    return 0;
}

/* The largest gang a job of `gpus` GPUs now, up to maxg, within one server when single, may
 * get on type t. */
static int32_t top_of(const struct berth__view *v, int32_t gpus, int single, int32_t maxg, int t)
{
    const struct berth__gputype *ty = &v->cluster->types[t];
    int32_t hi = maxg > gpus ? maxg : gpus;
    int32_t cap = single ? ty->max_per_server : ty->total;
    return hi < cap ? hi : cap;
}

static int32_t top(const struct berth__view *v, const struct berth__job *j, int32_t maxg, int t)
{
    return top_of(v, j->gpus, j->single, maxg, t);
}

static int32_t bottom(const struct berth__job *j)
{
    return j->spec->min_gpus > 1 ? j->spec->min_gpus : 1;
}

/* Seconds job j's remaining work takes on n GPUs of type t. */
static double left_s(struct gp *g, const struct berth__view *v, const struct berth__job *j, int t,
                     int32_t n)
{
    double r = rate(g, v, j, t, n);
    if (!(r > 0))
        return INFINITY;
    if (!by_steps(v, j))
        return (double)berth__job_left_us(j, v->now) / 1e6;
    return (j->work - berth__job_done(j, v->now)) / r;
}

/* ---- the active set ----------------------------------------------------------------------- */

static int track(struct gp *g, const struct berth__view *v, uint32_t job)
{
    const struct berth__job *j = &v->jobs[job];
    if (j->gpus == 0 || j->share < 1000) {
        if (BERTH_GROW(g->other, g->other_cap, g->nother + 1))
            return BERTH_ENOMEM;
        g->other[g->nother++] = job;
        return 0;
    }
    if (BERTH_GROW(g->act, g->act_cap, g->nact + 1) || BERTH_GROW(g->ai, g->ai_cap, g->nact + 1))
        return BERTH_ENOMEM;
    /* arrivals come in job-number order, after every job already active */
    g->ai[g->nact] = (struct gact){.bot = bottom(j),
                                   .maxg = j->spec->max_gpus,
                                   .single = j->single,
                                   .hold_g = -1,
                                   .started = BERTH_TIME_NONE};
    g->act[g->nact++] = job;
    return 0;
}

/* Drops the jobs that left from a[] (and ai[] beside it, when not NULL). */
static void drop_left(uint32_t *a, struct gact *ai, size_t *n, const struct berth__view *v)
{
    size_t w = 0;
    for (size_t k = 0; k < *n; k++)
        if (v->jobs[a[k]].state != BERTH_JOB_DONE) {
            if (ai)
                ai[w] = ai[k];
            a[w++] = a[k];
        }
    *n = w;
}

static int scratch(struct gp *g, size_t n)
{
    if (BERTH_GROW(g->ord, g->ord_cap, n ? n : 1) ||
        BERTH_GROW(g->ord_tmp, g->ord_tmp_cap, n ? n : 1))
        return BERTH_ENOMEM;
    return BERTH_GROW(g->sc, g->sc_cap, n ? n : 1) ? BERTH_ENOMEM : 0;
}

/* ---- 1. admission ----------------------------------------------------------------------- */

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

static berth_us restart_of(const struct gp *g, const struct berth__job *j, int32_t n)
{
    return berth__job_restart_us(j, n, g->restart_us, g->restart_tiers);
}

/* 1 when running job j is inside its hold: not to be resized or preempted yet. */
static int holding(const struct gp *g, const struct berth__view *v, const struct berth__job *j,
                   struct gact *a)
{
    berth_us s = a->started;
    if (s == BERTH_TIME_NONE)
        s = j->since;
    if (a->hold_g != j->gpus || a->hold_s != s) {
        berth_us hold = g->round_us, r = HOLD_RESTARTS * restart_of(g, j, j->gpus);
        a->hold_s = s;
        a->hold_g = j->gpus;
        a->hold_end = s + (r > hold ? r : hold);
    }
    return v->now < a->hold_end;
}

/* The type pending job j is admitted on, needing `need` GPUs of room[], or -1. */
static int pick_type(struct gp *g, const struct berth__view *v, const struct berth__job *j,
                     int32_t maxg, int32_t need, const int64_t *room)
{
    int best = -1;
    double br = 0;
    for (size_t t = 0; t < v->cluster->ntypes; t++) {
        if ((j->type_mask && !(j->type_mask >> t & 1)) || room[t] < need ||
            top(v, j, maxg, (int)t) < need)
            continue;
        double r = rate(g, v, j, (int)t, need);
        if (!(r > 0))
            continue;
        if (g->kind == PLAIN)
            return (int)t;
        if (r > br) {
            br = r;
            best = (int)t;
        }
    }
    return best;
}

/* Attained GPU-time in levels that double: 0 below LEVEL_US, then 1, 2, ... at 1, 3, 7, ...
 * times LEVEL_US. A running job gives way only to a job of a lower level, so jobs of about
 * equal service do not take turns at every round (discretised LAS, as Tiresias does). */
static int64_t level(int64_t gpu_us)
{
    int64_t x = gpu_us / LEVEL_US + 1;
    return x > 1 ? 63 - __builtin_clzll((unsigned long long)x) : 0; /* floor(log2(x)) */
}

/* The starvation guard: pending for STARVE_US and for STARVE_RATIO times the time it has
 * run (Tiresias' rule), so that under overload long jobs are not cycled in every hour. */
static int starving(const struct berth__view *v, const struct berth__job *j)
{
    berth_us wait = v->now - j->since;
    return j->state == BERTH_JOB_PENDING && wait >= STARVE_US &&
           wait >= STARVE_RATIO * berth__job_run_us(j, v->now);
}

/* Sorts the admission keys (bucket << 32 | active index, built in active-index order) by a
 * stable counting sort on their bucket: held, starving, then 2 * level + pending; at[b + 1]
 * holds bucket b's count. O(active jobs): no comparisons. */
#define NBUCKETS (2 + 2 * 64)
static void sort_keys(struct gp *g, size_t *at)
{
    for (size_t b = 0; b < NBUCKETS; b++)
        at[b + 1] += at[b];
    /* a run of one bucket keeps its next slot in a register: at[b]++ in memory would make
     * each store wait for the last one */
    size_t pb = NBUCKETS, slot = 0;
    for (size_t k = 0; k < g->nact; k++) {
        size_t b = (size_t)(g->ord[k] >> 32);
        if (b != pb) {
            if (pb < NBUCKETS)
                at[pb] = slot;
            slot = at[b];
            pb = b;
        }
        g->ord_tmp[slot++] = g->ord[k];
    }
    uint64_t *t = g->ord;
    g->ord = g->ord_tmp;
    g->ord_tmp = t;
    size_t c = g->ord_cap;
    g->ord_cap = g->ord_tmp_cap;
    g->ord_tmp_cap = c;
}

static void admit(struct gp *g, const struct berth__view *v, int64_t *room)
{
    size_t at[NBUCKETS + 1] = {0};
    for (size_t k = 0; k < g->nact; k++) {
        const struct berth__job *j = &v->jobs[g->act[k]];
        uint64_t cls, key = 0; /* held: 0; starving: 1 (by job number); the rest: 2 */
        g->sc[k].state = (uint8_t)j->state;
        g->sc[k].gpus = j->gpus;
        g->sc[k].jtype = j->type;
        g->sc[k].type = -1; /* not admitted, until it is */
        g->sc[k].tgt = 0;
        if (j->state == BERTH_JOB_RUNNING)
            room[j->type] += j->gpus; /* the GPUs of running jobs are the knapsack's too */
        g->sc[k].held = j->state == BERTH_JOB_RUNNING && holding(g, v, j, &g->ai[k]);
        if (g->sc[k].held) {
            cls = 0;
        } else if (starving(v, j)) {
            cls = 1; /* promoted: its service so far is forgotten, as Tiresias promotes */
            g->ai[k].forgot = berth__job_gpu_us(j, v->now);
        } else {
            cls = 2;
            key = (uint64_t)(2 * level(berth__job_gpu_us(j, v->now) - g->ai[k].forgot) +
                             (j->state != BERTH_JOB_RUNNING));
        }
        uint64_t b = cls < 2 ? cls : 2 + key;
        at[b + 1]++;
        g->ord[k] = b << 32 | (uint64_t)k; /* k follows job numbers */
    }
    sort_keys(g, at);
    g->sized = 0;
    int64_t left = 0; /* GPUs of room[] left, all types */
    for (size_t t = 0; t < v->cluster->ntypes; t++)
        left += room[t];
    /* until no room is left on any type: no one after is admitted (every lo is >= 1) */
    for (size_t i = 0; i < g->nact && left; i++) {
        size_t k = (size_t)(g->ord[i] & UINT32_MAX);
        struct gscratch *s = &g->sc[k]; /* running jobs: what loop one read of them */
        int32_t lo = s->held ? s->gpus : g->ai[k].bot;
        int t = -1;
        if (s->state == BERTH_JOB_RUNNING)
            t = room[s->jtype] >= lo ? s->jtype : -1;
        else
            t = pick_type(g, v, &v->jobs[g->act[k]], g->ai[k].maxg, lo, room);
        s->type = (int16_t)t;
        s->lo = s->tgt = lo;
        if (t < 0) {
            s->tgt = 0;
            continue;
        }
        s->hi = s->held ? lo : top_of(v, s->gpus, g->ai[k].single, g->ai[k].maxg, t);
        if (s->hi < lo)
            s->hi = lo;
        if (!s->held && s->hi != lo)
            g->sized |= UINT64_C(1) << t;
        room[t] -= lo;
        left -= lo;
    }
}

/* ---- 2. sizes ---------------------------------------------------------------------------- */

/* Pollux's utility of speedup s with fairness power p = -1. */
static double utility(double s)
{
    return s > 0 ? -1.0 / s : -1e12;
}

/* The options of admitted job k on its type: g = lo..hi. */
static int options(struct gp *g, const struct berth__view *v, size_t k, size_t *nopts)
{
    const struct berth__job *j = &v->jobs[g->act[k]];
    int t = g->sc[k].type;
    int32_t lo = g->sc[k].lo, hi = g->sc[k].hi;
    if (BERTH_GROW(g->opts, g->opts_cap, *nopts + (size_t)(hi - lo + 1)))
        return BERTH_ENOMEM;
    double base = rate(g, v, j, t, lo);
    int running = j->state == BERTH_JOB_RUNNING, ran = j->first_start != BERTH_TIME_NONE;
    for (int32_t n = lo; n <= hi; n++) {
        double s = base > 0 ? rate(g, v, j, t, n) / base : 0;
        if ((running && n != j->gpus) || (!running && ran)) {
            double h = running ? HYST : 1.0, L = left_s(g, v, j, t, n);
            double R = (double)restart_of(g, j, n) / 1e6;
            if (isfinite(L) && L > 0 && R > 0)
                s *= L / (L + h * R);
            if (running)
                s /= 1.0 + RESIZE_GAIN;
        }
        g->opts[(*nopts)++] = (struct berth__mckp_option){n - lo, utility(s)};
    }
    return 0;
}

static int sizes(struct gp *g, const struct berth__view *v, const int64_t *room,
                 struct berth_err *err)
{
    int rc;
    for (size_t t = 0; t < v->cluster->ntypes; t++) {
        size_t ng = 0, nopts = 0;
        if (!(g->sized >> t & 1))
            continue; /* no job to size: the knapsack would change nothing */
        for (size_t k = 0; k < g->nact; k++) {
            if (g->sc[k].type != (int)t || g->sc[k].held || g->sc[k].hi == g->sc[k].lo)
                continue;
            if (BERTH_GROW(g->grp, g->grp_cap, ng + 1) ||
                BERTH_GROW(g->first, g->first_cap, ng + 2))
                return berth_err_set(err, BERTH_ENOMEM, "goodput: out of memory");
            g->grp[ng] = (uint32_t)k;
            g->first[ng] = (uint32_t)nopts;
            if (options(g, v, k, &nopts))
                return berth_err_set(err, BERTH_ENOMEM, "goodput: out of memory");
            ng++;
        }
        if (!ng || room[t] <= 0)
            continue;
        g->first[ng] = (uint32_t)nopts;
        if (BERTH_GROW(g->choice, g->choice_cap, ng))
            return berth_err_set(err, BERTH_ENOMEM, "goodput: out of memory");
        double value;
        int32_t cap = room[t] > INT32_MAX ? INT32_MAX : (int32_t)room[t];
        /* exact on small problems; beyond, the greedy (which keeps a pass within
         * milliseconds: the exact DP costs groups x capacity x options) */
        int method =
            (int64_t)ng * ((int64_t)cap + 1) <= EXACT_CELLS ? BERTH_MCKP_EXACT : BERTH_MCKP_GREEDY;
        if ((rc = berth__mckp_solve(g->opts, g->first, ng, cap, method, g->choice, &value, err)))
            return rc;
        for (size_t i = 0; i < ng; i++)
            g->sc[g->grp[i]].tgt = g->sc[g->grp[i]].lo + g->opts[g->first[i] + g->choice[i]].weight;
    }
    return 0;
}

/* ---- 3. changes -------------------------------------------------------------------------- */

/* Starts pending job k at n GPUs of its type, or smaller (down to lo) when n cannot be placed;
 * a job preempted in this pass gets its very GPUs back when its old size comes up. 1 started
 * (or restored), 0 not, or an error. */
static int start(struct gp *g, const struct berth__view *v, struct berth__plan *p, size_t k,
                 int32_t n, struct berth_err *err)
{
    uint32_t job = g->act[k];
    struct berth__job *j = &v->jobs[job];
    int t = g->sc[k].type;
    int32_t was = p->touch_of[job] >= 0 && p->touched[p->touch_of[job]].was_running
                      ? p->touched[p->touch_of[job]].was_gpus
                      : 0;
    for (; n >= g->sc[k].lo; n--) {
        if (n == was && j->gpus == was && berth__plan_can_restore(p, job))
            return berth__plan_restore(p, job, err) ? -1 : 1;
        if (v->cluster->types[t].free < n)
            continue;
        int rc = berth__plan_start_n_type(p, job, n, t, err);
        if (rc == 0) {
            g->ai[k].started = v->now;
            return 1;
        }
        if (rc != BERTH_NOFIT)
            return -1;
    }
    if (was && berth__plan_can_restore(p, job))
        return berth__plan_restore(p, job, err) ? -1 : 1;
    return 0;
}

static int apply(struct gp *g, const struct berth__view *v, struct berth__plan *p,
                 struct berth_err *err)
{
    int rc;
    size_t ns = 0;
    for (size_t k = 0; k < g->nact; k++) {
        const struct gscratch *s = &g->sc[k]; /* the states as of admission: nothing since */
        int resize = s->state == BERTH_JOB_RUNNING && s->tgt != s->gpus;
        if (resize && (rc = berth__plan_preempt(p, g->act[k], err)))
            return rc;
        if ((resize || s->state == BERTH_JOB_PENDING) && s->tgt > 0) {
            if (BERTH_GROW(g->starts, g->starts_cap, ns + 1))
                return berth_err_set(err, BERTH_ENOMEM, "goodput: out of memory");
            /* largest gangs first, then by job number */
            g->starts[ns++] = (uint64_t)(INT32_MAX - g->sc[k].tgt) << 32 | (uint64_t)k;
        }
    }
    if (ns > 1)
        qsort(g->starts, ns, sizeof *g->starts, cmp_u64);
    for (size_t i = 0; i < ns; i++) {
        size_t k = (size_t)(g->starts[i] & UINT32_MAX);
        if (start(g, v, p, k, g->sc[k].tgt, err) < 0)
            return err->code ? err->code : BERTH_EINTERNAL;
    }
    /* idle GPUs left over: pending jobs at their smallest size, in admission order */
    for (size_t i = 0; i < g->nact && v->cluster->free > 0; i++) {
        size_t k = (size_t)(g->ord[i] & UINT32_MAX);
        const struct berth__job *j = &v->jobs[g->act[k]];
        int32_t tk = p->touch_of[g->act[k]];
        if (j->state != BERTH_JOB_PENDING || (tk >= 0 && p->touched[tk].was_running))
            continue; /* preempted on purpose: restored below if nobody took its GPUs */
        int32_t lo = g->ai[k].bot;
        int64_t room[64];
        for (size_t t = 0; t < v->cluster->ntypes; t++)
            room[t] = v->cluster->types[t].free;
        if ((g->sc[k].type = (int16_t)pick_type(g, v, j, g->ai[k].maxg, lo, room)) < 0)
            continue;
        g->sc[k].lo = lo;
        if (start(g, v, p, k, lo, err) < 0)
            return err->code ? err->code : BERTH_EINTERNAL;
    }
    /* fractional and CPU-only jobs where they fit, in arrival order */
    for (size_t i = 0; i < g->nother; i++) {
        uint32_t job = g->other[i];
        if (v->jobs[job].state != BERTH_JOB_PENDING)
            continue;
        rc = berth__plan_start(p, job, err);
        if (rc < 0)
            return rc;
    }
    /* preempted jobs whose GPUs nobody took keep running (only touched jobs can be) */
    for (size_t i = 0; i < p->ntouched; i++)
        if (berth__plan_can_restore(p, p->touched[i].job) &&
            (rc = berth__plan_restore(p, p->touched[i].job, err)))
            return rc;
    return 0;
}

/* ---- the policy interface ------------------------------------------------------------------ */

static int gp_plan(void *self, const struct berth__view *v, struct berth__plan *p,
                   struct berth_err *err)
{
    struct gp *g = self;
    int rc;
    if (v->cluster->ntypes > 64)
        return berth_err_set(err, BERTH_EINPUT, "goodput: more than 64 GPU types");
    if (curves_init(g, v))
        return berth_err_set(err, BERTH_ENOMEM, "goodput: out of memory");
    for (size_t i = 0; i < v->narrived; i++)
        if (track(g, v, v->arrived[i]))
            return berth_err_set(err, BERTH_ENOMEM, "goodput: out of memory");
    if (v->nleft) {
        drop_left(g->act, g->ai, &g->nact, v);
        drop_left(g->other, NULL, &g->nother, v);
    }
    if (scratch(g, g->nact))
        return berth_err_set(err, BERTH_ENOMEM, "goodput: out of memory");
    /* GPUs the knapsack may hand out per type: idle ones and those of whole-GPU jobs it
     * manages (fractional jobs' GPUs are not idle and not counted) */
    int64_t room[64];
    for (size_t t = 0; t < v->cluster->ntypes; t++)
        room[t] = v->cluster->types[t].free;
    admit(g, v, room);
    if ((rc = sizes(g, v, room, err)))
        return rc;
    if ((rc = apply(g, v, p, err)))
        return rc;
    /* a round can change something only while a job waits (levels, starvation) or an
     * elastic job runs (it may grow once its hold is over) */
    g->rounds = 0;
    for (size_t k = 0; k < g->nact && !g->rounds; k++) {
        const struct berth__job *j = &v->jobs[g->act[k]];
        g->rounds = j->state == BERTH_JOB_PENDING || g->ai[k].bot < g->ai[k].maxg;
    }
    return 0;
}

/* The next round boundary (a grid from time 0) while a round can change something. */
static berth_us gp_next_pass(void *self, const struct berth__view *v)
{
    struct gp *g = self;
    if (!g->rounds || (!v->npending && !v->nrunning))
        return BERTH_TIME_NONE;
    return (v->now / g->round_us + 1) * g->round_us;
}

static int create(int kind, const struct berth__params *prm, void **self, struct berth_err *err)
{
    struct gp *g = calloc(1, sizeof *g);
    if (!g)
        return berth_err_set(err, BERTH_ENOMEM, "goodput: out of memory");
    g->kind = kind;
    g->round_us = prm->round_us > 0 ? prm->round_us : DEFAULT_ROUND_US;
    g->restart_us = prm->restart_us;
    g->restart_tiers = prm->restart_tiers;
    *self = g;
    return 0;
}

static void gp_destroy(void *self)
{
    struct gp *g = self;
    if (!g)
        return;
    free(g->act);
    free(g->ai);
    free(g->other);
    free(g->ord);
    free(g->ord_tmp);
    free(g->sc);
    free(g->opts);
    free(g->first);
    free(g->grp);
    free(g->choice);
    free(g->starts);
    free(g->curve);
    free(g);
}

static int create_plain(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create(PLAIN, p, self, err);
}

static int create_hetero(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create(HETERO, p, self, err);
}

const struct berth__policy_ops berth__policy_goodput = {
    .name = "goodput",
    .summary =
        "Pollux-like elastic sizes: GPUs where they raise total normalised goodput (knapsack, "
        "restart costs counted), least attained service admitted first",
    .default_placement = "consolidate",
    .create = create_plain,
    .destroy = gp_destroy,
    .plan = gp_plan,
    .next_pass = gp_next_pass,
};

const struct berth__policy_ops berth__policy_goodput_hetero = {
    .name = "goodput-hetero",
    .summary = "goodput, and each job admitted on the GPU type where it runs fastest (Sia-like)",
    .default_placement = "consolidate",
    .create = create_hetero,
    .destroy = gp_destroy,
    .plan = gp_plan,
    .next_pass = gp_next_pass,
};
