/* Tests for clusters (src/model/cluster.c): the shorthand and JSON specs and their errors,
 * the accessors, the free-GPU buckets and clones (the plan and placement tests are in
 * tests/sched/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plantest.h" /* parse_ok, verify_ok, bucket */
#include "tmpfile.h"

/* ---- shorthand ------------------------------------------------------------------------ */

static void test_shorthand_ok(void)
{
    static const struct {
        const char *spec;
        size_t servers;
        int32_t gpus, max_per_server;
        size_t ntypes;
        const char *types[3];
        int32_t type_gpus[3], type_max[3];
        const char *describe;
    } cases[] = {
        {"16x4:v100", 16, 64, 4, 1, {"v100"}, {64}, {4}, "16 servers, 64 GPUs (64 v100)"},
        {"36x4:v100,36x4:p100,36x4:k80",
         108,
         432,
         4,
         3,
         {"v100", "p100", "k80"},
         {144, 144, 144},
         {4, 4, 4},
         "108 servers, 432 GPUs (144 v100, 144 p100, 144 k80)"},
        {"2x8:A100,4x2:V100",
         6,
         24,
         8,
         2,
         {"a100", "v100"},
         {16, 8},
         {8, 2},
         "6 servers, 24 GPUs (16 a100, 8 v100)"},
        {"2x4:v100,1x8:V100", 3, 16, 8, 1, {"v100"}, {16}, {8}, "3 servers, 16 GPUs (16 v100)"},
        {"1x64:h100", 1, 64, 64, 1, {"h100"}, {64}, {64}, "1 server, 64 GPUs (64 h100)"},
        /* Gavel's -c V100:P100:K80 counts GPUs, on servers of 4: 36 of each = 9 servers each */
        {"gavel:36:36:36",
         27,
         108,
         4,
         3,
         {"v100", "p100", "k80"},
         {36, 36, 36},
         {4, 4, 4},
         "27 servers, 108 GPUs (36 v100, 36 p100, 36 k80)"},
        /* the built-in gavel cluster is Gavel's own size, not four times it */
        {"gavel",
         27,
         108,
         4,
         3,
         {"v100", "p100", "k80"},
         {36, 36, 36},
         {4, 4, 4},
         "27 servers, 108 GPUs (36 v100, 36 p100, 36 k80)"},
        {"gavel:0:8:4",
         3,
         12,
         4,
         2,
         {"p100", "k80"},
         {8, 4},
         {4, 4},
         "3 servers, 12 GPUs (8 p100, 4 k80)"},
        {"1x1:rtx-6000_ada.2",
         1,
         1,
         1,
         1,
         {"rtx-6000_ada.2"},
         {1},
         {1},
         "1 server, 1 GPU (1 rtx-6000_ada.2)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct berth_cluster *c = parse_ok(cases[i].spec);
        if (!c)
            continue;
        CHECK_I64(berth_cluster_servers(c), cases[i].servers);
        CHECK_I64(berth_cluster_gpus(c), cases[i].gpus);
        CHECK_I64(berth_cluster_free_gpus(c), cases[i].gpus);
        CHECK_I64(berth_cluster_max_server_gpus(c, -1), cases[i].max_per_server);
        CHECK_I64(berth_cluster_type_count(c), cases[i].ntypes);
        CHECK_I64(berth_cluster_allows_span(c), 1);
        for (size_t t = 0; t < cases[i].ntypes; t++) {
            CHECK_STR(berth_cluster_type_name(c, t), cases[i].types[t]);
            CHECK_I64(berth_cluster_type_gpus(c, t), cases[i].type_gpus[t]);
            CHECK_I64(berth_cluster_max_server_gpus(c, (int)t), cases[i].type_max[t]);
            CHECK_I64(berth_cluster_type_find(c, cases[i].types[t]), (int)t);
        }
        CHECK(berth_cluster_type_name(c, cases[i].ntypes) == NULL);
        CHECK_I64(berth_cluster_type_gpus(c, cases[i].ntypes), 0);
        CHECK_I64(berth_cluster_max_server_gpus(c, (int)cases[i].ntypes), 0);
        char d[200];
        berth_cluster_describe(c, d, sizeof d);
        CHECK_STR(d, cases[i].describe);
        verify_ok(c);
        berth_cluster_free(c);
    }
    /* each server starts fully idle, with GPU masks of its size */
    struct berth_cluster *c = parse_ok("2x8:a100,1x64:h100");
    if (c) {
        CHECK(c->srv[0].free_mask == 0xff && c->srv[1].free_mask == 0xff);
        CHECK(c->srv[2].free_mask == UINT64_MAX);
        CHECK_I64(c->srv[2].nfree, 64);
        CHECK_I64(c->srv[2].type, 1);
        CHECK_STR(c->srv[0].name, "a100-0");
        CHECK_STR(c->srv[2].name, "h100-2");
        CHECK_I64(c->srv[0].rack, -1);
        CHECK_I64(c->srv[0].pool, -1);
        berth_cluster_free(c);
    }
}

/* The GPUs' memory after the type: GiB, MiB, bare MiB; parts without it model none. */
static void test_shorthand_memory(void)
{
    struct berth_cluster *c = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth_cluster_parse("1x4:v100:16g,2x2:k80:12288m,1x1:t4:15360,1x8:a100", &c, &err),
              0);
    CHECK_I64(c->nsrv, 5);
    CHECK_I64(c->srv[0].gpu_mem_mib, 16384);
    CHECK_I64(c->srv[1].gpu_mem_mib, 12288);
    CHECK_I64(c->srv[2].gpu_mem_mib, 12288);
    CHECK_I64(c->srv[3].gpu_mem_mib, 15360);
    CHECK_I64(c->srv[4].gpu_mem_mib, 0);
    CHECK_I64(c->has_gpu_mem, 1);
    CHECK(!strcmp(c->types[c->srv[0].type].name, "v100"));
    berth_cluster_free(c);
}

