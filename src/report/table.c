/* A sweep's results: the cells' summaries read back, grouped over seeds with their means and
 * 95 % confidence intervals, written as CSV, JSON and an HTML report (see berth/report.h). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/chart.h"
#include "report/html.h"
#include "report/metric.h"
#include "report/rank.h"
#include "report/stats.h"
#include "report/table.h"
#include "util/csv.h"

/* ---- loading ------------------------------------------------------------------------- */

static int load_row(struct berth__sweep_row *row, const char *out, struct berth_err *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/cells/%s/summary.json", out, row->cell->name);
    json_error_t je;
    json_t *o = json_load_file(path, 0, &je);
    if (!o) {
        snprintf(path, sizeof path, "%s/cells/%s.failed", out, row->cell->name);
        FILE *f = fopen(path, "r");
        if (!f) {
            snprintf(row->why, sizeof row->why, "has not run");
            return 0;
        }
        /* the reason: the first line of stderr (after the "exit N" line) */
        char line[256] = "", first[256] = "";
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = '\0';
            if (!first[0] || !strncmp(first, "exit ", 5))
                snprintf(first, sizeof first, "%s", line);
            if (strncmp(first, "exit ", 5))
                break;
        }
        fclose(f);
        /* "berth: OUT/traces/x.csv:2: ..." says "traces/x.csv:2: ..." */
        const char *w = first;
        if (!strncmp(w, "berth: ", 7))
            w += 7;
        size_t ol = strlen(out);
        if (!strncmp(w, out, ol) && w[ol] == '/')
            w += ol + 1;
        snprintf(row->why, sizeof row->why, "%s", *w ? w : "failed");
        return 0;
    }
    for (size_t k = 0; k < BERTH_NMETRICS; k++) {
        json_t *v = json_object_get(o, berth__metrics[k].key);
        if (!json_is_number(v)) {
            json_decref(o);
            return berth_err_set(err, BERTH_EINPUT, "%s: field %s: expected a number", path,
                                 berth__metrics[k].key);
        }
        row->m[k] = json_number_value(v);
    }
    json_decref(o);
    row->ok = 1;
    return 0;
}

static int same_group(const struct berth_grid_cell *a, const struct berth_grid_cell *b)
{
    return !strcmp(a->policy, b->policy) && !strcmp(a->cluster, b->cluster) &&
           !strcmp(a->workload, b->workload) && !strcmp(a->flags, b->flags);
}

static int summarise(struct berth_sweep_table *t, struct berth__sweep_group *g)
{
    double *v = malloc((g->n + 1) * sizeof *v);
    if (!v)
        return -1;
    for (size_t k = 0; k < BERTH_NMETRICS; k++) {
        size_t m = 0;
        for (size_t i = g->first; i < g->first + g->n; i++)
            if (t->rows[i].ok)
                v[m++] = t->rows[i].m[k];
        g->mean[k] = m ? berth__mean(v, m) : NAN;
        g->ci[k] = berth__ci95(v, m);
        g->nok = m;
    }
    free(v);
    return 0;
}

int berth_sweep_table_load(const struct berth_grid *g, const char *out, int allow_missing,
                           struct berth_sweep_table **tp, struct berth_err *err)
{
    *tp = NULL;
    struct berth_sweep_table *t = calloc(1, sizeof *t);
    size_t n = berth_grid_ncells(g);
    if (!t || !(t->rows = calloc(n + 1, sizeof *t->rows)) ||
        !(t->groups = calloc(n + 1, sizeof *t->groups))) {
        berth_sweep_table_free(t);
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    t->g = g;
    int rc = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        struct berth__sweep_row *row = &t->rows[t->nrows++];
        row->cell = berth_grid_cell(g, i);
        rc = load_row(row, out, err);
        if (!rc && !row->ok && !allow_missing && !strcmp(row->why, "has not run"))
            rc = berth_err_set(err, BERTH_EINPUT, "cell %s has not run (berth sweep runs it)",
                               row->cell->name);
    }
    /* groups: cells of one group are consecutive (the seed is the innermost loop) */
    for (size_t i = 0; !rc && i < t->nrows; i++) {
        struct berth__sweep_group *gr = t->ngroups ? &t->groups[t->ngroups - 1] : NULL;
        if (!gr || !same_group(t->rows[gr->first].cell, t->rows[i].cell)) {
            gr = &t->groups[t->ngroups++];
            gr->first = i;
            gr->policy = t->rows[i].cell->policy;
            gr->cluster = t->rows[i].cell->cluster;
            gr->workload = t->rows[i].cell->workload;
            gr->flags = t->rows[i].cell->flags;
        }
        gr->n++;
    }
    for (size_t i = 0; !rc && i < t->ngroups; i++)
        if (summarise(t, &t->groups[i]))
            rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
    if (rc) {
        berth_sweep_table_free(t);
        return rc;
    }
    *tp = t;
    return 0;
}

