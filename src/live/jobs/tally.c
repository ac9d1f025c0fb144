/* Jobs by state and queue (see tally.h). */
#include <stdlib.h>
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

static int find(const struct berth__tally *t, const char *queue)
{
    for (int i = 0; i < t->nnames; i++)
        if (!strcmp(t->names[i], queue))
            return i;
    return -1;
}

int berth__tally_init(struct berth__tally *t, const char *const *declared, size_t n)
{
    memset(t, 0, sizeof *t);
    t->declared = n > 0;
    t->cap = n > 0 ? (int)n : BERTH_TALLY_QUEUES;
    t->names = calloc((size_t)t->cap, sizeof *t->names);
    t->n = calloc((size_t)t->cap + 1, sizeof *t->n);
    if (!t->names || !t->n) {
        berth__tally_free(t);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const char *q = declared[i];
        if (!strcmp(q, "*") || !strcmp(q, "_other") || strlen(q) >= sizeof *t->names ||
            find(t, q) >= 0)
            continue;
        memcpy(t->names[t->nnames++], q, strlen(q) + 1);
    }
    return 0;
}

void berth__tally_free(struct berth__tally *t)
{
    free(t->names);
    free(t->n);
    memset(t, 0, sizeof *t);
}

uint16_t berth__tally_slot(struct berth__tally *t, const char *queue)
{
    uint16_t other = (uint16_t)t->cap;
    if (t->declared) { /* the file's queues, and only they */
        int i = find(t, queue && *queue ? queue : "default");
        return i >= 0 ? (uint16_t)i : other;
    }
    if (!queue || !fit(queue))
        return other;
    int i = find(t, queue);
    if (i >= 0)
        return (uint16_t)i;
    if (t->nnames >= t->cap)
        return other;
    memcpy(t->names[t->nnames], queue, strlen(queue) + 1);
    return (uint16_t)t->nnames++;
}

void berth__tally_move(struct berth__tally *t, uint16_t slot, int from, int to)
{
    if (!t->n)
        return;
    if (slot > t->cap)
        slot = (uint16_t)t->cap;
    if (from >= 0 && from < BERTH_TALLY_STATES)
        t->n[slot][from]--;
    if (to >= 0 && to < BERTH_TALLY_STATES)
        t->n[slot][to]++;
}

const char *berth__tally_name(const struct berth__tally *t, uint16_t slot)
{
    return slot < t->nnames ? t->names[slot] : "_other";
}
