/* Salus' four schedulers (salus-fifo, salus-srtf, salus-pack, salus-fair) on its memory lanes
 * (salus_lanes.c). A job is admitted into a lane when its memory fits (in arrival order, a
 * job that does not fit waits, later ones may pass it, except under salus-fifo); admitted
 * jobs stay resident in their lane's memory until they finish. In every lane one job runs
 * at a time: the engine sees it running as a share of its GPU (the lane's part of the GPU's
 * memory, so concurrent lanes are co-located jobs whose speeds the executor's interference
 * model sets); the lane's other jobs are pending, and switching between them at an iteration
 * boundary is a free preemption.
 *
 *   salus-fifo  no sharing: one lane of the whole GPU holding one job; strict arrival order
 *   salus-srtf  one lane of the whole GPU; its jobs time-share, least remaining time first
 *   salus-pack  a lane of P + E per job while memory allows (Salus' lane manager), all
 *               lanes concurrent; within a shared lane the earliest admitted runs
 *   salus-fair  one lane of the whole GPU; least persistent-memory x run time since the last
 *               admission into the lane first, re-decided every --quantum (GPUs in eight
 *               phases an eighth of a quantum apart) */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sched/plan.h"
#include "policy/salus/salus.h"
#include "policy/salus/salus_lanes.h"

#define NONE BERTH_LANE_NONE

enum kind { K_FIFO, K_SRTF, K_PACK, K_FAIR };

struct salus {
    int kind;
    berth_us quantum;
    int ready;
    struct berth__lanes L;
    uint32_t *gpu_srv;  /* per lane GPU: its server */
    uint8_t *gpu_local; /* its index on that server */
    int64_t *type_cap;  /* per cluster type: the largest lane capacity of its GPUs */
    uint32_t *queue;    /* arrived, not yet admitted, in arrival order */
    size_t nqueue, qcap;
    int retry;          /* something arrived or left since the last admission walk */
    int64_t *fair_base; /* per job: its run time at the last reset of its lane */
    size_t njobs;
    uint32_t *dirty; /* lanes whose runner must be re-decided this pass */
    size_t ndirty, dcap;
    /* lanes whose chosen job found no room on its server's CPU or memory: re-decided at the
     * next pass (the engine's stall rule ends a run where it never will) */
    uint32_t *retry_lanes;
    size_t nretry, rcap;
    uint32_t *gstamp; /* per GPU: pass that touched it last (for the check) */
    uint32_t *touched;
    size_t ntouched, tcap;
    uint32_t pass;
    size_t nmulti;      /* lanes holding two jobs or more */
    berth_us fair_last; /* salus-fair: the time of the last pass */
};

/* salus-fair's one setting: its quantum, --quantum's value unless --policy-arg quantum=S. */
struct fair_settings {
    berth_us quantum_us;
};

static const struct berth__setting fair_settings[] = {
    {"quantum", BERTH_SET_SECONDS, offsetof(struct fair_settings, quantum_us), 0.001, 1e6,
     "seconds between re-decisions of who runs in a shared lane (default: --quantum, 60)"},
};

static int create(int kind, const struct berth__params *p, void **self, struct berth_err *err)
{
    struct fair_settings set = {p->quantum_us > 0 ? p->quantum_us : 60 * BERTH_US_PER_S};
    if (kind == K_FAIR) {
        int rc = berth__settings_parse("salus-fair", p->settings, fair_settings,
                                       sizeof fair_settings / sizeof *fair_settings, &set, err);
        if (rc)
            return rc;
    }
    struct salus *s = calloc(1, sizeof *s);
    if (!s)
        return berth_err_set(err, BERTH_ENOMEM, "salus: out of memory");
    s->kind = kind;
    s->quantum = set.quantum_us;
    s->fair_last = BERTH_TIME_NONE;
    *self = s;
    return 0;
}

static void destroy(void *self)
{
    struct salus *s = self;
    if (!s)
        return;
    berth__lanes_free(&s->L);
    free(s->gpu_srv);
    free(s->gpu_local);
    free(s->type_cap);
    free(s->queue);
    free(s->fair_base);
    free(s->dirty);
    free(s->gstamp);
    free(s->touched);
    free(s->retry_lanes);
    free(s);
}

const struct berth__lanes *berth__salus_lanes(const void *self)
{
    const struct salus *s = self;
    return s->ready ? &s->L : NULL;
}