void berth_sweep_table_free(struct berth_sweep_table *t)
{
    if (!t)
        return;
    free(t->rows);
    free(t->groups);
    free(t);
}

size_t berth_sweep_table_failed(const struct berth_sweep_table *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nrows; i++)
        n += !t->rows[i].ok;
    return n;
}

const char *berth_sweep_table_why(const struct berth_sweep_table *t, size_t i)
{
    return i < t->nrows && !t->rows[i].ok ? t->rows[i].why : NULL;
}

/* ---- CSV and JSON --------------------------------------------------------------------- */

static void put_num(FILE *f, double v)
{
    if (isnan(v))
        return;
    if (v == floor(v) && fabs(v) < 1e15)
        fprintf(f, "%.0f", v);
    else
        fprintf(f, "%.6f", v);
}

static int write_results_csv(const struct berth_sweep_table *t, const char *path,
                             struct berth_err *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return berth_err_set(err, BERTH_EIO, "%s: cannot write: %s", path, strerror(errno));
    fputs("cell,policy,cluster,workload,flags,seed,status", f);
    for (size_t k = 0; k < BERTH_NMETRICS; k++)
        fprintf(f, ",%s", berth__metrics[k].key);
    fputc('\n', f);
    for (size_t i = 0; i < t->nrows; i++) {
        const struct berth__sweep_row *r = &t->rows[i];
        const struct berth_grid_cell *c = r->cell;
        fprintf(f, "%s,%s,%s,%s,%s,%llu,", c->name, c->policy, c->cluster, c->workload, c->flags,
                (unsigned long long)c->seed);
        berth__csv_put(f, r->ok ? "ok" : r->why);
        for (size_t k = 0; k < BERTH_NMETRICS; k++) {
            fputc(',', f);
            if (r->ok)
                put_num(f, r->m[k]);
        }
        fputc('\n', f);
    }
    int bad = ferror(f);
    if (fclose(f) || bad)
        return berth_err_set(err, BERTH_EIO, "%s: write error", path);
    return 0;
}

static int write_summary_csv(const struct berth_sweep_table *t, const char *path,
                             struct berth_err *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return berth_err_set(err, BERTH_EIO, "%s: cannot write: %s", path, strerror(errno));
    fputs("policy,cluster,workload,flags,seeds,done", f);
    for (size_t k = 0; k < BERTH_NMETRICS; k++)
        fprintf(f, ",%s_mean,%s_ci95", berth__metrics[k].key, berth__metrics[k].key);
    fputc('\n', f);
    for (size_t i = 0; i < t->ngroups; i++) {
        const struct berth__sweep_group *g = &t->groups[i];
        fprintf(f, "%s,%s,%s,%s,%zu,%zu", g->policy, g->cluster, g->workload, g->flags, g->n,
                g->nok);
        for (size_t k = 0; k < BERTH_NMETRICS; k++) {
            fputc(',', f);
            put_num(f, g->mean[k]);
            fputc(',', f);
            put_num(f, g->ci[k]);
        }
        fputc('\n', f);
    }
    int bad = ferror(f);
    if (fclose(f) || bad)
        return berth_err_set(err, BERTH_EIO, "%s: write error", path);
    return 0;
}

