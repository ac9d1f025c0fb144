/* Slurm's network topology as `scontrol show topology` prints it, read into racks and blocks
 * for the servers berthd builds from Slurm's nodes (exec_slurm.c): under topology/tree a
 * node's leaf switch (the level-0 switch whose Nodes hold it) is its rack and that switch's
 * parent (the switch whose Switches name it) its block; under topology/block a BlockName
 * line is a block. Kept apart from src/io's topology.conf reader: this is what slurmctld
 * says it runs with, not a file berthd may not be able to read. */
#ifndef BERTH_LIVE_SLURM_TOPO_H
#define BERTH_LIVE_SLURM_TOPO_H

#include <stddef.h>

#include "berth/err.h"

/* One switch (or block) line. */
struct berth__slurm_switch {
    char *name;
    int level;      /* Level=; a BlockName line: -1 */
    char *switches; /* Switches= as written ("s[0-1]"), NULL when none */
    char **nodes;   /* Nodes= expanded, NULL-terminated */
    size_t nnodes;
    int parent; /* the switch whose Switches name it, -1 */
};

struct berth__slurm_topo {
    struct berth__slurm_switch *sw;
    size_t n;
};

/* Reads the text (what `scontrol show topology` wrote); lines that are neither SwitchName=
 * nor BlockName= lines (a "No topology information" message) are skipped, so an empty
 * topology (n 0) is no error. BERTH_EINPUT naming the line and field of a bad one. */
int berth__slurm_topo_parse(const char *text, struct berth__slurm_topo *t, struct berth_err *err);
void berth__slurm_topo_free(struct berth__slurm_topo *t);

/* The rack and block of a node (NULL each when the topology places it in none); the names
 * live as long as t. */
void berth__slurm_topo_where(const struct berth__slurm_topo *t, const char *node, const char **rack,
                             const char **block);

/* Runs `scontrol show topology` (with SLURM_CONF=conf when conf is not NULL) and reads its
 * output into t. BERTH_EIO when scontrol cannot be run or fails (err says why). */
int berth__slurm_topo_read(const char *conf, struct berth__slurm_topo *t, struct berth_err *err);

#endif
