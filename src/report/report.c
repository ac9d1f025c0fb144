/* berth report: the runs' charts inline in one HTML page with their summary table, or one
 * SVG file per chart (berth/report.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "berth/report.h"
#include "report/html.h"
#include "report/run.h"
#include "report/topo_tables.h"

static const char *const captions[] = {
    ("The share of completed jobs that finished within a given time of their arrival. A curve "
     "further left and higher is better; the log axis shows short and long jobs alike."),
    "The share of jobs that started within a given time of their arrival.",
    "GPUs held by jobs, against the cluster's size.",
    "Jobs that arrived and wait for GPUs.",
    "For each GPU type, the GPU-hours jobs held over what the type offered during the run.",
    "How long jobs of each gang size took, from arrival to finish.",
    "How much longer than their fair share jobs took (Themis' finish-time fairness).",
    "Jain's index of rho over jobs, users and queues: 1 when all are slowed down alike.",
    "How often the policy stopped a running job: preemptions, migrations and resizes.",
};

static void cell(struct berth__svg *s, const char *text, int left)
{
    berth__svg_printf(s, left ? "<td class=\"l\">" : "<td>");
    berth__svg_escape(s, text);
    berth__svg_printf(s, "</td>");
}

/* The summary's columns, in two tables so that each fits a page's width: completion and
 * waiting times; then use, disruption and fairness. */
static const struct {
    const char *head, *key;
    int kind; /* 0 duration, 1 count, 2 percent, 3 ratio */
} cols[] = {
    {"jobs", "jobs", 1},
    {"completed", "completed", 1},
    {"avg JCT", "avg_jct_s", 0},
    {"median JCT", "median_jct_s", 0},
    {"p95 JCT", "p95_jct_s", 0},
    {"p99 JCT", "p99_jct_s", 0},
    {"avg wait", "avg_queue_s", 0},
    {"p99 wait", "p99_queue_s", 0},
    {"makespan", "makespan_s", 0},
    {"GPU util", "gpu_util", 2},
    {"preemptions", "preemptions", 1},
    {"migrations", "migrations", 1},
    {"resizes", "resizes", 1},
    {"max \xcf\x81", "ftf_rho_max", 3},
    {"mean \xcf\x81", "ftf_rho_avg", 3},
    {"Jain (\xcf\x81)", "ftf_jain", 3},
};
#define NCOLS     (sizeof cols / sizeof *cols)
#define FIRST_USE 9 /* the second table's first column */

static void summary_part(struct berth__svg *s, struct berth_run *const *runs, size_t n, size_t k0,
                         size_t k1, const char *id)
{
    berth__svg_printf(s, "<div class=\"wide\"><table id=\"%s\">\n<tr><th class=\"l\">run</th>", id);
    if (k0 == 0)
        berth__svg_printf(s, "<th class=\"l\">policy \xc2\xb7 placement \xc2\xb7 mode</th>");
    for (size_t k = k0; k < k1; k++)
        berth__svg_printf(s, "<th>%s</th>", cols[k].head);
    berth__svg_printf(s, "</tr>\n");
    for (size_t r = 0; r < n; r++) {
        berth__svg_printf(s, "<tr>");
        cell(s, runs[r]->label, 1);
        if (k0 == 0) {
            char how[256];
            snprintf(how, sizeof how, "%s \xc2\xb7 %s \xc2\xb7 %s", runs[r]->policy,
                     runs[r]->placement, runs[r]->mode);
            cell(s, how, 1);
        }
        for (size_t k = k0; k < k1; k++) {
            double v = berth__run_num(runs[r], cols[k].key);
            char b[64];
            if (cols[k].kind == 0)
                berth__fmt_duration(b, sizeof b, v);
            else if (cols[k].kind == 1)
                berth__fmt_num(b, sizeof b, v, 0);
            else if (cols[k].kind == 2)
                snprintf(b, sizeof b, "%.1f %%", 100 * v);
            else /* ratios: three figures after the point while they matter */
                berth__fmt_num(b, sizeof b, v, fabs(v) >= 1000 ? 0 : fabs(v) >= 10 ? 1 : 3);
            cell(s, b, 0);
        }
        berth__svg_printf(s, "</tr>\n");
    }
    berth__svg_printf(s, "</table></div>\n");
}

