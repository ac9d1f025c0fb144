/* berth_cluster_parse: the one entry point for --cluster. A built-in name, a file (its
 * format told by its first bytes), or the shorthand NxG:type[,NxG:type...]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/cluster_int.h"
#include "io/loaders_alibaba.h"
#include "io/loaders_peers.h"

/* Named example clusters, so a demo needs no file. */
static const struct {
    const char *name, *spec, *what;
} builtins[] = {
    {"philly", "64x8:v100", "64 servers x 8 V100 (the size the Philly benchmarks use)"},
    {"gavel", "gavel:36:36:36",
     "Gavel's heterogeneous cluster, its -c 36:36:36: 36 GPUs each of V100, P100 and K80 on 27 "
     "servers of 4"},
    {"tiresias", "16x4:v100", "Tiresias' default cluster, 16 servers x 4 GPUs"},
    {"h100-8r", "64x8:h100,racks=8,blocks=2,nvl=8",
     "64 NVSwitch servers x 8 H100 in 8 racks of 8 and 2 blocks of 4 racks (docs/topology.md)"},
    {"gb200-nvl72", "72x4:gb200,racks=4,nvl=72",
     "4 GB200 NVL72 racks: 18 servers x 4 GPUs each, one 72-GPU NVLink domain per rack"},
};

const char *berth_cluster_builtin(size_t i, const char **spec, const char **what)
{
    if (i >= sizeof builtins / sizeof *builtins)
        return NULL;
    if (spec)
        *spec = builtins[i].spec;
    if (what)
        *what = builtins[i].what;
    return builtins[i].name;
}

static int load_file(const char *path, struct berth__cluster_builder *b, struct berth_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return berth_err_set(err, BERTH_EIO, "--cluster: cannot open cluster file '%s'", path);
    char head[256] = "";
    size_t n = fread(head, 1, sizeof head - 1, f);
    head[n] = '\0';
    fclose(f);
    const char *p = head + strspn(head, " \t\r\n");
    size_t len = strlen(path);
    if (*p == '{' || *p == '[' || !*p || (len > 5 && !strcmp(path + len - 5, ".json")))
        return berth__cluster_load_json(path, b, err);
    if (!strncmp(p, "num_switch,", 11))
        return berth__cluster_load_tiresias(path, b, err);
    if (!strncmp(p, "sn,cpu_milli,memory_mib,gpu,model", 33))
        return berth__cluster_load_openb(path, b, err);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (!strncmp(p, "machine,gpu_type,cap_cpu", 24) || !strncmp(base, "pai_machine_spec", 16))
        return berth__cluster_load_pai2020(path, b, err);
    return berth_err_set(err, BERTH_EINPUT,
                         "%s:1: cannot tell the cluster format: expected a JSON cluster file "
                         "(starting with '{'), a Tiresias cluster CSV (num_switch,...), an openb "
                         "node list (sn,cpu_milli,...) or a PAI machine spec (pai_machine_spec*)",
                         path);
}

/* Gavel's cluster spec, GPUs per type: "gavel:V100:P100:K80" (its driver's -c 36:36:36),
 * each count a multiple of Gavel's 4 GPUs per server (scheduler.py makes count / 4 servers),
 * as the shorthand 9x4:v100,9x4:p100,9x4:k80; a type of 0 GPUs is left out. */
static int gavel_spec(const char *spec, char *out, size_t len, struct berth_err *err)
{
    static const char *const types[3] = {"v100", "p100", "k80"};
    const char *p = spec + strlen("gavel:");
    size_t o = 0;
    int32_t total = 0;
    out[0] = '\0';
    for (int i = 0; i < 3; i++) {
        char *end;
        long v = strtol(p, &end, 10);
        if (*p < '0' || *p > '9' || (i < 2 ? *end != ':' : *end != '\0') || v > 400000 || v % 4)
            return berth_err_set(
                err, BERTH_EINPUT,
                "--cluster: expected gavel:V100:P100:K80 with each count of GPUs a "
                "multiple of 4 (Gavel's servers hold 4), like gavel:36:36:36, "
                "found '%s'",
                spec);
        if (v > 0)
            o += (size_t)snprintf(out + o, len - o, "%s%ldx4:%s", o ? "," : "", v / 4, types[i]);
        total += (int32_t)v;
        p = end + 1;
    }
    if (!total)
        return berth_err_set(err, BERTH_EINPUT,
                             "--cluster: expected at least one GPU in '%s' (gavel:V100:P100:K80)",
                             spec);
    return 0;
}

int berth_cluster_parse(const char *spec, struct berth_cluster **out, struct berth_err *err)
{
    char gavel[128];
    for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
        if (!strcmp(spec, builtins[i].name))
            spec = builtins[i].spec;
    if (!strncmp(spec, "gavel:", 6)) {
        int rc = gavel_spec(spec, gavel, sizeof gavel, err);
        if (rc)
            return rc;
        spec = gavel;
    }
    struct berth__cluster_builder b;
    berth__builder_init(&b);
    struct stat st;
    int is_file = stat(spec, &st) == 0 && S_ISREG(st.st_mode), rc;
    if (is_file)
        rc = load_file(spec, &b, err);
    else if (strchr(spec, '/') || strstr(spec, ".json") || strstr(spec, ".csv"))
        rc = berth_err_set(err, BERTH_EIO, "--cluster: cannot open cluster file '%s'", spec);
    else
        rc = berth__cluster_parse_shorthand(spec, &b, err);
    if (!rc)
        rc = berth__builder_build(&b, is_file ? spec : "--cluster", out, err);
    berth__builder_free(&b);
    return rc;
}
