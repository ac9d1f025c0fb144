/* Summary statistics of a simulation (see metrics.h). */
#include <stdlib.h>
#include <string.h>

#include "sim/metrics.h"
#include "util/hash.h"
#include "util/mem.h"
#include "util/sort.h"

double berth__quantile(const int64_t *v, size_t n, double q)
{
    if (n == 0)
        return 0;
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo >= n - 1)
        return (double)v[n - 1];
    double frac = pos - (double)lo;
    return (double)v[lo] + ((double)v[lo + 1] - (double)v[lo]) * frac;
}

static int cmp_group_name(const void *a, const void *b)
{
    return strcmp(((const struct berth_group_stat *)a)->name,
                  ((const struct berth_group_stat *)b)->name);
}

static double job_gpu_hours(const struct berth_job_result *j)
{
    double share = j->spec->gpu_share_milli > 0 && j->spec->gpu_share_milli < 1000
                       ? j->spec->gpu_share_milli / 1000.0
                       : 1.0;
    return (double)j->gpu_us * share / 3.6e9;
}

/* A completed job's JCT, wait and rho into its group's sums (average turns them into means;
 * *nrho: the group's jobs with a rho). */
static void count_done(struct berth_group_stat *g, size_t *nrho, const struct berth_job_result *j)
{
    if (j->finish_us == BERTH_TIME_NONE)
        return;
    g->completed++;
    g->avg_jct_s += (double)(j->finish_us - j->spec->arrival_us) / 1e6;
    g->avg_wait_s += (double)j->wait_us / 1e6;
    if (j->ftf_rho > 0) {
        g->ftf_rho_avg += j->ftf_rho;
        (*nrho)++;
    }
}

static void average(struct berth_group_stat *g, size_t nrho)
{
    if (g->completed) {
        g->avg_jct_s /= (double)g->completed;
        g->avg_wait_s /= (double)g->completed;
    }
    if (nrho)
        g->ftf_rho_avg /= (double)nrho;
}

/* Where name's group is in the open-addressing index (slot value = group + 1), or the empty
 * slot where it would go. */
static size_t group_slot(const uint32_t *index, size_t cap, const struct berth_group_stat *g,
                         const char *name)
{
    size_t i = (size_t)berth__hash_str(name) & (cap - 1);
    while (index[i] && g[index[i] - 1].name != name && strcmp(g[index[i] - 1].name, name))
        i = (i + 1) & (cap - 1);
    return i;
}

/* Groups r's jobs by the name name_of gives ("" = not grouped): one pass through a hash
 * index, then the (few) groups sorted by name. */
static int group(const struct berth_sim_result *r,
                 const char *(*name_of)(const struct berth_jobspec *),
                 struct berth_group_stat **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    size_t ng = 0, gcap = 0, cap = 64, ncap = 0, *nrho = NULL;
    uint32_t *index = calloc(cap, sizeof *index);
    if (!index)
        return -1;
    for (size_t i = 0; i < r->njobs; i++) {
        const struct berth_job_result *j = &r->jobs[i];
        const char *name = name_of(j->spec);
        if (!name[0])
            continue;
        size_t k = group_slot(index, cap, *out, name);
        if (!index[k]) {
            if (BERTH_GROW(*out, gcap, ng + 1) || BERTH_GROW(nrho, ncap, ng + 1))
                goto nomem;
            nrho[ng] = 0;
            (*out)[ng++] = (struct berth_group_stat){.name = name};
            index[k] = (uint32_t)ng;
            if (ng * 2 > cap) { /* rehash into twice the room */
                uint32_t *bigger = calloc(cap * 2, sizeof *bigger);
                if (!bigger)
                    goto nomem;
                for (size_t s = 0; s < cap; s++)
                    if (index[s])
                        bigger[group_slot(bigger, cap * 2, *out, (*out)[index[s] - 1].name)] =
                            index[s];
                free(index);
                index = bigger;
                cap *= 2;
                k = group_slot(index, cap, *out, name);
            }
        }
        struct berth_group_stat *g = &(*out)[index[k] - 1];
        g->jobs++;
        g->gpu_hours += job_gpu_hours(j);
        count_done(g, &nrho[index[k] - 1], j);
    }
    free(index);
    for (size_t i = 0; i < ng; i++)
        average(&(*out)[i], nrho[i]);
    free(nrho);
    if (ng > 1)
        qsort(*out, ng, sizeof **out, cmp_group_name);
    *nout = ng;
    return 0;
nomem:
    free(index);
    free(nrho);
    free(*out);
    *out = NULL;
    return -1;
}

