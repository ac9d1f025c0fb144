/* `berth cancel ID...`, `berth hold ID...`, `berth release ID...`: one POST per job. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "client.h"

static int act(int argc, char **argv, const char *cmd, const char *done)
{
    struct cli_client c = {0};
    char usage[96];
    snprintf(usage, sizeof usage, "%s ID... [--server URL] [--token TOKEN] [--socket PATH]", cmd);
    int rc = cli_client_flags(&c, argc, argv, cmd, usage, NULL);
    if (rc >= 0)
        return rc;
    rc = 0;
    if (optind >= argc)
        return cli_usage_error(cmd, "expected at least one job id");
    unsigned long long id;
    for (int i = optind; i < argc; i++)
        if ((rc = cli_job_id(cmd, argv[i], &id)))
            return rc;
    if ((rc = cli_client_init(&c, cmd)))
        return rc;
    for (int i = optind; i < argc; i++) {
        char path[96];
        struct cli_reply r;
        cli_job_id(cmd, argv[i], &id);
        snprintf(path, sizeof path, "/v1/jobs/%llu/%s", id, cmd);
        int one = cli_call(&c, "POST", path, NULL, &r);
        if (!one && !(one = cli_reply_check(&c, &r)))
            printf("%s job %llu\n", done, id);
        if (one > rc)
            rc = one;
        cli_reply_free(&r);
    }
    return rc;
}

int cmd_cancel(int argc, char **argv)
{
    return act(argc, argv, "cancel", "cancelled");
}

int cmd_hold(int argc, char **argv)
{
    return act(argc, argv, "hold", "held");
}

int cmd_release(int argc, char **argv)
{
    return act(argc, argv, "release", "released");
}
