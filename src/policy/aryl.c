/* Aryl / Lyra (EuroSys'23): capacity loaning and elastic scaling.
 *
 * The cluster's "inference" pool lends idle servers to training: when the view carries an
 * inference demand D (servers in use), L = |S_I| - D - headroom of them are lent, and when D
 * rises the loaned servers whose return preempts the fewest jobs are reclaimed (reclaim.c,
 * greedy, recomputed after each pick): elastic jobs there shrink, the others are preempted.
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
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mckp.h"
#include "model/tput.h"
#include "plan.h"
#include "reclaim.h"

#define HYSTERESIS_US   (300 * BERTH_US_PER_S) /* Δ_min: a job grows at most this often */
#define DEFAULT_SCALE_S 20.0                   /* c_scale: Lyra's 10-30 s */

struct aryl {
    int loan, elastic;
    int32_t headroom_milli; /* of |S_I|, kept idle for inference bursts */
    double scale_s;         /* scale cost when the job gives none */
    int ready;
    uint32_t *infer; /* the inference pool's servers, in index order */
    size_t ninfer;
    uint8_t *is_infer; /* per server */
    berth_us *resized; /* per job: last resize (BERTH_TIME_NONE never) */
    size_t njobs_cap;
    uint32_t *order; /* scratch: pending jobs in arrival order */
    size_t order_cap;
    /* knapsack scratch */
    struct berth__mckp_option *opts;
    size_t opts_cap;
    uint32_t *first, *group, *choice;
    size_t first_cap, group_cap, choice_cap;
};

static int create(const struct berth_params *p, void **self, struct berth_err *err, int loan,
                  int elastic)
{
    struct aryl *a = calloc(1, sizeof *a);
    if (!a)
        return berth_err_set(err, BERTH_ENOMEM, "aryl: out of memory");
    a->loan = loan;
    a->elastic = elastic;
    a->headroom_milli = p->loan_headroom_milli > 0   ? p->loan_headroom_milli
                        : p->loan_headroom_milli < 0 ? 0
                                                     : 50;
    a->scale_s = p->scale_cost_us > 0 ? (double)p->scale_cost_us / 1e6 : DEFAULT_SCALE_S;
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
    free(a->order);
    free(a->opts);
    free(a->first);
    free(a->group);
    free(a->choice);
    free(a);
}

