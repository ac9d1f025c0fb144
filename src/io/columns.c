/* The one reader for CSV files with named columns (columns.h): header mapping, row widths
 * and field errors, so that every trace and cluster format says them the same way. */
#include <stdio.h>
#include <string.h>

#include "io/columns.h"
#include "util/num.h"

/* Writes names[0 .. n) joined by ", " into buf (cut to cap); returns buf. */
static char *join(char *buf, size_t cap, const char *const *names, int n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int k = 0; k < n && o < cap; k++) {
        int w = snprintf(buf + o, cap - o, "%s%s", k ? ", " : "", names[k]);
        if (w < 0)
            break;
        o += (size_t)w;
    }
    return buf;
}

static int unknown_column(const struct berth__cols *x, size_t i, const char *h,
                          struct berth_err *err)
{
    const struct berth__cols_spec *s = x->spec;
    char list[512] = "", names[500];
    if (!s->unknown_bare)
        snprintf(list, sizeof list, " (%s)", join(names, sizeof names, s->names, s->ncols));
    return berth_err_set(err, BERTH_EINPUT, "%s:%u: column %zu: expected %s%s%s%s, found \"%.*s\"",
                         x->path, x->line, i + 1, s->unknown, list,
                         s->prefix ? " or one starting with " : "", s->prefix ? s->prefix : "",
                         s->quote_max > 0 ? s->quote_max : -1, h);
}

int berth__cols_missing(const struct berth__cols *x, int c, struct berth_err *err)
{
    const struct berth__cols_spec *s = x->spec;
    char header[512], names[480];
    if (s->header)
        snprintf(header, sizeof header, "%s", s->header);
    else
        snprintf(header, sizeof header, " (required: %s)",
                 join(names, sizeof names, s->names, s->nrequired));
    return berth_err_set(
        err, BERTH_EINPUT, "%s:%u: column %s: expected in the header%s, found no such column%s",
        x->path, x->line, s->names[c], header, s->missing_note ? s->missing_note : "");
}

/* Maps the header row onto spec's names. */
static int header(struct berth__cols *x, struct berth_err *err)
{
    const struct berth__cols_spec *s = x->spec;
    x->nfields = berth__csv_nfields(x->csv);
    x->line = berth__csv_line(x->csv);
    for (size_t i = 0; i < x->nfields; i++) {
        const char *h = berth__csv_field(x->csv, i);
        if (i == 0)
            h = berth__cols_skip_bom(h);
        int found = -1;
        for (int c = 0; c < s->ncols && found < 0; c++)
            if (!strcmp(h, s->names[c]))
                found = c;
        if (found < 0) {
            if (!s->unknown || (s->prefix && !strncmp(h, s->prefix, strlen(s->prefix))))
                continue;
            return unknown_column(x, i, h, err);
        }
        if (x->idx[found] >= 0)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:%u: column %s: expected once, found twice (columns %d and "
                                 "%zu)",
                                 x->path, x->line, h, x->idx[found] + 1, i + 1);
        x->idx[found] = (int)i;
    }
    int rc = s->check ? s->check(x, err) : 0;
    for (int c = 0; c < s->nrequired && !rc; c++)
        if (x->idx[c] < 0)
            rc = berth__cols_missing(x, c, err);
    return rc;
}

int berth__cols_open(struct berth__cols *x, const struct berth__cols_spec *spec, const char *path,
                     struct berth__load *L, struct berth_err *err)
{
    memset(x, 0, sizeof *x);
    x->spec = spec;
    x->L = L;
    x->path = path;
    for (int c = 0; c < BERTH__COLS_MAX; c++)
        x->idx[c] = -1;
    if (spec->ncols > BERTH__COLS_MAX)
        return berth_err_set(err, BERTH_EINTERNAL, "%s: a format with %d columns, at most %d", path,
                             spec->ncols, BERTH__COLS_MAX);
    int rc = berth__csv_open(&x->csv, path, ',', err);
    if (!rc && L)
        berth__csv_progress(x->csv, L->progress, L->progress_ctx);
    if (rc)
        return rc;
    rc = berth__csv_next(x->csv, err);
    if (rc == 0)
        return berth_err_set(err, BERTH_EINPUT, "%s:1: expected %s, found an empty file", path,
                             spec->empty);
    return rc < 0 ? rc : header(x, err);
}

void berth__cols_close(struct berth__cols *x)
{
    berth__csv_close(x->csv);
    x->csv = NULL;
}

int berth__cols_width(const struct berth__cols *x, struct berth_err *err)
{
    size_t nf = berth__csv_nfields(x->csv);
    if (nf == x->nfields)
        return 0;
    char msg[96];
    snprintf(msg, sizeof msg, "expected %zu fields as in the header, found %zu", x->nfields, nf);
    if (!x->L)
        return berth_err_set(err, BERTH_EINPUT, "%s:%u: %s", x->path, berth__cols_line(x), msg);
    int rc = berth__load_bad_row(x->L, berth__cols_line(x), msg, err);
    return rc ? rc : BERTH__ROW_SKIPPED;
}

int berth__cols_bad(const struct berth__cols *x, int c, const char *expected, struct berth_err *err)
{
    size_t n;
    const char *s = berth__cols_get(x, c, &n);
    if (!x->L) {
        char ex[96];
        return berth_err_set(err, BERTH_EINPUT, "%s:%u: column %s: expected %s, found %s", x->path,
                             berth__cols_line(x), x->spec->names[c], expected,
                             berth__excerpt(ex, sizeof ex, s, n));
    }
    int rc = berth__load_bad(x->L, berth__cols_line(x), x->spec->names[c], expected, s, n, err);
    return rc ? rc : BERTH__ROW_SKIPPED;
}

int berth__cols_int(const struct berth__cols *x, int c, int64_t lo, int64_t hi,
                    const char *expected, int64_t *out, struct berth_err *err)
{
    size_t n;
    const char *s = berth__cols_get(x, c, &n);
    if (berth__parse_i64(s, n, out) || *out < lo || *out > hi)
        return berth__cols_bad(x, c, expected, err);
    return 0;
}
