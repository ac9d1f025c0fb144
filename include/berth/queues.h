/* A shared cluster's queues: quotas, borrowing and cohorts (Kueue's semantics), fair-share
 * shares and per-user and per-queue limits, read from a queues file (docs/queues.md). The
 * ordering policies enforce them alike in berth sim (--queues FILE) and berthd (the
 * `queues` setting). */
#ifndef BERTH_QUEUES_H
#define BERTH_QUEUES_H

#include "cluster.h"
#include "err.h"

struct berth_queues;

/* Reads a queues file for cluster c (GPU type names are the cluster's). Every problem is
 * BERTH_EINPUT naming FILE:LINE and the field. *out owns everything; berth_queues_free. */
int berth_queues_load(const char *path, const struct berth_cluster *c, struct berth_queues **out,
                      struct berth_err *err);
void berth_queues_free(struct berth_queues *q);

#endif
