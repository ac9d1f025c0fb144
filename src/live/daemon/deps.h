/* Dependencies and array throttles (deps.c): a subsystem of the daemon's core. */
#ifndef BERTH_LIVE_DAEMON_DEPS_H
#define BERTH_LIVE_DAEMON_DEPS_H

#include "live/daemon/core.h"

/* Dependencies and array throttles (deps.c), under d->mu. deps_state: 0 every dependency of
 * j is met, 1 one is not yet, 2 one never can be (why says which, either way). array_full:
 * j's array has its throttle's tasks in the scheduler. deps_link: j joins the reverse index
 * of the jobs it depends on. moved: j started or ended (or left the scheduler): its
 * dependents and its array's waiting tasks are looked at by moved_apply, at the next tick.
 * gate: 1 when j must wait outside the scheduler now (or has just ended: a dependency that
 * can never be met), with its dep_wait / array_wait set; 0 when it may enter. */
int berth__daemon_deps_state(struct berth__daemon *d, const struct berth__ljob *j, char *why,
                             size_t len);
int berth__daemon_array_full(struct berth__daemon *d, const struct berth__ljob *j);
int berth__daemon_gate(struct berth__daemon *d, struct berth__ljob *j, berth_us now);
/* Registers the subsystem with the core (its own state: the jobs moved since the last tick);
 * at create. */
int berth__deps_attach(struct berth__daemon *d, struct berth_err *err);

#endif
