/* Tests for the report layer: axis ticks and labels (golden values, derivations in the
 * comments), a --out folder read back (and its bad fields), the charts' SVG (titles, escaping
 * of labels from data, determinism). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "berth/report.h"
#include "check.h"
#include "report/axis.h"
#include "report/run.h"
#include "tmpfile.h"

/* ---- axes ------------------------------------------------------------------------------- */

static void test_nice_step(void)
{
    /* the first of 1, 2, 2.5, 5 x 10^k at least x */
    CHECK_DBL(berth__nice_step(0.3), 0.5, 1e-12);
    CHECK_DBL(berth__nice_step(7), 10, 1e-12);
    CHECK_DBL(berth__nice_step(12), 20, 1e-12);
    CHECK_DBL(berth__nice_step(2.5), 2.5, 1e-12);
    CHECK_DBL(berth__nice_step(100), 100, 1e-12);
    CHECK_DBL(berth__nice_step(102.4), 200, 1e-12);
}

static void test_axis_linear(void)
{
    struct berth__axis a;
    /* 512 GPUs, 6 ticks at most: the step is nice(512 / 5 = 102.4) = 200, so 0..600 */
    berth__axis_linear(&a, 0, 512, 6);
    CHECK_I64(a.nticks, 4);
    CHECK_DBL(a.hi, 600, 1e-9);
    CHECK_STR(a.labels[3], "600");
    /* a fraction: step nice(0.25) = 0.25, two decimals for a 2.5 step */
    berth__axis_linear(&a, 0, 1, 5);
    CHECK_I64(a.nticks, 5);
    CHECK_STR(a.labels[1], "0.25");
    CHECK_STR(a.labels[4], "1.00");
    /* a constant series of counts is widened and starts at 0 */
    berth__axis_linear(&a, 3, 3, 5);
    CHECK(a.lo <= 3 && a.hi > 3 && a.lo >= 0);
    char b[40];
    berth__tick_label(b, sizeof b, 1200, 200);
    CHECK_STR(b, "1,200");
    berth__tick_label(b, sizeof b, 20000, 10000);
    CHECK_STR(b, "20k");
    berth__tick_label(b, sizeof b, 1.5e6, 5e5);
    CHECK_STR(b, "1.5M");
    berth__tick_label(b, sizeof b, 0.5, 0.5);
    CHECK_STR(b, "0.5");
}

static void test_axis_log(void)
{
    struct berth__axis a;
    /* 0.5 s to 25 h: from the unit below 0.5 s (100 ms) to the first at least 90000 s (10 d) */
    berth__axis_log_duration(&a, 0.5, 90000);
    CHECK_I64(a.nticks, 9);
    CHECK_STR(a.labels[0], "100 ms");
    CHECK_STR(a.labels[8], "10 d");
    /* 5 s and more start at 1 s */
    berth__axis_log_duration(&a, 5, 100);
    CHECK_STR(a.labels[0], "1 s");
    CHECK_STR(a.labels[a.nticks - 1], "10 min");
    /* pixels: 1..1000 on 0..300, three decades of 100 px */
    berth__axis_log(&a, 1, 1000);
    a.p0 = 0;
    a.p1 = 300;
    CHECK_DBL(berth__axis_px(&a, 10), 100, 1e-9);
    CHECK_DBL(berth__axis_px(&a, 0), 0, 1e-9);     /* 0 on a log axis: the left edge */
    CHECK_DBL(berth__axis_px(&a, 1e6), 300, 1e-9); /* beyond: clamped */
    CHECK_I64(a.nticks, 4);
    CHECK_STR(a.labels[3], "1,000");
}

/* ---- runs -------------------------------------------------------------------------------------
 */

static const char summary_json[] =
    "{\"policy\": \"las\", \"placement\": \"consolidate\", \"mode\": \"des\", \"jobs\": 3, "
    "\"completed\": 2, \"avg_jct_s\": 150, \"median_jct_s\": 150, \"p95_jct_s\": 195, "
    "\"p99_jct_s\": 199, \"avg_queue_s\": 5, \"median_queue_s\": 5, \"p99_queue_s\": 9.9, "
    "\"makespan_s\": 300, \"gpu_util\": 0.5, \"preemptions\": 2, \"migrations\": 0, "
    "\"resizes\": 0, \"events\": 9, \"passes\": 6, \"restarts\": 2, \"restart_lost_s\": 0, "
    "\"ftf_rho_max\": 2, \"ftf_rho_avg\": 1.5, \"ftf_jain\": 0.9}\n";

static void write_run(struct tmp *t, const char *jobs)
{
    tmp_write(t, "summary.json", summary_json);
    tmp_write(t, "jobs.csv", jobs);
    tmp_write(t, "series.csv", "time_s,busy_gpus,running,pending\n10,2,1,1\n20,4,2,0\n310,0,0,0\n");
    tmp_write(t, "events.csv", "time_s,preemptions,migrations,resizes\n50,2,0,0\n");
    tmp_write(t, "groups.csv",
              "group,name,jobs,completed,avg_jct_s,gpu_hours,ftf_rho_avg,gpus,"
              "util\ngpu_type,v100,3,2,150,0.1,1.5,4,0.5\nuser,<b>&x,3,2,150,0.1,"
              "1.5,,\n");
}

