/* What is lent and what must come back, counted one way for the two lenders berth has: a
 * cohort of queues lending unused quota to its mates (quota.c, Kueue's semantics) and the
 * inference pool lending idle servers to training (policy/aryl.c, Aryl's loaning). Both are
 * a lender with a lending limit L and an amount lent out now: a borrower may take more while
 * lent + m <= L; when L drops below what is lent (a queue's own jobs need their quota, the
 * inference demand rose) lent - L must come back, by the lender's reclaim order (quota.c:
 * the borrowers' youngest jobs; aryl.c: solve/reclaim.c, the servers whose return preempts
 * the fewest jobs, elastic jobs shrunk in place).
 *
 * How L is set is each lender's: a queue lends min(lend, nominal) of each GPU type (its
 * queues file line) and a cohort pools its queues' limits; the inference pool lends its
 * servers less the demand signal's and a headroom, set at every pass (units: milli-GPUs for
 * queues, servers for the pool). */
#ifndef BERTH_SCHED_LEND_H
#define BERTH_SCHED_LEND_H

#include <stdint.h>

struct berth__lender {
    int64_t limit; /* L: the most others may use of what it owns */
    int64_t lent;  /* what they use now */
};

#define BERTH_LEND_ALL INT64_MAX /* a lend limit not given: all it may lend */

/* The lending limit of a lender of capacity c that keeps k for itself now and lends at most
 * lend: min(lend, max(0, c - k)). A queue's, per GPU type: c its nominal quota, k 0, lend its
 * line's (BERTH_LEND_ALL: not given; model/queues.h's BERTH_Q_UNLIMITED is the same). The
 * inference pool's: c its servers, k the demand signal's servers plus the headroom, lend
 * BERTH_LEND_ALL. */
static inline int64_t berth__lend_limit(int64_t c, int64_t k, int64_t lend)
{
    int64_t l = c > k ? c - k : 0;
    return lend < l ? lend : l;
}

/* 1 when borrowers may take m more (m may be negative). */
static inline int berth__lend_fits(const struct berth__lender *l, int64_t m)
{
    return l->lent + m <= l->limit;
}

/* What may still be lent out (0 when nothing). */
static inline int64_t berth__lend_room(const struct berth__lender *l)
{
    return l->limit > l->lent ? l->limit - l->lent : 0;
}

/* What must come back (0 when nothing). */
static inline int64_t berth__lend_owed(const struct berth__lender *l)
{
    return l->lent > l->limit ? l->lent - l->limit : 0;
}

#endif
