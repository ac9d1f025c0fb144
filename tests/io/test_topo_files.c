/* The topology readers (docs/topology.md): the JSON cluster file's per-server rack, block,
 * nvlink_domain and nvl and its top-level shape, Slurm's topology.conf (tree and block) and
 * topology.yaml (tree, block, flat), the built-in topology clusters and the description, each
 * checked by the exact domains of named servers (berth_cluster_server_domain); and bad
 * inputs, each by its FILE:LINE: field message. */
#include <stdlib.h>
#include <string.h>

#include "berth/cluster.h"
#include "check.h"
#include "tmpfile.h"

/* Server `name`'s rack, block and NVLink domain are as given (NULL: none). */
#define CHECK_DOM(c, name, rack, block, nvl) check_dom(c, name, rack, block, nvl, __LINE__)
static void check_dom(const struct berth_cluster *c, const char *name, const char *rack,
                      const char *block, const char *nvl, int line)
{
    size_t s = 0;
    while (s < berth_cluster_servers(c) &&
           strcmp(berth_cluster_server_domain(c, s, BERTH_TOPO_NODE), name))
        s++;
    if (s == berth_cluster_servers(c)) {
        fprintf(stderr, "line %d: no server %s\n", line, name);
        check_failures++;
        return;
    }
    const char *want[3] = {rack, block, nvl};
    const int level[3] = {BERTH_TOPO_RACK, BERTH_TOPO_BLOCK, BERTH_TOPO_NVLINK};
    for (int k = 0; k < 3; k++) {
        const char *got = berth_cluster_server_domain(c, s, level[k]);
        if ((!got) != (!want[k]) || (got && strcmp(got, want[k]))) {
            fprintf(stderr, "line %d: server %s: level %d: \"%s\", expected \"%s\"\n", line, name,
                    level[k], got ? got : "(none)", want[k] ? want[k] : "(none)");
            check_failures++;
        }
    }
}

static void check_desc(const struct berth_cluster *c, const char *want)
{
    char d[256];
    berth_cluster_describe(c, d, sizeof d);
    CHECK_STR(d, want);
}

/* A cluster from a JSON text. */
static struct berth_cluster *json_cluster(struct tmp *t, const char *text, struct berth_err *err)
{
    struct berth_cluster *c = NULL;
    const char *path = tmp_write(t, "cluster.json", text);
    if (berth_cluster_parse(path, &c, err))
        return NULL;
    return c;
}

/* spec's cluster with the topology file name (text); NULL with err on an error. */
static struct berth_cluster *with_topo(struct tmp *t, const char *spec, const char *name,
                                       const char *text, struct berth_err *err)
{
    struct berth_cluster *c = NULL;
    CHECK_I64(berth_cluster_parse(spec, &c, err), 0);
    char before[256], after[256];
    berth_cluster_describe(c, before, sizeof before);
    struct berth_cluster *orig = c;
    int rc = berth_cluster_load_topology(&c, tmp_write(t, name, text), err);
    if (rc) {
        CHECK(c == orig); /* unchanged on an error */
        berth_cluster_describe(c, after, sizeof after);
        CHECK_STR(after, before);
        berth_cluster_free(c);
        return NULL;
    }
    return c;
}

