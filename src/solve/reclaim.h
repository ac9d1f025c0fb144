/* Aryl/Lyra's reclaim: when inference needs k loaned servers back, return the k whose
 * return preempts the fewest training jobs, greedily, recomputing after every pick.
 *
 * A server's cost is the number of jobs its return would preempt: an elastic job with x
 * workers there costs 0 if it can shrink by x and stay at or above its minimum, else 1; an
 * inelastic job costs 1. Ties go to fewer busy workers on the server, then to less work
 * left among the jobs it would preempt, then to the lower server number. Returning a server
 * shrinks the elastic jobs that can shrink and preempts the others; a preempted job frees
 * its workers on every server, so every cost is recomputed before the next pick. */
#ifndef BERTH_POLICY_RECLAIM_H
#define BERTH_POLICY_RECLAIM_H

#include <stddef.h>
#include <stdint.h>

#include "berth/err.h"

struct berth__rc_job {
    int32_t workers;     /* workers it runs now (updated: shrunk, or 0 when preempted) */
    int32_t min_workers; /* elastic floor; ignored when inelastic */
    uint8_t elastic;
    double remaining; /* work left, for the tie-break */
};

/* Job `job` runs `workers` workers on server `server`. */
struct berth__rc_place {
    uint32_t server, job;
    int32_t workers;
};

struct berth__rc_step {
    uint32_t server;
    int32_t preempted; /* jobs preempted by this return (its cost) */
    int32_t shrunk;    /* elastic jobs shrunk by it */
};

/* Picks min(k, ncand) servers among the candidates cand[] (distinct), filling steps[] in
 * pick order and preempted[job] (1 = preempted; the caller zeroes it). jobs[] is updated.
 * *nsteps = the picks made. BERTH_EINPUT on a place naming a job out of range or more
 * workers than the job runs. */
int berth__reclaim(const uint32_t *cand, size_t ncand, struct berth__rc_job *jobs, size_t njobs,
                   const struct berth__rc_place *places, size_t nplaces, size_t k,
                   struct berth__rc_step *steps, size_t *nsteps, uint8_t *preempted,
                   struct berth_err *err);

#endif
