/* Chart frames and marks (see chart.h). */
#include <math.h>
#include <string.h>

#include "report/chart.h"

/* Okabe & Ito's palette, yellow last (weak on white) */
static const char *const palette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                      "#56B4E9", "#D55E00", "#000000", "#F0E442"};
static const char *const dashes[] = {NULL, "7 3", "2 2", "9 3 2 3"};

const char *berth__color(int i)
{
    return palette[(unsigned)i % 8];
}

const char *berth__dash(int i)
{
    return dashes[(unsigned)i % 4];
}

#define FONT       "DejaVu Sans, Helvetica, Arial, sans-serif"
#define INK        "#222222"
#define GRID       "#e3e3e3"
#define SUBTLE     "#555555"
#define LEGEND_ROW 18.0

/* About how wide text of n bytes is at 12 px (DejaVu Sans averages 0.6 em) */
static double text_w(const char *t, double size)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)t; *p; p++)
        n += (*p & 0xc0) != 0x80; /* characters, not bytes */
    return (double)n * size * 0.6;
}

static double item_w(const char *label)
{
    return 30 + text_w(label, 12) + 18;
}

void berth__chart_open(struct berth__chart *c, struct berth__svg *s, const char *id,
                       const char *title, const char *subtitle, const char *const *labels, size_t n,
                       int lines)
{
    memset(c, 0, sizeof *c);
    c->svg = s;
    c->w = BERTH_CHART_W;
    c->h = BERTH_CHART_H;
    /* legend rows: items laid out left to right, wrapping */
    double avail = c->w - 80, x = 0;
    int rows = n ? 1 : 0;
    for (size_t i = 0; i < n; i++) {
        double w = item_w(labels[i]);
        if (x > 0 && x + w > avail) {
            rows++;
            x = 0;
        }
        x += w;
    }
    double top = 36 + (subtitle ? 16 : 0) + rows * LEGEND_ROW + 14;
    c->h += rows > 1 ? (rows - 1) * LEGEND_ROW : 0;
    c->left = 78;
    c->right = c->w - 24;
    c->top = top;
    c->bottom = c->h - 58;
    berth__svg_printf(s,
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"%s\" "
                      "viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" font-family=\"%s\" "
                      "role=\"img\" aria-labelledby=\"%s-title\">\n<title id=\"%s-title\">",
                      id, c->w, c->h, c->w, c->h, FONT, id, id);
    berth__svg_escape(s, title);
    berth__svg_printf(s, "</title>\n");
    berth__svg_rect(s, 0, 0, c->w, c->h, "#ffffff", NULL);
    berth__svg_text_at(s, 16, 24, "start", 16, 1, 0, INK, title);
    if (subtitle)
        berth__svg_text_at(s, 16, 42, "start", 12, 0, 0, SUBTLE, subtitle);
    /* the legend */
    double ly = 36 + (subtitle ? 16 : 0) + 10, lx = c->left;
    x = 0;
    for (size_t i = 0; i < n; i++) {
        double w = item_w(labels[i]);
        if (x > 0 && x + w > avail) {
            ly += LEGEND_ROW;
            x = 0;
        }
        double ix = lx + x;
        if (lines)
            berth__svg_line(s, ix, ly, ix + 24, ly, berth__color((int)i), 2.5, berth__dash((int)i));
        else
            berth__svg_rect(s, ix + 6, ly - 6, 12, 12, berth__color((int)i), NULL);
        berth__svg_text_at(s, ix + 30, ly + 4, "start", 12, 0, 0, INK, labels[i]);
        x += w;
    }
}

void berth__chart_axes(struct berth__chart *c, const char *xlabel, const char *ylabel)
{
    struct berth__svg *s = c->svg;
    c->x.p0 = c->left;
    c->x.p1 = c->right;
    c->y.p0 = c->bottom;
    c->y.p1 = c->top;
    int bands = c->x.bands;
    /* grid lines and tick labels */
    double last_y = 1e9; /* y labels closer than a line to the previous one are left out */
    for (int i = 0; i < c->y.nticks; i++) {
        double py = berth__axis_px(&c->y, c->y.ticks[i]);
        berth__svg_line(s, c->left, py, c->right, py, GRID, 1, NULL);
        if (last_y - py >= 14) {
            berth__svg_text_at(s, c->left - 8, py + 4, "end", 11, 0, 0, INK, c->y.labels[i]);
            last_y = py;
        }
    }
    /* x tick labels that would overlap the previous one are left out (the tick stays) */
    double last_end = -1e9;
    for (int i = 0; i < c->x.nticks; i++) {
        double px = berth__axis_px(&c->x, c->x.ticks[i]);
        if (!bands)
            berth__svg_line(s, px, c->top, px, c->bottom, GRID, 1, NULL);
        berth__svg_line(s, px, c->bottom, px, c->bottom + 5, INK, 1, NULL);
        double half = text_w(c->x.labels[i], 11) / 2;
        if (px - half > last_end + 12) {
            berth__svg_text_at(s, px, c->bottom + 18, "middle", 11, 0, 0, INK, c->x.labels[i]);
            last_end = px + half;
        }
    }
    berth__svg_line(s, c->left, c->bottom, c->right, c->bottom, INK, 1, NULL);
    berth__svg_line(s, c->left, c->top, c->left, c->bottom, INK, 1, NULL);
    if (xlabel)
        berth__svg_text_at(s, (c->left + c->right) / 2, c->bottom + 40, "middle", 12, 0, 0, INK,
                           xlabel);
    if (ylabel)
        berth__svg_text_at(s, 20, (c->top + c->bottom) / 2, "middle", 12, 0, -90, INK, ylabel);
}