static void test_json_fields(void)
{
    struct tmp t;
    tmp_open(&t);
    struct berth_err err = {0};
    struct berth_cluster *c = json_cluster(
        &t,
        "{\"servers\": ["
        "{\"name\": \"a\", \"gpu_type\": \"gb200\", \"gpus\": 4, \"rack\": \"r0\", \"block\": "
        "\"b0\", \"nvlink_domain\": \"nvl0\"},"
        "{\"name\": \"b\", \"gpu_type\": \"gb200\", \"gpus\": 4, \"rack\": \"r0\", \"block\": "
        "\"b0\", \"nvlink_domain\": \"nvl0\"},"
        "{\"name\": \"c\", \"gpu_type\": \"h100\", \"gpus\": 8, \"rack\": \"r1\", \"block\": "
        "\"b0\", \"nvl\": 4},"
        "{\"name\": \"d\", \"gpu_type\": \"h100\", \"gpus\": 8}]}",
        &err);
    CHECK(c != NULL);
    if (!c) {
        fprintf(stderr, "%s\n", err.msg);
        tmp_close(&t);
        return;
    }
    CHECK(berth_cluster_has_topology(c));
    CHECK_DOM(c, "a", "r0", "b0", "nvl0");
    CHECK_DOM(c, "b", "r0", "b0", "nvl0");
    CHECK_DOM(c, "c", "r1", "b0", NULL);
    CHECK_DOM(c, "d", NULL, NULL, NULL);
    /* c's islands of 4 and d's one of 8 differ: not told */
    check_desc(c, "4 servers, 24 GPUs (8 gb200, 16 h100); 2 racks, 1 block, 1 NVLink domain of "
                  "8 GPUs");
    berth_cluster_free(c);
    /* a rack alone, as before this change */
    c = json_cluster(&t, "{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4, \"rack\": \"x\"}]}",
                     &err);
    CHECK(c && berth_cluster_has_topology(c));
    if (c)
        check_desc(c, "1 server, 4 GPUs (4 v100); 1 rack, NVLink islands of 4 GPUs");
    berth_cluster_free(c);
    /* no topology field: flat, the description as it always was */
    c = json_cluster(&t, "{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4, \"count\": 2}]}",
                     &err);
    CHECK(c && !berth_cluster_has_topology(c));
    if (c)
        check_desc(c, "2 servers, 8 GPUs (8 v100)");
    berth_cluster_free(c);
    tmp_close(&t);
}

static void test_json_shape(void)
{
    struct tmp t;
    tmp_open(&t);
    struct berth_err err = {0};
    /* 4 servers of 4 GB200, 2 racks of 2, NVLink domains of 8 GPUs = 2 servers */
    struct berth_cluster *c = json_cluster(
        &t,
        "{\"topology\": {\"racks\": 2, \"blocks\": 1, \"nvl\": 8}, \"servers\": [{\"gpu_type\": "
        "\"gb200\", \"gpus\": 4, \"count\": 4}]}",
        &err);
    CHECK(c != NULL);
    if (c) {
        CHECK_DOM(c, "gb200-0", "rack0", "block0", "nvl0");
        CHECK_DOM(c, "gb200-1", "rack0", "block0", "nvl0");
        CHECK_DOM(c, "gb200-2", "rack1", "block0", "nvl1");
        CHECK_DOM(c, "gb200-3", "rack1", "block0", "nvl1");
        check_desc(c, "4 servers, 16 GPUs (16 gb200); 2 racks, 1 block, 2 NVLink domains of 8 "
                      "GPUs");
    }
    berth_cluster_free(c);
    tmp_close(&t);
}

static void json_bad(const char *text, const char *want)
{
    struct tmp t;
    tmp_open(&t);
    struct berth_err err = {0};
    struct berth_cluster *c = json_cluster(&t, text, &err);
    CHECK(c == NULL);
    CHECK_HAS(err.msg, t.dir); /* names the file */
    CHECK_HAS(err.msg, want);
    berth_cluster_free(c);
    tmp_close(&t);
}

