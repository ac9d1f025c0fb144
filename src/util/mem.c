/* Growable arrays and the string arena (see mem.h). */
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

int berth__grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2 / elem)
            return -1;
        n *= 2;
    }
    void *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

struct berth__arena_chunk {
    struct berth__arena_chunk *next;
    max_align_t align;
    char data[];
};

#define ARENA_CHUNK (64 * 1024)

void berth__arena_init(struct berth__arena *a)
{
    a->head = NULL;
    a->used = a->size = 0;
}

void berth__arena_free(struct berth__arena *a)
{
    struct berth__arena_chunk *c = a->head;
    while (c) {
        struct berth__arena_chunk *n = c->next;
        free(c);
        c = n;
    }
    berth__arena_init(a);
}

/* n bytes at a multiple of align (1 or 16) from the chunk's start (max_align_t-aligned). */
static void *arena_take(struct berth__arena *a, size_t n, size_t align)
{
    size_t at = a->head ? (a->used + align - 1) & ~(align - 1) : 0;
    if (!a->head || at + n > a->size) {
        size_t sz = n > ARENA_CHUNK ? n : ARENA_CHUNK;
        struct berth__arena_chunk *c = malloc(sizeof *c + sz);
        if (!c)
            return NULL;
        c->next = a->head;
        a->head = c;
        a->size = sz;
        at = 0;
    }
    void *p = a->head->data + at;
    a->used = at + n;
    return p;
}

void *berth__arena_alloc(struct berth__arena *a, size_t n)
{
    return arena_take(a, n, 16);
}

char *berth__arena_strndup(struct berth__arena *a, const char *s, size_t len)
{
    char *p = arena_take(a, len + 1, 1); /* strings need no alignment: a million ids */
    if (!p)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}
