/* The cluster's insides, shared by the model, policy and engine layers.
 *
 * Every server of a GPU type sits in exactly one bucket list: the list of servers of that
 * type with exactly f idle GPUs. Placement helpers walk buckets instead of servers, so
 * finding "the tightest server with at least g idle GPUs" costs O(GPUs per server), not
 * O(servers). Idle GPUs of a server are the set bits of free_mask (at most 64 per server). */
#ifndef BERTH_MODEL_CLUSTER_INT_H
#define BERTH_MODEL_CLUSTER_INT_H

#include <stdint.h>

#include "berth/cluster.h"
#include "model/job.h"
#include "util/mem.h"

#define BERTH_MAX_SERVER_GPUS 64

struct berth__server {
    uint64_t free_mask; /* bit i set: GPU i is idle */
    uint16_t ngpus;
    uint16_t nfree;
    uint16_t type;
    int32_t rack;       /* index into racks, -1 when unknown */
    int32_t pool;       /* index into pools, -1 when unknown */
    int32_t prev, next; /* links in the bucket (type, nfree); -1 ends */
    const char *name;
};

struct berth__gputype {
    const char *name;
    int32_t total, free;
    int32_t nservers;
    int32_t max_per_server;
    int32_t *head; /* head[f]: first server with exactly f idle GPUs, or -1; f <= max */
};

struct berth_cluster {
    struct berth__server *srv;
    size_t nsrv;
    struct berth__gputype *types;
    size_t ntypes;
    int32_t total, free;
    int32_t max_per_server;
    int allow_span;
    const char **racks;
    size_t nracks;
    const char **pools;
    size_t npools;
    struct berth__arena names;
};

/* A deep copy with its own free-GPU state; NULL when out of memory. */
struct berth_cluster *berth__cluster_clone(const struct berth_cluster *c);

/* Marks the GPUs in mask of server s busy (they must be idle) / idle (they must be busy).
 * One bucket move per call, whatever the number of GPUs. */
void berth__cluster_take_mask(struct berth_cluster *c, uint32_t s, uint64_t mask);
void berth__cluster_give_mask(struct berth_cluster *c, uint32_t s, uint64_t mask);
/* The same for an allocation's slots, grouped by server. */
void berth__cluster_take_slots(struct berth_cluster *c, const struct berth__slot *sl, int32_t n);
void berth__cluster_give_slots(struct berth_cluster *c, const struct berth__slot *sl, int32_t n);
/* Re-derives every counter and bucket from the free masks and compares; 0 when consistent,
 * else BERTH_EINTERNAL with the first discrepancy in err. */
int berth__cluster_verify(const struct berth_cluster *c, struct berth_err *err);

#endif
