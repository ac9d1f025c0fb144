/* Trace statistics and slices (include/berth/trace_tools.h), for `berth trace stats` and
 * `berth trace slice`. Sums and orderings work on integer microseconds (128-bit where a
 * product could overflow), so the figures are exact up to the final division and the same on
 * every run. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "berth/trace_tools.h"
#include "io/json_load.h"
#include "io/trace_int.h"
#include "util/hash.h"
#include "util/num.h"
#include "util/rng.h"

__extension__ typedef __int128 i128;

/* GPU time is kept in microseconds x 1/1000 GPU: 3.6e12 of them make one GPU-hour. */
#define GPU_HOUR_UNITS 3.6e12

/* ---- percentiles ------------------------------------------------------------------------ */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_i128(const void *a, const void *b)
{
    i128 x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return (x > y) - (x < y);
}

/* numpy's default percentile of sorted a[0..n) for pct in [0, 100]: rank pct/100 x (n - 1),
 * interpolated linearly. The rank is split exactly (integer part and hundredths). */
static void rank(size_t n, int pct, size_t *lo, size_t *hi, double *frac)
{
    uint64_t num = (uint64_t)pct * (uint64_t)(n - 1);
    *lo = (size_t)(num / 100);
    *hi = *lo + 1 < n ? *lo + 1 : *lo;
    *frac = (double)(num % 100) / 100.0;
}

static double pct_i64(const int64_t *a, size_t n, int pct)
{
    if (!n)
        return 0;
    size_t lo, hi;
    double f;
    rank(n, pct, &lo, &hi, &f);
    return (double)a[lo] + (double)(a[hi] - a[lo]) * f;
}

static double pct_i128(const i128 *a, size_t n, int pct)
{
    if (!n)
        return 0;
    size_t lo, hi;
    double f;
    rank(n, pct, &lo, &hi, &f);
    return (double)a[lo] + (double)(a[hi] - a[lo]) * f;
}

/* ---- counting names --------------------------------------------------------------------- */

struct slot {
    const char *name; /* NULL = empty slot */
    size_t jobs;
};

struct name_count {
    struct slot *slots;
    size_t cap, n;
};

static int nc_add(struct name_count *c, const char *name)
{
    if ((c->n + 1) * 2 > c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        struct slot *s = calloc(cap, sizeof *s);
        if (!s)
            return BERTH_ENOMEM;
        for (size_t i = 0; i < c->cap; i++)
            if (c->slots[i].name) {
                size_t h = (size_t)berth__hash_str(c->slots[i].name) & (cap - 1);
                while (s[h].name)
                    h = (h + 1) & (cap - 1);
                s[h] = c->slots[i];
            }
        free(c->slots);
        c->slots = s;
        c->cap = cap;
    }
    size_t h = (size_t)berth__hash_str(name) & (c->cap - 1);
    for (; c->slots[h].name; h = (h + 1) & (c->cap - 1))
        if (!strcmp(c->slots[h].name, name)) {
            c->slots[h].jobs++;
            return 0;
        }
    c->slots[h].name = name;
    c->slots[h].jobs = 1;
    c->n++;
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    const struct berth_trace_stats_name *x = a, *y = b;
    if (x->jobs != y->jobs)
        return x->jobs > y->jobs ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The counted names, copied (one allocation each) and sorted by count, then name. */
static int nc_finish(struct name_count *c, struct berth_trace_stats_name **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (!c->n)
        return 0;
    struct berth_trace_stats_name *v = calloc(c->n, sizeof *v);
    if (!v)
        return BERTH_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < c->cap; i++)
        if (c->slots[i].name) {
            char *s = strdup(c->slots[i].name);
            if (!s) {
                for (size_t j = 0; j < k; j++)
                    free((char *)v[j].name);
                free(v);
                return BERTH_ENOMEM;
            }
            v[k].name = s;
            v[k++].jobs = c->slots[i].jobs;
        }
    qsort(v, k, sizeof *v, cmp_name);
    *out = v;
    *nout = k;
    return 0;
}

