/* A service's autoscaler, pure arithmetic (no daemon, no clock of its own): load (requests/s
 * summed over the replicas) and a target per replica turn into wanted replicas, with Aryl's
 * headroom and hysteresis, and wanted replicas into the inference servers they need. */
#ifndef BERTH_LIVE_AUTOSCALE_H
#define BERTH_LIVE_AUTOSCALE_H

#include <stdint.h>

#include "berth/time.h"

struct berth__as_params {
    int32_t min, max;     /* replicas, 1 <= min <= max */
    double target;        /* requests/s one replica serves; 0: no autoscaling (min replicas) */
    double headroom;      /* in [0, 1): each replica is planned at target * (1 - headroom) */
    berth_us cooldown_us; /* load must stay low this long before a scale-down */
};

struct berth__as_state {
    berth_us low_since; /* the load asked for fewer replicas since (BERTH_TIME_NONE: not) */
};

/* Replicas the load needs at once: ceil(load / (target * (1 - headroom))), within
 * [min, max]; min when there is no target or no load. */
int32_t berth__autoscale_need(const struct berth__as_params *p, double load);
/* The replicas wanted now, for n running or wanted before: more at once when the load is
 * above target * n * (1 - headroom) (need > n); fewer (need) only once need has stayed
 * below n for the whole cool-down; else n (clamped to [min, max]). */
int32_t berth__autoscale_step(const struct berth__as_params *p, struct berth__as_state *s,
                              int32_t n, double load, berth_us now);
/* Servers that wanted replicas of gpus GPUs each need, on servers of server_gpus GPUs
 * (a replica never spans servers): ceil(wanted / floor(server_gpus / gpus)); -1 when one
 * replica does not fit on a server. */
int32_t berth__autoscale_servers(int32_t wanted, int32_t gpus, int32_t server_gpus);

#endif
