/* Sorting the large arrays a run makes (arrival order, JCT percentiles) by LSD radix on
 * 64-bit keys: O(n) per byte position where keys differ, where qsort's comparisons cost more
 * than the simulation itself on a million jobs. Both give exactly qsort's order on the same
 * keys (the index sort is stable: equal keys keep their index order). */
#ifndef BERTH_UTIL_SORT_H
#define BERTH_UTIL_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sorts a[0..n) ascending. 0, or -1 when out of memory (a unchanged). */
int berth__sort_i64(int64_t *a, size_t n);

/* Fills idx[0..n) with 0..n-1 ordered by keys[idx[k]] ascending, ties by index. 0, or -1
 * when out of memory. */
int berth__sort_index_i64(const int64_t *keys, uint32_t *idx, size_t n);

#endif
