/* Aryl / Lyra (EuroSys'23): capacity loaning and elastic scaling.
 *
 * The cluster's "inference" pool lends idle servers to training: it is a lender (sched/lend.h,
 * the accounting quota.c's cohorts use too) whose lending limit the demand signal sets at
 * every pass: when the view carries an inference demand D (servers in use), L = |S_I| - D -
 * headroom of them are lent, and when D rises what is owed comes back: the loaned servers
 * whose return preempts the fewest jobs are reclaimed (reclaim.c, greedy, recomputed after
 * each pick): elastic jobs there shrink in place, the others are preempted.
 * Pending jobs are admitted in arrival order (first fit) at their minimum size, on training
 * servers first; inelastic jobs take loaned servers as a last resort; when a job does not
 * fit, elastic jobs give up extra workers for it. The GPUs left are shared among elastic
 * jobs by a multiple-choice knapsack (mckp.c): job j's option "w workers" weighs w - min GPUs
 * and is worth RT(min) - RT(w) seconds (RT = work left / the model's rate at w), less the
 * scale cost when w is not its size now; a job grows only when the gain beats twice the
 * scale cost and it has not been resized for a while (hysteresis).
 *
 * Four names: aryl (both), aryl-loan (loaning, no elasticity), aryl-elastic (elasticity, no
 * loaning), aryl-base (neither: first fit on the training servers). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/alloc.h"
#include "model/tput.h"
#include "sched/lend.h"
#include "sched/plan.h"
#include "sched/settings.h"
#include "solve/mckp.h"
#include "solve/reclaim.h"

#define HYSTERESIS_US   (300 * BERTH_US_PER_S) /* Δ_min: a job grows at most this often */
#define DEFAULT_SCALE_S 20.0                   /* c_scale: Lyra's 10-30 s */

/* What a start asks for: jobs of one shape fit or fail alike within a pass phase. */
struct shape {
    int32_t gpus, share;
    uint64_t type_mask;
    int64_t cpu, mem, gpu_mem;
    uint8_t single;
};

struct aryl {
    int loan, elastic;
    int32_t headroom_milli; /* of |S_I|, kept idle for inference bursts */
    double scale_s;         /* scale cost when the job gives none */
    int ready;
    uint32_t *infer; /* the inference pool's servers, in index order */
    size_t ninfer;
    uint8_t *is_infer; /* per server */
    /* the inference pool as a lender (sched/lend.h), in servers: its limit set by the
     * demand signal at every pass, lent = its servers not reserved for inference */
    struct berth__lender pool;
    berth_us *resized; /* per job: last resize (BERTH_TIME_NONE never) */
    int32_t *local;    /* per job: scratch of a reclaim (0 between passes) */
    int32_t *xs;       /* per server: extra workers there (scratch, 0 between uses) */
    double **rates;    /* per job: the model's rates at min..max on type rtype, or NULL */
    int16_t *rtype;
    size_t njobs_cap, local_cap, rates_cap, rtype_cap;
    /* active jobs (pending or running), by job number: a pass looks at these only */
    uint32_t *act;
    size_t nact, act_cap, ngone; /* ngone: entries of jobs that left, not yet dropped */
    struct shape *ash;           /* beside act: each job's shape (a pass read it off the job's spec,
                                    a cache miss per pending job) */
    size_t ash_cap;
    size_t nelastic; /* act's elastic jobs (those that left too, until dropped) */
    berth_us next_t; /* the earliest hysteresis expiry that matters, for next_pass */
    /* knapsack scratch */
    struct berth__mckp_option *opts;
    size_t opts_cap;
    uint32_t *first, *group, *choice;
    size_t first_cap, group_cap, choice_cap;
};

struct aryl_settings {
    int32_t loan_headroom_milli;
    berth_us scale_cost_us;
};

static const struct berth__setting settings[] = {
    {"loan_headroom", BERTH_SET_PERMILLE, offsetof(struct aryl_settings, loan_headroom_milli), 0,
     100, "inference servers kept idle when lending, % of the inference pool (default 5)"},
    {"scale_cost", BERTH_SET_SECONDS, offsetof(struct aryl_settings, scale_cost_us), 0, 1e6,
     "the cost of a resize for a job that gives none, seconds (default: the restart cost, "
     "else 20)"},
};

static int create(const struct berth__params *p, void **self, struct berth_err *err, int loan,
                  int elastic, const char *name)
{
    struct aryl_settings set = {50, p->restart_us};
    int rc = berth__settings_parse(name, p->settings, settings, sizeof settings / sizeof *settings,
                                   &set, err);
    if (rc)
        return rc;
    struct aryl *a = calloc(1, sizeof *a);
    if (!a)
        return berth_err_set(err, BERTH_ENOMEM, "aryl: out of memory");
    a->loan = loan;
    a->elastic = elastic;
    a->next_t = BERTH_TIME_NONE;
    a->headroom_milli = set.loan_headroom_milli;
    a->scale_s = set.scale_cost_us > 0 ? (double)set.scale_cost_us / 1e6 : DEFAULT_SCALE_S;
    *self = a;
    return 0;
}

