/* Tests for the policy registry (src/policy/registry.c): every entry is a whole ops table
 * with a unique name, a summary and a default placement that exists; its settings have
 * unique keys and help lines; lookups by name find exactly those; and a policy without
 * settings refuses any given to it, naming the policy. */
#include <string.h>

#include "check.h"
#include "engine/engine.h"

static void test_entries(void)
{
    size_t n = berth_policy_count();
    CHECK(n >= 25);
    for (size_t i = 0; i < n; i++) {
        const struct berth__policy_ops *o = berth__policy_at(i);
        CHECK(o != NULL);
        if (!o)
            continue;
        CHECK(o->name && o->name[0] && o->summary && o->summary[0]);
        CHECK(o->create && o->destroy && o->plan);
        CHECK(berth_placement_find(o->default_placement) >= 0);
        CHECK(berth__policy_lookup(o->name) == o);
        CHECK_I64(berth_policy_find(o->name), (int)i);
        for (size_t k = 0; k < i; k++)
            if (!strcmp(berth_policy_name(k), o->name))
                fprintf(stderr, "  policy name %s twice\n", o->name);
        for (size_t k = 0; k < i; k++)
            CHECK(strcmp(berth_policy_name(k), o->name));
        CHECK_I64(berth_policy_setting_count(i), o->nsettings);
        for (size_t s = 0; s < o->nsettings; s++) {
            CHECK(o->settings[s].key[0] && o->settings[s].help && o->settings[s].help[0]);
            CHECK_STR(berth_policy_setting_key(i, s), o->settings[s].key);
            for (size_t r = 0; r < s; r++)
                CHECK(strcmp(o->settings[r].key, o->settings[s].key));
        }
        CHECK(berth_policy_setting_key(i, o->nsettings) == NULL);
    }
    CHECK(berth__policy_at(n) == NULL);
    CHECK(berth__policy_lookup("FIFO") == NULL); /* exact names only */
    CHECK(berth__policy_lookup("") == NULL);
    CHECK_I64(berth_policy_find("tiresias"), -1);
}

static void test_settings_refused(void)
{
    struct berth_cluster *c = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth_cluster_parse("1x1:v100", &c, &err), 0);
    struct berth__params p = {.settings = "window=10"};
    struct berth__engine *e = NULL;
    CHECK_I64(berth__engine_create(c, "blox-fifo", NULL, &p, NULL, &e, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "policy blox-fifo: unknown setting \"window\" (its settings: it has none)");
    CHECK_I64(berth__engine_create(c, "fifo", NULL, &p, NULL, &e, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "policy fifo: unknown setting \"window\" (its settings: backfill, "
                       "backfill_depth, backfill_topology, fairshare_weight, fairshare_half_life, "
                       "fairshare_period)");
    CHECK(e == NULL);
    CHECK_I64(berth__engine_create(c, "specon", NULL, &p, NULL, &e, &err), 0);
    berth__engine_destroy(e);
    p.settings = "";
    CHECK_I64(berth__engine_create(c, "fifo", NULL, &p, NULL, &e, &err), 0);
    berth__engine_destroy(e);
    berth_cluster_free(c);
}

static const struct check_test tests[] = {
    {"entries", test_entries},
    {"settings_refused", test_settings_refused},
};

CHECK_MAIN(tests)
