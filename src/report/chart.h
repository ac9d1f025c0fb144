/* A chart's frame and marks, shared by every chart berth draws (the report's, the sweep's and
 * berthd's dashboard's): an SVG root with a <title>, the chart's title and subtitle, a legend
 * under them, the plot area with grid lines, ticks and axis labels with units, and the marks
 * (lines, grouped bars, dots with whiskers) in a colour-blind-safe palette (Okabe and Ito),
 * each series also told apart by its dash pattern so that a grey print keeps them apart. */
#ifndef BERTH_REPORT_CHART_H
#define BERTH_REPORT_CHART_H

#include <stddef.h>

#include "report/axis.h"
#include "report/svg.h"

#define BERTH_CHART_W 760
#define BERTH_CHART_H 440

struct berth__chart {
    struct berth__svg *svg;
    double w, h;
    double left, right, top, bottom; /* the plot area */
    struct berth__axis x, y;
};

/* Series i's colour and dash pattern (NULL: solid). */
const char *berth__color(int i);
const char *berth__dash(int i);

/* Opens a chart in s: the root element (class "chart", data-chart = id), its <title>, the
 * title, the subtitle (or NULL) and room for a legend of the labels (line swatches when
 * lines, else boxes; n may be 0). The plot area is set; the caller then sets c->x and c->y
 * with the axis functions and calls berth__chart_axes, which fits them to the area. */
void berth__chart_open(struct berth__chart *c, struct berth__svg *s, const char *id,
                       const char *title, const char *subtitle, const char *const *labels, size_t n,
                       int lines);
/* Fits the axes to the plot area and draws grid lines, ticks, tick labels and the axis labels
 * (units in them: "job completion time (log scale)"). */
void berth__chart_axes(struct berth__chart *c, const char *xlabel, const char *ylabel);
/* A line through data points (NaN y: a gap); series picks colour and dash. */
void berth__chart_line(struct berth__chart *c, const double *x, const double *y, size_t n,
                       int series);
/* A horizontal or vertical reference line at data value v, with a label. */
void berth__chart_hmark(struct berth__chart *c, double v, const char *label);
void berth__chart_vmark(struct berth__chart *c, double v, const char *label);
/* Bar of series i of n in category k (a band axis on x), from the axis' floor to v. */
void berth__chart_bar(struct berth__chart *c, int k, int i, int n, double v);
/* A dot at v with a whisker from lo to hi, series i of n in category k (NaN lo/hi: no
 * whisker). */
void berth__chart_dot(struct berth__chart *c, int k, int i, int n, double v, double lo, double hi);
/* A message in the middle of the plot area ("no preemptions in these runs"). */
void berth__chart_note(struct berth__chart *c, const char *text);
/* A short note above category k's floor ("no users in these runs"). */
void berth__chart_band_note(struct berth__chart *c, int k, const char *text);
void berth__chart_close(struct berth__chart *c);

#endif