static int setup(struct aryl *a, const struct berth_cluster *c)
{
    a->is_infer = calloc(c->nsrv ? c->nsrv : 1, 1);
    a->infer = malloc((c->nsrv ? c->nsrv : 1) * sizeof *a->infer);
    if (!a->is_infer || !a->infer)
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

static int is_elastic(const struct aryl *a, const struct berth_job *j)
{
    return a->elastic && j->share == 1000 && j->spec->max_gpus > j->spec->min_gpus &&
           j->spec->max_gpus > 0;
}

static int32_t min_size(const struct aryl *a, const struct berth_job *j)
{
    if (!is_elastic(a, j))
        return j->gpus;
    return j->spec->min_gpus > 1 ? j->spec->min_gpus : 1;
}

/* Seconds to finish the work left with w GPUs of the job's type, or -1 without a model rate
 * (fixed-speed jobs run at one speed whatever their gang: growing them gains nothing). */
static double rt_s(const struct berth_view *v, const struct berth_job *j, int32_t w)
{
    if (!v->tput || j->cls < 0 || j->type < 0 || v->tput_type[j->type] < 0)
        return -1;
    double r = berth__tput_rate(v->tput, j->cls, v->tput_type[j->type], w, 0);
    if (r <= 0)
        return -1;
    return (j->work - berth__job_done(j, v->now)) / r;
}

static double scale_s(const struct aryl *a, const struct berth_job *j)
{
    return j->spec->restart_us > 0 ? (double)j->spec->restart_us / 1e6 : a->scale_s;
}

/* Resizes running job j to n GPUs (preempt, start at n; back to its old GPUs when n does not
 * fit). Returns 1 when resized. */
static int resize(struct aryl *a, struct berth_plan *plan, uint32_t j, int32_t n,
                  struct berth_err *err, int *rc)
{
    if ((*rc = berth__plan_preempt(plan, j, err)))
        return 0;
    if (!berth__plan_start_n(plan, j, n, err)) {
        a->resized[j] = plan->now;
        return 1;
    }
    if (berth__plan_can_restore(plan, j))
        *rc = berth__plan_restore(plan, j, err);
    else /* its old size no longer fits either: start it at its minimum if it can */
        (void)berth__plan_start_n(plan, j, min_size(a, &plan->jobs[j]), err);
    return 0;
}

/* Lends or reclaims inference servers so that L = |S_I| - D - headroom are lent. */
static int loans(struct aryl *a, const struct berth_view *v, struct berth_plan *plan,
                 struct berth_err *err)
{
    const struct berth_cluster *c = v->cluster;
    int64_t head = ((int64_t)a->ninfer * a->headroom_milli + 999) / 1000;
    int64_t target = (int64_t)a->ninfer - v->infer_demand - head;
    if (target < 0 || !a->loan)
        target = 0;
    size_t lent = 0;
    for (size_t i = 0; i < a->ninfer; i++)
        lent += !c->srv[a->infer[i]].reserved;
    int rc = 0;
    if ((int64_t)lent < target) { /* lend the lowest-numbered reserved servers */
        for (size_t i = 0; i < a->ninfer && (int64_t)lent < target && !rc; i++)
            if (c->srv[a->infer[i]].reserved) {
                rc = berth__plan_unreserve(plan, a->infer[i], err);
                lent++;
            }
        return rc;
    }
    if ((int64_t)lent == target)
        return 0;
    /* reclaim lent - target servers: the jobs on loaned servers, and where they run */
    size_t k = lent - (size_t)target, ncand = 0, nplaces = 0, njobs = 0;
    uint32_t *cand = malloc(lent * sizeof *cand);
    uint32_t *jobmap = NULL; /* reclaim job index -> engine job */
    struct berth__rc_job *rj = NULL;
    struct berth__rc_place *pl = NULL;
    struct berth__rc_step *steps = malloc(k * sizeof *steps);
    uint8_t *pre = NULL;
    int32_t *local = calloc(v->njobs ? v->njobs : 1, sizeof *local); /* engine job -> index+1 */
    size_t maxplaces = 0;
    for (size_t i = 0; i < a->ninfer; i++)
        if (!c->srv[a->infer[i]].reserved)
            maxplaces += (size_t)c->srv[a->infer[i]].ngpus;
    pl = malloc((maxplaces ? maxplaces : 1) * sizeof *pl);
    jobmap = malloc((maxplaces ? maxplaces : 1) * sizeof *jobmap);
    rj = malloc((maxplaces ? maxplaces : 1) * sizeof *rj);
    pre = calloc(maxplaces ? maxplaces : 1, 1);
    if (!cand || !steps || !local || !pl || !jobmap || !rj || !pre) {
        rc = berth_err_set(err, BERTH_ENOMEM, "aryl: out of memory");
        goto done;
    }
    for (size_t i = 0; i < a->ninfer; i++)
        if (!c->srv[a->infer[i]].reserved)
            cand[ncand++] = a->infer[i];
    /* every running job with a slot on a candidate server: scan the running jobs once */
    for (size_t ji = 0; ji < v->njobs; ji++) {
        const struct berth_job *j = &v->jobs[ji];
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
    int32_t *before = malloc((njobs ? njobs : 1) * sizeof *before);
    if (!before) {
        rc = berth_err_set(err, BERTH_ENOMEM, "aryl: out of memory");
        goto done;
    }
    for (size_t i = 0; i < njobs; i++)
        before[i] = rj[i].workers;
    rc = berth__reclaim(cand, ncand, rj, njobs, pl, nplaces, k, steps, &nsteps, pre, err);
    /* every job with a worker on a returned server leaves its GPUs; shrunk jobs come back */
    uint8_t *ret = calloc(c->nsrv ? c->nsrv : 1, 1);
    if (!rc && !ret)
        rc = berth_err_set(err, BERTH_ENOMEM, "aryl: out of memory");
    for (size_t i = 0; i < nsteps && !rc; i++)
        ret[steps[i].server] = 1;
    for (size_t i = 0; i < njobs && !rc; i++) {
        const struct berth_job *j = &v->jobs[jobmap[i]];
        int on = 0;
        for (int32_t s = 0; s < j->gpus && !on; s++)
            on = ret[j->slots[s].server];
        if (on)
            rc = berth__plan_preempt(plan, jobmap[i], err);
    }
    for (size_t i = 0; i < nsteps && !rc; i++)
        rc = berth__plan_reserve(plan, steps[i].server, err);
    for (size_t i = 0; i < njobs && !rc; i++) {
        uint32_t ji = jobmap[i];
        if (pre[i] || v->jobs[ji].state == BERTH_JOB_RUNNING)
            continue;
        if (rj[i].workers != before[i] || berth__plan_can_restore(plan, ji)) {
            if (!berth__plan_start_n(plan, ji, rj[i].workers, err))
                a->resized[ji] = v->now;
        }
    }
    free(ret);
    free(before);
done:
    free(cand);
    free(steps);
    free(local);
    free(pl);
    free(jobmap);
    free(rj);
    free(pre);
    return rc;
}

/* Frees at least need GPUs for an admission by shrinking elastic jobs with the most extra
 * workers first; returns the GPUs freed. */
static int32_t shrink_for(struct aryl *a, const struct berth_view *v, struct berth_plan *plan,
                          int32_t need, struct berth_err *err, int *rc)
{
    int32_t freed = 0;
    while (freed < need && !*rc) {
        uint32_t best = UINT32_MAX;
        int32_t most = 0;
        for (size_t ji = 0; ji < v->njobs; ji++) {
            const struct berth_job *j = &v->jobs[ji];
            if (j->state == BERTH_JOB_RUNNING && is_elastic(a, j) &&
                j->gpus - min_size(a, j) > most) {
                most = j->gpus - min_size(a, j);
                best = (uint32_t)ji;
            }
        }
        if (best == UINT32_MAX)
            break;
        int32_t d = need - freed < most ? need - freed : most;
        int32_t n = v->jobs[best].gpus - d;
        if (!resize(a, plan, best, n, err, rc))
            break;
        freed += d;
    }
    return freed;
}

static int32_t extras(const struct aryl *a, const struct berth_view *v)
{
    int32_t x = 0;
    for (size_t ji = 0; ji < v->njobs; ji++) {
        const struct berth_job *j = &v->jobs[ji];
        if (j->state == BERTH_JOB_RUNNING && is_elastic(a, j))
            x += j->gpus - min_size(a, j);
    }
    return x;
}

/* Starts pending jobs in arrival order, first fit: base workers on training servers first
 * (loaned servers hidden); then, over all servers, inelastic jobs that did not fit (loaned
 * servers as a last resort) and jobs for which elastic jobs give up extra workers. */
static int admit(struct aryl *a, const struct berth_view *v, struct berth_plan *plan,
                 struct berth_err *err)
{
    size_t np = 0;
    if (BERTH_GROW(a->order, a->order_cap, v->njobs + 1))
        return berth_err_set(err, BERTH_ENOMEM, "aryl: out of memory");
    for (size_t ji = 0; ji < v->njobs; ji++)
        if (v->jobs[ji].state == BERTH_JOB_PENDING)
            a->order[np++] = (uint32_t)ji;
    if (!np)
        return 0;
    int rc = 0;
    for (size_t k = 0; k < a->ninfer && !rc; k++)
        if (!v->cluster->srv[a->infer[k]].reserved)
            rc = berth__plan_hide(plan, a->infer[k]);
    size_t left = 0; /* jobs that did not fit stay in order[0..left) */
    for (size_t i = 0; i < np && !rc; i++) {
        uint32_t ji = a->order[i];
        const struct berth_job *j = &v->jobs[ji];
        int ok = is_elastic(a, j) ? !berth__plan_start_n(plan, ji, min_size(a, j), err)
                                  : !berth__plan_start(plan, ji, err);
        if (!ok)
            a->order[left++] = ji;
    }
    berth__plan_unhide_all(plan);
    int32_t spare = a->elastic ? extras(a, v) : 0;
    for (size_t i = 0; i < left && !rc; i++) {
        uint32_t ji = a->order[i];
        const struct berth_job *j = &v->jobs[ji];
        int32_t base = min_size(a, j);
        int ok = !is_elastic(a, j) && !berth__plan_start(plan, ji, err);
        if (!ok && spare > 0 && j->share == 1000 && base <= spare + v->cluster->free) {
            spare -= shrink_for(a, v, plan, base - v->cluster->free, err, &rc);
            if (!rc)
                ok = is_elastic(a, j) ? !berth__plan_start_n(plan, ji, base, err)
                                      : !berth__plan_start(plan, ji, err);
        }
    }
    return rc;
}

/* Shares the idle GPUs among running elastic jobs by the knapsack on JCT reduction. */
static int grow(struct aryl *a, const struct berth_view *v, struct berth_plan *plan,
                struct berth_err *err)
{
    size_t ng = 0, no = 0;
    int32_t cap = v->cluster->free;
    for (size_t ji = 0; ji < v->njobs; ji++) {
        const struct berth_job *j = &v->jobs[ji];
        if (j->state != BERTH_JOB_RUNNING || !is_elastic(a, j) || rt_s(v, j, j->gpus) < 0)
            continue;
        int32_t lo = min_size(a, j), hi = j->spec->max_gpus;
        if (BERTH_GROW(a->group, a->group_cap, ng + 2) ||
            BERTH_GROW(a->first, a->first_cap, ng + 2) ||
            BERTH_GROW(a->choice, a->choice_cap, ng + 2) ||
            BERTH_GROW(a->opts, a->opts_cap, no + (size_t)(hi - lo + 1)))
            return berth_err_set(err, BERTH_ENOMEM, "aryl: out of memory");
        a->group[ng] = (uint32_t)ji;
        a->first[ng] = (uint32_t)no;
        double rt_lo = rt_s(v, j, lo), sc = scale_s(a, j);
        for (int32_t w = lo; w <= hi; w++) {
            double val = rt_lo - rt_s(v, j, w);
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
            const struct berth_job *j = &v->jobs[ji];
            int32_t w = min_size(a, j) + a->opts[a->first[g] + a->choice[g]].weight;
            if (w == j->gpus || (pass == 0) != (w < j->gpus))
                continue;
            if (w > j->gpus && a->resized[ji] != BERTH_TIME_NONE &&
                v->now - a->resized[ji] < HYSTERESIS_US)
                continue;
            resize(a, plan, ji, w, err, &rc);
        }
    return rc;
}

static int plan_aryl(void *self, const struct berth_view *v, struct berth_plan *plan,
                     struct berth_err *err)
{
    struct aryl *a = self;
    int rc = 0;
    if (!a->ready && (rc = setup(a, v->cluster)))
        return berth_err_set(err, rc, "aryl: out of memory");
    if (v->njobs > a->njobs_cap) {
        size_t old = a->njobs_cap;
        if (BERTH_GROW(a->resized, a->njobs_cap, v->njobs))
            return berth_err_set(err, BERTH_ENOMEM, "aryl: out of memory");
        for (size_t i = old; i < a->njobs_cap; i++)
            a->resized[i] = BERTH_TIME_NONE;
    }
    if (v->infer_demand >= 0 && a->ninfer && (rc = loans(a, v, plan, err)))
        return rc;
    if ((rc = admit(a, v, plan, err)))
        return rc;
    if (a->elastic)
        rc = grow(a, v, plan, err);
    return rc;
}

/* The next hysteresis expiry while elastic jobs run and GPUs are idle. */
static berth_us next_aryl(void *self, const struct berth_view *v)
{
    struct aryl *a = self;
    if (!a->elastic || !v->cluster->free || !v->nrunning)
        return BERTH_TIME_NONE;
    berth_us next = BERTH_TIME_NONE;
    for (size_t ji = 0; ji < v->njobs && ji < a->njobs_cap; ji++) {
        const struct berth_job *j = &v->jobs[ji];
        if (j->state != BERTH_JOB_RUNNING || !is_elastic(a, j) || a->resized[ji] == BERTH_TIME_NONE)
            continue;
        berth_us t = a->resized[ji] + HYSTERESIS_US;
        if (t > v->now && (next == BERTH_TIME_NONE || t < next))
            next = t;
    }
    return next;
}

static int create_aryl(const struct berth_params *p, void **self, struct berth_err *err)
{
    return create(p, self, err, 1, 1);
}

static int create_loan(const struct berth_params *p, void **self, struct berth_err *err)
{
    return create(p, self, err, 1, 0);
}

static int create_elastic(const struct berth_params *p, void **self, struct berth_err *err)
{
    return create(p, self, err, 0, 1);
}

static int create_base(const struct berth_params *p, void **self, struct berth_err *err)
{
    return create(p, self, err, 0, 0);
}

const struct berth_policy_ops berth__policy_aryl = {
    "aryl",
    "Aryl/Lyra: lends idle inference servers to training, elastic jobs share GPUs by knapsack",
    "consolidate",
    create_aryl,
    destroy,
    plan_aryl,
    next_aryl,
};

const struct berth_policy_ops berth__policy_aryl_loan = {
    "aryl-loan",   "Aryl with capacity loaning only (jobs run at the size they asked for)",
    "consolidate", create_loan,
    destroy,       plan_aryl,
    next_aryl,
};

const struct berth_policy_ops berth__policy_aryl_elastic = {
    "aryl-elastic", "Aryl with elastic scaling only (no loaning)",
    "consolidate",  create_elastic,
    destroy,        plan_aryl,
    next_aryl,
};

const struct berth_policy_ops berth__policy_aryl_base = {
    "aryl-base",   "Aryl's baseline: first fit on training servers, no loaning, no elasticity",
    "consolidate", create_base,
    destroy,       plan_aryl,
    next_aryl,
};
