/* SVG text (see svg.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg.h"
#include "util/mem.h"

void berth__svg_init(struct berth__svg *s)
{
    memset(s, 0, sizeof *s);
}

void berth__svg_free(struct berth__svg *s)
{
    free(s->buf);
    memset(s, 0, sizeof *s);
}

static int room(struct berth__svg *s, size_t n)
{
    if (s->oom)
        return -1;
    if (BERTH_GROW(s->buf, s->cap, s->len + n + 1)) {
        s->oom = 1;
        return -1;
    }
    return 0;
}

void berth__svg_printf(struct berth__svg *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0 || room(s, (size_t)n))
        return;
    if ((size_t)n < sizeof small) {
        memcpy(s->buf + s->len, small, (size_t)n + 1);
    } else {
        va_start(ap, fmt);
        vsnprintf(s->buf + s->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    s->len += (size_t)n;
}

void berth__svg_escape(struct berth__svg *s, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        const char *e = NULL;
        switch (*p) {
        case '&':
            e = "&amp;";
            break;
        case '<':
            e = "&lt;";
            break;
        case '>':
            e = "&gt;";
            break;
        case '"':
            e = "&quot;";
            break;
        case '\'':
            e = "&#39;";
            break;
        default:
            break;
        }
        if (e) {
            berth__svg_printf(s, "%s", e);
        } else if (*p >= 0x20 && *p != 0x7f) {
            if (room(s, 1))
                return;
            s->buf[s->len++] = (char)*p;
            s->buf[s->len] = '\0';
        }
    }
}

const char *berth__svg_text(const struct berth__svg *s)
{
    return s->oom ? NULL : s->buf ? s->buf : "";
}

static void dash_attr(struct berth__svg *s, const char *dash)
{
    if (dash)
        berth__svg_printf(s, " stroke-dasharray=\"%s\"", dash);
}

void berth__svg_line(struct berth__svg *s, double x1, double y1, double x2, double y2,
                     const char *color, double width, const char *dash)
{
    berth__svg_printf(s,
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                      "stroke-width=\"%.2g\"",
                      x1, y1, x2, y2, color, width);
    dash_attr(s, dash);
    berth__svg_printf(s, "/>\n");
}

void berth__svg_rect(struct berth__svg *s, double x, double y, double w, double h, const char *fill,
                     const char *stroke)
{
    berth__svg_printf(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"",
                      x, y, w, h, fill);
    if (stroke)
        berth__svg_printf(s, " stroke=\"%s\"", stroke);
    berth__svg_printf(s, "/>\n");
}

void berth__svg_text_at(struct berth__svg *s, double x, double y, const char *anchor, double size,
                        int weight, double rotate, const char *color, const char *text)
{
    berth__svg_printf(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%g\"", x, y,
                      anchor, size);
    if (weight)
        berth__svg_printf(s, " font-weight=\"bold\"");
    if (rotate != 0)
        berth__svg_printf(s, " transform=\"rotate(%g %.1f %.1f)\"", rotate, x, y);
    if (color)
        berth__svg_printf(s, " fill=\"%s\"", color);
    berth__svg_printf(s, ">");
    berth__svg_escape(s, text);
    berth__svg_printf(s, "</text>\n");
}

void berth__svg_polyline(struct berth__svg *s, const double *x, const double *y, size_t n,
                         const char *color, double width, const char *dash)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && (isnan(y[i]) || isnan(x[i])))
            i++;
        if (i >= n)
            break;
        if (i + 1 == n || isnan(y[i + 1]) || isnan(x[i + 1])) { /* alone: a dot, not nothing */
            berth__svg_circle(s, x[i], y[i], width * 1.5, color, NULL);
            i++;
            continue;
        }
        berth__svg_printf(s,
                          "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.2g\" "
                          "stroke-linejoin=\"round\"",
                          color, width);
        dash_attr(s, dash);
        berth__svg_printf(s, " points=\"");
        int first = 1;
        for (; i < n && !isnan(y[i]) && !isnan(x[i]); i++) {
            berth__svg_printf(s, "%s%.1f,%.1f", first ? "" : " ", x[i], y[i]);
            first = 0;
        }
        berth__svg_printf(s, "\"/>\n");
    }
}

void berth__svg_circle(struct berth__svg *s, double x, double y, double r, const char *fill,
                       const char *stroke)
{
    berth__svg_printf(s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"", x, y, r, fill);
    if (stroke)
        berth__svg_printf(s, " stroke=\"%s\"", stroke);
    berth__svg_printf(s, "/>\n");
}
