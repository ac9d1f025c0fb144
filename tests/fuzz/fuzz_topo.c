/* libFuzzer harness for a Slurm topology reader, chosen at compile time (-DFUZZ_TOPO="conf":
 * topology.conf, "yaml": topology.yaml; io/topo_*.c): each input becomes a file laid onto a
 * fixed cluster of 8 servers (a100-0 .. a100-7) with berth_cluster_load_topology. Beyond
 * crashes, leaks and undefined behaviour it checks the contract: errors use the documented
 * codes, name the file and leave the cluster as it was; a success gives a consistent cluster
 * (berth__cluster_verify) of the same servers in which every server has a rack (unless the
 * topology is flat) and a multi-node NVLink domain lies in one rack. */
#include "berth/cluster.h"
#include "model/cluster.h"

#ifndef FUZZ_TOPO
#error "build with -DFUZZ_TOPO=\"conf\" or \"yaml\""
#endif

#define FUZZ_WHO "fuzz_topo (" FUZZ_TOPO ")"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char in_path[300];

static void fuzz_cleanup(void)
{
    unlink(in_path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!in_path[0]) {
        char base[256];
        fuzz_scratch(base, sizeof base, "topo");
        unlink(base);
        /* the reader is told by the name's ending */
        snprintf(in_path, sizeof in_path, "%s.%s", base, FUZZ_TOPO);
        atexit(fuzz_cleanup);
    }
    fuzz_write_file(in_path, data, size);
    struct berth_err err = {0};
    struct berth_cluster *c = NULL, *orig;
    ENSURE(berth_cluster_parse("8x4:a100", &c, &err) == 0, "cluster: %s", err.msg);
    orig = c;
    int rc = berth_cluster_load_topology(&c, in_path, &err);
    if (rc) {
        ENSURE(rc == BERTH_EINPUT || rc == BERTH_EIO || rc == BERTH_ENOMEM,
               "unexpected code %d: %s", rc, err.msg);
        ENSURE(strstr(err.msg, in_path), "the message does not name the file: %s", err.msg);
        ENSURE(c == orig && !berth_cluster_has_topology(c), "a failed load changed the cluster");
    } else {
        ENSURE(berth__cluster_verify(c, &err) == 0, "inconsistent cluster: %s", err.msg);
        ENSURE(berth_cluster_servers(c) == 8 && berth_cluster_gpus(c) == 32, "servers changed");
        for (size_t s = 0; s < 8; s++) {
            char want[16];
            snprintf(want, sizeof want, "a100-%zu", s);
            ENSURE(!strcmp(berth_cluster_server_domain(c, s, BERTH_TOPO_NODE), want),
                   "server %zu renamed", s);
            const char *rack = berth_cluster_server_domain(c, s, BERTH_TOPO_RACK);
            ENSURE(!berth_cluster_has_topology(c) || rack, "server %zu in no rack", s);
            const char *dom = berth_cluster_server_domain(c, s, BERTH_TOPO_NVLINK);
            for (size_t o = 0; dom && o < s; o++) {
                const char *d2 = berth_cluster_server_domain(c, o, BERTH_TOPO_NVLINK);
                if (d2 && !strcmp(d2, dom))
                    ENSURE(!strcmp(berth_cluster_server_domain(c, o, BERTH_TOPO_RACK), rack),
                           "NVLink domain %s spans two racks", dom);
            }
        }
    }
    berth_cluster_free(c);
    return 0;
}
