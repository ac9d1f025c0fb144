/* Loaders for the peer simulators' own files: Gavel's trace TSV, Tiresias' job CSV and
 * cluster CSV, and Pollux/Sia workload CSVs. The lead merges these declarations into
 * trace_int.h / cluster_int.h and registers the formats. */
#ifndef BERTH_IO_LOADERS_PEERS_H
#define BERTH_IO_LOADERS_PEERS_H

#include "model/cluster.h"
#include "io/trace_int.h"

/* Gavel / Shockwave trace TSV (7, 10 or 12 tab-separated fields, no header). */
int berth__load_gavel(struct berth__load *L, struct berth_err *err);
/* Tiresias job CSV (job_id,num_gpu,submit_time,iterations,model_name,duration,interval). */
int berth__load_tiresias(struct berth__load *L, struct berth_err *err);
/* Pollux / Sia workload CSV (name,time,application,num_replicas,batch_size) plus the
 * duration column berth needs. */
int berth__load_pollux(struct berth__load *L, struct berth_err *err);

/* Tiresias cluster CSV (num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,
 * mem_p_node[,gpu_type]): one data row describing identical nodes under switches. */
int berth__cluster_load_tiresias(const char *path, struct berth__cluster_builder *b,
                                 struct berth_err *err);

#endif