static void destroy(void *self)
{
    struct aryl *a = self;
    if (!a)
        return;
    free(a->infer);
    free(a->is_infer);
    free(a->resized);
    free(a->local);
    free(a->xs);
    for (size_t i = 0; a->rates && i < a->rates_cap; i++)
        free(a->rates[i]);
    free(a->rates);
    free(a->rtype);
    free(a->act);
    free(a->ash);
    free(a->opts);
    free(a->first);
    free(a->group);
    free(a->choice);
    free(a);
}

static int setup(struct aryl *a, const struct berth_cluster *c)
{
    a->is_infer = calloc(c->nsrv ? c->nsrv : 1, 1);
    a->xs = calloc(c->nsrv ? c->nsrv : 1, sizeof *a->xs);
    a->infer = malloc((c->nsrv ? c->nsrv : 1) * sizeof *a->infer);
    if (!a->is_infer || !a->infer || !a->xs)
        return BERTH_ENOMEM;
    for (size_t s = 0; s < c->nsrv; s++) {
        int32_t p = c->srv[s].pool;
        if (p >= 0 && !strcasecmp(c->pools[p], "inference")) {
            a->is_infer[s] = 1;
            a->infer[a->ninfer++] = (uint32_t)s;
        }
    }
    a->ready = 1;
    return 0;
}

static int is_elastic(const struct aryl *a, const struct berth__job *j)
{
    return a->elastic && j->share == 1000 && j->spec->max_gpus > j->spec->min_gpus &&
           j->spec->max_gpus > 0;
}

static int32_t min_size(const struct aryl *a, const struct berth__job *j)
{
    if (!is_elastic(a, j))
        return j->gpus;
    return j->spec->min_gpus > 1 ? j->spec->min_gpus : 1;
}

/* The model's rate of job j at w GPUs of its type, consolidated on one server or spread
 * over several (spread), cached per job for its elastic range; 0 without a model rate
 * (fixed-speed jobs run at one speed whatever their gang: growing them gains nothing). */
static double rate_at(struct aryl *a, const struct berth__view *v, const struct berth__job *j,
                      int32_t w, int spread)
{
    if (!v->tput || j->cls < 0 || j->type < 0 || v->tput_type[j->type] < 0)
        return 0;
    int32_t lo = min_size(a, j), hi = j->spec->max_gpus > lo ? j->spec->max_gpus : lo;
    int32_t n = hi - lo + 1;
    double **r = &a->rates[j->idx];
    if (!*r || a->rtype[j->idx] != j->type) {
        if (!*r && !(*r = malloc(2 * (size_t)n * sizeof **r))) /* no cache: the same rate */
            return berth__tput_rate_sp(v->tput, v->spread, j->cls, v->tput_type[j->type], w,
                                       spread);
        for (int32_t g = lo; g <= hi; g++) {
            (*r)[g - lo] =
                berth__tput_rate_sp(v->tput, v->spread, j->cls, v->tput_type[j->type], g, 0);
            (*r)[n + g - lo] =
                berth__tput_rate_sp(v->tput, v->spread, j->cls, v->tput_type[j->type], g, 1);
        }
        a->rtype[j->idx] = j->type;
    }
    return w >= lo && w <= hi
               ? (*r)[(spread ? n : 0) + w - lo]
               : berth__tput_rate_sp(v->tput, v->spread, j->cls, v->tput_type[j->type], w, spread);
}

/* Seconds to finish the work left with w GPUs of the job's type; -1 without a model rate. */
static double rt_s(struct aryl *a, const struct berth__view *v, const struct berth__job *j,
                   int32_t w, int spread)
{
    double r = rate_at(a, v, j, w, spread);
    if (r <= 0)
        return -1;
    return (j->work - berth__job_done(j, v->now)) / r;
}

/* GPUs job j holds on server s. */
static int32_t held_on(const struct berth__job *j, uint32_t s)
{
    int32_t n = 0;
    for (int32_t k = 0; k < j->gpus; k++)
        n += j->slots[k].server == s;
    return n;
}

/* The largest gang running job j could have on one of its servers: what it holds there
 * plus the room left (a larger gang must spread). */
static int32_t one_server_most(const struct berth__view *v, const struct berth__job *j)
{
    int32_t best = 0;
    for (int32_t k = 0; k < j->gpus; k++) {
        uint32_t s = j->slots[k].server;
        int32_t seen = 0; /* once per server: after an in-place growth its slots interleave */
        for (int32_t i = 0; i < k && !seen; i++)
            seen = j->slots[i].server == s;
        if (seen)
            continue;
        int32_t most = held_on(j, s) + berth__server_room(v->cluster, s, j);
        best = most > best ? most : best;
    }
    return best;
}

