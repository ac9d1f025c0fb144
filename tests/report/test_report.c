/* Tests for the report layer: axis ticks and labels, Student's t and the tests built on it
 * (golden values, derivations in the comments), grid files (their expansion and every kind of
 * bad line), a --out folder read back (and its bad fields), the charts' SVG (titles, escaping
 * of labels from data, determinism), the sweep's table and the tournament's ranking on a
 * hand-made table whose answer is known. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <errno.h>
#include <ftw.h>
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
#include "report/stats.h"
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
    /* 0.5 s to 25 h: from the unit below 0.5 s (100 ms) to the first at least 90000 s (10 d):
     * 100 ms, 1 s, 10 s, 1 min, 10 min, 1 h, 1 d, 10 d (10 h left out: too close to 1 d) */
    berth__axis_log_duration(&a, 0.5, 90000);
    CHECK_I64(a.nticks, 8);
    CHECK_STR(a.labels[5], "1 h");
    CHECK_STR(a.labels[6], "1 d");
    CHECK_STR(a.labels[0], "100 ms");
    CHECK_STR(a.labels[7], "10 d");
    /* 5 s and more start at 1 s */
    berth__axis_log_duration(&a, 5, 100);
    CHECK_STR(a.labels[0], "1 s");
    CHECK_STR(a.labels[a.nticks - 1], "10 min");
    /* 10 h stays when it ends the axis: 1 h to 5 h */
    berth__axis_log_duration(&a, 3600, 18000);
    CHECK_STR(a.labels[a.nticks - 1], "10 h");
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

/* ---- statistics -------------------------------------------------------------------------- */

static void test_student_t(void)
{
    /* the 97.5 % quantiles of tables of Student's t */
    CHECK_DBL(berth__t_quantile(0.975, 1), 12.7062, 1e-3);
    CHECK_DBL(berth__t_quantile(0.975, 2), 4.3027, 1e-3);
    CHECK_DBL(berth__t_quantile(0.975, 4), 2.7764, 1e-3);
    CHECK_DBL(berth__t_quantile(0.975, 10), 2.2281, 1e-3);
    CHECK_DBL(berth__t_quantile(0.975, 30), 2.0423, 1e-3);
    CHECK_DBL(berth__t_cdf(0, 5), 0.5, 1e-12);
    /* df 3 has a closed form: F(t) = 1/2 + (1/pi) (u / (1 + u^2) + atan u), u = t / sqrt 3;
     * at t = sqrt 27 (u = 3): 1/2 + (0.3 + 1.2490458) / pi = 1/2 + 0.4930767 = 0.9930767 */
    CHECK_DBL(berth__t_cdf(sqrt(27), 3), 0.9930767, 1e-6);
}

static void test_ci_and_tests(void)
{
    /* 1..5: mean 3, sd sqrt(2.5) = 1.5811; 2.7764 x 1.5811 / sqrt 5 = 1.9632 */
    const double v[] = {1, 2, 3, 4, 5};
    CHECK_DBL(berth__mean(v, 5), 3, 1e-12);
    CHECK_DBL(berth__ci95(v, 5), 1.9632, 1e-3);
    CHECK(isnan(berth__ci95(v, 1)));
    /* differences -1 -2 -1 -2: mean -1.5, sd 0.57735, t = -1.5 / (0.57735 / 2) = -sqrt 27;
     * two-sided p = 2 (1 - 0.9930767) = 0.0138467 */
    const double a[] = {10, 12, 11, 13}, b[] = {11, 14, 12, 15};
    CHECK_DBL(berth__paired_p(a, b, 4), 0.0138467, 1e-6);
    /* equal differences: exact; none: 1; one pair: no test */
    const double c[] = {12, 14, 13, 15};
    CHECK_DBL(berth__paired_p(a, c, 4), 0, 0);
    CHECK_DBL(berth__paired_p(a, a, 4), 1, 0);
    CHECK(isnan(berth__paired_p(a, b, 1)));
    /* Holm: 0.01 x 3 = 0.03; 0.03 x 2 = 0.06; 0.04 x 1 = 0.04, raised to 0.06 (monotone) */
    const double p[] = {0.01, 0.04, 0.03, NAN};
    double adj[4];
    berth__holm(p, 4, adj);
    CHECK_DBL(adj[0], 0.03, 1e-12);
    CHECK_DBL(adj[1], 0.06, 1e-12);
    CHECK_DBL(adj[2], 0.06, 1e-12);
    CHECK(isnan(adj[3]));
}

/* ---- grids ---------------------------------------------------------------------------------- */

