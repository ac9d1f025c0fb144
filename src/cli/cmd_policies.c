/* `berth policies`: the scheduling policies and placement helpers berth knows, by name, and
 * (--args NAME) one policy's own settings. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "flags.h"

struct policies_args {
    const char *args; /* --args NAME */
};

static const struct cli_flag policies_flags[] = {
    {"args", 0, "NAME",
     "list policy NAME's own settings (the KEY=VALUE pairs berth sim and berthd pass it), "
     "each with its unit and default",
     CLI_STR_AT(struct policies_args, args)},
    {0},
};

static const struct cli_section policies_sections[] = {{NULL, policies_flags, 0}, {0}};

static const struct cli_spec policies_spec = {
    .cmd = "policies",
    .usage = "policies [--args NAME]",
    .about = "Lists every policy (with its default placement and its own settings) and every "
             "placement.",
    .sections = policies_sections,
};

static int list_args(const char *name)
{
    int i = berth_policy_find(name);
    if (i < 0)
        return cli_usage_error("policies", "--args: unknown policy '%s'", name);
    size_t n = berth_policy_setting_count((size_t)i);
    if (!n) {
        printf("%s has no settings of its own\n", name);
        return EXIT_OK;
    }
    int w = 8;
    for (size_t k = 0; k < n; k++)
        if ((int)strlen(berth_policy_setting_key((size_t)i, k)) > w)
            w = (int)strlen(berth_policy_setting_key((size_t)i, k));
    printf("settings of %s (berth sim --policy-arg KEY=VALUE, berthd --policy-arg):\n", name);
    for (size_t k = 0; k < n; k++)
        printf("  %-*s %s\n", w, berth_policy_setting_key((size_t)i, k),
               berth_policy_setting_help((size_t)i, k));
    return EXIT_OK;
}

int cmd_policies(int argc, char **argv)
{
    struct policies_args a = {0};
    int nargs, rc = cli_flags_parse(&policies_spec, argc, argv, &a, &nargs);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (nargs)
        return cli_usage_error("policies", "unexpected argument '%s'", argv[1]);
    if (a.args)
        return list_args(a.args);
    int w = 12; /* the widest name sets the column */
    for (size_t i = 0; i < berth_policy_count(); i++)
        if ((int)strlen(berth_policy_name(i)) > w)
            w = (int)strlen(berth_policy_name(i));
    printf("policies (berth sim --policy NAME):\n");
    for (size_t i = 0; i < berth_policy_count(); i++) {
        printf("  %-*s %s [placement: %s]\n", w, berth_policy_name(i), berth_policy_summary(i),
               berth_policy_default_placement(i));
        for (size_t k = 0; k < berth_policy_setting_count(i); k++) /* indented past the names */
            printf("  %-*s   setting %s: %s\n", w, "", berth_policy_setting_key(i, k),
                   berth_policy_setting_help(i, k));
    }
    printf("\nplacements (berth sim --placement NAME):\n");
    for (size_t i = 0; i < berth_placement_count(); i++)
        printf("  %-*s %s\n", w, berth_placement_name(i), berth_placement_summary(i));
    return EXIT_OK;
}
