/* Cluster file formats: each reads one kind of file into a cluster builder (model layer).
 * berth_cluster_parse (cluster_load.c) picks the format. */
#ifndef BERTH_IO_CLUSTER_INT_H
#define BERTH_IO_CLUSTER_INT_H

#include "model/cluster.h"

/* berth's JSON cluster file: {"servers": [...], "gang_span": bool}. */
int berth__cluster_load_json(const char *path, struct berth__cluster_builder *b,
                             struct berth_err *err);

/* For the CSV cluster formats (each server's src is its line): fails when two servers of b
 * from index `from` on share a name, with "PATH:LINE: column COLUMN: expected WHAT, found
 * "NAME", already on line LINE". */
int berth__cluster_unique_csv_names(const struct berth__cluster_builder *b, size_t from,
                                    const char *path, const char *column, const char *what,
                                    struct berth_err *err);

#endif
