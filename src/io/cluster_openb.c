/* Cluster loader for Alibaba's GPU-sharing node lists (alibaba/clusterdata @ 7a6c496e,
 * cluster-trace-gpu-v2023/csv/openb_node_list_gpu_node.csv and _all_node.csv): header
 * sn,cpu_milli,memory_mib,gpu,model (any order), one node per row. One server per node, named
 * by sn (unique), gpu GPUs of type model lower-cased (G1-G3 are undisclosed models), CPU and
 * memory as given. CPU nodes (gpu 0, model empty or "nan") are kept as servers with 0 GPUs
 * of type "cpu": they hold no GPU job but carry CPU and memory. Nothing is left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loaders_alibaba.h"
#include "util/csv.h"
#include "util/num.h"

#define MAX_SERVERS 1000000

enum { N_SN, N_CPU, N_MEM, N_GPU, N_MODEL, N_NCOLS };
static const char *const cols[N_NCOLS] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};

struct ctx {
    struct berth__csv *c;
    const char *path;
    int idx[N_NCOLS];
};

static int bad(struct ctx *x, int col, const char *expected, struct berth_err *err)
{
    char ex[96];
    size_t i = (size_t)x->idx[col];
    return berth_err_set(
        err, BERTH_EINPUT, "%s:%u: column %s: expected %s, found %s", x->path,
        berth__csv_line(x->c), cols[col], expected,
        berth__excerpt(ex, sizeof ex, berth__csv_field(x->c, i), berth__csv_len(x->c, i)));
}

static const char *fv(struct ctx *x, int col, size_t *len)
{
    *len = berth__csv_len(x->c, (size_t)x->idx[col]);
    return berth__csv_field(x->c, (size_t)x->idx[col]);
}

/* Node names must be unique (FILE:LINE of both on failure; src holds the line). */
static int unique_names(const struct berth__cluster_builder *b, size_t from, const char *path,
                        struct berth_err *err)
{
    size_t a, d;
    int found = berth__builder_find_duplicate(b, from, &a, &d);
    if (found < 0)
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    if (!found)
        return 0;
    return berth_err_set(err, BERTH_EINPUT,
                         "%s:%zu: column sn: expected a unique node name, found \"%.60s\", "
                         "already on line %zu",
                         path, b->p[d].src, b->p[d].name, b->p[a].src);
}

static int header(struct ctx *x, struct berth_err *err)
{
    size_t nf = berth__csv_nfields(x->c);
    for (int k = 0; k < N_NCOLS; k++)
        x->idx[k] = -1;
    for (size_t i = 0; i < nf; i++) {
        const char *h = berth__csv_field(x->c, i);
        if (i == 0 && !strncmp(h, "\xEF\xBB\xBF", 3))
            h += 3; /* UTF-8 byte-order mark */
        int found = -1;
        for (int k = 0; k < N_NCOLS; k++)
            if (!strcmp(h, cols[k]))
                found = k;
        if (found < 0 || x->idx[found] >= 0)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:1: column %zu: expected the header sn,cpu_milli,memory_mib,"
                                 "gpu,model, found %s\"%.40s\"",
                                 x->path, i + 1, found < 0 ? "" : "a second ", h);
        x->idx[found] = (int)i;
    }
    for (int k = 0; k < N_NCOLS; k++)
        if (x->idx[k] < 0)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:1: column %s: expected in the header sn,cpu_milli,memory_mib,"
                                 "gpu,model, found no such column",
                                 x->path, cols[k]);
    return 0;
}

static int row(struct ctx *x, struct berth__cluster_builder *b, struct berth_err *err)
{
    size_t nf = berth__csv_nfields(x->c), n;
    if (nf != N_NCOLS)
        return berth_err_set(err, BERTH_EINPUT,
                             "%s:%u: expected 5 fields as in the header, found %zu", x->path,
                             berth__csv_line(x->c), nf);
    const char *name = fv(x, N_SN, &n);
    if (n == 0 || n > 255 || strlen(name) != n)
        return bad(x, N_SN, "a non-empty node name of at most 255 bytes", err);
    int64_t cpu, mem, gpus;
    const char *s = fv(x, N_CPU, &n);
    if (berth__parse_i64(s, n, &cpu) || cpu < 0 || cpu > INT64_C(1000000000))
        return bad(x, N_CPU, "a CPU capacity in millicores >= 0", err);
    s = fv(x, N_MEM, &n);
    if (berth__parse_i64(s, n, &mem) || mem < 0 || mem > (INT64_C(1) << 40))
        return bad(x, N_MEM, "a memory size in MiB >= 0", err);
    s = fv(x, N_GPU, &n);
    if (berth__parse_i64(s, n, &gpus) || gpus < 0 || gpus > BERTH_MAX_SERVER_GPUS)
        return bad(x, N_GPU, "a whole number of GPUs from 0 to 64", err);
    const char *model = fv(x, N_MODEL, &n);
    if (n == 0 || (n == 3 && !strcmp(model, "nan"))) {
        if (gpus > 0)
            return bad(x, N_MODEL, "a GPU model for a node with GPUs", err);
        model = "cpu";
    } else if (!berth__cluster_type_name_ok(model, n)) {
        return bad(x, N_MODEL,
                   "a GPU model name (letters, digits, '-', '_', '.'; at most 31; empty for a CPU "
                   "node)",
                   err);
    }
    struct berth__server_spec sp = {0};
    sp.type = berth__builder_str(b, model, 1);
    sp.name = berth__builder_str(b, name, 0);
    sp.gpus = (int32_t)gpus;
    sp.cpu_milli = cpu;
    sp.mem_mib = mem;
    sp.src = berth__csv_line(x->c); /* for messages */
    if (!sp.type || !sp.name || berth__builder_add(b, &sp))
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", x->path);
    return 0;
}

int berth__cluster_load_openb(const char *path, struct berth__cluster_builder *b,
                              struct berth_err *err)
{
    struct ctx x = {.path = path};
    int rc = berth__csv_open(&x.c, path, ',', err);
    if (rc)
        return rc;
    size_t from = b->n;
    rc = berth__csv_next(x.c, err);
    if (rc == 0)
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s:1: expected the header sn,cpu_milli,memory_mib,gpu,model, found "
                           "an empty file",
                           path);
    else if (rc > 0)
        rc = header(&x, err);
    while (rc == 0 && (rc = berth__csv_next(x.c, err)) > 0) {
        if (b->n - from >= MAX_SERVERS)
            rc = berth_err_set(err, BERTH_EINPUT, "%s:%u: expected at most %d nodes", path,
                               berth__csv_line(x.c), MAX_SERVERS);
        else
            rc = row(&x, b, err);
    }
    berth__csv_close(x.c);
    if (!rc && b->n == from)
        rc = berth_err_set(err, BERTH_EINPUT, "%s: expected at least one node row, found none",
                           path);
    if (!rc)
        rc = unique_names(b, from, path, err);
    return rc;
}
