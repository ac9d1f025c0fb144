/* Loader for Lucid's co-location measurements (S-Lab-System-Group/Lucid @ 63685a3ab7d1,
 * simulation/data/colocate_info.csv) into a throughput model's pairs (model/tput.h).
 *
 * One row is two 1-GPU jobs measured sharing one GPU: model, dataset, gpu_num, batchsize and
 * amp of each (columns ending in 1 and 2) and each one's normalised speed (speed1, speed2;
 * 1.0 = as fast as alone). Columns are found by name; others (Lucid's unnamed index,
 * gpu_util, gmem_util, gmem) are ignored. A job's class is "MODEL/DATASET/BATCH/AMP"
 * (ResNet18/CIFAR-10/32/0). A row adds pair (1 with 2) = speed1 and (2 with 1) = speed2 on
 * every GPU type (type -1: Lucid names none); a class measured with itself gets the mean of
 * the two speeds (Lucid's updater gives one job speed1 and the other speed2, which berth's
 * pairs, keyed by class, cannot tell apart). A later row for the same pair wins.
 *
 * The file is read whole before m changes, so a bad file leaves m as it was. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/tput.h"
#include "util/csv.h"
#include "util/mem.h"
#include "util/num.h"

#define MAX_NAME 255

enum col { C_MODEL, C_DATASET, C_GPUS, C_BATCH, C_AMP, C_SPEED, NSIDE };

static const char *const colname[2][NSIDE] = {
    {"model1", "dataset1", "gpu_num1", "batchsize1", "amp1", "speed1"},
    {"model2", "dataset2", "gpu_num2", "batchsize2", "amp2", "speed2"},
};

/* One row, read: the two classes' names (in the arena) and speeds. */
struct row {
    const char *cls[2];
    double speed[2];
};

struct ctx {
    const char *path;
    struct berth__csv *csv;
    int idx[2][NSIDE];
    size_t nfields;
    struct berth__arena names;
    struct row *rows;
    size_t nrows, cap;
};

static int bad(struct ctx *x, int side, enum col c, const char *expected, struct berth_err *err)
{
    char ex[96];
    size_t i = (size_t)x->idx[side][c];
    return berth_err_set(
        err, BERTH_EINPUT, "%s:%u: column %s: expected %s, found %s", x->path,
        berth__csv_line(x->csv), colname[side][c], expected,
        berth__excerpt(ex, sizeof ex, berth__csv_field(x->csv, i), berth__csv_len(x->csv, i)));
}

static int header(struct ctx *x, struct berth_err *err)
{
    memset(x->idx, -1, sizeof x->idx);
    x->nfields = berth__csv_nfields(x->csv);
    for (size_t i = 0; i < x->nfields; i++) {
        const char *h = berth__csv_field(x->csv, i);
        if (i == 0 && !strncmp(h, "\xEF\xBB\xBF", 3))
            h += 3; /* UTF-8 byte-order mark */
        for (int s = 0; s < 2; s++)
            for (int c = 0; c < NSIDE; c++) {
                if (strcmp(h, colname[s][c]))
                    continue;
                if (x->idx[s][c] >= 0)
                    return berth_err_set(err, BERTH_EINPUT,
                                         "%s:%u: column %s: expected once, found twice (columns "
                                         "%d and %zu)",
                                         x->path, berth__csv_line(x->csv), h, x->idx[s][c] + 1,
                                         i + 1);
                x->idx[s][c] = (int)i;
            }
    }
    for (int s = 0; s < 2; s++)
        for (int c = 0; c < NSIDE; c++)
            if (x->idx[s][c] < 0)
                return berth_err_set(err, BERTH_EINPUT,
                                     "%s:%u: column %s: expected in the header (Lucid's "
                                     "colocate_info.csv: model1, dataset1, gpu_num1, batchsize1, "
                                     "amp1, speed1 and the same ending in 2), found no such "
                                     "column",
                                     x->path, berth__csv_line(x->csv), colname[s][c]);
    return 0;
}

/* A name part of a class: 1 to MAX_NAME bytes, no '/' (it separates the parts). */
static int name_part(struct ctx *x, int side, enum col c, const char **s, size_t *n,
                     struct berth_err *err)
{
    size_t i = (size_t)x->idx[side][c];
    *s = berth__csv_field(x->csv, i);
    *n = berth__csv_len(x->csv, i);
    if (*n == 0 || *n > MAX_NAME || memchr(*s, '/', *n) || memchr(*s, '\0', *n))
        return bad(x, side, c, "a name of 1 to 255 bytes without '/'", err);
    return 0;
}

