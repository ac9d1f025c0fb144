/* The trace object: the job specs of a workload, the strings they point to, and the check
 * every trace passes against a cluster before a run (include/berth/trace.h). It is the
 * model's so that the simulator, berth pack and the loaders all use it from below; the
 * loaders that fill it and their format registry are io/'s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cluster.h"
#include "model/trace.h"
#include "util/hash.h"

struct berth_trace *berth__trace_new(const char *path)
{
    struct berth_trace *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->path = strdup(path ? path : "");
    if (!t->path) {
        free(t);
        return NULL;
    }
    berth__arena_init(&t->strings);
    return t;
}

const struct berth_jobspec_extra berth_jobspec_extra_none = {
    .job_type = "", .user = "", .status = "", .gpu_type = ""};

static size_t str_hash(const char *s, size_t len);

static int extra_eq(const struct berth_jobspec_extra *a, const struct berth_jobspec_extra *b)
{
    return a->gpu_mem_mib == b->gpu_mem_mib && a->cpu_milli == b->cpu_milli &&
           a->mem_mib == b->mem_mib && a->restart_us == b->restart_us &&
           a->time_limit_us == b->time_limit_us && a->persist_mib == b->persist_mib &&
           a->ephem_mib == b->ephem_mib && !strcmp(a->job_type, b->job_type) &&
           !strcmp(a->user, b->user) && !strcmp(a->status, b->status) &&
           !strcmp(a->gpu_type, b->gpu_type) && a->topo_required == b->topo_required &&
           a->topo_preferred == b->topo_preferred && a->tp == b->tp;
}

static size_t extra_hash(const struct berth_jobspec_extra *x)
{
    const int64_t v[] = {x->gpu_mem_mib,
                         x->cpu_milli,
                         x->mem_mib,
                         x->restart_us,
                         x->time_limit_us,
                         x->persist_mib,
                         x->ephem_mib,
                         (int64_t)x->topo_required << 40 | (int64_t)x->topo_preferred << 32 |
                             (uint32_t)x->tp};
    size_t h = str_hash((const char *)v, sizeof v);
    const char *s[] = {x->job_type, x->user, x->status, x->gpu_type};
    for (size_t i = 0; i < sizeof s / sizeof *s; i++)
        h = h * 31 + str_hash(s[i], strlen(s[i]));
    return h;
}

/* The trace's one copy of x (NULL when every field is at its default); (void *)-1 when out
 * of memory. */
static const struct berth_jobspec_extra *extra_intern(struct berth_trace *t,
                                                      const struct berth_jobspec_extra *x)
{
    if (extra_eq(x, &berth_jobspec_extra_none))
        return NULL;
    if (2 * (t->nextras + 1) > t->extras_cap) { /* keep it at most half full */
        size_t cap = t->extras_cap ? 2 * t->extras_cap : 64;
        const struct berth_jobspec_extra **tab = calloc(cap, sizeof *tab);
        if (!tab)
            return (void *)-1;
        for (size_t i = 0; i < t->extras_cap; i++)
            if (t->extras[i]) {
                size_t h = extra_hash(t->extras[i]) & (cap - 1);
                while (tab[h])
                    h = (h + 1) & (cap - 1);
                tab[h] = t->extras[i];
            }
        free(t->extras);
        t->extras = tab;
        t->extras_cap = cap;
    }
    size_t h = extra_hash(x) & (t->extras_cap - 1);
    for (; t->extras[h]; h = (h + 1) & (t->extras_cap - 1))
        if (extra_eq(t->extras[h], x))
            return t->extras[h];
    struct berth_jobspec_extra *c = berth__arena_alloc(&t->strings, sizeof *c);
    if (!c)
        return (void *)-1;
    *c = *x;
    t->extras[h] = c;
    t->nextras++;
    return c;
}

int berth__trace_push(struct berth_trace *t, const struct berth_jobdesc *jd)
{
    const struct berth_jobspec_extra *x = extra_intern(t, &jd->x);
    if (x == (void *)-1 || BERTH_GROW(t->jobs, t->cap, t->n + 1))
        return BERTH_ENOMEM;
    t->jobs[t->n] = jd->spec;
    t->jobs[t->n++].extra = x;
    return 0;
}

void berth__jobdesc_of(const struct berth_jobspec *js, struct berth_jobdesc *out)
{
    out->spec = *js;
    out->spec.extra = NULL;
    out->x = *berth_jobspec_extra(js);
}

const char *berth__trace_str(struct berth_trace *t, const char *s, size_t len)
{
    if (!len)
        return "";
    return berth__arena_strndup(&t->strings, s, len);
}

static size_t str_hash(const char *s, size_t len)
{
    return (size_t)berth__hash_bytes(BERTH_HASH_INIT, s, len);
}