static void test_grid_expand(void)
{
    struct berth_err err = {0};
    struct berth_grid *g = NULL;
    const char *text = "# two policies, one generated workload, two variants, three seeds\n"
                       "policy fifo las\n"
                       "cluster small=4x4:v100\n"
                       "gen gv=\"--profile gavel --jobs 50\"\n"
                       "seed 1-3\n"
                       "flags base= rc=\"--restart-cost 30\"\n"
                       "sim --mode des\n";
    CHECK_I64(berth_grid_parse(text, "g.txt", "/tmp", &g, &err), 0);
    CHECK_I64(berth_grid_expand(g, "/out", &err), 0);
    /* 2 policies x 1 cluster x 1 workload x 2 flags x 3 seeds */
    CHECK_I64(berth_grid_ncells(g), 12);
    CHECK_I64(berth_grid_ninputs(g), 3); /* the workload per seed */
    const struct berth_grid_input *in = berth_grid_input(g, 1);
    CHECK_STR(in->path, "/out/traces/gv.s2.csv");
    CHECK_STR(in->argv[0], "gen");
    CHECK_STR(in->argv[in->argc - 3], "2");
    /* the order: workload, cluster, flags, policy, seed (innermost) */
    const struct berth_grid_cell *c = berth_grid_cell(g, 4);
    CHECK_STR(c->name, "las.small.gv.base.s2");
    CHECK_STR(c->argv[1], "4x4:v100");
    CHECK_STR(c->argv[3], "/out/traces/gv.s2.csv");
    CHECK_STR(c->argv[5], "las");
    CHECK_STR(c->argv[7], "2");
    CHECK_STR(c->argv[8], "--mode");
    CHECK_I64(c->argc, 10);
    c = berth_grid_cell(g, 11);
    CHECK_STR(c->name, "las.small.gv.rc.s3");
    CHECK_STR(c->argv[c->argc - 1], "30");
    CHECK(!c->argv[c->argc]);
    size_t nw;
    unsigned line;
    const char *const *w = berth_grid_flagset(g, 1, &nw, &line);
    CHECK_I64(nw, 4); /* --mode des --restart-cost 30 */
    CHECK_STR(w[2], "--restart-cost");
    CHECK_I64(line, 6);
    berth_grid_free(g);
}

static void test_grid_errors(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"policy fifo nope\ncluster 4x4:v100\ngen x=\"--jobs 5\"\n",
         "g.txt:1: policy: unknown policy 'nope'"},
        {"policy fifo\ncluster 4x:v100\ngen x=\"--jobs 5\"\n", "g.txt:2: cluster:"},
        {"policy fifo\nclusters 4x4:v100\n", "g.txt:2: expected policy, cluster"},
        {"policy fifo\ncluster 4x4:v100\ngen x=\"--jobs 5\n", "g.txt:3: an unterminated \" quote"},
        {"policy fifo fifo\ncluster 4x4:v100\ngen x=\"--jobs 5\"\n",
         "g.txt:1: policy: the label 'fifo' is taken (line 1)"},
        {"policy fifo\ncluster 4x4:v100\ngen x=\"--jobs 5 --seed 3\"\n",
         "g.txt:3: gen: '--seed': the sweep sets --seed itself"},
        {"policy fifo\ncluster 4x4:v100\ngen x=\"--jobs 5\"\nflags a=\"--clus 2x2:v100\"\n",
         "g.txt:4: flags: '--clus': the sweep sets --cluster itself"},
        {"policy fifo\ncluster 4x4:v100\ntrace /no/such/trace.csv\n",
         "g.txt:3: trace: /no/such/trace.csv: cannot read it"},
        {"policy fifo\ncluster 4x4:v100\ngen x=\"--jobs 5\"\nsim --format native\n",
         "generated and resampled traces are native CSV"},
        {"policy fifo\ncluster 4x4:v100\ngen x=\"--jobs 5\"\nresample none\nresample none\n",
         "g.txt:5: resample: give one value, once"},
        {"policy fifo\ncluster 4x4:v100\ngen x=\"--jobs 5\"\nseed 3-1\n",
         "g.txt:4: seed: expected a whole number or a range A-B, found '3-1'"},
        {"policy fifo\ncluster 4x4:v100\ngen x=\"--jobs 5\"\nseed 2 2\n",
         "g.txt:4: seed: 2 is given twice"},
        {"cluster 4x4:v100\ngen x=\"--jobs 5\"\n", "g.txt: a grid needs at least one policy line"},
        {"policy fifo\ncluster 4x4:v100\n", "g.txt: a grid needs at least one trace or gen line"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct berth_err err = {0};
        struct berth_grid *g = (struct berth_grid *)1;
        int rc = berth_grid_parse(cases[i].text, "g.txt", "/tmp", &g, &err);
        CHECK(rc == BERTH_EINPUT || rc == BERTH_EIO);
        CHECK(g == NULL);
        CHECK_HAS(err.msg, cases[i].want);
    }
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
        char want[160]; /* room for ">" TITLE "</title>" */
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

/* ---- the sweep's table and the tournament --------------------------------------------------- */

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static void put_cell(const char *out, const char *name, double jct, double preempt)
{
    char p[512];
    snprintf(p, sizeof p, "%s/cells/%s", out, name);
    mkdir(p, 0777);
    snprintf(p, sizeof p, "%s/cells/%s/summary.json", out, name);
    FILE *f = fopen(p, "w");
    if (!f)
        return;
    fprintf(f,
            "{\"jobs\": 10, \"completed\": 10, \"avg_jct_s\": %g, \"median_jct_s\": 1, "
            "\"p95_jct_s\": 1, \"p99_jct_s\": 1, \"avg_queue_s\": 1, \"p99_queue_s\": 1, "
            "\"makespan_s\": 1, \"gpu_util\": 0.5, \"preemptions\": %g, \"migrations\": 0, "
            "\"resizes\": 0, \"restarts\": 0, \"ftf_rho_max\": 1, \"ftf_rho_avg\": 1, "
            "\"ftf_jain\": 1}\n",
            jct, preempt);
    fclose(f);
}

