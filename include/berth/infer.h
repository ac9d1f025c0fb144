/* Inference demand over time: how many servers of the cluster's "inference" pool inference
 * uses, for policies that lend the rest to training (aryl). Either a CSV series or a
 * built-in diurnal curve. */
#ifndef BERTH_INFER_H
#define BERTH_INFER_H

#include <stdint.h>

#include "err.h"
#include "time.h"

struct berth_infer;

/* Reads a CSV with columns time_s (seconds from the trace's origin, non-decreasing) and
 * servers (a whole number >= 0); the demand holds from each row's time to the next row's,
 * and before the first row it is the first row's. Errors name FILE:LINE and the column. */
int berth_infer_load(const char *path, struct berth_infer **out, struct berth_err *err);
/* "diurnal[:PEAK,TROUGH[,PERIOD_H[,STEP_S]]]": a day-night curve as a fraction of the pool,
 * lowest at time 0 and highest half a period later, sampled every STEP_S seconds (default
 * 0.9,0.3,24,60). Errors name the field. */
int berth_infer_diurnal(const char *spec, struct berth_infer **out, struct berth_err *err);
/* Either of the above: spec starting with "diurnal" is the curve, anything else a file. */
int berth_infer_open(const char *spec, struct berth_infer **out, struct berth_err *err);
void berth_infer_free(struct berth_infer *s);

/* Servers in use at time t, for a pool of pool_servers (at most pool_servers). */
int32_t berth_infer_at(const struct berth_infer *s, berth_us t, int32_t pool_servers);
/* The next instant after t at which the demand may change, or BERTH_TIME_NONE. */
berth_us berth_infer_next(const struct berth_infer *s, berth_us t);

#endif
