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

#include "io/columns.h"
#include "io/loaders_peers.h"

enum col { C_SWITCH, C_NODES, C_GPUS, C_CPUS, C_MEM, C_TYPE, NCOLS };

static const char *const colname[NCOLS] = {"num_switch",     "num_node_p_switch", "num_gpu_p_node",
                                           "num_cpu_p_node", "mem_p_node",        "gpu_type"};

#define MAX_SERVERS 1000000

static const struct berth__cols_spec cols_spec = {
    .names = colname,
    .ncols = NCOLS,
    .nrequired = C_TYPE,
    .unknown = "a Tiresias cluster column",
    .quote_max = 60,
    .empty = "the header num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node",
};

/* Column c as an integer in [lo, hi]. */
static int int_field(const struct berth__cols *x, enum col c, int64_t lo, int64_t hi, int64_t *out,
                     struct berth_err *err)
{
    char expected[64];
    snprintf(expected, sizeof expected, "an integer from %lld to %lld", (long long)lo,
             (long long)hi);
    return berth__cols_int(x, c, lo, hi, expected, out, err);
}

/* Reads the one data row and adds its servers to b. */
static int spec_row(const struct berth__cols *x, struct berth__cluster_builder *b,
                    struct berth_err *err)
{
    const char *path = x->path;
    int64_t sw, nodes, gpus, cpus, mem;
    int rc;
    if ((rc = berth__cols_width(x, err)) ||
        (rc = int_field(x, C_SWITCH, 1, MAX_SERVERS, &sw, err)) ||
        (rc = int_field(x, C_NODES, 1, MAX_SERVERS, &nodes, err)) ||
        (rc = int_field(x, C_GPUS, 1, BERTH_MAX_SERVER_GPUS, &gpus, err)) ||
        (rc = int_field(x, C_CPUS, 0, 1000000, &cpus, err)) ||
        (rc = int_field(x, C_MEM, 0, INT64_C(1) << 30, &mem, err)))
        return rc;
    if (sw * nodes > MAX_SERVERS)
        return berth_err_set(err, BERTH_EINPUT,
                             "%s:%u: expected at most %d servers, found num_switch x "
                             "num_node_p_switch = %lld",
                             path, berth__cols_line(x), MAX_SERVERS, (long long)(sw * nodes));
    const char *type = "gpu";
    if (berth__cols_has(x, C_TYPE)) {
        size_t n;
        type = berth__cols_get(x, C_TYPE, &n);
        if (!berth__cluster_type_name_ok(type, n))
            return berth__cols_bad(
                x, C_TYPE, "a GPU type name (letters, digits, '-', '_', '.'; at most 31)", err);
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
    b->racks_are_labels = 1;
    return 0;
}

int berth__cluster_load_tiresias(const char *path, struct berth__cluster_builder *b,
                                 struct berth_err *err)
{
    struct berth__cols x;
    int rc = berth__cols_open(&x, &cols_spec, path, NULL, err);
    if (rc == 0) {
        rc = berth__csv_next(x.csv, err);
        if (rc == 0)
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s:2: expected one data row with the cluster's sizes, found "
                               "none",
                               path);
        else if (rc > 0)
            rc = spec_row(&x, b, err);
    }
    if (rc == 0) {
        rc = berth__csv_next(x.csv, err);
        if (rc > 0)
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s:%u: expected one data row (a Tiresias cluster file describes "
                               "one kind of node), found another",
                               path, berth__cols_line(&x));
    }
    berth__cols_close(&x);
    return rc;
}