static void test_shorthand_errors(void)
{
    static const struct {
        const char *spec;
        int code;
        const char *msg[2];
    } cases[] = {
        {"4x:v100", BERTH_EINPUT, {"part 1", "found \"4x:v100\""}},
        {"x4:v100", BERTH_EINPUT, {"part 1", "found \"x4:v100\""}},
        {"0x4:v100", BERTH_EINPUT, {"part 1", "expected 1 to 1000000 servers, found 0"}},
        {"-2x4:v100", BERTH_EINPUT, {"part 1", "servers, found -2"}},
        {"4x65:v100", BERTH_EINPUT, {"part 1", "expected 1 to 64 GPUs per server, found 65"}},
        {"4x0:v100", BERTH_EINPUT, {"part 1", "GPUs per server, found 0"}},
        {"4x4", BERTH_EINPUT, {"part 1", "found \"4x4\""}},
        {"4x4:", BERTH_EINPUT, {"part 1", "found \"4x4:\""}},
        {"", BERTH_EINPUT, {"--cluster", "empty"}},
        {"4x4:v 100", BERTH_EINPUT, {"part 1", "found \"4x4:v 100\""}},
        {"4x4:v100,2x2", BERTH_EINPUT, {"part 2", "found \"2x2\""}},
        {"4x4:v100,", BERTH_EINPUT, {"part 2", "expected NxG:type"}},
        {"1x4:v100,1x8:k80,2x99:a100", BERTH_EINPUT, {"part 3", "found 99"}},
        {"4x4:abcdefghijklmnopqrstuvwxyz0123456", BERTH_EINPUT, {"part 1", "expected NxG"}},
        {"4:v100x4", BERTH_EINPUT, {"part 1", "expected NxG"}},
        {"4x4:v100:x", BERTH_EINPUT, {"part 1", "the GPUs' memory as 16g"}},
        {"4x4:v100:0g", BERTH_EINPUT, {"part 1", "found \"0g\""}},
        {"4x4:v100:", BERTH_EINPUT, {"part 1", "the GPUs' memory"}},
        {"4x4:v100:16g:1", BERTH_EINPUT, {"part 1", "found \"16g:1\""}},
        {"1x1:a100:40g,2x4:v100:-16g", BERTH_EINPUT, {"part 2", "found \"-16g\""}},
        {"/nonexistent/berth/cluster.json", BERTH_EIO, {"/nonexistent/berth/cluster.json", ""}},
        {"gavel:36:36:30", BERTH_EINPUT, {"--cluster", "a multiple of 4"}},
        {"gavel:36:36", BERTH_EINPUT, {"--cluster", "gavel:V100:P100:K80"}},
        {"gavel:36:36:36:4", BERTH_EINPUT, {"--cluster", "gavel:V100:P100:K80"}},
        {"gavel:-4:36:36", BERTH_EINPUT, {"--cluster", "gavel:V100:P100:K80"}},
        {"gavel: 4:36:36", BERTH_EINPUT, {"--cluster", "gavel:V100:P100:K80"}},
        {"gavel:0:0:0", BERTH_EINPUT, {"--cluster", "at least one GPU"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct berth_cluster *c = NULL;
        struct berth_err err = {0};
        int rc = berth_cluster_parse(cases[i].spec, &c, &err);
        CHECK_I64(rc, cases[i].code);
        CHECK_I64(err.code, cases[i].code);
        CHECK(c == NULL);
        for (int k = 0; k < 2; k++)
            CHECK_HAS(err.msg, cases[i].msg[k]);
        if (cases[i].code == BERTH_EINPUT && cases[i].spec[0]) {
            char want[96];
            snprintf(want, sizeof want, "'%s'", cases[i].spec);
            CHECK_HAS(err.msg, want); /* the message repeats the spec */
        }
        if (rc == 0)
            berth_cluster_free(c);
    }
}

static void test_accessors(void)
{
    struct berth_cluster *c = parse_ok("36x4:v100,36x4:p100,36x4:k80");
    if (!c)
        return;
    static const struct {
        const char *name;
        int want;
    } finds[] = {
        {"v100", 0},  {"V100", 0}, {"P100", 1}, {"k80", 2},    {"K80", 2},
        {"a100", -1}, {"", -1},    {"v10", -1}, {"v1000", -1},
    };
    for (size_t i = 0; i < sizeof finds / sizeof *finds; i++)
        CHECK_I64(berth_cluster_type_find(c, finds[i].name), finds[i].want);
    /* describe never overruns a short buffer */
    char small[12];
    memset(small, 'Z', sizeof small);
    berth_cluster_describe(c, small, 10);
    CHECK_STR(small, "108 serve");
    CHECK(small[10] == 'Z' && small[11] == 'Z');
    char mid[40];
    berth_cluster_describe(c, mid, sizeof mid);
    CHECK_STR(mid, "108 servers, 432 GPUs (144 v100, 144 p1");
    berth_cluster_free(c);
}

/* ---- JSON cluster files --------------------------------------------------------------- */

static void test_json_ok(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *path = tmp_write(
        &t, "c.json",
        "{\n"
        "  \"name\": \"lab\", \"comment\": \"two kinds\",\n"
        "  \"servers\": [\n"
        "    {\"gpu_type\": \"V100\", \"gpus\": 8, \"count\": 2, \"rack\": \"r1\", \"pool\": "
        "\"p\"},\n"
        "    {\"name\": \"big\", \"gpu_type\": \"a100\", \"gpus\": 4, \"rack\": \"r2\"},\n"
        "    {\"gpu_type\": \"v100\", \"gpus\": 2, \"rack\": \"r1\", \"pool\": null}\n"
        "  ]\n"
        "}\n");
    struct berth_cluster *c = parse_ok(path);
    if (c) {
        CHECK_I64(berth_cluster_servers(c), 4);
        CHECK_I64(berth_cluster_gpus(c), 22);
        CHECK_I64(berth_cluster_type_count(c), 2);
        CHECK_STR(berth_cluster_type_name(c, 0), "v100");
        CHECK_STR(berth_cluster_type_name(c, 1), "a100");
        CHECK_I64(berth_cluster_type_gpus(c, 0), 18);
        CHECK_I64(berth_cluster_type_gpus(c, 1), 4);
        CHECK_I64(berth_cluster_max_server_gpus(c, 0), 8);
        CHECK_I64(berth_cluster_max_server_gpus(c, 1), 4);
        CHECK_I64(berth_cluster_allows_span(c), 1);
        CHECK_STR(c->srv[0].name, "v100-0");
        CHECK_STR(c->srv[1].name, "v100-1");
        CHECK_STR(c->srv[2].name, "big");
        CHECK_STR(c->srv[3].name, "v100-3");
        CHECK_I64(c->nracks, 2);
        CHECK_I64(c->srv[0].rack, 0);
        CHECK_I64(c->srv[1].rack, 0);
        CHECK_I64(c->srv[2].rack, 1);
        CHECK_I64(c->srv[3].rack, 0);
        CHECK_STR(c->racks[1], "r2");
        CHECK_I64(c->npools, 1);
        CHECK_I64(c->srv[0].pool, 0);
        CHECK_I64(c->srv[2].pool, -1);
        CHECK_I64(c->srv[3].pool, -1);
        CHECK_STR(c->pools[0], "p");
        CHECK_I64(c->srv[3].ngpus, 2);
        char d[120];
        berth_cluster_describe(c, d, sizeof d);
        /* racks make a topology, and the description tells it (islands of differing sizes
         * are not told) */
        CHECK_STR(d, "4 servers, 22 GPUs (18 v100, 4 a100); 2 racks");
        verify_ok(c);
        berth_cluster_free(c);
    }
    path = tmp_write(&t, "nospan.json",
                     "{\"gang_span\": false, \"servers\": [{\"gpu_type\": \"k80\", \"gpus\": 4, "
                     "\"count\": 3}]}");
    c = parse_ok(path);
    if (c) {
        CHECK_I64(berth_cluster_allows_span(c), 0);
        CHECK_I64(berth_cluster_gpus(c), 12);
        berth_cluster_free(c);
    }
    path = tmp_write(&t, "span.json",
                     "{\"gang_span\": true, \"servers\": [{\"gpu_type\": \"k80\", \"gpus\": 64}]}");
    c = parse_ok(path);
    if (c) {
        CHECK_I64(berth_cluster_allows_span(c), 1);
        CHECK(c->srv[0].free_mask == UINT64_MAX);
        berth_cluster_free(c);
    }
    tmp_close(&t);
}

static void test_json_errors(void)
{
    static const struct {
        const char *json;
        const char *msg[2];
    } cases[] = {
        {"{\n  \"servers\": [\n    {\"gpu_type\": \"v100\", \"gpus\": 4,}\n  ]\n}\n",
         {":3:36: invalid JSON", ""}},
        {"{\"servers\": [], \"servers\": []}", {":1:", "invalid JSON"}},
        {"", {"invalid JSON", ""}},
        {"{\"gang_span\": true}", {": servers: expected a non-empty array", "no \"servers\" key"}},
        {"{\"servers\": []}", {": servers: expected a non-empty array", ""}},
        {"{\"servers\": {}}", {": servers: expected a non-empty array", ""}},
        {"[1, 2]", {": servers:", "not an object"}},
        {"{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4}], \"racks\": 1}",
         {": racks: unknown key", ""}},
        {"{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4}, {\"gpu_type\": \"v100\", "
         "\"gpu\": 4}]}",
         {": servers[1].gpu: unknown key", ""}},
        {"{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4}, {\"gpu_type\": \"v100\", "
         "\"gpus\": 0}]}",
         {": servers[1].gpus: expected an integer from 1 to 64", "found 0"}},
        {"{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4}, {\"gpu_type\": \"v100\", "
         "\"gpus\": 65}]}",
         {": servers[1].gpus: expected an integer from 1 to 64", "found 65"}},
        {"{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4}, {\"gpu_type\": \"v100\", "
         "\"gpus\": \"4\"}]}",
         {": servers[1].gpus: expected an integer", "found \"4\""}},
        {"{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4.5}]}",
         {": servers[0].gpus: expected an integer", "4.5"}},
        {"{\"servers\": [{\"gpu_type\": \"v100\"}]}", {": servers[0].gpus:", "found none"}},
        {"{\"servers\": [{\"gpus\": 4}]}", {": servers[0].gpu_type:", "found none"}},
        {"{\"servers\": [{\"gpu_type\": 100, \"gpus\": 4}]}",
         {": servers[0].gpu_type: expected a string", "integer"}},
        {"{\"servers\": [{\"gpu_type\": \"v 100\", \"gpus\": 4}]}",
         {": servers[0].gpu_type:", "found \"v 100\""}},
        {"{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4, \"rack\": 3}]}",
         {": servers[0].rack: expected a string", ""}},
        {"{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4, \"name\": \"a\", \"count\": 2}]}",
         {": servers[0].name: a name needs count 1", "found count 2"}},
        {"{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4, \"count\": 0}]}",
         {": servers[0].count: expected an integer from 1 to 1000000", "found 0"}},
        {"{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4, \"name\": \"a\"}, "
         "{\"gpu_type\": \"k80\", \"gpus\": 2, \"name\": \"b\"}, "
         "{\"gpu_type\": \"k80\", \"gpus\": 2, \"name\": \"a\"}]}",
         {": servers[2].name: expected a unique name", "already used by servers[0]"}},
        {"{\"servers\": [1]}", {": servers[0]: expected an object", ""}},
        {"{\"gang_span\": \"no\", \"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4}]}",
         {": gang_span: expected true or false", ""}},
    };
    struct tmp t;
    tmp_open(&t);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *path = tmp_write(&t, "bad.json", cases[i].json);
        struct berth_cluster *c = NULL;
        struct berth_err err = {0};
        int before = check_failures;
        int rc = berth_cluster_parse(path, &c, &err);
        CHECK_I64(rc, BERTH_EINPUT);
        CHECK_I64(err.code, BERTH_EINPUT);
        CHECK(c == NULL);
        char want[300];
        snprintf(want, sizeof want, "%s%s", path, cases[i].msg[0][0] == ':' ? cases[i].msg[0] : "");
        CHECK_HAS(err.msg, want); /* FILE then the field path */
        for (int k = 0; k < 2; k++)
            CHECK_HAS(err.msg, cases[i].msg[k]);
        if (check_failures != before)
            fprintf(stderr, "  in JSON case %zu: %s\n", i, cases[i].json);
        if (rc == 0)
            berth_cluster_free(c);
    }
    tmp_close(&t);
}

/* Names must be unique whatever the cluster's size. */
static void test_json_duplicate_names_large(void)
{
    static const int32_t fill[] = {10, 19998, 20000};
    struct tmp t;
    tmp_open(&t);
    for (size_t i = 0; i < sizeof fill / sizeof *fill; i++) {
        char json[400];
        snprintf(json, sizeof json,
                 "{\"servers\": [{\"name\": \"a\", \"gpu_type\": \"v100\", \"gpus\": 4}, "
                 "{\"gpu_type\": \"v100\", \"gpus\": 1, \"count\": %d}, "
                 "{\"name\": \"a\", \"gpu_type\": \"v100\", \"gpus\": 4}]}",
                 (int)fill[i]);
        const char *path = tmp_write(&t, "dup.json", json);
        struct berth_cluster *c = NULL;
        struct berth_err err = {0};
        int rc = berth_cluster_parse(path, &c, &err);
        if (rc != BERTH_EINPUT)
            fprintf(stderr, "  %d servers with the name \"a\" twice: accepted\n", (int)fill[i] + 2);
        CHECK_I64(rc, BERTH_EINPUT);
        CHECK_HAS(
            err.msg,
            "servers[2].name: expected a unique name, found \"a\", already used by servers[0]");
        berth_cluster_free(c);
    }
    tmp_close(&t);
}

/* ---- free-GPU buckets ----------------------------------------------------------------- */

static void test_buckets(void)
{
    struct berth_cluster *c = parse_ok("4x4:v100,2x8:k80");
    if (!c)
        return;
    /* fresh: every server in its full bucket, in index order */
    CHECK_STR(bucket(c, 0, 4), "0,1,2,3");
    CHECK_STR(bucket(c, 1, 8), "4,5");
    for (int f = 0; f < 4; f++)
        CHECK_STR(bucket(c, 0, f), "");

    berth__cluster_take_mask(c, 1, 0x3); /* server 1: GPUs 0,1 busy */
    verify_ok(c);
    CHECK_STR(bucket(c, 0, 4), "0,2,3");
    CHECK_STR(bucket(c, 0, 2), "1");
    CHECK_I64(c->srv[1].nfree, 2);
    CHECK(c->srv[1].free_mask == 0xc);
    CHECK_I64(c->types[0].free, 14);
    CHECK_I64(c->types[1].free, 16);
    CHECK_I64(berth_cluster_free_gpus(c), 30);

    berth__cluster_take_mask(c, 2, 0xf); /* server 2 full */
    berth__cluster_take_mask(c, 3, 0x5); /* server 3: GPUs 0,2 busy */
    verify_ok(c);
    CHECK_STR(bucket(c, 0, 4), "0");
    CHECK_STR(bucket(c, 0, 2), "3,1"); /* a server moved in goes first */
    CHECK_STR(bucket(c, 0, 0), "2");
    CHECK(c->srv[3].free_mask == 0xa);

    berth__cluster_give_mask(c, 1, 0x1); /* one back: 3 idle */
    verify_ok(c);
    CHECK_STR(bucket(c, 0, 2), "3");
    CHECK_STR(bucket(c, 0, 3), "1");
    CHECK(c->srv[1].free_mask == 0xd);

    /* slots grouped by server, across two servers of another type */
    const struct berth__slot sl[] = {{4, 0}, {4, 1}, {4, 7}, {5, 3}};
    berth__cluster_take_slots(c, sl, 4);
    verify_ok(c);
    CHECK_STR(bucket(c, 1, 5), "4");
    CHECK_STR(bucket(c, 1, 7), "5");
    CHECK_STR(bucket(c, 1, 8), "");
    CHECK(c->srv[4].free_mask == 0x7c);
    CHECK(c->srv[5].free_mask == 0xf7);
    CHECK_I64(c->types[1].free, 12);
    CHECK_I64(berth_cluster_free_gpus(c), 21); /* 4 + 3 + 0 + 2 v100, 12 k80 */
    berth__cluster_give_slots(c, sl, 4);
    verify_ok(c);
    CHECK_STR(bucket(c, 1, 8), "5,4");
    CHECK_I64(c->types[1].free, 16);

    /* give everything back: all servers in the full bucket again */
    berth__cluster_give_mask(c, 1, 0x2);
    berth__cluster_give_mask(c, 2, 0xf);
    berth__cluster_give_mask(c, 3, 0x5);
    verify_ok(c);
    CHECK_I64(berth_cluster_free_gpus(c), 32);
    for (int f = 0; f < 4; f++)
        CHECK_STR(bucket(c, 0, f), "");
    CHECK_I64(strlen(bucket(c, 0, 4)), 7); /* four servers listed */

    /* verify notices broken bookkeeping */
    struct berth_err err = {0};
    c->srv[0].nfree = 3;
    CHECK_I64(berth__cluster_verify(c, &err), BERTH_EINTERNAL);
    c->srv[0].nfree = 4;
    c->srv[0].free_mask = 0x7;
    CHECK_I64(berth__cluster_verify(c, &err), BERTH_EINTERNAL);
    c->srv[0].free_mask = 0x1f; /* a bit beyond the server's GPUs */
    c->srv[0].nfree = 5;
    CHECK_I64(berth__cluster_verify(c, &err), BERTH_EINTERNAL);
    c->srv[0].free_mask = 0xf;
    c->srv[0].nfree = 4;
    c->free = 31;
    CHECK_I64(berth__cluster_verify(c, &err), BERTH_EINTERNAL);
    c->free = 32;
    c->types[1].free = 15;
    CHECK_I64(berth__cluster_verify(c, &err), BERTH_EINTERNAL);
    c->types[1].free = 16;
    verify_ok(c);
    berth_cluster_free(c);
}

static void test_take_all_64(void)
{
    struct berth_cluster *c = parse_ok("2x64:h100");
    if (!c)
        return;
    berth__cluster_take_mask(c, 1, UINT64_MAX);
    verify_ok(c);
    CHECK_STR(bucket(c, 0, 0), "1");
    CHECK_STR(bucket(c, 0, 64), "0");
    CHECK_I64(berth_cluster_free_gpus(c), 64);
    berth__cluster_give_mask(c, 1, UINT64_C(1) << 63);
    verify_ok(c);
    CHECK_STR(bucket(c, 0, 1), "1");
    berth_cluster_free(c);
}

/* The clone checks for one spec of three 4-GPU v100 servers and one 2-GPU k80 server. */
static void clone_body(const char *spec)
{
    struct berth_cluster *c = parse_ok(spec);
    if (!c)
        return;
    berth__cluster_take_mask(c, 0, 0x1);
    struct berth_cluster *d = berth__cluster_clone(c);
    CHECK(d != NULL);
    if (!d) {
        berth_cluster_free(c);
        return;
    }
    verify_ok(d);
    CHECK_I64(berth_cluster_free_gpus(d), 13);
    CHECK_STR(bucket(d, 0, 3), "0");
    CHECK_STR(berth_cluster_type_name(d, 1), "k80");
    CHECK_STR(d->srv[3].name, "k80-3");

    /* edits to the clone stay in the clone */
    berth__cluster_take_mask(d, 1, 0xf);
    berth__cluster_take_mask(d, 3, 0x2);
    verify_ok(d);
    verify_ok(c);
    CHECK_I64(berth_cluster_free_gpus(d), 8);
    CHECK_I64(berth_cluster_free_gpus(c), 13);
    CHECK(c->srv[1].free_mask == 0xf);
    CHECK_I64(c->types[1].free, 2);
    CHECK_STR(bucket(c, 0, 4), "1,2");
    CHECK_STR(bucket(d, 0, 4), "2");
    CHECK_STR(bucket(c, 0, 0), "");
    CHECK_STR(bucket(d, 0, 0), "1");
    CHECK_STR(bucket(c, 1, 2), "3");
    CHECK_STR(bucket(d, 1, 1), "3");

    /* and the other way round */
    berth__cluster_give_mask(c, 0, 0x1);
    verify_ok(c);
    verify_ok(d);
    CHECK(d->srv[0].free_mask == 0xe);
    CHECK_STR(bucket(d, 0, 3), "0");
    berth_cluster_free(d);
    berth_cluster_free(c);
}

static void test_clone(void)
{
    /* a shorthand cluster has no racks or pools (NULL tables) */
    clone_body("3x4:v100,1x2:k80");
}

static void test_clone_racks(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *path = tmp_write(
        &t, "c.json",
        "{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4, \"count\": 3, \"rack\": \"r\", "
        "\"pool\": \"p\"}, {\"gpu_type\": \"k80\", \"gpus\": 2, \"rack\": \"s\", \"pool\": "
        "\"p\"}]}");
    clone_body(path);
    tmp_close(&t);
}

/* GPUs held out for work outside the engine, and closed servers (berthd's Slurm nodes), on
 * 2x4:v100 with a job on GPUs 0 and 1 of s0 (idle 0xc):
 *   hold_out(s0, 1): the lowest idle GPU, 2, leaves the free state: out 0x4, idle 0x8;
 *   hold_out(s0, 3): only GPU 3 is idle: out 0xc, one short; the job gives GPU 0 back and it
 *     is held out at once (out 0xd), so nothing can be placed on it;
 *   hold_out(s0, 0): all three back, the highest first: idle 0xd;
 *   close(s1) while a job holds its GPU 0: GPUs 1..3 out; the job leaves and GPU 0 goes out
 *     too; open again: all four idle. */
static void test_hold_out_close(void)
{
    struct berth_cluster *c = parse_ok("2x4:v100");
    if (!c)
        return;
    berth__cluster_take_mask(c, 0, 0x3);
    berth__cluster_hold_out(c, 0, 1);
    CHECK_I64(c->srv[0].out_mask, 0x4);
    CHECK_I64(c->srv[0].free_mask, 0x8);
    CHECK_I64(c->out_gpus, 1);
    CHECK_I64(berth_cluster_free_gpus(c), 5);
    verify_ok(c);
    berth__cluster_hold_out(c, 0, 3);
    CHECK_I64(c->srv[0].out_mask, 0xc);
    CHECK_I64(c->srv[0].free_mask, 0);
    berth__cluster_give_mask(c, 0, 0x1);
    CHECK_I64(c->srv[0].out_mask, 0xd);
    CHECK_I64(c->srv[0].nfree, 0);
    CHECK_I64(c->out_gpus, 3);
    CHECK_STR(bucket(c, 0, 0), "0");
    verify_ok(c);
    berth__cluster_hold_out(c, 0, 0);
    CHECK_I64(c->srv[0].out_mask, 0);
    CHECK_I64(c->srv[0].free_mask, 0xd);
    CHECK_I64(c->out_gpus, 0);
    berth__cluster_take_mask(c, 1, 0x1);
    berth__cluster_close(c, 1, 1);
    CHECK_I64(c->srv[1].out_mask, 0xe);
    CHECK_I64(berth_cluster_free_gpus(c), 3);
    berth__cluster_give_mask(c, 1, 0x1);
    CHECK_I64(c->srv[1].out_mask, 0xf);
    CHECK_I64(c->out_gpus, 4);
    verify_ok(c);
    berth__cluster_hold_out(c, 1, 2); /* outside work on a closed server: all stay out */
    CHECK_I64(c->srv[1].out_mask, 0xf);
    berth__cluster_close(c, 1, 0); /* open: only the outside work's two stay out */
    CHECK_I64(c->srv[1].out_mask, 0x3);
    CHECK_I64(c->srv[1].free_mask, 0xc);
    berth__cluster_hold_out(c, 1, 0);
    CHECK_I64(c->srv[1].free_mask, 0xf);
    CHECK_I64(berth_cluster_free_gpus(c), 7);
    CHECK_I64(c->out_gpus, 0);
    verify_ok(c);
    berth_cluster_free(c);
}

static const struct check_test tests[] = {
    {"shorthand_ok", test_shorthand_ok},
    {"shorthand_memory", test_shorthand_memory},
    {"shorthand_errors", test_shorthand_errors},
    {"accessors", test_accessors},
    {"json_ok", test_json_ok},
    {"json_errors", test_json_errors},
    {"json_duplicate_names_large", test_json_duplicate_names_large},
    {"buckets", test_buckets},
    {"take_all_64", test_take_all_64},
    {"clone", test_clone},
    {"clone_racks", test_clone_racks},
    {"hold_out_close", test_hold_out_close},
};

CHECK_MAIN(tests)
