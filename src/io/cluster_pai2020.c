/* Cluster loader for Alibaba PAI 2020's machine list (alibaba/clusterdata @ 7a6c496e,
 * cluster-trace-gpu-v2020/data/pai_machine_spec.csv): header-less, one machine per row,
 * machine,gpu_type,cap_cpu (cores),cap_mem (GB),cap_gpu (a .header first row is skipped).
 * One server per machine, named by machine (unique), GPU type lower-cased (MISC = older
 * K40m/K80/M60 GPUs stays "misc"), CPU capacity cap_cpu x 1000 milli, memory cap_mem x 1024
 * MiB. CPU-only machines (cap_gpu 0, gpu_type CPU) are kept as servers with 0 GPUs of type
 * "cpu": they hold no GPU job but carry CPU and memory. Nothing is left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/cluster_int.h"
#include "io/columns.h"
#include "io/loaders_alibaba.h"
#include "util/num.h"

#define MAX_SERVERS 1000000

enum { M_NAME, M_TYPE, M_CPU, M_MEM, M_GPU, M_NCOLS };
static const char *const cols[M_NCOLS] = {"machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu"};

static int bad(struct berth__csv *c, const char *path, size_t i, const char *expected,
               struct berth_err *err)
{
    char ex[96];
    return berth_err_set(
        err, BERTH_EINPUT, "%s:%u: column %s: expected %s, found %s", path, berth__csv_line(c),
        cols[i], expected,
        berth__excerpt(ex, sizeof ex, berth__csv_field(c, i), berth__csv_len(c, i)));
}

static int row(struct berth__csv *c, const char *path, struct berth__cluster_builder *b,
               struct berth_err *err)
{
    size_t nf = berth__csv_nfields(c);
    if (nf != M_NCOLS)
        return berth_err_set(err, BERTH_EINPUT,
                             "%s:%u: expected 5 fields (machine,gpu_type,cap_cpu,cap_mem,"
                             "cap_gpu), found %zu",
                             path, berth__csv_line(c), nf);
    size_t n = berth__csv_len(c, M_NAME);
    if (n == 0 || n > 255 || strlen(berth__csv_field(c, M_NAME)) != n)
        return bad(c, path, M_NAME, "a non-empty machine name of at most 255 bytes", err);
    const char *type = berth__csv_field(c, M_TYPE);
    if (!berth__cluster_type_name_ok(type, berth__csv_len(c, M_TYPE)))
        return bad(c, path, M_TYPE,
                   "a GPU type name (MISC, P100, T4, V100, V100M32, CPU ...; letters, digits, "
                   "'-', '_', '.'; at most 31)",
                   err);
    int64_t cpu, mem, gpus;
    if (berth__parse_scaled(berth__csv_field(c, M_CPU), berth__csv_len(c, M_CPU), 3, &cpu) ||
        cpu < 0 || cpu > INT64_C(1000000000))
        return bad(c, path, M_CPU, "a number of CPU cores from 0 to 1000000", err);
    if (berth__parse_scaled(berth__csv_field(c, M_MEM), berth__csv_len(c, M_MEM), 6, &mem) ||
        mem < 0 || mem > INT64_C(1000000000000))
        return bad(c, path, M_MEM, "a memory size in GB from 0 to 1000000", err);
    if (berth__parse_i64(berth__csv_field(c, M_GPU), berth__csv_len(c, M_GPU), &gpus) || gpus < 0 ||
        gpus > BERTH_MAX_SERVER_GPUS)
        return bad(c, path, M_GPU, "a whole number of GPUs from 0 to 64", err);
    struct berth__server_spec s = {0};
    s.type = berth__builder_str(b, type, 1);
    s.name = berth__builder_str(b, berth__csv_field(c, M_NAME), 0);
    s.gpus = (int32_t)gpus;
    s.cpu_milli = cpu;
    s.mem_mib = (mem * 1024 + 500000) / 1000000; /* GB (10^-6 units) to MiB */
    s.src = berth__csv_line(c);                  /* for messages */
    if (!s.type || !s.name || berth__builder_add(b, &s))
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    return 0;
}

int berth__cluster_load_pai2020(const char *path, struct berth__cluster_builder *b,
                                struct berth_err *err)
{
    struct berth__csv *c;
    int rc = berth__csv_open(&c, path, ',', err);
    if (rc)
        return rc;
    size_t from = b->n;
    int first = 1;
    while ((rc = berth__csv_next(c, err)) > 0) {
        const char *h = berth__csv_field(c, 0);
        if (first)
            h = berth__cols_skip_bom(h);
        if (first && berth__csv_nfields(c) == M_NCOLS && !strcmp(h, "machine") &&
            !strcmp(berth__csv_field(c, 1), "gpu_type")) {
            first = 0;
            continue; /* the .header line */
        }
        first = 0;
        if (b->n - from >= MAX_SERVERS) {
            rc = berth_err_set(err, BERTH_EINPUT, "%s:%u: expected at most %d machines", path,
                               berth__csv_line(c), MAX_SERVERS);
            break;
        }
        if ((rc = row(c, path, b, err)))
            break;
    }
    berth__csv_close(c);
    if (!rc && b->n == from)
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s:1: expected machine rows (machine,gpu_type,cap_cpu,cap_mem,cap_gpu),"
                           " found none",
                           path);
    if (!rc)
        rc = berth__cluster_unique_csv_names(b, from, path, "machine", "a unique name", err);
    return rc;
}
