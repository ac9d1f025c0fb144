/* What the salus policies (salus.c) show of themselves to tests and benchmarks: their lanes. */
#ifndef BERTH_POLICY_SALUS_H
#define BERTH_POLICY_SALUS_H

#include "policy/salus/salus_lanes.h"

/* The lanes of a salus policy's state (self from its create), or NULL before its first
 * pass. */
const struct berth__lanes *berth__salus_lanes(const void *self);

#endif
