/* Summary statistics of a simulation: JCT and queueing percentiles (linear interpolation
 * between order statistics, as numpy does by default), makespan, utilisation, restarts,
 * finish-time fairness (max, mean, Jain's index) and per-user / per-queue / per-GPU-type
 * aggregates. */
#ifndef BERTH_SIM_METRICS_H
#define BERTH_SIM_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "berth/sim.h"

/* The q-quantile (0 <= q <= 1) of sorted v[0..n), in the same unit; 0 when n == 0. */
double berth__quantile(const int64_t *sorted, size_t n, double q);

/* Fills r->summary and the aggregates from r->jobs. busy_gpu_us is the integral of busy
 * GPUs over time; type_gpu_us the GPU-microseconds held per GPU type of cluster c.
 * 0, or -1 when out of memory. */
int berth__summarise(struct berth_sim_result *r, double busy_gpu_us, const double *type_gpu_us,
                     const struct berth_cluster *c);

#endif
