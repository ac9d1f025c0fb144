/* The simulator's stall rule: a run that can make no more progress ends with BERTH_ESTALLED
 * and a message naming the jobs that can never start and why, instead of running its rounds or
 * time slices over an idle cluster forever (a Slurm job whose constraints no node meets stays
 * pending for good, with reason BadConstraints; a simulation must end).
 *
 * The rule watches idle spells: nothing runs, jobs are pending, and nothing is still to come
 * but the policy's own passes (no arrival, no completion, no time limit; the caller says
 * whether an inference series may still move). Within a spell the cluster and every job stay
 * as they are, and only the policy's clock moves. The run stops
 *   - at once when no pass is to come at all (the loop has no next event);
 *   - at the spell's second pass that placed nothing, when a probe (engine/probe.h) finds that
 *     no pending job could start even alone on the idle cluster with the run's placement, and
 *     no server is reserved (an inference pool a policy might lend): then nothing can change;
 *   - when the spell has lasted BERTH__STALL_IDLE_US of simulated time (and a whole period of
 *     a periodic inference series) with at least two passes: some job could be placed but the
 *     policy starts none (one that stops at the first job it cannot place, as Blox and strict
 *     fifo do). The bound is longer than any built-in policy's own clock (Blox's 1000 h
 *     starvation guard is the longest), so a policy that waits on its clock on purpose (a
 *     round, a re-solve interval, a starvation guard) is not stopped.
 * A run that never has such a spell is untouched: the rule only reads the engine, and the
 * probes work on copies. */
#ifndef BERTH_SIM_STALL_H
#define BERTH_SIM_STALL_H

#include "engine/engine.h"

/* 2000 h of simulated time: twice Blox's starvation guard */
#define BERTH__STALL_IDLE_US (2000LL * 3600 * BERTH_US_PER_S)

struct berth__stall {
    berth_us since;  /* the first pass of the idle spell, BERTH_TIME_NONE: not in one */
    uint64_t passes; /* passes in the spell */
    int probed;      /* the spell's probe has run */
    int certain;     /* it found no pending job that could start alone */
};

void berth__stall_init(struct berth__stall *s);

/* After the events and the pass (ran: one ran) at instant now. idle: nothing runs, jobs
 * are pending, no arrival, completion or time limit is to come; settled: nor any change of
 * an inference series, or a periodic one whose period is span (0: none). 0 go on, 1 the run
 * is stalled (berth__stall_fail says why), < 0 an error (err filled). */
int berth__stall_step(struct berth__stall *s, struct berth__engine *e, int idle, int ran,
                      int settled, berth_us span, berth_us now, struct berth_err *err);

/* Fills err with why the run stalled at now with jobs pending: the jobs no placement can put
 * on the idle cluster, those the run's placement cannot, and those the policy holds (ids, at
 * most 10 of each), and how many of how many jobs are done. last: no pass is to come at all.
 * Returns BERTH_ESTALLED (BERTH_ENOMEM when even the probe could not run). */
int berth__stall_fail(const struct berth__stall *s, struct berth__engine *e, berth_us now, int last,
                      struct berth_err *err);

#endif
