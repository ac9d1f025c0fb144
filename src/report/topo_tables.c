/* The report's fragmentation-per-level and jobs-by-span tables (topo_tables.h). */
#include "report/topo_tables.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "report/html.h"

static const char *const levels[] = {"nvlink", "node", "rack", "block", "cluster"};
#define NLEVELS (sizeof levels / sizeof *levels)

/* summary[obj][level][key], NaN when absent */
static double get(const struct berth_run *r, const char *obj, const char *level, const char *key)
{
    json_t *v = json_object_get(json_object_get(json_object_get(r->summary, obj), level), key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int has(struct berth_run *const *runs, size_t n, const char *obj)
{
    for (size_t r = 0; r < n; r++)
        if (json_is_object(json_object_get(runs[r]->summary, obj)))
            return 1;
    return 0;
}

int berth__report_has_topo(struct berth_run *const *runs, size_t n)
{
    return has(runs, n, "frag_by_level") || has(runs, n, "by_span");
}

static void cell(struct berth__svg *s, const char *text, int left)
{
    berth__svg_printf(s, left ? "<td class=\"l\">" : "<td>");
    berth__svg_escape(s, text);
    berth__svg_printf(s, "</td>");
}

/* the levels below cluster that some run measured; nvlink only where it says something
 * node does not (islands inside servers or across them, in some run) */
static int frag_level(struct berth_run *const *runs, size_t n, size_t l)
{
    int some = 0, differs = 0;
    for (size_t r = 0; r < n; r++) {
        double v = get(runs[r], "frag_by_level", levels[l], "idle_in_partial");
        some |= !isnan(v);
        if (l == 0 && !isnan(v))
            differs |= v != get(runs[r], "frag_by_level", levels[1], "idle_in_partial") ||
                       get(runs[r], "frag_by_level", levels[0], "whole_idle_domains") !=
                           get(runs[r], "frag_by_level", levels[1], "whole_idle_domains");
    }
    return some && (l != 0 || differs);
}

static void frag_table(struct berth__svg *s, struct berth_run *const *runs, size_t n)
{
    berth__svg_printf(s, "<div class=\"wide\"><table id=\"frag-table\">\n<tr><th "
                         "class=\"l\">run</th>");
    for (size_t l = 0; l < NLEVELS; l++)
        if (frag_level(runs, n, l))
            berth__svg_printf(s, "<th>%s idle in partial</th><th>%s whole idle</th>", levels[l],
                              levels[l]);
    berth__svg_printf(s, "</tr>\n");
    for (size_t r = 0; r < n; r++) {
        berth__svg_printf(s, "<tr>");
        cell(s, runs[r]->label, 1);
        for (size_t l = 0; l < NLEVELS; l++) {
            if (!frag_level(runs, n, l))
                continue;
            char b[64];
            double v = get(runs[r], "frag_by_level", levels[l], "idle_in_partial");
            if (isnan(v))
                snprintf(b, sizeof b, "-");
            else
                snprintf(b, sizeof b, "%.1f %%", 100 * v);
            cell(s, b, 0);
            berth__fmt_num(b, sizeof b,
                           get(runs[r], "frag_by_level", levels[l], "whole_idle_domains"), 1);
            cell(s, b, 0);
        }
        berth__svg_printf(s, "</tr>\n");
    }
    berth__svg_printf(s, "</table></div>\n");
}

static void span_table(struct berth__svg *s, struct berth_run *const *runs, size_t n)
{
    berth__svg_printf(s, "<div class=\"wide\"><table id=\"span-table\">\n<tr><th "
                         "class=\"l\">run</th>");
    for (size_t l = 0; l < NLEVELS; l++)
        berth__svg_printf(s, "<th>%s jobs</th><th>%s GPU-h</th>", levels[l], levels[l]);
    berth__svg_printf(s, "</tr>\n");
    for (size_t r = 0; r < n; r++) {
        berth__svg_printf(s, "<tr>");
        cell(s, runs[r]->label, 1);
        for (size_t l = 0; l < NLEVELS; l++) {
            char b[64];
            berth__fmt_num(b, sizeof b, get(runs[r], "by_span", levels[l], "jobs"), 0);
            cell(s, b, 0);
            berth__fmt_num(b, sizeof b, get(runs[r], "by_span", levels[l], "gpu_hours"), 0);
            cell(s, b, 0);
        }
        berth__svg_printf(s, "</tr>\n");
    }
    berth__svg_printf(s, "</table></div>\n");
}

void berth__report_topo_tables(struct berth__svg *s, struct berth_run *const *runs, size_t n)
{
    if (!berth__report_has_topo(runs, n))
        return;
    berth__svg_printf(s, "<h2 id=\"topology\">Topology</h2>\n");
    if (has(runs, n, "frag_by_level")) {
        berth__svg_printf(s, "<p>Fragmentation per level, averaged over the run (measured at "
                             "most every 300 simulated seconds): the share of idle GPUs in "
                             "domains not wholly idle, and the wholly idle domains.</p>\n");
        frag_table(s, runs, n);
    }
    if (has(runs, n, "by_span")) {
        berth__svg_printf(s, "<p>Jobs by the level their last start spanned, and the GPU-hours "
                             "they held.</p>\n");
        span_table(s, runs, n);
    }
}