/* One lane GPU per GPU of the cluster, server by server. */
static int setup(struct salus *s, const struct berth_cluster *c)
{
    size_t n = 0;
    for (size_t k = 0; k < c->nsrv; k++)
        n += c->srv[k].ngpus;
    int64_t *cap = malloc((n ? n : 1) * sizeof *cap);
    s->gpu_srv = malloc((n ? n : 1) * sizeof *s->gpu_srv);
    s->gpu_local = malloc(n ? n : 1);
    s->gstamp = calloc(n ? n : 1, sizeof *s->gstamp);
    s->type_cap = calloc(c->ntypes + 1, sizeof *s->type_cap);
    if (!cap || !s->gpu_srv || !s->gpu_local || !s->gstamp || !s->type_cap) {
        free(cap);
        return -1;
    }
    size_t g = 0;
    for (size_t k = 0; k < c->nsrv; k++) {
        const struct berth__server *v = &c->srv[k];
        int64_t m = berth__salus_gpu_cap(c->types[v->type].name, v->gpu_mem_mib);
        if (m > s->type_cap[v->type])
            s->type_cap[v->type] = m;
        for (int i = 0; i < v->ngpus; i++, g++) {
            cap[g] = m;
            s->gpu_srv[g] = (uint32_t)k;
            s->gpu_local[g] = (uint8_t)i;
        }
    }
    int rc = berth__lanes_init(&s->L, n, cap, s->kind != K_FIFO);
    free(cap);
    s->ready = rc == 0;
    return rc;
}

static int grow_jobs(struct salus *s, size_t n)
{
    if (n <= s->njobs)
        return 0;
    size_t cap = s->njobs;
    if (berth__lanes_reserve_jobs(&s->L, n) || BERTH_GROW(s->fair_base, cap, n))
        return -1;
    memset(s->fair_base + s->njobs, 0, (n - s->njobs) * sizeof *s->fair_base);
    s->njobs = n;
    return 0;
}

static int mark(struct salus *s, uint32_t l)
{
    if (BERTH_GROW(s->dirty, s->dcap, s->ndirty + 1))
        return -1;
    s->dirty[s->ndirty++] = l;
    uint32_t g = s->L.lane[l].gpu;
    if (s->gstamp[g] != s->pass) {
        if (BERTH_GROW(s->touched, s->tcap, s->ntouched + 1))
            return -1;
        s->gstamp[g] = s->pass;
        s->touched[s->ntouched++] = g;
    }
    return 0;
}

/* Lane l's memory as a share of its GPU, in milli (the engine's unit). */
static int32_t lane_milli(const struct salus *s, uint32_t l)
{
    const struct berth__lane *ln = &s->L.lane[l];
    int64_t m = ln->size * 1000 / s->L.gpu[ln->gpu].cap;
    return m < 1 ? 1 : m > 1000 ? 1000 : (int32_t)m;
}

static int64_t fair_used(const struct salus *s, const struct berth__job *j, berth_us now)
{
    return s->L.persist[j->idx] * (berth__job_run_us(j, now) - s->fair_base[j->idx]);
}

/* Who should run in lane l now (NONE when it is empty). cur is its runner, or NONE. */
static uint32_t choose(const struct salus *s, const struct berth__view *v, uint32_t l, uint32_t cur)
{
    const struct berth__lane *ln = &s->L.lane[l];
    if (s->kind == K_FIFO || s->kind == K_PACK)
        return cur != NONE ? cur : ln->head;
    uint32_t best = cur;
    int64_t bk = 0;
    if (cur != NONE)
        bk = s->kind == K_SRTF ? berth__job_left_us(&v->jobs[cur], v->now)
                               : fair_used(s, &v->jobs[cur], v->now);
    for (uint32_t j = ln->head; j != NONE; j = s->L.next[j]) {
        int64_t k = s->kind == K_SRTF ? berth__job_left_us(&v->jobs[j], v->now)
                                      : fair_used(s, &v->jobs[j], v->now);
        /* strictly better than the runner (switching on a tie gains nothing), ties to the
         * lower job number among the others */
        if (best == NONE || k < bk || (k == bk && best != cur && j < best)) {
            best = j;
            bk = k;
        }
    }
    return best;
}