static void free_names(struct berth_trace_stats_name *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free((char *)v[i].name);
    free(v);
}

/* ---- statistics ------------------------------------------------------------------------- */

static int cmp_bin(const void *a, const void *b)
{
    const struct berth_trace_stats_bin *x = a, *y = b;
    return (x->gpus > y->gpus) - (x->gpus < y->gpus);
}

static int add_gang(struct berth_trace_stats *s, size_t *cap, int32_t gpus)
{
    for (size_t i = 0; i < s->ngangs; i++)
        if (s->gangs[i].gpus == gpus) {
            s->gangs[i].jobs++;
            return 0;
        }
    if (BERTH_GROW(s->gangs, *cap, s->ngangs + 1))
        return BERTH_ENOMEM;
    s->gangs[s->ngangs].gpus = gpus;
    s->gangs[s->ngangs++].jobs = 1;
    return 0;
}

int berth_trace_stats(const struct berth_trace *t, struct berth_trace_stats *out,
                      struct berth_err *err)
{
    struct berth_trace_stats s;
    memset(&s, 0, sizeof s);
    memset(out, 0, sizeof *out);
    size_t n = t->n, gang_cap = 0, nfrac = 0;
    s.jobs = n;
    int64_t *dur = malloc((n ? n : 1) * sizeof *dur);
    int64_t *share = malloc((n ? n : 1) * sizeof *share);
    i128 *gpu_time = malloc((n ? n : 1) * sizeof *gpu_time);
    struct name_count queues = {0}, users = {0}, statuses = {0};
    int rc = dur && share && gpu_time ? 0 : BERTH_ENOMEM;
    i128 dur_sum = 0, gpu_sum = 0;
    s.first_arrival_us = n ? INT64_MAX : 0;
    s.last_arrival_us = n ? INT64_MIN : 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const struct berth_jobspec *j = &t->jobs[i];
        int32_t g = j->num_gpus > 0 ? j->num_gpus : 0;
        int32_t sh = j->gpu_share_milli > 0 ? j->gpu_share_milli : 0;
        if (g > 1)
            s.multi_gpu_jobs++;
        if (sh < 1000)
            share[nfrac++] = sh;
        rc = add_gang(&s, &gang_cap, j->num_gpus);
        dur[i] = j->duration_us;
        dur_sum += j->duration_us;
        gpu_time[i] = (i128)j->duration_us * g * sh;
        gpu_sum += gpu_time[i];
        if (j->arrival_us < s.first_arrival_us)
            s.first_arrival_us = j->arrival_us;
        if (j->arrival_us > s.last_arrival_us)
            s.last_arrival_us = j->arrival_us;
        if (!rc) {
            if (j->queue[0])
                rc = nc_add(&queues, j->queue);
            else
                s.jobs_without_queue++;
        }
        if (!rc) {
            if (berth_jobspec_extra(j)->user[0])
                rc = nc_add(&users, berth_jobspec_extra(j)->user);
            else
                s.jobs_without_user++;
        }
        if (!rc) {
            if (berth_jobspec_extra(j)->status[0])
                rc = nc_add(&statuses, berth_jobspec_extra(j)->status);
            else
                s.jobs_without_status++;
        }
    }
    if (!rc) {
        if (s.ngangs)
            qsort(s.gangs, s.ngangs, sizeof *s.gangs, cmp_bin);
        qsort(dur, n, sizeof *dur, cmp_i64);
        qsort(share, nfrac, sizeof *share, cmp_i64);
        qsort(gpu_time, n, sizeof *gpu_time, cmp_i128);
        s.multi_gpu_fraction = n ? (double)s.multi_gpu_jobs / (double)n : 0;
        s.fractional_jobs = nfrac;
        s.fractional_median_share = pct_i64(share, nfrac, 50) / 1000.0;
        s.fractional_p90_share = pct_i64(share, nfrac, 90) / 1000.0;
        s.fractional_min_share = nfrac ? (double)share[0] / 1000.0 : 0;
        s.fractional_max_share = nfrac ? (double)share[nfrac - 1] / 1000.0 : 0;
        s.duration_min_us = n ? dur[0] : 0;
        s.duration_max_us = n ? dur[n - 1] : 0;
        s.duration_median_s = pct_i64(dur, n, 50) / 1e6;
        s.duration_p90_s = pct_i64(dur, n, 90) / 1e6;
        s.duration_p99_s = pct_i64(dur, n, 99) / 1e6;
        s.duration_mean_s = n ? (double)dur_sum / (double)n / 1e6 : 0;
        s.gpu_hours_total = (double)gpu_sum / GPU_HOUR_UNITS;
        s.gpu_hours_median = pct_i128(gpu_time, n, 50) / GPU_HOUR_UNITS;
        s.gpu_hours_p99 = pct_i128(gpu_time, n, 99) / GPU_HOUR_UNITS;
        s.span_us = s.last_arrival_us - s.first_arrival_us;
        s.span_days = (double)s.span_us / 1e6 / 86400.0;
        rc = nc_finish(&queues, &s.queues, &s.nqueues);
        if (!rc)
            rc = nc_finish(&users, &s.users, &s.nusers);
        if (!rc)
            rc = nc_finish(&statuses, &s.statuses, &s.nstatuses);
    }
    free(dur);
    free(share);
    free(gpu_time);
    free(queues.slots);
    free(users.slots);
    free(statuses.slots);
    if (rc) {
        berth_trace_stats_free(&s);
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", t->path);
    }
    *out = s;
    return 0;
}

