/* Blox's two placements as it ships them (msr-fiddle/blox, placement/placement.py), for
 * --mode blox to reproduce Blox: the servers are walked in index order (Blox's node ids),
 * each server's idle GPUs of the asked type counted as its free GPUs (CPU and memory
 * included when the cluster models them).
 *
 *   blox-scattered     (_scattered_placement, ~249-272; what Blox runs, since no shipped
 *                      job asks for consolidation): each server in turn adds up to the
 *                      whole gang's count of its free GPUs (~265: free[:needed], not the
 *                      GPUs still needed), and the gang is placed only if the running total
 *                      hits the gang exactly at some server; once it overshoots, it fails,
 *                      even with GPUs to spare.
 *   blox-consolidated  (_consolidated_placement, ~215-247): the first server with exactly
 *                      the gang's count free; the fallback to the server with the fewest
 *                      more never fires (~242 assigns a misspelt name), so nothing else.
 *
 * A gang that must stay on one server takes the first piece only if it is the whole gang.
 * Fractional and CPU-only jobs (no Blox counterpart) are placed as consolidate does. Each
 * pick costs O(servers). */
#include "model/alloc.h"
#include "sched/placement.h"

/* Server s's free GPUs of type `type` for j (0 when another type). */
static int32_t room(const struct berth_cluster *c, uint32_t s, const struct berth__job *j, int type)
{
    return c->srv[s].type == type ? berth__server_room(c, s, j) : 0;
}

static int pick_scattered(void *self, const struct berth_cluster *c, const struct berth__job *j,
                          int type, int32_t need, struct berth__place_pick *out)
{
    if (j->gpus == 0 || berth__job_share(j) < 1000)
        return berth__place_consolidate.pick(self, c, j, type, need, out);
    int32_t first = -1, total = 0;
    if (need == j->gpus) { /* the whole gang: does Blox's running total hit it exactly? */
        for (uint32_t s = 0; s < c->nsrv && total < j->gpus; s++) {
            int32_t r = room(c, s, j, type);
            total += r < j->gpus ? r : j->gpus;
        }
        if (total != j->gpus)
            return BERTH_NOFIT;
    }
    for (uint32_t s = 0; s < c->nsrv && first < 0; s++) /* the walk's next server */
        if (room(c, s, j, type) > 0)
            first = (int32_t)s;
    if (first < 0)
        return BERTH_NOFIT;
    int32_t r = room(c, (uint32_t)first, j, type), take = r < need ? r : need;
    if (j->single && take < j->gpus)
        return BERTH_NOFIT;
    *out = (struct berth__place_pick){(uint32_t)first, -1, take, 0};
    return 0;
}

static int pick_consolidated(void *self, const struct berth_cluster *c, const struct berth__job *j,
                             int type, int32_t need, struct berth__place_pick *out)
{
    if (j->gpus == 0 || berth__job_share(j) < 1000)
        return berth__place_consolidate.pick(self, c, j, type, need, out);
    for (uint32_t s = 0; s < c->nsrv; s++)
        if (c->srv[s].type == type && c->srv[s].nfree == need &&
            berth__server_room(c, s, j) >= need) {
            *out = (struct berth__place_pick){s, -1, need, 0};
            return 0;
        }
    return BERTH_NOFIT;
}

const struct berth__placement_ops berth__place_blox_scattered = {
    .name = "blox-scattered",
    .summary = "Blox as shipped: servers in order, each adding up to the whole gang; fails "
               "once the total overshoots",
    .pick = pick_scattered,
};

const struct berth__placement_ops berth__place_blox_consolidated = {
    .name = "blox-consolidated",
    .summary = "Blox as shipped: only a server with exactly the gang's count free",
    .pick = pick_consolidated,
};
