/* The HTML page every berth report is (berth report, berth sweep, berth compare): one
 * self-contained document with its style inline and a Content-Security-Policy that allows
 * no script and no network, so it opens the same offline, from mail or from a paper's
 * supplement. Also the number formats its tables share. */
#ifndef BERTH_REPORT_HTML_H
#define BERTH_REPORT_HTML_H

#include <stdio.h>

#include "berth/err.h"
#include "report/svg.h"

/* Opens the document: head, style, the <h1> title and an optional lead paragraph. */
void berth__html_begin(struct berth__svg *s, const char *title, const char *lead);
void berth__html_end(struct berth__svg *s);
/* Writes s's text to f; BERTH_ENOMEM when it is incomplete, BERTH_EIO on a write error. */
int berth__html_write(struct berth__svg *s, FILE *f, struct berth_err *err);

/* A duration for people: "42.0 s", "12.5 min", "3.20 h", "4.10 d" ("-" for NaN). */
void berth__fmt_duration(char *buf, size_t len, double s);
/* A number with at most `dec` decimals and thousands separators ("-" for NaN). */
void berth__fmt_num(char *buf, size_t len, double v, int dec);

#endif
