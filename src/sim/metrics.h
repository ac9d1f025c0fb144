/* Summary statistics of a finished simulation: JCT and queueing percentiles (linear
 * interpolation between order statistics, as numpy does by default), makespan, utilisation. */
#ifndef BERTH_SIM_METRICS_H
#define BERTH_SIM_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "berth/sim.h"

/* The q-quantile (0 <= q <= 1) of sorted v[0..n), in the same unit; 0 when n == 0. */
double berth__quantile(const int64_t *sorted, size_t n, double q);

/* Fills the JCT / queueing / makespan / utilisation fields of r->summary from r->jobs.
 * busy_gpu_us is the integral of busy GPUs over time, total_gpus the cluster size. */
int berth__summarise(struct berth_sim_result *r, double busy_gpu_us, int32_t total_gpus);

#endif
