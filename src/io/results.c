/* Result writers: the per-job CSV, the cluster time-series CSV, the preemption events, the
 * per-group table and the summary JSON of a simulation (every --out file). Every number is printed
 * deterministically (times as exact decimal seconds), so the same run writes the same bytes. */
#include <errno.h>
#include <sys/stat.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "berth/sim.h"
#include "io/json_load.h"
#include "model/topo.h"
#include "util/csv.h"
#include "util/num.h"

static FILE *open_out(const char *path, struct berth_err *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        berth_err_set(err, BERTH_EIO, "%s: cannot write: %s", path, strerror(errno));
    return f;
}

static int close_out(FILE *f, const char *path, struct berth_err *err)
{
    int bad = ferror(f);
    if (fclose(f) || bad)
        return berth_err_set(err, BERTH_EIO, "%s: write error", path);
    return 0;
}

static const char *opt_us(char *buf, berth_us t)
{
    if (t == BERTH_TIME_NONE) {
        buf[0] = '\0';
        return buf;
    }
    return berth__fmt_us(buf, t);
}

int berth_write_jobs_csv(const char *path, const struct berth_sim_result *r,
                         const struct berth_cluster *c, struct berth_err *err)
{
    FILE *f = open_out(path, err);
    if (!f)
        return BERTH_EIO;
    fputs("job_id,arrival_s,first_start_s,finish_s,jct_s,queue_s,run_s,num_gpus,gpu_type,"
          "servers,preemptions,restarts,restart_lost_s,alone_s,ftf_rho,wait_s",
          f);
    int lim = r->summary.has_limits; /* the limit columns only when some job had a limit */
    fputs(lim ? ",time_limit_s,timed_out\n" : "\n", f);
    char b[9][32];
    for (size_t i = 0; i < r->njobs; i++) {
        const struct berth_job_result *j = &r->jobs[i];
        berth_us arr = j->spec->arrival_us;
        berth__csv_put(f, j->spec->id);
        fprintf(
            f, ",%s,%s,%s,%s,%s,%s,%d,%s,%d,%d,%d,%s,%s,%.6f,%s", berth__fmt_us(b[0], arr),
            opt_us(b[1], j->first_start_us), opt_us(b[2], j->finish_us),
            opt_us(b[3], j->finish_us == BERTH_TIME_NONE ? BERTH_TIME_NONE : j->finish_us - arr),
            opt_us(b[4], j->first_start_us == BERTH_TIME_NONE ? BERTH_TIME_NONE
                                                              : j->first_start_us - arr),
            berth__fmt_us(b[5], j->run_us), j->spec->num_gpus,
            j->gpu_type >= 0 ? berth_cluster_type_name(c, (size_t)j->gpu_type) : "", j->servers,
            j->preemptions, j->restarts, berth__fmt_us(b[6], j->restart_lost_us),
            berth__fmt_us(b[7], j->iso_us), j->ftf_rho,
            opt_us(b[8], j->finish_us == BERTH_TIME_NONE ? BERTH_TIME_NONE : j->wait_us));
        if (lim)
            fprintf(f, ",%s,%d", j->limit_us ? berth__fmt_us(b[0], j->limit_us) : "", j->timed_out);
        fputc('\n', f);
    }
    return close_out(f, path, err);
}

int berth_write_series_csv(const char *path, const struct berth_sim_result *r,
                           struct berth_err *err)
{
    FILE *f = open_out(path, err);
    if (!f)
        return BERTH_EIO;
    fputs("time_s,busy_gpus,running,pending\n", f);
    char b[32];
    for (size_t i = 0; i < r->nseries; i++) {
        const struct berth_series_row *s = &r->series[i];
        fprintf(f, "%s,%d,%d,%d\n", berth__fmt_us(b, s->t), s->busy_gpus, s->running, s->pending);
    }
    return close_out(f, path, err);
}

int berth_write_events_csv(const char *path, const struct berth_sim_result *r,
                           struct berth_err *err)
{
    FILE *f = open_out(path, err);
    if (!f)
        return BERTH_EIO;
    fputs("time_s,preemptions,migrations,resizes\n", f);
    char b[32];
    for (size_t i = 0; i < r->nevents; i++) {
        const struct berth_event_row *e = &r->events[i];
        fprintf(f, "%s,%d,%d,%d\n", berth__fmt_us(b, e->t), e->preemptions, e->migrations,
                e->resizes);
    }
    return close_out(f, path, err);
}

