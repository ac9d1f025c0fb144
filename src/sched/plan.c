/* The plan: validated edits to GPUs and job states during one scheduling pass (plan.h). */
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/topo.h"
#include "sched/plan.h"
#include "sched/refuse.h"

void berth__plan_init(struct berth__plan *p)
{
    memset(p, 0, sizeof *p);
}

void berth__plan_free(struct berth__plan *p)
{
    free(p->touched);
    free(p->touch_of);
    free(p->snaps);
    free(p->stamp);
    free(p->hidden);
    berth__plan_wait_free(p);
    berth__undo_free(&p->undo);
    berth__placement_close(&p->topo_place);
    berth__plan_init(p);
}

const struct berth__placement *berth__placement_stateless(int id)
{
    static const struct berth__placement classic[BERTH_PLACE_BLOX_CONSOLIDATED + 1] = {
        [BERTH_PLACE_CONSOLIDATE] = {&berth__place_consolidate, NULL, BERTH_PLACE_CONSOLIDATE},
        [BERTH_PLACE_SPREAD] = {&berth__place_spread, NULL, BERTH_PLACE_SPREAD},
        [BERTH_PLACE_BEST_FIT] = {&berth__place_best_fit, NULL, BERTH_PLACE_BEST_FIT},
        [BERTH_PLACE_FGD] = {NULL, NULL, BERTH_PLACE_FGD}, /* keeps state: none here */
        [BERTH_PLACE_BLOX_SCATTERED] = {&berth__place_blox_scattered, NULL,
                                        BERTH_PLACE_BLOX_SCATTERED},
        [BERTH_PLACE_BLOX_CONSOLIDATED] = {&berth__place_blox_consolidated, NULL,
                                           BERTH_PLACE_BLOX_CONSOLIDATED},
    };
    return id >= 0 && id <= BERTH_PLACE_BLOX_CONSOLIDATED && classic[id].ops ? &classic[id] : NULL;
}

int berth__plan_open(struct berth__plan *p, struct berth_cluster *c, struct berth__job *jobs,
                     size_t njobs, berth_us now, const struct berth__placement *pl, size_t npending,
                     size_t nrunning)
{
    size_t old = p->touch_cap;
    if (++p->pass == 0) { /* wrapped: 0 means "no pass" in the wait cache, which is dropped */
        p->pass = 1;
        berth__plan_wait_free(p);
    }
    if (BERTH_GROW(p->touch_of, p->touch_cap, njobs))
        return BERTH_ENOMEM;
    for (size_t i = old; i < p->touch_cap; i++)
        p->touch_of[i] = -1;
    berth__plan_wait_forget(p, jobs, njobs); /* before the touched list goes */
    for (size_t i = 0; i < p->ntouched; i++)
        p->touch_of[p->touched[i].job] = -1;
    if (p->stamp_cap < c->nsrv) {
        size_t old_cap = p->stamp_cap;
        if (BERTH_GROW(p->stamp, p->stamp_cap, c->nsrv))
            return BERTH_ENOMEM;
        memset(p->stamp + old_cap, 0, (p->stamp_cap - old_cap) * sizeof *p->stamp);
    }
    p->ntouched = 0;
    p->nsnaps = 0;
    p->nhidden = 0;
    p->lent = p->reclaimed = 0;
    p->cluster = c;
    p->jobs = jobs;
    p->njobs = njobs;
    p->now = now;
    p->place = pl;
    p->placement = pl->id;
    if (c->topo && !p->topo_place.ops) {
        struct berth_err err = {0};
        if (berth__placement_open("topology", &p->topo_place, &err))
            return BERTH_ENOMEM;
    }
    p->npending = npending;
    p->nrunning = nrunning;
    return 0;
}

int berth__plan_touch(struct berth__plan *p, uint32_t j)
{
    if (p->touch_of[j] >= 0)
        return 0;
    struct berth__job *job = &p->jobs[j];
    if (BERTH_GROW(p->touched, p->touched_cap, p->ntouched + 1))
        return BERTH_ENOMEM;
    struct berth__touched *t = &p->touched[p->ntouched];
    t->job = j;
    t->was_running = job->state == BERTH_JOB_RUNNING;
    t->was_gpus = job->gpus;
    t->snap = p->nsnaps;
    if (t->was_running) {
        size_t g = (size_t)berth__job_nslots(job);
        if (BERTH_GROW(p->snaps, p->snaps_cap, p->nsnaps + g))
            return BERTH_ENOMEM;
        memcpy(p->snaps + p->nsnaps, job->slots, g * sizeof *job->slots);
        p->nsnaps += g;
    }
    p->touch_of[j] = (int32_t)p->ntouched++;
    return 0;
}

