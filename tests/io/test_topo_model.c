/* Tests for the rate by distance (src/model/topo_rate.c) and its --topology-model file
 * (src/io/topo_model.c): the factor f(L) = 1 / ((1 - s) + s * bw[nvlink] / bw[L]) at every
 * level with the defaults, hand-computed; the default shares; a file over the defaults; and
 * the file's errors, each naming the file and the field. */
#include <math.h>

#include "io/topo_model.h"
#include "model/topo_rate.h"
#include "tmpfile.h"

/* Default bandwidths 450, 64, 50, 25, 12.5 GB/s; bw[nvlink] / bw[L] = 1, 7.03125, 9, 18, 36. */
static void test_defaults(void)
{
    struct berth_topo_model r;
    berth__topo_rate_default(&r);
    CHECK_DBL(r.bw[BERTH_TOPO_NVLINK], 450, 0);
    CHECK_DBL(r.bw[BERTH_TOPO_NODE], 64, 0);
    CHECK_DBL(r.bw[BERTH_TOPO_RACK], 50, 0);
    CHECK_DBL(r.bw[BERTH_TOPO_BLOCK], 25, 0);
    CHECK_DBL(r.bw[BERTH_TOPO_CLUSTER], 12.5, 0);
    CHECK_DBL(berth__topo_rate_share(&r, ""), 0.02, 0);
    CHECK_DBL(berth__topo_rate_share(&r, NULL), 0.02, 0);
    CHECK_DBL(berth__topo_rate_share(&r, "resnet50"), 0.02, 0);
    CHECK_DBL(berth__topo_rate_share(&r, "llm-finetune"), 0.02, 0);
    CHECK_DBL(berth__topo_rate_share(&r, "llm-pretrain"), 0.03, 0);
    /* s = 0.02: 0.98 + 0.02 x (1, 7.03125, 9, 18, 36) = 1, 1.120625, 1.16, 1.34, 1.70 */
    const double want[BERTH_TOPO_LEVELS] = {1.0, 1 / 1.120625, 1 / 1.16, 1 / 1.34, 1 / 1.70};
    for (int l = 0; l < BERTH_TOPO_LEVELS; l++) {
        CHECK_DBL(berth__topo_rate_factor(&r, "", l), want[l], 1e-12);
        CHECK_DBL(berth__topo_rate_factor(NULL, "", l), want[l], 1e-12); /* NULL: defaults */
    }
    /* llm-pretrain, s = 0.03: 0.97 + 0.03 x 9 = 1.24 at a rack, 0.97 + 1.08 = 2.05 anywhere */
    CHECK_DBL(berth__topo_rate_factor(&r, "llm-pretrain", BERTH_TOPO_RACK), 1 / 1.24, 1e-12);
    CHECK_DBL(berth__topo_rate_factor(&r, "llm-pretrain", BERTH_TOPO_CLUSTER), 1 / 2.05, 1e-12);
    /* out of range: no slowdown */
    CHECK_DBL(berth__topo_rate_factor(&r, "", -1), 1.0, 0);
    CHECK_DBL(berth__topo_rate_factor(&r, "", BERTH_TOPO_LEVELS), 1.0, 0);
}

/* The brief's golden case, s = 0.1: a 16-GPU gang over two servers of one rack runs at
 * 1 / (0.9 + 0.1 x 9) = 1 / 1.8 (a 1000 s job takes 1800 s, tests/cli_topo_rate.sh); over
 * two racks of one block 1 / (0.9 + 1.8) = 1 / 2.7; across blocks 1 / (0.9 + 3.6) = 1 / 4.5. */
