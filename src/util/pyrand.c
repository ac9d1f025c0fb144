/* Python's Mersenne Twister and randrange (pyrand.h), after the reference MT19937 of
 * Matsumoto and Nishimura that CPython's _randommodule.c uses. */
#include "util/pyrand.h"

#define N 624
#define M 397

static void init_genrand(struct berth__pyrand *r, uint32_t s)
{
    r->mt[0] = s;
    for (int i = 1; i < N; i++)
        r->mt[i] = 1812433253u * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + (uint32_t)i;
    r->i = N;
}

void berth__pyrand_seed(struct berth__pyrand *r, uint64_t seed)
{
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    int len = key[1] ? 2 : 1, i = 1, j = 0;
    init_genrand(r, 19650218u);
    for (int k = N > len ? N : len; k; k--) {
        r->mt[i] =
            (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= N) {
            r->mt[0] = r->mt[N - 1];
            i = 1;
        }
        if (j >= len)
            j = 0;
    }
    for (int k = N - 1; k; k--) {
        r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
        if (++i >= N) {
            r->mt[0] = r->mt[N - 1];
            i = 1;
        }
    }
    r->mt[0] = 0x80000000u;
}

uint32_t berth__pyrand_u32(struct berth__pyrand *r)
{
    static const uint32_t mag01[2] = {0, 0x9908b0dfu};
    if (r->i >= N) {
        int k;
        uint32_t y;
        for (k = 0; k < N - M; k++) {
            y = (r->mt[k] & 0x80000000u) | (r->mt[k + 1] & 0x7fffffffu);
            r->mt[k] = r->mt[k + M] ^ (y >> 1) ^ mag01[y & 1];
        }
        for (; k < N - 1; k++) {
            y = (r->mt[k] & 0x80000000u) | (r->mt[k + 1] & 0x7fffffffu);
            r->mt[k] = r->mt[k + (M - N)] ^ (y >> 1) ^ mag01[y & 1];
        }
        y = (r->mt[N - 1] & 0x80000000u) | (r->mt[0] & 0x7fffffffu);
        r->mt[N - 1] = r->mt[M - 1] ^ (y >> 1) ^ mag01[y & 1];
        r->i = 0;
    }
    uint32_t y = r->mt[r->i++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

uint32_t berth__pyrand_below(struct berth__pyrand *r, uint32_t n)
{
    int k = 32 - __builtin_clz(n); /* n's bit length */
    uint32_t v;
    do
        v = berth__pyrand_u32(r) >> (32 - k);
    while (v >= n);
    return v;
}