static const char jobs_csv[] =
    "job_id,arrival_s,first_start_s,finish_s,jct_s,queue_s,run_s,num_gpus,gpu_type,servers,"
    "preemptions,restarts,restart_lost_s,alone_s,ftf_rho\n"
    "a,10,10,110,100,0,100,2,v100,1,1,1,0,100,1\n"
    "b,20,30,220,200,10,190,2,v100,1,1,1,0,100,2\n"
    "c,30,,,,,0,1,,0,0,0,0,10,0\n";

static void test_run_load(void)
{
    struct tmp t;
    tmp_open(&t);
    write_run(&t, jobs_csv);
    struct berth_err err = {0};
    struct berth_run *r = NULL;
    CHECK_I64(berth_run_load(t.dir, &r, &err), 0);
    if (r) {
        CHECK_I64(r->ndone, 2);
        CHECK_I64(r->nwait, 2);
        CHECK_DBL(r->jct[1], 200, 1e-9);
        CHECK_I64(r->gang[0], 2);
        CHECK_DBL(r->rho[1], 2, 1e-9);
        CHECK_I64(r->nseries, 3);
        CHECK_DBL(r->st[1], 10, 1e-9); /* from the first row */
        CHECK_I64(r->nevents, 1);
        CHECK_DBL(r->et[0], 40, 1e-9); /* the series' origin too */
        CHECK_I64(r->ngroups, 2);
        CHECK_DBL(berth__run_gpus(r), 4, 1e-9);
        CHECK_STR(r->policy, "las");
        CHECK_DBL(berth__run_num(r, "avg_jct_s"), 150, 1e-9);
        CHECK_HAS(r->label, "berth-test-");
    }
    berth_run_free(r);
    /* a bad field: FILE:LINE and the column */
    write_run(&t, "job_id,jct_s,queue_s,num_gpus,ftf_rho\na,100,0,2,1\nb,1O0,0,2,1\n");
    CHECK_I64(berth_run_load(t.dir, &r, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "jobs.csv:3: column jct_s: expected a number, found \"1O0\"");
    write_run(&t, "job_id,queue_s,num_gpus\na,0,2\n");
    CHECK_I64(berth_run_load(t.dir, &r, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "jobs.csv:1: column jct_s: missing from the header");
    unlink(tmp_path(&t, "summary.json"));
    CHECK_I64(berth_run_load(t.dir, &r, &err), BERTH_EIO);
    CHECK_HAS(err.msg, "summary.json");
    tmp_close(&t);
}

static void test_charts(void)
{
    struct tmp t;
    tmp_open(&t);
    write_run(&t, jobs_csv);
    struct berth_err err = {0};
    struct berth_run *r = NULL;
    CHECK_I64(berth_run_load(t.dir, &r, &err), 0);
    if (!r) {
        tmp_close(&t);
        return;
    }
    CHECK_I64(berth_run_set_label(r, "<script>\"x\" & y", &err), 0);
    for (size_t i = 0; i < berth_report_chart_count(); i++) {
        char *svg = berth_report_chart_svg(i, &r, 1, &err);
        CHECK(svg != NULL);
        if (!svg)
            continue;
        CHECK_HAS(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\"");
        char want[128];
        snprintf(want, sizeof want, "data-chart=\"%s\"", berth_report_chart_id(i));
        CHECK_HAS(svg, want);
        char title[128] = ""; /* the title as XML writes it: ' is &#39; */
        for (const char *c = berth_report_chart_title(i); *c; c++)
            snprintf(title + strlen(title), sizeof title - strlen(title),
                     *c == '\'' ? "&#39;" : "%c", *c);
        snprintf(want, sizeof want, ">%s</title>", title);
        CHECK_HAS(svg, want);
        /* the label from data comes out escaped, never as markup */
        CHECK_HAS(svg, "&lt;script&gt;&quot;x&quot; &amp; y");
        CHECK(!strstr(svg, "<script"));
        free(svg);
    }
    /* the page: every chart, no script, the same bytes twice */
    char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    FILE *f = open_memstream(&a, &na);
    CHECK_I64(berth_report_html(f, &r, 1, "a <test>", &err), 0);
    fclose(f);
    f = open_memstream(&b, &nb);
    CHECK_I64(berth_report_html(f, &r, 1, "a <test>", &err), 0);
    fclose(f);
    CHECK(na == nb && a && b && !memcmp(a, b, na));
    size_t svgs = 0;
    for (const char *p = a; p && (p = strstr(p, "<svg ")); p++)
        svgs++;
    CHECK_I64(svgs, berth_report_chart_count());
    CHECK_HAS(a, "<title>a &lt;test&gt;</title>");
    CHECK_HAS(a, "Content-Security-Policy");
    CHECK(!strstr(a, "<script"));
    free(a);
    free(b);
    berth_run_free(r);
    tmp_close(&t);
}

static const struct check_test tests[] = {
    {"nice_step", test_nice_step},
    {"axis_linear", test_axis_linear},
    {"axis_log", test_axis_log},
    {"run_load", test_run_load},
    {"charts", test_charts},
};

CHECK_MAIN(tests)

