/* The report's topology tables: fragmentation per level (the summary's frag_by_level) and
 * jobs by the level they spanned (by_span), drawn only when some run's summary has them,
 * so that a report of flat-cluster runs is as it was. */
#ifndef BERTH_REPORT_TOPO_TABLES_H
#define BERTH_REPORT_TOPO_TABLES_H

#include <stddef.h>

#include "report/run.h"
#include "report/svg.h"

/* 1 when some run has frag_by_level or by_span (the tables would show). */
int berth__report_has_topo(struct berth_run *const *runs, size_t n);
/* The heading and the tables (nothing when berth__report_has_topo is 0). */
void berth__report_topo_tables(struct berth__svg *s, struct berth_run *const *runs, size_t n);

#endif
