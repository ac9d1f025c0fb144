/* Seeded synthetic workloads: Poisson arrivals and a job-shape profile ("gavel", "philly",
 * "llm").
 * The same options give the same trace, byte for byte. */
#ifndef BERTH_GEN_H
#define BERTH_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "trace.h"

struct berth_gen_opts {
    const char *profile;  /* "gavel", "philly" or "llm" */
    size_t jobs;          /* how many jobs */
    double rate_per_hour; /* Poisson arrival rate; <= 0 = the profile's own default */
    uint64_t seed;
    int32_t elastic_max; /* > 0: every job becomes elastic, min_gpus 1, max_gpus max(this, its
                            gang); 0 = inelastic jobs */
};

void berth_gen_opts_init(struct berth_gen_opts *o);
/* Builds a trace of o->jobs jobs; the caller frees it with berth_trace_free. */
int berth_gen(const struct berth_gen_opts *o, struct berth_trace **out, struct berth_err *err);
/* Names of the profiles, NULL-terminated. */
const char *const *berth_gen_profiles(void);

#endif
