/* Inference demand series (include/berth/infer.h): evaluation at an instant, the next
 * change, and the built-in diurnal curve. The CSV form is read by io/infer_load.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/infer.h"
#include "util/num.h"

void berth_infer_free(struct berth_infer *s)
{
    if (!s)
        return;
    free(s->at);
    free(s->servers);
    free(s);
}

/* The next comma-separated number of spec at *p (advancing past it), or the default. */
static int field(const char **p, double dflt, double lo, double hi, const char *name, double *out,
                 struct berth_err *err)
{
    *out = dflt;
    if (!**p)
        return 0;
    const char *e = strchr(*p, ',');
    size_t len = e ? (size_t)(e - *p) : strlen(*p);
    if (berth__parse_double(*p, len, out) || !(*out >= lo && *out <= hi))
        return berth_err_set(err, BERTH_EINPUT,
                             "--inference diurnal: %s: expected a number in [%g, %g], found "
                             "\"%.*s\"",
                             name, lo, hi, (int)len, *p);
    *p += len + (e != NULL);
    return 0;
}

int berth_infer_diurnal(const char *spec, struct berth_infer **out, struct berth_err *err)
{
    *out = NULL;
    const char *p = spec + strlen("diurnal");
    if (strncmp(spec, "diurnal", 7) || (*p && *p != ':'))
        return berth_err_set(err, BERTH_EINPUT,
                             "--inference: expected diurnal[:PEAK,TROUGH[,PERIOD_H[,STEP_S]]] "
                             "or a CSV file, found \"%s\"",
                             spec);
    p += *p == ':';
    double peak, trough, period_h, step_s;
    int rc;
    if ((rc = field(&p, 0.9, 0, 1, "PEAK (fraction of the pool)", &peak, err)) ||
        (rc = field(&p, 0.3, 0, 1, "TROUGH (fraction of the pool)", &trough, err)) ||
        (rc = field(&p, 24, 0.01, 8760, "PERIOD_H (hours)", &period_h, err)) ||
        (rc = field(&p, 60, 1, 86400, "STEP_S (seconds)", &step_s, err)))
        return rc;
    if (*p)
        return berth_err_set(err, BERTH_EINPUT,
                             "--inference diurnal: expected at most 4 fields, found \"%s\"", p);
    if (trough > peak)
        return berth_err_set(err, BERTH_EINPUT,
                             "--inference diurnal: TROUGH: expected at most PEAK (%g), found %g",
                             peak, trough);
    struct berth_infer *s = calloc(1, sizeof *s);
    if (!s)
        return berth_err_set(err, BERTH_ENOMEM, "--inference: out of memory");
    s->diurnal = 1;
    s->peak = peak;
    s->trough = trough;
    s->period = (berth_us)llround(period_h * 3600e6);
    s->step = (berth_us)llround(step_s * 1e6);
    *out = s;
    return 0;
}

/* The first row of the table whose time is after t (n when none), by bisection. */
static size_t first_after(const struct berth_infer *s, berth_us t)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->at[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int32_t berth_infer_at(const struct berth_infer *s, berth_us t, int32_t pool_servers)
{
    int64_t v;
    if (s->diurnal) {
        berth_us at = t / s->step * s->step; /* the sample in force */
        double ph = 2.0 * M_PI * (double)(at % s->period) / (double)s->period;
        double f = s->trough + (s->peak - s->trough) * (1.0 - cos(ph)) / 2.0;
        v = (int64_t)ceil(f * pool_servers - 1e-9);
    } else {
        size_t k = first_after(s, t); /* rows before k are in force; before row 0, row 0 */
        v = s->servers[k ? k - 1 : 0];
    }
    return (int32_t)(v < pool_servers ? v : pool_servers);
}

berth_us berth_infer_next(const struct berth_infer *s, berth_us t)
{
    if (s->diurnal)
        return (t / s->step + 1) * s->step;
    size_t k = first_after(s, t);
    return k < s->n ? s->at[k] : BERTH_TIME_NONE;
}
