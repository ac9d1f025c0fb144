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

void *berth__arena_alloc(struct berth__arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (!a->head || a->used + n > a->size) {
        size_t sz = n > ARENA_CHUNK ? n : ARENA_CHUNK;
        struct berth__arena_chunk *c = malloc(sizeof *c + sz);
        if (!c)
            return NULL;
        c->next = a->head;
        a->head = c;
        a->used = 0;
        a->size = sz;
    }
    void *p = a->head->data + a->used;
    a->used += n;
    return p;
}

char *berth__arena_strndup(struct berth__arena *a, const char *s, size_t len)
{
    char *p = berth__arena_alloc(a, len + 1);
    if (!p)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}