static double scale_s(const struct aryl *a, const struct berth__job *j)
{
    return berth_jobspec_extra(j->spec)->restart_us > 0
               ? (double)berth_jobspec_extra(j->spec)->restart_us / 1e6
               : a->scale_s;
}

/* Adds up to want GPUs of job j on server s; returns how many. */
static int32_t take_on(struct berth__plan *plan, uint32_t ji, uint32_t s, int32_t want,
                       struct berth_err *err, int *rc)
{
    const struct berth_cluster *c = plan->cluster;
    const struct berth__job *j = &plan->jobs[ji];
    if (c->srv[s].type != j->type || (j->single && s != j->slots[0].server) || c->srv[s].reserved)
        return 0;
    int32_t room = berth__server_room(c, s, j);
    room = room < want ? room : want;
    if (room <= 0 || (*rc = berth__plan_grow_on(plan, ji, s, room, err)))
        return 0;
    return room;
}

/* Grows running job j by up to d GPUs in place. Extra workers go first to the servers it
 * already uses (a gang across servers runs at the model's slower spread rate), then to
 * loaned servers (so that a reclaim only shrinks it, as in Lyra), then to the servers of its
 * type with the most idle GPUs (found through the free-GPU buckets). Returns the GPUs added. */
static int32_t grow_by(struct aryl *a, const struct berth__view *v, struct berth__plan *plan,
                       uint32_t ji, int32_t d, struct berth_err *err, int *rc)
{
    const struct berth_cluster *c = v->cluster;
    const struct berth__job *j = &v->jobs[ji];
    int32_t added = 0, held = j->gpus;
    for (int32_t k = 0; k < held && added < d && !*rc; k++)
        if (k == 0 || j->slots[k].server != j->slots[k - 1].server)
            added += take_on(plan, ji, j->slots[k].server, d - added, err, rc);
    for (size_t k = 0; k < a->ninfer && added < d && !*rc && c->free; k++)
        added += take_on(plan, ji, a->infer[k], d - added, err, rc);
    /* the rest: collect servers from the buckets first (growing moves them between buckets) */
    const struct berth__gputype *ty = &c->types[j->type];
    uint32_t pick[BERTH_MAX_SERVER_GPUS];
    int np = 0, want = d - added;
    for (int f = ty->max_per_server; f >= 1 && want > 0 && np < BERTH_MAX_SERVER_GPUS; f--)
        for (int32_t s = ty->head[f]; s >= 0 && want > 0 && np < BERTH_MAX_SERVER_GPUS;
             s = c->srv[s].next) {
            pick[np++] = (uint32_t)s;
            want -= f;
        }
    for (int k = 0; k < np && added < d && !*rc; k++)
        added += take_on(plan, ji, pick[k], d - added, err, rc);
    if (added)
        a->resized[ji] = v->now;
    return added;
}

/* Lends or reclaims inference servers so that the pool lends its limit L = |S_I| - D -
 * headroom (0 for a policy that does not loan): the room left goes out, what is owed comes
 * back. */
