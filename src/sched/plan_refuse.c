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
 * and each picked server is moved to its bucket's head as the real take and give-back move
 * it (berth__cluster_to_front). Nothing else changes, as the real start and give-back leave
 * CPU, memory, owners, masks and counts as they were; not even the servers' gen, so the
 * caches keyed by it (the wait rule's ends, FGD's fragmentation) and the preemption summaries
 * fed by the cluster's change list stay valid, as they are for the state they describe. The
 * other placements, clusters with CPU, memory or GPU memory limits (placement then skips
 * servers), and closed or held-out servers are not covered: the caller starts the job as
 * usual. berth__plan_start_refused (kept patience) also leaves out trials;
 * berth__plan_start_refused_now works in them (the bucket moves are undo-logged). */
#include <string.h>

#include "model/alloc.h"
#include "model/cluster.h"
#include "sched/placement.h"
#include "sched/refuse.h"

/* Whether the plan is one whose refused starts this file reproduces (sched/refuse.h). */
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

/* The servers consolidate's spread placement of a gang of g GPUs on type ty picks, in order,
 * into picked; how many it picks from each bucket into per (per[f], f <= max). No server
 * holds g and the type has at least g idle GPUs. A picked server leaves its bucket (all its
 * idle GPUs taken) unless it is the last pick, so the next head of its bucket is its
 * successor; the picks of a bucket are its first servers, and how many depends only on how
 * many servers each bucket has. Returns how many servers it picks. */
static int32_t picks(const struct berth_cluster *c, const struct berth__gputype *ty, int32_t g,
                     uint32_t *picked, int32_t *per)
{
    int32_t head[BERTH_MAX_SERVER_GPUS + 1];
    int32_t max = ty->max_per_server, need = g, n = 0;
    for (int32_t f = 0; f <= max; f++)
        head[f] = ty->head[f], per[f] = 0;
    while (need > 0 && n < BERTH_MAX_SERVER_GPUS) {
        int32_t f = need;
        while (f <= max && head[f] < 0) /* the tightest server holding the rest */
            f++;
        if (f <= max) {
            per[f]++;
            picked[n++] = (uint32_t)head[f];
            break;
        }
        for (f = max; f >= 1 && head[f] < 0; f--) /* else the emptiest, whole */
            ;
        if (f < 1)
            break; /* not reached: the type has the GPUs */
        per[f]++;
        picked[n++] = (uint32_t)head[f];
        need -= f;
        head[f] = c->srv[head[f]].next;
    }
    return n;
}

/* What that placement and its give-back leave: each picked server moved to the head of its
 * bucket, in pick order (so a bucket's picked servers end up first, in reverse order). */
