/* `berth show ID` (a job's fields, allocation and state history) and `berth why ID` (the
 * one sentence saying why it waits or how it ended). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "client.h"

/* A time in microseconds since the epoch as local "2026-12-01 14:03:07.250"; "-" when none. */
static const char *local_time(const json_t *v, char *buf, size_t len)
{
    long long us = (long long)json_integer_value(v);
    time_t t = (time_t)(us / 1000000);
    struct tm tm;
    char day[40];
    if (!json_is_integer(v) || us <= 0 || !localtime_r(&t, &tm) ||
        !strftime(day, sizeof day, "%Y-%m-%d %H:%M:%S", &tm))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%s.%03lld", day, us % 1000000 / 1000);
    return buf;
}

/* "in 1 h 05 min" of us microseconds from now (at least "in 0 s"). */
static const char *in_time(long long us, char *buf, size_t len)
{
    long long s = us > 0 ? us / 1000000 : 0;
    if (s >= 3600)
        snprintf(buf, len, "in %lld h %02lld min", s / 3600, s / 60 % 60);
    else if (s >= 60)
        snprintf(buf, len, "in %lld min", (s + 30) / 60);
    else
        snprintf(buf, len, "in %lld s", s);
    return buf;
}

/* berth why's second line: berthd's predicted start (a pending job) or end (a running one),
 * from its queue run forward in a virtual clock; nothing when it has none. */
static void print_estimate(unsigned long long id, const json_t *j)
{
    const json_t *e = json_object_get(j, "estimate");
    const char *state = json_string_value(json_object_get(j, "state"));
    const char *none = json_string_value(json_object_get(j, "estimate_none"));
    char clean[512];
    if (!json_is_object(e) && none) /* why there is none: the run's budget, too new, ... */
        printf("job %llu: %s\n", id, cli_clean(none, clean, sizeof clean));
    if (!json_is_object(e) || !state)
        return;
    double age = json_number_value(json_object_get(e, "age_s"));
    long long now = (long long)time(NULL) * 1000000;
    long long st = (long long)json_integer_value(json_object_get(e, "start_us"));
    long long en = (long long)json_integer_value(json_object_get(e, "end_us"));
    char a[64], b[64], c[64], d[64];
    if (!strcmp(state, "pending"))
        printf("job %llu: expected to start at %s (%s) and end at %s (%s), by berthd's queue "
               "run forward under its policy %.1f s ago\n",
               id, local_time(json_object_get(e, "start_us"), a, sizeof a),
               in_time(st - now, b, sizeof b),
               local_time(json_object_get(e, "end_us"), c, sizeof c),
               in_time(en - now, d, sizeof d), age);
    else if (!strcmp(state, "running"))
        printf("job %llu: expected to end at %s (%s), by a run %.1f s ago\n", id,
               local_time(json_object_get(e, "end_us"), c, sizeof c),
               in_time(en - now, d, sizeof d), age);
}

