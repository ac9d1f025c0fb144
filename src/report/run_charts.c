/* The report's charts of one or more runs (berth/report.h): JCT and waiting-time CDFs on log
 * time axes, busy GPUs and pending jobs over time, utilisation per GPU type, JCT by gang
 * size, the rho histogram, Jain's index across jobs, users and queues, and preemptions over
 * time. Each chart reads only its runs; long series are reduced to at most a few hundred
 * points per run (CDFs at evenly spaced ranks, time series as time-weighted means per step),
 * so a report stays small whatever the trace's size. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "berth/report.h"
#include "report/chart.h"
#include "report/run.h"

#define CDF_POINTS 400
#define TIME_STEPS 360
#define MAX_RUNS   64

typedef int (*chart_fn)(struct berth__svg *s, struct berth_run *const *runs, size_t n);

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void labels_of(struct berth_run *const *runs, size_t n, const char **out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = runs[i]->label;
}

/* ---- CDFs ------------------------------------------------------------------------------ */

static int cdf_chart(struct berth__svg *s, struct berth_run *const *runs, size_t n, int waits)
{
    const char *labels[MAX_RUNS] = {0};
    labels_of(runs, n, labels);
    struct berth__chart c;
    berth__chart_open(&c, s, waits ? "wait-cdf" : "jct-cdf",
                      waits ? "Waiting time (CDF)" : "Job completion time (CDF)",
                      waits ? "jobs that started; a wait under 1 s is drawn at 1 s"
                            : "completed jobs; JCT = finish - arrival",
                      labels, n, 1);
    double lo = INFINITY, hi = 0;
    double **sorted = calloc(n + 1, sizeof *sorted);
    if (!sorted)
        return -1;
    int rc = 0;
    for (size_t r = 0; r < n && !rc; r++) {
        size_t m = waits ? runs[r]->nwait : runs[r]->ndone;
        const double *v = waits ? runs[r]->wait : runs[r]->jct;
        if (!(sorted[r] = malloc((m + 1) * sizeof **sorted))) {
            rc = -1;
            break;
        }
        memcpy(sorted[r], v, m * sizeof *v);
        qsort(sorted[r], m, sizeof *v, cmp_dbl);
        for (size_t i = 0; i < m; i++)
            if (sorted[r][i] > 0) {
                lo = fmin(lo, sorted[r][i]);
                break;
            }
        if (m)
            hi = fmax(hi, sorted[r][m - 1]);
    }
    if (!rc) {
        berth__axis_log_duration(&c.x, isinf(lo) ? 1 : lo, hi > 1 ? hi : 10);
        berth__axis_linear(&c.y, 0, 1, 5);
        berth__chart_axes(&c,
                          waits ? "time from arrival to first start (log scale)"
                                : "job completion time (log scale)",
                          "fraction of jobs (cumulative)");
        double xs[CDF_POINTS + 2], ys[CDF_POINTS + 2];
        int any = 0;
        for (size_t r = 0; r < n; r++) {
            size_t m = waits ? runs[r]->nwait : runs[r]->ndone, k = 0;
            if (!m)
                continue;
            any = 1;
            /* from the axis' left edge at the share of values at or below it */
            for (size_t q = 0; q <= CDF_POINTS; q++) {
                size_t i = (size_t)((double)q / CDF_POINTS * (double)(m - 1) + 0.5);
                xs[k] = sorted[r][i] < c.x.lo ? c.x.lo : sorted[r][i];
                ys[k++] = (double)(i + 1) / (double)m;
            }
            berth__chart_line(&c, xs, ys, k, (int)r);
        }
        if (!any)
            berth__chart_note(&c, waits ? "no job started" : "no job completed");
        berth__chart_close(&c);
    }
    for (size_t r = 0; r < n; r++)
        free(sorted[r]);
    free(sorted);
    return rc;
}

static int jct_cdf(struct berth__svg *s, struct berth_run *const *runs, size_t n)
{
    return cdf_chart(s, runs, n, 0);
}

static int wait_cdf(struct berth__svg *s, struct berth_run *const *runs, size_t n)
{
    return cdf_chart(s, runs, n, 1);
}

/* ---- time series ------------------------------------------------------------------------ */

/* The runs' common time span (s) and the unit to show it in. */
static double span_of(struct berth_run *const *runs, size_t n, double *unit, const char **name)
{
    double span = 0;
    for (size_t r = 0; r < n; r++)
        if (runs[r]->nseries)
            span = fmax(span, runs[r]->st[runs[r]->nseries - 1]);
    double mk = 0;
    for (size_t r = 0; r < n; r++) {
        double m = berth__run_num(runs[r], "makespan_s");
        if (m > mk)
            mk = m;
    }
    span = fmax(span, mk);
    if (span <= 3 * 3600) {
        *unit = 60;
        *name = "minutes";
    } else if (span <= 3 * 86400) {
        *unit = 3600;
        *name = "hours";
    } else {
        *unit = 86400;
        *name = "days";
    }
    return span > 0 ? span : 1;
}

