/* The start-time estimate as the API shows it: a prediction is only as good as its age and
 * the run it came from, so each answer carries both, and a job without one says why (the
 * run's budget ended first, it entered the queue after the run, it never starts). */
#include <stdio.h>

#include "live/http/estimate_json.h"

static double age_s(const struct berth__est_result *er, berth_us mono)
{
    return mono > er->mono_us ? (double)(mono - er->mono_us) / 1e6 : 0;
}

static int shown(const struct berth__ljob *j)
{
    return j->state == BERTH_L_PENDING || j->state == BERTH_L_RUNNING;
}

json_t *berth__est_job_json(const struct berth__est_result *er, const struct berth__ljob *j,
                            berth_us mono)
{
    const struct berth__est *e = shown(j) ? berth__est_find(er, j->id) : NULL;
    if (!e || !e->start_us)
        return json_null();
    berth_us start = e->start_us;
    if (j->state == BERTH_L_RUNNING && j->start_us) /* started since the run: its own */
        start = j->start_us;
    return json_pack("{s:I,s:I,s:f}", "start_us", (json_int_t)start, "end_us",
                     (json_int_t)e->end_us, "age_s", age_s(er, mono));
}

const char *berth__est_none_text(const struct berth__est_result *er, const struct berth__ljob *j,
                                 char *buf, size_t n)
{
    if (!shown(j))
        return NULL;
    if (!er)
        return "no estimate yet: its first run is under way";
    const struct berth__est *e = berth__est_find(er, j->id);
    if (e && e->start_us)
        return NULL;
    if (!e && !j->in_engine)
        return "no estimate: it is not in the scheduler yet (a dependency, an array's "
               "throttle or its user's GPU limit holds it)";
    if (!e)
        snprintf(buf, n, "no estimate yet: it entered the queue after the last run (%.1f s ago)",
                 age_s(er, berth__mono_us()));
    else if (er->stop == BERTH_EST_BUDGET)
        snprintf(buf, n,
                 "no estimate (budget): the virtual run stopped at its %g s budget "
                 "(--estimate-budget) before this job started",
                 (double)er->budget_us / 1e6);
    else if (er->stop == BERTH_EST_PASSES)
        snprintf(buf, n,
                 "no estimate (budget): the virtual run stopped at its bound of %llu "
                 "passes before this job started",
                 (unsigned long long)er->vpasses);
    else if (er->stop == BERTH_EST_HORIZON)
        snprintf(buf, n, "no estimate: it does not start within a year under the policy");
    else
        snprintf(buf, n,
                 "no estimate: it never starts under the policy (nothing running "
                 "would free what it needs)");
    return buf;
}

json_t *berth__est_run_json(const struct berth__est_result *er, berth_us mono)
{
    if (!er)
        return json_null();
    return json_pack("{s:I,s:f,s:f,s:s?,s:I,s:I,s:I,s:I}", "computed_us", (json_int_t)er->wall_us,
                     "age_s", age_s(er, mono), "budget_s", (double)er->budget_us / 1e6, "stopped",
                     er->stop == BERTH_EST_DONE ? NULL : berth__est_stop_name(er->stop), "jobs",
                     (json_int_t)er->n, "started", (json_int_t)er->started, "snapshot_us",
                     (json_int_t)er->snap_us, "run_us", (json_int_t)er->run_us);
}