static void test_rank(void)
{
    char out[] = "/tmp/berth-test-rank-XXXXXX";
    CHECK(mkdtemp(out) != NULL);
    char cells[600];
    snprintf(cells, sizeof cells, "%s/cells", out);
    mkdir(cells, 0777);
    struct berth_err err = {0};
    struct berth_grid *g = NULL;
    CHECK_I64(berth_grid_parse("policy las sjf srtf fifo\ncluster 4x4:v100\n"
                               "gen x=\"--jobs 5\"\nseed 1-4\n",
                               "g.txt", out, &g, &err),
              0);
    if (!g)
        return;
    CHECK_I64(berth_grid_expand(g, out, &err), 0);
    /* las: 100 110 105 115, 10 preemptions a run; srtf: 101 111 104 116 (differences -1 -1
     * 1 -1 against las: mean -0.5, sd 1, t = -1, p = 0.39: not significant), 0 preemptions;
     * sjf: las + 20 each time (equal differences: exact, p = 0); fifo failed */
    const double las[] = {100, 110, 105, 115}, srtf[] = {101, 111, 104, 116};
    char name[128];
    for (int s = 0; s < 4; s++) {
        snprintf(name, sizeof name, "las.4x4-v100.x.base.s%d", s + 1);
        put_cell(out, name, las[s], 10);
        snprintf(name, sizeof name, "srtf.4x4-v100.x.base.s%d", s + 1);
        put_cell(out, name, srtf[s], 0);
        snprintf(name, sizeof name, "sjf.4x4-v100.x.base.s%d", s + 1);
        put_cell(out, name, las[s] + 20, 0);
    }
    char p[700];
    snprintf(p, sizeof p, "%s/cells/fifo.4x4-v100.x.base.s1.failed", out);
    FILE *f = fopen(p, "w");
    if (f) {
        fprintf(f, "exit 2\nberth: %s/traces/x.s1.csv:2: job 1: too big\n", out);
        fclose(f);
    }
    struct berth_sweep_table *t = NULL;
    CHECK_I64(berth_sweep_table_load(g, out, 0, &t, &err), BERTH_EINPUT); /* fifo s2 not run */
    CHECK_HAS(err.msg, "cell fifo.4x4-v100.x.base.s2 has not run");
    CHECK_I64(berth_sweep_table_load(g, out, 1, &t, &err), 0);
    struct berth_ranking *r = NULL;
    if (t) {
        CHECK_I64(berth_sweep_table_failed(t), 4);
        CHECK_I64(berth_compare_rank(t, berth_metric_find("avg-jct"), 0.05, &r, &err), 0);
    }
    if (r) {
        /* las and srtf are not apart, srtf within 5 % of las' mean (0.5 %) and it disrupts less */
        CHECK_STR(berth_ranking_winner(r), "srtf");
        CHECK_HAS(berth_ranking_reason(r), "srtf is within 0.5 % of the best avg JCT (las");
        CHECK_HAS(berth_ranking_reason(r), "not significantly worse");
        CHECK_HAS(berth_ranking_reason(r), "disrupts jobs least");
        char *js = berth_ranking_json(r);
        CHECK_HAS(js, "\"winner\":\"srtf\"");
        CHECK_HAS(js, "\"policy\":\"sjf\"");
        CHECK_HAS(js, "\"significant\":true");
        CHECK_HAS(js, "\"reason\":\"traces/x.s1.csv:2: job 1: too big\"");
        free(js);
        CHECK_I64(berth_sweep_table_write(t, out, "t", r, &err), 0);
        snprintf(p, sizeof p, "%s/summary.csv", out);
        f = fopen(p, "r");
        char line[4096] = "";
        CHECK(f && fgets(line, sizeof line, f) && fgets(line, sizeof line, f));
        if (f)
            fclose(f);
        /* the first group is las: mean 107.5; ci95 t(3) 3.1824 x sd 6.455 / 2 = 10.27 */
        CHECK_HAS(line, "las,4x4-v100,x,base,4,4,10,0,10,0,107.5");
        CHECK_HAS(line, ",10.271");
    }
    berth_ranking_free(r);
    berth_sweep_table_free(t);
    berth_grid_free(g);
    nftw(out, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

static const struct check_test tests[] = {
    {"nice_step", test_nice_step},
    {"axis_linear", test_axis_linear},
    {"axis_log", test_axis_log},
    {"student_t", test_student_t},
    {"ci_and_tests", test_ci_and_tests},
    {"grid_expand", test_grid_expand},
    {"grid_errors", test_grid_errors},
    {"run_load", test_run_load},
    {"charts", test_charts},
    {"rank", test_rank},
};

CHECK_MAIN(tests)
