/* berth gen's library half: seeded synthetic workloads (Poisson arrivals and a job-shape
 * profile) built as an ordinary trace, so everything that reads traces reads generated ones.
 * See include/berth/gen.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "berth/cluster.h"
#include "berth/gen.h"
#include "model/tput.h"
#include "model/tput_catalog.h"
#include "io/trace_int.h"
#include "util/num.h"
#include "util/rng.h"

#define GEN_MAX_JOBS    ((size_t)100000000)
#define GEN_MAX_ELASTIC 1024 /* --elastic: largest gang an elastic job may grow to */
/* Arrivals must stay below what the native loader reads back ("a time below 10^12 s"). */
#define GEN_MAX_SECONDS 1e12

/* What one draw of a profile gives for one job. */
struct shape {
    int32_t num_gpus;
    double duration_s;
    int queue;        /* index into the profile's queue names, -1 = none */
    const char *type; /* a job type of the profile's own (llm), NULL = none */
    int32_t tp;       /* tensor-parallel degree, 0 = none */
    int8_t req, pref; /* topology levels + 1 (0 = none) */
};

/* Job types of the profile: a model whose classes are drawn uniformly, and the GPU type whose
 * rates turn a drawn run time into steps (Gavel: V100). NULL model = no job types. */
struct typing {
    const struct berth_tput *m;
    const char *rate_type;
};

/* ---- gavel ------------------------------------------------------------------------------
 * Gavel's generator (Narayanan et al., OSDI'20, scheduler/utils.py): scale factor 1/2/4/8
 * GPUs with p = 0.7/0.1/0.15/0.05; run time 60 * 10^U(1.5, 3) s with p = 0.8, otherwise
 * 60 * 10^U(3, 4) s. Its Philly-derived 1000-job experiments use a mean gap of 1200 s, so the
 * default rate is 3 jobs per hour. Draws per job: GPU count, branch, exponent, then the job
 * type (uniform over Gavel's 26 in the built-in catalog) whose V100 rate at the scale factor
 * gives total_steps = ceil(run time x rate), as Gavel's generator does. */

static void gavel_draw(struct berth__rng *r, struct shape *s)
{
    double u = berth__rng_unit(r);
    s->num_gpus = u < 0.7 ? 1 : u < 0.8 ? 2 : u < 0.95 ? 4 : 8;
    if (berth__rng_unit(r) < 0.8)
        s->duration_s = 60.0 * pow(10.0, berth__rng_uniform(r, 1.5, 3.0));
    else
        s->duration_s = 60.0 * pow(10.0, berth__rng_uniform(r, 3.0, 4.0));
    s->queue = -1;
}

/* ---- philly -----------------------------------------------------------------------------
 * Fitted to the Pollux-prepared Philly trace, /work/shared/traces/philly-pollux/philly.csv
 * (petuum/adaptdl osdi21-artifact simulator/traces/philly.csv; 82,247 jobs, 15 VCs, submits
 * 2017-09-04 10:30:41 -> 2017-12-22 08:02:11 = 9,408,690 s = 108.9 days), with python3.
 *
 * GPU counts: the exact empirical counts per size. Duration depends strongly on the gang
 * size in the real data (mean 8,301 s for 1 GPU, 30,942 s for 2 GPUs, 102,066 s for 4 or
 * more; median 1,117 / 21 / 20,991 s), so durations come from one empirical quantile table
 * per size group: drawing them independently of the GPU count would make total GPU time
 * 391k GPU-h instead of the real 978k; per group it is 973k. The virtual cluster (queue) is
 * drawn from the exact per-group VC counts, which keeps the overall VC frequencies and their
 * link with gang size (2-GPU jobs are mostly VC 11cb48, for instance). */

static const char *const philly_vc[] = {
    "6214e9", "11cb48", "6c71a0", "b436b2", "103959", "ee9e8c", "0e4a51", "ed69ec",
    "7f04ca", "2869ce", "e13805", "23dbec", "51b7ef", "925e2b", "795a4c",
};
#define PHILLY_NVC     (sizeof philly_vc / sizeof *philly_vc)
#define GEN_MAX_QUEUES 32
_Static_assert(PHILLY_NVC <= GEN_MAX_QUEUES, "raise GEN_MAX_QUEUES");

