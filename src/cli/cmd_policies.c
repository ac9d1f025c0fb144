/* `berth policies`: the scheduling policies and placement helpers berth knows, by name. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "flags.h"

static const struct cli_spec policies_spec = {
    .cmd = "policies",
    .usage = "policies",
    .about = "Lists every policy (with its default placement and its own settings, the "
             "KEY=VALUE pairs berth sim and berthd pass it) and every placement.",
};

int cmd_policies(int argc, char **argv)
{
    int nargs, rc = cli_flags_parse(&policies_spec, argc, argv, NULL, &nargs);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (nargs)
        return cli_usage_error("policies", "unexpected argument '%s'", argv[1]);
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
