/* Tests for the topology core (src/model/topo.c, cluster_shape.c): the shorthand's racks=,
 * blocks=, nvl= and their errors, the tree check, the idle counts per domain under takes,
 * gives, undo and clones, and the level a gang spans, all hand-computed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/topo.h"
#include "plantest.h" /* parse_ok, verify_ok */
#include "util/undo.h"

static void parse_fails(const char *spec, const char *want)
{
    struct berth_cluster *c = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth_cluster_parse(spec, &c, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, want);
    CHECK(c == NULL);
}

static const char *dom(const struct berth_cluster *c, size_t s, int level)
{
    const char *d = berth_cluster_server_domain(c, s, level);
    return d ? d : "(none)";
}

static void test_flat_has_none(void)
{
    struct berth_cluster *c = parse_ok("4x8:v100");
    CHECK(c->topo == NULL);
    CHECK_I64(berth_cluster_has_topology(c), 0);
    CHECK(berth_cluster_server_domain(c, 0, BERTH_TOPO_RACK) == NULL);
    CHECK_STR(dom(c, 0, BERTH_TOPO_NODE), "v100-0");
    berth_cluster_free(c);
}

static void test_shape_racks_blocks(void)
{
    /* 6 servers in 4 racks: sizes 2, 1, 2, 1 (server s in rack s * 4 / 6) */
    struct berth_cluster *c = parse_ok("6x4:v100,racks=4,blocks=2");
    CHECK_I64(berth_cluster_has_topology(c), 1);
    static const char *const rack[] = {"rack0", "rack0", "rack1", "rack2", "rack2", "rack3"};
    static const char *const block[] = {"block0", "block0", "block0", "block1", "block1", "block1"};
    for (size_t s = 0; s < 6; s++) {
        CHECK_STR(dom(c, s, BERTH_TOPO_RACK), rack[s]);
        CHECK_STR(dom(c, s, BERTH_TOPO_BLOCK), block[s]);
        CHECK_STR(dom(c, s, BERTH_TOPO_NVLINK), "(none)");
    }
    CHECK_I64(c->topo->k[BERTH__TOPO_RACK].n, 4);
    CHECK_I64(c->topo->k[BERTH__TOPO_BLOCK].n, 2);
    CHECK_I64(c->topo->k[BERTH__TOPO_RACK].free[1], 4);   /* rack1: one server */
    CHECK_I64(c->topo->k[BERTH__TOPO_BLOCK].free[0], 12); /* block0: three */
    verify_ok(c);
    berth_cluster_free(c);
}

static void test_shape_nvl(void)
{
    /* islands of 2 inside 8-GPU servers */
    struct berth_cluster *c = parse_ok("2x8:h100,nvl=2");
    CHECK_I64(c->srv[0].nvl, 2);
    struct berth__slot in[] = {{0, 2}, {0, 3}}, across[] = {{0, 1}, {0, 2}};
    CHECK_I64(berth__topo_span(c, in, 2), BERTH_TOPO_NVLINK);
    CHECK_I64(berth__topo_span(c, across, 2), BERTH_TOPO_NODE);
    berth_cluster_free(c);
    /* nvl equal to the server: one island, nothing recorded */
    c = parse_ok("2x8:h100,nvl=8");
    CHECK_I64(c->srv[0].nvl, 0);
    berth_cluster_free(c);
    /* multi-node domains of 72 GPUs: 18 servers of 4, two racks of 18 */
    c = parse_ok("36x4:gb200,racks=2,nvl=72");
    CHECK_I64(c->topo->k[BERTH__TOPO_ISLAND].n, 2);
    CHECK_STR(dom(c, 17, BERTH_TOPO_NVLINK), "nvl0");
    CHECK_STR(dom(c, 18, BERTH_TOPO_NVLINK), "nvl1");
    struct berth__slot two[] = {{0, 0}, {17, 3}}, cross[] = {{17, 0}, {18, 0}};
    CHECK_I64(berth__topo_span(c, two, 2), BERTH_TOPO_NVLINK);
    CHECK_I64(berth__topo_span(c, cross, 2), BERTH_TOPO_CLUSTER); /* no blocks given */
    berth_cluster_free(c);
}

