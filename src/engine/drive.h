/* When a scheduling pass is due: the one rule the simulator and berthd share, so a policy's
 * passes fall at the same instants under the virtual clock and the wall clock.
 *
 * Without rounds a pass is due when something the policy sees changed since the last pass
 * (a job arrived, finished, was cancelled, requeued, adopted, re-estimated, inference
 * demand moved, a server came or went: the caller says so with berth__drive_touch), or when
 * the policy's own timer has come. The timer is what the policy asked for after its last
 * pass, kept from pass to pass: asking again at an instant without a pass would move a
 * time slice's end ahead forever (berthd's ticks come every few milliseconds). With rounds
 * (the simulator's round modes), passes fall only on multiples of the round from time 0,
 * whatever changed, and the next is the next boundary while jobs are active. Rounds of
 * varying length (the simulator's Gavel rounds, which end when their jobs' work does) are
 * a third way: a pass is due at the round end the driver set after the last pass
 * (berth__drive_set_end), or, with no round under way, when something changed. */
#ifndef BERTH_ENGINE_DRIVE_H
#define BERTH_ENGINE_DRIVE_H

#include "engine/engine.h"

struct berth__drive {
    berth_us round; /* > 0: passes only at its multiples */
    berth_us next;  /* the next instant a pass is due with no event, BERTH_TIME_NONE: none */
    int dirty;      /* something the policy sees changed since the last pass */
    int ends;       /* rounds of varying length: passes at the ends the driver sets */
};

/* A drive with no pass due yet; round 0 = passes when due. */
void berth__drive_init(struct berth__drive *dr, berth_us round);

/* Something the policy sees changed: a pass is due (at the next boundary with rounds). */
static inline void berth__drive_touch(struct berth__drive *dr)
{
    dr->dirty = 1;
}

/* Rounds whose ends the driver sets after each pass (round must be 0). */
static inline void berth__drive_init_ends(struct berth__drive *dr)
{
    *dr = (struct berth__drive){0, BERTH_TIME_NONE, 0, 1};
}

/* The end of the round that the last pass started (BERTH_TIME_NONE: no round under way, the
 * next change starts one). */
static inline void berth__drive_set_end(struct berth__drive *dr, berth_us end)
{
    dr->next = end;
}

/* Whether a pass is due at now. */
int berth__drive_due(const struct berth__drive *dr, berth_us now);

/* At instant now: runs engine e's pass if one is due (*ran says whether; may be NULL),
 * then sets the next instant one is due with no event. 0, or the pass's error. */
int berth__drive_step(struct berth__drive *dr, struct berth__engine *e, berth_us now, int *ran,
                      struct berth_err *err);

#endif