static void summary_table(struct berth__svg *s, struct berth_run *const *runs, size_t n)
{
    summary_part(s, runs, n, 0, FIRST_USE, "summary-table");
    summary_part(s, runs, n, FIRST_USE, NCOLS, "summary-use");
}

static void runs_table(struct berth__svg *s, struct berth_run *const *runs, size_t n)
{
    berth__svg_printf(s, "<table id=\"runs-table\">\n<tr><th class=\"l\">run</th><th "
                         "class=\"l\">from</th></tr>\n");
    for (size_t r = 0; r < n; r++) {
        berth__svg_printf(s, "<tr>");
        cell(s, runs[r]->label, 1);
        cell(s, runs[r]->dir ? runs[r]->dir : "(this berth sim run)", 1);
        berth__svg_printf(s, "</tr>\n");
    }
    berth__svg_printf(s, "</table>\n");
}

int berth_report_html(FILE *f, struct berth_run *const *runs, size_t n, const char *title,
                      struct berth_err *err)
{
    if (n == 0 || n > 64)
        return berth_err_set(err, BERTH_EINPUT, "report: expected 1 to 64 runs, found %zu", n);
    struct berth__svg s;
    berth__svg_init(&s);
    char lead[256];
    snprintf(lead, sizeof lead, "%zu run%s: ", n, n == 1 ? "" : "s");
    for (size_t r = 0; r < n && strlen(lead) < sizeof lead - 40; r++)
        snprintf(lead + strlen(lead), sizeof lead - strlen(lead), "%s%s", r ? ", " : "",
                 runs[r]->label);
    berth__html_begin(&s, title ? title : "berth report", lead);
    berth__svg_printf(&s, "<nav><a href=\"#summary\">Summary</a>");
    for (size_t i = 0; i < berth_report_chart_count(); i++)
        berth__svg_printf(&s, "<a href=\"#fig-%s\">%s</a>", berth_report_chart_id(i),
                          berth_report_chart_title(i));
    if (berth__report_has_topo(runs, n))
        berth__svg_printf(&s, "<a href=\"#topology\">Topology</a>");
    berth__svg_printf(&s, "<a href=\"#runs\">Runs</a></nav>\n<h2 id=\"summary\">Summary</h2>\n");
    summary_table(&s, runs, n);
    berth__svg_printf(&s, "<h2 id=\"charts\">Charts</h2>\n");
    int rc = 0;
    for (size_t i = 0; !rc && i < berth_report_chart_count(); i++) {
        berth__svg_printf(&s, "<figure id=\"fig-%s\">\n", berth_report_chart_id(i));
        if (berth__report_chart(&s, i, runs, n))
            rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
        berth__svg_printf(&s, "<figcaption>%s</figcaption>\n</figure>\n", captions[i]);
    }
    berth__report_topo_tables(&s, runs, n);
    berth__svg_printf(&s, "<h2 id=\"runs\">Runs</h2>\n");
    runs_table(&s, runs, n);
    berth__html_end(&s);
    if (!rc)
        rc = berth__html_write(&s, f, err);
    berth__svg_free(&s);
    return rc;
}

int berth_report_svgs(const char *dir, struct berth_run *const *runs, size_t n,
                      struct berth_err *err)
{
    if (mkdir(dir, 0777) && errno != EEXIST)
        return berth_err_set(err, BERTH_EIO, "%s: cannot create the folder: %s", dir,
                             strerror(errno));
    for (size_t i = 0; i < berth_report_chart_count(); i++) {
        char *svg = berth_report_chart_svg(i, runs, n, err);
        if (!svg)
            return err->code;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.svg", dir, berth_report_chart_id(i));
        FILE *f = fopen(path, "w");
        int bad = !f || fputs(svg, f) < 0;
        if ((f && fclose(f)) || bad) {
            free(svg);
            return berth_err_set(err, BERTH_EIO, "%s: cannot write: %s", path, strerror(errno));
        }
        free(svg);
    }
    return 0;
}