static void test_shape_errors(void)
{
    parse_fails("4x8:v100,racks=5", "racks=5: expected at most one rack per server");
    parse_fails("4x8:v100,racks=2,blocks=3", "blocks=3: expected at most 2 (one per rack)");
    parse_fails("4x8:v100,nvl=3", "nvl=3: expected islands that divide");
    parse_fails("4x8:v100,nvl=12", "do not divide 12");
    parse_fails("4x4:v100,racks=4,nvl=8", "would cross from rack 0 to rack 1");
    parse_fails("4x8:v100,racks=2,racks=2", "racks= given twice");
    parse_fails("4x8:v100,rack=2", "expected racks=R, blocks=B or nvl=N");
    parse_fails("4x8:v100,racks=x", "expected racks= a whole number");
    parse_fails("racks=2", "expected at least one NxG:type part");
}

static void test_span_levels(void)
{
    struct berth_cluster *c = parse_ok("8x8:h100,racks=4,blocks=2");
    /* servers 0-1 rack0, 2-3 rack1 (block0); 4-5 rack2, 6-7 rack3 (block1) */
    struct berth__slot one[] = {{3, 0}, {3, 7}}, rack[] = {{0, 0}, {1, 0}},
                       block[] = {{0, 0}, {2, 0}}, all[] = {{0, 0}, {7, 0}};
    CHECK_I64(berth__topo_span(c, one, 1), BERTH_TOPO_NVLINK);
    CHECK_I64(berth__topo_span(c, one, 2), BERTH_TOPO_NVLINK);
    CHECK_I64(berth__topo_span(c, rack, 2), BERTH_TOPO_RACK);
    CHECK_I64(berth__topo_span(c, block, 2), BERTH_TOPO_BLOCK);
    CHECK_I64(berth__topo_span(c, all, 2), BERTH_TOPO_CLUSTER);
    berth_cluster_free(c);
    /* without a topology: one server or anywhere */
    c = parse_ok("2x8:h100");
    struct berth__slot same[] = {{1, 0}, {1, 7}}, two[] = {{0, 0}, {1, 0}};
    CHECK_I64(berth__topo_span(c, same, 2), BERTH_TOPO_NVLINK);
    CHECK_I64(berth__topo_span(c, two, 2), BERTH_TOPO_CLUSTER);
    berth_cluster_free(c);
}

static void test_counts_take_give_undo_clone(void)
{
    struct berth_cluster *c = parse_ok("4x8:h100,racks=2");
    int32_t *rf = c->topo->k[BERTH__TOPO_RACK].free;
    berth__cluster_take_mask(c, 0, 0x0f);
    berth__cluster_take_mask(c, 3, 0xff);
    CHECK_I64(rf[0], 12);
    CHECK_I64(rf[1], 8);
    verify_ok(c);
    struct berth_cluster *d = berth__cluster_clone(c);
    CHECK(d != NULL);
    berth__cluster_give_mask(c, 3, 0xff);
    CHECK_I64(rf[1], 16);
    CHECK_I64(d->topo->k[BERTH__TOPO_RACK].free[1], 8); /* the clone's own counts */
    verify_ok(c);
    verify_ok(d);
    berth_cluster_free(d);
    /* a trial taken back restores the counts exactly */
    struct berth__undo u;
    berth__undo_init(&u);
    c->undo = &u;
    berth__cluster_take_mask(c, 1, 0xff);
    berth__cluster_take_mask(c, 2, 0x03);
    CHECK_I64(rf[0], 4);
    CHECK_I64(rf[1], 14);
    c->undo = NULL;
    berth__undo_rollback(&u, 0);
    CHECK_I64(rf[0], 12);
    CHECK_I64(rf[1], 16);
    verify_ok(c);
    berth__undo_free(&u);
    /* verify catches a wrong count */
    rf[0]++;
    struct berth_err err = {0};
    CHECK_I64(berth__cluster_verify(c, &err), BERTH_EINTERNAL);
    CHECK_HAS(err.msg, "rack domain rack0 has 12 idle h100 GPUs, counted 13");
    rf[0]--;
    berth_cluster_free(c);
}

static const struct check_test tests[] = {
    {"flat_has_none", test_flat_has_none},
    {"shape_racks_blocks", test_shape_racks_blocks},
    {"shape_nvl", test_shape_nvl},
    {"shape_errors", test_shape_errors},
    {"span_levels", test_span_levels},
    {"counts_take_give_undo_clone", test_counts_take_give_undo_clone},
};

CHECK_MAIN(tests)
