/* The hash every open-addressing table in berth uses (FNV-1a, 64-bit), over a string or
 * over bytes. */
#ifndef BERTH_UTIL_HASH_H
#define BERTH_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define BERTH_HASH_INIT UINT64_C(1469598103934665603)

static inline uint64_t berth__hash_str(const char *s)
{
    uint64_t h = BERTH_HASH_INIT;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return h;
}

/* Continues hash h (BERTH_HASH_INIT to start) over n bytes at p. */
static inline uint64_t berth__hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(1099511628211);
    return h;
}

#endif