/* Time-weighted means of the step function (t[i], v[i]) over steps of span/steps from 0: the
 * value v[i] holds from t[i] to t[i+1]; the last value until end. */
static void steps_mean(const double *t, const double *v, size_t n, double end, double span,
                       double *out, int steps)
{
    double w = span / steps;
    size_t i = 0;
    for (int b = 0; b < steps; b++) {
        double b0 = b * w, b1 = b0 + w, acc = 0, cov = 0;
        while (i + 1 < n && t[i + 1] <= b0)
            i++;
        for (size_t j = i; j < n && t[j] < b1; j++) {
            double s0 = fmax(t[j], b0);
            double s1 = fmin(j + 1 < n ? t[j + 1] : end, b1);
            if (s1 > s0) {
                acc += v[j] * (s1 - s0);
                cov += s1 - s0;
            }
        }
        out[b] = cov > 0 ? acc / cov : NAN;
    }
}

static int series_chart(struct berth__svg *s, struct berth_run *const *runs, size_t n, int pending)
{
    const char *labels[MAX_RUNS] = {0};
    labels_of(runs, n, labels);
    double unit;
    const char *uname;
    double span = span_of(runs, n, &unit, &uname);
    double gpus = 0, top = 0;
    for (size_t r = 0; r < n; r++)
        gpus = fmax(gpus, berth__run_gpus(runs[r]));
    char sub[160];
    if (pending)
        snprintf(sub, sizeof sub,
                 "jobs waiting for GPUs; time-weighted mean per step of 1/%d of the span",
                 TIME_STEPS);
    else if (gpus > 0)
        snprintf(sub, sizeof sub,
                 "time-weighted mean per step of 1/%d of the span; dashed: the cluster's %.0f "
                 "GPUs",
                 TIME_STEPS, gpus);
    else
        snprintf(sub, sizeof sub, "time-weighted mean per step of 1/%d of the span", TIME_STEPS);
    struct berth__chart c;
    berth__chart_open(&c, s, pending ? "pending-jobs" : "busy-gpus",
                      pending ? "Pending jobs over time" : "Busy GPUs over time", sub, labels, n,
                      1);
    double *ys = malloc(n * TIME_STEPS * sizeof *ys + 1), xs[TIME_STEPS];
    if (!ys)
        return -1;
    for (size_t r = 0; r < n; r++) {
        const struct berth_run *u = runs[r];
        double end = u->nseries ? fmax(u->st[u->nseries - 1], berth__run_num(u, "makespan_s")) : 0;
        steps_mean(u->st, pending ? u->pending : u->busy, u->nseries, end, span,
                   ys + r * TIME_STEPS, TIME_STEPS);
        for (int b = 0; b < TIME_STEPS; b++)
            if (!isnan(ys[r * TIME_STEPS + b]))
                top = fmax(top, ys[r * TIME_STEPS + b]);
    }
    for (int b = 0; b < TIME_STEPS; b++)
        xs[b] = (b + 0.5) * span / TIME_STEPS / unit;
    berth__axis_linear(&c.x, 0, span / unit, 8);
    berth__axis_linear(&c.y, 0, pending ? fmax(top, 1) : fmax(top, gpus), 6);
    char xl[64];
    snprintf(xl, sizeof xl, "time since the first event (%s)", uname);
    berth__chart_axes(&c, xl, pending ? "pending jobs" : "busy GPUs");
    if (!pending && gpus > 0)
        berth__chart_hmark(&c, gpus, "all GPUs");
    int any = 0;
    for (size_t r = 0; r < n; r++)
        if (runs[r]->nseries) {
            berth__chart_line(&c, xs, ys + r * TIME_STEPS, TIME_STEPS, (int)r);
            any = 1;
        }
    if (!any)
        berth__chart_note(&c, "no time series in these runs");
    berth__chart_close(&c);
    free(ys);
    return 0;
}

static int busy_gpus(struct berth__svg *s, struct berth_run *const *runs, size_t n)
{
    return series_chart(s, runs, n, 0);
}

static int pending_jobs(struct berth__svg *s, struct berth_run *const *runs, size_t n)
{
    return series_chart(s, runs, n, 1);
}