static int loans(struct aryl *a, const struct berth__view *v, struct berth__plan *plan,
                 struct berth_err *err)
{
    const struct berth_cluster *c = v->cluster;
    int64_t head = ((int64_t)a->ninfer * a->headroom_milli + 999) / 1000;
    a->pool.limit =
        a->loan ? berth__lend_limit((int64_t)a->ninfer, v->infer_demand + head, BERTH_LEND_ALL) : 0;
    a->pool.lent = 0;
    for (size_t i = 0; i < a->ninfer; i++)
        a->pool.lent += !c->srv[a->infer[i]].reserved;
    size_t lent = (size_t)a->pool.lent;
    int rc = 0;
    if (berth__lend_room(&a->pool)) { /* lend the lowest-numbered reserved servers, never one
                                        that hosts inference's own work (pinned) */
        for (size_t i = 0; i < a->ninfer && berth__lend_room(&a->pool) && !rc; i++)
            if (c->srv[a->infer[i]].reserved && !c->srv[a->infer[i]].pinned) {
                rc = berth__plan_unreserve(plan, a->infer[i], err);
                a->pool.lent++;
            }
        return rc;
    }
    if (!berth__lend_owed(&a->pool))
        return 0;
    /* reclaim what is owed: the jobs on loaned servers, and where they run */
    size_t k = (size_t)berth__lend_owed(&a->pool), ncand = 0, nplaces = 0, njobs = 0;
    uint32_t *cand = malloc(lent * sizeof *cand);
    uint32_t *jobmap = NULL; /* reclaim job index -> engine job */
    struct berth__rc_job *rj = NULL;
    struct berth__rc_place *pl = NULL;
    struct berth__rc_step *steps = malloc(k * sizeof *steps);
    uint8_t *pre = NULL;
    int32_t *local = a->local; /* engine job -> index + 1, zeroed again below */
    size_t maxplaces = 0;
    for (size_t i = 0; i < a->ninfer; i++)
        if (!c->srv[a->infer[i]].reserved)
            maxplaces += (size_t)c->srv[a->infer[i]].ngpus;
    pl = malloc((maxplaces ? maxplaces : 1) * sizeof *pl);
    jobmap = malloc((maxplaces ? maxplaces : 1) * sizeof *jobmap);
    rj = malloc((maxplaces ? maxplaces : 1) * sizeof *rj);
    pre = calloc(maxplaces ? maxplaces : 1, 1);
    if (!cand || !steps || !pl || !jobmap || !rj || !pre) {
        rc = berth_err_set(err, BERTH_ENOMEM, "aryl: out of memory");
        goto done;
    }
    for (size_t i = 0; i < a->ninfer; i++)
        if (!c->srv[a->infer[i]].reserved)
            cand[ncand++] = a->infer[i];
    /* every running job with a slot on a candidate server: scan the running jobs once */
    for (size_t q = 0; q < a->nact; q++) {
        size_t ji = a->act[q];
        const struct berth__job *j = &v->jobs[ji];
        if (j->state != BERTH_JOB_RUNNING || !j->gpus)
            continue;
        for (int32_t s = 0; s < j->gpus; s++) {
            uint32_t sv = j->slots[s].server;
            if (!a->is_infer[sv] || c->srv[sv].reserved)
                continue;
            if (!local[ji]) {
                local[ji] = (int32_t)++njobs;
                jobmap[njobs - 1] = (uint32_t)ji;
                rj[njobs - 1] =
                    (struct berth__rc_job){.workers = j->gpus,
                                           .min_workers = min_size(a, j),
                                           .elastic = (uint8_t)is_elastic(a, j),
                                           .remaining = j->work - berth__job_done(j, v->now)};
            }
            if (nplaces && pl[nplaces - 1].job == (uint32_t)(local[ji] - 1) &&
                pl[nplaces - 1].server == sv)
                pl[nplaces - 1].workers++;
            else
                pl[nplaces++] = (struct berth__rc_place){
                    .server = sv, .job = (uint32_t)(local[ji] - 1), .workers = 1};
        }
    }
    /* a fractional job holds a share, not a worker: it cannot shrink */
    for (size_t i = 0; i < njobs; i++)
        if (v->jobs[jobmap[i]].share < 1000)
            rj[i].elastic = 0;
    size_t nsteps = 0;
    rc = berth__reclaim(cand, ncand, rj, njobs, pl, nplaces, k, steps, &nsteps, pre, err);
    /* jobs reclaim preempts leave; the others shrink off every returned server they use */
    uint8_t *ret = calloc(c->nsrv ? c->nsrv : 1, 1);
    if (!rc && !ret)
        rc = berth_err_set(err, BERTH_ENOMEM, "aryl: out of memory");
    for (size_t i = 0; i < nsteps && !rc; i++)
        ret[steps[i].server] = 1;
    for (size_t i = 0; i < njobs && !rc; i++) {
        uint32_t ji = jobmap[i];
        if (pre[i]) {
            rc = berth__plan_preempt(plan, ji, err);
            continue;
        }
        for (size_t st = 0; st < nsteps && !rc; st++) {
            const struct berth__job *j = &v->jobs[ji];
            int on = 0;
            for (int32_t q = 0; q < j->gpus && !on; q++)
                on = j->slots[q].server == steps[st].server;
            if (on && !(rc = berth__plan_shrink_off(plan, ji, steps[st].server, err)))
                a->resized[ji] = v->now;
        }
    }
    for (size_t i = 0; i < nsteps && !rc; i++)
        if (!(rc = berth__plan_reserve(plan, steps[i].server, err)))
            a->pool.lent--;
    free(ret);
done:
    for (size_t i = 0; i < njobs; i++)
        local[jobmap[i]] = 0;
    free(cand);
    free(steps);
    free(pl);
    free(jobmap);
    free(rj);
    free(pre);
    return rc;
}

/* Frees at least need GPUs for an admission by shrinking elastic jobs with the most extra
 * workers first; returns the GPUs freed. */
