/* Slurm's topology files (topology.conf, topology.yaml) read into one form: each node's rack,
 * block and NVLink domain by name, with the line that put it there, so that one step
 * (io/topo_apply.c) lays them onto a cluster (docs/topology.md, "Topology files"). */
#ifndef BERTH_IO_TOPO_INT_H
#define BERTH_IO_TOPO_INT_H

#include <stddef.h>
#include <stdint.h>

#include "berth/err.h"
#include "util/mem.h"

/* A tree switch or a block as the file gives it, before its names are expanded. */
struct berth__topo_switch {
    const char *name;
    const char *nodes;    /* hostlist expression (tux[0-3,7]); NULL: none */
    const char *children; /* switches (tree only); NULL: none */
    const char *where;    /* how messages name it: "SwitchName=s1", "tree.switches[2]" */
    size_t line;
};

/* One node named by the file. */
struct berth__topo_node {
    const char *name, *rack, *block, *island; /* NULL: in no domain of that kind */
    const char *where;                        /* the switch or block that named it */
    size_t line;
};

struct berth__topo_file {
    const char *path;
    struct berth__arena names;
    struct berth__topo_node *n;
    size_t count, cap;
    int flat;         /* the chosen topology is flat (topology.yaml's flat: true) */
    const char *kind; /* what holds each node: "leaf switch" or "block" */
};

void berth__topo_file_init(struct berth__topo_file *t, const char *path);
void berth__topo_file_free(struct berth__topo_file *t);

/* topology/tree: every switch with Nodes= is a leaf and becomes a rack of its nodes, its
 * parent switch their block; higher switches are the cluster. Checks that every child
 * switch is defined, that no switch has two parents or is its own ancestor, that no name is
 * defined twice and that no node is under two leaf switches. */
int berth__topo_tree(struct berth__topo_file *t, const struct berth__topo_switch *sw, size_t n,
                     struct berth_err *err);
/* topology/block: each base block is one multi-node NVLink domain and one rack; with two or
 * more sizes (sizes[0] the base block's nodes), consecutive groups of sizes[1] / sizes[0]
 * base blocks, in the file's order, are berth's blocks. sizes_at names the sizes in
 * messages ("3: BlockSizes"). */
int berth__topo_blocks(struct berth__topo_file *t, const struct berth__topo_switch *bl, size_t n,
                       const int64_t *sizes, size_t nsizes, const char *sizes_at,
                       struct berth_err *err);

/* The two file formats. */
int berth__topo_load_conf(const char *path, struct berth__topo_file *t, struct berth_err *err);
int berth__topo_load_yaml(const char *path, struct berth__topo_file *t, struct berth_err *err);

/* Reads the whole file into a NUL-terminated buffer (free it), refusing NUL bytes and files
 * over 64 MiB. */
int berth__topo_read(const char *path, char **out, size_t *len, struct berth_err *err);

#endif
