/* Reads an inference demand series from CSV (time_s, servers), and opens either form from
 * the --inference argument. */
#include <stdlib.h>
#include <string.h>

#include "io/columns.h"
#include "model/infer.h"
#include "util/mem.h"
#include "util/num.h"

enum { C_TIME, C_SERVERS, NCOLS };
static const char *const colname[NCOLS] = {"time_s", "servers"};
static const struct berth__cols_spec cols_spec = {
    .names = colname,
    .ncols = NCOLS,
    .nrequired = NCOLS,
    .unknown = "an inference demand column (time_s, servers)",
    .quote_max = 60,
    .empty = "the header time_s,servers",
};

static int row(struct berth__cols *x, struct berth_infer *s, const char *path,
               struct berth_err *err)
{
    size_t len;
    const char *f = berth__cols_get(x, C_TIME, &len);
    int64_t t, v;
    if (berth__parse_seconds_us(f, len, &t) || t < 0 || t > MAX_US)
        return berth__cols_bad(x, C_TIME, "seconds from the trace's origin (>= 0)", err);
    if (s->n && t < s->at[s->n - 1])
        return berth_err_set(err, BERTH_EINPUT,
                             "%s:%u: column time_s: expected times in non-decreasing order, "
                             "found %.*s after a later time",
                             path, berth__cols_line(x), (int)len, f);
    int rc = berth__cols_int(x, C_SERVERS, 0, INT32_MAX, "a whole number of servers >= 0", &v, err);
    if (rc)
        return rc;
    if (BERTH_GROW(s->at, s->cap, s->n + 1) || BERTH_GROW(s->servers, s->cap2, s->n + 1))
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    s->at[s->n] = t;
    s->servers[s->n++] = (int32_t)v;
    return 0;
}

int berth_infer_load(const char *path, struct berth_infer **out, struct berth_err *err)
{
    *out = NULL;
    struct berth_infer *s = calloc(1, sizeof *s);
    if (!s)
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    struct berth__cols x;
    int rc = berth__cols_open(&x, &cols_spec, path, NULL, err);
    while (!rc && (rc = berth__cols_next(&x, err)) > 0)
        rc = row(&x, s, path, err);
    if (!rc && !s->n)
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s: expected at least one row of demand, found "
                           "none",
                           path);
    berth__cols_close(&x);
    if (rc) {
        berth_infer_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int berth_infer_open(const char *spec, struct berth_infer **out, struct berth_err *err)
{
    return strncmp(spec, "diurnal", 7) ? berth_infer_load(spec, out, err)
                                       : berth_infer_diurnal(spec, out, err);
}