static int int_field(struct ctx *x, int side, enum col c, int64_t lo, int64_t hi,
                     const char *expected, int64_t *out, struct berth_err *err)
{
    size_t i = (size_t)x->idx[side][c];
    if (berth__parse_i64(berth__csv_field(x->csv, i), berth__csv_len(x->csv, i), out) ||
        *out < lo || *out > hi)
        return bad(x, side, c, expected, err);
    return 0;
}

/* One side of the row: its class name into the arena, and its speed. */
static int side_of(struct ctx *x, int side, struct row *r, struct berth_err *err)
{
    const char *model, *dataset;
    size_t mn, dn;
    int64_t gpus, batch, amp;
    int rc;
    if ((rc = name_part(x, side, C_MODEL, &model, &mn, err)) ||
        (rc = name_part(x, side, C_DATASET, &dataset, &dn, err)) ||
        (rc = int_field(x, side, C_GPUS, 1, 1, "1 (Lucid pairs 1-GPU jobs)", &gpus, err)) ||
        (rc = int_field(x, side, C_BATCH, 1, 1000000000, "a batch size from 1 to 10^9", &batch,
                        err)) ||
        (rc = int_field(x, side, C_AMP, 0, 1, "0 or 1", &amp, err)))
        return rc;
    size_t i = (size_t)x->idx[side][C_SPEED];
    if (berth__parse_double(berth__csv_field(x->csv, i), berth__csv_len(x->csv, i),
                            &r->speed[side]) ||
        !(r->speed[side] > 0))
        return bad(x, side, C_SPEED, "a normalised speed > 0 (1.0 = as fast as alone)", err);
    char name[2 * MAX_NAME + 48];
    int len = snprintf(name, sizeof name, "%.*s/%.*s/%lld/%lld", (int)mn, model, (int)dn, dataset,
                       (long long)batch, (long long)amp);
    if (!(r->cls[side] = berth__arena_strndup(&x->names, name, (size_t)len)))
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", x->path);
    return 0;
}

static int read_rows(struct ctx *x, struct berth_err *err)
{
    int rc = berth__csv_next(x->csv, err);
    if (rc == 0)
        return berth_err_set(err, BERTH_EINPUT,
                             "%s:1: expected Lucid's colocate_info.csv header "
                             "(,model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,...), "
                             "found an empty file",
                             x->path);
    if (rc < 0 || (rc = header(x, err)))
        return rc;
    while ((rc = berth__csv_next(x->csv, err)) > 0) {
        size_t nf = berth__csv_nfields(x->csv);
        if (nf != x->nfields)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:%u: expected %zu fields as in the header, found %zu", x->path,
                                 berth__csv_line(x->csv), x->nfields, nf);
        if (BERTH_GROW(x->rows, x->cap, x->nrows + 1))
            return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", x->path);
        struct row *r = &x->rows[x->nrows];
        if ((rc = side_of(x, 0, r, err)) || (rc = side_of(x, 1, r, err)))
            return rc;
        x->nrows++;
    }
    return rc;
}

int berth_tput_add_lucid_pairs(struct berth_tput *m, const char *path, struct berth_err *err)
{
    struct ctx x = {.path = path};
    berth__arena_init(&x.names);
    int rc = berth__csv_open(&x.csv, path, ',', err);
    if (rc == 0)
        rc = read_rows(&x, err);
    for (size_t i = 0; rc == 0 && i < x.nrows; i++) {
        const struct row *r = &x.rows[i];
        int a, b, full = 0;
        if ((rc = berth__tput_add_class(m, r->cls[0], &a)) ||
            (rc = berth__tput_add_class(m, r->cls[1], &b)))
            full = rc == BERTH_TPUT_FULL;
        else if (a == b)
            rc = berth__tput_add_pair(m, a, a, -1, (r->speed[0] + r->speed[1]) / 2);
        else
            rc = berth__tput_add_pair(m, a, b, -1, r->speed[0]) ||
                 berth__tput_add_pair(m, b, a, -1, r->speed[1]);
        if (full)
            rc = berth_err_set(err, BERTH_EINPUT, "%s: data row %zu: more than %d classes", path,
                               i + 1, BERTH_TPUT_MAX);
        else if (rc)
            rc = berth_err_set(err, BERTH_ENOMEM,
                               "%s: out of memory (or more than 8 million classes)", path);
    }
    berth__csv_close(x.csv);
    berth__arena_free(&x.names);
    free(x.rows);
    return rc;
}