static const char *user_of(const struct berth_jobspec *s)
{
    return berth_jobspec_extra(s)->user;
}

static const char *queue_of(const struct berth_jobspec *s)
{
    return s->queue;
}

/* Fairness over the completed jobs: max and mean rho, Jain's index (sum^2 / (n sum of
 * squares)). */
static void fairness(struct berth_sim_result *r)
{
    struct berth_sim_summary *s = &r->summary;
    double sum = 0, sq = 0, mx = 0;
    size_t n = 0;
    for (size_t i = 0; i < r->njobs; i++) {
        const struct berth_job_result *j = &r->jobs[i];
        s->restarts += (uint64_t)j->restarts;
        s->restart_lost_s += (double)j->restart_lost_us / 1e6;
        if (j->finish_us == BERTH_TIME_NONE || !(j->ftf_rho > 0))
            continue;
        n++;
        sum += j->ftf_rho;
        sq += j->ftf_rho * j->ftf_rho;
        mx = j->ftf_rho > mx ? j->ftf_rho : mx;
    }
    s->ftf_rho_max = mx;
    s->ftf_rho_avg = n ? sum / (double)n : 0;
    s->ftf_jain = sq > 0 ? sum * sum / ((double)n * sq) : 0;
}

static int by_type(struct berth_sim_result *r, const double *type_gpu_us,
                   const struct berth_cluster *c)
{
    size_t nt = berth_cluster_type_count(c);
    r->by_type = calloc(nt ? nt : 1, sizeof *r->by_type);
    size_t *nrho = calloc(nt ? nt : 1, sizeof *nrho);
    if (!r->by_type || !nrho) {
        free(nrho);
        return -1;
    }
    r->nby_type = nt;
    /* the names are copied: a result may outlive its cluster */
    for (size_t t = 0; t < nt; t++) {
        r->by_type[t] = (struct berth_group_stat){.gpu_hours = type_gpu_us[t] / 3.6e9};
        if (!(r->by_type[t].name = strdup(berth_cluster_type_name(c, t)))) {
            free(nrho);
            return -1;
        }
    }
    for (size_t i = 0; i < r->njobs; i++) {
        const struct berth_job_result *j = &r->jobs[i];
        if (j->gpu_type < 0 || (size_t)j->gpu_type >= nt)
            continue;
        struct berth_group_stat *g = &r->by_type[j->gpu_type];
        g->jobs++;
        count_done(g, &nrho[j->gpu_type], j);
    }
    for (size_t t = 0; t < nt; t++) {
        average(&r->by_type[t], nrho[t]);
        r->by_type[t].gpus = berth_cluster_type_gpus(c, t);
    }
    free(nrho);
    return 0;
}

/* A job's figure for the summary (into *x): 0 when it has none (not finished, never ran). */
typedef int (*figure_fn)(const struct berth_job_result *j, int64_t *x);

static int jct_fig(const struct berth_job_result *j, int64_t *x)
{
    if (j->finish_us == BERTH_TIME_NONE)
        return 0;
    *x = j->finish_us - j->spec->arrival_us;
    return 1;
}

static int queue_fig(const struct berth_job_result *j, int64_t *x)
{
    if (j->first_start_us == BERTH_TIME_NONE)
        return 0;
    *x = j->first_start_us - j->spec->arrival_us;
    return 1;
}