/* Jobs per GPU count in the real trace (sum 82,247). */
static const int32_t philly_gpus[] = {1, 2, 4, 8, 12, 16, 24, 32, 64, 128};
static const uint32_t philly_gpus_count[] = {76627, 1818, 1870, 1643, 7, 199, 7, 67, 6, 3};
#define PHILLY_NGPUS (sizeof philly_gpus / sizeof *philly_gpus)
_Static_assert(sizeof philly_gpus_count / sizeof *philly_gpus_count == PHILLY_NGPUS,
               "one count per GPU size");

/* Size groups: 0 = 1 GPU (76,627 jobs), 1 = 2 GPUs (1,818), 2 = 4 or more (3,802). */
static int philly_group(int32_t gpus)
{
    return gpus == 1 ? 0 : gpus == 2 ? 1 : 2;
}

/* Jobs per VC (columns in philly_vc order) within each size group, counted from the file. */
static const uint32_t philly_vc_count[3][PHILLY_NVC] = {
    {40841, 14607, 9054, 7237, 1571, 597, 1090, 1137, 204, 64, 215, 2, 4, 1, 3},
    {50, 1415, 37, 3, 33, 109, 164, 0, 0, 4, 3, 0, 0, 0, 0},
    {335, 69, 862, 183, 330, 805, 181, 0, 519, 354, 156, 6, 0, 2, 0},
};

/* Duration quantile function per size group: philly_q[g][k] is the duration (s) at
 * probability philly_p[k], numpy-style linear-interpolated percentiles of that group's
 * durations (k = 0 is the minimum, the last the maximum), rounded to 0.1 s. Between points
 * the duration is interpolated log-linearly. The grid is finer in the tail, where most of the
 * mean lies; with it the fitted mean is 13,194 s against the real 13,136 (+0.4 %). */
#define PHILLY_NQ 36
static const double philly_p[PHILLY_NQ] = {
    0,    0.01, 0.02, 0.05,  0.1,  0.15,  0.2,   0.25,  0.3,   0.35,  0.4,    0.45,
    0.5,  0.55, 0.6,  0.65,  0.7,  0.75,  0.8,   0.85,  0.875, 0.9,   0.925,  0.95,
    0.96, 0.97, 0.98, 0.985, 0.99, 0.993, 0.995, 0.997, 0.998, 0.999, 0.9995, 1,
};
static const double philly_q[3][PHILLY_NQ] = {
    /* 1 GPU: real median 1,117, p90 8,512, p99 135,399, max 3,256,045, mean 8,301 */
    {1.0,     30.0,     42.0,     52.0,     62.0,     69.0,     76.0,     122.0,     215.0,
     385.0,   600.0,    855.0,    1117.0,   1446.0,   1728.0,   2054.0,   2464.2,    2716.0,
     3754.0,  5342.1,   5911.0,   8512.0,   11166.1,  19137.0,  26415.8,  44232.7,   68251.7,
     93428.5, 135399.3, 184681.2, 266914.1, 384254.6, 502224.1, 865708.7, 1447516.6, 3256045.0},
    /* 2 GPUs: real median 21, p90 72,740, max 2,582,803, mean 30,942 */
    {2.0,      5.0,      7.0,      9.0,      11.0,      13.0,      15.0,      16.0,      17.0,
     18.0,     19.0,     20.0,     21.0,     23.0,      25.0,      28.0,      33.0,      76.0,
     149.2,    22255.5,  37561.8,  72740.2,  124487.6,  197062.2,  232484.2,  267687.1,  343861.7,
     428215.0, 523316.1, 667836.2, 808063.9, 1127721.1, 1398359.1, 1474215.4, 1618289.4, 2582803.0},
    /* 4 or more GPUs: real median 20,991, p90 242,271, max 4,628,226, mean 102,066 */
    {1.0,       30.0,      42.0,      80.0,     157.0,     273.1,     535.2,     985.2,
     2348.8,    4888.4,    9541.2,    14129.4,  20991.0,   31300.8,   48728.8,   70280.0,
     91618.7,   118723.5,  163713.4,  188095.3, 208275.4,  242270.5,  320804.1,  429331.7,
     497777.1,  575577.9,  703775.0,  818543.5, 1025810.7, 1137970.1, 1413157.5, 2013184.3,
     2161620.9, 2644278.0, 2667927.1, 4628226.0},
};

