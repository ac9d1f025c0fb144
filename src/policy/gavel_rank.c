/* The sort of a Gavel round's ranking (gavel_rank.h): a merge sort with the comparison
 * inlined. qsort's indirect calls, and its copying of 40-byte entries through an index, were
 * a fifth of themis-ftf's time on Philly. Runs up to 16 are sorted by insertion; two halves
 * already in order are not merged, so input in order costs one comparison per merge. */
#include <string.h>

#include "policy/gavel_rank.h"

void berth__gavel_sort(struct berth__gavel_entry *e, struct berth__gavel_entry *tmp, size_t n)
{
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            struct berth__gavel_entry x = e[i];
            size_t at = i;
            for (; at > 0 && berth__gavel_ranks_before(&x, &e[at - 1]); at--)
                e[at] = e[at - 1];
            e[at] = x;
        }
        return;
    }
    size_t h = n / 2;
    berth__gavel_sort(e, tmp, h);
    berth__gavel_sort(e + h, tmp, n - h);
    if (!berth__gavel_ranks_before(&e[h], &e[h - 1]))
        return; /* already in order */
    memcpy(tmp, e, h * sizeof *e);
    size_t a = 0, b = h, w = 0;
    while (a < h && b < n) /* w <= b: the right half is read before it is overwritten */
        e[w++] = berth__gavel_ranks_before(&e[b], &tmp[a]) ? e[b++] : tmp[a++];
    while (a < h)
        e[w++] = tmp[a++];
}
