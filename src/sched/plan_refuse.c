/* A start consolidate-or-wait refuses, answered without the start (sched/refuse.h). Policies
 * that fill idle GPUs try every pending gang in overload; most are gangs that fit by count,
 * that the consolidate placement spreads over several servers (none holds the whole gang)
 * and that the wait rule then refuses. Such a start takes the GPUs, asks the rule, and gives
 * them back: only the order of the free-GPU buckets changes (each picked server is unlinked
 * and pushed back at the head of its bucket, in pick order), which later placements see.
 *
 * Here the answer comes first: the placement spreads the gang exactly when no server of the
 * type holds it, and the rule's answer depends on the gang and the servers' expected ends,
 * not on where the pieces went (a piece's GPUs count as idle for the gang's own wait, as
 * they were). When it refuses, the picks are worked out on the bucket heads without taking
 * anything (consolidate: the emptiest server whole, until the tightest holds what is left)
 * and each picked server is given nothing back, which moves it to its bucket's head as the
 * real give-back does. The servers' gen still changes (caches keyed by it are dropped, as
 * after the real start); CPU, memory, owners, masks and counts are as the real start leaves
 * them because it leaves them unchanged. The other placements, clusters with CPU, memory or
 * GPU memory limits (placement then skips servers), closed or held-out servers and trials
 * are not covered: the caller starts the job as usual. */
#include "model/alloc.h"
#include "model/cluster.h"
#include "sched/placement.h"
#include "sched/refuse.h"

/* Whether the plan is one whose refused starts this file reproduces. */
static int covered(const struct berth__plan *p)
{
    const struct berth_cluster *c = p->cluster;
    return p->place->ops == &berth__place_consolidate && !p->trial && !c->undo && !c->has_cpu_mem &&
           !c->has_gpu_mem && !c->nclosed && !c->nout_want && c->owner;
}

/* 1 when some server of type ty not reserved has at least g idle GPUs (consolidate puts the
 * whole gang there, and the rule lets it start). */
static int one_server_holds(const struct berth_cluster *c, const struct berth__gputype *ty,
                            int32_t g)
{
    for (int32_t f = g; f <= ty->max_per_server; f++)
        for (int32_t s = ty->head[f]; s >= 0; s = c->srv[s].next)
            if (!c->srv[s].reserved)
                return 1;
    return 0;
}

/* What consolidate's spread placement of a gang of g GPUs on type ty and its give-back leave:
 * the servers it picks, in order, each moved to the head of its bucket. No server holds g
 * and the type has at least g idle GPUs. A picked server leaves its bucket (all its idle
 * GPUs taken) unless it is the last pick, so the next head of its bucket is its successor. */
static void replay(struct berth_cluster *c, const struct berth__gputype *ty, int32_t g)
{
    int32_t head[BERTH_MAX_SERVER_GPUS + 1];
    uint32_t picked[BERTH_MAX_SERVER_GPUS];
    int32_t max = ty->max_per_server, need = g, n = 0;
    for (int32_t f = 0; f <= max; f++)
        head[f] = ty->head[f];
    while (need > 0 && n < BERTH_MAX_SERVER_GPUS) {
        int32_t f = need;
        while (f <= max && head[f] < 0) /* the tightest server holding the rest */
            f++;
        if (f <= max) {
            picked[n++] = (uint32_t)head[f];
            break;
        }
        for (f = max; f >= 1 && head[f] < 0; f--) /* else the emptiest, whole */
            ;
        if (f < 1)
            break; /* not reached: the type has the GPUs */
        picked[n++] = (uint32_t)head[f];
        need -= f;
        head[f] = c->srv[head[f]].next;
    }
    for (int32_t i = 0; i < n; i++)
        berth__cluster_give_mask(c, picked[i], 0);
}

int berth__plan_start_refused(struct berth__plan *p, const struct berth__job *j, int t,
                              berth_us patience)
{
    struct berth_cluster *c = p->cluster;
    const struct berth__gputype *ty = &c->types[t];
    if (patience == INT64_MIN || !covered(p) || j->state != BERTH_JOB_PENDING || j->single ||
        berth__job_share(j) < 1000 || j->gpus < 2 || j->gpus > ty->max_per_server ||
        ty->free < j->gpus || (j->type_mask && !(j->type_mask >> t & 1)) ||
        one_server_holds(c, ty, j->gpus))
        return 0;
    berth_us wait;
    if (berth__plan_wait_ready(p, j, t, patience, &wait))
        return -1;
    if (wait == BERTH_TIME_NONE || wait >= patience)
        return 0;
    replay(c, ty, j->gpus);
    return 1;
}
