/* A start that consolidate-or-wait refuses, known without making it. In overload a policy
 * that fills idle GPUs tries every pending gang while any GPU is idle, and a gang that fits by
 * count but whose placement would spread it over servers is refused by the wait rule
 * (sched/plan_wait.c) after being placed and given back: a placement, a check and a give-back
 * per pending gang and pass. The answer does not depend on where the pieces went, only on the
 * gang, its type and the servers' expected ends, so it can be given first; and what the refused
 * start leaves behind (its take and give-back move the picked servers to the heads of their
 * free-GPU buckets, which later placements see) can be reproduced without the take. */
#ifndef BERTH_SCHED_REFUSE_H
#define BERTH_SCHED_REFUSE_H

#include "sched/plan.h"

/* The wait rule solved for the wait (plan_wait.c): pending whole-GPU gang j, placed across
 * servers of GPU type t, is refused exactly when some server of t is expected to hold the
 * gang within less than the returned microseconds from now. INT64_MIN when the rule never
 * refuses it (rule off, no class, one GPU, no slowdown, no server of t large enough).
 * Depends on j's work done and estimate, fixed while it is pending. */
berth_us berth__plan_wait_patience(const struct berth__plan *p, const struct berth__job *j, int t);

/* In how many microseconds from now some server of type t is expected to hold pending gang
 * j's GPUs idle (plan_wait.c, the servers berth__plan_spread_pays asks, the last witness
 * first): the first server found sooner than bound, else the least over the type
 * (BERTH_TIME_NONE when no server ever does). Fills *wait; 0, or -1 when out of memory. */
int berth__plan_wait_ready(struct berth__plan *p, const struct berth__job *j, int t, berth_us bound,
                           berth_us *wait);

/* 1 when berth__plan_start_type(p, j, t) would return BERTH_NOFIT because consolidate-or-wait
 * refuses the spread placement it makes; the cluster is then left exactly as that call would
 * leave it. patience is berth__plan_wait_patience(p, j, t) (a caller may keep it while j is
 * pending). 0 when that is not known (the caller starts j as usual), -1 when out of memory.
 * Known only for a pending whole-GPU gang that may span servers, under the consolidate
 * placement, on a cluster without CPU, memory or GPU memory limits, closed or held-out
 * servers, outside a trial; the other cases answer 0. */
int berth__plan_start_refused(struct berth__plan *p, const struct berth__job *j, int t,
                              berth_us patience);

/* The same for a start inside berth__plan_start_type (plan.c), without a kept patience and
 * inside trials too (the moves are undo-logged as the real take and give-back are): 1 when
 * the start is refused (done: the cluster as the placed and given-back start leaves it), 0
 * when the gang is to be placed for real (it starts, or the shortcut does not apply), -1 out
 * of memory. berth__plan_no_unplaced (tests) turns it off. */
int berth__plan_start_refused_now(struct berth__plan *p, const struct berth__job *j, int t);
extern int berth__plan_no_unplaced;

/* Whether berth__plan_start_refused may answer in this plan (its placement and cluster), and
 * no list of changed servers is kept: then the two functions below apply. */
int berth__plan_refusals_covered(const struct berth__plan *p);

/* What a start of a gang of g GPUs on type t that consolidate-or-wait refuses leaves (the
 * caller knows it is refused: no server of t holds g, t has g idle GPUs and the rule
 * refuses the gang). */
void berth__plan_refused_moves(struct berth__plan *p, int t, int32_t g);

/* What n such starts in a row leave, of gangs of g1 and g2 GPUs alternately (g1 first):
 * O(GPUs per server) whatever n, as the moves of each depend only on the bucket sizes
 * (unchanged by a refused start) and on the order they find. */
void berth__plan_refused_alternating(struct berth__plan *p, int t, int32_t g1, int32_t g2,
                                     uint64_t n);

#endif
