/* `berth logs ID [-f] [--stderr]`: a job's output; -f follows it until the job is over. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"

static const struct option opts[] = {{"follow", no_argument, NULL, 'f'},
                                     {"stderr", no_argument, NULL, 'e'},
                                     {"help", no_argument, NULL, 'h'},
                                     CLI_CLIENT_OPTS,
                                     {NULL, 0, NULL, 0}};

int cmd_logs(int argc, char **argv)
{
    struct cli_client c = {0};
    int ch, follow = 0, rc;
    const char *stream = "stdout";
    optind = 1;
    while ((ch = getopt_long(argc, argv, "feh", opts, NULL)) != -1) {
        if (cli_client_opt(&c, ch, optarg))
            continue;
        if (ch == 'f')
            follow = 1;
        else if (ch == 'e')
            stream = "stderr";
        else if (ch == 'h') {
            printf("usage: berth logs ID [-f|--follow] [-e|--stderr] [--server URL] "
                   "[--token TOKEN] [--socket PATH]\n");
            return EXIT_OK;
        } else
            return cli_flag_error("logs", "logs", ch, argv);
    }
    unsigned long long id;
    if (optind + 1 != argc)
        return cli_usage_error("logs", "expected one job id");
    if ((rc = cli_job_id("logs", argv[optind], &id)) || (rc = cli_client_init(&c, "logs")))
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