static void print_job(const json_t *j)
{
    const char *keys[] = {"id",
                          "name",
                          "user",
                          "state",
                          "reason",
                          "gpus",
                          "gpu_type",
                          "gpu_share",
                          "queue",
                          "priority",
                          "cwd",
                          "attempt",
                          "exit_code",
                          "exit_signal",
                          "checkpoint_signal",
                          "grace_s",
                          "est_s",
                          "time_limit_s",
                          "run_s",
                          "job_type",
                          "slurm_job",
                          "topology",
                          "topology_preferred",
                          "tp",
                          "span"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const json_t *v = json_object_get(j, keys[i]);
        if (!v || (json_is_string(v) && !*json_string_value(v) && !strcmp(keys[i], "job_type")))
            continue; /* only what applies: no Slurm job under the local executor */
        if (i >= sizeof keys / sizeof *keys - 4 &&
            (json_is_null(v) || (json_is_integer(v) && json_integer_value(v) <= 1)))
            continue; /* no topology asked, tp 1: nothing to say */
        char clean[1024];
        if (!strcmp(keys[i], "gpu_type") && json_is_string(v) && !*json_string_value(v)) {
            printf("%-18s any\n", keys[i]); /* no type asked: any the cluster has */
            continue;
        }
        if (!strcmp(keys[i], "time_limit_s") && json_is_null(v)) {
            printf("%-18s none\n", keys[i]);
            continue;
        }
        char *s = json_dumps(v, JSON_ENCODE_ANY);
        printf("%-18s %s\n", keys[i], s ? cli_clean(s, clean, sizeof clean) : "null");
        free(s);
    }
    char tb[64], clean[8192];
    static const char *const times[] = {"submit_us", "start_us", "end_us"};
    static const char *const labels[] = {"submitted", "started", "ended"};
    for (size_t i = 0; i < 3; i++)
        printf("%-18s %s\n", labels[i], local_time(json_object_get(j, times[i]), tb, sizeof tb));
    char *argv = json_dumps(json_object_get(j, "argv"), JSON_COMPACT);
    printf("%-18s %s\n", "argv", argv ? cli_clean(argv, clean, sizeof clean) : "[]");
    free(argv);
    const json_t *a = json_object_get(j, "allocation"), *e;
    size_t i;
    printf("%-18s", "allocation");
    json_array_foreach(a, i, e)
    {
        printf(" %s:%lld", json_string_value(json_object_get(e, "server")),
               (long long)json_integer_value(json_object_get(e, "gpu")));
        double sh = json_number_value(json_object_get(e, "share"));
        if (sh > 0 && sh < 1) /* a part of the GPU: its MPS share (gpu_share, a Salus lane) */
            printf(" (%.0f %% of it, shared)", sh * 100);
    }
    printf("%s\n", json_array_size(a) ? "" : " -");
    const json_t *p = json_object_get(j, "progress");
    if (json_is_integer(json_object_get(p, "step"))) {
        const json_t *m = json_object_get(p, "metric");
        printf("%-18s step %lld", "progress",
               (long long)json_integer_value(json_object_get(p, "step")));
        if (json_is_number(m))
            printf(", metric %g", json_number_value(m));
        printf(" at %s\n", local_time(json_object_get(p, "time_us"), tb, sizeof tb));
    }
    const json_t *est = json_object_get(j, "estimate");
    if (json_is_object(est)) {
        char t2[64];
        printf("%-18s start %s, end %s (a run %.1f s ago)\n", "estimate",
               local_time(json_object_get(est, "start_us"), tb, sizeof tb),
               local_time(json_object_get(est, "end_us"), t2, sizeof t2),
               json_number_value(json_object_get(est, "age_s")));
    } else if (json_is_string(json_object_get(j, "estimate_none"))) {
        printf(
            "%-18s %s\n", "estimate",
            cli_clean(json_string_value(json_object_get(j, "estimate_none")), clean, sizeof clean));
    }
    printf("%-18s %s\nhistory:\n", "why",
           cli_clean(json_string_value(json_object_get(j, "why")), clean, sizeof clean));
    json_array_foreach(json_object_get(j, "history"), i, e)
        printf("  %s  %-9s %s\n", local_time(json_object_get(e, "time_us"), tb, sizeof tb),
               json_string_value(json_object_get(e, "state")),
               cli_clean(json_string_value(json_object_get(e, "note")), clean, sizeof clean));
}

/* What the flags fill. */
struct show_args {
    struct cli_client c;
    int json;
};

static const struct cli_flag show_flags[] = {
    {"json", 0, NULL, "print berthd's JSON document of the job", CLI_ON_AT(struct show_args, json)},
    {0},
};

static const struct cli_section show_sections[] = {
    {NULL, show_flags, 0},
    {NULL, cli_client_table, offsetof(struct show_args, c)},
    {0},
};

static const struct cli_spec show_spec = {
    .cmd = "show",
    .usage = "show ID [--json] [--server URL] [--token TOKEN] [--socket PATH]",
    .about = "Shows job ID: its fields, argv, allocation, last progress report, why it waits "
             "(or how it ended) and its state history.",
    .sections = show_sections,
};

static const struct cli_spec why_spec = {
    .cmd = "why",
    .usage = "why ID [--json] [--server URL] [--token TOKEN] [--socket PATH]",
    .about = "Says in one sentence why job ID waits, or how it ended; for a pending job a "
             "second line gives berthd's predicted start and end (berth queue's start_est and "
             "end_est).",
    .sections = show_sections,
};

static int show_or_why(int argc, char **argv, const struct cli_spec *spec, int why)
{
    const char *cmd = spec->cmd;
    struct show_args a = {.json = 0};
    int nargs, rc = cli_flags_parse(spec, argc, argv, &a, &nargs);
    if (rc != CLI_FLAGS_GO)
        return rc;
    struct cli_client c = a.c;
    int as_json = a.json;
    unsigned long long id;
    if (nargs != 1)
        return cli_usage_error(cmd, "expected one job id");
    if ((rc = cli_job_id(cmd, argv[1], &id)) || (rc = cli_client_init(&c, cmd)))
        return rc;
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%llu", id);
    struct cli_reply r;
    if ((rc = cli_call(&c, "GET", path, NULL, &r)))
        return rc;
    if (!(rc = cli_reply_check(&c, &r))) {
        if (as_json) {
            char *s = json_dumps(r.json, JSON_INDENT(2));
            printf("%s\n", s ? s : "{}");
            free(s);
        } else if (why) {
            char clean[1024];
            printf(
                "job %llu: %s\n", id,
                cli_clean(json_string_value(json_object_get(r.json, "why")), clean, sizeof clean));
            print_estimate(id, r.json);
        } else
            print_job(r.json);
    }
    cli_reply_free(&r);
    return rc;
}

int cmd_show(int argc, char **argv)
{
    return show_or_why(argc, argv, &show_spec, 0);
}

int cmd_why(int argc, char **argv)
{
    return show_or_why(argc, argv, &why_spec, 1);
}