/* A quick necessary test of fit on type t, on GPU counts alone (placement, which also sees
 * CPU and memory, has the last word). */
static int fits_type(const struct berth__plan *p, const struct berth__job *j, int t)
{
    const struct berth__gputype *ty = &p->cluster->types[t];
    if (berth__job_share(j) < 1000) {
        if (ty->free >= 1)
            return 1;
        for (size_t i = 0; i < ty->npartial; i++) {
            const struct berth__partial *q = &ty->partial[i];
            if (p->cluster->srv[q->server].shares->used[q->gpu] + berth__job_share(j) <= 1000)
                return 1;
        }
        return 0;
    }
    int32_t g = j->gpus;
    if (ty->free < g)
        return 0;
    if (!j->single)
        return 1;
    for (int f = g; f <= ty->max_per_server; f++)
        if (ty->head[f] >= 0)
            return 1;
    return 0;
}

int berth__plan_fit(const struct berth__plan *p, const struct berth__job *j)
{
    if (j->gpus == 0) /* CPU-only: any server with the CPU and memory */
        return berth__place_cpu_server(p->cluster, j, p->placement == BERTH_PLACE_SPREAD) >= 0 ? 0
                                                                                               : -1;
    if (p->cluster->free < j->gpus && berth__job_share(j) == 1000)
        return -1;
    for (size_t t = 0; t < p->cluster->ntypes; t++)
        if ((!j->type_mask || (j->type_mask >> t & 1)) && fits_type(p, j, (int)t))
            return (int)t;
    return -1;
}

/* Takes n wholly idle GPUs of server s for job j (lowest GPU indices first; mask: those). */
static void take(struct berth__plan *p, struct berth__job *j, uint32_t s, int n, uint64_t mask)
{
    uint64_t m = mask ? mask : p->cluster->srv[s].free_mask;
    int32_t k0 = p->filling;
    for (int k = 0; k < n; k++) {
        unsigned g = (unsigned)__builtin_ctzll(m);
        m &= m - 1;
        j->slots[p->filling++] = (struct berth__slot){s, g};
    }
    berth__alloc_take_range(p->cluster, j, k0, p->filling);
}

/* Takes j's one slot: its share of GPU g of server s, or (CPU-only, g = BERTH_NO_GPU) the
 * server's CPU and memory. */
static void take_one(struct berth__plan *p, struct berth__job *j, uint32_t s, uint32_t g)
{
    j->slots[p->filling++] = (struct berth__slot){s, g};
    berth__alloc_take_range(p->cluster, j, p->filling - 1, p->filling);
}

/* Whether pick k for the next piece of j (type: the gang's type so far, -1 none yet; need
 * GPUs still to place) is one the plan may apply: a server that exists, of a type the job
 * may use and the gang's type, the gang's own server when it must not span, and room for
 * the piece (idle GPUs with CPU and memory; a GPU with room for the share; CPU and memory). */
static int pick_ok(const struct berth__plan *p, const struct berth__job *j, int type, int32_t need,
                   const struct berth__place_pick *k)
{
    const struct berth_cluster *c = p->cluster;
    if (k->server >= c->nsrv)
        return 0;
    if (j->gpus == 0)
        return k->n == 0 && berth__server_cpu_mem_fit(c, k->server, j, 1);
    int t = c->srv[k->server].type;
    if ((type >= 0 && t != type) || (j->type_mask && !(j->type_mask >> t & 1)) ||
        (j->single && p->filling > 0 && k->server != j->slots[0].server))
        return 0;
    if (berth__job_share(j) < 1000) {
        struct berth__slot at = {k->server, (uint32_t)k->gpu};
        return k->n == 1 && k->gpu >= 0 && k->gpu < c->srv[k->server].ngpus &&
               berth__alloc_can_take(c, j, &at);
    }
    if (k->mask &&
        ((k->mask & ~c->srv[k->server].free_mask) || __builtin_popcountll(k->mask) != k->n))
        return 0;
    return k->n >= 1 && k->n <= need && berth__server_room(c, k->server, j) >= k->n;
}

/* Places j through the run's placement, piece by piece (placement.h), on GPU type `type`
 * (-1: the placement chooses). 0 placed (p->filling slots charged); BERTH_NOFIT when a piece
 * found no server, BERTH_EINTERNAL when the placement picked what it may not — either way
 * the p->filling slots charged so far are still charged (the caller gives them back). */