static void test_json_bad(void)
{
    json_bad("{\"servers\": [{\"gpu_type\": \"a\", \"gpus\": 4}, {\"gpu_type\": \"a\", \"gpus\": "
             "8, \"nvl\": 3}]}",
             "cluster.json: servers[1].nvl: expected GPUs per NVLink island that divide the "
             "server's 8 GPUs, found 3");
    json_bad("{\"servers\": [{\"gpu_type\": \"a\", \"gpus\": 4, \"nvl\": 8}]}",
             "servers[0].nvl: expected an integer from 1 to 4, found 8");
    json_bad("{\"servers\": [{\"gpu_type\": \"a\", \"gpus\": 4, \"block\": 5}]}",
             "servers[0].block: expected a string, found a JSON integer");
    json_bad("{\"servers\": [{\"gpu_type\": \"a\", \"gpus\": 4, \"nvlink_domain\": \"\"}]}",
             "servers[0].nvlink_domain: expected a name of 1 to 63 characters");
    json_bad("{\"servers\": [{\"gpu_type\": \"a\", \"gpus\": 4, \"racks\": \"r\"}]}",
             "servers[0].racks: unknown key (expected name, gpu_type, gpus, rack, block, "
             "nvlink_domain, nvl,");
    json_bad(
        "{\"topology\": {\"racks\": \"x\"}, \"servers\": [{\"gpu_type\": \"a\", \"gpus\": 4}]}",
        "cluster.json: topology.racks: expected an integer from 1 to 1000000, found \"x\"");
    json_bad("{\"topology\": {\"spines\": 2}, \"servers\": [{\"gpu_type\": \"a\", \"gpus\": 4}]}",
             "topology.spines: unknown key (expected racks, blocks or nvl)");
    json_bad("{\"topology\": [], \"servers\": [{\"gpu_type\": \"a\", \"gpus\": 4}]}",
             "topology: expected an object");
    json_bad("{\"topology\": {\"racks\": 3}, \"servers\": [{\"gpu_type\": \"a\", \"gpus\": 4, "
             "\"count\": 2}]}",
             "cluster.json: topology: racks=3: expected at most one rack per server (2 servers)");
    json_bad("{\"topology\": {\"racks\": 1}, \"servers\": [{\"gpu_type\": \"a\", \"gpus\": 4}, "
             "{\"gpu_type\": \"a\", \"gpus\": 4, \"rack\": \"r\"}]}",
             "servers[1].rack: a server's own topology cannot be mixed with the top-level "
             "\"topology\" shape");
    /* tree violations name the entries */
    json_bad("{\"servers\": [{\"name\": \"a\", \"gpu_type\": \"g\", \"gpus\": 4, \"rack\": "
             "\"r0\", \"nvlink_domain\": \"n0\"}, {\"name\": \"b\", \"gpu_type\": \"g\", "
             "\"gpus\": 4, \"rack\": \"r1\", \"nvlink_domain\": \"n0\"}]}",
             "cluster.json: topology: NVLink domain n0 spans two racks: server a (servers[0]) is "
             "in rack r0, server b (servers[1]) in rack r1");
    json_bad("{\"servers\": [{\"name\": \"a\", \"gpu_type\": \"g\", \"gpus\": 4, \"rack\": "
             "\"r0\", \"block\": \"b0\"}, {\"gpu_type\": \"g\", \"gpus\": 4, \"count\": 2, "
             "\"rack\": \"r0\", \"block\": \"b1\"}]}",
             "topology: rack r0 spans two blocks: server a (servers[0]) is in block b0, server "
             "g-1 (servers[1]) in block b1");
    json_bad("{\"servers\": [{\"name\": \"a\", \"gpu_type\": \"g\", \"gpus\": 8, \"nvl\": 4, "
             "\"nvlink_domain\": \"n\"}]}",
             "topology: server a (servers[0]) is in NVLink domain n and also has islands of 4 "
             "GPUs inside it");
}

static void test_conf_tree(void)
{
    struct tmp t;
    tmp_open(&t);
    struct berth_err err = {0};
    struct berth_cluster *c =
        with_topo(&t, "6x8:h100", "topology.conf",
                  "# leaves under a spine, one leaf straight under the core\n"
                  "SwitchName=leaf0 Nodes=h100-[0-1] LinkSpeed=400\n"
                  "switchname=leaf1 nodes=h100-[2-3]   # case-insensitive names\n"
                  "\n"
                  "SwitchName=leaf2 Nodes=h100-4,h100-5\n"
                  "SwitchName=spine0 Switches=leaf[0-1]\n"
                  "SwitchName=core Switches=spine0,leaf2\n",
                  &err);
    CHECK(c != NULL);
    if (!c) {
        fprintf(stderr, "%s\n", err.msg);
        tmp_close(&t);
        return;
    }
    CHECK_DOM(c, "h100-0", "leaf0", "spine0", NULL);
    CHECK_DOM(c, "h100-1", "leaf0", "spine0", NULL);
    CHECK_DOM(c, "h100-3", "leaf1", "spine0", NULL);
    CHECK_DOM(c, "h100-4", "leaf2", "core", NULL);
    CHECK_DOM(c, "h100-5", "leaf2", "core", NULL);
    check_desc(c, "6 servers, 48 GPUs (48 h100); 3 racks, 2 blocks, NVLink islands of 8 GPUs");
    berth_cluster_free(c);
    tmp_close(&t);
}

