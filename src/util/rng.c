/* xoshiro256** (Blackman & Vigna, public domain algorithm) seeded by splitmix64. */
#include <math.h>

#include "util/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

void berth__rng_seed(struct berth__rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t berth__rng_u64(struct berth__rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double berth__rng_unit(struct berth__rng *r)
{
    return (double)(berth__rng_u64(r) >> 11) * 0x1.0p-53;
}

double berth__rng_uniform(struct berth__rng *r, double lo, double hi)
{
    return lo + (hi - lo) * berth__rng_unit(r);
}

double berth__rng_exp(struct berth__rng *r, double rate)
{
    /* 1 - u is in (0, 1], so the log is finite. */
    return -log(1.0 - berth__rng_unit(r)) / rate;
}

uint64_t berth__rng_below(struct berth__rng *r, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = berth__rng_u64(r);
    while (x >= limit);
    return x % n;
}
