/* The dashboard's charts, drawn by berth's own chart code (report/chart.h) from berthd's
 * bounded history (telemetry.h): busy GPUs, jobs waiting and running, utilisation per GPU
 * type, the waiting-time CDF of the jobs that started, and Jain's index across users, over
 * the last hours. GET /v1/charts/NAME?window=S answers image/svg+xml behind the API's
 * authentication; the page shows them as images, so no script in them could ever run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "live/http/routes.h"
#include "model/cluster.h"
#include "report/chart.h"

#define MAX_POINTS 720
#define SVG_CSP    "default-src 'none'; style-src 'unsafe-inline'"

struct data {
    struct berth__sample *s;
    size_t n;
    float *waits;
    size_t nwaits;
    berth_us now, window;
    char types[BERTH_TEL_TYPES][32];
    size_t ntypes;
};

/* x of a sample: hours (or minutes) before now, negative */
static double ago(const struct data *d, berth_us t, double unit)
{
    return (double)(t - d->now) / 1e6 / unit;
}

/* The x axis: the window, or less when the history is younger (a berthd started a minute ago
 * shows that minute, at least one), in seconds up to 3 min, minutes up to 3 h, else hours. */
static void time_axis(struct berth__chart *c, const struct data *d, double *unit, const char **xl)
{
    berth_us span = d->n ? d->now - d->s[0].t : 0, shown = d->window;
    if (span < shown)
        shown = span > 60 * BERTH_US_PER_S ? span : 60 * BERTH_US_PER_S;
    *unit = shown <= 180 * BERTH_US_PER_S ? 1 : shown <= 3 * 3600 * BERTH_US_PER_S ? 60 : 3600;
    *xl = *unit == 1    ? "seconds before now"
          : *unit == 60 ? "minutes before now"
                        : "hours before now";
    berth__axis_linear(&c->x, -(double)shown / 1e6 / *unit, 0, 7);
}

static void busy(struct berth__svg *s, const struct data *d)
{
    const char *labels[BERTH_TEL_TYPES + 1] = {"all types"};
    size_t nl = 1;
    for (size_t t = 0; d->ntypes > 1 && t < d->ntypes; t++)
        labels[nl++] = d->types[t];
    struct berth__chart c;
    int32_t gpus = d->n ? d->s[d->n - 1].gpus : 0;
    char sub[128];
    snprintf(sub, sizeof sub, "GPUs held by jobs, sampled every %d s; dashed: the %d GPUs",
             (int)(BERTH_TEL_EVERY_US / BERTH_US_PER_S), gpus);
    berth__chart_open(&c, s, "live-busy", "Busy GPUs", sub, labels, nl, 1);
    double unit;
    const char *xl;
    time_axis(&c, d, &unit, &xl);
    berth__axis_linear(&c.y, 0, gpus > 0 ? gpus : 1, 6);
    berth__chart_axes(&c, xl, "busy GPUs");
    if (gpus > 0)
        berth__chart_hmark(&c, gpus, "all GPUs");
    double *x = malloc((d->n + 1) * sizeof *x), *y = malloc((d->n + 1) * sizeof *y);
    for (size_t k = 0; x && y && k < nl; k++) {
        for (size_t i = 0; i < d->n; i++) {
            x[i] = ago(d, d->s[i].t, unit);
            y[i] = k == 0 ? d->s[i].busy : d->s[i].type_busy[k - 1];
        }
        berth__chart_line(&c, x, y, d->n, (int)k);
    }
    if (d->n < 2)
        berth__chart_note(&c, "collecting: a sample every few seconds");
    free(x);
    free(y);
    berth__chart_close(&c);
}

static void jobs(struct berth__svg *s, const struct data *d)
{
    static const char *const labels[] = {"pending", "running", "held"};
    struct berth__chart c;
    berth__chart_open(&c, s, "live-jobs", "Jobs waiting and running",
                      "pending: waiting for GPUs; held: waiting for a release", labels, 3, 1);
    double unit, top = 1;
    const char *xl;
    time_axis(&c, d, &unit, &xl);
    for (size_t i = 0; i < d->n; i++)
        top = fmax(top, fmax(d->s[i].pending, fmax(d->s[i].running, d->s[i].held)));
    berth__axis_linear(&c.y, 0, top, 6);
    berth__chart_axes(&c, xl, "jobs");
    double *x = malloc((d->n + 1) * sizeof *x), *y = malloc((d->n + 1) * sizeof *y);
    for (int k = 0; x && y && k < 3; k++) {
        for (size_t i = 0; i < d->n; i++) {
            x[i] = ago(d, d->s[i].t, unit);
            y[i] = k == 0 ? d->s[i].pending : k == 1 ? d->s[i].running : d->s[i].held;
        }
        berth__chart_line(&c, x, y, d->n, k);
    }
    if (d->n < 2)
        berth__chart_note(&c, "collecting: a sample every few seconds");
    free(x);
    free(y);
    berth__chart_close(&c);
}

