/* A run read back from a --out folder: summary.json, jobs.csv, series.csv, and (when the
 * folder has them) events.csv and groups.csv. Columns are found by their header names, so
 * columns added later do not break the reader; a bad field is an error naming the file, the
 * line and the column. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "berth/report.h"
#include "report/run.h"
#include "util/csv.h"
#include "util/mem.h"
#include "util/num.h"

#define MAXCOLS 12

/* A CSV file whose columns are looked up by name. */
struct table {
    struct berth__csv *csv;
    const char *path;
    int col[MAXCOLS]; /* field index of each wanted column, -1 when absent */
};

static int table_open(struct table *t, const char *path, const char *const *names, size_t n,
                      size_t required, struct berth_err *err)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    int rc = berth__csv_open(&t->csv, path, ',', err);
    if (rc)
        return rc;
    rc = berth__csv_next(t->csv, err);
    if (rc <= 0) {
        berth__csv_close(t->csv);
        t->csv = NULL;
        return rc < 0 ? rc : berth_err_set(err, BERTH_EINPUT, "%s: empty (no header)", path);
    }
    for (size_t k = 0; k < n; k++) {
        t->col[k] = -1;
        for (size_t i = 0; i < berth__csv_nfields(t->csv); i++)
            if (!strcmp(berth__csv_field(t->csv, i), names[k]))
                t->col[k] = (int)i;
        if (t->col[k] < 0 && k < required) {
            rc = berth_err_set(err, BERTH_EINPUT, "%s:%u: column %s: missing from the header", path,
                               berth__csv_line(t->csv), names[k]);
            berth__csv_close(t->csv);
            t->csv = NULL;
            return rc;
        }
    }
    return 0;
}

/* Field k of the current row as a number; empty = NaN when may_be_empty. */
static int table_num(struct table *t, size_t k, const char *name, int may_be_empty, double *out,
                     struct berth_err *err)
{
    *out = NAN;
    if (t->col[k] < 0)
        return 0;
    size_t i = (size_t)t->col[k];
    if (i >= berth__csv_nfields(t->csv))
        return berth_err_set(err, BERTH_EINPUT, "%s:%u: column %s: missing (the row is short)",
                             t->path, berth__csv_line(t->csv), name);
    const char *f = berth__csv_field(t->csv, i);
    size_t len = berth__csv_len(t->csv, i);
    if (!len && may_be_empty)
        return 0;
    if (berth__parse_double(f, len, out)) {
        char ex[64];
        return berth_err_set(err, BERTH_EINPUT, "%s:%u: column %s: expected a number, found %s",
                             t->path, berth__csv_line(t->csv), name,
                             berth__excerpt(ex, sizeof ex, f, len));
    }
    return 0;
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static int load_summary(struct berth_run *r, const char *path, struct berth_err *err)
{
    json_error_t je;
    r->summary = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!r->summary)
        return berth_err_set(err, access(path, R_OK) ? BERTH_EIO : BERTH_EINPUT,
                             "%s:%d: %s (is it a berth sim --out folder?)", path, je.line, je.text);
    if (!json_is_object(r->summary))
        return berth_err_set(err, BERTH_EINPUT, "%s: expected a JSON object", path);
    static const char *const keys[] = {"policy", "placement", "mode"};
    char *dst[] = {r->policy, r->placement, r->mode};
    size_t sz[] = {sizeof r->policy, sizeof r->placement, sizeof r->mode};
    for (int k = 0; k < 3; k++) {
        json_t *v = json_object_get(r->summary, keys[k]);
        if (!json_is_string(v))
            return berth_err_set(err, BERTH_EINPUT, "%s: field %s: expected a string", path,
                                 keys[k]);
        snprintf(dst[k], sz[k], "%s", json_string_value(v));
    }
    static const char *const nums[] = {"jobs", "completed", "avg_jct_s", "makespan_s", "gpu_util"};
    for (int k = 0; k < 5; k++)
        if (!json_is_number(json_object_get(r->summary, nums[k])))
            return berth_err_set(err, BERTH_EINPUT, "%s: field %s: expected a number", path,
                                 nums[k]);
    return 0;
}

