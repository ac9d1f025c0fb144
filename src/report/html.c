/* The HTML page (see html.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "berth/berth.h"
#include "report/html.h"

static const char style[] =
    "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;color:#222;margin:24px auto;"
    "max-width:1100px;padding:0 16px;line-height:1.4}"
    "h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px "
    "solid #ddd;padding-bottom:4px}p.lead{color:#555;margin:0 0 12px}"
    "table{border-collapse:collapse;font-size:13px;margin:8px 0}"
    "th,td{border-bottom:1px solid #e3e3e3;padding:4px 8px;text-align:right;white-space:nowrap}"
    "th{background:#f4f4f4;font-weight:bold}td.l,th.l{text-align:left}"
    "tr.best td{background:#eef6fb}"
    ".wide{overflow-x:auto}"
    "figure{margin:16px 0 24px}figure svg{max-width:100%;height:auto;border:1px solid #e3e3e3}"
    "figcaption{font-size:13px;color:#555;margin-top:4px}"
    "nav a{margin-right:12px;font-size:13px}"
    ".rec{background:#eef6fb;border-left:4px solid #0072B2;padding:8px 12px;margin:12px 0}"
    "footer{margin-top:32px;font-size:12px;color:#777}";

void berth__html_begin(struct berth__svg *s, const char *title, const char *lead)
{
    berth__svg_printf(s,
                      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                      "'none'; style-src 'unsafe-inline'; img-src data:\">\n"
                      "<meta name=\"viewport\" content=\"width=device-width, "
                      "initial-scale=1\">\n<meta name=\"generator\" content=\"berth %s\">\n"
                      "<title>",
                      BERTH_VERSION);
    berth__svg_escape(s, title);
    berth__svg_printf(s, "</title>\n<style>%s</style>\n</head>\n<body>\n<header><h1>", style);
    berth__svg_escape(s, title);
    berth__svg_printf(s, "</h1>\n");
    if (lead) {
        berth__svg_printf(s, "<p class=\"lead\">");
        berth__svg_escape(s, lead);
        berth__svg_printf(s, "</p>\n");
    }
    berth__svg_printf(s, "</header>\n");
}

void berth__html_end(struct berth__svg *s)
{
    berth__svg_printf(s,
                      "<footer>Written by berth %s. Charts are inline SVG; the page needs "
                      "no script and no network.</footer>\n</body>\n</html>\n",
                      BERTH_VERSION);
}

int berth__html_write(struct berth__svg *s, FILE *f, struct berth_err *err)
{
    const char *t = berth__svg_text(s);
    if (!t)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    if (fwrite(t, 1, s->len, f) != s->len || fflush(f))
        return berth_err_set(err, BERTH_EIO, "cannot write the report");
    return 0;
}

void berth__fmt_duration(char *buf, size_t len, double s)
{
    if (isnan(s))
        snprintf(buf, len, "-");
    else if (fabs(s) < 120)
        snprintf(buf, len, "%.1f s", s);
    else if (fabs(s) < 7200)
        snprintf(buf, len, "%.1f min", s / 60);
    else if (fabs(s) < 172800)
        snprintf(buf, len, "%.2f h", s / 3600);
    else
        snprintf(buf, len, "%.2f d", s / 86400);
}

void berth__fmt_num(char *buf, size_t len, double v, int dec)
{
    if (isnan(v)) {
        snprintf(buf, len, "-");
        return;
    }
    char raw[64];
    snprintf(raw, sizeof raw, "%.*f", dec, fabs(v));
    char *dot = strchr(raw, '.');
    size_t ip = dot ? (size_t)(dot - raw) : strlen(raw), o = 0;
    if (v < 0 && o + 1 < len)
        buf[o++] = '-';
    for (size_t i = 0; i < ip && o + 1 < len; i++) {
        if (i && (ip - i) % 3 == 0 && o + 1 < len)
            buf[o++] = ',';
        buf[o++] = raw[i];
    }
    for (const char *p = dot; p && *p && o + 1 < len; p++)
        buf[o++] = *p;
    buf[o] = '\0';
}