static int decide(struct salus *s, const struct berth__view *v, struct berth__plan *plan,
                  uint32_t l, struct berth_err *err)
{
    struct berth__lane *ln = &s->L.lane[l];
    if (!ln->njobs)
        return 0; /* removed */
    uint32_t cur = ln->active;
    if (cur != NONE && v->jobs[cur].state != BERTH_JOB_RUNNING)
        cur = NONE; /* stopped from outside */
    uint32_t want = choose(s, v, l, cur);
    if (want == cur) {
        ln->active = cur;
        return 0;
    }
    int rc;
    if (cur != NONE && (rc = berth__plan_preempt(plan, cur, err)))
        return rc;
    ln->active = want;
    uint32_t g = ln->gpu;
    rc = berth__plan_start_share(plan, want, s->gpu_srv[g], s->gpu_local[g], lane_milli(s, l), err);
    if (rc != BERTH_NOFIT)
        return rc;
    /* its server lacks the CPU or memory now (the lanes count GPU memory only): the runner
     * goes on if it was one, and the lane is re-decided at the next pass */
    ln->active = NONE;
    if (cur != NONE && berth__plan_can_restore(plan, cur)) {
        if ((rc = berth__plan_restore(plan, cur, err)))
            return rc;
        ln->active = cur;
    }
    for (size_t i = 0; i < s->nretry; i++)
        if (s->retry_lanes[i] == l)
            return 0; /* decided twice in this pass (dirty twice): once in the list */
    if (BERTH_GROW(s->retry_lanes, s->rcap, s->nretry + 1))
        return berth_err_set(err, BERTH_ENOMEM, "salus: out of memory");
    s->retry_lanes[s->nretry++] = l;
    return 0;
}

/* Resets the FAIR counters of lane l's jobs (Salus resets them when a session is added). */
static void fair_reset(struct salus *s, const struct berth__view *v, uint32_t l)
{
    for (uint32_t j = s->L.lane[l].head; j != NONE; j = s->L.next[j])
        s->fair_base[j] = berth__job_run_us(&v->jobs[j], v->now);
}

static int allowed(const struct salus *s, const struct berth__view *v, const struct berth__job *j,
                   uint32_t g)
{
    const struct berth__server *sv = &v->cluster->srv[s->gpu_srv[g]];
    /* a server reserved by its pool's owner (inference) runs no job */
    return !sv->reserved && (!j->type_mask || (j->type_mask >> sv->type & 1));
}

/* Tries to admit job j somewhere; returns the lane or NONE (or NONE - 1: out of memory).
 * Salus' lane manager tries a new lane before sharing one; across GPUs (Salus ran one) a new
 * lane goes to the GPU with the most free memory, so lanes spread over idle GPUs before any
 * GPU is shared, and a shared lane is sought first on the GPU whose lanes have the most
 * room. When that GPU cannot take the job (its type, or a lane's peak), the first GPU with
 * room that can is used. */
static uint32_t admit(struct salus *s, const struct berth__view *v, uint32_t j)
{
    const struct berth__job *job = &v->jobs[j];
    int64_t p, e;
    berth__salus_job_mem(job->spec, &p, &e);
    int last = s->L.share ? BERTH_LANES_ROOM : BERTH_LANES_FREE;
    for (int which = BERTH_LANES_FREE; which <= last; which++) {
        int64_t need = which == BERTH_LANES_FREE ? p + e : p;
        uint32_t most = berth__lanes_find_most(&s->L, which, need);
        for (uint32_t g = most, from = 0; g != NONE;
             g = berth__lanes_find(&s->L, which, need, from), from = g + 1) {
            if ((g == most && from > 0) || !allowed(s, v, job, g))
                continue; /* most was tried first */
            uint32_t l = which == BERTH_LANES_FREE
                             ? berth__lanes_admit_new(&s->L, g, j, p, e,
                                                      s->kind == K_PACK ? p + e : s->L.gpu[g].cap)
                             : berth__lanes_admit_shared(&s->L, g, j, p, e);
            if (l != NONE)
                return l;
        }
    }
    return NONE;
}

/* salus-fair re-decides every GPU's lanes once a quantum, GPU g at the boundaries of phase
 * g mod FAIR_PHASES (quantum / FAIR_PHASES apart), so that a pass handles an eighth of the
 * GPUs, not all of them at once. Marks the lanes whose boundary passed since the last pass;
 * returns -1 when out of memory. */
#define FAIR_PHASES 8

static berth_us fair_step(const struct salus *s)
{
    return s->quantum >= FAIR_PHASES ? s->quantum / FAIR_PHASES : s->quantum;
}

