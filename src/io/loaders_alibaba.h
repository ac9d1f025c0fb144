/* Loaders for Alibaba's public GPU-cluster traces: PAI 2020 (job + task tables, machine
 * spec) and the 2023 GPU-sharing "openb" lists (pods, nodes). The trace loaders fill L->t
 * and L->rep like every loader in trace_int.h; the cluster loaders fill a builder like
 * berth__cluster_load_json (io/cluster_int.h). The lead merges these declarations there. */
#ifndef BERTH_IO_LOADERS_ALIBABA_H
#define BERTH_IO_LOADERS_ALIBABA_H

#include "io/cluster_int.h"
#include "io/trace_int.h"

/* --format pai2020: path is a directory holding pai_job_table.csv and pai_task_table.csv,
 * or "JOBTABLE,TASKTABLE" (trace_pai2020.c). */
int berth__load_pai2020(struct berth__load *L, struct berth_err *err);
/* --format openb: openb_pod_list_*.csv (trace_openb.c). */
int berth__load_openb(struct berth__load *L, struct berth_err *err);

/* pai_machine_spec.csv (header-less: machine,gpu_type,cap_cpu,cap_mem,cap_gpu), one server
 * per machine (cluster_pai2020.c). */
int berth__cluster_load_pai2020(const char *path, struct berth__cluster_builder *b,
                                struct berth_err *err);
/* openb_node_list_*.csv (sn,cpu_milli,memory_mib,gpu,model), one server per node
 * (cluster_openb.c). */
int berth__cluster_load_openb(const char *path, struct berth__cluster_builder *b,
                              struct berth_err *err);

#endif
