/* A whole-GPU job spec for the engine-level tests: id, duration and gang (elastic range
 * min..max), every text field empty. The caller keeps the spec alive as long as the engine
 * that registers it. */
#ifndef BERTH_TESTS_JOBSPEC_MAKE_H
#define BERTH_TESTS_JOBSPEC_MAKE_H

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
                                  .job_type = "",
                                  .user = "",
                                  .queue = "",
                                  .status = "",
                                  .gpu_type = ""};
}

#endif
