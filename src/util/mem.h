/* Small memory helpers shared by every layer: a growable-array step and a string arena.
 * Generic and free of domain words (layer 1). */
#ifndef BERTH_UTIL_MEM_H
#define BERTH_UTIL_MEM_H

#include <stddef.h>
#include <stdint.h>

/* Makes room for need elements of size elem in *p (capacity *cap, doubled as needed).
 * Returns 0, or -1 when out of memory (then *p and *cap are unchanged). */
int berth__grow(void **p, size_t *cap, size_t need, size_t elem);

#define BERTH_GROW(p, cap, need) berth__grow((void **)&(p), &(cap), (need), sizeof *(p))

/* A bump allocator for many small strings that all die together. */
struct berth__arena {
    struct berth__arena_chunk *head;
    size_t used, size;
};

void berth__arena_init(struct berth__arena *a);
void berth__arena_free(struct berth__arena *a);
/* Copies len bytes of s plus a NUL into the arena; NULL when out of memory. */
char *berth__arena_strndup(struct berth__arena *a, const char *s, size_t len);
void *berth__arena_alloc(struct berth__arena *a, size_t n);

#endif