static int32_t shrink_for(struct aryl *a, const struct berth__view *v, struct berth__plan *plan,
                          int32_t need, struct berth_err *err, int *rc)
{
    int32_t freed = 0;
    while (freed < need && !*rc) {
        uint32_t best = UINT32_MAX;
        int32_t most = 0;
        for (size_t q = 0; q < a->nact; q++) {
            size_t ji = a->act[q];
            const struct berth__job *j = &v->jobs[ji];
            if (j->state == BERTH_JOB_RUNNING && is_elastic(a, j) &&
                j->gpus - min_size(a, j) > most) {
                most = j->gpus - min_size(a, j);
                best = (uint32_t)ji;
            }
        }
        if (best == UINT32_MAX)
            break;
        int32_t d = need - freed < most ? need - freed : most;
        if ((*rc = berth__plan_shrink_to(plan, best, v->jobs[best].gpus - d, err)))
            break;
        a->resized[best] = v->now;
        freed += d;
    }
    return freed;
}

/* GPUs job j holds on server s. */
/* Adds (sign 1) or removes (-1) running elastic job j's extra workers to a->xs: on each of
 * its servers, as many as it holds there, at most its extras. */
static void count_extras(struct aryl *a, const struct berth__job *j, int sign)
{
    int32_t extra = j->gpus - min_size(a, j);
    for (int32_t k = 0; k < j->gpus; k++) {
        uint32_t s = j->slots[k].server;
        int first = 1;
        for (int32_t q = 0; q < k && first; q++)
            first = j->slots[q].server != s;
        if (first) {
            int32_t on = held_on(j, s);
            a->xs[s] += sign * (on < extra ? on : extra);
        }
    }
}

/* Makes room for pending job ji's base gang b on one server by shrinking elastic jobs' extra
 * workers there: the server of a type ji may use whose idle GPUs plus the extras on it
 * cover b, with the most idle GPUs (fewest shrinks; ties to the lower index). Returns the
 * GPUs freed (0: no such server, nothing changed). */
static int32_t room_on_one(struct aryl *a, const struct berth__view *v, struct berth__plan *plan,
                           uint32_t ji, int32_t b, struct berth_err *err, int *rc)
{
    const struct berth_cluster *c = v->cluster;
    const struct berth__job *p = &v->jobs[ji];
    for (size_t q = 0; q < a->nact; q++) {
        const struct berth__job *j = &v->jobs[a->act[q]];
        if (j->state == BERTH_JOB_RUNNING && is_elastic(a, j) && j->gpus > min_size(a, j))
            count_extras(a, j, 1);
    }
    int64_t best = -1;
    for (size_t s = 0; s < c->nsrv; s++) {
        const struct berth__server *sv = &c->srv[s];
        if (sv->reserved || (p->type_mask && !(p->type_mask >> sv->type & 1)) ||
            sv->nfree + a->xs[s] < b || (best >= 0 && sv->nfree <= c->srv[best].nfree))
            continue;
        best = (int64_t)s;
    }
    int32_t freed = 0, need = best >= 0 ? b - c->srv[best].nfree : 0;
    for (size_t q = 0; q < a->nact; q++) {
        uint32_t k = a->act[q];
        const struct berth__job *j = &v->jobs[k];
        if (j->state != BERTH_JOB_RUNNING || !is_elastic(a, j) || j->gpus <= min_size(a, j))
            continue;
        count_extras(a, j, -1); /* back to zero as we go */
        if (freed >= need || *rc)
            continue;
        int32_t on = held_on(j, (uint32_t)best), extra = j->gpus - min_size(a, j);
        int32_t d = need - freed;
        d = d < on ? d : on;
        d = d < extra ? d : extra;
        if (d > 0 && !(*rc = berth__plan_shrink_on(plan, k, (uint32_t)best, d, err))) {
            a->resized[k] = v->now;
            freed += d;
        }
    }
    return freed;
}

static int32_t extras(const struct aryl *a, const struct berth__view *v)
{
    int32_t x = 0;
    for (size_t q = 0; q < a->nact && a->nelastic; q++) {
        size_t ji = a->act[q];
        const struct berth__job *j = &v->jobs[ji];
        if (j->state == BERTH_JOB_RUNNING && is_elastic(a, j))
            x += j->gpus - min_size(a, j);
    }
    return x;
}

#define MAX_SHAPES 32

static struct shape shape_of(const struct aryl *a, const struct berth__job *j)
{
    return (struct shape){.gpus = min_size(a, j),
                          .share = j->share,
                          .type_mask = j->type_mask,
                          .cpu = berth_jobspec_extra(j->spec)->cpu_milli,
                          .mem = berth_jobspec_extra(j->spec)->mem_mib,
                          .gpu_mem = berth_jobspec_extra(j->spec)->gpu_mem_mib,
                          .single = j->single};
}

static int shape_failed(const struct shape *f, int n, const struct shape *s)
{
    for (int i = 0; i < n; i++)
        if (f[i].gpus == s->gpus && f[i].share == s->share && f[i].type_mask == s->type_mask &&
            f[i].cpu == s->cpu && f[i].mem == s->mem && f[i].gpu_mem == s->gpu_mem &&
            f[i].single == s->single)
            return 1;
    return 0;
}

