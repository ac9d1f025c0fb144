/* LSD radix sorts on 64-bit keys (sort.h): 8 passes of 8 bits at the most, a pass skipped
 * when every key has the same byte there, signed keys ordered by flipping the sign bit. */
#include <stdlib.h>
#include <string.h>

#include "util/sort.h"

static uint64_t ukey(int64_t v)
{
    return (uint64_t)v ^ (UINT64_C(1) << 63);
}

/* The byte histograms of every pass at once (keys[via[i]], or keys[i] without via); returns
 * the mask of the passes where keys differ. */
static unsigned histograms(const int64_t *keys, const uint32_t *via, size_t n, size_t (*h)[256])
{
    memset(h, 0, 8 * 256 * sizeof **h);
    for (size_t i = 0; i < n; i++) {
        uint64_t u = ukey(via ? keys[via[i]] : keys[i]);
        for (int b = 0; b < 8; b++)
            h[b][(u >> (8 * b)) & 0xff]++;
    }
    unsigned live = 0;
    uint64_t first = n ? ukey(via ? keys[via[0]] : keys[0]) : 0;
    for (int b = 0; b < 8; b++)
        if (n && h[b][(first >> (8 * b)) & 0xff] != n)
            live |= 1u << b;
    return live;
}

/* Turns histogram row h into the first position of each digit. */
static void positions(const size_t *h, size_t *pos)
{
    size_t sum = 0;
    for (int d = 0; d < 256; d++) {
        pos[d] = sum;
        sum += h[d];
    }
}

int berth__sort_i64(int64_t *a, size_t n)
{
    int64_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    size_t(*h)[256] = malloc(8 * sizeof *h);
    if (!tmp || !h) {
        free(tmp);
        free(h);
        return -1;
    }
    unsigned live = histograms(a, NULL, n, h);
    int64_t *src = a, *dst = tmp;
    for (int b = 0; b < 8; b++) {
        if (!(live >> b & 1))
            continue;
        size_t pos[256];
        positions(h[b], pos);
        for (size_t i = 0; i < n; i++)
            dst[pos[(ukey(src[i]) >> (8 * b)) & 0xff]++] = src[i];
        int64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
    free(tmp);
    free(h);
    return 0;
}

int berth__sort_index_i64(const int64_t *keys, uint32_t *idx, size_t n)
{
    uint32_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    size_t(*h)[256] = malloc(8 * sizeof *h);
    if (!tmp || !h) {
        free(tmp);
        free(h);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    unsigned live = histograms(keys, NULL, n, h);
    uint32_t *src = idx, *dst = tmp;
    for (int b = 0; b < 8; b++) { /* each pass is stable: ties keep index order */
        if (!(live >> b & 1))
            continue;
        size_t pos[256];
        positions(h[b], pos);
        for (size_t i = 0; i < n; i++)
            dst[pos[(ukey(keys[src[i]]) >> (8 * b)) & 0xff]++] = src[i];
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != idx)
        memcpy(idx, src, n * sizeof *idx);
    free(tmp);
    free(h);
    return 0;
}