void berth_trace_stats_free(struct berth_trace_stats *s)
{
    if (!s)
        return;
    free(s->gangs);
    free_names(s->queues, s->nqueues);
    free_names(s->users, s->nusers);
    free_names(s->statuses, s->nstatuses);
    memset(s, 0, sizeof *s);
}

/* ---- rendering -------------------------------------------------------------------------- */

/* NULL when out of memory (a set or an append that fails means a value could not be made). */
static json_t *names_json(const struct berth_trace_stats_name *v, size_t n)
{
    json_t *a = json_array();
    int bad = !a;
    for (size_t i = 0; i < n && !bad; i++) {
        json_t *o = json_object();
        bad |= json_object_set_new(o, "name", json_string(v[i].name));
        bad |= json_object_set_new(o, "jobs", json_integer((json_int_t)v[i].jobs));
        bad |= json_array_append_new(a, o);
    }
    if (bad) {
        json_decref(a);
        return NULL;
    }
    return a;
}

char *berth_trace_stats_json(const struct berth_trace_stats *s, const char *path, int pretty)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    int bad = 0; /* a failed set: a value (or the set) ran out of memory */
    if (path)
        bad |= json_object_set_new(o, "path", json_string(path));
    bad |= json_object_set_new(o, "jobs", json_integer((json_int_t)s->jobs));
    json_t *g = json_array();
    for (size_t i = 0; i < s->ngangs; i++) {
        json_t *b = json_object();
        bad |= json_object_set_new(b, "gpus", json_integer(s->gangs[i].gpus));
        bad |= json_object_set_new(b, "jobs", json_integer((json_int_t)s->gangs[i].jobs));
        bad |= json_array_append_new(g, b);
    }
    bad |= json_object_set_new(o, "gpus_per_job", g);
    bad |= json_object_set_new(o, "multi_gpu_jobs", json_integer((json_int_t)s->multi_gpu_jobs));
    bad |= json_object_set_new(o, "multi_gpu_fraction", json_real(s->multi_gpu_fraction));
    bad |= json_object_set_new(o, "fractional_jobs", json_integer((json_int_t)s->fractional_jobs));
    bad |= json_object_set_new(o, "fractional_median_share",
                               s->fractional_jobs ? json_real(s->fractional_median_share)
                                                  : json_null());
    json_t *d = json_object();
    bad |= json_object_set_new(d, "min", json_real((double)s->duration_min_us / 1e6));
    bad |= json_object_set_new(d, "median", json_real(s->duration_median_s));
    bad |= json_object_set_new(d, "p90", json_real(s->duration_p90_s));
    bad |= json_object_set_new(d, "p99", json_real(s->duration_p99_s));
    bad |= json_object_set_new(d, "max", json_real((double)s->duration_max_us / 1e6));
    bad |= json_object_set_new(d, "mean", json_real(s->duration_mean_s));
    bad |= json_object_set_new(o, "duration_s", d);
    json_t *h = json_object();
    bad |= json_object_set_new(h, "median", json_real(s->gpu_hours_median));
    bad |= json_object_set_new(h, "p99", json_real(s->gpu_hours_p99));
    bad |= json_object_set_new(h, "total", json_real(s->gpu_hours_total));
    bad |= json_object_set_new(o, "gpu_hours", h);
    json_t *a = json_object();
    bad |= json_object_set_new(a, "first", json_real((double)s->first_arrival_us / 1e6));
    bad |= json_object_set_new(a, "last", json_real((double)s->last_arrival_us / 1e6));
    bad |= json_object_set_new(a, "span", json_real((double)s->span_us / 1e6));
    bad |= json_object_set_new(o, "arrival_s", a);
    bad |= json_object_set_new(o, "span_days", json_real(s->span_days));
    bad |= json_object_set_new(o, "queues", names_json(s->queues, s->nqueues));
    bad |= json_object_set_new(o, "jobs_without_queue",
                               json_integer((json_int_t)s->jobs_without_queue));
    bad |= json_object_set_new(o, "users", names_json(s->users, s->nusers));
    bad |= json_object_set_new(o, "statuses", names_json(s->statuses, s->nstatuses));
    bad |=
        json_object_set_new(o, "fractional_p90_share",
                            s->fractional_jobs ? json_real(s->fractional_p90_share) : json_null());
    bad |= json_object_set_new(
        o, "fractional_share_range",
        s->fractional_jobs ? json_pack("[ff]", s->fractional_min_share, s->fractional_max_share)
                           : json_null());
    bad |=
        json_object_set_new(o, "jobs_without_user", json_integer((json_int_t)s->jobs_without_user));
    char *txt = bad ? NULL
                    : berth__json_dumps(o, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12) |
                                               (pretty ? JSON_INDENT(2) : JSON_COMPACT));
    json_decref(o);
    return txt;
}

