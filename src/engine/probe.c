/* Probes: a pending job started alone on a copy of the cluster, and taken back (probe.h). */
#include <stdlib.h>
#include <string.h>

#include "engine/probe.h"

int berth__probe_open(struct berth__probe *pr, const struct berth__engine *e, berth_us now,
                      struct berth_err *err)
{
    memset(pr, 0, sizeof *pr);
    berth__plan_init(&pr->plan);
    pr->now = now;
    pr->c = berth__cluster_clone(e->cluster);
    if (!pr->c)
        return berth_err_set(err, BERTH_ENOMEM, "probe: out of memory");
    int rc = berth__placement_open(e->place.ops->name, &pr->run, err);
    if (!rc && pr->run.ops->prepare)
        rc = pr->run.ops->prepare(pr->run.self, pr->c, e->jobs, e->njobs, err);
    return rc;
}

void berth__probe_close(struct berth__probe *pr)
{
    berth__plan_free(&pr->plan);
    berth__placement_close(&pr->run);
    berth_cluster_free(pr->c);
    free(pr->slots);
    memset(pr, 0, sizeof *pr);
}

int berth__probe_fits(struct berth__probe *pr, const struct berth__job *j, int by,
                      struct berth_err *err)
{
    const struct berth__placement *pl = by == BERTH_PROBE_CONSOLIDATE
                                            ? berth__placement_stateless(BERTH_PLACE_CONSOLIDATE)
                                            : &pr->run;
    int32_t most =
        berth__job_nslots(j) > j->spec->max_gpus ? berth__job_nslots(j) : j->spec->max_gpus;
    if (most < 1)
        most = 1;
    if (most > pr->slots_cap) {
        struct berth__slot *s = realloc(pr->slots, (size_t)most * sizeof *s);
        if (!s)
            return berth_err_set(err, BERTH_ENOMEM, "probe: out of memory");
        pr->slots = s;
        pr->slots_cap = most;
    }
    /* a copy of the job, pending, on slots of the probe's own: the plan writes only there */
    struct berth__job copy = *j;
    copy.slots = pr->slots;
    copy.state = BERTH_JOB_PENDING;
    int rc = berth__plan_open(&pr->plan, pr->c, &copy, 1, pr->now, pl, 1, 0);
    if (rc)
        return berth_err_set(err, rc, "probe: out of memory");
    if (berth__plan_trial_begin(&pr->plan) || berth__plan_trial_room(&pr->plan, most)) {
        berth__plan_trial_end(&pr->plan);
        return berth_err_set(err, BERTH_ENOMEM, "probe: out of memory");
    }
    rc = berth__plan_start(&pr->plan, 0, err);
    int32_t lo = j->spec->min_gpus > 1 ? j->spec->min_gpus : 1;
    if (rc == BERTH_NOFIT && copy.gpus > lo && copy.share == 1000 && lo <= j->spec->max_gpus)
        rc = berth__plan_start_n(&pr->plan, 0, lo, err); /* an elastic job at its smallest */
    berth__plan_trial_undo(&pr->plan);
    return rc < 0 ? rc : rc == 0;
}