static json_t *num_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

static int write_results_json(const struct berth_sweep_table *t, const char *path,
                              struct berth_err *err)
{
    json_t *cells = json_array(), *groups = json_array();
    int bad = !cells || !groups;
    for (size_t i = 0; !bad && i < t->nrows; i++) {
        const struct berth__sweep_row *r = &t->rows[i];
        const struct berth_grid_cell *c = r->cell;
        json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:I,s:s}", "cell", c->name, "policy", c->policy,
                              "cluster", c->cluster, "workload", c->workload, "flags", c->flags,
                              "seed", (json_int_t)c->seed, "status", r->ok ? "ok" : r->why);
        for (size_t k = 0; o && k < BERTH_NMETRICS; k++)
            bad |= json_object_set_new(o, berth__metrics[k].key,
                                       r->ok ? json_real(r->m[k]) : json_null());
        bad |= !o || json_array_append_new(cells, o);
    }
    for (size_t i = 0; !bad && i < t->ngroups; i++) {
        const struct berth__sweep_group *g = &t->groups[i];
        json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:I,s:I}", "policy", g->policy, "cluster",
                              g->cluster, "workload", g->workload, "flags", g->flags, "seeds",
                              (json_int_t)g->n, "done", (json_int_t)g->nok);
        for (size_t k = 0; o && k < BERTH_NMETRICS; k++)
            bad |= json_object_set_new(o, berth__metrics[k].key,
                                       json_pack("{s:o,s:o}", "mean", num_or_null(g->mean[k]),
                                                 "ci95", num_or_null(g->ci[k])));
        bad |= !o || json_array_append_new(groups, o);
    }
    json_t *doc = bad ? NULL : json_pack("{s:o,s:o}", "cells", cells, "groups", groups);
    if (!doc) {
        if (!bad)
            cells = groups = NULL;
        json_decref(cells);
        json_decref(groups);
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    int rc =
        json_dump_file(doc, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    json_decref(doc);
    return rc ? berth_err_set(err, BERTH_EIO, "%s: cannot write", path) : 0;
}

/* ---- the report ------------------------------------------------------------------------ */

/* "1.23 h ± 0.05" */
static void mean_ci(char *b, size_t len, const struct berth_metric *m, double mean, double ci)
{
    char x[48], y[48];
    berth__fmt_metric(x, sizeof x, m, mean);
    if (isnan(ci)) {
        snprintf(b, len, "%s", x);
        return;
    }
    berth__fmt_metric(y, sizeof y, m, ci);
    snprintf(b, len, "%s ± %s", x, y);
}

static const size_t shown[] = {2, 5, 6, 8, 9, 10, 14, 16};
#define NSHOWN (sizeof shown / sizeof *shown)

static void groups_table(struct berth__svg *s, const struct berth_sweep_table *t)
{
    /* a column the same for every group (one cluster, one workload, no flags) is said once
     * above the table instead, so that the metrics fit the page */
    static const char *const heads[] = {"policy", "cluster", "workload", "flags"};
    int show[4] = {1, 0, 0, 0}, any_same = 0;
    for (size_t i = 1; i < t->ngroups; i++) {
        const struct berth__sweep_group *a = &t->groups[0], *g = &t->groups[i];
        show[1] |= strcmp(a->cluster, g->cluster) != 0;
        show[2] |= strcmp(a->workload, g->workload) != 0;
        show[3] |= strcmp(a->flags, g->flags) != 0;
    }
    for (int k = 1; k < 4 && t->ngroups; k++)
        if (!show[k]) {
            const struct berth__sweep_group *g = &t->groups[0];
            const char *v = k == 1 ? g->cluster : k == 2 ? g->workload : g->flags;
            berth__svg_printf(s, any_same ? " \xc2\xb7 %s " : "<p class=\"same\">%s ", heads[k]);
            berth__svg_printf(s, "<b>");
            berth__svg_escape(s, v);
            berth__svg_printf(s, "</b>");
            any_same = 1;
        }
    if (any_same)
        berth__svg_printf(s, " (every group)</p>\n");
    berth__svg_printf(s, "<div class=\"wide\"><table id=\"sweep-table\">\n<tr>");
    for (int k = 0; k < 4; k++)
        if (show[k])
            berth__svg_printf(s, "<th class=\"l\">%s</th>", heads[k]);
    berth__svg_printf(s, "<th>seeds</th>");
    for (size_t k = 0; k < NSHOWN; k++)
        berth__svg_printf(s, "<th>%s</th>", berth__metrics[shown[k]].name);
    berth__svg_printf(s, "</tr>\n");
    for (size_t i = 0; i < t->ngroups; i++) {
        const struct berth__sweep_group *g = &t->groups[i];
        berth__svg_printf(s, "<tr>");
        const char *l[] = {g->policy, g->cluster, g->workload, g->flags};
        for (int k = 0; k < 4; k++) {
            if (!show[k])
                continue;
            berth__svg_printf(s, "<td class=\"l\">");
            berth__svg_escape(s, l[k]);
            berth__svg_printf(s, "</td>");
        }
        berth__svg_printf(s, "<td>%zu/%zu</td>", g->nok, g->n);
        for (size_t k = 0; k < NSHOWN; k++) {
            char b[160];
            mean_ci(b, sizeof b, &berth__metrics[shown[k]], g->mean[shown[k]], g->ci[shown[k]]);
            berth__svg_printf(s, "<td>");
            berth__svg_escape(s, b);
            berth__svg_printf(s, "</td>");
        }
        berth__svg_printf(s, "</tr>\n");
    }
    berth__svg_printf(s, "</table></div>\n");
}

/* The chart of metric k: per policy (x), one dot with its 95 % interval per configuration
 * (cluster, workload, flags). */
static void metric_chart(struct berth__svg *s, const struct berth_sweep_table *t, size_t k)
{
    const struct berth_metric *m = &berth__metrics[k];
    const char *pols[40], *confs[64];
    char conf_names[64][128];
    int np = 0, nc = 0;
    for (size_t i = 0; i < t->ngroups; i++) {
        const struct berth__sweep_group *g = &t->groups[i];
        int p = 0;
        while (p < np && strcmp(pols[p], g->policy))
            p++;
        if (p == np && np < 40)
            pols[np++] = g->policy;
        char name[128];
        snprintf(name, sizeof name, "%s / %s / %s", g->cluster, g->workload, g->flags);
        int c = 0;
        while (c < nc && strcmp(conf_names[c], name))
            c++;
        if (c == nc && nc < 64) {
            snprintf(conf_names[nc], sizeof conf_names[nc], "%s", name);
            confs[nc] = conf_names[nc];
            nc++;
        }
    }
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < t->ngroups; i++) {
        const struct berth__sweep_group *g = &t->groups[i];
        double v = g->mean[k], c = isnan(g->ci[k]) ? 0 : g->ci[k];
        if (isnan(v))
            continue;
        lo = fmin(lo, fmax(0, v - c));
        hi = fmax(hi, v + c);
    }
    /* shown in % for fractions (the interval cut at 100 %), in hours or days for long
     * durations */
    double cap = m->kind == 2 ? 1 : INFINITY;
    hi = fmin(hi, cap);
    double mul = m->kind == 2                     ? 100
                 : m->kind == 0 && hi > 3 * 86400 ? 1.0 / 86400
                 : m->kind == 0 && hi > 7200      ? 1.0 / 3600
                                                  : 1;
    const char *unit = m->kind == 2   ? "%"
                       : m->kind == 0 ? (mul < 1.0 / 3600 ? "days"
                                         : mul < 1        ? "hours"
                                                          : "seconds")
                                      : NULL;
    char id[64], title[128], ylabel[96];
    snprintf(id, sizeof id, "sweep-%s", m->key);
    snprintf(title, sizeof title, "%s by policy", m->name);
    if (unit)
        snprintf(ylabel, sizeof ylabel, "%s (%s)", m->name, unit);
    else
        snprintf(ylabel, sizeof ylabel, "%s", m->name);
    struct berth__chart c;
    berth__chart_open(&c, s, id, title,
                      m->kind == 2 ? "mean over the seeds (dot) and its 95 % confidence interval "
                                     "(whisker, cut at 0 and 100 %); legend: cluster / workload / "
                                     "flags"
                                   : "mean over the seeds (dot) and its 95 % confidence interval "
                                     "(whisker, cut at 0); legend: cluster / workload / flags",
                      confs, (size_t)nc, 0);
    berth__axis_bands(&c.x, np ? np : 1, np ? pols : (const char *[]){"-"});
    if (isinf(lo))
        lo = 0, hi = 1;
    berth__axis_linear(&c.y, 0, hi * mul, 6); /* every metric is >= 0 */
    berth__chart_axes(&c, "policy", ylabel);
    for (size_t i = 0; i < t->ngroups; i++) {
        const struct berth__sweep_group *g = &t->groups[i];
        char name[128];
        snprintf(name, sizeof name, "%s / %s / %s", g->cluster, g->workload, g->flags);
        int p = 0, cc = 0;
        while (p < np && strcmp(pols[p], g->policy))
            p++;
        while (cc < nc && strcmp(conf_names[cc], name))
            cc++;
        if (p < np && cc < nc)
            berth__chart_dot(&c, p, cc, nc, g->mean[k] * mul, fmax(0, g->mean[k] - g->ci[k]) * mul,
                             fmin(g->mean[k] + g->ci[k], cap) * mul);
    }
    berth__chart_close(&c);
}

