/* The one seeded random generator (xoshiro256**, seeded through splitmix64). Every random
 * draw in berth comes from a struct berth__rng passed down explicitly: no hidden state. */
#ifndef BERTH_UTIL_RNG_H
#define BERTH_UTIL_RNG_H

#include <stdint.h>

struct berth__rng {
    uint64_t s[4];
};

void berth__rng_seed(struct berth__rng *r, uint64_t seed);
uint64_t berth__rng_u64(struct berth__rng *r);
/* Uniform in [0, 1), 53 random bits. */
double berth__rng_unit(struct berth__rng *r);
/* Uniform in [lo, hi). */
double berth__rng_uniform(struct berth__rng *r, double lo, double hi);
/* Exponential with the given rate (mean 1/rate). */
double berth__rng_exp(struct berth__rng *r, double rate);
/* Uniform integer in [0, n), n > 0, without modulo bias. */
uint64_t berth__rng_below(struct berth__rng *r, uint64_t n);

#endif