void berth__chart_line(struct berth__chart *c, const double *x, const double *y, size_t n,
                       int series)
{
    /* mapped in chunks, so no allocation: a polyline per chunk, joined end to start */
    enum { CHUNK = 256 };
    double px[CHUNK + 1], py[CHUNK + 1];
    size_t i = 0;
    while (i < n) {
        size_t k = 0;
        if (i > 0 && !isnan(y[i - 1])) { /* continue from the previous chunk's last point */
            px[k] = berth__axis_px(&c->x, x[i - 1]);
            py[k++] = berth__axis_px(&c->y, y[i - 1]);
        }
        for (; i < n && k <= CHUNK; i++, k++) {
            px[k] = berth__axis_px(&c->x, x[i]);
            py[k] = isnan(y[i]) ? NAN : berth__axis_px(&c->y, y[i]);
        }
        berth__svg_polyline(c->svg, px, py, k, berth__color(series), 2, berth__dash(series));
    }
}

void berth__chart_hmark(struct berth__chart *c, double v, const char *label)
{
    double py = berth__axis_px(&c->y, v);
    berth__svg_line(c->svg, c->left, py, c->right, py, SUBTLE, 1, "4 3");
    if (label)
        berth__svg_text_at(c->svg, c->right - 4, py - 5, "end", 11, 0, 0, SUBTLE, label);
}

void berth__chart_vmark(struct berth__chart *c, double v, const char *label)
{
    double px = berth__axis_px(&c->x, v);
    berth__svg_line(c->svg, px, c->top, px, c->bottom, SUBTLE, 1, "4 3");
    if (label)
        berth__svg_text_at(c->svg, px + 4, c->top + 12, "start", 11, 0, 0, SUBTLE, label);
}

/* The centre and width of slot i of n in category k's band. */
static void slot(const struct berth__chart *c, int k, int i, int n, double *mid, double *w)
{
    double band = (c->right - c->left) / (c->x.hi - c->x.lo);
    double inner = band * 0.8, bw = inner / (n > 0 ? n : 1);
    double start = berth__axis_px(&c->x, k) - inner / 2;
    *mid = start + bw * (i + 0.5);
    *w = bw;
}

void berth__chart_bar(struct berth__chart *c, int k, int i, int n, double v)
{
    if (isnan(v))
        return;
    double mid, w;
    slot(c, k, i, n, &mid, &w);
    double y0 = berth__axis_px(&c->y, c->y.log ? c->y.lo : (c->y.lo > 0 ? c->y.lo : 0));
    double y1 = berth__axis_px(&c->y, v);
    double bw = w * 0.88;
    berth__svg_rect(c->svg, mid - bw / 2, y1 < y0 ? y1 : y0, bw, fabs(y0 - y1), berth__color(i),
                    NULL);
}

void berth__chart_dot(struct berth__chart *c, int k, int i, int n, double v, double lo, double hi)
{
    if (isnan(v))
        return;
    double mid, w;
    slot(c, k, i, n, &mid, &w);
    const char *col = berth__color(i);
    if (!isnan(lo) && !isnan(hi)) {
        double y0 = berth__axis_px(&c->y, lo), y1 = berth__axis_px(&c->y, hi);
        double cap = w * 0.25 < 6 ? w * 0.25 : 6;
        berth__svg_line(c->svg, mid, y0, mid, y1, col, 1.6, NULL);
        berth__svg_line(c->svg, mid - cap, y0, mid + cap, y0, col, 1.6, NULL);
        berth__svg_line(c->svg, mid - cap, y1, mid + cap, y1, col, 1.6, NULL);
    }
    berth__svg_circle(c->svg, mid, berth__axis_px(&c->y, v), 4, col, "#ffffff");
}

void berth__chart_band_note(struct berth__chart *c, int k, const char *text)
{
    berth__svg_text_at(c->svg, berth__axis_px(&c->x, k), c->bottom - 10, "middle", 11, 0, 0, SUBTLE,
                       text);
}

void berth__chart_note(struct berth__chart *c, const char *text)
{
    berth__svg_text_at(c->svg, (c->left + c->right) / 2, (c->top + c->bottom) / 2, "middle", 13, 0,
                       0, SUBTLE, text);
}

void berth__chart_close(struct berth__chart *c)
{
    berth__svg_printf(c->svg, "</svg>\n");
}
