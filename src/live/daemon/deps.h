/* Dependencies and array throttles (deps.c): a subsystem of the daemon's core. */
#ifndef BERTH_LIVE_DAEMON_DEPS_H
#define BERTH_LIVE_DAEMON_DEPS_H

#include "live/daemon/core.h"

/* The subsystem works through its hooks only (deps.c): joined links a job into the reverse
 * index of the jobs it depends on; moved notes a job that started or ended, whose dependents
 * and array's waiting tasks the next tick looks at; gate keeps a job outside the scheduler
 * while a dependency is unmet or its array's throttle is full (ending it failed when a
 * dependency never can be met); reason says which; busy and keeps hold the purge back. */
/* Registers the subsystem with the core (its own state: the jobs moved since the last tick);
 * at create. */
int berth__deps_attach(struct berth__daemon *d, struct berth_err *err);

#endif