static int fair_due(struct salus *s, berth_us now)
{
    berth_us step = fair_step(s), last = s->fair_last;
    s->fair_last = now;
    if (!s->nmulti || last == BERTH_TIME_NONE)
        return 0;
    uint32_t phases = step == s->quantum ? 1 : FAIR_PHASES;
    for (berth_us b = (last / step + 1) * step, k = 0; b <= now && k < phases; b += step, k++) {
        uint32_t ph = (uint32_t)((b / step) % phases);
        for (size_t g = ph; g < s->L.ngpus; g += phases)
            for (uint32_t l = s->L.gpu[g].head; l != NONE; l = s->L.lane[l].next)
                if (s->L.lane[l].njobs > 1 && mark(s, l))
                    return -1;
    }
    return 0;
}

/* Salus' retry of pending requests: in arrival order, each admitted where it fits. */
static int admit_all(struct salus *s, const struct berth__view *v, struct berth_err *err)
{
    size_t w = 0;
    int blocked = 0;
    for (size_t i = 0; i < s->nqueue; i++) {
        uint32_t j = s->queue[i];
        if (v->jobs[j].state != BERTH_JOB_PENDING)
            continue; /* cancelled while waiting */
        uint32_t l = blocked ? NONE : admit(s, v, j);
        if (l == NONE - 1)
            return berth_err_set(err, BERTH_ENOMEM, "salus: out of memory");
        if (l == NONE) {
            s->queue[w++] = j;
            blocked = s->kind == K_FIFO;
            continue;
        }
        if (s->L.lane[l].njobs == 2)
            s->nmulti++;
        if (s->kind == K_FAIR)
            fair_reset(s, v, l);
        if (mark(s, l))
            return berth_err_set(err, BERTH_ENOMEM, "salus: out of memory");
    }
    s->nqueue = w;
    return 0;
}

/* Whether Salus can ever run job: a 1-GPU job whose memory fits a lane on some GPU it may
 * use (BERTH_EINPUT saying why otherwise). */
static int admissible(const struct salus *s, const struct berth_cluster *c,
                      const struct berth__job *job, struct berth_err *err)
{
    if (job->gpus != 1 || job->spec->max_gpus != 1)
        return berth_err_set(err, BERTH_EINPUT,
                             "the salus policies run 1-GPU jobs, found num_gpus %d (max_gpus %d)",
                             job->gpus, job->spec->max_gpus);
    int64_t p, e, most = 0;
    berth__salus_job_mem(job->spec, &p, &e);
    for (size_t t = 0; t < c->ntypes; t++)
        if ((!job->type_mask || (job->type_mask >> t & 1)) && s->type_cap[t] > most)
            most = s->type_cap[t];
    if (p + e > most)
        return berth_err_set(err, BERTH_EINPUT,
                             "needs %lld MiB of GPU memory (persistent %lld + ephemeral %lld), "
                             "more than the %lld MiB Salus' lanes get on any GPU it may use",
                             (long long)(p + e), (long long)p, (long long)e, (long long)most);
    return 0;
}

/* The policy's check hook: the same rule, before the run. */
static int check(void *self, const struct berth_cluster *c, const struct berth__job *j,
                 struct berth_err *err)
{
    struct salus *s = self;
    if (!s->ready && setup(s, c))
        return berth_err_set(err, BERTH_ENOMEM, "salus: out of memory");
    return admissible(s, c, j, err);
}

/* A newly arrived job (berthd has no check before a run: a refusal names the job here). */
static int arrive(struct salus *s, const struct berth__view *v, uint32_t j, struct berth_err *err)
{
    const struct berth__job *job = &v->jobs[j];
    if (admissible(s, v->cluster, job, err)) {
        char why[BERTH_ERR_MSG_MAX];
        snprintf(why, sizeof why, "%s", err->msg);
        return berth_err_set(err, BERTH_EINPUT, "job %s (trace line %u): %s", job->spec->id,
                             job->spec->line, why);
    }
    if (BERTH_GROW(s->queue, s->qcap, s->nqueue + 1))
        return berth_err_set(err, BERTH_ENOMEM, "salus: out of memory");
    s->queue[s->nqueue++] = j;
    return 0;
}