/* a leaf alone: a rack in no block; zero padding kept; the file replaces the cluster's rack */
static void test_conf_padding(void)
{
    struct tmp t;
    tmp_open(&t);
    struct berth_err err = {0};
    struct berth_cluster *c = json_cluster(
        &t,
        "{\"servers\": [{\"name\": \"n01\", \"gpu_type\": \"a\", \"gpus\": 2}, {\"name\": "
        "\"n02\", \"gpu_type\": \"a\", \"gpus\": 2, \"rack\": \"old\"}]}",
        &err);
    CHECK(c != NULL);
    if (c) {
        CHECK_I64(berth_cluster_load_topology(
                      &c, tmp_write(&t, "t.conf", "SwitchName=s Nodes=n[01-02]\n"), &err),
                  0);
        CHECK_DOM(c, "n01", "s", NULL, NULL);
        CHECK_DOM(c, "n02", "s", NULL, NULL); /* the file replaces the cluster's rack */
    }
    berth_cluster_free(c);
    tmp_close(&t);
}

static void test_conf_block(void)
{
    struct tmp t;
    tmp_open(&t);
    struct berth_err err = {0};
    struct berth_cluster *c = with_topo(&t, "8x4:gb200", "topology.conf",
                                        "BlockName=bb1 Nodes=gb200-[0-1]\n"
                                        "BlockName=bb2 Nodes=gb200-[2-3]\n"
                                        "BlockName=bb3 Nodes=gb200-[4-5]\n"
                                        "BlockName=bb4 Nodes=gb200-[6-7]\n"
                                        "BlockSizes=2,4\n",
                                        &err);
    CHECK(c != NULL);
    if (c) {
        CHECK_DOM(c, "gb200-0", "bb1", "bb1..bb2", "bb1");
        CHECK_DOM(c, "gb200-3", "bb2", "bb1..bb2", "bb2");
        CHECK_DOM(c, "gb200-6", "bb4", "bb3..bb4", "bb4");
        check_desc(c, "8 servers, 32 GPUs (32 gb200); 4 racks, 2 blocks, 4 NVLink domains of 8 "
                      "GPUs");
    } else {
        fprintf(stderr, "%s\n", err.msg);
    }
    berth_cluster_free(c);
    /* without BlockSizes: base blocks only, no berth block */
    c = with_topo(&t, "4x4:gb200", "b.conf",
                  "BlockName=x Nodes=gb200-[0-1]\nBlockName=y Nodes=gb200-[2-3]\n", &err);
    CHECK(c != NULL);
    if (c)
        CHECK_DOM(c, "gb200-2", "y", NULL, "y");
    berth_cluster_free(c);
    tmp_close(&t);
}

static const char yaml_two[] = "---\n"
                               "# two topologies; the cluster_default one is used\n"
                               "- topology: topo1\n"
                               "  cluster_default: false\n"
                               "  tree:\n"
                               "    switches:\n"
                               "      - switch: sw_root\n"
                               "        children: s[1-2]\n"
                               "      - switch: s1\n"
                               "        nodes: gb200-[0-1]\n"
                               "      - switch: s2\n"
                               "        nodes: gb200-[2-3]\n"
                               "        link_speed: 100\n"
                               "- topology: \"nvl\"\n"
                               "  cluster_default: true\n"
                               "  block:\n"
                               "    block_sizes:\n"
                               "      - 1\n"
                               "      - 4\n"
                               "    blocks:\n"
                               "      - block: b1\n"
                               "        nodes: gb200-0\n"
                               "      - block: b2\n"
                               "        nodes: gb200-1\n"
                               "      - block: b3\n"
                               "        nodes: gb200-[2-3]\n";

