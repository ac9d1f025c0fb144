/* A whole-GPU job spec for the engine-level tests: id, duration and gang (elastic range
 * min..max), every text field empty. The caller keeps the spec alive as long as the engine
 * that registers it. jobspec_x gives a test a spec's extra fields to write. */
#ifndef BERTH_TESTS_JOBSPEC_MAKE_H
#define BERTH_TESTS_JOBSPEC_MAKE_H

#include <stdint.h>
#include <stdlib.h>

#include "berth/trace.h"

static inline struct berth_jobspec jobspec_make(const char *id, berth_us duration_us, int32_t gpus,
                                                int32_t min_gpus, int32_t max_gpus)
{
    return (struct berth_jobspec){.id = id,
                                  .duration_us = duration_us,
                                  .num_gpus = gpus,
                                  .min_gpus = min_gpus,
                                  .max_gpus = max_gpus,
                                  .gpu_share_milli = 1000,
                                  .queue = ""};
}

/* s's extra fields to write: a fresh copy of what s has (so a spec copied from another
 * changes alone), from a pool that lives as long as the test program; s points to it. */
static inline struct berth_jobspec_extra *jobspec_x(struct berth_jobspec *s)
{
    static struct berth_jobspec_extra pool[1 << 14];
    static size_t used;
    if (used == sizeof pool / sizeof *pool)
        abort();
    pool[used] = *berth_jobspec_extra(s);
    s->extra = &pool[used];
    return &pool[used++];
}

#endif