static int place(struct berth__plan *p, const struct berth__placement *pl, struct berth__job *j,
                 int type, struct berth_err *err)
{
    int32_t need = j->gpus == 0 ? 0 : berth__job_share(j) < 1000 ? 1 : j->gpus;
    p->filling = 0;
    do {
        struct berth__place_pick k;
        if (pl->ops->pick(pl->self, p->cluster, j, type, need, &k))
            return BERTH_NOFIT;
        if (!pick_ok(p, j, type, need, &k))
            return berth_err_set(
                err, BERTH_EINTERNAL,
                "plan: placement %s picked server %u (GPU %d, %d GPUs) for job %s, "
                "which cannot take it",
                pl->ops->name, k.server, k.gpu, k.n, j->spec->id);
        if (j->gpus == 0)
            take_one(p, j, k.server, BERTH_NO_GPU);
        else if (berth__job_share(j) < 1000)
            take_one(p, j, k.server, (uint32_t)k.gpu);
        else
            take(p, j, k.server, k.n, k.mask);
        type = j->gpus ? p->cluster->srv[k.server].type : -1;
        need -= k.n;
    } while (need > 0);
    return 0;
}

int32_t berth__plan_count_servers(struct berth__plan *p, const struct berth__job *j)
{
    if (++p->epoch == 0) { /* wrapped: forget every old stamp */
        memset(p->stamp, 0, p->stamp_cap * sizeof *p->stamp);
        p->epoch = 1;
    }
    int32_t n = 0;
    for (int32_t k = 0; k < berth__job_nslots(j); k++) {
        uint32_t s = j->slots[k].server;
        if (p->stamp[s] != p->epoch) {
            p->stamp[s] = p->epoch;
            n++;
        }
    }
    return n;
}

void berth__plan_note_span(struct berth__plan *p, struct berth__job *j)
{
    j->servers = berth__plan_count_servers(p, j);
    j->span =
        (uint8_t)(p->cluster->topo ? berth__topo_span(p->cluster, j->slots, berth__job_nslots(j))
                                   : 0);
}

/* Room in j->slots for the largest gang an elastic start may give it. Returns 0 or -1. */
static int make_slots(struct berth__job *j)
{
    if (j->slots)
        return 0;
    int32_t most =
        j->spec->max_gpus > berth__job_nslots(j) ? j->spec->max_gpus : berth__job_nslots(j);
    j->slots = malloc((size_t)most * sizeof *j->slots);
    return j->slots ? 0 : -1;
}

/* The bookkeeping of a start whose slots are placed and charged, on GPU type t. */
static void mark_started(struct berth__plan *p, struct berth__job *j, int t)
{
    j->type = (int16_t)t;
    berth__plan_note_span(p, j);
    j->state = BERTH_JOB_RUNNING;
    j->since = p->now;
    p->npending--;
    p->nrunning++;
}

/* Gives back what a start's placement took so far (it did not fit after all). */
static void take_back(struct berth__plan *p, struct berth__job *j)
{
    if (p->filling > 0)
        p->taken_back++;
    berth__alloc_give_range(p->cluster, j, 0, p->filling);
}