static void test_file_over_defaults(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *p = tmp_write(&t, "m.json",
                              "{\"comm_share\": {\"default\": 0.1, \"llm-pretrain\": 0.5, "
                              "\"mine\": 0}, \"bandwidth_gbps\": {\"node\": 90}}");
    struct berth_topo_model r;
    berth__topo_rate_default(&r);
    struct berth_err err = {0};
    CHECK_I64(berth__topo_rate_load(p, &r, &err), 0);
    CHECK_DBL(berth__topo_rate_factor(&r, "", BERTH_TOPO_NVLINK), 1.0, 0);
    CHECK_DBL(berth__topo_rate_factor(&r, "", BERTH_TOPO_RACK), 1 / 1.8, 1e-12);
    CHECK_DBL(berth__topo_rate_factor(&r, "", BERTH_TOPO_BLOCK), 1 / 2.7, 1e-12);
    CHECK_DBL(berth__topo_rate_factor(&r, "", BERTH_TOPO_CLUSTER), 1 / 4.5, 1e-12);
    /* node 90 GB/s: 450 / 90 = 5, 0.9 + 0.5 = 1.4 */
    CHECK_DBL(berth__topo_rate_factor(&r, "", BERTH_TOPO_NODE), 1 / 1.4, 1e-12);
    /* a listed type replaces its default share; a type of share 0 never slows */
    CHECK_DBL(berth__topo_rate_factor(&r, "llm-pretrain", BERTH_TOPO_RACK), 1 / 5.0, 1e-12);
    CHECK_DBL(berth__topo_rate_factor(&r, "mine", BERTH_TOPO_CLUSTER), 1.0, 0);
    CHECK_DBL(berth__topo_rate_share(&r, "llm-finetune"), 0.02, 0); /* kept */
    tmp_close(&t);
}

static void load_fails(const char *text, const char *want)
{
    struct tmp t;
    tmp_open(&t);
    const char *p = tmp_write(&t, "bad.json", text);
    char path[160];
    snprintf(path, sizeof path, "%s", p);
    struct berth_topo_model r, before;
    berth__topo_rate_default(&r);
    before = r;
    struct berth_err err = {0};
    CHECK_I64(berth__topo_rate_load(path, &r, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, path);
    CHECK_HAS(err.msg, want);
    CHECK(memcmp(&r, &before, sizeof r) == 0); /* a bad file changes nothing */
    tmp_close(&t);
}

static void test_errors(void)
{
    load_fails("[1]", "expected a JSON object with bandwidth_gbps and comm_share");
    load_fails("{\"bandwidth\": {}}",
               "bandwidth: unknown key (expected bandwidth_gbps, comm_share)");
    load_fails("{\"comm_share\": 3}", "comm_share: expected a JSON object");
    load_fails("{\"bandwidth_gbps\": {\"spine\": 5}}",
               "bandwidth_gbps.spine: unknown level (expected nvlink, node, rack, block or "
               "cluster)");
    load_fails("{\"bandwidth_gbps\": {\"rack\": 0}}", "bandwidth_gbps.rack: expected a number");
    load_fails("{\"bandwidth_gbps\": {\"rack\": \"50\"}}",
               "bandwidth_gbps.rack: expected a number above 0, found another JSON type");
    load_fails("{\"bandwidth_gbps\": {\"block\": 500}}",
               "bandwidth_gbps.block: expected at most nvlink's 450 GB/s, found 500");
    load_fails("{\"bandwidth_gbps\": {\"nvlink\": 40}}",
               "bandwidth_gbps.node: expected at most nvlink's 40 GB/s, found 64");
    load_fails("{\"comm_share\": {\"default\": 1.5}}", "comm_share.default: expected a number");
    load_fails("{\"comm_share\": {\"x\": -0.1}}", "comm_share.x: expected a number from 0 to 1");
    load_fails("{\"comm_share\": ", "");
    struct berth_topo_model r;
    berth__topo_rate_default(&r);
    struct berth_err err = {0};
    CHECK_I64(berth__topo_rate_load("/nonexistent/m.json", &r, &err) != 0, 1);
    CHECK_HAS(err.msg, "/nonexistent/m.json");
}

static const struct check_test tests[] = {
    {"defaults", test_defaults},
    {"file_over_defaults", test_file_over_defaults},
    {"errors", test_errors},
};

CHECK_MAIN(tests)
