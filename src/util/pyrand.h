/* Python's random.Random, bit for bit, for following a peer simulator's own random draws
 * (Gavel's fifo draws a GPU type index with random.Random(seed).randrange): MT19937 seeded
 * as random.seed(an int) seeds it, and randrange(n) as Python 3 draws it. berth's own draws
 * use rng.h; nothing else should use this one. */
#ifndef BERTH_UTIL_PYRAND_H
#define BERTH_UTIL_PYRAND_H

#include <stdint.h>

struct berth__pyrand {
    uint32_t mt[624];
    int i;
};

/* random.seed(seed): init_by_array over the seed's 32-bit words, lowest first. */
void berth__pyrand_seed(struct berth__pyrand *r, uint64_t seed);
/* random.getrandbits(32). */
uint32_t berth__pyrand_u32(struct berth__pyrand *r);
/* random.randrange(n), 1 <= n < 2^32: getrandbits(k), k the bit length of n, until below n. */
uint32_t berth__pyrand_below(struct berth__pyrand *r, uint32_t n);

#endif