static int load_jobs(struct berth_run *r, const char *path, struct berth_err *err)
{
    static const char *const names[] = {"jct_s", "queue_s", "num_gpus", "ftf_rho"};
    struct table t;
    int rc = table_open(&t, path, names, 4, 3, err);
    size_t cap = 0, wcap = 0, gcap = 0, rcap = 0;
    while (!rc && (rc = berth__csv_next(t.csv, err)) == 1) {
        double jct, wait, gang, rho;
        if ((rc = table_num(&t, 0, names[0], 1, &jct, err)) ||
            (rc = table_num(&t, 1, names[1], 1, &wait, err)) ||
            (rc = table_num(&t, 2, names[2], 0, &gang, err)) ||
            (rc = table_num(&t, 3, names[3], 1, &rho, err)))
            break;
        if (!isnan(wait)) {
            if (BERTH_GROW(r->wait, wcap, r->nwait + 1))
                goto nomem;
            r->wait[r->nwait++] = wait;
        }
        if (!isnan(jct)) {
            if (BERTH_GROW(r->jct, cap, r->ndone + 1) || BERTH_GROW(r->gang, gcap, r->ndone + 1) ||
                BERTH_GROW(r->rho, rcap, r->ndone + 1))
                goto nomem;
            r->jct[r->ndone] = jct;
            r->gang[r->ndone] = (int32_t)gang;
            r->rho[r->ndone++] = isnan(rho) ? 0 : rho;
        }
    }
    if (t.csv)
        berth__csv_close(t.csv);
    return rc < 0 ? rc : 0;
nomem:
    berth__csv_close(t.csv);
    return berth_err_set(err, BERTH_ENOMEM, "out of memory");
}

/* *t0: the first row's time, the origin of the run's times (NaN when none) */
static int load_series(struct berth_run *r, const char *path, double *t0_out, struct berth_err *err)
{
    static const char *const names[] = {"time_s", "busy_gpus", "pending"};
    struct table t;
    int rc = table_open(&t, path, names, 3, 3, err);
    size_t c1 = 0, c2 = 0, c3 = 0;
    double t0 = NAN;
    while (!rc && (rc = berth__csv_next(t.csv, err)) == 1) {
        double v[3];
        rc = 0;
        for (size_t k = 0; k < 3 && !rc; k++)
            rc = table_num(&t, k, names[k], 0, &v[k], err);
        if (rc)
            break;
        if (isnan(t0))
            t0 = v[0];
        if (BERTH_GROW(r->st, c1, r->nseries + 1) || BERTH_GROW(r->busy, c2, r->nseries + 1) ||
            BERTH_GROW(r->pending, c3, r->nseries + 1)) {
            berth__csv_close(t.csv);
            return berth_err_set(err, BERTH_ENOMEM, "out of memory");
        }
        r->st[r->nseries] = v[0] - t0;
        r->busy[r->nseries] = v[1];
        r->pending[r->nseries++] = v[2];
    }
    if (t.csv)
        berth__csv_close(t.csv);
    *t0_out = t0;
    return rc < 0 ? rc : 0;
}

static int load_events(struct berth_run *r, const char *path, double t0, struct berth_err *err)
{
    static const char *const names[] = {"time_s", "preemptions", "migrations", "resizes"};
    struct table t;
    int rc = table_open(&t, path, names, 4, 2, err);
    size_t c1 = 0, c2 = 0;
    while (!rc && (rc = berth__csv_next(t.csv, err)) == 1) {
        double v[4];
        rc = 0;
        for (size_t k = 0; k < 4 && !rc; k++)
            rc = table_num(&t, k, names[k], 1, &v[k], err);
        if (rc)
            break;
        if (BERTH_GROW(r->et, c1, r->nevents + 1) || BERTH_GROW(r->epre, c2, r->nevents + 1)) {
            berth__csv_close(t.csv);
            return berth_err_set(err, BERTH_ENOMEM, "out of memory");
        }
        r->et[r->nevents] = v[0] - (isnan(t0) ? 0 : t0);
        r->epre[r->nevents++] =
            (isnan(v[1]) ? 0 : v[1]) + (isnan(v[2]) ? 0 : v[2]) + (isnan(v[3]) ? 0 : v[3]);
    }
    if (t.csv)
        berth__csv_close(t.csv);
    return rc < 0 ? rc : 0;
}

