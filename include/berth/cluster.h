/* Clusters: servers with typed GPUs, optional rack and pool.
 *
 * Built from a shorthand spec ("16x4:v100,8x8:a100") or a JSON cluster file. The cluster
 * also holds the live free-GPU state the engine allocates from; callers treat it as
 * opaque and use the accessors below. */
#ifndef BERTH_CLUSTER_H
#define BERTH_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

struct berth_cluster;

/* Parses spec: a built-in name (philly, gavel, tiresias), the shorthand
 * NxG:type[,NxG:type...] or, when spec names an existing file, a JSON cluster file. Errors
 * name the spec or FILE and the offending field. */
int berth_cluster_parse(const char *spec, struct berth_cluster **out, struct berth_err *err);
void berth_cluster_free(struct berth_cluster *c);
/* The i-th built-in cluster's name (NULL past the end), with its shorthand and a summary. */
const char *berth_cluster_builtin(size_t i, const char **spec, const char **what);

int32_t berth_cluster_gpus(const struct berth_cluster *c);      /* all GPUs */
int32_t berth_cluster_free_gpus(const struct berth_cluster *c); /* idle now */
size_t berth_cluster_servers(const struct berth_cluster *c);
size_t berth_cluster_type_count(const struct berth_cluster *c);
const char *berth_cluster_type_name(const struct berth_cluster *c, size_t type);
int32_t berth_cluster_type_gpus(const struct berth_cluster *c, size_t type);
/* Index of a GPU type by name (case-insensitive), or -1. */
int berth_cluster_type_find(const struct berth_cluster *c, const char *name);
/* Largest number of GPUs on one server (of the given type, or any type when type < 0). */
int32_t berth_cluster_max_server_gpus(const struct berth_cluster *c, int type);
/* 1 when gangs may span servers (the default), 0 when the cluster file forbids it. */
int berth_cluster_allows_span(const struct berth_cluster *c);
/* Topology levels, lowest communication distance first (src/model/topo.h, docs/design.md
 * "Topology"): a gang spans the lowest level at which all its GPUs share one domain. */
enum berth_topo_level {
    BERTH_TOPO_NVLINK = 0, /* one NVLink island (of a server, or a multi-node domain) */
    BERTH_TOPO_NODE = 1,   /* one server, across its islands */
    BERTH_TOPO_RACK = 2,
    BERTH_TOPO_BLOCK = 3,
    BERTH_TOPO_CLUSTER = 4,
    BERTH_TOPO_LEVELS = 5
};
/* 1 when the cluster has a topology (racks, blocks, NVLink islands); 0 for a flat one. */
int berth_cluster_has_topology(const struct berth_cluster *c);
/* The name of server s's domain at level (rack, block, nvlink; the server's name at node,
 * "" at cluster), or NULL when s is in no domain of that level. */
const char *berth_cluster_server_domain(const struct berth_cluster *c, size_t s, int level);
/* Lays a Slurm topology file onto *c by server name and rebuilds it (docs/topology.md,
 * "Topology files"): topology.conf (topology/tree: leaf switches become racks, their parents
 * blocks; topology/block: base blocks become racks and NVLink domains) or topology.yaml
 * (Slurm 25.05: its cluster_default topology, else its first), told by the name (.yaml,
 * .yml, .conf) or else the first line. The file replaces the cluster's racks, blocks and
 * NVLink domains; every server must be in it and every node it names must be a server. *c
 * must be idle (freshly parsed). On an error (naming FILE:LINE and the switch, block or
 * field) *c is unchanged. */
int berth_cluster_load_topology(struct berth_cluster **c, const char *path, struct berth_err *err);
/* A one-line description: "64 servers, 512 GPUs (512 v100)", and with a topology its shape:
 * "...; 8 racks, 2 blocks, NVLink islands of 8 GPUs". */
void berth_cluster_describe(const struct berth_cluster *c, char *buf, size_t len);

#endif
