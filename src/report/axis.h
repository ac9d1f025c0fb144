/* Chart axes: a data range mapped onto pixels, linear or logarithmic, and ticks a reader can
 * use: linear ticks at 1, 2, 2.5 or 5 times a power of ten covering the data (the extent is
 * widened to whole ticks), log ticks at decades, and log duration ticks at the units people
 * read times in (10 ms, 100 ms, 1 s, 10 s, 1 min, 10 min, 1 h, 10 h, 1 d, 10 d, 100 d). */
#ifndef BERTH_REPORT_AXIS_H
#define BERTH_REPORT_AXIS_H

#define BERTH_AXIS_MAX_TICKS 40

struct berth__axis {
    int log;       /* 1: logarithmic (lo > 0) */
    int bands;     /* 1: categories (berth__axis_bands) */
    double lo, hi; /* the data range shown */
    double p0, p1; /* its pixels: lo maps to p0, hi to p1 */
    int nticks;
    double ticks[BERTH_AXIS_MAX_TICKS];
    char labels[BERTH_AXIS_MAX_TICKS][40];
};

/* A linear axis over [lo, hi] (a zero-width range is widened) with at most max_ticks nice
 * ticks; the range grows to the first and last tick. */
void berth__axis_linear(struct berth__axis *a, double lo, double hi, int max_ticks);
/* A log axis over the decades that hold [lo, hi] (lo > 0), ticked at each decade. */
void berth__axis_log(struct berth__axis *a, double lo, double hi);
/* A log axis of durations in seconds, ticked at time units (1 ms to 1000 d): from the first
 * unit below lo (but 1 s when lo is at least 1 s) to the first at or above hi. */
void berth__axis_log_duration(struct berth__axis *a, double lo_s, double hi_s);
/* Categories 0..n-1 with their labels, each centred in its band. */
void berth__axis_bands(struct berth__axis *a, int n, const char *const *labels);

/* The pixel of value v (a value at or below 0 on a log axis maps to lo; values outside the
 * range are clamped to it). */
double berth__axis_px(const struct berth__axis *a, double v);
/* The nice step (1, 2, 2.5, 5 x 10^k) at least x; for tests. */
double berth__nice_step(double x);
/* A tick label: integers as "12", "1,200", "12k", "1.5M"; others with as many decimals as
 * the step needs. */
void berth__tick_label(char *buf, unsigned long len, double v, double step);

#endif