static int wait_fig(const struct berth_job_result *j, int64_t *x)
{
    *x = j->wait_us;
    return j->finish_us != BERTH_TIME_NONE;
}

/* The jobs' figures f into v (*k of them, sorted) and their mean in seconds (summed in job
 * order); -1 when out of memory. */
static int figures(const struct berth_sim_result *r, figure_fn f, int64_t *v, size_t *k,
                   double *avg_s)
{
    double sum = 0;
    *k = 0;
    for (size_t i = 0; i < r->njobs; i++)
        if (f(&r->jobs[i], &v[*k]))
            sum += (double)v[(*k)++];
    *avg_s = *k ? sum / (double)*k / 1e6 : 0;
    return berth__sort_i64(v, *k);
}

int berth__summarise(struct berth_sim_result *r, double busy_gpu_us, const double *type_gpu_us,
                     const struct berth_cluster *c)
{
    int32_t total_gpus = berth_cluster_gpus(c);
    fairness(r);
    if (group(r, user_of, &r->by_user, &r->nby_user) ||
        group(r, queue_of, &r->by_queue, &r->nby_queue) || by_type(r, type_gpu_us, c))
        return -1;
    struct berth_sim_summary *s = &r->summary;
    size_t n = r->njobs;
    /* one figure at a time in one buffer (ten million jobs: 80 MB each, not three at once) */
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return -1;
    size_t done = 0, started = 0;
    berth_us first = BERTH_TIME_NONE, last = BERTH_TIME_NONE;
    for (size_t i = 0; i < n; i++) {
        const struct berth_job_result *j = &r->jobs[i];
        if (first == BERTH_TIME_NONE || j->spec->arrival_us < first)
            first = j->spec->arrival_us;
        if (j->finish_us != BERTH_TIME_NONE && (last == BERTH_TIME_NONE || j->finish_us > last))
            last = j->finish_us;
    }
    const double us = 1e6;
    if (figures(r, jct_fig, v, &done, &s->avg_jct_s))
        goto nomem;
    s->median_jct_s = berth__quantile(v, done, 0.5) / us;
    s->p95_jct_s = berth__quantile(v, done, 0.95) / us;
    s->p99_jct_s = berth__quantile(v, done, 0.99) / us;
    if (figures(r, queue_fig, v, &started, &s->avg_queue_s))
        goto nomem;
    s->median_queue_s = berth__quantile(v, started, 0.5) / us;
    s->p99_queue_s = berth__quantile(v, started, 0.99) / us;
    if (figures(r, wait_fig, v, &done, &s->avg_wait_s))
        goto nomem;
    s->median_wait_s = berth__quantile(v, done, 0.5) / us;
    s->p99_wait_s = berth__quantile(v, done, 0.99) / us;
    free(v);
    s->jobs = n;
    s->timeouts = 0;
    for (size_t i = 0; i < n; i++) {
        s->timeouts += r->jobs[i].timed_out != 0;
        s->has_limits |= r->jobs[i].limit_us > 0;
    }
    s->completed = done - s->timeouts; /* a timed-out job left, its work undone */
    berth_us span = (last != BERTH_TIME_NONE && first != BERTH_TIME_NONE) ? last - first : 0;
    s->makespan_s = (double)span / us;
    s->gpu_util = span > 0 && total_gpus > 0 ? busy_gpu_us / ((double)span * total_gpus) : 0;
    if ((s->has_topology = berth_cluster_has_topology(c)))
        for (size_t i = 0; i < n; i++) {
            int32_t l = r->jobs[i].span;
            if (l >= 0 && l < BERTH_TOPO_LEVELS) {
                s->span_jobs[l]++;
                s->span_gpu_hours[l] += job_gpu_hours(&r->jobs[i]);
            }
        }
    return 0;
nomem:
    free(v);
    return -1;
}
