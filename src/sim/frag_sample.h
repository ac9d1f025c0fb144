/* Fragmentation per topology level over a run (the summary's frag_by_level): the state is
 * measured (sched/frag_topo.c, O(servers)) at most once per BERTH__FRAG_STEP of simulated
 * time, and each measure is held until the next one, so the averages are time-weighted
 * without a scan per event. Only a cluster with a topology is sampled. */
#ifndef BERTH_SIM_FRAG_SAMPLE_H
#define BERTH_SIM_FRAG_SAMPLE_H

#include "berth/sim.h"
#include "model/cluster.h"

#define BERTH__FRAG_STEP ((berth_us)300 * 1000000) /* 300 s */

struct berth__frag_sample {
    berth_us first, last; /* first sample, and the last one (BERTH_TIME_NONE before) */
    double stranded[BERTH_TOPO_LEVELS], whole[BERTH_TOPO_LEVELS];       /* held since last */
    double stranded_us[BERTH_TOPO_LEVELS], whole_us[BERTH_TOPO_LEVELS]; /* integrals */
    int has[BERTH_TOPO_LEVELS]; /* the level exists in the cluster's topology */
};

void berth__frag_sample_init(struct berth__frag_sample *f);
/* The state of c from now on; measured when BERTH__FRAG_STEP has passed since the last
 * measure (or none was taken). c must have a topology. */
void berth__frag_sample_step(struct berth__frag_sample *f, const struct berth_cluster *c,
                             berth_us now);
/* Closes the run at end and writes the averages into s (frag_level, frag_*). */
void berth__frag_sample_end(struct berth__frag_sample *f, berth_us end,
                            struct berth_sim_summary *s);

#endif
