/* SVG text written by berth itself: a growable buffer, the few elements charts are made of,
 * and XML escaping of every string that comes from data (run labels, user and queue names),
 * so that no label can break out of its text element. Coordinates are printed with one
 * decimal, which keeps charts small and stable byte for byte. */
#ifndef BERTH_REPORT_SVG_H
#define BERTH_REPORT_SVG_H

#include <stddef.h>

struct berth__svg {
    char *buf;
    size_t len, cap;
    int oom; /* an append failed: the text is incomplete (reported when it is taken) */
};

void berth__svg_init(struct berth__svg *s);
void berth__svg_free(struct berth__svg *s);
/* Appends printf-style text as is (the caller escapes what it formats). */
void berth__svg_printf(struct berth__svg *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends text with &, <, >, " and ' escaped and control characters dropped. */
void berth__svg_escape(struct berth__svg *s, const char *text);
/* The text so far (NUL-terminated), the buffer's to keep; NULL when an append failed. */
const char *berth__svg_text(const struct berth__svg *s);

/* Elements. Colours are "#rrggbb"; dash is a stroke-dasharray or NULL for a solid line. */
void berth__svg_line(struct berth__svg *s, double x1, double y1, double x2, double y2,
                     const char *color, double width, const char *dash);
void berth__svg_rect(struct berth__svg *s, double x, double y, double w, double h, const char *fill,
                     const char *stroke);
/* A text element: anchor "start", "middle" or "end"; rotate in degrees about (x, y) (0: none);
 * weight 0 normal, 1 bold. The text is escaped. */
void berth__svg_text_at(struct berth__svg *s, double x, double y, const char *anchor, double size,
                        int weight, double rotate, const char *color, const char *text);
/* A polyline through n points; NaN y values break it into pieces. */
void berth__svg_polyline(struct berth__svg *s, const double *x, const double *y, size_t n,
                         const char *color, double width, const char *dash);
void berth__svg_circle(struct berth__svg *s, double x, double y, double r, const char *fill,
                       const char *stroke);

#endif
