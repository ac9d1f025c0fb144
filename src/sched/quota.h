/* Queues with quotas, borrowing and cohorts (Kueue's ClusterQueue semantics) and per-queue
 * and per-user GPU limits, as a gate the ordering scheduler asks before each start, over
 * what the queues' running jobs hold now (model/queues.h declares the queues).
 *
 * For a queue q and GPU type t, with nominal quota N, lending limit L (all of N unless
 * given) and borrowing limit B (none unless given), G = N - L is what q never lends. The
 * cohort's pool is P = sum of its queues' L, and its use C = sum of max(0, U - G) over its
 * queues (U: what each queue's running jobs hold). A job of q asking m milli-GPUs of type t
 * is admitted when, with U' = U + m:
 *   - q in no cohort: U' <= N;
 *   - q in a cohort: U' <= N + B, and C - max(0, U - G) + max(0, U' - G) <= P;
 * and its queue's and its user's running GPUs stay within their max_gpus. A queue without a
 * quota has no quota gate. A job refused at the cohort while U' <= N is entitled to what
 * its mates borrow: reclaim takes it back by preempting the borrowers' youngest jobs first
 * (berth__quota_victim), which gets the checkpoint signal like any preemption.
 *
 * Cost: a charge or an admission is O(1); a victim is O(queues in the cohort). */
#ifndef BERTH_SCHED_QUOTA_H
#define BERTH_SCHED_QUOTA_H

#include "sched/tenant.h"
#include "sched/why.h"

struct berth__quota;

/* A gate over queues file qf (not NULL) and the tenants' numbers t (both outlive it). */
int berth__quota_create(const struct berth_queues *qf, struct berth__tenants *t,
                        struct berth__quota **out);
void berth__quota_free(struct berth__quota *q);
/* Running job j (seen by the tenants) now holds its GPUs (on = 1) or gave them back (0).
 * Each start is charged once and each charge given back once. 0 or BERTH_ENOMEM. */
int berth__quota_charge(struct berth__quota *q, const struct berth__job *j, int on);
/* 1 when pending job j may start on GPU type t now; 0 with *w saying which quota or limit
 * refuses it, and *entitled = 1 when only the cohort's borrowers stand in its way (U' <= N).
 * A CPU-only job asks nothing and is always admitted. */
int berth__quota_admits(const struct berth__quota *q, const struct berth__job *j, int t,
                        struct berth__why *w, int *entitled);
/* The youngest running job (latest start) of a queue of j's cohort other than j's own that
 * borrows on a GPU type of mask (0: any) now, for a reclaim; BERTH_WHY_NOBODY when none. */
uint32_t berth__quota_victim(const struct berth__quota *q, const struct berth__job *jobs,
                             const struct berth__job *j, uint64_t mask);
/* 1 when a queue or user limit of the file can refuse anybody (so jobs of one shape but
 * another queue or user may be told apart). */
int berth__quota_splits_users(const struct berth__quota *q);

#endif