/* Starts pending job ji on the first type of mask (in cluster order) where placement works. */
static int start_in(struct berth__plan *p, uint32_t ji, uint64_t mask, struct berth_err *err)
{
    struct berth__job *j = &p->jobs[ji];
    if (j->state != BERTH_JOB_PENDING)
        return berth_err_set(err, BERTH_EINTERNAL, "plan: job %s started while not pending",
                             j->spec->id);
    if (make_slots(j))
        return berth_err_set(err, BERTH_ENOMEM, "plan: out of memory");
    berth__plan_trial_save_job(p, j);
    /* CPU-only jobs and placements that choose the type: one placement; otherwise every
     * allowed type where the GPU counts fit, in cluster order, until placement (which also
     * weighs CPU and memory) succeeds */
    int t = -1, rc = BERTH_NOFIT;
    const struct berth__placement *pl = berth__plan_placement_for(p, j);
    if (j->gpus == 0 || pl->ops->any_type) {
        uint64_t keep = j->type_mask;
        j->type_mask = mask; /* start_type's one type */
        rc = place(p, pl, j, -1, err);
        j->type_mask = keep;
        if (rc) {
            take_back(p, j);
            p->nofit = BERTH_NOFIT_PLACE;
            return rc;
        }
        t = j->gpus ? p->cluster->srv[j->slots[0].server].type : -1;
    }
    p->nofit = BERTH_NOFIT_COUNT;
    for (size_t k = 0; k < p->cluster->ntypes && t < 0 && j->gpus; k++) {
        if ((mask && !(mask >> k & 1)) || !fits_type(p, j, (int)k))
            continue;
        int refused = pl == p->place ? berth__plan_start_refused_now(p, j, (int)k) : 0;
        if (refused) {
            p->taken_back++; /* the refusal moved servers as a take and give-back would */
            p->nofit = BERTH_NOFIT_WAIT;
            return refused < 0 ? berth_err_set(err, BERTH_ENOMEM, "plan: out of memory")
                               : BERTH_NOFIT;
        }
        p->nofit = BERTH_NOFIT_PLACE;
        rc = place(p, pl, j, (int)k, err);
        if (rc == 0 && berth__plan_topo_ok(p, j, j->slots, p->filling))
            rc = BERTH_NOFIT; /* a piece left the required level's domain (CPU, memory) */
        if (rc == 0)
            t = (int)k;
        else /* give back what a partial placement took */
            take_back(p, j);
        if (rc < 0)
            return rc;
        if (rc && pl != p->place &&
            !berth__place_topo_holds(p->cluster, j, (int)k, berth__place_topo_required(j)))
            p->nofit = BERTH_NOFIT_TOPO;
    }
    if (t < 0 && j->gpus)
        return BERTH_NOFIT;
    if (p->wait.tput && j->gpus > 1) {
        int pays = berth__plan_spread_pays(p, j, t);
        if (pays <= 0) {
            take_back(p, j);
            p->nofit = BERTH_NOFIT_WAIT;
            return pays < 0 ? berth_err_set(err, BERTH_ENOMEM, "plan: out of memory") : BERTH_NOFIT;
        }
    }
    if (berth__plan_touch(p, ji)) {
        take_back(p, j); /* the plan stays unchanged */
        return berth_err_set(err, BERTH_ENOMEM, "plan: out of memory");
    }
    if (p->filling != berth__job_nslots(j))
        return berth_err_set(err, BERTH_EINTERNAL,
                             "plan: placement gave job %s %d GPUs, it asked for %d", j->spec->id,
                             p->filling, j->gpus);
    for (int32_t k = 0; k < p->filling && j->gpus; k++)
        if (p->cluster->srv[j->slots[k].server].type != t ||
            (j->single && j->slots[k].server != j->slots[0].server))
            return berth_err_set(err, BERTH_EINTERNAL,
                                 "plan: placement broke job %s's type or server constraint",
                                 j->spec->id);
    mark_started(p, j, t);
    return 0;
}

const struct berth__placement *berth__plan_placement_for(const struct berth__plan *p,
                                                         const struct berth__job *j)
{
    if (!p->topo_place.ops || !p->cluster->topo || p->place->id == BERTH_PLACE_TOPOLOGY)
        return p->place;
    const struct berth_jobspec_extra *x = berth_jobspec_extra(j->spec);
    return x->topo_required || x->topo_preferred || x->tp > 1 ? &p->topo_place : p->place;
}

int berth__plan_topo_ok(const struct berth__plan *p, const struct berth__job *j,
                        const struct berth__slot *slots, int32_t nslots)
{
    const struct berth_cluster *c = p->cluster;
    if (!c->topo || !berth_jobspec_extra(j->spec)->topo_required || j->gpus == 0)
        return 0;
    return berth__topo_span(c, slots, nslots) <= berth__place_topo_required(j) ? 0 : BERTH_NOFIT;
}

int berth__plan_start(struct berth__plan *p, uint32_t ji, struct berth_err *err)
{
    return start_in(p, ji, p->jobs[ji].type_mask, err);
}

int berth__plan_start_type(struct berth__plan *p, uint32_t ji, int type, struct berth_err *err)
{
    const struct berth__job *j = &p->jobs[ji];
    if (type < 0 || (size_t)type >= p->cluster->ntypes || type >= 64 ||
        (j->type_mask && !(j->type_mask >> type & 1)))
        return berth_err_set(err, BERTH_EINTERNAL, "plan: job %s started on a type it may not use",
                             j->spec->id);
    return start_in(p, ji, (uint64_t)1 << type, err);
}