/* Starts pending job ji at its base size (the minimum of an elastic job), on one server
 * when one server of its type could hold the gang: a gang spread over servers runs at the
 * model's spread rate, often far slower, so it waits for a server instead (Lyra packs each
 * job onto as few servers as possible), unless the run asked for the spread placement.
 * 1 when started. */
static int start_packed(struct aryl *a, const struct berth__view *v, struct berth__plan *plan,
                        uint32_t ji, struct berth_err *err, int *rc)
{
    const struct berth__job *j = &v->jobs[ji];
    int got = is_elastic(a, j) ? berth__plan_start_n(plan, ji, min_size(a, j), err)
                               : berth__plan_start(plan, ji, err);
    if (got < 0) {
        *rc = got;
        return 0;
    }
    int ok = got == 0;
    if (ok && j->gpus && j->servers > 1 && plan->placement != BERTH_PLACE_SPREAD &&
        j->gpus <= v->cluster->types[j->type].max_per_server) {
        *rc = berth__plan_preempt(plan, ji, err); /* undone: it never ran */
        ok = 0;
    }
    return ok;
}

/* Starts pending jobs in arrival order, first fit: base workers on training servers first
 * (loaned servers hidden); then, over all servers, inelastic jobs that did not fit (loaned
 * servers as a last resort) and jobs for which elastic jobs give up extra workers. */
static int admit(struct aryl *a, const struct berth__view *v, struct berth__plan *plan,
                 struct berth_err *err)
{
    if (!plan->npending)
        return 0;
    const struct berth_cluster *c = v->cluster;
    int rc = 0;
    for (size_t k = 0; k < a->ninfer && !rc; k++)
        if (!c->srv[a->infer[k]].reserved)
            rc = berth__plan_hide(plan, a->infer[k]);
    struct shape failed[MAX_SHAPES];
    int nfailed = 0;
    /* the active list is in arrival order; a pass stops when nothing idle is left (the idle
     * capacity only shrinks as jobs start), so it costs the jobs visited, not all pending */
    for (size_t q = 0; q < a->nact && !rc && (c->free || c->frac_idle); q++) {
        uint32_t ji = a->act[q];
        const struct berth__job *j = &v->jobs[ji];
        if (j->state != BERTH_JOB_PENDING)
            continue;
        const struct shape *sh = &a->ash[q];
        if (!shape_failed(failed, nfailed, sh) && !start_packed(a, v, plan, ji, err, &rc) && !rc &&
            nfailed < MAX_SHAPES)
            failed[nfailed++] = *sh;
    }
    berth__plan_unhide_all(plan);
    /* then over all servers: inelastic jobs (loaned servers as a last resort), and jobs for
     * which elastic jobs give up extra workers */
    int32_t spare = a->elastic ? extras(a, v) : 0;
    nfailed = 0;
    for (size_t q = 0; q < a->nact && !rc && (c->free || c->frac_idle || spare > 0); q++) {
        uint32_t ji = a->act[q];
        const struct berth__job *j = &v->jobs[ji];
        if (j->state != BERTH_JOB_PENDING)
            continue;
        const struct shape *sh = &a->ash[q];
        int32_t base = sh->gpus; /* min_size */
        int ok = !is_elastic(a, j) && !shape_failed(failed, nfailed, sh) &&
                 start_packed(a, v, plan, ji, err, &rc);
        if (ok || rc)
            continue;
        if (spare <= 0 || j->share < 1000 || base > spare + c->free) {
            if (!is_elastic(a, j) && nfailed < MAX_SHAPES && !shape_failed(failed, nfailed, sh))
                failed[nfailed++] = *sh;
            continue;
        }
        /* a gang one server could hold: room on one server; a larger one: room anywhere */
        int one = 1;
        for (size_t t = 0; t < c->ntypes && one; t++)
            if (!j->type_mask || (j->type_mask >> t & 1))
                one = base <= c->types[t].max_per_server;
        spare -= one ? room_on_one(a, v, plan, ji, base, err, &rc)
                     : shrink_for(a, v, plan, base - c->free, err, &rc);
        if (!rc)
            start_packed(a, v, plan, ji, err, &rc);
    }
    return rc;
}

