/* Tests for clusters (src/model/cluster.c): the shorthand and JSON specs and their errors,
 * the accessors, the free-GPU buckets and clones; and the placement helpers
 * (src/sched/placement.c) driven through the plan API (src/sched/plan.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tmpfile.h"
#include "model/cluster.h"
#include "sched/plan.h"

/* ---- helpers -------------------------------------------------------------------------- */

static struct berth_cluster *parse_ok(const char *spec)
{
    struct berth_cluster *c = NULL;
    struct berth_err err = {0};
    int rc = berth_cluster_parse(spec, &c, &err);
    if (rc)
        fprintf(stderr, "  berth_cluster_parse(%s): %s\n", spec, err.msg);
    CHECK_I64(rc, 0);
    return rc ? NULL : c;
}

static void verify_ok(const struct berth_cluster *c)
{
    struct berth_err err = {0};
    int rc = berth__cluster_verify(c, &err);
    if (rc)
        fprintf(stderr, "  verify: %s\n", err.msg);
    CHECK_I64(rc, 0);
}

/* The servers in bucket (t, f), in list order: "0,2,3" ("" when empty). */
static const char *bucket(const struct berth_cluster *c, size_t t, int f)
{
    static char buf[256];
    size_t o = 0;
    buf[0] = '\0';
    if (f > c->types[t].max_per_server)
        return buf;
    for (int32_t s = c->types[t].head[f]; s >= 0 && o < sizeof buf - 16; s = c->srv[s].next)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%d", o ? "," : "", (int)s);
    return buf;
}

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
        {"4x4:v100:x", BERTH_EINPUT, {"part 1", "expected NxG"}},
        {"/nonexistent/berth/cluster.json", BERTH_EIO, {"/nonexistent/berth/cluster.json", ""}},
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
        CHECK_STR(d, "4 servers, 22 GPUs (18 v100, 4 a100)");
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

/* ---- placement through the plan ------------------------------------------------------- */

struct pjob {
    struct berth_jobspec spec;
    struct berth_job job;
};

static void pjob_init(struct pjob *p, uint32_t idx, const char *id, int32_t gpus, int single,
                      int want_type)
{
    memset(p, 0, sizeof *p);
    p->spec.id = id;
    p->spec.job_type = p->spec.user = p->spec.queue = p->spec.gpu_type = "";
    p->spec.num_gpus = p->spec.min_gpus = p->spec.max_gpus = gpus;
    p->spec.gpu_share_milli = 1000;
    p->spec.duration_us = 100 * BERTH_US_PER_S;
    p->spec.single_server = (uint8_t)single;
    berth__job_init(&p->job, &p->spec, idx, NULL);
    p->job.state = BERTH_JOB_PENDING;
    p->job.type_mask = want_type >= 0 ? UINT64_C(1) << want_type : 0;
}

