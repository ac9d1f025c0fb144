/* Who a job belongs to, as small numbers: its user and its queue, given as jobs are first
 * seen. With a queues file a queue's number is its line's (model/queues.h: a queue the file
 * does not name is "*", or no queue at all); without one (or with a file of user lines
 * only), queues are numbered as their names come. Quotas (quota.h) and fair-share (fairshare.h)
 * count per number. Names are borrowed from the jobs' specs, which outlive every policy. */
#ifndef BERTH_SCHED_TENANT_H
#define BERTH_SCHED_TENANT_H

#include <stddef.h>
#include <stdint.h>

#include "model/job.h"
#include "model/queues.h"

struct berth__names { /* open addressing: name -> number */
    const char **key;
    int32_t *val;
    size_t cap, n;
};

struct berth__tenants {
    const struct berth_queues *qf; /* NULL: no queues file */
    struct berth__names users, queues;
    const char **uname, **qname; /* number -> name */
    size_t nusers, ucap, nqueues, qcap;
    int32_t *juser, *jqueue; /* per job, -1 = not seen yet */
    size_t jcap;
};

void berth__tenants_init(struct berth__tenants *t, const struct berth_queues *qf);
void berth__tenants_free(struct berth__tenants *t);
/* Gives job j its numbers (once). 0, BERTH_ENOMEM, or BERTH_EINPUT when the queues file has
 * neither the job's queue nor "*" (such a job cannot run: the engine refuses it first). */
int berth__tenants_see(struct berth__tenants *t, const struct berth__job *j);

static inline int32_t berth__tenant_user(const struct berth__tenants *t, uint32_t j)
{
    return j < t->jcap ? t->juser[j] : -1;
}

static inline int32_t berth__tenant_queue(const struct berth__tenants *t, uint32_t j)
{
    return j < t->jcap ? t->jqueue[j] : -1;
}

#endif