static int preemptions(struct berth__svg *s, struct berth_run *const *runs, size_t n)
{
    const char *labels[MAX_RUNS] = {0};
    labels_of(runs, n, labels);
    double unit;
    const char *uname;
    double span = span_of(runs, n, &unit, &uname);
    enum { BINS = 120 };
    const char *per = unit == 86400 ? "day" : unit == 3600 ? "hour" : "minute";
    char sub[160];
    snprintf(sub, sizeof sub, "preemptions, migrations and resizes per %s, in %d steps of the span",
             per, BINS);
    struct berth__chart c;
    berth__chart_open(&c, s, "preemptions", "Preemptions over time", sub, labels, n, 1);
    double *ys = calloc(n * BINS + 1, sizeof *ys), xs[BINS], top = 0, total = 0;
    if (!ys)
        return -1;
    double w = span / BINS;
    int have = 0;
    for (size_t r = 0; r < n; r++) {
        have |= runs[r]->has_events;
        for (size_t i = 0; i < runs[r]->nevents; i++) {
            int b = (int)(runs[r]->et[i] / w);
            b = b < 0 ? 0 : b >= BINS ? BINS - 1 : b;
            ys[r * BINS + (size_t)b] += runs[r]->epre[i];
            total += runs[r]->epre[i];
        }
    }
    for (size_t k = 0; k < n * BINS; k++) {
        ys[k] *= unit / w; /* a count per step as a rate per unit */
        top = fmax(top, ys[k]);
    }
    for (int b = 0; b < BINS; b++)
        xs[b] = (b + 0.5) * w / unit;
    berth__axis_linear(&c.x, 0, span / unit, 8);
    berth__axis_linear(&c.y, 0, fmax(top, 1), 6);
    char xl[64], yl[64];
    snprintf(xl, sizeof xl, "time since the first event (%s)", uname);
    snprintf(yl, sizeof yl, "preemptions per %s", per);
    berth__chart_axes(&c, xl, yl);
    if (!have)
        berth__chart_note(&c, "these folders have no events.csv (written by newer berth sim)");
    else if (total == 0)
        berth__chart_note(&c, "no preemption, migration or resize in these runs");
    else
        for (size_t r = 0; r < n; r++)
            berth__chart_line(&c, xs, ys + r * BINS, BINS, (int)r);
    berth__chart_close(&c);
    free(ys);
    return 0;
}

/* ---- per GPU type, per gang, rho, fairness ---------------------------------------------- */

#define MAX_CATS 32

static int util_by_type(struct berth__svg *s, struct berth_run *const *runs, size_t n)
{
    const char *labels[MAX_RUNS] = {0}, *types[MAX_CATS] = {0};
    labels_of(runs, n, labels);
    int nt = 0, have = 0;
    for (size_t r = 0; r < n; r++) {
        have |= runs[r]->has_groups;
        for (size_t g = 0; g < runs[r]->ngroups; g++) {
            if (runs[r]->groups[g].kind != 't')
                continue;
            int k = 0;
            while (k < nt && strcmp(types[k], runs[r]->groups[g].name))
                k++;
            if (k == nt && nt < MAX_CATS)
                types[nt++] = runs[r]->groups[g].name;
        }
    }
    struct berth__chart c;
    berth__chart_open(&c, s, "util-by-type", "GPU utilisation by GPU type",
                      "GPU-hours held by jobs over the type's GPU-hours in the makespan", labels, n,
                      0);
    if (!nt) {
        static const char *const none[] = {"-"};
        berth__axis_bands(&c.x, 1, none);
    } else {
        berth__axis_bands(&c.x, nt, types);
    }
    berth__axis_linear(&c.y, 0, 100, 6);
    berth__chart_axes(&c, "GPU type", "utilisation (%)");
    for (size_t r = 0; r < n; r++)
        for (size_t g = 0; g < runs[r]->ngroups; g++) {
            const struct berth__run_group *q = &runs[r]->groups[g];
            if (q->kind != 't')
                continue;
            for (int k = 0; k < nt; k++)
                if (!strcmp(types[k], q->name))
                    berth__chart_bar(&c, k, (int)r, (int)n, isnan(q->util) ? 0 : 100 * q->util);
        }
    if (!have)
        berth__chart_note(&c, "these folders have no groups.csv (written by newer berth sim)");
    berth__chart_close(&c);
    return 0;
}

/* gang classes: 0 CPU only, 1, 2, 3-4, 5-8, ... (class k >= 2 holds 2^(k-2)+1 .. 2^(k-1)),
 * the last 2049 and more */
#define NCLASS 14
static int gang_class(int32_t g)
{
    if (g <= 0)
        return 0;
    int k = 1;
    while (k < NCLASS - 1 && (1 << (k - 1)) < g)
        k++;
    return k;
}

