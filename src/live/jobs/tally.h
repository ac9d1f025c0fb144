/* berthd's jobs counted by state and queue, kept as jobs change state so that reading the
 * counts (a Prometheus scrape) costs the same whatever the job table's size. Queue names are
 * what submitters typed, so only a bounded number of them become labels: at most
 * BERTH_TALLY_QUEUES names made of [A-Za-z0-9_.:-] (1 to 32 bytes), the first seen; every
 * other queue, and jobs without one, count under "_other" (docs/security.md says why).
 * Guarded by the daemon's lock. */
#ifndef BERTH_LIVE_TALLY_H
#define BERTH_LIVE_TALLY_H

#include <stdint.h>

#define BERTH_TALLY_QUEUES 16
#define BERTH_TALLY_STATES 6

struct berth__tally {
    char names[BERTH_TALLY_QUEUES][33];
    int nnames;
    /* [queue slot][state]; slot BERTH_TALLY_QUEUES is "_other" */
    int64_t n[BERTH_TALLY_QUEUES + 1][BERTH_TALLY_STATES];
};

/* The slot of queue (interned when there is room and the name is fit for a label). */
uint8_t berth__tally_slot(struct berth__tally *t, const char *queue);
/* A job of slot leaves state from (-1: none) for state to (-1: none). */
void berth__tally_move(struct berth__tally *t, uint8_t slot, int from, int to);
/* The label of slot ("_other" for the last). */
const char *berth__tally_name(const struct berth__tally *t, uint8_t slot);

#endif