static void group_rows(FILE *f, const char *kind, const struct berth_group_stat *g, size_t n,
                       double makespan_s)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s,", kind);
        berth__csv_put(f, g[i].name);
        fprintf(f, ",%zu,%zu,%.6f,%.6f,%.6f,", g[i].jobs, g[i].completed, g[i].avg_jct_s,
                g[i].gpu_hours, g[i].ftf_rho_avg);
        if (strcmp(kind, "gpu_type"))
            fputs(",\n", f);
        else
            fprintf(f, "%d,%.6f\n", g[i].gpus,
                    g[i].gpus > 0 && makespan_s > 0
                        ? g[i].gpu_hours * 3600 / ((double)g[i].gpus * makespan_s)
                        : 0.0);
    }
}

int berth_write_groups_csv(const char *path, const struct berth_sim_result *r,
                           struct berth_err *err)
{
    FILE *f = open_out(path, err);
    if (!f)
        return BERTH_EIO;
    fputs("group,name,jobs,completed,avg_jct_s,gpu_hours,ftf_rho_avg,gpus,util\n", f);
    group_rows(f, "gpu_type", r->by_type, r->nby_type, r->summary.makespan_s);
    group_rows(f, "user", r->by_user, r->nby_user, 0);
    group_rows(f, "queue", r->by_queue, r->nby_queue, 0);
    return close_out(f, path, err);
}

int berth_write_outputs(const char *dir, const struct berth_sim_result *r,
                        const struct berth_cluster *c, struct berth_err *err)
{
    if (mkdir(dir, 0777) && errno != EEXIST)
        return berth_err_set(err, BERTH_EIO, "%s: cannot create the folder: %s", dir,
                             strerror(errno));
    size_t len = strlen(dir) + 32;
    char *p = malloc(len);
    if (!p)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    snprintf(p, len, "%s/jobs.csv", dir);
    int rc = berth_write_jobs_csv(p, r, c, err);
    if (!rc) {
        snprintf(p, len, "%s/series.csv", dir);
        rc = berth_write_series_csv(p, r, err);
    }
    if (!rc) {
        snprintf(p, len, "%s/events.csv", dir);
        rc = berth_write_events_csv(p, r, err);
    }
    if (!rc) {
        snprintf(p, len, "%s/groups.csv", dir);
        rc = berth_write_groups_csv(p, r, err);
    }
    if (!rc) {
        snprintf(p, len, "%s/summary.json", dir);
        char *js = berth_summary_json(r, 0);
        if (!js) {
            rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
        } else {
            FILE *f = fopen(p, "w");
            int bad = !f || fprintf(f, "%s\n", js) < 0;
            if ((f && fclose(f)) || bad)
                rc = berth_err_set(err, BERTH_EIO, "%s: cannot write: %s", p, strerror(errno));
        }
        free(js);
    }
    free(p);
    return rc;
}

/* {"NAME": {"jobs": .., "completed": .., "avg_jct_s": .., "avg_wait_s": .., "gpu_hours": ..},
 * ...}; NULL when
 * out of memory (a set that fails: a value could not be made, or the set itself). */