static double philly_duration(struct berth__rng *r, int g)
{
    double u = berth__rng_unit(r);     /* [0, 1) */
    size_t lo = 0, hi = PHILLY_NQ - 1; /* invariant: philly_p[lo] <= u < philly_p[hi] */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (philly_p[mid] <= u)
            lo = mid;
        else
            hi = mid;
    }
    const double *q = philly_q[g];
    double f = (u - philly_p[lo]) / (philly_p[hi] - philly_p[lo]);
    return exp(log(q[lo]) + f * (log(q[hi]) - log(q[lo])));
}

/* An index drawn with probability count[i] / sum(count). */
static size_t pick_count(struct berth__rng *r, const uint32_t *count, size_t n)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += count[i];
    uint64_t x = berth__rng_below(r, total);
    size_t i = 0;
    while (i + 1 < n && x >= count[i]) {
        x -= count[i];
        i++;
    }
    return i;
}

/* Draws per job: GPU count, duration, VC. */
static void philly_draw(struct berth__rng *r, struct shape *s)
{
    s->num_gpus = philly_gpus[pick_count(r, philly_gpus_count, PHILLY_NGPUS)];
    int g = philly_group(s->num_gpus);
    s->duration_s = philly_duration(r, g);
    s->queue = (int)pick_count(r, philly_vc_count[g], PHILLY_NVC);
}

/* ---- llm ---------------------------------------------------------------------------------
 * An LLM-development mix for topology studies (docs/topology-rate.md, "berth gen --profile
 * llm"). Not fitted to a trace: the shape follows what characterisations of LLM clusters
 * report qualitatively (Acme, Hu et al., NSDI'24: few pre-training jobs, most of the GPU
 * time), the numbers are chosen. Draws per job: kind, then its size, duration and topology.
 *   90 % llm-finetune: 1/2/4/8 GPUs with p = 0.35/0.2/0.2/0.25, run time log-uniform in
 *        [10 min, 8 h] (mean 2.0 h), data parallel (no tp), no topology level;
 *   10 % llm-pretrain: TP x PP x DP with tp = 8 (one 8-GPU NVLink server per TP group):
 *        16 = 8x1x2 (p 0.3), 32 = 8x2x2 (0.3), 64 = 8x2x4 (0.2), 128 = 8x4x4 (0.13),
 *        256 = 8x4x8 (0.07) GPUs, run time log-uniform in [4 h, 48 h] (mean 17.7 h), and a
 *        level: up to 32 GPUs half require one rack and half prefer one, 64 prefer a rack,
 *        larger gangs prefer a block (a required rack assumes racks of >= 32 GPUs).
 * Mean 115.8 GPU-hours per job, 94 % of them pre-training; the default 3.5 jobs per hour
 * offers about 0.8 of a 512-GPU cluster (64x8). */

static double log_uniform(struct berth__rng *r, double lo, double hi)
{
    return exp(berth__rng_uniform(r, log(lo), log(hi)));
}

static void llm_draw(struct berth__rng *r, struct shape *s)
{
    static const int32_t ft_gpus[] = {1, 2, 4, 8};
    static const uint32_t ft_count[] = {35, 20, 20, 25};
    static const int32_t pt_gpus[] = {16, 32, 64, 128, 256};
    static const uint32_t pt_count[] = {30, 30, 20, 13, 7};
    s->queue = -1;
    if (berth__rng_unit(r) < 0.9) {
        s->type = "llm-finetune";
        s->num_gpus = ft_gpus[pick_count(r, ft_count, 4)];
        s->duration_s = log_uniform(r, 600.0, 8 * 3600.0);
        return;
    }
    s->type = "llm-pretrain";
    s->num_gpus = pt_gpus[pick_count(r, pt_count, 5)];
    s->duration_s = log_uniform(r, 4 * 3600.0, 48 * 3600.0);
    s->tp = 8;
    double u = berth__rng_unit(r);
    if (s->num_gpus <= 32 && u < 0.5)
        s->req = BERTH_TOPO_RACK + 1;
    else
        s->pref = (s->num_gpus <= 64 ? BERTH_TOPO_RACK : BERTH_TOPO_BLOCK) + 1;
}

