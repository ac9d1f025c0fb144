/* `berth nodes`: berthd's servers and GPUs, which are idle and which jobs hold them. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "client.h"

/* What the flags fill. */
struct nodes_args {
    struct cli_client c;
    int json;
};

static const struct cli_flag nodes_flags[] = {
    {"json", 0, NULL, "print berthd's JSON document of the servers",
     CLI_ON_AT(struct nodes_args, json)},
    {0},
};

static const struct cli_section nodes_sections[] = {
    {NULL, nodes_flags, 0},
    {NULL, cli_client_table, offsetof(struct nodes_args, c)},
    {0},
};

static const struct cli_spec nodes_spec = {
    .cmd = "nodes",
    .usage = "nodes [--json] [--server URL] [--token TOKEN] [--socket PATH]",
    .about = "Lists berthd's servers and GPUs and the jobs on each GPU; (reserved) marks a "
             "server nothing is placed on (an inference pool's, or a drained Slurm node).",
    .sections = nodes_sections,
};

int cmd_nodes(int argc, char **argv)
{
    struct nodes_args a = {.json = 0};
    int nargs, rc = cli_flags_parse(&nodes_spec, argc, argv, &a, &nargs);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (nargs)
        return cli_usage_error("nodes", "unexpected argument '%s'", argv[1]);
    struct cli_client c = a.c;
    int as_json = a.json;
    struct cli_reply r;
    if ((rc = cli_client_init(&c, "nodes")) || (rc = cli_call(&c, "GET", "/v1/nodes", NULL, &r)))
        return rc;
    if (!(rc = cli_reply_check(&c, &r))) {
        if (as_json) {
            char *s = json_dumps(r.json, JSON_INDENT(2));
            printf("%s\n", s ? s : "{}");
            free(s);
        } else {
            /* rack, block and NVLink domain columns only when berthd's cluster has a topology
             * (its nodes carry the keys): a flat cluster's table stays as it was */
            size_t i, k, m;
            const json_t *n, *g, *id;
            int topo = 0;
            json_array_foreach(json_object_get(r.json, "nodes"), i, n) topo |=
                json_object_get(n, "rack") != NULL;
            printf("%-16s %-8s %4s %4s  ", "NODE", "TYPE", "GPUS", "IDLE");
            if (topo)
                printf("%-10s %-10s %-10s ", "RACK", "BLOCK", "NVLINK");
            printf("%s\n", "GPU:JOBS (device)");
            json_array_foreach(json_object_get(r.json, "nodes"), i, n)
            {
                printf("%-16s %-8s %4lld %4lld ", json_string_value(json_object_get(n, "name")),
                       json_string_value(json_object_get(n, "gpu_type")),
                       (long long)json_integer_value(json_object_get(n, "gpus")),
                       (long long)json_integer_value(json_object_get(n, "idle_gpus")));
                if (topo) {
                    const char *rk = json_string_value(json_object_get(n, "rack"));
                    const char *bl = json_string_value(json_object_get(n, "block"));
                    const char *nv = json_string_value(json_object_get(n, "nvlink"));
                    printf(" %-10s %-10s %-10s", rk ? rk : "-", bl ? bl : "-", nv ? nv : "-");
                }
                json_array_foreach(json_object_get(n, "gpu_list"), k, g)
                {
                    printf(" %lld:", (long long)json_integer_value(json_object_get(g, "index")));
                    const json_t *jobs = json_object_get(g, "jobs");
                    if (!json_array_size(jobs))
                        printf("-");
                    json_array_foreach(jobs, m, id)
                        printf("%s%lld", m ? "," : "", (long long)json_integer_value(id));
                    if (json_integer_value(json_object_get(g, "draining")))
                        printf("(draining)");
                }
                /* an inference pool's server (reserved for inference, or lent to training), or
                 * a Slurm node drained or down */
                const char *pool = json_string_value(json_object_get(n, "pool"));
                int infer = pool && !strcasecmp(pool, "inference");
                int res = json_is_true(json_object_get(n, "reserved"));
                printf("%s\n", res && infer ? "  (reserved: inference)"
                               : res        ? "  (reserved)"
                               : infer      ? "  (inference, lent to training)"
                                            : "");
            }
        }
    }
    cli_reply_free(&r);
    return rc;
}