static int cmp_slot(const void *a, const void *b)
{
    const struct berth__slot *x = a, *y = b;
    if (x->server != y->server)
        return x->server < y->server ? -1 : 1;
    return (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

/* A job's GPUs, sorted: "2:0 2:1 0:6" style ("server:gpu", by server then GPU). */
static const char *slots_of(const struct berth_job *j)
{
    static char buf[1024];
    struct berth__slot s[128];
    int32_t n = j->spec->num_gpus;
    if (!j->slots || n > 128)
        return "(none)";
    memcpy(s, j->slots, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_slot);
    size_t o = 0;
    buf[0] = '\0';
    for (int32_t k = 0; k < n && o < sizeof buf - 24; k++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%u:%u", k ? " " : "", s[k].server,
                              s[k].gpu);
    return buf;
}

/* The busy state shared by the placement cases: four 8-GPU servers with 2, 5, 8 and 4 idle
 * GPUs (the highest-numbered GPUs of each server idle). */
static struct berth_cluster *partly_busy(void)
{
    struct berth_cluster *c = parse_ok("4x8:v100");
    if (!c)
        return NULL;
    berth__cluster_take_mask(c, 0, 0x3f); /* 2 idle: GPUs 6,7 */
    berth__cluster_take_mask(c, 1, 0x07); /* 5 idle: GPUs 3..7 */
    berth__cluster_take_mask(c, 3, 0x0f); /* 4 idle: GPUs 4..7 */
    verify_ok(c);
    return c;
}

static void test_placement(void)
{
    static const struct {
        int placement;
        int32_t gpus;
        int single;
        const char *want; /* sorted server:gpu list */
        int32_t servers;
    } cases[] = {
        /* consolidate: the tightest server that holds the whole gang */
        {BERTH_PLACE_CONSOLIDATE, 1, 0, "0:6", 1},
        {BERTH_PLACE_CONSOLIDATE, 2, 0, "0:6 0:7", 1},
        {BERTH_PLACE_CONSOLIDATE, 3, 0, "3:4 3:5 3:6", 1},
        {BERTH_PLACE_CONSOLIDATE, 4, 0, "3:4 3:5 3:6 3:7", 1},
        {BERTH_PLACE_CONSOLIDATE, 5, 0, "1:3 1:4 1:5 1:6 1:7", 1},
        {BERTH_PLACE_CONSOLIDATE, 8, 0, "2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7", 1},
        /* else whole servers from the emptiest down, the last piece on the tightest */
        {BERTH_PLACE_CONSOLIDATE, 10, 0, "0:6 0:7 2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7", 2},
        {BERTH_PLACE_CONSOLIDATE, 12, 0, "2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7 3:4 3:5 3:6 3:7", 2},
        {BERTH_PLACE_CONSOLIDATE, 16, 0,
         "1:3 1:4 1:5 1:6 1:7 2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7 3:4 3:5 3:6", 3},
        {BERTH_PLACE_CONSOLIDATE, 19, 0,
         "0:6 0:7 1:3 1:4 1:5 1:6 1:7 2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7 3:4 3:5 3:6 3:7", 4},
        /* best-fit: the same when one server holds the gang */
        {BERTH_PLACE_BEST_FIT, 3, 0, "3:4 3:5 3:6", 1},
        {BERTH_PLACE_BEST_FIT, 5, 0, "1:3 1:4 1:5 1:6 1:7", 1},
        /* else the fullest servers first (2 idle, then 4 idle), the rest on the tightest */
        {BERTH_PLACE_BEST_FIT, 12, 0, "0:6 0:7 2:0 2:1 2:2 2:3 2:4 2:5 3:4 3:5 3:6 3:7", 3},
        {BERTH_PLACE_BEST_FIT, 16, 0,
         "0:6 0:7 1:3 1:4 1:5 1:6 1:7 2:0 2:1 2:2 2:3 2:4 3:4 3:5 3:6 3:7", 4},
        {BERTH_PLACE_BEST_FIT, 9, 0, "0:6 0:7 2:0 2:1 2:2 2:3 2:4 2:5 2:6", 2},
        /* spread: GPU by GPU to the emptiest server; 8 GPUs level 5/8/4 idle down to 3 */
        {BERTH_PLACE_SPREAD, 8, 0, "1:3 1:4 2:0 2:1 2:2 2:3 2:4 3:4", 3},
        {BERTH_PLACE_SPREAD, 3, 0, "2:0 2:1 2:2", 1},
        /* 11 GPUs: every server levelled down to 2 idle (server 0 already was) */
        {BERTH_PLACE_SPREAD, 11, 0, "1:3 1:4 1:5 2:0 2:1 2:2 2:3 2:4 2:5 3:4 3:5", 3},
        /* single_server jobs never span, whatever the placement: the tightest server */
        {BERTH_PLACE_SPREAD, 4, 1, "3:4 3:5 3:6 3:7", 1},
        {BERTH_PLACE_SPREAD, 6, 1, "2:0 2:1 2:2 2:3 2:4 2:5", 1},
        {BERTH_PLACE_BEST_FIT, 2, 1, "0:6 0:7", 1},
        {BERTH_PLACE_CONSOLIDATE, 5, 1, "1:3 1:4 1:5 1:6 1:7", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct berth_cluster *c = partly_busy();
        if (!c)
            continue;
        struct pjob pj;
        pjob_init(&pj, 0, "j", cases[i].gpus, cases[i].single, -1);
        struct berth_plan p;
        berth__plan_init(&p);
        CHECK_I64(berth__plan_open(&p, c, &pj.job, 1, 5 * BERTH_US_PER_S, cases[i].placement, 1, 0),
                  0);
        int before = check_failures;
        struct berth_err err = {0};
        CHECK_I64(berth__plan_fit(&p, &pj.job), 0);
        int rc = berth__plan_start(&p, 0, &err);
        if (rc)
            fprintf(stderr, "  plan_start: %s\n", err.msg);
        CHECK_I64(rc, 0);
        CHECK_STR(slots_of(&pj.job), cases[i].want);
        CHECK_I64(pj.job.servers, cases[i].servers);
        CHECK_I64(pj.job.state, BERTH_JOB_RUNNING);
        CHECK_I64(pj.job.type, 0);
        CHECK_I64(pj.job.since, 5 * BERTH_US_PER_S);
        CHECK_I64(p.npending, 0);
        CHECK_I64(p.nrunning, 1);
        CHECK_I64(berth_cluster_free_gpus(c), 19 - cases[i].gpus);
        verify_ok(c);
        if (check_failures != before)
            fprintf(stderr, "  in placement case %zu (placement %d, %d GPUs)\n", i,
                    cases[i].placement, (int)cases[i].gpus);
        free(pj.job.slots);
        berth__plan_free(&p);
        berth_cluster_free(c);
    }
}

/* Spread over equally idle servers: one GPU on each of distinct servers. */
static void test_spread_even(void)
{
    static const int32_t gpus[] = {2, 3, 4};
    for (size_t i = 0; i < sizeof gpus / sizeof *gpus; i++) {
        struct berth_cluster *c = parse_ok("4x4:v100");
        if (!c)
            continue;
        struct pjob pj;
        pjob_init(&pj, 0, "s", gpus[i], 0, -1);
        struct berth_plan p;
        berth__plan_init(&p);
        berth__plan_open(&p, c, &pj.job, 1, 0, BERTH_PLACE_SPREAD, 1, 0);
        struct berth_err err = {0};
        CHECK_I64(berth__plan_start(&p, 0, &err), 0);
        CHECK_I64(pj.job.servers, gpus[i]);
        int each_gpu0 = 1;
        for (int32_t k = 0; k < gpus[i] && pj.job.slots; k++)
            each_gpu0 &= pj.job.slots[k].gpu == 0;
        CHECK(each_gpu0);
        for (size_t s = 0; s < 4; s++)
            CHECK(c->srv[s].nfree >= 3);
        verify_ok(c);
        free(pj.job.slots);
        berth__plan_free(&p);
        berth_cluster_free(c);
    }
    /* consolidate and best-fit keep a 4-GPU gang on one server of an idle cluster */
    static const int others[] = {BERTH_PLACE_CONSOLIDATE, BERTH_PLACE_BEST_FIT};
    for (size_t i = 0; i < 2; i++) {
        struct berth_cluster *c = parse_ok("4x4:v100");
        if (!c)
            continue;
        struct pjob pj;
        pjob_init(&pj, 0, "w", 4, 0, -1);
        struct berth_plan p;
        berth__plan_init(&p);
        berth__plan_open(&p, c, &pj.job, 1, 0, others[i], 1, 0);
        struct berth_err err = {0};
        CHECK_I64(berth__plan_start(&p, 0, &err), 0);
        CHECK_I64(pj.job.servers, 1);
        CHECK_STR(slots_of(&pj.job), "0:0 0:1 0:2 0:3");
        free(pj.job.slots);
        berth__plan_free(&p);
        berth_cluster_free(c);
    }
}

/* berth__plan_fit: types in cluster order, a required type, -1 when it cannot fit. */
static void test_plan_fit(void)
{
    struct berth_cluster *c = partly_busy(); /* 2, 5, 8, 4 idle */
    struct berth_cluster *h = parse_ok("2x4:v100,2x8:k80");
    if (!c || !h) {
        berth_cluster_free(c);
        berth_cluster_free(h);
        return;
    }
    static const struct {
        int het;
        int32_t gpus;
        int single, want_type, fit;
    } cases[] = {
        {0, 19, 0, -1, 0}, {0, 20, 0, -1, -1}, {0, 8, 1, -1, 0},  {0, 9, 1, -1, -1},
        {0, 1, 0, 0, 0},   {0, 20, 0, 0, -1},  {1, 8, 0, -1, 0},  {1, 9, 0, -1, 1},
        {1, 6, 0, -1, 0},  {1, 6, 1, -1, 1},   {1, 4, 1, -1, 0},  {1, 1, 0, 1, 1},
        {1, 16, 0, 1, 1},  {1, 17, 0, -1, -1}, {1, 17, 0, 1, -1}, {1, 9, 0, 0, -1},
        {1, 5, 1, 0, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct pjob pj;
        pjob_init(&pj, 0, "f", cases[i].gpus, cases[i].single, cases[i].want_type);
        struct berth_plan p;
        berth__plan_init(&p);
        berth__plan_open(&p, cases[i].het ? h : c, &pj.job, 1, 0, BERTH_PLACE_CONSOLIDATE, 1, 0);
        int fit = berth__plan_fit(&p, &pj.job);
        if (fit != cases[i].fit)
            fprintf(stderr, "  plan_fit case %zu\n", i);
        CHECK_I64(fit, cases[i].fit);
        struct berth_err err = {0};
        int32_t free_before = berth_cluster_free_gpus(p.cluster);
        int rc = berth__plan_start(&p, 0, &err);
        if (cases[i].fit < 0) {
            /* a start that does not fit says so (BERTH_NOFIT, no message) and changes
             * nothing */
            CHECK_I64(rc, BERTH_NOFIT);
            CHECK_STR(err.msg, "");
            CHECK_I64(pj.job.state, BERTH_JOB_PENDING);
            CHECK_I64(berth_cluster_free_gpus(p.cluster), free_before);
            CHECK_I64(p.npending, 1);
        } else {
            CHECK_I64(rc, 0);
            CHECK_I64(pj.job.type, cases[i].fit);
            CHECK_I64(berth_cluster_free_gpus(p.cluster), free_before - cases[i].gpus);
            for (int32_t k = 0; k < cases[i].gpus && pj.job.slots; k++)
                CHECK_I64(p.cluster->srv[pj.job.slots[k].server].type, cases[i].fit);
            /* undo through a fresh plan so the next case sees the same state */
            berth__cluster_give_slots(p.cluster, pj.job.slots, pj.job.spec->num_gpus);
        }
        verify_ok(p.cluster);
        free(pj.job.slots);
        berth__plan_free(&p);
    }
    berth_cluster_free(h);
    berth_cluster_free(c);
}

/* A cluster file with gang_span false keeps every gang on one server. */
static void test_no_span_cluster(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *path =
        tmp_write(&t, "c.json",
                  "{\"gang_span\": false, \"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4, "
                  "\"count\": 3}]}");
    struct berth_cluster *c = parse_ok(path);
    tmp_close(&t);
    if (!c)
        return;
    berth__cluster_take_mask(c, 0, 0x1); /* 3, 4, 4 idle */
    struct pjob a, b;
    pjob_init(&a, 0, "a", 3, 0, -1);
    pjob_init(&b, 1, "b", 5, 0, -1);
    struct berth_job jobs[2];
    /* the engine derives "must stay on one server" from the cluster when it adds a job */
    CHECK_I64(berth__job_init(&jobs[0], &a.spec, 0, c), 0);
    CHECK_I64(berth__job_init(&jobs[1], &b.spec, 1, c), 0);
    CHECK(jobs[0].single && jobs[1].single);
    jobs[0].state = jobs[1].state = BERTH_JOB_PENDING;
    struct berth_plan p;
    berth__plan_init(&p);
    berth__plan_open(&p, c, jobs, 2, 0, BERTH_PLACE_SPREAD, 2, 0);
    struct berth_err err = {0};
    CHECK_I64(berth__plan_fit(&p, &jobs[1]), -1); /* 11 idle, but 5 on one server never */
    CHECK_I64(berth__plan_start(&p, 1, &err), BERTH_NOFIT);
    CHECK_I64(berth__plan_start(&p, 0, &err), 0);
    CHECK_STR(slots_of(&jobs[0]), "0:1 0:2 0:3"); /* tightest, even under spread */
    CHECK_I64(jobs[0].servers, 1);
    verify_ok(c);
    free(jobs[0].slots);
    free(jobs[1].slots);
    berth__plan_free(&p);
    berth_cluster_free(c);
}

/* Preempt and restore give back the very same GPUs; a restore is refused once another job
 * took one of them. */
static void test_preempt_restore(void)
{
    struct berth_cluster *c = partly_busy(); /* 2, 5, 8, 4 idle */
    if (!c)
        return;
    struct pjob a, b, d;
    pjob_init(&a, 0, "a", 6, 0, -1);
    pjob_init(&b, 1, "b", 2, 0, -1);
    pjob_init(&d, 2, "d", 1, 0, -1);
    struct berth_job jobs[3] = {a.job, b.job, d.job};
    jobs[0].spec = &a.spec;
    jobs[1].spec = &b.spec;
    jobs[2].spec = &d.spec;
    struct berth_plan p;
    berth__plan_init(&p);
    struct berth_err err = {0};

    /* pass 1 at t=0: start a on the tightest server that holds 6 (server 2) */
    CHECK_I64(berth__plan_open(&p, c, jobs, 3, 0, BERTH_PLACE_CONSOLIDATE, 3, 0), 0);
    CHECK_I64(berth__plan_start(&p, 0, &err), 0);
    CHECK_STR(slots_of(&jobs[0]), "2:0 2:1 2:2 2:3 2:4 2:5");
    CHECK_I64(berth__plan_can_restore(&p, 0), 0);                 /* running, never preempted */
    CHECK_I64(berth__plan_preempt(&p, 1, &err), BERTH_EINTERNAL); /* b is not running */
    CHECK_I64(berth__plan_start(&p, 0, &err), BERTH_EINTERNAL);   /* a is not pending */
    CHECK_I64(berth_cluster_free_gpus(c), 13);

    /* pass 2 at t=10 s: preempt a; its service is folded; restore gives the same GPUs */
    CHECK_I64(berth__plan_open(&p, c, jobs, 3, 10 * BERTH_US_PER_S, BERTH_PLACE_CONSOLIDATE, 2, 1),
              0);
    CHECK_I64(berth__plan_can_restore(&p, 0), 0); /* not preempted in this plan */
    CHECK_I64(berth__plan_preempt(&p, 0, &err), 0);
    CHECK_I64(jobs[0].state, BERTH_JOB_PENDING);
    CHECK_I64(jobs[0].run_us, 10 * BERTH_US_PER_S);
    CHECK_I64(jobs[0].gpu_us, 60 * BERTH_US_PER_S);
    CHECK_I64(p.npending, 3);
    CHECK_I64(p.nrunning, 0);
    CHECK_I64(berth_cluster_free_gpus(c), 19);
    CHECK_STR(bucket(c, 0, 8), "2");
    verify_ok(c);
    CHECK_I64(berth__plan_can_restore(&p, 0), 1);
    CHECK_I64(berth__plan_can_restore(&p, 1), 0); /* never ran */
    /* another job starts on GPUs a did not hold: a can still come back */
    CHECK_I64(berth__plan_start(&p, 2, &err), 0);
    CHECK_STR(slots_of(&jobs[2]), "0:6");
    CHECK_I64(berth__plan_can_restore(&p, 0), 1);
    CHECK_I64(berth__plan_restore(&p, 0, &err), 0);
    CHECK_STR(slots_of(&jobs[0]), "2:0 2:1 2:2 2:3 2:4 2:5");
    CHECK_I64(jobs[0].state, BERTH_JOB_RUNNING);
    CHECK_I64(jobs[0].since, 10 * BERTH_US_PER_S);
    CHECK_I64(p.nrunning, 2);
    CHECK_I64(p.npending, 1);
    CHECK_I64(berth_cluster_free_gpus(c), 12);
    CHECK(c->srv[2].free_mask == 0xc0);
    verify_ok(c);
    CHECK_I64(berth__plan_can_restore(&p, 0), 0); /* running again */

    /* pass 3 at t=20 s: preempt a again; b starts elsewhere, so a could still come back */
    CHECK_I64(berth__plan_open(&p, c, jobs, 3, 20 * BERTH_US_PER_S, BERTH_PLACE_CONSOLIDATE, 1, 2),
              0);
    CHECK_I64(berth__plan_preempt(&p, 0, &err), 0);
    CHECK_I64(jobs[0].run_us, 20 * BERTH_US_PER_S);
    CHECK_I64(jobs[0].gpu_us, 120 * BERTH_US_PER_S);
    /* idle now: server 0 {7}, 1 {3..7}, 2 {0..7}, 3 {4..7} = 1, 5, 8, 4 */
    CHECK_I64(berth__plan_start(&p, 1, &err), 0);
    CHECK_STR(slots_of(&jobs[1]), "3:4 3:5"); /* tightest with >= 2: server 3 */
    CHECK_I64(berth__plan_can_restore(&p, 0), 1);
    verify_ok(c);
    berth__plan_free(&p);

    /* pass 4: a fresh plan where a runs, is preempted, and a 1-GPU job takes GPU 2:0 */
    struct berth_cluster *e = parse_ok("4x8:v100"); /* all 32 idle */
    if (!e)
        return;
    struct pjob x, y;
    pjob_init(&x, 0, "x", 3, 0, -1);
    pjob_init(&y, 1, "y", 1, 0, -1);
    struct berth_job j2[2] = {x.job, y.job};
    j2[0].spec = &x.spec;
    j2[1].spec = &y.spec;
    berth__plan_init(&p);
    berth__plan_open(&p, e, j2, 2, 0, BERTH_PLACE_CONSOLIDATE, 2, 0);
    CHECK_I64(berth__plan_start(&p, 0, &err), 0);
    CHECK_STR(slots_of(&j2[0]), "0:0 0:1 0:2");
    berth__plan_open(&p, e, j2, 2, BERTH_US_PER_S, BERTH_PLACE_CONSOLIDATE, 1, 1);
    CHECK_I64(berth__plan_preempt(&p, 0, &err), 0);
    CHECK_I64(berth__plan_can_restore(&p, 0), 1);
    /* every server is fully idle again, so y goes to the first of them: server 0, GPU 0 */
    CHECK_I64(berth__plan_start(&p, 1, &err), 0);
    CHECK_STR(slots_of(&j2[1]), "0:0");
    CHECK_I64(berth__plan_can_restore(&p, 0), 0);
    CHECK_I64(berth__plan_restore(&p, 0, &err), BERTH_EINTERNAL);
    CHECK_HAS(err.msg, "x");
    CHECK_I64(j2[0].state, BERTH_JOB_PENDING);
    CHECK_I64(berth_cluster_free_gpus(e), 31);
    verify_ok(e);
    /* the snapshot still names the old GPUs: x's slots were not overwritten */
    CHECK_STR(slots_of(&j2[0]), "0:0 0:1 0:2");

    free(j2[0].slots);
    free(j2[1].slots);
    berth__plan_free(&p);
    berth_cluster_free(e);
    for (int k = 0; k < 3; k++)
        free(jobs[k].slots);
    berth_cluster_free(c);
}

static const struct check_test tests[] = {
    {"shorthand_ok", test_shorthand_ok},
    {"shorthand_errors", test_shorthand_errors},
    {"accessors", test_accessors},
    {"json_ok", test_json_ok},
    {"json_errors", test_json_errors},
    {"json_duplicate_names_large", test_json_duplicate_names_large},
    {"buckets", test_buckets},
    {"take_all_64", test_take_all_64},
    {"clone", test_clone},
    {"clone_racks", test_clone_racks},
    {"placement", test_placement},
    {"spread_even", test_spread_even},
    {"plan_fit", test_plan_fit},
    {"no_span_cluster", test_no_span_cluster},
    {"preempt_restore", test_preempt_restore},
};

CHECK_MAIN(tests)
