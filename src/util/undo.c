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

void berth__undo_grow_or_abort(struct berth__undo *u, size_t size)
{
    if (berth__undo_reserve(u, 1, size)) {
        /* a write that cannot be taken back would leave a half-made edit behind for good */
        fputs("berth: out of memory in an undo log (reserve room before the writes)\n", stderr);
        abort();
    }
}

void berth__undo_rollback(struct berth__undo *u, size_t mark)
{
    while (u->n > mark) {
        const struct berth__undo_entry *x = &u->e[--u->n];
        const unsigned char *b = u->bytes + x->off;
        switch (x->size) { /* the fields' sizes as moves; the rest (job records) by memcpy */
        case 2:
            memcpy(x->addr, b, 2);
            break;
        case 4:
            memcpy(x->addr, b, 4);
            break;
        case 8:
            memcpy(x->addr, b, 8);
            break;
        default:
            memcpy(x->addr, b, x->size);
        }
        u->nbytes = x->off;
    }
}

void berth__undo_reset(struct berth__undo *u)
{
    u->n = 0;
    u->nbytes = 0;
}
