/* Throughput by distance: how much slower a gang runs when its ranks span a topology level
 * (docs/topology.md, "Throughput by distance").
 *
 * A step is compute plus communication. At NVLink bandwidth communication takes a share s of
 * the step (per job type); elsewhere it takes s * bw[nvlink] / bw[level], so a gang spanning
 * `level` runs at f = 1 / ((1 - s) + s * bw[nvlink] / bw[level]) of its one-island rate
 * (f = 1 within an NVLink island). Used by the simulator's rates (sim/progress.c) and by
 * consolidate-or-wait (sched/plan_wait.c) only when the cluster has a topology. */
#ifndef BERTH_MODEL_TOPO_RATE_H
#define BERTH_MODEL_TOPO_RATE_H

#include <stddef.h>

#include "berth/cluster.h"

#define BERTH_TOPO_RATE_MAX_TYPES 64

struct berth_topo_model {
    double bw[BERTH_TOPO_LEVELS]; /* GB/s per GPU, one direction, at each level (> 0) */
    double share;                 /* communication share at NVLink speed, job types not listed */
    size_t ntypes;
    struct {
        char job_type[64];
        double share;
    } types[BERTH_TOPO_RATE_MAX_TYPES];
};

/* The defaults (sources in docs/topology.md): NVLink 4 450 GB/s, PCIe Gen5 x16 64, 400G NDR
 * InfiniBand per GPU 50, a 2:1 spine 25, a 4:1 core 12.5; shares 0.02 (default),
 * llm-finetune 0.02, llm-pretrain 0.03. */
void berth__topo_rate_default(struct berth_topo_model *r);
/* The share of job_type ("" or NULL: the default). */
double berth__topo_rate_share(const struct berth_topo_model *r, const char *job_type);
/* f above for a gang of job_type spanning level (1 at nvlink; r NULL: the defaults). */
double berth__topo_rate_factor(const struct berth_topo_model *r, const char *job_type, int level);

#endif