static int plan(void *self, const struct berth__view *v, struct berth__plan *pl,
                struct berth_err *err)
{
    struct salus *s = self;
    if ((!s->ready && setup(s, v->cluster)) || grow_jobs(s, v->njobs))
        return berth_err_set(err, BERTH_ENOMEM, "salus: out of memory");
    if (++s->pass == 0)
        s->pass = 1;
    s->ndirty = s->ntouched = 0;
    for (size_t i = 0; i < s->nretry; i++)
        if (mark(s, s->retry_lanes[i]))
            return berth_err_set(err, BERTH_ENOMEM, "salus: out of memory");
    s->nretry = 0;
    int rc;
    for (size_t i = 0; i < v->nleft; i++) {
        uint32_t j = v->left[i], l = s->L.lane_of[j];
        if (l == NONE)
            continue; /* it never got a lane */
        uint32_t before = s->L.lane[l].njobs;
        berth__lanes_leave(&s->L, j);
        s->nmulti -= before == 2;
        s->retry = 1;
        if (mark(s, l))
            return berth_err_set(err, BERTH_ENOMEM, "salus: out of memory");
    }
    for (size_t i = 0; i < v->nrequeued; i++) {
        uint32_t l = s->L.lane_of[v->requeued[i]];
        if (l != NONE && mark(s, l))
            return berth_err_set(err, BERTH_ENOMEM, "salus: out of memory");
    }
    for (size_t i = 0; i < v->narrived; i++) {
        if ((rc = arrive(s, v, v->arrived[i], err)))
            return rc;
        s->retry = 1;
    }
    if (s->retry) {
        s->retry = 0;
        if ((rc = admit_all(s, v, err)))
            return rc;
    }
    if (s->kind == K_FAIR && fair_due(s, v->now))
        return berth_err_set(err, BERTH_ENOMEM, "salus: out of memory");
    for (size_t i = 0; i < s->ndirty; i++)
        if ((rc = decide(s, v, pl, s->dirty[i], err)))
            return rc;
    for (size_t i = 0; i < s->ntouched; i++)
        if (berth__lanes_check_gpu(&s->L, s->touched[i]))
            return berth_err_set(err, BERTH_EINTERNAL,
                                 "salus: the lanes of GPU %u of server %u over-commit its memory",
                                 s->gpu_local[s->touched[i]], s->gpu_srv[s->touched[i]]);
    return 0;
}

static berth_us next_pass(void *self, const struct berth__view *v)
{
    const struct salus *s = self;
    if (s->kind != K_FAIR || !s->nmulti)
        return BERTH_TIME_NONE;
    return (v->now / fair_step(s) + 1) * fair_step(s);
}

#define SALUS_CREATE(fn, k)                                                                        \
    static int fn(const struct berth__params *p, void **self, struct berth_err *err)               \
    {                                                                                              \
        return create(k, p, self, err);                                                            \
    }
SALUS_CREATE(create_fifo, K_FIFO)
SALUS_CREATE(create_srtf, K_SRTF)
SALUS_CREATE(create_pack, K_PACK)
SALUS_CREATE(create_fair, K_FAIR)

const struct berth__policy_ops berth__policy_salus_fifo = {
    .name = "salus-fifo",
    .summary = "Salus without sharing: one job per GPU (its memory must fit), strict arrival order",
    .default_placement = "consolidate",
    .create = create_fifo,
    .destroy = destroy,
    .plan = plan,
    .next_pass = next_pass,
    .check = check,
};
const struct berth__policy_ops berth__policy_salus_srtf = {
    .name = "salus-srtf",
    .summary = "Salus: jobs resident in one lane per GPU time-share it, least remaining time runs",
    .default_placement = "consolidate",
    .create = create_srtf,
    .destroy = destroy,
    .plan = plan,
    .next_pass = next_pass,
    .check = check,
};
const struct berth__policy_ops berth__policy_salus_pack = {
    .name = "salus-pack",
    .summary = "Salus: a memory lane per job while GPU memory allows, all lanes run concurrently",
    .default_placement = "consolidate",
    .create = create_pack,
    .destroy = destroy,
    .plan = plan,
    .next_pass = next_pass,
    .check = check,
};
const struct berth__policy_ops berth__policy_salus_fair = {
    .name = "salus-fair",
    .summary =
        "Salus: jobs in one lane per GPU, least persistent-memory x time runs, every --quantum",
    .default_placement = "consolidate",
    .create = create_fair,
    .destroy = destroy,
    .plan = plan,
    .next_pass = next_pass,
    .check = check,
    .settings = fair_settings,
    .nsettings = sizeof fair_settings / sizeof *fair_settings,
};
