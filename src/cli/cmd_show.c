/* `berth show ID` (a job's fields, allocation and state history) and `berth why ID` (the
 * one sentence saying why it waits or how it ended). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "client.h"

static void print_job(const json_t *j)
{
    const char *keys[] = {"id",          "name",
                          "user",        "state",
                          "gpus",        "gpu_type",
                          "gpu_share",   "queue",
                          "priority",    "cwd",
                          "attempt",     "exit_code",
                          "exit_signal", "checkpoint_signal",
                          "grace_s",     "job_type",
                          "slurm_job"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const json_t *v = json_object_get(j, keys[i]);
        if (!v || (json_is_string(v) && !*json_string_value(v) && !strcmp(keys[i], "job_type")))
            continue; /* only what applies: no Slurm job under the local executor */
        char *s = json_dumps(v, JSON_ENCODE_ANY), clean[1024];
        printf("%-18s %s\n", keys[i], s ? cli_clean(s, clean, sizeof clean) : "null");
        free(s);
    }
    char *argv = json_dumps(json_object_get(j, "argv"), JSON_COMPACT), clean[8192];
    printf("%-18s %s\n", "argv", argv ? cli_clean(argv, clean, sizeof clean) : "[]");
    free(argv);
    const json_t *a = json_object_get(j, "allocation"), *e;
    size_t i;
    printf("%-18s", "allocation");
    json_array_foreach(a, i, e) printf(" %s:%lld", json_string_value(json_object_get(e, "server")),
                                       (long long)json_integer_value(json_object_get(e, "gpu")));
    printf("%s\n", json_array_size(a) ? "" : " -");
    const json_t *p = json_object_get(j, "progress");
    if (json_is_integer(json_object_get(p, "step")))
        printf("%-18s step %lld%s\n", "progress",
               (long long)json_integer_value(json_object_get(p, "step")),
               json_is_number(json_object_get(p, "metric")) ? " (metric reported)" : "");
    printf("%-18s %s\nhistory:\n", "why",
           cli_clean(json_string_value(json_object_get(j, "why")), clean, sizeof clean));
    json_array_foreach(json_object_get(j, "history"), i, e)
        printf("  %.3f  %-9s %s\n", (double)json_integer_value(json_object_get(e, "time_us")) / 1e6,
               json_string_value(json_object_get(e, "state")),
               cli_clean(json_string_value(json_object_get(e, "note")), clean, sizeof clean));
}

static int show_or_why(int argc, char **argv, const char *cmd, int why)
{
    struct cli_client c = {0};
    char usage[96];
    snprintf(usage, sizeof usage, "%s ID [--json] [--server URL] [--token TOKEN] [--socket PATH]",
             cmd);
    int as_json = 0, rc = cli_client_flags(&c, argc, argv, cmd, usage, &as_json);
    if (rc >= 0)
        return rc;
    unsigned long long id;
    if (optind + 1 != argc)
        return cli_usage_error(cmd, "expected one job id");
    if ((rc = cli_job_id(cmd, argv[optind], &id)) || (rc = cli_client_init(&c, cmd)))
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
        } else if (why)
            printf("job %llu: %s\n", id, json_string_value(json_object_get(r.json, "why")));
        else
            print_job(r.json);
    }
    cli_reply_free(&r);
    return rc;
}

int cmd_show(int argc, char **argv)
{
    return show_or_why(argc, argv, "show", 0);
}

int cmd_why(int argc, char **argv)
{
    return show_or_why(argc, argv, "why", 1);
}
