/* Accounting (acct.c): a subsystem of the daemon's core that reads the job table. */
#ifndef BERTH_LIVE_DAEMON_ACCT_H
#define BERTH_LIVE_DAEMON_ACCT_H

#include <jansson.h>

#include "live/daemon/core.h"

/* Accounting (acct.c): the jobs whose life overlaps [since_us, until_us) (until 0: now), of
 * user and queue when given, with their wait, run time and GPU-hours in the window (rows
 * for the jobs of ids above after, limit of them at most, and next_after the last row's id
 * when more match), and the totals per user, queue and GPU type over every job that
 * matches. berth__daemon_acct reads the job table (under d->mu; NULL when out of memory);
 * berth__daemon_acct_journal the journal's last commit, under no lock (the route's: O(jobs)
 * documents parsed, memory O(limit)). */
struct berth__acct_query {
    berth_us since_us, until_us;
    const char *user, *queue;
    uint64_t after;
    size_t limit;
};
json_t *berth__daemon_acct(struct berth__daemon *d, const struct berth__acct_query *q);
int berth__daemon_acct_journal(struct berth__daemon *d, const struct berth__acct_query *q,
                               size_t gpus, json_t **out, struct berth_err *err);

#endif
