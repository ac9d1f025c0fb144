/* An undo log of memory writes: before a write, the old bytes of the place written are saved;
 * a rollback writes them back, newest first, so every place holds what it held at the mark.
 * It is how a trial edit (the scheduler trying a start after preempting a victim) is taken
 * back exactly, down to the order of linked lists, instead of by inverse edits that leave
 * traces. Generic and free of domain words (layer 1).
 *
 * The writer reserves room first (berth__undo_reserve, which can fail cleanly); a save
 * beyond it grows the log, and aborts the process when even that fails, since a write that
 * cannot be taken back would corrupt what the log guards. The places saved must stay where
 * they are until the rollback or the reset (no realloc in between). */
#ifndef BERTH_UTIL_UNDO_H
#define BERTH_UTIL_UNDO_H

#include <stddef.h>
#include <string.h>

struct berth__undo_entry {
    void *addr;
    size_t size, off; /* the old bytes: bytes[off, off + size) */
};

struct berth__undo {
    struct berth__undo_entry *e;
    size_t n, cap;
    unsigned char *bytes;
    size_t nbytes, bcap;
};

void berth__undo_init(struct berth__undo *u);
void berth__undo_free(struct berth__undo *u);
/* Room for `entries` more saves of `bytes` more bytes in all. 0, or -1 when out of memory
 * (nothing changed). */
int berth__undo_reserve(struct berth__undo *u, size_t entries, size_t bytes);
/* Saves the size bytes at addr. Inline: most saves are one field of a known size, whose copy
 * the compiler then makes a move instead of a call. */
void berth__undo_grow_or_abort(struct berth__undo *u, size_t size);
static inline void berth__undo_save(struct berth__undo *u, void *addr, size_t size)
{
    if (__builtin_expect(u->n == u->cap || u->nbytes + size > u->bcap, 0))
        berth__undo_grow_or_abort(u, size);
    u->e[u->n++] = (struct berth__undo_entry){addr, size, u->nbytes};
    memcpy(u->bytes + u->nbytes, addr, size);
    u->nbytes += size;
}
/* The current position, for a later rollback to it. */
static inline size_t berth__undo_mark(const struct berth__undo *u)
{
    return u->n;
}
/* Writes back every save made after mark, newest first, and forgets them. */
void berth__undo_rollback(struct berth__undo *u, size_t mark);
/* Forgets every save (keeps the room). */
void berth__undo_reset(struct berth__undo *u);

#endif
