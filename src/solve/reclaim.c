/* Aryl/Lyra's greedy reclaim (see reclaim.h). Each pick scans the places on the remaining
 * candidate servers: O(k x places on candidates), small next to a scheduling pass because
 * k servers are reclaimed at a time and places are workers, not GPUs. */
#include <stdlib.h>

#include "solve/reclaim.h"

struct cost {
    int32_t preempted, busy;
    double lost;
};

/* 1 when a is a better pick than b */
static int better(const struct cost *a, uint32_t sa, const struct cost *b, uint32_t sb)
{
    if (a->preempted != b->preempted)
        return a->preempted < b->preempted;
    if (a->busy != b->busy)
        return a->busy < b->busy;
    if (a->lost != b->lost)
        return a->lost < b->lost;
    return sa < sb;
}

static int keeps_up(const struct berth__rc_job *j, int32_t x)
{
    return j->elastic && j->workers - x >= j->min_workers;
}

int berth__reclaim(const uint32_t *cand, size_t ncand, struct berth__rc_job *jobs, size_t njobs,
                   const struct berth__rc_place *places, size_t nplaces, size_t k,
                   struct berth__rc_step *steps, size_t *nsteps, uint8_t *preempted,
                   struct berth_err *err)
{
    *nsteps = 0;
    for (size_t i = 0; i < nplaces; i++)
        if (places[i].job >= njobs || places[i].workers < 0 ||
            places[i].workers > jobs[places[i].job].workers)
            return berth_err_set(err, BERTH_EINPUT,
                                 "reclaim: place %zu: job %u with %d workers (of %zu jobs)", i,
                                 places[i].job, places[i].workers, njobs);
    /* each candidate's places, gathered once (CSR by candidate position) */
    size_t *start = calloc(ncand + 1, sizeof *start),
           *idx = malloc((nplaces ? nplaces : 1) * sizeof *idx);
    uint8_t *gone = calloc(ncand ? ncand : 1, 1);
    if (!start || !idx || !gone) {
        free(start), free(idx), free(gone);
        return berth_err_set(err, BERTH_ENOMEM, "reclaim: out of memory");
    }
    for (size_t c = 0; c < ncand; c++) {
        start[c + 1] = start[c];
        for (size_t i = 0; i < nplaces; i++)
            if (places[i].server == cand[c])
                idx[start[c + 1]++] = i;
    }
    while (*nsteps < k && *nsteps < ncand) {
        size_t best = ncand;
        struct cost bc = {0, 0, 0};
        for (size_t c = 0; c < ncand; c++) {
            if (gone[c])
                continue;
            struct cost cc = {0, 0, 0};
            for (size_t p = start[c]; p < start[c + 1]; p++) {
                const struct berth__rc_place *pl = &places[idx[p]];
                const struct berth__rc_job *j = &jobs[pl->job];
                if (preempted[pl->job] || !pl->workers)
                    continue;
                cc.busy += pl->workers;
                if (!keeps_up(j, pl->workers)) {
                    cc.preempted++;
                    cc.lost += j->remaining;
                }
            }
            if (best == ncand || better(&cc, cand[c], &bc, cand[best])) {
                best = c;
                bc = cc;
            }
        }
        struct berth__rc_step *st = &steps[(*nsteps)++];
        *st = (struct berth__rc_step){cand[best], 0, 0};
        gone[best] = 1;
        for (size_t p = start[best]; p < start[best + 1]; p++) {
            const struct berth__rc_place *pl = &places[idx[p]];
            struct berth__rc_job *j = &jobs[pl->job];
            if (preempted[pl->job] || !pl->workers)
                continue;
            if (keeps_up(j, pl->workers)) {
                j->workers -= pl->workers;
                st->shrunk++;
            } else {
                j->workers = 0;
                preempted[pl->job] = 1;
                st->preempted++;
            }
        }
    }
    free(start), free(idx), free(gone);
    return 0;
}
