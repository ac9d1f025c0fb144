/* berthd's job table bounded, as Slurm's MinJobAge and MaxJobCount bound slurmctld's: a job
 * that ended --min-job-age ago leaves memory (its journal document stays: GET /v1/jobs/ID
 * and /v1/acct read it there), and past --max-job-count jobs in memory the oldest ended
 * ones go first, whatever their age. A job leaves only when nothing in memory needs it: it
 * is over and its process gone, its last document committed (the journal has nothing
 * pending), no job still waiting depends on it, no service holds it as a replica, and an
 * array leaves whole (its first task stands for it in dependencies). Once a second, under
 * d->mu: O(jobs in memory) pointer checks, then the frees. */
#include <stdlib.h>

#include "util/mem.h"

#include "engine/engine.h"
#include "live/daemon/core.h"
#include "live/jobs/journal.h"

/* j ended, its process gone, nothing waiting on it. */
static int done_with(struct berth__daemon *d, const struct berth__ljob *j)
{
    const struct berth__job *ej = berth__daemon_ejob(d, (struct berth__ljob *)j);
    if (!berth__lstate_final(j->state) || j->proc || j->launch || j->draining || !j->end_us ||
        (ej && (ej->state == BERTH_JOB_PENDING || ej->state == BERTH_JOB_RUNNING)))
        return 0;
    return !berth__daemon_subs_keep(d, j); /* a waiting dependent, a service's replica */
}

/* The ids [*first, *last] that leave together with job id (an array leaves whole), and when
 * the last of them ended; 0 when they may not leave now. */
static berth_us group(struct berth__daemon *d, uint64_t id, uint64_t *first, uint64_t *last)
{
    const struct berth__ljob *j = berth__daemon_job(d, id);
    *first = *last = id;
    if (j->array_id) {
        if (j->array_id != id)
            return 0; /* a task: with its first */
        *last = id + (j->array_n ? j->array_n : 1) - 1;
    }
    berth_us ended = 0;
    for (uint64_t k = *first; k <= *last; k++) {
        const struct berth__ljob *t = berth__daemon_job(d, k);
        if (!t)
            continue;
        if (t->array_id != j->array_id || !done_with(d, t))
            return 0;
        ended = t->end_us > ended ? t->end_us : ended;
    }
    return ended;
}

static void drop(struct berth__daemon *d, uint64_t first, uint64_t last)
{
    for (uint64_t k = first; k <= last; k++) {
        struct berth__ljob *t = berth__daemon_job(d, k);
        if (!t)
            continue;
        d->jobs[k - 1] = NULL;
        berth__ljob_free(t);
        d->nlive--;
        d->purged++;
        d->purged_below = k > d->purged_below ? k : d->purged_below;
    }
}

struct aged {
    berth_us ended;
    uint64_t first, last;
};

static int by_end(const void *a, const void *b)
{
    const struct aged *x = a, *y = b;
    return x->ended < y->ended   ? -1
           : x->ended > y->ended ? 1
                                 : (x->first > y->first) - (x->first < y->first);
}

void berth__daemon_purge(struct berth__daemon *d, berth_us now)
{
    if (now < d->purge_at || berth__daemon_subs_busy(d))
        return;
    d->purge_at = now + BERTH_US_PER_S;
    struct berth__journal_health h;
    berth__journal_health(d->jn, &h);
    if (h.pending || h.degraded) /* a last document may not be on disk yet */
        return;
    int over = d->o.max_job_count > 0 && d->nlive > (size_t)d->o.max_job_count;
    struct aged *a = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < d->njobs; i++) {
        if (!d->jobs[i])
            continue;
        uint64_t first, last;
        berth_us ended = group(d, i + 1, &first, &last);
        if (!ended)
            continue;
        if (now - ended >= d->o.min_job_age_us)
            drop(d, first, last);
        else if (over && !BERTH_GROW(a, cap, n + 1))
            a[n++] = (struct aged){ended, first, last};
    }
    /* still past the cap: the oldest ended go first, younger than the age or not */
    if (n && d->nlive > (size_t)d->o.max_job_count) {
        qsort(a, n, sizeof *a, by_end);
        for (size_t i = 0; i < n && d->nlive > (size_t)d->o.max_job_count; i++)
            drop(d, a[i].first, a[i].last);
    }
    free(a);
}
