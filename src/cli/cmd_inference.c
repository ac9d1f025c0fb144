/* `berth inference`: the inference pool berthd lends to training (Aryl's capacity loaning):
 * how many of its servers inference needs, how many are lent, how long reclaims took; with
 * --demand N an admin (or the inference manager's token) says how many it needs now. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "client.h"

struct inference_args {
    struct cli_client c;
    uint64_t demand;
    int set, json;
};

static int set_demand(const struct cli_flag *f, void *base, const char *value,
                      struct berth_err *err)
{
    (void)f;
    struct inference_args *a = base;
    char *end;
    unsigned long long v = strtoull(value, &end, 10);
    if (!*value || *end || value[0] == '-' || v > INT32_MAX)
        return berth_err_set(err, BERTH_EINPUT,
                             "--demand: expected a number of servers >= 0, "
                             "found '%s'",
                             value);
    a->demand = v;
    a->set = 1;
    return 0;
}

static const struct cli_flag inference_flags[] = {
    {"demand", 0, "N", "set the servers of the pool inference needs now (admin)",
     CLI_SET(set_demand), .bits = CLI_ONCE},
    {"json", 0, NULL, "print berthd's JSON document", CLI_ON_AT(struct inference_args, json)},
    {0},
};

static const struct cli_section inference_sections[] = {
    {NULL, inference_flags, 0},
    {NULL, cli_client_table, offsetof(struct inference_args, c)},
    {0},
};

static const struct cli_spec inference_spec = {
    .cmd = "inference",
    .usage = "inference [--demand N] [--json] [--server URL] [--token TOKEN] [--socket PATH]",
    .about = "Shows the cluster's inference pool as berthd lends it to training (policies aryl "
             "and aryl-loan): the servers inference needs (the demand), those reserved for it, "
             "those free of training processes, those lent, and how long the last reclaim took "
             "from the demand's rise to free servers. --demand N sets the demand (an admin's "
             "token): a lending policy lends what it leaves idle and reclaims servers, with the "
             "fewest preemptions, when it rises.",
    .sections = inference_sections,
};

static void print_s(const char *label, const json_t *v)
{
    if (json_is_number(v))
        printf("%-22s %.3f s\n", label, json_number_value(v));
    else
        printf("%-22s -\n", label);
}

int cmd_inference(int argc, char **argv)
{
    struct inference_args a = {.json = 0};
    int nargs, rc = cli_flags_parse(&inference_spec, argc, argv, &a, &nargs);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (nargs)
        return cli_usage_error("inference", "unexpected argument '%s'", argv[1]);
    struct cli_client c = a.c;
    struct cli_reply r;
    json_t *body = a.set ? json_pack("{s:I}", "demand_servers", (json_int_t)a.demand) : NULL;
    if ((rc = cli_client_init(&c, "inference")) ||
        (rc = cli_call(&c, a.set ? "POST" : "GET", "/v1/inference", body, &r))) {
        json_decref(body);
        return rc;
    }
    json_decref(body);
    if (!(rc = cli_reply_check(&c, &r))) {
        const json_t *j = r.json;
        if (a.json) {
            char *s = json_dumps(j, JSON_INDENT(2));
            printf("%s\n", s ? s : "{}");
            free(s);
        } else if (!json_integer_value(json_object_get(j, "pool_servers"))) {
            printf("no inference pool: give servers \"pool\": \"inference\" in berthd's cluster "
                   "file\n");
        } else {
#define I(k) ((long long)json_integer_value(json_object_get(j, k)))
            printf("%-22s %lld servers, %lld GPUs (policy %s)\n", "inference pool",
                   I("pool_servers"), I("pool_gpus"),
                   json_string_value(json_object_get(j, "policy")));
            printf("%-22s %lld servers\n", "demand", I("demand_servers"));
            printf("%-22s %lld servers (%lld free of training processes)\n", "reserved",
                   I("reserved_servers"), I("ready_servers"));
            printf("%-22s %lld servers, %.2f GPU-hours so far\n", "lent to training",
                   I("lent_servers"), json_number_value(json_object_get(j, "lent_gpu_hours")));
            print_s("short of servers for", json_object_get(j, "short_for_s"));
            print_s("last reclaim took", json_object_get(j, "last_reclaim_s"));
            print_s("longest reclaim", json_object_get(j, "max_reclaim_s"));
            printf("%-22s %lld\n", "reclaims", I("reclaims"));
#undef I
        }
    }
    cli_reply_free(&r);
    return rc;
}