/* Shares the idle GPUs among running elastic jobs by the knapsack on JCT reduction. */
static int grow(struct aryl *a, const struct berth__view *v, struct berth__plan *plan,
                struct berth_err *err)
{
    size_t ng = 0, no = 0;
    int32_t cap = v->cluster->free;
    for (size_t q = 0; q < a->nact && a->nelastic; q++) {
        size_t ji = a->act[q];
        const struct berth__job *j = &v->jobs[ji];
        if (j->state != BERTH_JOB_RUNNING || !is_elastic(a, j) || rt_s(a, v, j, j->gpus, 0) < 0)
            continue;
        /* sizes beyond what one of its servers can hold run at the spread rate */
        int32_t lo = min_size(a, j), hi = j->spec->max_gpus, one = one_server_most(v, j);
        double rt_lo = rt_s(a, v, j, lo, lo > one), sc = scale_s(a, j);
        if (rt_lo < 0)
            continue; /* the model cannot run its smallest gang: it keeps its size */
        if (BERTH_GROW(a->group, a->group_cap, ng + 2) ||
            BERTH_GROW(a->first, a->first_cap, ng + 2) ||
            BERTH_GROW(a->choice, a->choice_cap, ng + 2) ||
            BERTH_GROW(a->opts, a->opts_cap, no + (size_t)(hi - lo + 1)))
            return berth_err_set(err, BERTH_ENOMEM, "aryl: out of memory");
        a->group[ng] = (uint32_t)ji;
        a->first[ng] = (uint32_t)no;
        for (int32_t w = lo; w <= hi; w++) {
            /* a size the model cannot run on its type (a measured 0: it does not fit the
             * GPUs' memory) is never chosen; it used to count as a saving of rt_lo + 1 s */
            double rt = rt_s(a, v, j, w, w > one);
            double val = rt < 0 ? -1e300 : rt_lo - rt;
            if (w != j->gpus) /* a change costs the scale cost, and must beat hysteresis */
                val -= (w > j->gpus ? 2.0 : 1.0) * sc;
            a->opts[no++] = (struct berth__mckp_option){.weight = w - lo, .value = val};
        }
        cap += j->gpus - lo;
        ng++;
    }
    if (!ng)
        return 0;
    a->first[ng] = (uint32_t)no;
    double total;
    int rc = berth__mckp_solve(a->opts, a->first, ng, cap, BERTH_MCKP_AUTO, a->choice, &total, err);
    if (rc)
        return rc;
    /* shrinks first (they free GPUs), then growths of jobs not resized lately */
    for (int pass = 0; pass < 2 && !rc; pass++)
        for (size_t g = 0; g < ng && !rc; g++) {
            uint32_t ji = a->group[g];
            const struct berth__job *j = &v->jobs[ji];
            int32_t w = min_size(a, j) + a->opts[a->first[g] + a->choice[g]].weight;
            if (w == j->gpus || (pass == 0) != (w < j->gpus))
                continue;
            if (w < j->gpus) {
                if (!(rc = berth__plan_shrink_to(plan, ji, w, err)))
                    a->resized[ji] = v->now;
            } else if (a->resized[ji] == BERTH_TIME_NONE ||
                       v->now - a->resized[ji] >= HYSTERESIS_US) {
                grow_by(a, v, plan, ji, w - j->gpus, err, &rc);
            }
        }
    return rc;
}

/* Grows the per-job arrays to n jobs (new entries: never resized, no rates cached). Each
 * array's new entries are set as soon as it grew, so that a later one failing leaves every
 * array valid (destroy frees the cached rates) and a later call completes the rest. */
static int grow_jobs(struct aryl *a, size_t n)
{
    if (!n)
        return 0;
    size_t old = a->njobs_cap;
    if (BERTH_GROW(a->resized, a->njobs_cap, n))
        return BERTH_ENOMEM;
    for (size_t i = old; i < a->njobs_cap; i++)
        a->resized[i] = BERTH_TIME_NONE;
    old = a->local_cap;
    if (BERTH_GROW(a->local, a->local_cap, n))
        return BERTH_ENOMEM;
    memset(a->local + old, 0, (a->local_cap - old) * sizeof *a->local);
    old = a->rates_cap;
    if (BERTH_GROW(a->rates, a->rates_cap, n))
        return BERTH_ENOMEM;
    memset(a->rates + old, 0, (a->rates_cap - old) * sizeof *a->rates);
    old = a->rtype_cap;
    if (BERTH_GROW(a->rtype, a->rtype_cap, n))
        return BERTH_ENOMEM;
    memset(a->rtype + old, 0, (a->rtype_cap - old) * sizeof *a->rtype);
    return 0;
}

/* Brings the active list up to date: arrivals join (job numbers grow with arrival, so the
 * list stays sorted), jobs that left are dropped and their cached rates freed. */