/* ---- the profile table and the generator ------------------------------------------------ */

struct profile {
    const char *name;
    double default_rate; /* jobs per hour */
    void (*draw)(struct berth__rng *, struct shape *);
    const char *const *queues;
    size_t nqueues;
    const char *rate_type; /* job types from the built-in catalog, steps at this GPU type */
};

/* Draws s's job type uniformly from the model's classes measured at s's gang size on the
 * rate type (Gavel gives multi-GPU jobs only distributed types; at most 64 tries, then no
 * type), and its steps. 0, or -1 when
 * the run time is too long to count in steps. */
static int draw_type(struct berth__rng *r, const struct typing *ty, const struct shape *s,
                     const char **type, int64_t *steps)
{
    size_t n = berth_tput_class_count(ty->m);
    for (int tries = 0; tries < 64; tries++) {
        size_t k = (size_t)(berth__rng_unit(r) * (double)n);
        const char *cls = berth_tput_class_name(ty->m, k < n ? k : n - 1);
        double rate = 0;
        if (berth__tput_catalog_floor(cls, ty->rate_type, 0, s->num_gpus, &rate) == s->num_gpus &&
            rate > 0) {
            double st = ceil(s->duration_s * rate);
            if (!(st < 9e18))
                return -1;
            *type = cls;
            *steps = (int64_t)st;
            return 0;
        }
    }
    return 0;
}

static const struct profile profiles[] = {
    {"gavel", 3.0, gavel_draw, NULL, 0, "v100"},
    /* the real trace's average: 82,247 jobs over its 9,408,690 s span (31.47 per hour) */
    {"philly", 82247.0 * 3600.0 / 9408690.0, philly_draw, philly_vc, PHILLY_NVC, NULL},
    {"llm", 3.5, llm_draw, NULL, 0, NULL},
};

static const char *const profile_names[] = {"gavel", "philly", "llm", NULL};

const char *const *berth_gen_profiles(void)
{
    return profile_names;
}

void berth_gen_opts_init(struct berth_gen_opts *o)
{
    o->profile = "philly";
    o->jobs = 1000;
    o->rate_per_hour = 0;
    o->seed = 1;
    o->elastic_max = 0;
}

/* "a, b or c" from the profile names. */
static const char *profile_list(char *buf, size_t len)
{
    size_t o = 0, n = sizeof profiles / sizeof *profiles;
    buf[0] = '\0';
    for (size_t i = 0; i < n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s",
                              i == 0       ? ""
                              : i + 1 == n ? " or "
                                           : ", ",
                              profiles[i].name);
    return buf;
}

static int check_opts(const struct berth_gen_opts *o, const struct profile **p,
                      struct berth_err *err)
{
    char names[128];
    if (!o->profile)
        return berth_err_set(err, BERTH_EINPUT,
                             "--profile: expected a profile name (%s), found none",
                             profile_list(names, sizeof names));
    *p = NULL;
    for (size_t i = 0; i < sizeof profiles / sizeof *profiles; i++)
        if (!strcmp(o->profile, profiles[i].name))
            *p = &profiles[i];
    if (!*p)
        return berth_err_set(err, BERTH_EINPUT, "--profile: unknown profile '%.100s' (expected %s)",
                             o->profile, profile_list(names, sizeof names));
    if (o->jobs < 1 || o->jobs > GEN_MAX_JOBS)
        return berth_err_set(err, BERTH_EINPUT, "--jobs: expected 1 to %zu jobs, found %zu",
                             GEN_MAX_JOBS, o->jobs);
    if (!isfinite(o->rate_per_hour))
        return berth_err_set(err, BERTH_EINPUT,
                             "--rate: expected a finite number of jobs per hour (> 0, or 0 for "
                             "the profile's default), found %g",
                             o->rate_per_hour);
    if (o->elastic_max < 0 || o->elastic_max > GEN_MAX_ELASTIC)
        return berth_err_set(err, BERTH_EINPUT,
                             "--elastic: expected a largest gang of 1 to %d GPUs (0 = inelastic), "
                             "found %d",
                             GEN_MAX_ELASTIC, (int)o->elastic_max);
    return 0;
}

