/* `berth logs ID [-f] [--stderr]`: a job's output; -f follows it until the job is over. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"

/* What the flags fill. */
struct logs_args {
    struct cli_client c;
    int follow, err;
};

static const struct cli_flag logs_flags[] = {
    {"follow", 'f', NULL, "go on printing the output as it grows, until the job is over",
     CLI_ON_AT(struct logs_args, follow)},
    {"stderr", 'e', NULL, "the job's standard error instead of its standard output",
     CLI_ON_AT(struct logs_args, err)},
    {0},
};

static const struct cli_section logs_sections[] = {
    {NULL, logs_flags, 0},
    {NULL, cli_client_table, offsetof(struct logs_args, c)},
    {0},
};

static const struct cli_spec logs_spec = {
    .cmd = "logs",
    .usage = "logs ID [-f|--follow] [-e|--stderr] [--server URL] [--token TOKEN] [--socket PATH]",
    .about = "Prints job ID's output.",
    .sections = logs_sections,
};

int cmd_logs(int argc, char **argv)
{
    struct logs_args a = {.follow = 0};
    int nargs, rc = cli_flags_parse(&logs_spec, argc, argv, &a, &nargs);
    if (rc != CLI_FLAGS_GO)
        return rc;
    struct cli_client c = a.c;
    int follow = a.follow;
    const char *stream = a.err ? "stderr" : "stdout";
    unsigned long long id;
    if (nargs != 1)
        return cli_usage_error("logs", "expected one job id");
    if ((rc = cli_job_id("logs", argv[1], &id)) || (rc = cli_client_init(&c, "logs")))
        return rc;
    long long offset = 0;
    for (;;) {
        char path[128];
        struct cli_reply r;
        snprintf(path, sizeof path, "/v1/jobs/%llu/logs?stream=%s&offset=%lld", id, stream, offset);
        if ((rc = cli_call(&c, "GET", path, NULL, &r)))
            return rc;
        if ((rc = cli_reply_check(&c, &r))) {
            cli_reply_free(&r);
            return rc;
        }
        if (r.len)
            fwrite(r.body, 1, r.len, stdout);
        fflush(stdout);
        int more = r.more;
        offset = r.offset >= 0 ? r.offset : offset + (long long)r.len;
        size_t got = r.len;
        cli_reply_free(&r);
        if (!follow || !more)
            break;
        if (!got)
            usleep(300000);
    }
    return EXIT_OK;
}