static void replay(struct berth_cluster *c, const struct berth__gputype *ty, int32_t g)
{
    uint32_t picked[BERTH_MAX_SERVER_GPUS];
    int32_t per[BERTH_MAX_SERVER_GPUS + 1];
    int32_t n = picks(c, ty, g, picked, per);
    for (int32_t i = 0; i < n; i++)
        berth__cluster_to_front(c, picked[i]);
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

int berth__plan_no_unplaced; /* tests only: always place for real */

/* Whether start_in's shortcut applies to gang j on type t: the wait rule on, a pending
 * whole-GPU gang that may span servers under consolidate (which picks the type itself: not
 * a placement choosing it), GPUs alone deciding room, no closed or held-out servers, the type
 * with the GPUs but no server holding them all (so consolidate spreads it). */
static int applies(const struct berth__plan *p, const struct berth__job *j, int t)
{
    const struct berth_cluster *c = p->cluster;
    const struct berth__gputype *ty = &c->types[t];
    return !berth__plan_no_unplaced && p->wait.tput && p->place->ops == &berth__place_consolidate &&
           !c->has_cpu_mem && !c->has_gpu_mem && !c->nclosed && !c->nout_want &&
           j->state == BERTH_JOB_PENDING && !j->single && berth__job_share(j) >= 1000 &&
           j->gpus >= 2 && j->gpus <= ty->max_per_server && ty->free >= j->gpus &&
           !one_server_holds(c, ty, j->gpus);
}

int berth__plan_start_refused_now(struct berth__plan *p, const struct berth__job *j, int t)
{
    if (!applies(p, j, t))
        return 0;
    int pays = berth__plan_spread_pays_unplaced(p, j, t);
    if (pays != 0)
        return pays < 0 ? -1 : 0;
    replay(p->cluster, &p->cluster->types[t], j->gpus);
    return 1;
}

int berth__plan_refusals_covered(const struct berth__plan *p)
{
    return covered(p) && !p->cluster->changes;
}

void berth__plan_refused_moves(struct berth__plan *p, int t, int32_t g)
{
    replay(p->cluster, &p->cluster->types[t], g);
}

/* Reverses, in each bucket's segment [off[f], off[f] + per[f]) of the region, its first
 * per[f] positions: one refused start's moves, on positions. */
static void reverse_heads(uint8_t *a, const int32_t *off, const int32_t *per, int32_t max)
{
    for (int32_t f = 1; f <= max; f++)
        for (int32_t i = off[f], k = off[f] + per[f] - 1; i < k; i++, k--) {
            uint8_t x = a[i];
            a[i] = a[k];
            a[k] = x;
        }
}

/* out = a after b, as position maps (out[i] = b[a[i]]); n positions. */
static void compose(uint8_t *out, const uint8_t *a, const uint8_t *b, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        out[i] = b[a[i]];
}

/* The region two gang sizes' refused starts move: per bucket the first max(k1, k2) servers,
 * the buckets from the fullest down; fills off and ids and returns its size. */
static int32_t region(const struct berth_cluster *c, const struct berth__gputype *ty,
                      const int32_t *k1, const int32_t *k2, int32_t *off, uint32_t *ids)
{
    int32_t n = 0;
    for (int32_t f = ty->max_per_server; f >= 1; f--) {
        off[f] = n;
        int32_t k = k1[f] > k2[f] ? k1[f] : k2[f];
        for (int32_t s = ty->head[f]; k > 0; s = c->srv[s].next, k--)
            ids[n++] = (uint32_t)s;
    }
    return n;
}

void berth__plan_refused_alternating(struct berth__plan *p, int t, int32_t g1, int32_t g2,
                                     uint64_t n)
{
    struct berth_cluster *c = p->cluster;
    const struct berth__gputype *ty = &c->types[t];
    if (n <= 4) {
        for (uint64_t i = 0; i < n; i++)
            replay(c, ty, i & 1 ? g2 : g1);
        return;
    }
    uint32_t picked[BERTH_MAX_SERVER_GPUS], ids[2 * BERTH_MAX_SERVER_GPUS];
    int32_t k1[BERTH_MAX_SERVER_GPUS + 1], k2[BERTH_MAX_SERVER_GPUS + 1];
    int32_t off[BERTH_MAX_SERVER_GPUS + 1];
    picks(c, ty, g1, picked, k1);
    picks(c, ty, g2, picked, k2);
    int32_t m = region(c, ty, k1, k2, off, ids), max = ty->max_per_server;
    /* pair: the positions after one start of g1 then one of g2; its n / 2-th power by
     * squaring (powers of one map commute), then one more g1 when n is odd */
    uint8_t pair[2 * BERTH_MAX_SERVER_GPUS], acc[2 * BERTH_MAX_SERVER_GPUS];
    uint8_t tmp[2 * BERTH_MAX_SERVER_GPUS];
    for (int32_t i = 0; i < m; i++)
        pair[i] = acc[i] = (uint8_t)i;
    reverse_heads(pair, off, k1, max);
    reverse_heads(pair, off, k2, max);
    for (uint64_t e = n / 2; e; e >>= 1) {
        if (e & 1) {
            compose(tmp, acc, pair, m);
            memcpy(acc, tmp, (size_t)m);
        }
        compose(tmp, pair, pair, m);
        memcpy(pair, tmp, (size_t)m);
    }
    if (n & 1)
        reverse_heads(acc, off, k1, max);
    /* each bucket's new first servers, pushed back last first */
    for (int32_t i = m; i-- > 0;)
        berth__cluster_to_front(c, ids[acc[i]]);
}
