/* The string hash every open-addressing table in berth uses (FNV-1a, 64-bit). */
#ifndef BERTH_UTIL_HASH_H
#define BERTH_UTIL_HASH_H

#include <stdint.h>

static inline uint64_t berth__hash_str(const char *s)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return h;
}

#endif
