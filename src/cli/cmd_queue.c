/* `berth queue`: the jobs berthd knows, one line each, in the habits of squeue. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "client.h"

static const struct option opts[] = {{"all", no_argument, NULL, 'a'},
                                     {"state", required_argument, NULL, 's'},
                                     {"user", required_argument, NULL, 'u'},
                                     {"queue", required_argument, NULL, 'q'},
                                     {"json", no_argument, NULL, 'j'},
                                     {"limit", required_argument, NULL, 'l'},
                                     {"help", no_argument, NULL, 'h'},
                                     CLI_CLIENT_OPTS,
                                     {NULL, 0, NULL, 0}};

/* "1h02m" style age of a time in microseconds since the epoch. */
static void age(long long us, char *buf, size_t len)
{
    if (us <= 0) {
        snprintf(buf, len, "-");
        return;
    }
    long long s = (long long)time(NULL) - us / 1000000;
    if (s < 0)
        s = 0;
    if (s < 3600)
        snprintf(buf, len, "%lldm%02llds", s / 60, s % 60);
    else
        snprintf(buf, len, "%lldh%02lldm", s / 3600, s / 60 % 60);
}

int cmd_queue(int argc, char **argv)
{
    struct cli_client c = {0};
    char path[1024] = "/v1/jobs?x=1";
    size_t o = strlen(path);
    int ch, as_json = 0;
    long limit = -1; /* the table shows 1000 rows unless told; --json everything */
    optind = 1;
    while ((ch = getopt_long(argc, argv, "as:u:q:h", opts, NULL)) != -1) {
        if (cli_client_opt(&c, ch, optarg))
            continue;
        switch (ch) {
        case 'a':
            o += (size_t)snprintf(path + o, sizeof path - o, "&all=1");
            break;
        case 's':
            o += (size_t)snprintf(path + o, sizeof path - o, "&state=%s", optarg);
            break;
        case 'u':
            o += (size_t)snprintf(path + o, sizeof path - o, "&user=%s", optarg);
            break;
        case 'q':
            o += (size_t)snprintf(path + o, sizeof path - o, "&queue=%s", optarg);
            break;
        case 'j':
            as_json = 1;
            break;
        case 'l': {
            char *end;
            limit = strtol(optarg, &end, 10);
            if (!*optarg || *end || limit < 0 || limit > 1000000)
                return cli_usage_error("queue",
                                       "--limit: expected a whole number from 0 (all) "
                                       "to 1000000, found '%s'",
                                       optarg);
            break;
        }
        case 'h':
            printf(
                "usage: berth queue [--all] [--state S[,S...]] [--user U] [--queue Q] [--json]\n"
                "                   [--limit N] [--server URL] [--token TOKEN] [--socket PATH]\n\n"
                "Lists pending, held and running jobs (--all: finished ones too), the oldest\n"
                "first: at most 1000 of them unless --limit N says otherwise (0: all; --json\n"
                "lists all unless told).\n");
            return EXIT_OK;
        default:
            return cli_flag_error("queue", "queue", ch, argv);
        }
        if (o >= sizeof path)
            return cli_usage_error("queue", "filters too long");
    }
    if (limit < 0)
        limit = as_json ? 0 : 1000;
    o += (size_t)snprintf(path + o, sizeof path - o, "&limit=%ld", limit ? limit : 1000000);
    if (o >= sizeof path)
        return cli_usage_error("queue", "filters too long");
    int rc = cli_client_init(&c, "queue");
    struct cli_reply r;
    if (rc || (rc = cli_call(&c, "GET", path, NULL, &r)))
        return rc;
    if (!(rc = cli_reply_check(&c, &r))) {
        const json_t *jobs = json_object_get(r.json, "jobs"), *j;
        size_t i;
        if (as_json) {
            char *s = json_dumps(jobs, JSON_INDENT(2));
            printf("%s\n", s ? s : "[]");
            free(s);
        } else {
            printf("%8s %-16s %-10s %-9s %5s %-8s %-10s %5s %9s\n", "ID", "NAME", "USER", "STATE",
                   "GPUS", "TYPE", "QUEUE", "PRIO", "AGE");
            json_array_foreach(jobs, i, j)
            {
                char a[32], g[16];
                age(json_integer_value(json_object_get(j, "submit_us")), a, sizeof a);
                double share = json_number_value(json_object_get(j, "gpu_share"));
                if (share < 1)
                    snprintf(g, sizeof g, "%.2f", share);
                else
                    snprintf(g, sizeof g, "%lld",
                             (long long)json_integer_value(json_object_get(j, "gpus")));
                const char *t = json_string_value(json_object_get(j, "gpu_type"));
                const char *q = json_string_value(json_object_get(j, "queue"));
                char cn[64], cu[64], ct[64], cq[64];
                printf("%8lld %-16.16s %-10.10s %-9s %5s %-8.8s %-10.10s %5lld %9s\n",
                       (long long)json_integer_value(json_object_get(j, "id")),
                       cli_clean(json_string_value(json_object_get(j, "name")), cn, sizeof cn),
                       cli_clean(json_string_value(json_object_get(j, "user")), cu, sizeof cu),
                       json_string_value(json_object_get(j, "state")), g,
                       t && *t ? cli_clean(t, ct, sizeof ct) : "any",
                       q && *q ? cli_clean(q, cq, sizeof cq) : "-",
                       (long long)json_integer_value(json_object_get(j, "priority")), a);
            }
            json_int_t total = json_integer_value(json_object_get(r.json, "total"));
            if (total > (json_int_t)json_array_size(jobs))
                fprintf(stderr, "(%zu of %lld jobs shown, the oldest first; --limit 0 lists all)\n",
                        json_array_size(jobs), (long long)total);
        }
    }
    cli_reply_free(&r);
    return rc;
}
