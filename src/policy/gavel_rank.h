/* The order of a Gavel round's ranking (policy/gavel.c) and its sort, on their own so that
 * the sort can be checked against qsort (tests/policy/test_gavel_rank.c). */
#ifndef BERTH_POLICY_GAVEL_RANK_H
#define BERTH_POLICY_GAVEL_RANK_H

#include <stddef.h>
#include <stdint.h>

struct berth__gavel_entry { /* an allocated (job, type) in a round's ranking */
    double prio, deficit, x;
    uint32_t job, k;
    int16_t type;
};

/* 1 when a ranks before b: (priority, deficit, x) descending, then job number, then type.
 * (job, type) is unique in a ranking, so this is a total order: any sort gives the same
 * ranking. */
static inline int berth__gavel_ranks_before(const struct berth__gavel_entry *a,
                                            const struct berth__gavel_entry *b)
{
    if (a->prio != b->prio)
        return a->prio > b->prio;
    if (a->deficit != b->deficit)
        return a->deficit > b->deficit;
    if (a->x != b->x)
        return a->x > b->x;
    if (a->job != b->job)
        return a->job < b->job;
    return a->type < b->type;
}

/* Sorts e[0..n) by berth__gavel_ranks_before; tmp holds n entries. Cheap on input that is
 * nearly in order (a round starts from the last round's ranking). */
void berth__gavel_sort(struct berth__gavel_entry *e, struct berth__gavel_entry *tmp, size_t n);

#endif