static berth_us whole_seconds_us(double s)
{
    return (berth_us)floor(s + 0.5) * BERTH_US_PER_S;
}

int berth_gen(const struct berth_gen_opts *o, struct berth_trace **out, struct berth_err *err)
{
    const struct profile *p = NULL;
    *out = NULL;
    int rc = check_opts(o, &p, err);
    if (rc)
        return rc;
    double rate = o->rate_per_hour > 0 ? o->rate_per_hour : p->default_rate;
    double rate_per_s = rate / 3600.0;

    struct typing typing = {NULL, p->rate_type};
    struct berth_tput *model = NULL;
    if (p->rate_type && (rc = berth_tput_builtin(&model, err)))
        return rc;
    typing.m = model;
    struct berth_trace *t = berth__trace_new("<generated>");
    if (!t) {
        berth_tput_free(model);
        return berth_err_set(err, BERTH_ENOMEM, "gen: out of memory");
    }
    /* Every job points at the one arena copy of its queue name. */
    const char *queue[GEN_MAX_QUEUES];
    for (size_t k = 0; k < p->nqueues; k++)
        if (!(queue[k] = berth__trace_str(t, p->queues[k], strlen(p->queues[k]))))
            goto nomem;
    if (BERTH_GROW(t->jobs, t->cap, o->jobs))
        goto nomem;

    struct berth__rng rng;
    berth__rng_seed(&rng, o->seed);
    /* The first job arrives at time 0 (the trace's origin, as loaders make it for real
     * traces); each later one an exponential gap after the previous. Arrival times are kept
     * exact and rounded one by one, so rounding never accumulates. */
    double now = 0;
    for (size_t i = 0; i < o->jobs; i++) {
        if (i > 0)
            now += berth__rng_exp(&rng, rate_per_s);
        if (!(now < GEN_MAX_SECONDS)) {
            berth_trace_free(t);
            berth_tput_free(model);
            return berth_err_set(err, BERTH_EINPUT,
                                 "--rate: expected a rate high enough for %zu jobs to arrive "
                                 "within 10^12 s, found %g jobs per hour (job %zu would arrive "
                                 "at %.3g s)",
                                 o->jobs, rate, i + 1, now);
        }
        struct shape s = {0};
        p->draw(&rng, &s);
        const char *type = NULL;
        int64_t steps = 0;
        if (typing.m && draw_type(&rng, &typing, &s, &type, &steps))
            goto nomem;

        struct berth_jobdesc js;
        berth__jobspec_defaults(&js);
        char id[24];
        size_t n = berth__fmt_u64(id, i + 1);
        if (!(js.spec.id = berth__trace_str(t, id, n)))
            goto nomem;
        js.spec.arrival_us = whole_seconds_us(now);
        js.spec.duration_us = whole_seconds_us(s.duration_s);
        if (js.spec.duration_us < BERTH_US_PER_S)
            js.spec.duration_us = BERTH_US_PER_S;
        js.spec.num_gpus = js.spec.min_gpus = js.spec.max_gpus = s.num_gpus;
        if (o->elastic_max > 0) {            /* elastic: any gang from 1 to the largest asked */
            int32_t g = s.tp > 1 ? s.tp : 1; /* in whole TP groups */
            js.spec.min_gpus = g;
            js.spec.max_gpus = o->elastic_max > s.num_gpus ? o->elastic_max / g * g : s.num_gpus;
        }
        if (s.type && !(js.x.job_type = berth__trace_intern(t, s.type, strlen(s.type))))
            goto nomem;
        js.x.tp = s.tp;
        js.x.topo_required = s.req;
        js.x.topo_preferred = s.pref;
        if (s.queue >= 0)
            js.spec.queue = queue[s.queue];
        if (type) {
            if (!(js.x.job_type = berth__trace_str(t, type, strlen(type))))
                goto nomem;
            js.spec.total_steps = steps;
        }
        js.spec.line = (uint32_t)(i + 2); /* line 1 is the CSV header */
        if (berth__trace_push(t, &js))
            goto nomem;
    }
    *out = t;
    berth_tput_free(model);
    return 0;
nomem:
    berth_trace_free(t);
    berth_tput_free(model);
    return berth_err_set(err, BERTH_ENOMEM, "gen: out of memory for %zu jobs", o->jobs);
}