static int load_groups(struct berth_run *r, const char *path, struct berth_err *err)
{
    static const char *const names[] = {"group",       "name",      "jobs",
                                        "completed",   "avg_jct_s", "gpu_hours",
                                        "ftf_rho_avg", "gpus",      "util"};
    struct table t;
    int rc = table_open(&t, path, names, 9, 7, err);
    size_t cap = 0;
    while (!rc && (rc = berth__csv_next(t.csv, err)) == 1) {
        rc = 0;
        if (berth__csv_nfields(t.csv) <= (size_t)t.col[1]) {
            rc = berth_err_set(err, BERTH_EINPUT, "%s:%u: column name: missing (the row is short)",
                               path, berth__csv_line(t.csv));
            break;
        }
        const char *kind = berth__csv_field(t.csv, (size_t)t.col[0]);
        char k = !strcmp(kind, "gpu_type") ? 't'
                 : !strcmp(kind, "user")   ? 'u'
                 : !strcmp(kind, "queue")  ? 'q'
                                           : 0;
        if (!k) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s:%u: column group: expected gpu_type, user or queue, found "
                               "\"%.40s\"",
                               path, berth__csv_line(t.csv), kind);
            break;
        }
        if (BERTH_GROW(r->groups, cap, r->ngroups + 1)) {
            rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
            break;
        }
        struct berth__run_group *g = &r->groups[r->ngroups];
        memset(g, 0, sizeof *g);
        g->kind = k;
        double *dst[] = {&g->jobs,    &g->completed, &g->avg_jct_s, &g->gpu_hours,
                         &g->rho_avg, &g->gpus,      &g->util};
        for (size_t c = 2; c < 9 && !rc; c++)
            rc = table_num(&t, c, names[c], c >= 7, dst[c - 2], err);
        if (rc)
            break;
        if (!(g->name = strdup(berth__csv_field(t.csv, (size_t)t.col[1])))) {
            rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
            break;
        }
        r->ngroups++;
    }
    if (t.csv)
        berth__csv_close(t.csv);
    return rc < 0 ? rc : 0;
}

/* The folder's last path component, for a label. */
static const char *base(const char *dir, size_t *len)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    size_t s = n;
    while (s > 0 && dir[s - 1] != '/')
        s--;
    *len = n - s;
    return dir + s;
}

int berth_run_load(const char *dir, struct berth_run **out, struct berth_err *err)
{
    *out = NULL;
    struct berth_run *r = calloc(1, sizeof *r);
    if (!r || !(r->dir = strdup(dir))) {
        free(r);
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    static const char *const files[] = {"summary.json", "jobs.csv", "series.csv", "events.csv",
                                        "groups.csv"};
    char *p[5] = {0};
    int rc = 0;
    double t0 = NAN;
    for (int i = 0; i < 5; i++)
        if (!(p[i] = join(dir, files[i])))
            rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
    if (!rc)
        rc = load_summary(r, p[0], err);
    if (!rc)
        rc = load_jobs(r, p[1], err);
    if (!rc)
        rc = load_series(r, p[2], &t0, err);
    if (!rc && !access(p[3], F_OK)) { /* absent in folders of berth before events.csv */
        r->has_events = 1;
        rc = load_events(r, p[3], t0, err);
    }
    if (!rc && !access(p[4], F_OK)) {
        r->has_groups = 1;
        rc = load_groups(r, p[4], err);
    }
    if (!rc) {
        size_t n;
        const char *b = base(dir, &n);
        if (!(r->label = strndup(b, n)))
            rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    for (int i = 0; i < 5; i++)
        free(p[i]);
    if (rc) {
        berth_run_free(r);
        return rc;
    }
    *out = r;
    return 0;
}
