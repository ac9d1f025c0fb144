/* The indexed completion heap (see events.h). */
#include <stdlib.h>

#include "sim/events.h"
#include "util/mem.h"

static int ev_less(const struct berth__ev *a, const struct berth__ev *b)
{
    return a->t < b->t || (a->t == b->t && a->job < b->job);
}

static void ev_put(struct berth__events *q, size_t i, struct berth__ev e)
{
    q->heap[i] = e;
    q->pos[e.job] = (uint32_t)i;
}

static void ev_up(struct berth__events *q, size_t i)
{
    struct berth__ev e = q->heap[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!ev_less(&e, &q->heap[p]))
            break;
        ev_put(q, i, q->heap[p]);
        i = p;
    }
    ev_put(q, i, e);
}

static void ev_down(struct berth__events *q, size_t i)
{
    struct berth__ev e = q->heap[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && ev_less(&q->heap[c + 1], &q->heap[c]))
            c++;
        if (!ev_less(&q->heap[c], &e))
            break;
        ev_put(q, i, q->heap[c]);
        i = c;
    }
    ev_put(q, i, e);
}

int berth__events_init(struct berth__events *q, size_t njobs)
{
    *q = (struct berth__events){0};
    q->pos = malloc((njobs ? njobs : 1) * sizeof *q->pos);
    if (!q->pos)
        return -1;
    for (size_t i = 0; i < njobs; i++)
        q->pos[i] = BERTH_EV_NONE;
    return 0;
}

void berth__events_free(struct berth__events *q)
{
    free(q->heap);
    free(q->pos);
    *q = (struct berth__events){0};
}

void berth__events_remove(struct berth__events *q, uint32_t job)
{
    size_t i = q->pos[job];
    if (i == BERTH_EV_NONE)
        return;
    q->pos[job] = BERTH_EV_NONE;
    struct berth__ev last = q->heap[--q->n];
    if (i < q->n) {
        ev_put(q, i, last);
        ev_up(q, i);
        ev_down(q, q->pos[last.job]);
    }
}

void berth__events_set(struct berth__events *q, uint32_t job, berth_us t)
{
    size_t i = q->pos[job];
    if (i != BERTH_EV_NONE) {
        q->heap[i].t = t;
        ev_up(q, i);
        ev_down(q, q->pos[job]);
        return;
    }
    if (BERTH_GROW(q->heap, q->cap, q->n + 1)) {
        q->oom = 1;
        return;
    }
    ev_put(q, q->n++, (struct berth__ev){t, job});
    ev_up(q, q->n - 1);
}
