/* The sweep's metrics (metric.c), private to report/: the table table.c loads and writes by,
 * and the formatting rank.c and table.c write a metric's value with. */
#ifndef BERTH_REPORT_METRIC_H
#define BERTH_REPORT_METRIC_H

#include "berth/report.h"

#define BERTH_NMETRICS 17

/* Every metric, in the order of a row's values (berth_metric(i) is &berth__metrics[i]). */
extern const struct berth_metric berth__metrics[BERTH_NMETRICS];

/* A metric's value for people ("1.23 h", "61.8 %", "0.981"). */
void berth__fmt_metric(char *b, size_t len, const struct berth_metric *m, double v);

#endif
