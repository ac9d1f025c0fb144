/* berthd's jobs counted by state and queue, kept as jobs change state so that reading the
 * counts (a Prometheus scrape) costs the same whatever the job table's size. Queue names
 * become labels only where the operator chose them, or a bounded number of them:
 *  - the queues the operator's queues file declares (all of them, in file order; the file
 *    holds at most 4096) each own a label from the start, and then no other name becomes
 *    one: an undeclared queue (taken by the file's "*") counts under "_other", so a user who
 *    submits to junk queue names first cannot push the operator's queues out of the labels;
 *  - without declared queues, at most BERTH_TALLY_QUEUES names made of [A-Za-z0-9_.:-] (1 to
 *    32 bytes), the first seen; every other queue counts under "_other".
 * Jobs without a queue count under a declared "default", else "_other" (docs/security.md
 * says why). Guarded by the daemon's lock; the slots' names never change once given. */
#ifndef BERTH_LIVE_TALLY_H
#define BERTH_LIVE_TALLY_H

#include <stddef.h>
#include <stdint.h>

#define BERTH_TALLY_QUEUES 16 /* first-seen labels, when no queue is declared */
#define BERTH_TALLY_STATES 6

struct berth__tally {
    char (*names)[64]; /* [slot]: the slots' labels */
    int nnames;        /* slots given */
    int cap;           /* slots there may be; slot cap is "_other" */
    int declared;      /* 1: the slots are the queues file's, no other name is given one */
    int64_t (*n)[BERTH_TALLY_STATES]; /* [slot][state], cap + 1 rows */
};

/* Sets t up for the n queue names a queues file declares (n 0: first-seen labels). Names
 * are copied; "*" and "_other" take no slot. 0, or -1 out of memory. */
int berth__tally_init(struct berth__tally *t, const char *const *declared, size_t n);
void berth__tally_free(struct berth__tally *t);
/* The slot of queue (interned when it may be, see above). */
uint16_t berth__tally_slot(struct berth__tally *t, const char *queue);
/* A job of slot leaves state from (-1: none) for state to (-1: none). */
void berth__tally_move(struct berth__tally *t, uint16_t slot, int from, int to);
/* The label of slot ("_other" for cap). */
const char *berth__tally_name(const struct berth__tally *t, uint16_t slot);

#endif
