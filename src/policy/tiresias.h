/* What tiresias.c offers beyond its two policy tables: test hooks for the chunk size of its
 * running lists, so that tests can make chunks split and merge all the time, and for the
 * pass without its shortcuts, the reference they are checked against. */
#ifndef BERTH_POLICY_TIRESIAS_H
#define BERTH_POLICY_TIRESIAS_H

#include <stddef.h>

/* Sets how many running jobs one chunk of a queue's sorted running list holds (at least 2;
 * the default is 256). self: the state of a tiresias-dlas or -dlas-gpu policy, before its
 * first pass. */
void berth__tiresias_set_chunk(void *self, size_t n);
/* Tests: the pass without its two shortcuts (jobs of a failed start given back in front of
 * their heaps; chunks that lost no job taken without reading their jobs), as the reference
 * the shortcuts must match. */
void berth__tiresias_set_plain(void *self);

#endif
