/* `berth cancel ID...`, `berth hold ID...`, `berth release ID...`: one POST per job. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "client.h"

static const struct cli_section act_sections[] = {{NULL, cli_client_table, 0}, {0}};

static const struct cli_spec cancel_spec = {
    .cmd = "cancel",
    .usage = "cancel ID... [--server URL] [--token TOKEN] [--socket PATH]",
    .about = "Cancels the jobs: a pending or held job ends at once; a running one gets its "
             "checkpoint signal, then SIGKILL after its grace period. Every ID is checked "
             "before the first request; the exit status is the worst of the jobs'.",
    .sections = act_sections,
};

static const struct cli_spec hold_spec = {
    .cmd = "hold",
    .usage = "hold ID... [--server URL] [--token TOKEN] [--socket PATH]",
    .about = "Holds pending jobs: they wait until released. The exit status is the worst of "
             "the jobs'.",
    .sections = act_sections,
};

static const struct cli_spec release_spec = {
    .cmd = "release",
    .usage = "release ID... [--server URL] [--token TOKEN] [--socket PATH]",
    .about = "Releases held jobs: they wait for the scheduler again. The exit status is the "
             "worst of the jobs'.",
    .sections = act_sections,
};

/* One POST per job, to /v1/jobs/ID/CMD; done is the word for what happened. */
static int act(int argc, char **argv, const struct cli_spec *spec, const char *done)
{
    const char *cmd = spec->cmd;
    struct cli_client c = {0};
    int nargs, rc = cli_flags_parse(spec, argc, argv, &c, &nargs);
    if (rc != CLI_FLAGS_GO)
        return rc;
    rc = 0;
    if (!nargs)
        return cli_usage_error(cmd, "expected at least one job id");
    unsigned long long id;
    for (int i = 1; i <= nargs; i++)
        if ((rc = cli_job_id(cmd, argv[i], &id)))
            return rc;
    if ((rc = cli_client_init(&c, cmd)))
        return rc;
    for (int i = 1; i <= nargs; i++) {
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
    return act(argc, argv, &cancel_spec, "cancelled");
}

int cmd_hold(int argc, char **argv)
{
    return act(argc, argv, &hold_spec, "held");
}

int cmd_release(int argc, char **argv)
{
    return act(argc, argv, &release_spec, "released");
}