static void util(struct berth__svg *s, const struct data *d)
{
    const char *cats[BERTH_TEL_TYPES];
    static const char *const labels[] = {"mean over the window"};
    for (size_t t = 0; t < d->ntypes; t++)
        cats[t] = d->types[t];
    struct berth__chart c;
    berth__chart_open(&c, s, "live-util", "Utilisation by GPU type",
                      "busy GPUs over the type's GPUs, averaged over the samples", labels, 1, 0);
    berth__axis_bands(&c.x, d->ntypes ? (int)d->ntypes : 1,
                      d->ntypes ? cats : (const char *[]){"-"});
    berth__axis_linear(&c.y, 0, 100, 6);
    berth__chart_axes(&c, "GPU type", "utilisation (%)");
    for (size_t t = 0; t < d->ntypes; t++) {
        double acc = 0;
        size_t m = 0;
        for (size_t i = 0; i < d->n; i++)
            if (d->s[i].type_gpus[t] > 0) {
                acc += (double)d->s[i].type_busy[t] / d->s[i].type_gpus[t];
                m++;
            }
        if (m)
            berth__chart_bar(&c, (int)t, 0, 1, 100 * acc / (double)m);
    }
    berth__chart_close(&c);
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static void wait_cdf(struct berth__svg *s, struct data *d)
{
    static const char *const labels[] = {"jobs started in the window"};
    struct berth__chart c;
    berth__chart_open(&c, s, "live-wait", "Waiting time (CDF)", "from submission to first start",
                      labels, 1, 1);
    qsort(d->waits, d->nwaits, sizeof *d->waits, cmp_float);
    double lo = 1, hi = d->nwaits ? d->waits[d->nwaits - 1] : 10;
    for (size_t i = 0; i < d->nwaits; i++)
        if (d->waits[i] > 0) {
            lo = d->waits[i];
            break;
        }
    berth__axis_log_duration(&c.x, lo, hi > 10 ? hi : 10);
    berth__axis_linear(&c.y, 0, 1, 5);
    berth__chart_axes(&c, "waiting time (log scale)", "fraction of jobs (cumulative)");
    enum { PTS = 200 };
    double x[PTS + 2], y[PTS + 2];
    size_t k = 0;
    if (d->nwaits) { /* the step up from 0 at the shortest wait */
        x[k] = d->waits[0] < c.x.lo ? c.x.lo : d->waits[0];
        y[k++] = 0;
    }
    for (size_t q = 0; d->nwaits && q <= PTS; q++) {
        size_t i = (size_t)((double)q / PTS * (double)(d->nwaits - 1) + 0.5);
        x[k] = d->waits[i] < c.x.lo ? c.x.lo : d->waits[i];
        y[k++] = (double)(i + 1) / (double)d->nwaits;
    }
    berth__chart_line(&c, x, y, k, 0);
    if (!d->nwaits)
        berth__chart_note(&c, "no job started in the window");
    berth__chart_close(&c);
}

static void fairness(struct berth__svg *s, const struct data *d)
{
    static const char *const labels[] = {"Jain's index"};
    struct berth__chart c;
    berth__chart_open(&c, s, "live-fairness", "Fairness across users",
                      "Jain's index of the GPUs held by users with jobs (1 = equal shares; a gap: "
                      "fewer than two such users)",
                      labels, 1, 1);
    double unit;
    const char *xl;
    time_axis(&c, d, &unit, &xl);
    berth__axis_linear(&c.y, 0, 1, 6);
    berth__chart_axes(&c, xl, "Jain's index");
    double *x = malloc((d->n + 1) * sizeof *x), *y = malloc((d->n + 1) * sizeof *y);
    int any = 0;
    for (size_t i = 0; x && y && i < d->n; i++) {
        x[i] = ago(d, d->s[i].t, unit);
        y[i] = d->s[i].jain;
        any |= !isnan(y[i]);
    }
    if (x && y)
        berth__chart_line(&c, x, y, d->n, 0);
    if (!any)
        berth__chart_note(&c, "fewer than two users with jobs so far");
    free(x);
    free(y);
    berth__chart_close(&c);
}

void berth__route_chart(struct berth__daemon *dm, const struct berth__hreq *r,
                        struct berth__hresp *out)
{
    static const char *const names[] = {"busy", "jobs", "util", "wait", "fairness"};
    const char *name = r->url ? r->url + strlen("/v1/charts/") : "";
    int which = -1;
    for (int i = 0; i < 5; i++)
        if (!strcmp(name, names[i]))
            which = i;
    if (which < 0) {
        berth__hresp_error(out, 404, "chart: expected busy, jobs, util, wait or fairness");
        return;
    }
    const char *w = r->arg(r->conn, "window");
    double window_s = 6 * 3600;
    if (w) {
        char *end;
        window_s = strtod(w, &end);
        if (!*w || *end || !(window_s >= 60) || window_s > 86400) {
            berth__hresp_error(out, 400, "window: expected seconds from 60 to 86400");
            return;
        }
    }
    struct data d = {.window = (berth_us)(window_s * 1e6)};
    pthread_mutex_lock(&dm->mu);
    d.now = berth__wall_us();
    int rc = berth__telemetry_copy(&dm->tel, d.now - d.window, MAX_POINTS, &d.s, &d.n, &d.waits,
                                   &d.nwaits);
    const struct berth_cluster *c = dm->engine->cluster;
    d.ntypes = c->ntypes < BERTH_TEL_TYPES ? c->ntypes : BERTH_TEL_TYPES;
    for (size_t t = 0; t < d.ntypes; t++)
        snprintf(d.types[t], sizeof d.types[t], "%s", c->types[t].name);
    pthread_mutex_unlock(&dm->mu);
    if (rc) {
        berth__hresp_error(out, 500, "out of memory");
        return;
    }
    struct berth__svg s;
    berth__svg_init(&s);
    berth__svg_printf(&s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    switch (which) {
    case 0:
        busy(&s, &d);
        break;
    case 1:
        jobs(&s, &d);
        break;
    case 2:
        util(&s, &d);
        break;
    case 3:
        wait_cdf(&s, &d);
        break;
    default:
        fairness(&s, &d);
        break;
    }
    free(d.s);
    free(d.waits);
    if (!berth__svg_text(&s)) {
        berth__svg_free(&s);
        berth__hresp_error(out, 500, "out of memory");
        return;
    }
    out->status = 200;
    out->text = s.buf;
    out->text_len = s.len;
    out->type = "image/svg+xml";
    out->csp = SVG_CSP;
}
