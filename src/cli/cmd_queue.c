/* `berth queue`: the jobs berthd knows, one line each, in the habits of squeue. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "client.h"

/* What the flags fill. */
struct queue_args {
    struct cli_client c;
    int all, json;
    const char *state, *user, *queue;
    uint64_t limit; /* UINT64_MAX: not given */
};

#define Q struct queue_args
static const struct cli_flag queue_flags[] = {
    {"all", 'a', NULL, "list finished jobs too (every state)", CLI_ON_AT(Q, all),
     .bits = CLI_QUIET_LETTER},
    {"state", 's', "S[,S...]",
     "only jobs in these states: pending, held, running, completed, failed, cancelled",
     CLI_STR_AT(Q, state), .bits = CLI_QUIET_LETTER | CLI_ONCE},
    {"user", 'u', "U", "only the jobs of user U", CLI_STR_AT(Q, user),
     .bits = CLI_QUIET_LETTER | CLI_ONCE},
    {"queue", 'q', "Q", "only the jobs of queue Q", CLI_STR_AT(Q, queue),
     .bits = CLI_QUIET_LETTER | CLI_ONCE},
    {"json", 0, NULL, "print the jobs as a JSON array (all of them unless --limit is given)",
     CLI_ON_AT(Q, json)},
    {"limit", 0, "N",
     "show at most N jobs, the oldest first (default 1000 for the table; 0 shows all)",
     CLI_U64_AT(Q, limit), .lo = 0, .hi = 1000000},
    {0},
};
#undef Q

static const struct cli_section queue_sections[] = {
    {NULL, queue_flags, 0},
    {NULL, cli_client_table, offsetof(struct queue_args, c)},
    {0},
};

static const struct cli_spec queue_spec = {
    .cmd = "queue",
    .usage = "queue [--all] [--state S[,S...]] [--user U] [--queue Q] [--json] [--limit N] "
             "[--server URL] [--token TOKEN] [--socket PATH]",
    .about = "Lists pending, held and running jobs (--all: finished ones too), the oldest "
             "first: at most 1000 of them unless --limit N says otherwise (0: all; --json "
             "lists all unless told).",
    .sections = queue_sections,
};

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

/* s (NULL: none) as a query value in buf: every byte but A-Z a-z 0-9 - . _ ~ and ',' (the
 * state list's separator) percent-encoded, so a filter can never add a parameter
 * ("a&all=1"). 0, or -1 when it does not fit in len bytes. */
static int query_escape(const char *s, char *buf, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    buf[0] = '\0';
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (o + 4 > len)
            return -1;
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~,", *p)) {
            buf[o++] = (char)*p;
        } else {
            buf[o++] = '%';
            buf[o++] = hex[*p >> 4];
            buf[o++] = hex[*p & 15];
        }
    }
    buf[o] = '\0';
    return 0;
}

int cmd_queue(int argc, char **argv)
{
    struct queue_args qa = {.limit = UINT64_MAX};
    int nargs, rc = cli_flags_parse(&queue_spec, argc, argv, &qa, &nargs);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (nargs)
        return cli_usage_error("queue", "unexpected argument '%s' (see berth queue --help)",
                               argv[1]);
    /* the table shows 1000 rows unless told; --json everything */
    long limit = qa.limit != UINT64_MAX ? (long)qa.limit : qa.json ? 0 : 1000;
    int as_json = qa.json;
    char path[1024], st[300], us[300], qu[300];
    int o = query_escape(qa.state, st, sizeof st) || query_escape(qa.user, us, sizeof us) ||
                    query_escape(qa.queue, qu, sizeof qu)
                ? -1
                : snprintf(path, sizeof path, "/v1/jobs?x=1%s%s%s%s%s%s%s&limit=%ld",
                           qa.all ? "&all=1" : "", qa.state ? "&state=" : "", st,
                           qa.user ? "&user=" : "", us, qa.queue ? "&queue=" : "", qu,
                           limit ? limit : 1000000);
    if (o < 0 || (size_t)o >= sizeof path)
        return cli_usage_error("queue", "filters too long");
    struct cli_client c = qa.c;
    rc = cli_client_init(&c, "queue");
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