static void test_yaml(void)
{
    struct tmp t;
    tmp_open(&t);
    struct berth_err err = {0};
    struct berth_cluster *c = with_topo(&t, "4x4:gb200", "topology.yaml", yaml_two, &err);
    CHECK(c != NULL);
    if (c) {
        CHECK_DOM(c, "gb200-0", "b1", "b1..b3", "b1");
        CHECK_DOM(c, "gb200-1", "b2", "b1..b3", "b2");
        CHECK_DOM(c, "gb200-3", "b3", "b1..b3", "b3");
    } else {
        fprintf(stderr, "%s\n", err.msg);
    }
    berth_cluster_free(c);
    /* no cluster_default: the first (tree); told YAML by its first line, not its name */
    char *first = strdup(yaml_two);
    char *def = strstr(first, "cluster_default: true");
    def[0] = '#'; /* a comment now */
    c = with_topo(&t, "4x4:gb200", "topo-file", first, &err);
    free(first);
    CHECK(c != NULL);
    if (c) {
        CHECK_DOM(c, "gb200-0", "s1", "sw_root", NULL);
        CHECK_DOM(c, "gb200-3", "s2", "sw_root", NULL);
    } else {
        fprintf(stderr, "%s\n", err.msg);
    }
    berth_cluster_free(c);
    /* block_sizes as a flow list */
    c = with_topo(&t, "2x4:gb200", "f.yml",
                  "- topology: t\n  block:\n    block_sizes: [1, 2]\n    blocks:\n"
                  "    - block: x\n      nodes: gb200-0\n    - block: y\n      nodes: gb200-1\n",
                  &err);
    CHECK(c != NULL);
    if (c)
        CHECK_DOM(c, "gb200-1", "y", "x..y", "y");
    berth_cluster_free(c);
    /* flat: the topology goes */
    c = with_topo(&t, "h100-8r", "flat.yaml", "- topology: none\n  flat: true\n", &err);
    CHECK(c && !berth_cluster_has_topology(c));
    if (c)
        check_desc(c, "64 servers, 512 GPUs (512 h100)");
    berth_cluster_free(c);
    tmp_close(&t);
}

static void test_builtin(void)
{
    struct berth_err err = {0};
    struct berth_cluster *c = NULL;
    CHECK_I64(berth_cluster_parse("h100-8r", &c, &err), 0);
    CHECK_DOM(c, "h100-0", "rack0", "block0", NULL);
    CHECK_DOM(c, "h100-9", "rack1", "block0", NULL);
    CHECK_DOM(c, "h100-63", "rack7", "block1", NULL);
    check_desc(c, "64 servers, 512 GPUs (512 h100); 8 racks, 2 blocks, NVLink islands of 8 GPUs");
    berth_cluster_free(c);
    CHECK_I64(berth_cluster_parse("gb200-nvl72", &c, &err), 0);
    CHECK_DOM(c, "gb200-0", "rack0", NULL, "nvl0");
    CHECK_DOM(c, "gb200-17", "rack0", NULL, "nvl0");
    CHECK_DOM(c, "gb200-18", "rack1", NULL, "nvl1");
    CHECK_DOM(c, "gb200-71", "rack3", NULL, "nvl3");
    check_desc(c, "72 servers, 288 GPUs (288 gb200); 4 racks, 4 NVLink domains of 72 GPUs");
    berth_cluster_free(c);
    /* the flat ones stay flat */
    const char *flat[] = {"philly", "gavel", "tiresias"};
    for (int i = 0; i < 3; i++) {
        CHECK_I64(berth_cluster_parse(flat[i], &c, &err), 0);
        CHECK(!berth_cluster_has_topology(c));
        berth_cluster_free(c);
    }
    const char *name, *spec;
    int found = 0;
    for (size_t i = 0; (name = berth_cluster_builtin(i, &spec, NULL)); i++)
        found += !strcmp(name, "h100-8r") || !strcmp(name, "gb200-nvl72");
    CHECK_I64(found, 2);
}

