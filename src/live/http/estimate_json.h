/* How the API shows the start-time estimate (estimate_json.c): each job's prediction or the
 * reason it has none, and the run the answer comes from (its age, its budget). */
#ifndef BERTH_LIVE_ESTIMATE_JSON_H
#define BERTH_LIVE_ESTIMATE_JSON_H

#include <jansson.h>

#include "live/daemon/daemon.h"
#include "live/daemon/estimate.h"

/* j's {"start_us", "end_us", "age_s"} from er, or null (a pending or running job then has
 * the reason in berth__est_none_text). mono: CLOCK_MONOTONIC now. */
json_t *berth__est_job_json(const struct berth__est_result *er, const struct berth__ljob *j,
                            berth_us mono);
/* Why a pending or running j has no estimate in er ("no estimate (budget): ..."), or NULL
 * when it has one or is neither pending nor running. */
const char *berth__est_none_text(const struct berth__est_result *er, const struct berth__ljob *j,
                                 char *buf, size_t n);
/* The run er: {"computed_us", "age_s", "budget_s", "stopped", "jobs", "started",
 * "snapshot_us", "run_us"}, or null when there is none yet. */
json_t *berth__est_run_json(const struct berth__est_result *er, berth_us mono);

#endif
