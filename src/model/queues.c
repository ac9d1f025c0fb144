/* Looking queues and users up in a queues file (model/queues.h); io/queues_load.c reads it. */
#include <stdlib.h>
#include <string.h>

#include "berth/queues.h"
#include "model/queues.h"

void berth_queues_free(struct berth_queues *q)
{
    if (!q)
        return;
    free(q->q);
    free(q->u);
    free(q->cohorts);
    berth__arena_free(&q->names);
    free(q);
}

int32_t berth__queues_find(const struct berth_queues *q, const char *name)
{
    const char *n = name && *name ? name : "default";
    for (size_t i = 0; i < q->nq; i++)
        if ((int32_t)i != q->qdefault && !strcmp(q->q[i].name, n))
            return (int32_t)i;
    return q->qdefault;
}

const struct berth__udef *berth__queues_user(const struct berth_queues *q, const char *name)
{
    for (size_t i = 0; i < q->nu; i++)
        if ((int32_t)i != q->udefault && !strcmp(q->u[i].name, name ? name : ""))
            return &q->u[i];
    return q->udefault >= 0 ? &q->u[q->udefault] : NULL;
}

static const struct berth__udef *dflt(const struct berth_queues *q)
{
    return q->udefault >= 0 ? &q->u[q->udefault] : NULL;
}

double berth__queues_user_share(const struct berth_queues *q, const char *name)
{
    const struct berth__udef *u = berth__queues_user(q, name), *d = dflt(q);
    if (u && u->share > 0)
        return u->share;
    return d && d->share > 0 ? d->share : 1.0;
}

int64_t berth__queues_user_max_gpus(const struct berth_queues *q, const char *name)
{
    const struct berth__udef *u = berth__queues_user(q, name), *d = dflt(q);
    if (u && u->max_gpus >= 0)
        return u->max_gpus;
    return d && d->max_gpus >= 0 ? d->max_gpus : 0;
}

int64_t berth__queues_user_max_pending(const struct berth_queues *q, const char *name)
{
    const struct berth__udef *u = berth__queues_user(q, name), *d = dflt(q);
    if (u && u->max_pending >= 0)
        return u->max_pending;
    return d && d->max_pending >= 0 ? d->max_pending : 0;
}
