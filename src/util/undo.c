/* The undo log of memory writes (undo.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "util/undo.h"

void berth__undo_init(struct berth__undo *u)
{
    memset(u, 0, sizeof *u);
}

void berth__undo_free(struct berth__undo *u)
{
    free(u->e);
    free(u->bytes);
    berth__undo_init(u);
}

int berth__undo_reserve(struct berth__undo *u, size_t entries, size_t bytes)
{
    if (BERTH_GROW(u->e, u->cap, u->n + entries) ||
        BERTH_GROW(u->bytes, u->bcap, u->nbytes + bytes))
        return -1;
    return 0;
}

void berth__undo_save(struct berth__undo *u, void *addr, size_t size)
{
    if (__builtin_expect(u->n == u->cap || u->nbytes + size > u->bcap, 0) &&
        berth__undo_reserve(u, 1, size)) {
        /* a write that cannot be taken back would leave a half-made edit behind for good */
        fputs("berth: out of memory in an undo log (reserve room before the writes)\n", stderr);
        abort();
    }
    u->e[u->n++] = (struct berth__undo_entry){addr, size, u->nbytes};
    memcpy(u->bytes + u->nbytes, addr, size);
    u->nbytes += size;
}

void berth__undo_rollback(struct berth__undo *u, size_t mark)
{
    while (u->n > mark) {
        const struct berth__undo_entry *x = &u->e[--u->n];
        memcpy(x->addr, u->bytes + x->off, x->size);
        u->nbytes = x->off;
    }
}

void berth__undo_reset(struct berth__undo *u)
{
    u->n = 0;
    u->nbytes = 0;
}