static int write_report(const struct berth_sweep_table *t, const char *path, const char *title,
                        const struct berth_ranking *rank, struct berth_err *err)
{
    struct berth__svg s;
    berth__svg_init(&s);
    char lead[256];
    size_t seeds = t->ngroups ? t->groups[0].n : 0;
    snprintf(lead, sizeof lead, "%zu cells: %zu groups of %zu seed%s; %zu failed or not run",
             t->nrows, t->ngroups, seeds, seeds == 1 ? "" : "s", berth_sweep_table_failed(t));
    berth__html_begin(&s, title, lead);
    if (rank)
        berth__ranking_html(&s, rank);
    berth__svg_printf(&s, "<h2 id=\"groups\">Mean and 95 %% confidence interval over the "
                          "seeds</h2>\n");
    groups_table(&s, t);
    berth__svg_printf(&s, "<h2 id=\"charts\">Charts</h2>\n");
    static const size_t charted[] = {2, 5, 8, 9, 14};
    for (size_t k = 0; k < sizeof charted / sizeof *charted; k++) {
        berth__svg_printf(&s, "<figure>\n");
        metric_chart(&s, t, charted[k]);
        berth__svg_printf(&s, "</figure>\n");
    }
    berth__html_end(&s);
    FILE *f = fopen(path, "w");
    int rc = f ? berth__html_write(&s, f, err)
               : berth_err_set(err, BERTH_EIO, "%s: cannot write: %s", path, strerror(errno));
    if (f && fclose(f) && !rc)
        rc = berth_err_set(err, BERTH_EIO, "%s: write error", path);
    berth__svg_free(&s);
    return rc;
}

int berth_sweep_table_write(const struct berth_sweep_table *t, const char *out, const char *title,
                            const struct berth_ranking *rank, struct berth_err *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/results.csv", out);
    int rc = write_results_csv(t, path, err);
    if (!rc) {
        snprintf(path, sizeof path, "%s/results.json", out);
        rc = write_results_json(t, path, err);
    }
    if (!rc) {
        snprintf(path, sizeof path, "%s/summary.csv", out);
        rc = write_summary_csv(t, path, err);
    }
    if (!rc) {
        snprintf(path, sizeof path, "%s/report.html", out);
        rc = write_report(t, path, title ? title : "berth sweep", rank, err);
    }
    return rc;
}
