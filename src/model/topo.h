/* The cluster's topology: where each GPU sits in the tree of NVLink islands, servers, racks
 * and blocks, and how far apart the GPUs of a gang are (docs/design.md, "Topology").
 *
 * Levels are ranks of communication distance, lowest first: a gang "spans" the lowest level
 * at which all its GPUs share one domain.
 *
 *   nvlink   one NVLink/NVSwitch island: one island of a server (a server's GPUs are one
 *            island unless the topology says islands of nvl GPUs), or a multi-node NVLink
 *            domain (NVL72-style: consecutive servers of one rack)
 *   node     one server, across its islands (PCIe / the socket link)
 *   rack     one rack (leaf switch)
 *   block    one block (spine)
 *   cluster  anywhere
 *
 * A cluster without a topology (no racks, blocks, islands or nvl given) has c->topo NULL and
 * everything behaves as before topology existed. With one, every take and give keeps, per
 * domain of the levels above the server and per GPU type, the count of wholly idle GPUs, so
 * a topology-aware placement finds the tightest domain that holds a gang in O(domains). */
#ifndef BERTH_MODEL_TOPO_H
#define BERTH_MODEL_TOPO_H

#include <stdint.h>

#include "berth/cluster.h"
#include "model/job.h"

struct berth_cluster;

/* The domain kinds above the server that have their own tables. */
enum { BERTH__TOPO_ISLAND = 0, BERTH__TOPO_RACK = 1, BERTH__TOPO_BLOCK = 2, BERTH__TOPO_KINDS = 3 };

struct berth__topo_kind {
    size_t n;           /* domains */
    const char **names; /* n names (in the cluster's arena) */
    uint32_t *start;    /* n + 1: the servers of domain d are list[start[d] .. start[d + 1]) */
    uint32_t *list;     /* the servers of each domain, in index order */
    int32_t *total;     /* n * ntypes: GPUs of each type in each domain */
    int32_t *free;      /* n * ntypes: wholly idle GPUs of each type (the only mutable part) */
};

struct berth__topo {
    struct berth__topo_kind k[BERTH__TOPO_KINDS];
    size_t ntypes;
    int owned; /* 1: frees the tables; a clone owns only its free counts */
};

/* The level's name ("nvlink", "node", "rack", "block", "cluster") and back (-1 unknown). */
const char *berth__topo_level_name(int level);
int berth__topo_level_find(const char *name);
/* The names as one list for messages: "nvlink, node, rack, block or cluster". */
const char *berth__topo_level_list(void);

/* Builds c->topo from the servers' island, rack and block (their indices are set; -1 = in
 * no domain of that kind). Kinds whose names are given (n entries each, NULL = none) name
 * the domains. Returns 0, or -1 when out of memory. */
int berth__topo_build(struct berth_cluster *c, const char *const *islands, size_t nislands,
                      const char *const *blocks, size_t nblocks);
void berth__topo_free(struct berth__topo *t);
/* A copy for a clone of the cluster: its own free counts, the rest shared (NULL: no
 * memory). */
struct berth__topo *berth__topo_clone(const struct berth__topo *t);

/* Server s's domain of kind k (-1: in none). */
int32_t berth__topo_dom(const struct berth_cluster *c, uint32_t s, int kind);
/* The level whose domain kind is k (nvlink, rack, block) and back (-1 for node, cluster). */
int berth__topo_kind_level(int kind);
int berth__topo_level_kind(int level);

/* Called by every take (n < 0) and give (n > 0) of n idle GPUs on server s. */
void berth__topo_count(struct berth_cluster *c, uint32_t s, int32_t n);

/* The level a gang of n slots spans (see above); nvlink for n <= 1. Without a topology:
 * nvlink on one server, else cluster. */
int berth__topo_span(const struct berth_cluster *c, const struct berth__slot *sl, int32_t n);

/* Re-derives the free counts from the servers and compares (0 when equal, else -1 with a
 * message in why). */
int berth__topo_verify(const struct berth_cluster *c, char *why, size_t len);

#endif