static void class_label(int k, char *buf, size_t len)
{
    if (k == 0)
        snprintf(buf, len, "CPU only");
    else if (k <= 2)
        snprintf(buf, len, "%d", k);
    else if (k >= NCLASS - 1)
        snprintf(buf, len, "%d+", (1 << (NCLASS - 3)) + 1);
    else
        snprintf(buf, len, "%d-%d", (1 << (k - 2)) + 1, 1 << (k - 1));
}

static double sorted_q(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo + 1 >= n)
        return v[n - 1];
    return v[lo] + (v[lo + 1] - v[lo]) * (pos - (double)lo);
}

static int jct_by_gang(struct berth__svg *s, struct berth_run *const *runs, size_t n)
{
    const char *labels[MAX_RUNS] = {0};
    labels_of(runs, n, labels);
    int used[NCLASS] = {0};
    double lo = INFINITY, hi = 0;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < runs[r]->ndone; i++) {
            used[gang_class(runs[r]->gang[i])] = 1;
            if (runs[r]->jct[i] > 0)
                lo = fmin(lo, runs[r]->jct[i]);
            hi = fmax(hi, runs[r]->jct[i]);
        }
    char names[NCLASS][24];
    const char *cats[NCLASS];
    int map[NCLASS], nc = 0;
    for (int k = 0; k < NCLASS; k++) {
        map[k] = -1;
        if (used[k]) {
            class_label(k, names[nc], sizeof names[nc]);
            cats[nc] = names[nc];
            map[k] = nc++;
        }
    }
    struct berth__chart c;
    berth__chart_open(&c, s, "jct-by-gang", "Job completion time by gang size",
                      "median (dot) and interquartile range (whisker) of completed jobs", labels, n,
                      0);
    if (!nc) {
        static const char *const none[] = {"-"};
        berth__axis_bands(&c.x, 1, none);
    } else {
        berth__axis_bands(&c.x, nc, cats);
    }
    berth__axis_log_duration(&c.y, isinf(lo) ? 1 : lo, hi > 1 ? hi : 10);
    berth__chart_axes(&c, "GPUs per job", "job completion time (log scale)");
    double *buf = NULL;
    size_t cap = 0;
    for (size_t r = 0; r < n; r++) {
        if (runs[r]->ndone + 1 > cap) {
            free(buf);
            cap = runs[r]->ndone + 1;
            if (!(buf = malloc(cap * sizeof *buf)))
                return -1;
        }
        for (int k = 0; k < NCLASS; k++) {
            if (map[k] < 0)
                continue;
            size_t m = 0;
            for (size_t i = 0; i < runs[r]->ndone; i++)
                if (gang_class(runs[r]->gang[i]) == k)
                    buf[m++] = runs[r]->jct[i];
            if (!m)
                continue;
            qsort(buf, m, sizeof *buf, cmp_dbl);
            berth__chart_dot(&c, map[k], (int)r, (int)n, sorted_q(buf, m, 0.5),
                             sorted_q(buf, m, 0.25), sorted_q(buf, m, 0.75));
        }
    }
    free(buf);
    if (!nc)
        berth__chart_note(&c, "no job completed");
    berth__chart_close(&c);
    return 0;
}

static int rho_hist(struct berth__svg *s, struct berth_run *const *runs, size_t n)
{
    const char *labels[MAX_RUNS] = {0};
    labels_of(runs, n, labels);
    static const char *const bins[] = {"< 0.5", "0.5-1", "1-2", "2-4", "4-8", "8-16", "16+"};
    enum { NB = 7 };
    struct berth__chart c;
    berth__chart_open(&c, s, "rho-hist", "Finish-time fairness: distribution of ρ",
                      "ρ = JCT ÷ time alone on 1/N of the cluster (Themis); ρ ≤ 1: the job got "
                      "at least its fair share",
                      labels, n, 0);
    double share[MAX_RUNS][NB] = {{0}}, top = 0;
    for (size_t r = 0; r < n; r++) {
        size_t m = 0;
        for (size_t i = 0; i < runs[r]->ndone; i++) {
            double x = runs[r]->rho[i];
            if (!(x > 0))
                continue;
            int b = x < 0.5   ? 0
                    : x <= 1  ? 1
                    : x <= 2  ? 2
                    : x <= 4  ? 3
                    : x <= 8  ? 4
                    : x <= 16 ? 5
                              : 6;
            share[r][b]++;
            m++;
        }
        for (int b = 0; b < NB; b++) {
            share[r][b] = m ? 100 * share[r][b] / (double)m : 0;
            top = fmax(top, share[r][b]);
        }
    }
    berth__axis_bands(&c.x, NB, bins);
    berth__axis_linear(&c.y, 0, fmax(top, 10), 6);
    berth__chart_axes(&c, "ρ (JCT over the fair-share time)", "completed jobs (%)");
    for (size_t r = 0; r < n; r++)
        for (int b = 0; b < NB; b++)
            berth__chart_bar(&c, b, (int)r, (int)n, share[r][b]);
    berth__chart_close(&c);
    return 0;
}

