/* The pass-due rule of the simulator and berthd (drive.h). */
#include "engine/drive.h"

void berth__drive_init(struct berth__drive *dr, berth_us round)
{
    *dr = (struct berth__drive){round > 0 ? round : 0, BERTH_TIME_NONE, 0, 0};
}

int berth__drive_due(const struct berth__drive *dr, berth_us now)
{
    if (dr->ends)
        return dr->next != BERTH_TIME_NONE ? now == dr->next : dr->dirty;
    if (dr->round)
        return now % dr->round == 0;
    return dr->dirty || (dr->next != BERTH_TIME_NONE && dr->next <= now);
}

int berth__drive_step(struct berth__drive *dr, struct berth__engine *e, berth_us now, int *ran,
                      struct berth_err *err)
{
    int due = berth__drive_due(dr, now), rc = 0;
    if (ran)
        *ran = due;
    if (due) {
        dr->dirty = 0;
        rc = berth__engine_pass(e, now, err);
        if (rc)
            return rc;
    }
    if (dr->round) { /* the next boundary while jobs are active (idle: arrivals wake it) */
        berth_us r = (now + 1) % dr->round;
        dr->next = e->npending || e->nrunning ? now + 1 + (r ? dr->round - r : 0) : BERTH_TIME_NONE;
    } else if (due && !dr->ends) { /* with ends, the driver sets the round's end */
        dr->next = berth__engine_next_pass(e, now);
    }
    return 0;
}