/* The topology file name (text) on spec fails with a message containing want. */
static void topo_bad(const char *spec, const char *name, const char *text, const char *want)
{
    struct tmp t;
    tmp_open(&t);
    struct berth_err err = {0};
    struct berth_cluster *c = with_topo(&t, spec, name, text, &err);
    CHECK(c == NULL);
    CHECK_I64(err.code, BERTH_EINPUT);
    CHECK_HAS(err.msg, t.dir);
    CHECK_HAS(err.msg, want);
    berth_cluster_free(c);
    tmp_close(&t);
}

static void test_conf_bad(void)
{
    const char *k = "4x4:a100";
    topo_bad(k, "t.conf",
             "SwitchName=s0 Nodes=a100-[0-1]\nSwitchName=s1 Nodes=a100-[2-3]\n"
             "SwitchName=top Switches=s[0-1,9]\n",
             "t.conf:3: SwitchName=top: switch s9 is not defined");
    topo_bad(k, "t.conf", "SwitchName=s0 Nodes=a100-[0-2]\nSwitchName=s1 Nodes=a100-[2-3]\n",
             "t.conf:2: SwitchName=s1: node a100-2 is also in leaf switch s0 (line 1): expected "
             "each node in one leaf switch");
    topo_bad(k, "t.conf",
             "SwitchName=s0 Nodes=a100-[0-3]\nSwitchName=a Switches=b\nSwitchName=b Switches=a\n",
             ": switch a is below itself (a cycle through switch b): expected a tree");
    topo_bad(k, "t.conf", "SwitchName=s0 Nodes=a100-[0-4]\n",
             "t.conf:1: SwitchName=s0: node a100-4 is not a server of the cluster (its 4 servers "
             "are named like a100-0)");
    topo_bad(k, "t.conf", "SwitchName=s0 Nodes=a100-[0-1],a100-3\n",
             "t.conf: server a100-2 is in no leaf switch (1 of the cluster's 4 servers are not "
             "in the file)");
    topo_bad(k, "t.conf", "SwitchName=s0 Nodes=a100-[0-3] Speed=4\n",
             "t.conf:1: SwitchName=s0: Speed=: unknown parameter (expected Nodes, Switches or "
             "LinkSpeed)");
    topo_bad(k, "t.conf", "SwitchName=s0 Nodes=a100-[0-3] Switches=s1\nSwitchName=s1 Nodes=x\n",
             "t.conf:1: SwitchName=s0: expected either nodes (a leaf switch) or switches below "
             "switch s0, found both");
    topo_bad(k, "t.conf",
             "SwitchName=s0 Nodes=a100-[0-3]\nSwitchName=a Switches=s0\nSwitchName=b "
             "Switches=s0\n",
             "t.conf:3: SwitchName=b: switch s0 is already under switch a (line 2)");
    topo_bad(k, "t.conf", "SwitchName=s0 Nodes=a100-[0-1]\nSwitchName=s0 Nodes=a100-[2-3]\n",
             "t.conf:2: SwitchName=s0: switch s0 is defined twice (first on line 1)");
    topo_bad(k, "t.conf", "SwitchName=s0 Nodes=a100-[0-3\n",
             "t.conf:1: SwitchName=s0: Nodes: expected a host list like tux[0-3,12]");
    topo_bad(k, "t.conf", "SwitchName=s0 Nodes=a100-[3-0]\n", "Nodes: expected a host list");
    topo_bad(k, "t.conf", "SwitchName=s0 Nodes=a100-[0-3]\nBlockName=b Nodes=a100-0\n",
             "t.conf:2: BlockName=b: expected one topology: switches (topology/tree) or blocks "
             "(topology/block), found both");
    topo_bad(k, "t.conf", "BlockName=b Nodes=a100-[0-3]\nBlockSizes=4,12\n",
             "t.conf:2: BlockSizes: expected block sizes from 1 to 1000000 nodes, each a "
             "power-of-two multiple of the one before, found 12 after 4");
    topo_bad(k, "t.conf", "Nodes=a100-[0-3]\n",
             "t.conf:1: Nodes=: expected a line to start with SwitchName=");
    topo_bad(k, "t.conf", "SwitchName=s0 a100-0\n", "t.conf:1: expected Key=Value parameters");
    topo_bad(k, "t.conf", "# nothing\n", "expected SwitchName= or BlockName= lines, found none");
}