int berth__plan_start_n(struct berth__plan *p, uint32_t ji, int32_t n, struct berth_err *err)
{
    struct berth__job *j = &p->jobs[ji];
    int32_t lo = j->spec->min_gpus > 1 ? j->spec->min_gpus : 1;
    if (j->gpus == 0 || j->share < 1000 || n < lo || n > j->spec->max_gpus)
        return berth_err_set(err, BERTH_EINTERNAL,
                             "plan: job %s cannot run %d GPUs (elastic range %d..%d, whole GPUs)",
                             j->spec->id, n, lo, j->spec->max_gpus);
    berth__plan_trial_save_job(p, j);
    int32_t old = j->gpus;
    j->gpus = n;
    int rc = start_in(p, ji, j->type_mask, err);
    if (rc)
        j->gpus = old;
    return rc;
}

int berth__plan_start_n_type(struct berth__plan *p, uint32_t ji, int32_t n, int type,
                             struct berth_err *err)
{
    struct berth__job *j = &p->jobs[ji];
    if (type < 0 || (size_t)type >= p->cluster->ntypes || type >= 64 ||
        (j->type_mask && !(j->type_mask >> type & 1)))
        return berth_err_set(err, BERTH_EINTERNAL, "plan: job %s started on a type it may not use",
                             j->spec->id);
    uint64_t keep = j->type_mask;
    j->type_mask = (uint64_t)1 << type;
    int rc = berth__plan_start_n(p, ji, n, err);
    j->type_mask = keep;
    return rc;
}

int berth__plan_start_on(struct berth__plan *p, uint32_t ji, uint32_t s, struct berth_err *err)
{
    struct berth__job *j = &p->jobs[ji];
    const struct berth_cluster *c = p->cluster;
    if (j->state != BERTH_JOB_PENDING || s >= c->nsrv)
        return berth_err_set(err, BERTH_EINTERNAL,
                             "plan: job %s started on server %u while not "
                             "pending, or no such server",
                             j->spec->id, s);
    int t = j->gpus ? c->srv[s].type : -1;
    if (t >= 0 && j->type_mask && !(j->type_mask >> t & 1))
        return BERTH_NOFIT;
    if (make_slots(j))
        return berth_err_set(err, BERTH_ENOMEM, "plan: out of memory");
    berth__plan_trial_save_job(p, j);
    int32_t n = berth__job_nslots(j);
    if (j->gpus == 0) {
        j->slots[0] = (struct berth__slot){s, BERTH_NO_GPU};
    } else if (berth__job_share(j) < 1000) {
        int spread = p->placement == BERTH_PLACE_SPREAD, g;
        if (spread && c->srv[s].free_mask) /* spread: an idle GPU first */
            g = __builtin_ctzll(c->srv[s].free_mask);
        else
            g = berth__server_pick_share_gpu(c, s, j, spread);
        if (g < 0)
            return BERTH_NOFIT;
        j->slots[0] = (struct berth__slot){s, (uint32_t)g};
    } else {
        if (c->srv[s].nfree < n)
            return BERTH_NOFIT;
        uint64_t m = c->srv[s].free_mask;
        for (int32_t k = 0; k < n; k++, m &= m - 1)
            j->slots[k] = (struct berth__slot){s, (uint32_t)__builtin_ctzll(m)};
    }
    if (!berth__alloc_can_take(c, j, j->slots) || berth__plan_topo_ok(p, j, j->slots, n))
        return BERTH_NOFIT;
    if (berth__plan_touch(p, ji))
        return berth_err_set(err, BERTH_ENOMEM, "plan: out of memory");
    berth__alloc_take(p->cluster, j);
    mark_started(p, j, t);
    return 0;
}

int berth__plan_preempt(struct berth__plan *p, uint32_t ji, struct berth_err *err)
{
    struct berth__job *j = &p->jobs[ji];
    if (j->state != BERTH_JOB_RUNNING)
        return berth_err_set(err, BERTH_EINTERNAL, "plan: job %s preempted while not running",
                             j->spec->id);
    if (berth__plan_touch(p, ji))
        return berth_err_set(err, BERTH_ENOMEM, "plan: out of memory");
    berth__plan_trial_save_job(p, j);
    berth__job_fold(j, p->now);
    berth__alloc_give(p->cluster, j);
    j->state = BERTH_JOB_PENDING;
    p->nrunning--;
    p->npending++;
    return 0;
}

