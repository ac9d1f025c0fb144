/* The autoscaler's arithmetic (autoscale.h): kept apart from the service state so that the
 * unit tests check it against hand-computed cases. */
#include <math.h>

#include "live/daemon/autoscale.h"

static int32_t clamp(const struct berth__as_params *p, int64_t n)
{
    return (int32_t)(n < p->min ? p->min : n > p->max ? p->max : n);
}

int32_t berth__autoscale_need(const struct berth__as_params *p, double load)
{
    double per = p->target * (1.0 - p->headroom);
    if (!(p->target > 0) || !(per > 0) || !(load > 0))
        return p->min;
    double n = ceil(load / per);
    return clamp(p, n > (double)p->max ? p->max : (int64_t)n);
}

int32_t berth__autoscale_step(const struct berth__as_params *p, struct berth__as_state *s,
                              int32_t n, double load, berth_us now)
{
    n = clamp(p, n);
    int32_t need = berth__autoscale_need(p, load);
    if (need >= n) { /* up at once; steady */
        s->low_since = BERTH_TIME_NONE;
        return need;
    }
    if (s->low_since == BERTH_TIME_NONE)
        s->low_since = now;
    if (now - s->low_since < p->cooldown_us)
        return n;
    s->low_since = BERTH_TIME_NONE; /* a further step down waits a whole cool-down again */
    return need;
}

int32_t berth__autoscale_servers(int32_t wanted, int32_t gpus, int32_t server_gpus)
{
    if (gpus <= 0 || server_gpus < gpus)
        return -1;
    int32_t per = server_gpus / gpus;
    return (wanted + per - 1) / per;
}
