/* Which server a gang would get first by preemption, kept per server instead of found by
 * trying victims (sched/prio.c's fast path for preemptive admissions).
 *
 * A preemptive scheduler tries victims worst first (highest key, then highest job number)
 * and starts the waiting gang at the first victim after which it fits. When the gang can only
 * start on one server (it must not span servers, it is one GPU, or consolidate-or-wait has
 * already refused to spread it, which further victims cannot change), that first victim is
 * the one that completes some server: the server's idle GPUs plus those of its victims tried
 * so far reach the gang. Server by server, in the server's own worst-first order of its
 * preemptible jobs, the completing job is fixed by the order alone; so the gang's server is
 * the one whose completing job is the worst. In overload the scheduler tried hundreds of
 * victims per admission (each a preemption, a placement and a give-back) to find it; here a
 * summary per server and gang size is kept current as servers change, and the answer is a
 * look at a few heap tops.
 *
 * Keys move with time (key = rank + slope * t), so a server's order changes when two of its
 * jobs' lines cross: each server keeps the time of its next crossing in an event heap and is
 * summarised again then. Servers are kept in one heap per (gang size, slope, GPU type) by
 * their completing job's rank: within one slope the order of ranks is the order of keys at
 * any time, so only the heap tops are compared at the time of the question.
 *
 * What changes a server: its idle GPUs and who holds them (the cluster's change list,
 * model/cluster.h), a job's turn to or from being a victim, a new rank (the owner calls
 * berth__ppick_touch_job), a crossing (the event heap). Cost: O(GPUs per server log) per
 * changed server and tracked gang size, O(slopes) per question. */
#ifndef BERTH_SCHED_PREEMPT_PICK_H
#define BERTH_SCHED_PREEMPT_PICK_H

#include "model/cluster.h"
#include "model/job.h"

/* What the owner says of running job j: whether it is a victim now (preemptible), and its
 * key line (its key at time t is rank + slope * t). */
struct berth__ppick_line {
    int victim;
    __int128 rank;
    int64_t slope;
};
typedef void (*berth__ppick_line_fn)(void *ctx, uint32_t j, struct berth__ppick_line *out);

struct berth__ppick;

/* For cluster c (it must track owners and changes; the summary keeps c and reads it at each
 * question). NULL when out of memory. */
struct berth__ppick *berth__ppick_create(struct berth_cluster *c, berth__ppick_line_fn line,
                                         void *ctx);
void berth__ppick_destroy(struct berth__ppick *pp);
/* Running job j may have become or stopped being a victim, or has a new key line: its servers
 * are summarised again at the next question. 0 or -1 (out of memory). */
int berth__ppick_touch_job(struct berth__ppick *pp, const struct berth__job *j);

struct berth__ppick_result {
    uint32_t server;
    int32_t nkept;
    uint32_t kept[BERTH_MAX_SERVER_GPUS];            /* the victims the gang needs, worst first */
    struct berth__slot slots[BERTH_MAX_SERVER_GPUS]; /* the gang's GPUs: the lowest idle ones */
};

/* The first server a gang of g whole GPUs of type t completes by preemption at time now,
 * taking only victims worse than bar (on a tie, numbered above pj): 1 with *res filled,
 * 0 when no server can be completed so, -1 when the summary cannot say (a server already
 * holds the gang, or too many gang sizes are asked for), -2 out of memory. */
int berth__ppick_find(struct berth__ppick *pp, const struct berth__job *jobs, int t, int32_t g,
                      int64_t bar, uint32_t pj, berth_us now, struct berth__ppick_result *res);

#endif