/* v with the given decimals and thousands separators: 1234567.8 -> "1,234,568" (0). */
static const char *grouped(char *buf, size_t len, double v, int decimals)
{
    char raw[64];
    snprintf(raw, sizeof raw, "%.*f", decimals, v);
    if (raw[0] == '-' && strspn(raw + 1, "0.") == strlen(raw + 1))
        memmove(raw, raw + 1, strlen(raw)); /* -0.00 -> 0.00 */
    const char *p = raw;
    size_t o = 0;
    if (*p == '-')
        buf[o++] = *p++;
    size_t int_len = strcspn(p, ".");
    for (size_t i = 0; i < int_len && o + 2 < len; i++) {
        if (i && (int_len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = p[i];
    }
    for (p += int_len; *p && o + 1 < len; p++)
        buf[o++] = *p;
    buf[o] = '\0';
    return buf;
}

/* A figure for people: integers from 100 up, then 1 decimal, then 2, and 2 significant
 * digits below 1; trailing zeros trimmed ("11,265", "12.5", "1", "0.33", "0.00069"). */
static const char *fig(char *buf, size_t len, double v)
{
    double a = fabs(v);
    int decimals = a >= 99.5 ? 0 : a >= 9.995 ? 1 : 2;
    if (a > 0 && a < 0.995) {
        decimals = 1 - (int)floor(log10(a));
        decimals = decimals < 2 ? 2 : decimals > 9 ? 9 : decimals;
    }
    grouped(buf, len, v, decimals);
    if (strchr(buf, '.')) {
        size_t n = strlen(buf);
        while (buf[n - 1] == '0')
            buf[--n] = '\0';
        if (buf[n - 1] == '.')
            buf[--n] = '\0';
    }
    return buf;
}

static const char *count(char *buf, size_t len, size_t v)
{
    return grouped(buf, len, (double)v, 0);
}

static void print_names(FILE *f, const char *what, const struct berth_trace_stats_name *v, size_t n,
                        size_t without, size_t max_names)
{
    char b[48];
    if (!n) {
        fprintf(f, "  %-15s none given\n", what);
        return;
    }
    size_t show = max_names && max_names < n ? max_names : n;
    size_t width = 4;
    for (size_t i = 0; i < show; i++)
        if (strlen(v[i].name) > width)
            width = strlen(v[i].name) > 40 ? 40 : strlen(v[i].name);
    fprintf(f, "  %-15s %zu\n", what, n);
    for (size_t i = 0; i < show; i++)
        fprintf(f, "    %-*s %10s\n", (int)width, v[i].name, count(b, sizeof b, v[i].jobs));
    if (show < n)
        fprintf(f, "    ... and %zu more (--json lists all)\n", n - show);
    if (without)
        fprintf(f, "    %-*s %10s\n", (int)width, "(none)", count(b, sizeof b, without));
}

int berth_trace_stats_print(FILE *f, const struct berth_trace_stats *s, const char *path,
                            size_t max_names)
{
    char b[6][48];
    fprintf(f, "berth trace stats: %s\n\n", path ? path : "");
    fprintf(f, "  %-15s %s\n", "jobs", count(b[0], sizeof b[0], s->jobs));
    fprintf(f, "  %-15s ", "GPUs per job");
    for (size_t i = 0; i < s->ngangs; i++)
        fprintf(f, "%s%d: %s", i ? " \xC2\xB7 " : "", s->gangs[i].gpus,
                count(b[0], sizeof b[0], s->gangs[i].jobs));
    fprintf(f, "%s(%.2f %% multi-GPU)\n", s->ngangs ? " " : "", 100 * s->multi_gpu_fraction);
    if (s->fractional_jobs)
        fprintf(f, "  %-15s %s jobs, share of a GPU median %s, p90 %s, range %s-%s\n",
                "fractional GPU", count(b[0], sizeof b[0], s->fractional_jobs),
                fig(b[1], sizeof b[1], s->fractional_median_share),
                fig(b[2], sizeof b[2], s->fractional_p90_share),
                fig(b[3], sizeof b[3], s->fractional_min_share),
                fig(b[4], sizeof b[4], s->fractional_max_share));
    else
        fprintf(f, "  %-15s none\n", "fractional GPU");
    fprintf(f, "  %-15s min %s, median %s, p90 %s, p99 %s, max %s, mean %s\n", "duration (s)",
            fig(b[0], sizeof b[0], (double)s->duration_min_us / 1e6),
            fig(b[1], sizeof b[1], s->duration_median_s), fig(b[2], sizeof b[2], s->duration_p90_s),
            fig(b[3], sizeof b[3], s->duration_p99_s),
            fig(b[4], sizeof b[4], (double)s->duration_max_us / 1e6),
            fig(b[5], sizeof b[5], s->duration_mean_s));
    fprintf(f, "  %-15s median %s GPU-h, p99 %s, total %s GPU-h\n", "GPU time",
            fig(b[0], sizeof b[0], s->gpu_hours_median), fig(b[1], sizeof b[1], s->gpu_hours_p99),
            fig(b[2], sizeof b[2], s->gpu_hours_total));
    fprintf(f, "  %-15s first %s, last %s, span %s (%s d)\n", "arrivals (s)",
            fig(b[0], sizeof b[0], (double)s->first_arrival_us / 1e6),
            fig(b[1], sizeof b[1], (double)s->last_arrival_us / 1e6),
            fig(b[2], sizeof b[2], (double)s->span_us / 1e6),
            grouped(b[3], sizeof b[3], s->span_days, 1));
    print_names(f, "queues", s->queues, s->nqueues, s->jobs_without_queue, max_names);
    print_names(f, "users", s->users, s->nusers, s->jobs_without_user, max_names);
    if (s->nstatuses)
        print_names(f, "statuses", s->statuses, s->nstatuses, s->jobs_without_status, max_names);
    return ferror(f) ? -1 : 0;
}

/* ---- slices ----------------------------------------------------------------------------- */

void berth_slice_opts_init(struct berth_slice_opts *o)
{
    memset(o, 0, sizeof *o);
    o->from_us = o->to_us = BERTH_TIME_NONE;
    o->seed = 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A sorted copy of names[0..n) to search with bsearch. */
static const char **sorted_names(const char *const *names, size_t n)
{
    const char **v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++)
        v[i] = names[i] ? names[i] : "";
    if (n)
        qsort(v, n, sizeof *v, cmp_str);
    return v;
}

static int in_names(const char **v, size_t n, const char *s)
{
    return !n || bsearch(&s, v, n, sizeof *v, cmp_str) != NULL;
}

static int copy_job(struct berth_trace *dst, const struct berth_jobspec *j)
{
    struct berth_jobdesc c;
    berth__jobdesc_of(j, &c);
    const char **f[] = {&c.spec.id, &c.x.job_type, &c.x.user, &c.spec.queue, &c.x.gpu_type};
    for (size_t k = 0; k < sizeof f / sizeof *f; k++)
        if (!(*f[k] = berth__trace_str(dst, *f[k], strlen(*f[k]))))
            return BERTH_ENOMEM;
    return berth__trace_push(dst, &c);
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* want jobs drawn with replacement from the kept ones, in file order; the k-th copy of a job
 * (k >= 2) is named ID#k. */
static int bootstrap(const struct berth_trace *t, struct berth_trace *s, const unsigned char *keep,
                     size_t matched, size_t want, struct berth__rng *rng, berth_us *base,
                     size_t *kept)
{
    size_t *cand = malloc((matched ? matched : 1) * sizeof *cand);
    size_t *draw = malloc((want ? want : 1) * sizeof *draw);
    int rc = cand && draw ? 0 : BERTH_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; !rc && i < t->n; i++)
        if (keep[i])
            cand[m++] = i;
    for (size_t k = 0; !rc && k < want; k++)
        draw[k] = cand[berth__rng_below(rng, m)];
    if (!rc)
        qsort(draw, want, sizeof *draw, cmp_size);
    for (size_t k = 0, copy = 1; !rc && k < want; k++) {
        copy = k && draw[k] == draw[k - 1] ? copy + 1 : 1;
        struct berth_jobspec j = t->jobs[draw[k]];
        char id[BERTH_MAX_TEXT + 32];
        if (copy > 1) {
            snprintf(id, sizeof id, "%s#%zu", j.id, copy);
            j.id = id;
        }
        if ((rc = copy_job(s, &j)))
            break;
        if (j.arrival_us < *base)
            *base = j.arrival_us;
        (*kept)++;
    }
    free(cand);
    free(draw);
    return rc;
}

int berth_trace_slice(const struct berth_trace *t, const struct berth_slice_opts *o,
                      struct berth_trace **out, struct berth_err *err)
{
    if (o->fraction && o->count)
        return berth_err_set(err, BERTH_EINPUT,
                             "--sample and --count: expected one of them, found both");
    if (o->fraction && !(o->fraction > 0 && o->fraction <= 1))
        return berth_err_set(err, BERTH_EINPUT, "--sample: expected a fraction in (0, 1], found %g",
                             o->fraction);
    if (o->from_us != BERTH_TIME_NONE && o->to_us != BERTH_TIME_NONE && o->to_us <= o->from_us) {
        char a[32], b[32];
        return berth_err_set(err, BERTH_EINPUT,
                             "--to: expected a time after --from (%s s), found %s s",
                             berth__fmt_us(a, o->from_us), berth__fmt_us(b, o->to_us));
    }
    const char **queues = sorted_names(o->queues, o->nqueues);
    const char **users = sorted_names(o->users, o->nusers);
    unsigned char *keep = malloc(t->n ? t->n : 1);
    struct berth_trace *s = berth__trace_new(t->path);
    int rc = queues && users && keep && s ? 0 : BERTH_ENOMEM;
    size_t in_window = 0, in_queue = 0, matched = 0, kept = 0;
    for (size_t i = 0; i < t->n && !rc; i++) {
        const struct berth_jobspec *j = &t->jobs[i];
        keep[i] = 0;
        if ((o->from_us != BERTH_TIME_NONE && j->arrival_us < o->from_us) ||
            (o->to_us != BERTH_TIME_NONE && j->arrival_us >= o->to_us))
            continue;
        in_window++;
        if (!in_names(queues, o->nqueues, j->queue))
            continue;
        in_queue++;
        if (!in_names(users, o->nusers, berth_jobspec_extra(j)->user))
            continue;
        matched++;
        keep[i] = 1;
    }
    /* Selection sampling (Knuth's algorithm S): the i-th of m candidates is kept with
     * probability (still needed) / (still left), which keeps exactly k in file order. */
    size_t want = matched;
    if (o->count)
        want = o->count < matched ? o->count : matched;
    else if (o->fraction) {
        double k = floor(o->fraction * (double)matched + 0.5);
        want = k < 1 ? 1 : k > (double)matched ? matched : (size_t)k;
    }
    struct berth__rng rng;
    berth__rng_seed(&rng, o->seed);
    size_t left = matched, need = want;
    berth_us base = INT64_MAX;
    if (o->bootstrap && !rc) {
        rc = bootstrap(t, s, keep, matched, want, &rng, &base, &kept);
        need = 0;
    }
    for (size_t i = 0; i < t->n && !rc && need; i++) {
        if (!keep[i])
            continue;
        if (want < matched && berth__rng_below(&rng, left--) >= need)
            continue;
        need--;
        if ((rc = copy_job(s, &t->jobs[i])))
            break;
        if (t->jobs[i].arrival_us < base)
            base = t->jobs[i].arrival_us;
        kept++;
    }
    free(queues);
    free(users);
    free(keep);
    if (rc) {
        berth_trace_free(s);
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", t->path);
    }
    if (!kept) {
        berth_trace_free(s);
        char a[32], b[32], msg[256];
        int len = snprintf(msg, sizeof msg, "%zu jobs", t->n);
        if (o->from_us != BERTH_TIME_NONE || o->to_us != BERTH_TIME_NONE)
            len += snprintf(msg + len, sizeof msg - (size_t)len, ", %zu arriving in [%s, %s)",
                            in_window,
                            o->from_us == BERTH_TIME_NONE ? "start" : berth__fmt_us(a, o->from_us),
                            o->to_us == BERTH_TIME_NONE ? "end" : berth__fmt_us(b, o->to_us));
        if (o->nqueues)
            len += snprintf(msg + len, sizeof msg - (size_t)len, ", %zu%s in the queues asked for",
                            in_queue, len > 0 && in_window < t->n ? " of them" : "");
        if (o->nusers)
            snprintf(msg + len, sizeof msg - (size_t)len, ", %zu%s of the users asked for", matched,
                     in_queue < t->n ? " of them" : "");
        return berth_err_set(err, BERTH_EINPUT, "%s: the slice keeps no job (%s)", t->path, msg);
    }
    if (o->rebase)
        for (size_t i = 0; i < s->n; i++)
            s->jobs[i].arrival_us -= base;
    if (o->bootstrap && (rc = berth__trace_check_ids(s, NULL, err))) {
        berth_trace_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int berth_parse_seconds(const char *s, berth_us *out)
{
    int64_t v;
    if (!s || berth__parse_seconds_us(s, strlen(s), &v))
        return BERTH_EINPUT;
    *out = v;
    return 0;
}
