/* Jobs by state and queue (see tally.h). */
#include <string.h>

#include "live/jobs/tally.h"

static int fit(const char *q)
{
    size_t n = strlen(q);
    if (n < 1 || n > 32)
        return 0;
    for (const char *c = q; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_' || *c == '.' || *c == ':' || *c == '-'))
            return 0;
    return q[0] != '_'; /* "_other" is ours */
}

uint8_t berth__tally_slot(struct berth__tally *t, const char *queue)
{
    if (!queue || !fit(queue))
        return BERTH_TALLY_QUEUES;
    for (int i = 0; i < t->nnames; i++)
        if (!strcmp(t->names[i], queue))
            return (uint8_t)i;
    if (t->nnames >= BERTH_TALLY_QUEUES)
        return BERTH_TALLY_QUEUES;
    memcpy(t->names[t->nnames], queue, strlen(queue) + 1);
    return (uint8_t)t->nnames++;
}

void berth__tally_move(struct berth__tally *t, uint8_t slot, int from, int to)
{
    if (slot > BERTH_TALLY_QUEUES)
        slot = BERTH_TALLY_QUEUES;
    if (from >= 0 && from < BERTH_TALLY_STATES)
        t->n[slot][from]--;
    if (to >= 0 && to < BERTH_TALLY_STATES)
        t->n[slot][to]++;
}

const char *berth__tally_name(const struct berth__tally *t, uint8_t slot)
{
    return slot < t->nnames ? t->names[slot] : "_other";
}
