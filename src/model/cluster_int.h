/* The cluster model's private part (model/ only): the free-GPU buckets' link and push, which
 * cluster.c's GPU state and cluster_build.c's layout both use. */
#ifndef BERTH_MODEL_CLUSTER_PRIVATE_H
#define BERTH_MODEL_CLUSTER_PRIVATE_H

#include "model/cluster.h"

/* Unlinks s from its bucket; the caller changes its idle GPUs and pushes it again. Under an
 * undo log, everything the pair writes is saved here: the links around s, its own links,
 * the old bucket's head, and (for berth__cluster_bucket_push) the new bucket's head and first
 * server. */
static inline void berth__cluster_bucket_unlink(struct berth_cluster *c, uint32_t s)
{
    struct berth__server *v = &c->srv[s];
    struct berth__gputype *t = &c->types[v->type];
    if (v->prev >= 0) {
        BERTH__CLUSTER_SAVE(c, c->srv[v->prev].next);
        c->srv[v->prev].next = v->next;
    } else {
        BERTH__CLUSTER_SAVE(c, t->head[v->nfree]);
        t->head[v->nfree] = v->next;
    }
    if (v->next >= 0) {
        BERTH__CLUSTER_SAVE(c, c->srv[v->next].prev);
        c->srv[v->next].prev = v->prev;
    }
    BERTH__CLUSTER_SAVE(c, v->prev);
    BERTH__CLUSTER_SAVE(c, v->next);
    v->prev = v->next = -1;
}

static inline void berth__cluster_bucket_push(struct berth_cluster *c, uint32_t s)
{
    struct berth__server *v = &c->srv[s];
    struct berth__gputype *t = &c->types[v->type];
    v->prev = -1; /* v's links were saved by berth__cluster_bucket_unlink */
    v->next = t->head[v->nfree];
    if (v->next >= 0) {
        BERTH__CLUSTER_SAVE(c, c->srv[v->next].prev);
        c->srv[v->next].prev = (int32_t)s;
    }
    BERTH__CLUSTER_SAVE(c, t->head[v->nfree]);
    t->head[v->nfree] = (int32_t)s;
}

#endif