static json_t *groups_json(const struct berth_group_stat *g, size_t n)
{
    json_t *o = json_object();
    int bad = 0;
    for (size_t i = 0; o && !bad && i < n; i++) {
        json_t *e = json_object();
        bad |= json_object_set_new(e, "jobs", json_integer((json_int_t)g[i].jobs));
        bad |= json_object_set_new(e, "completed", json_integer((json_int_t)g[i].completed));
        bad |= json_object_set_new(e, "avg_jct_s", json_real(g[i].avg_jct_s));
        bad |= json_object_set_new(e, "avg_wait_s", json_real(g[i].avg_wait_s));
        bad |= json_object_set_new(e, "gpu_hours", json_real(g[i].gpu_hours));
        bad |= json_object_set_new(o, g[i].name, e);
    }
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

char *berth_summary_json(const struct berth_sim_result *r, int with_wall)
{
    const struct berth_sim_summary *s = &r->summary;
    json_t *o = json_object();
    if (!o)
        return NULL;
    int bad = 0;
    bad |= json_object_set_new(o, "policy", json_string(r->policy));
    bad |= json_object_set_new(o, "placement", json_string(r->placement));
    bad |= json_object_set_new(o, "jobs", json_integer((json_int_t)s->jobs));
    bad |= json_object_set_new(o, "completed", json_integer((json_int_t)s->completed));
    if (s->has_limits) /* only when some job had a time limit: other summaries stay as they were */
        bad |= json_object_set_new(o, "timeouts", json_integer((json_int_t)s->timeouts));
    bad |= json_object_set_new(o, "avg_jct_s", json_real(s->avg_jct_s));
    bad |= json_object_set_new(o, "median_jct_s", json_real(s->median_jct_s));
    bad |= json_object_set_new(o, "p95_jct_s", json_real(s->p95_jct_s));
    bad |= json_object_set_new(o, "p99_jct_s", json_real(s->p99_jct_s));
    bad |= json_object_set_new(o, "avg_queue_s", json_real(s->avg_queue_s));
    bad |= json_object_set_new(o, "median_queue_s", json_real(s->median_queue_s));
    bad |= json_object_set_new(o, "p99_queue_s", json_real(s->p99_queue_s));
    bad |= json_object_set_new(o, "avg_wait_s", json_real(s->avg_wait_s));
    bad |= json_object_set_new(o, "median_wait_s", json_real(s->median_wait_s));
    bad |= json_object_set_new(o, "p99_wait_s", json_real(s->p99_wait_s));
    bad |= json_object_set_new(o, "makespan_s", json_real(s->makespan_s));
    bad |= json_object_set_new(o, "gpu_util", json_real(s->gpu_util));
    bad |= json_object_set_new(o, "preemptions", json_integer((json_int_t)s->preemptions));
    bad |= json_object_set_new(o, "migrations", json_integer((json_int_t)s->migrations));
    bad |= json_object_set_new(o, "resizes", json_integer((json_int_t)s->resizes));
    bad |= json_object_set_new(o, "events", json_integer((json_int_t)s->events));
    bad |= json_object_set_new(o, "passes", json_integer((json_int_t)s->passes));
    bad |= json_object_set_new(o, "mode", json_string(r->mode));
    bad |= json_object_set_new(o, "restarts", json_integer((json_int_t)s->restarts));
    bad |= json_object_set_new(o, "restart_lost_s", json_real(s->restart_lost_s));
    if (s->has_infer) {
        json_t *inf = json_object();
        bad |= json_object_set_new(inf, "servers", json_integer(s->infer_servers));
        bad |= json_object_set_new(inf, "gpu_hours", json_real(s->infer_gpu_hours));
        bad |= json_object_set_new(inf, "loaned_gpu_hours", json_real(s->loaned_gpu_hours));
        bad |=
            json_object_set_new(inf, "short_server_hours", json_real(s->infer_short_server_hours));
        bad |= json_object_set_new(inf, "cluster_usage", json_real(s->cluster_usage));
        bad |= json_object_set_new(inf, "lends", json_integer((json_int_t)s->lends));
        bad |= json_object_set_new(inf, "reclaims", json_integer((json_int_t)s->reclaims));
        bad |=
            json_object_set_new(inf, "reclaim_latency_max_s", json_real(s->reclaim_latency_max_s));
        bad |=
            json_object_set_new(inf, "reclaim_latency_avg_s", json_real(s->reclaim_latency_avg_s));
        bad |= json_object_set_new(o, "inference", inf);
    }
    bad |= json_object_set_new(o, "ftf_rho_max", json_real(s->ftf_rho_max));
    bad |= json_object_set_new(o, "ftf_rho_avg", json_real(s->ftf_rho_avg));
    bad |= json_object_set_new(o, "ftf_jain", json_real(s->ftf_jain));
    bad |= json_object_set_new(o, "by_gpu_type", groups_json(r->by_type, r->nby_type));
    bad |= json_object_set_new(o, "by_user", groups_json(r->by_user, r->nby_user));
    bad |= json_object_set_new(o, "by_queue", groups_json(r->by_queue, r->nby_queue));
    if (s->has_topology) { /* only then: a flat cluster's summary stays as it was */
        json_t *sp = json_object();
        for (int l = 0; l < BERTH_TOPO_LEVELS; l++) {
            json_t *e = json_object();
            bad |= !sp || !e;
            bad |= json_object_set_new(e, "jobs", json_integer((json_int_t)s->span_jobs[l]));
            bad |= json_object_set_new(e, "gpu_hours", json_real(s->span_gpu_hours[l]));
            bad |= json_object_set_new(sp, berth__topo_level_name(l), e);
        }
        bad |= json_object_set_new(o, "by_span", sp);
    }
    if (s->has_topology) { /* frag_by_level: only with a topology, as by_span */
        json_t *fr = json_object();
        bad |= !fr;
        for (int l = 0; l < BERTH_TOPO_LEVELS; l++) {
            if (!s->frag_level[l])
                continue;
            json_t *e = json_object();
            bad |= !e;
            bad |= json_object_set_new(e, "idle_in_partial", json_real(s->frag_idle_in_partial[l]));
            bad |= json_object_set_new(e, "whole_idle_domains", json_real(s->frag_whole_idle[l]));
            bad |= json_object_set_new(fr, berth__topo_level_name(l), e);
        }
        bad |= json_object_set_new(o, "frag_by_level", fr);
    }
    if (with_wall) {
        bad |= json_object_set_new(o, "wall_s", json_real(s->wall_s));
        bad |= json_object_set_new(o, "events_per_s",
                                   json_real(s->wall_s > 0 ? (double)s->events / s->wall_s : 0));
    }
    char *txt = bad ? NULL : berth__json_dumps(o, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    json_decref(o);
    return txt;
}
