/* `scontrol show topology` read into racks and blocks (live/exec/slurm_topo.h): captured
 * output of Slurm 22.05's topology/tree (two levels, then three) and of topology/block, the
 * message of a cluster without one, and bad lines named by line and field. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "live/exec/slurm_topo.h"

/* scontrol show topology on a mini cluster with TopologyPlugin=topology/tree */
static const char tree2[] = "SwitchName=leaf0 Level=0 LinkSpeed=1 Nodes=gpu[01-02]\n"
                            "SwitchName=leaf1 Level=0 LinkSpeed=1 Nodes=gpu[03-04],gpu07\n"
                            "SwitchName=spine Level=1 LinkSpeed=1 Nodes=gpu[01-04,07] "
                            "Switches=leaf[0-1]\n";

static void where_is(const struct berth__slurm_topo *t, const char *node, const char *rack,
                     const char *block)
{
    const char *r, *b;
    berth__slurm_topo_where(t, node, &r, &b);
    if (rack)
        CHECK_STR(r, rack);
    else
        CHECK(r == NULL);
    if (block)
        CHECK_STR(b, block);
    else
        CHECK(b == NULL);
}

static void test_tree(void)
{
    struct berth__slurm_topo t;
    struct berth_err err = {0};
    CHECK_I64(berth__slurm_topo_parse(tree2, &t, &err), 0);
    CHECK_I64(t.n, 3);
    CHECK_I64(t.sw[1].nnodes, 3);
    CHECK_I64(t.sw[2].level, 1);
    CHECK_I64(t.sw[0].parent, 2);
    CHECK_I64(t.sw[2].parent, -1);
    where_is(&t, "gpu01", "leaf0", "spine");
    where_is(&t, "gpu02", "leaf0", "spine");
    where_is(&t, "gpu04", "leaf1", "spine");
    where_is(&t, "gpu07", "leaf1", "spine");
    where_is(&t, "gpu05", NULL, NULL); /* in no switch: no rack */
    berth__slurm_topo_free(&t);
    /* three levels: the leaf is the rack, its parent the block, the top is not used */
    const char *tree3 = "SwitchName=s0 Level=0 LinkSpeed=1 Nodes=n[1-2]\n"
                        "SwitchName=s1 Level=0 LinkSpeed=1 Nodes=n[3-4]\n"
                        "SwitchName=s2 Level=0 LinkSpeed=1 Nodes=n5\n"
                        "SwitchName=s3 Level=1 LinkSpeed=1 Nodes=n[1-4] Switches=s[0-1]\n"
                        "SwitchName=s4 Level=1 LinkSpeed=1 Nodes=n5 Switches=s2\n"
                        "SwitchName=top Level=2 LinkSpeed=1 Nodes=n[1-5] Switches=s[3-4]\n";
    CHECK_I64(berth__slurm_topo_parse(tree3, &t, &err), 0);
    where_is(&t, "n1", "s0", "s3");
    where_is(&t, "n4", "s1", "s3");
    where_is(&t, "n5", "s2", "s4");
    berth__slurm_topo_free(&t);
    /* a leaf with no parent: a rack in no block */
    CHECK_I64(berth__slurm_topo_parse("SwitchName=solo Level=0 LinkSpeed=1 Nodes=a,b\n", &t, &err),
              0);
    where_is(&t, "b", "solo", NULL);
    berth__slurm_topo_free(&t);
}

static void test_block(void)
{
    struct berth__slurm_topo t;
    struct berth_err err = {0};
    CHECK_I64(berth__slurm_topo_parse("BlockName=b1 BlockIndex=0 Nodes=node[01-18] BlockSize=18\n"
                                      "BlockName=b2 BlockIndex=1 Nodes=node[19-36] BlockSize=18\n"
                                      "AggregatedBlock=b[1-2] BlockIndex=2 Nodes=node[01-36] "
                                      "BlockSize=36\n",
                                      &t, &err),
              0);
    CHECK_I64(t.n, 2);
    where_is(&t, "node20", NULL, "b2");
    berth__slurm_topo_free(&t);
}

static void test_none(void)
{
    struct berth__slurm_topo t;
    struct berth_err err = {0};
    CHECK_I64(berth__slurm_topo_parse("", &t, &err), 0);
    CHECK_I64(t.n, 0);
    CHECK_I64(berth__slurm_topo_parse("No topology information available\n", &t, &err), 0);
    CHECK_I64(t.n, 0);
    where_is(&t, "n1", NULL, NULL);
    berth__slurm_topo_free(&t);
}

static void test_bad(void)
{
    struct berth__slurm_topo t;
    struct berth_err err = {0};
    CHECK_I64(berth__slurm_topo_parse("SwitchName=s0 Level=0 Nodes=n1\nSwitchName=s1 Level=x\n", &t,
                                      &err),
              BERTH_EINPUT);
    CHECK_HAS(err.msg, "line 2: Level: expected a whole number >= 0 for switch s1, found 'x'");
    CHECK_I64(t.n, 0);
    CHECK_I64(berth__slurm_topo_parse("SwitchName=s0 Nodes=n1\n", &t, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "line 1: Level:");
    CHECK_I64(berth__slurm_topo_parse("SwitchName=s0 Level=0 Nodes=n[1-2\n", &t, &err),
              BERTH_EINPUT);
    CHECK_HAS(err.msg, "line 1: Nodes: slurm node list 'n[1-2': no ']'");
    CHECK_I64(berth__slurm_topo_parse("SwitchName= Level=0 Nodes=n1\n", &t, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "line 1: SwitchName: empty name");
    CHECK_I64(berth__slurm_topo_parse("SwitchName=a Level=0 Nodes=n1\n"
                                      "SwitchName=p Level=1 Switches=a\n"
                                      "SwitchName=q Level=1 Switches=a\n",
                                      &t, &err),
              BERTH_EINPUT);
    CHECK_HAS(err.msg, "switch a is under two switches, p and q (not a tree)");
}

/* the command itself: a fake scontrol first in PATH */
static void test_read(void)
{
    char dir[] = "/tmp/berth-topo-XXXXXX", path[256], *old = getenv("PATH");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/scontrol", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fprintf(f, "#!/bin/sh\n[ \"$*\" = 'show topology' ] || exit 3\n"
               "[ \"$SLURM_CONF\" = /etc/x.conf ] || exit 4\n"
               "echo 'SwitchName=r0 Level=0 LinkSpeed=1 Nodes=n[1-2]'\n");
    fclose(f);
    chmod(path, 0755);
    char *keep = strdup(old ? old : "/usr/bin:/bin"), np[4096];
    snprintf(np, sizeof np, "%s:%s", dir, keep);
    setenv("PATH", np, 1);
    struct berth__slurm_topo t;
    struct berth_err err = {0};
    CHECK_I64(berth__slurm_topo_read("/etc/x.conf", &t, &err), 0);
    where_is(&t, "n2", "r0", NULL);
    berth__slurm_topo_free(&t);
    CHECK_I64(berth__slurm_topo_read("/etc/y.conf", &t, &err), BERTH_EIO);
    CHECK_HAS(err.msg, "scontrol failed (status 4)");
    setenv("PATH", dir, 1);
    unlink(path);
    CHECK_I64(berth__slurm_topo_read(NULL, &t, &err), BERTH_EIO);
    CHECK_HAS(err.msg, "cannot run scontrol");
    setenv("PATH", keep, 1);
    free(keep);
    rmdir(dir);
}

static const struct check_test tests[] = {
    {"tree", test_tree}, {"block", test_block}, {"none", test_none},
    {"bad", test_bad},   {"read", test_read},
};

CHECK_MAIN(tests)