static void test_yaml_bad(void)
{
    const char *k = "2x4:a100";
    topo_bad(k, "t.yaml", "- topology: t\n\ttree:\n", "t.yaml:2: a tab in the indentation");
    topo_bad(k, "t.yaml", "- topology: t\n  tree:\n    switch:\n",
             "t.yaml:3: topology[0].tree.switch: unknown key (expected switches)");
    topo_bad(k, "t.yaml", "- topology: t\n  colour: red\n  flat: true\n",
             "t.yaml:2: topology[0].colour: unknown key (expected topology, cluster_default, "
             "tree, block or flat)");
    topo_bad(k, "t.yaml", "- topology: t\n  flat: true\n      extra: 1\n",
             "t.yaml:3: unexpected indentation");
    topo_bad(k, "t.yaml", "- flat: true\n",
             "t.yaml:1: topology[0].topology: expected the topology's name as its first key");
    topo_bad(k, "t.yaml",
             "- topology: t\n  flat: true\n  block:\n    blocks:\n      - block: b\n"
             "        nodes: a100-[0-1]\n",
             "t.yaml:1: topology[0]: expected one of tree, block or flat: true, found more");
    topo_bad(k, "t.yaml", "- topology: t\n  cluster_default: maybe\n  flat: true\n",
             "t.yaml:2: topology[0].cluster_default: expected true or false");
    topo_bad(k, "t.yaml",
             "- topology: t\n  tree:\n    switches:\n      - switch: s\n        nodes: a100-[0-1]\n"
             "      - switch: top\n        children: s,x\n",
             "t.yaml:6: topology[0].tree.switches[1]: switch x is not defined");
    topo_bad(k, "t.yaml", "- topology: t\n  tree:\n    switches:\n      - nodes: a100-[0-1]\n",
             "t.yaml:4: topology[0].tree.switches[0].switch: expected a name (the first key)");
    topo_bad(k, "t.yaml",
             "- topology: t\n  block:\n    block_sizes: [2, x]\n    blocks:\n      - block: b\n"
             "        nodes: a100-[0-1]\n",
             "t.yaml:3: topology[0].block.block_sizes: expected at most 16 whole numbers");
    topo_bad(k, "t.yaml",
             "- topology: t\n  block:\n    blocks:\n      - block: b\n        nodes: a100-[0-2]\n",
             "t.yaml:4: topology[0].block.blocks[0]: node a100-2 is not a server of the cluster");
    topo_bad(k, "t.yaml", "topology: t\n",
             "t.yaml:1: topology.yaml: expected a list of topologies (- topology: NAME)");
    topo_bad(k, "t.yaml", "- topology: t\n  topology: u\n", "t.yaml:2: topology: given twice");
    topo_bad(k, "t.yaml", "# empty\n", "expected a list of topologies (- topology: NAME), found");
}

static void test_missing_file(void)
{
    struct berth_err err = {0};
    struct berth_cluster *c = NULL;
    CHECK_I64(berth_cluster_parse("2x4:a100", &c, &err), 0);
    CHECK_I64(berth_cluster_load_topology(&c, "/nonexistent/topology.conf", &err), BERTH_EIO);
    CHECK_HAS(err.msg, "--topology: cannot open topology file '/nonexistent/topology.conf'");
    berth_cluster_free(c);
}

static const struct check_test tests[] = {
    {"json_fields", test_json_fields},
    {"json_shape", test_json_shape},
    {"json_bad", test_json_bad},
    {"conf_tree", test_conf_tree},
    {"conf_padding", test_conf_padding},
    {"conf_block", test_conf_block},
    {"yaml", test_yaml},
    {"builtin", test_builtin},
    {"conf_bad", test_conf_bad},
    {"yaml_bad", test_yaml_bad},
    {"missing_file", test_missing_file},
};

CHECK_MAIN(tests)
