/* Runs from results in memory, labels, and the helpers every chart uses (see run.h and
 * berth/report.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "berth/report.h"
#include "report/run.h"

double berth__run_num(const struct berth_run *r, const char *key)
{
    json_t *v = r->summary ? json_object_get(r->summary, key) : NULL;
    return json_is_number(v) ? json_number_value(v) : NAN;
}

double berth__run_gpus(const struct berth_run *r)
{
    double g = 0;
    for (size_t i = 0; i < r->ngroups; i++)
        if (r->groups[i].kind == 't')
            g += r->groups[i].gpus;
    return g;
}

void berth_run_free(struct berth_run *r)
{
    if (!r)
        return;
    free(r->label);
    free(r->dir);
    json_decref(r->summary);
    free(r->jct);
    free(r->rho);
    free(r->wait);
    free(r->gang);
    free(r->st);
    free(r->busy);
    free(r->pending);
    free(r->et);
    free(r->epre);
    for (size_t i = 0; i < r->ngroups; i++)
        free(r->groups[i].name);
    free(r->groups);
    free(r);
}

const char *berth_run_label(const struct berth_run *r)
{
    return r->label;
}

const char *berth_run_policy(const struct berth_run *r)
{
    return r->policy;
}

int berth_run_set_label(struct berth_run *r, const char *label, struct berth_err *err)
{
    char *l = strdup(label);
    if (!l)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    free(r->label);
    r->label = l;
    return 0;
}

static int add_groups(struct berth_run *r, char kind, const struct berth_group_stat *g, size_t n,
                      double makespan_s)
{
    for (size_t i = 0; i < n; i++) {
        struct berth__run_group *o = &r->groups[r->ngroups];
        if (!(o->name = strdup(g[i].name)))
            return -1;
        r->ngroups++;
        o->kind = kind;
        o->jobs = (double)g[i].jobs;
        o->completed = (double)g[i].completed;
        o->avg_jct_s = g[i].avg_jct_s;
        o->gpu_hours = g[i].gpu_hours;
        o->rho_avg = g[i].ftf_rho_avg;
        o->gpus = kind == 't' ? g[i].gpus : NAN;
        o->util = kind == 't' && g[i].gpus > 0 && makespan_s > 0
                      ? g[i].gpu_hours * 3600 / (g[i].gpus * makespan_s)
                      : NAN;
    }
    return 0;
}

int berth_run_of_result(const struct berth_sim_result *res, const char *label,
                        struct berth_run **out, struct berth_err *err)
{
    *out = NULL;
    struct berth_run *r = calloc(1, sizeof *r);
    size_t n = res->njobs, ns = res->nseries, ne = res->nevents;
    size_t ng = res->nby_type + res->nby_user + res->nby_queue;
    char *js = berth_summary_json(res, 0);
    if (!r || !js)
        goto nomem;
    r->summary = json_loads(js, 0, NULL);
    free(js);
    js = NULL;
    r->label = strdup(label ? label : res->policy);
    r->jct = malloc((n + 1) * sizeof *r->jct);
    r->rho = malloc((n + 1) * sizeof *r->rho);
    r->wait = malloc((n + 1) * sizeof *r->wait);
    r->gang = malloc((n + 1) * sizeof *r->gang);
    r->st = malloc((ns + 1) * sizeof *r->st);
    r->busy = malloc((ns + 1) * sizeof *r->busy);
    r->pending = malloc((ns + 1) * sizeof *r->pending);
    r->et = malloc((ne + 1) * sizeof *r->et);
    r->epre = malloc((ne + 1) * sizeof *r->epre);
    r->groups = calloc(ng + 1, sizeof *r->groups);
    if (!r->summary || !r->label || !r->jct || !r->rho || !r->wait || !r->gang || !r->st ||
        !r->busy || !r->pending || !r->et || !r->epre || !r->groups)
        goto nomem;
    snprintf(r->policy, sizeof r->policy, "%s", res->policy);
    snprintf(r->placement, sizeof r->placement, "%s", res->placement);
    snprintf(r->mode, sizeof r->mode, "%s", res->mode);
    for (size_t i = 0; i < n; i++) {
        const struct berth_job_result *j = &res->jobs[i];
        if (j->first_start_us != BERTH_TIME_NONE)
            r->wait[r->nwait++] = (double)(j->first_start_us - j->spec->arrival_us) / 1e6;
        if (j->finish_us != BERTH_TIME_NONE) {
            r->jct[r->ndone] = (double)(j->finish_us - j->spec->arrival_us) / 1e6;
            r->rho[r->ndone] = j->ftf_rho;
            r->gang[r->ndone++] = j->spec->num_gpus;
        }
    }
    for (size_t i = 0; i < ns; i++) {
        r->st[i] = (double)(res->series[i].t - res->series[0].t) / 1e6;
        r->busy[i] = res->series[i].busy_gpus;
        r->pending[i] = res->series[i].pending;
    }
    r->nseries = ns;
    for (size_t i = 0; i < ne; i++) {
        r->et[i] = (double)(res->events[i].t - (ns ? res->series[0].t : 0)) / 1e6;
        r->epre[i] =
            res->events[i].preemptions + res->events[i].migrations + res->events[i].resizes;
    }
    r->nevents = ne;
    r->has_events = r->has_groups = 1;
    double mk = res->summary.makespan_s;
    if (add_groups(r, 't', res->by_type, res->nby_type, mk) ||
        add_groups(r, 'u', res->by_user, res->nby_user, 0) ||
        add_groups(r, 'q', res->by_queue, res->nby_queue, 0))
        goto nomem;
    *out = r;
    return 0;
nomem:
    free(js);
    berth_run_free(r);
    return berth_err_set(err, BERTH_ENOMEM, "out of memory");
}
