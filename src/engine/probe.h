/* Probes: could a pending job start at all, alone, on the engine's cluster as it is now? The
 * simulator asks when nothing runs and nothing is to come (sim/stall.h): a job no placement
 * can put on the idle cluster will never start, whatever the policy does later.
 *
 * A probe works on its own copy of the cluster, with its own instance of the run's placement
 * (prepared with the engine's jobs) and its own plan, and every start it tries is a trial taken
 * back: the engine, its plan and its placement's state (FGD's cache) are never touched, so a
 * run that is probed goes on exactly as one that is not. */
#ifndef BERTH_ENGINE_PROBE_H
#define BERTH_ENGINE_PROBE_H

#include "engine/engine.h"

struct berth__probe {
    struct berth_cluster *c;     /* the copy */
    struct berth__placement run; /* a fresh instance of the run's placement */
    struct berth__plan plan;     /* the probes' own */
    struct berth__slot *slots;   /* room for the largest gang a probe places */
    int32_t slots_cap;
    berth_us now;
};

/* Copies engine e's cluster and opens its placement anew at time now. 0, or BERTH_ENOMEM
 * (or the placement's error) with err filled; close it either way. */
int berth__probe_open(struct berth__probe *pr, const struct berth__engine *e, berth_us now,
                      struct berth_err *err);
void berth__probe_close(struct berth__probe *pr);

/* Which placement a probe uses. */
enum berth__probe_by {
    BERTH_PROBE_RUN = 0,         /* the run's own */
    BERTH_PROBE_CONSOLIDATE = 1, /* consolidate: the GPUs, CPU and memory are there at all */
};

/* 1 when pending job j could start alone on the copy as it is (at its gang size, or an elastic
 * job at its smallest), placed as `by` says; 0 when not; < 0 on error (err filled). The copy
 * is as it was afterwards. */
int berth__probe_fits(struct berth__probe *pr, const struct berth__job *j, int by,
                      struct berth_err *err);

#endif