const char *berth__trace_intern(struct berth_trace *t, const char *s, size_t len)
{
    if (!len)
        return "";
    if (2 * (t->ninterned + 1) > t->interned_cap) { /* keep it at most half full */
        size_t cap = t->interned_cap ? 2 * t->interned_cap : 64;
        const char **tab = calloc(cap, sizeof *tab);
        if (!tab)
            return NULL;
        for (size_t i = 0; i < t->interned_cap; i++)
            if (t->interned[i]) {
                size_t h = str_hash(t->interned[i], strlen(t->interned[i])) & (cap - 1);
                while (tab[h])
                    h = (h + 1) & (cap - 1);
                tab[h] = t->interned[i];
            }
        free(t->interned);
        t->interned = tab;
        t->interned_cap = cap;
    }
    size_t h = str_hash(s, len) & (t->interned_cap - 1);
    for (; t->interned[h]; h = (h + 1) & (t->interned_cap - 1))
        if (!strncmp(t->interned[h], s, len) && t->interned[h][len] == '\0')
            return t->interned[h];
    const char *c = berth__trace_str(t, s, len);
    if (c) {
        t->interned[h] = c;
        t->ninterned++;
    }
    return c;
}

void berth__jobspec_defaults(struct berth_jobdesc *jd)
{
    memset(jd, 0, sizeof *jd);
    jd->spec.id = jd->spec.queue = "";
    jd->x = berth_jobspec_extra_none;
    jd->spec.num_gpus = jd->spec.min_gpus = jd->spec.max_gpus = 1;
    jd->spec.gpu_share_milli = 1000;
}

void berth_trace_free(struct berth_trace *t)
{
    if (!t)
        return;
    free(t->jobs);
    free(t->interned);
    free(t->extras);
    free(t->path);
    berth__arena_free(&t->strings);
    free(t);
}

size_t berth_trace_count(const struct berth_trace *t)
{
    return t->n;
}

const struct berth_jobspec *berth_trace_jobs(const struct berth_trace *t)
{
    return t->jobs;
}

const char *berth_trace_path(const struct berth_trace *t)
{
    return t->path;
}

/* Simulated time stays below 2^62 us (146,000 years) and so does any job's GPU time: the
 * last arrival plus all the work run one job after another bounds every instant a run can
 * reach, so checking that sum keeps the clock and every key free of overflow. */
#define SIM_TIME_LIMIT (INT64_C(1) << 62)

int berth_trace_check(const struct berth_trace *t, const struct berth_cluster *c,
                      struct berth_err *err)
{
    int64_t work = 0, last = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct berth_jobspec *j = &t->jobs[i];
        if (j->arrival_us > last)
            last = j->arrival_us;
        work += j->duration_us; /* each is at most 10^18, so no overflow before the check */
        if (work > SIM_TIME_LIMIT - last ||
            (j->num_gpus && j->duration_us > SIM_TIME_LIMIT / j->num_gpus))
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:%u: column duration_s: expected the trace's arrivals and "
                                 "work to fit in 146,000 years of simulated time (and each "
                                 "job's GPU time too), found more by this job",
                                 t->path, j->line);
        uint64_t mask;
        if (berth__cluster_type_mask(c, berth_jobspec_extra(j)->gpu_type, &mask)) {
            char names[256] = "";
            size_t o = 0;
            for (size_t k = 0; k < c->ntypes && o < sizeof names; k++)
                o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", k ? ", " : "",
                                      c->types[k].name);
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:%u: column gpu_type: expected a GPU type of the cluster "
                                 "(%s), found \"%s\"",
                                 t->path, j->line, names, berth_jobspec_extra(j)->gpu_type);
        }
        /* a gang is of one type: the most it can get is the largest allowed type (or, when
         * it must stay on one server, the largest allowed server) */
        int32_t cap = 0, srv = 0;
        size_t allowed = 0;
        for (size_t k = 0; k < c->ntypes; k++)
            if (!mask || (mask >> k & 1)) {
                allowed++;
                if (c->types[k].total > cap)
                    cap = c->types[k].total;
                if (c->types[k].max_per_server > srv)
                    srv = c->types[k].max_per_server;
            }
        char desc[64];
        const char *what = "the largest GPU type (gangs do not mix types)";
        if (c->ntypes == 1 && !mask) {
            what = "the whole cluster";
        } else if (allowed == 1) {
            for (size_t k = 0; k < c->ntypes; k++)
                if (!mask || (mask >> k & 1))
                    snprintf(desc, sizeof desc, "all %s GPUs", c->types[k].name);
            what = desc;
        } else if (mask) {
            what = "the GPUs of its largest allowed type";
        }
        if ((j->single_server || !c->allow_span) && srv < cap) {
            cap = srv;
            what = "one server (the gang must not span servers)";
        }
        if (c->has_gpu_mem && j->num_gpus && berth_jobspec_extra(j)->gpu_mem_mib) {
            int64_t most = berth__cluster_largest_gpu_mem(c, mask);
            if (most >= 0 && berth_jobspec_extra(j)->gpu_mem_mib > most)
                return berth_err_set(err, BERTH_EINPUT,
                                     "%s:%u: column gpu_mem_mib: expected at most %lld MiB (the "
                                     "largest GPU it may use), found %lld",
                                     t->path, j->line, (long long)most,
                                     (long long)berth_jobspec_extra(j)->gpu_mem_mib);
        }
        if (j->num_gpus > cap)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:%u: column num_gpus: expected at most %d GPUs (%s), found "
                                 "%d",
                                 t->path, j->line, cap, what, j->num_gpus);
    }
    return 0;
}