static int sync_active(struct aryl *a, const struct berth__view *v)
{
    if (BERTH_GROW(a->act, a->act_cap, a->nact + v->narrived + v->nadopted + 1) ||
        BERTH_GROW(a->ash, a->ash_cap, a->nact + v->narrived + v->nadopted + 1))
        return BERTH_ENOMEM;
    for (size_t i = 0; i < v->narrived + v->nadopted; i++) { /* adopted: running already */
        uint32_t ji = i < v->narrived ? v->arrived[i] : v->adopted[i - v->narrived];
        size_t k = a->nact++;
        for (; k > 0 && a->act[k - 1] > ji; k--) { /* out of order: insert (never in the sim) */
            a->act[k] = a->act[k - 1];
            a->ash[k] = a->ash[k - 1];
        }
        a->act[k] = ji;
        a->ash[k] = shape_of(a, &v->jobs[ji]);
        a->nelastic += is_elastic(a, &v->jobs[ji]);
    }
    /* jobs that left stay until they are half the list (every loop skips them by state) */
    a->ngone += v->nleft;
    if (a->ngone * 2 <= a->nact)
        return 0;
    a->ngone = 0;
    size_t w = 0;
    for (size_t q = 0; q < a->nact; q++) {
        uint32_t ji = a->act[q];
        if (v->jobs[ji].state == BERTH_JOB_DONE) {
            free(a->rates[ji]);
            a->rates[ji] = NULL;
            a->nelastic -= is_elastic(a, &v->jobs[ji]);
        } else {
            a->ash[w] = a->ash[q];
            a->act[w++] = ji;
        }
    }
    a->nact = w;
    return 0;
}

/* The earliest instant a running elastic job's hysteresis ends while GPUs are idle. */
static berth_us next_expiry(const struct aryl *a, const struct berth__view *v)
{
    if (!a->elastic || !v->cluster->free || !a->nelastic)
        return BERTH_TIME_NONE;
    berth_us next = BERTH_TIME_NONE;
    for (size_t q = 0; q < a->nact; q++) {
        uint32_t ji = a->act[q];
        const struct berth__job *j = &v->jobs[ji];
        if (j->state != BERTH_JOB_RUNNING || !is_elastic(a, j) || a->resized[ji] == BERTH_TIME_NONE)
            continue;
        berth_us t = a->resized[ji] + HYSTERESIS_US;
        if (t > v->now && (next == BERTH_TIME_NONE || t < next))
            next = t;
    }
    return next;
}

static int plan_aryl(void *self, const struct berth__view *v, struct berth__plan *plan,
                     struct berth_err *err)
{
    struct aryl *a = self;
    int rc = 0;
    if ((!a->ready && (rc = setup(a, v->cluster))) || (rc = grow_jobs(a, v->njobs)) ||
        (rc = sync_active(a, v)))
        return berth_err_set(err, rc, "aryl: out of memory");
    if (v->infer_demand >= 0 && a->ninfer && (rc = loans(a, v, plan, err)))
        return rc;
    if ((rc = admit(a, v, plan, err)))
        return rc;
    if (a->elastic && (rc = grow(a, v, plan, err)))
        return rc;
    a->next_t = next_expiry(a, v);
    return 0;
}

/* The hysteresis expiry found at the end of the last pass. */
static berth_us next_aryl(void *self, const struct berth__view *v)
{
    const struct aryl *a = self;
    return a->next_t != BERTH_TIME_NONE && a->next_t > v->now ? a->next_t : BERTH_TIME_NONE;
}

static int create_aryl(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create(p, self, err, 1, 1, "aryl");
}

static int create_loan(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create(p, self, err, 1, 0, "aryl-loan");
}

static int create_elastic(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create(p, self, err, 0, 1, "aryl-elastic");
}

static int create_base(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create(p, self, err, 0, 0, "aryl-base");
}

const struct berth__policy_ops berth__policy_aryl = {
    .name = "aryl",
    .summary =
        "Aryl/Lyra: lends idle inference servers to training, elastic jobs share GPUs by knapsack",
    .default_placement = "consolidate",
    .create = create_aryl,
    .destroy = destroy,
    .plan = plan_aryl,
    .next_pass = next_aryl,
    .settings = settings,
    .nsettings = sizeof settings / sizeof *settings,
};

const struct berth__policy_ops berth__policy_aryl_loan = {
    .name = "aryl-loan",
    .summary = "Aryl with capacity loaning only (jobs run at the size they asked for)",
    .default_placement = "consolidate",
    .create = create_loan,
    .destroy = destroy,
    .plan = plan_aryl,
    .next_pass = next_aryl,
    .settings = settings,
    .nsettings = sizeof settings / sizeof *settings,
};

const struct berth__policy_ops berth__policy_aryl_elastic = {
    .name = "aryl-elastic",
    .summary = "Aryl with elastic scaling only (no loaning)",
    .default_placement = "consolidate",
    .create = create_elastic,
    .destroy = destroy,
    .plan = plan_aryl,
    .next_pass = next_aryl,
    .settings = settings,
    .nsettings = sizeof settings / sizeof *settings,
};

const struct berth__policy_ops berth__policy_aryl_base = {
    .name = "aryl-base",
    .summary = "Aryl's baseline: first fit on training servers, no loaning, no elasticity",
    .default_placement = "consolidate",
    .create = create_base,
    .destroy = destroy,
    .plan = plan_aryl,
    .next_pass = next_aryl,
    .settings = settings,
    .nsettings = sizeof settings / sizeof *settings,
};