int berth__plan_can_restore(const struct berth__plan *p, uint32_t ji)
{
    const struct berth__job *j = &p->jobs[ji];
    int32_t t = p->touch_of[ji];
    if (t < 0 || !p->touched[t].was_running || j->state != BERTH_JOB_PENDING ||
        j->gpus != p->touched[t].was_gpus)
        return 0;
    return berth__alloc_can_take(p->cluster, j, p->snaps + p->touched[t].snap);
}

int berth__plan_restore(struct berth__plan *p, uint32_t ji, struct berth_err *err)
{
    if (!berth__plan_can_restore(p, ji))
        return berth_err_set(err, BERTH_EINTERNAL, "plan: job %s cannot get its GPUs back",
                             p->jobs[ji].spec->id);
    struct berth__job *j = &p->jobs[ji];
    const struct berth__slot *snap = p->snaps + p->touched[p->touch_of[ji]].snap;
    berth__plan_trial_save_job(p, j);
    memcpy(j->slots, snap, (size_t)berth__job_nslots(j) * sizeof *snap);
    berth__alloc_take(p->cluster, j);
    j->state = BERTH_JOB_RUNNING;
    j->since = p->now;
    p->npending--;
    p->nrunning++;
    return 0;
}

int berth__plan_start_share(struct berth__plan *p, uint32_t ji, uint32_t server, uint32_t gpu,
                            int32_t milli, struct berth_err *err)
{
    struct berth__job *j = &p->jobs[ji];
    if (j->state != BERTH_JOB_PENDING || j->gpus != 1 || milli < 1 || milli > 1000 ||
        server >= p->cluster->nsrv || gpu >= (uint32_t)p->cluster->srv[server].ngpus)
        return berth_err_set(err, BERTH_EINTERNAL,
                             "plan: job %s cannot start as %d milli of GPU %u of server %u",
                             j->spec->id, milli, gpu, server);
    int t = p->cluster->srv[server].type;
    if (j->type_mask && !(j->type_mask >> t & 1))
        return berth_err_set(err, BERTH_EINTERNAL, "plan: job %s started on a type it may not use",
                             j->spec->id);
    if (make_slots(j) || berth__cluster_enable_shares(p->cluster))
        return berth_err_set(err, BERTH_ENOMEM, "plan: out of memory");
    berth__plan_trial_save_job(p, j);
    int32_t old = j->share;
    struct berth__slot at = {server, gpu};
    j->share = milli;
    if (!berth__alloc_can_take(p->cluster, j, &at)) {
        j->share = old;
        return BERTH_NOFIT;
    }
    if (berth__plan_touch(p, ji)) {
        j->share = old;
        return berth_err_set(err, BERTH_ENOMEM, "plan: out of memory");
    }
    j->slots[0] = at;
    berth__alloc_take(p->cluster, j);
    mark_started(p, j, t);
    return 0;
}

int berth__plan_start_slots(struct berth__plan *p, uint32_t ji, const struct berth__slot *slots,
                            struct berth_err *err)
{
    struct berth__job *j = &p->jobs[ji];
    const struct berth_cluster *c = p->cluster;
    int32_t n = berth__job_nslots(j);
    if (j->state != BERTH_JOB_PENDING)
        return berth_err_set(err, BERTH_EINTERNAL, "plan: job %s started while not pending",
                             j->spec->id);
    for (int32_t k = 0; k < n; k++)
        if (slots[k].server >= c->nsrv ||
            (j->gpus && c->srv[slots[k].server].type != c->srv[slots[0].server].type))
            return berth_err_set(err, BERTH_EINTERNAL,
                                 "plan: job %s started on slots of no server or two types",
                                 j->spec->id);
    int t = j->gpus ? c->srv[slots[0].server].type : -1;
    if (t >= 0 && j->type_mask && !(j->type_mask >> t & 1))
        return berth_err_set(err, BERTH_EINTERNAL, "plan: job %s started on a type it may not use",
                             j->spec->id);
    if (make_slots(j))
        return berth_err_set(err, BERTH_ENOMEM, "plan: out of memory");
    if (!berth__alloc_can_take(c, j, slots) || berth__plan_topo_ok(p, j, slots, n))
        return BERTH_NOFIT;
    if (berth__plan_touch(p, ji))
        return berth_err_set(err, BERTH_ENOMEM, "plan: out of memory");
    berth__plan_trial_save_job(p, j);
    memcpy(j->slots, slots, (size_t)n * sizeof *slots);
    berth__alloc_take(p->cluster, j);
    mark_started(p, j, t);
    return 0;
}
