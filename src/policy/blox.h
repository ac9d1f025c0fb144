/* What blox.c offers beyond its two policy tables: a test hook for the starvation guard,
 * whose threshold is fixed at Blox's 1000 h in every run the registry creates. */
#ifndef BERTH_POLICY_BLOX_H
#define BERTH_POLICY_BLOX_H

#include "berth/time.h"

/* Sets the wait after which a blox-las job gets priority 1 (self: the policy's state, as
 * created for "blox-las" or "blox-fifo"; call it before the first pass). */
void berth__blox_set_starvation(void *self, berth_us wait_us);

#endif
