/* Chart axes and their ticks (see axis.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/axis.h"

double berth__nice_step(double x)
{
    if (!(x > 0))
        return 1;
    double p = pow(10, floor(log10(x)));
    static const double m[] = {1, 2, 2.5, 5, 10};
    for (int i = 0; i < 5; i++)
        if (m[i] * p >= x * (1 - 1e-9))
            return m[i] * p;
    return 10 * p;
}

void berth__tick_label(char *buf, unsigned long len, double v, double step)
{
    double a = fabs(v);
    if (fabs(v) < step * 1e-6)
        v = 0, a = 0;
    if (a >= 1e6 && fmod(a, 1e5) < 1e-6 * a)
        snprintf(buf, len, "%gM", v / 1e6);
    else if (a >= 1e4 && fmod(a, 100) < 1e-6 * a)
        snprintf(buf, len, "%gk", v / 1e3);
    else if (a >= 1000 && step >= 1 && fabs(v - round(v)) < 1e-9) {
        long long n = llround(v);
        snprintf(buf, len, "%s%lld,%03lld", n < 0 ? "-" : "", llabs(n) / 1000, llabs(n) % 1000);
    } else {
        int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
        if (step < 1 && fabs(step * pow(10, dec) - 2.5) < 1e-6)
            dec++;
        if (dec > 6)
            dec = 6;
        snprintf(buf, len, "%.*f", dec, v);
    }
}

void berth__axis_linear(struct berth__axis *a, double lo, double hi, int max_ticks)
{
    if (!(hi > lo)) {
        double w = fabs(lo) > 0 ? fabs(lo) * 0.1 : 1;
        lo -= w;
        hi += w;
        if (lo < 0 && lo + w >= 0)
            lo = 0; /* a constant series of counts starts at 0 */
    }
    if (max_ticks < 2)
        max_ticks = 2;
    double step = berth__nice_step((hi - lo) / (max_ticks - 1));
    double l = floor(lo / step + 1e-9) * step, h = ceil(hi / step - 1e-9) * step;
    while ((h - l) / step + 1 > max_ticks + 1e-9) { /* widening added a tick too many */
        step = berth__nice_step(step * 1.01);
        l = floor(lo / step + 1e-9) * step;
        h = ceil(hi / step - 1e-9) * step;
    }
    a->log = a->bands = 0;
    a->lo = l;
    a->hi = h;
    a->nticks = 0;
    for (double v = l; v <= h + step * 1e-6 && a->nticks < BERTH_AXIS_MAX_TICKS; v += step) {
        a->ticks[a->nticks] = v;
        berth__tick_label(a->labels[a->nticks], sizeof a->labels[0], v, step);
        a->nticks++;
    }
}

void berth__axis_log(struct berth__axis *a, double lo, double hi)
{
    if (!(lo > 0))
        lo = 1e-3;
    if (!(hi > lo))
        hi = lo * 10;
    int d0 = (int)floor(log10(lo) + 1e-9), d1 = (int)ceil(log10(hi) - 1e-9);
    if (d1 <= d0)
        d1 = d0 + 1;
    a->log = 1;
    a->bands = 0;
    a->lo = pow(10, d0);
    a->hi = pow(10, d1);
    a->nticks = 0;
    int every = (d1 - d0 + BERTH_AXIS_MAX_TICKS - 1) / BERTH_AXIS_MAX_TICKS;
    for (int d = d0; d <= d1 && a->nticks < BERTH_AXIS_MAX_TICKS; d += every) {
        double v = pow(10, d);
        a->ticks[a->nticks] = v;
        berth__tick_label(a->labels[a->nticks], sizeof a->labels[0], v, v);
        a->nticks++;
    }
}

static const struct {
    double s;
    const char *label;
} units[] = {
    {0.001, "1 ms"},  {0.01, "10 ms"},    {0.1, "100 ms"},      {1, "1 s"},      {10, "10 s"},
    {60, "1 min"},    {600, "10 min"},    {3600, "1 h"},        {36000, "10 h"}, {86400, "1 d"},
    {864000, "10 d"}, {8640000, "100 d"}, {86400000, "1000 d"},
};
#define NUNITS (sizeof units / sizeof *units)

void berth__axis_log_duration(struct berth__axis *a, double lo_s, double hi_s)
{
    /* the first unit below the smallest value (so a curve never starts on the axis), but not
     * below 1 s unless the values are */
    size_t i0 = 0, i1 = NUNITS - 1, one = 3;
    while (i0 + 1 < NUNITS && units[i0 + 1].s < lo_s)
        i0++;
    if (lo_s >= 1 && i0 < one)
        i0 = one;
    for (size_t i = NUNITS; i-- > 0;)
        if (units[i].s >= hi_s)
            i1 = i;
    if (i1 <= i0)
        i1 = i0 + 1 < NUNITS ? i0 + 1 : i0;
    a->log = 1;
    a->bands = 0;
    a->lo = units[i0].s;
    a->hi = units[i1].s > a->lo ? units[i1].s : a->lo * 10;
    a->nticks = 0;
    for (size_t i = i0; i <= i1; i++) {
        if (units[i].s == 36000 && i < i1)
            continue; /* 10 h sits a factor 2.4 from 1 d: their labels would collide */
        a->ticks[a->nticks] = units[i].s;
        snprintf(a->labels[a->nticks], sizeof a->labels[0], "%s", units[i].label);
        a->nticks++;
    }
}

void berth__axis_bands(struct berth__axis *a, int n, const char *const *labels)
{
    a->log = 0;
    a->bands = 1;
    a->lo = -0.5;
    a->hi = n - 0.5;
    a->nticks = 0;
    for (int i = 0; i < n && a->nticks < BERTH_AXIS_MAX_TICKS; i++) {
        a->ticks[a->nticks] = i;
        snprintf(a->labels[a->nticks], sizeof a->labels[0], "%s", labels[i]);
        a->nticks++;
    }
}

double berth__axis_px(const struct berth__axis *a, double v)
{
    double f;
    if (a->log) {
        if (!(v > a->lo))
            v = a->lo;
        f = (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
    } else {
        f = (v - a->lo) / (a->hi - a->lo);
    }
    if (f < 0)
        f = 0;
    if (f > 1)
        f = 1;
    return a->p0 + f * (a->p1 - a->p0);
}
