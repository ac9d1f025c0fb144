/* Tiresias' cluster CSV for --cluster (SymbioticLab/Tiresias @ 959f9b08f44f, simulator/
 * cluster_spec.csv, n32g4.csv, n160g8.csv, ...; read by run_sim.py parse_cluster_spec).
 *
 * A header num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node (by name, any
 * order) and one data row of integers: num_switch switches (racks "0", "1", ...), each with
 * num_node_p_switch identical servers of num_gpu_p_node GPUs, num_cpu_p_node CPU cores
 * (cpu_milli = cores x 1000; 0 = not modelled) and mem_p_node GB of host memory (taken as GiB:
 * mem_mib = GB x 1024). Tiresias has no GPU type: servers get the type "gpu", or the one in an
 * optional berth column gpu_type (Tiresias' DictReader ignores it). Gangs may span servers,
 * as Tiresias' placements do. Any problem fails the whole file: this is a small spec. */
#include <stdio.h>
#include <string.h>

#include "loaders_peers.h"
#include "util/csv.h"
#include "util/num.h"

enum col { C_SWITCH, C_NODES, C_GPUS, C_CPUS, C_MEM, C_TYPE, NCOLS };

static const char *const colname[NCOLS] = {"num_switch",     "num_node_p_switch", "num_gpu_p_node",
                                           "num_cpu_p_node", "mem_p_node",        "gpu_type"};

#define MAX_SERVERS 1000000

static int header(struct berth__csv *c, const char *path, int *idx, struct berth_err *err)
{
    for (int k = 0; k < NCOLS; k++)
        idx[k] = -1;
    size_t nf = berth__csv_nfields(c);
    for (size_t i = 0; i < nf; i++) {
        const char *h = berth__csv_field(c, i);
        if (i == 0 && !strncmp(h, "\xEF\xBB\xBF", 3))
            h += 3; /* UTF-8 byte-order mark */
        int found = -1;
        for (int k = 0; k < NCOLS; k++)
            if (!strcmp(h, colname[k]))
                found = k;
        if (found < 0)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:1: column %zu: expected a Tiresias cluster column "
                                 "(num_switch, num_node_p_switch, num_gpu_p_node, num_cpu_p_node, "
                                 "mem_p_node, gpu_type), found \"%.60s\"",
                                 path, i + 1, h);
        if (idx[found] >= 0)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:1: column %s: expected once, found twice (columns %d and "
                                 "%zu)",
                                 path, h, idx[found] + 1, i + 1);
        idx[found] = (int)i;
    }
    for (int k = 0; k < C_TYPE; k++)
        if (idx[k] < 0)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:1: column %s: expected in the header (required: num_switch, "
                                 "num_node_p_switch, num_gpu_p_node, num_cpu_p_node, mem_p_node), "
                                 "found no such column",
                                 path, colname[k]);
    return 0;
}

static int int_field(struct berth__csv *c, const char *path, const int *idx, enum col k, int64_t lo,
                     int64_t hi, int64_t *out, struct berth_err *err)
{
    size_t i = (size_t)idx[k], n = berth__csv_len(c, i);
    const char *s = berth__csv_field(c, i);
    if (!berth__parse_i64(s, n, out) && *out >= lo && *out <= hi)
        return 0;
    char ex[96];
    return berth_err_set(err, BERTH_EINPUT,
                         "%s:%u: column %s: expected an integer from %lld to %lld, found %s", path,
                         berth__csv_line(c), colname[k], (long long)lo, (long long)hi,
                         berth__excerpt(ex, sizeof ex, s, n));
}

/* Reads the one data row and adds its servers to b. */
static int spec_row(struct berth__csv *c, const char *path, const int *idx,
                    struct berth__cluster_builder *b, struct berth_err *err)
{
    size_t nf = berth__csv_nfields(c), want = 5 + (idx[C_TYPE] >= 0);
    if (nf != want)
        return berth_err_set(err, BERTH_EINPUT,
                             "%s:%u: expected %zu fields as in the header, "
                             "found %zu",
                             path, berth__csv_line(c), want, nf);
    int64_t sw, nodes, gpus, cpus, mem;
    int rc;
    if ((rc = int_field(c, path, idx, C_SWITCH, 1, MAX_SERVERS, &sw, err)) ||
        (rc = int_field(c, path, idx, C_NODES, 1, MAX_SERVERS, &nodes, err)) ||
        (rc = int_field(c, path, idx, C_GPUS, 1, BERTH_MAX_SERVER_GPUS, &gpus, err)) ||
        (rc = int_field(c, path, idx, C_CPUS, 0, 1000000, &cpus, err)) ||
        (rc = int_field(c, path, idx, C_MEM, 0, INT64_C(1) << 30, &mem, err)))
        return rc;
    if (sw * nodes > MAX_SERVERS)
        return berth_err_set(err, BERTH_EINPUT,
                             "%s:%u: expected at most %d servers, found num_switch x "
                             "num_node_p_switch = %lld",
                             path, berth__csv_line(c), MAX_SERVERS, (long long)(sw * nodes));
    const char *type = "gpu";
    if (idx[C_TYPE] >= 0) {
        size_t i = (size_t)idx[C_TYPE], n = berth__csv_len(c, i);
        type = berth__csv_field(c, i);
        if (!berth__cluster_type_name_ok(type, n)) {
            char ex[96];
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:%u: column gpu_type: expected a GPU type name (letters, "
                                 "digits, '-', '_', '.'; at most 31), found %s",
                                 path, berth__csv_line(c), berth__excerpt(ex, sizeof ex, type, n));
        }
    }
    const char *lt = berth__builder_str(b, type, 1);
    if (!lt)
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    for (int64_t s = 0; s < sw; s++) {
        char rb[24];
        snprintf(rb, sizeof rb, "%lld", (long long)s);
        const char *rack = berth__builder_str(b, rb, 0);
        if (!rack)
            return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
        for (int64_t k = 0; k < nodes; k++) {
            struct berth__server_spec sp = {.type = lt,
                                            .rack = rack,
                                            .gpus = (int32_t)gpus,
                                            .cpu_milli = cpus * 1000,
                                            .mem_mib = mem * 1024,
                                            .src = (size_t)(s * nodes + k)};
            if (berth__builder_add(b, &sp))
                return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
        }
    }
    b->allow_span = 1;
    return 0;
}

int berth__cluster_load_tiresias(const char *path, struct berth__cluster_builder *b,
                                 struct berth_err *err)
{
    struct berth__csv *c;
    int rc = berth__csv_open(&c, path, ',', err);
    if (rc)
        return rc;
    int idx[NCOLS];
    rc = berth__csv_next(c, err);
    if (rc == 0)
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s:1: expected the header num_switch,num_node_p_switch,"
                           "num_gpu_p_node,num_cpu_p_node,mem_p_node, found an empty file",
                           path);
    else if (rc > 0)
        rc = header(c, path, idx, err);
    if (rc == 0) {
        rc = berth__csv_next(c, err);
        if (rc == 0)
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s:2: expected one data row with the cluster's sizes, found "
                               "none",
                               path);
        else if (rc > 0)
            rc = spec_row(c, path, idx, b, err);
    }
    if (rc == 0) {
        rc = berth__csv_next(c, err);
        if (rc > 0)
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s:%u: expected one data row (a Tiresias cluster file describes "
                               "one kind of node), found another",
                               path, berth__csv_line(c));
    }
    berth__csv_close(c);
    return rc;
}