/* Jain's index of the groups' mean rho (groups with completed jobs); NaN with fewer than 2 */
static double jain(const struct berth_run *r, char kind)
{
    double sum = 0, sq = 0;
    int m = 0;
    for (size_t g = 0; g < r->ngroups; g++) {
        const struct berth__run_group *q = &r->groups[g];
        if (q->kind != kind || !(q->completed > 0) || !(q->rho_avg > 0))
            continue;
        sum += q->rho_avg;
        sq += q->rho_avg * q->rho_avg;
        m++;
    }
    return m >= 2 && sq > 0 ? sum * sum / (m * sq) : NAN;
}

static int fairness(struct berth__svg *s, struct berth_run *const *runs, size_t n)
{
    const char *labels[MAX_RUNS] = {0};
    labels_of(runs, n, labels);
    static const char *const cats[] = {"across jobs", "across users", "across queues"};
    struct berth__chart c;
    berth__chart_open(&c, s, "fairness", "Fairness: Jain's index of ρ",
                      "over jobs' ρ, and over each user's and each queue's mean ρ; 1 = all alike",
                      labels, n, 0);
    berth__axis_bands(&c.x, 3, cats);
    berth__axis_linear(&c.y, 0, 1, 6);
    berth__chart_axes(&c, NULL, "Jain's index (1 = equal)");
    int any[3] = {0, 0, 0};
    for (size_t r = 0; r < n; r++) {
        double v[3] = {berth__run_num(runs[r], "ftf_jain"), jain(runs[r], 'u'), jain(runs[r], 'q')};
        for (int k = 0; k < 3; k++) {
            berth__chart_bar(&c, k, (int)r, (int)n, v[k]);
            any[k] |= !isnan(v[k]);
        }
    }
    static const char *const none[] = {"no completed job", "fewer than two users in the runs",
                                       "fewer than two queues in the runs"};
    for (int k = 0; k < 3; k++)
        if (!any[k])
            berth__chart_band_note(&c, k, none[k]);
    berth__chart_close(&c);
    return 0;
}

/* ---- the table of charts -------------------------------------------------------------- */

static const struct {
    const char *id, *title;
    chart_fn fn;
} charts[] = {
    {"jct-cdf", "Job completion time (CDF)", jct_cdf},
    {"wait-cdf", "Waiting time (CDF)", wait_cdf},
    {"busy-gpus", "Busy GPUs over time", busy_gpus},
    {"pending-jobs", "Pending jobs over time", pending_jobs},
    {"util-by-type", "GPU utilisation by GPU type", util_by_type},
    {"jct-by-gang", "Job completion time by gang size", jct_by_gang},
    {"rho-hist", "Finish-time fairness: distribution of ρ", rho_hist},
    {"fairness", "Fairness: Jain's index of ρ", fairness},
    {"preemptions", "Preemptions over time", preemptions},
};
#define NCHARTS (sizeof charts / sizeof *charts)

size_t berth_report_chart_count(void)
{
    return NCHARTS;
}

const char *berth_report_chart_id(size_t i)
{
    return i < NCHARTS ? charts[i].id : NULL;
}

const char *berth_report_chart_title(size_t i)
{
    return i < NCHARTS ? charts[i].title : NULL;
}

int berth__report_chart(struct berth__svg *s, size_t i, struct berth_run *const *runs, size_t n)
{
    return charts[i].fn(s, runs, n);
}

char *berth_report_chart_svg(size_t i, struct berth_run *const *runs, size_t n,
                             struct berth_err *err)
{
    if (i >= NCHARTS || n > MAX_RUNS) {
        berth_err_set(err, BERTH_EINPUT, "report: %s",
                      i >= NCHARTS ? "no such chart" : "at most 64 runs");
        return NULL;
    }
    struct berth__svg s;
    berth__svg_init(&s);
    berth__svg_printf(&s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    if (charts[i].fn(&s, runs, n) || !berth__svg_text(&s)) {
        berth__svg_free(&s);
        berth_err_set(err, BERTH_ENOMEM, "out of memory");
        return NULL;
    }
    return s.buf;
}
