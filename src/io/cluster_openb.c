/* Cluster loader for Alibaba's GPU-sharing node lists (alibaba/clusterdata @ 7a6c496e,
 * cluster-trace-gpu-v2023/csv/openb_node_list_gpu_node.csv and _all_node.csv): header
 * sn,cpu_milli,memory_mib,gpu,model (any order), one node per row. One server per node, named
 * by sn (unique), gpu GPUs of type model lower-cased (G1-G3 are undisclosed models), CPU and
 * memory as given. CPU nodes (gpu 0, model empty or "nan") are kept as servers with 0 GPUs
 * of type "cpu": they hold no GPU job but carry CPU and memory. Nothing is left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/cluster_int.h"
#include "io/columns.h"
#include "io/loaders_alibaba.h"
#include "util/num.h"

#define MAX_SERVERS 1000000

enum { N_SN, N_CPU, N_MEM, N_GPU, N_MODEL, N_NCOLS };
static const char *const cols[N_NCOLS] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};

#define HEADER "sn,cpu_milli,memory_mib,gpu,model"

static const struct berth__cols_spec cols_spec = {
    .names = cols,
    .ncols = N_NCOLS,
    .nrequired = N_NCOLS,
    .unknown = "the header " HEADER,
    .unknown_bare = 1,
    .quote_max = 40,
    .header = " " HEADER,
    .empty = "the header " HEADER,
};

static int row(const struct berth__cols *x, struct berth__cluster_builder *b, struct berth_err *err)
{
    size_t n;
    int rc = berth__cols_width(x, err);
    if (rc)
        return rc;
    const char *name = berth__cols_get(x, N_SN, &n);
    if (n == 0 || n > 255 || strlen(name) != n)
        return berth__cols_bad(x, N_SN, "a non-empty node name of at most 255 bytes", err);
    int64_t cpu, mem, gpus;
    const char *s = berth__cols_get(x, N_CPU, &n);
    if (berth__parse_i64(s, n, &cpu) || cpu < 0 || cpu > INT64_C(1000000000))
        return berth__cols_bad(x, N_CPU, "a CPU capacity in millicores >= 0", err);
    s = berth__cols_get(x, N_MEM, &n);
    if (berth__parse_i64(s, n, &mem) || mem < 0 || mem > (INT64_C(1) << 40))
        return berth__cols_bad(x, N_MEM, "a memory size in MiB >= 0", err);
    s = berth__cols_get(x, N_GPU, &n);
    if (berth__parse_i64(s, n, &gpus) || gpus < 0 || gpus > BERTH_MAX_SERVER_GPUS)
        return berth__cols_bad(x, N_GPU, "a whole number of GPUs from 0 to 64", err);
    const char *model = berth__cols_get(x, N_MODEL, &n);
    if (n == 0 || (n == 3 && !strcmp(model, "nan"))) {
        if (gpus > 0)
            return berth__cols_bad(x, N_MODEL, "a GPU model for a node with GPUs", err);
        model = "cpu";
    } else if (!berth__cluster_type_name_ok(model, n)) {
        return berth__cols_bad(
            x, N_MODEL,
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
    sp.src = berth__cols_line(x); /* for messages */
    if (!sp.type || !sp.name || berth__builder_add(b, &sp))
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", x->path);
    return 0;
}

int berth__cluster_load_openb(const char *path, struct berth__cluster_builder *b,
                              struct berth_err *err)
{
    struct berth__cols x;
    size_t from = b->n;
    int rc = berth__cols_open(&x, &cols_spec, path, NULL, err);
    while (rc == 0 && (rc = berth__csv_next(x.csv, err)) > 0) {
        if (b->n - from >= MAX_SERVERS)
            rc = berth_err_set(err, BERTH_EINPUT, "%s:%u: expected at most %d nodes", path,
                               berth__cols_line(&x), MAX_SERVERS);
        else
            rc = row(&x, b, err);
    }
    berth__cols_close(&x);
    if (!rc && b->n == from)
        rc = berth_err_set(err, BERTH_EINPUT, "%s: expected at least one node row, found none",
                           path);
    if (!rc)
        rc = berth__cluster_unique_csv_names(b, from, path, "sn", "a unique node name", err);
    return rc;
}
