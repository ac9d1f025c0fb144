/* `berth serve`: a service beside the batch jobs (berthd's POST /v1/services): MIN..MAX
 * replicas of COMMAND on the inference pool, each a job with its own GPUs, BERTH_REPLICA and
 * PORT, restarted when it dies and scaled by its load against --target-rps. Without a
 * command it lists the services; --show and --delete act on one. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"

extern char **environ;

struct serve_args {
    struct cli_client c;
    json_t *body, *env;
    int no_env, json;
    uint64_t show, del;
};

/* A number as the JSON field f->data (f->lo = 1: whole). */
static int set_num(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    char *end;
    double x = strtod(v, &end);
    if (!*v || *end || !isfinite(x) || (f->lo == 1 && x != floor(x)))
        return berth_err_set(err, BERTH_EINPUT, "expected a%s number, found '%s'",
                             f->lo == 1 ? " whole" : "", v);
    json_object_set_new(((struct serve_args *)base)->body, f->data,
                        f->lo == 1 ? json_integer((json_int_t)x) : json_real(x));
    return 0;
}

static int set_text(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    (void)err;
    json_object_set_new(((struct serve_args *)base)->body, f->data, json_string(v));
    return 0;
}

static int set_shell(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    (void)f, (void)v, (void)err;
    json_object_set_new(((struct serve_args *)base)->body, "shell", json_true());
    return 0;
}

/* "N" or "MIN..MAX" */
static int set_replicas(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    (void)f;
    char *end;
    long mn = strtol(v, &end, 10), mx = mn;
    if (end != v && !strncmp(end, "..", 2)) {
        const char *p = end + 2;
        mx = strtol(p, &end, 10);
        if (end == p)
            end = (char *)v;
    }
    if (end == v || *end || mn < 1 || mx < mn)
        return berth_err_set(err, BERTH_EINPUT,
                             "expected N or MIN..MAX with 1 <= MIN <= MAX, found '%s'", v);
    json_object_set_new(((struct serve_args *)base)->body, "replicas_min", json_integer(mn));
    json_object_set_new(((struct serve_args *)base)->body, "replicas_max", json_integer(mx));
    return 0;
}

static int add_env(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    (void)f;
    const char *eq = strchr(v, '=');
    if (!eq || eq == v)
        return berth_err_set(err, BERTH_EINPUT, "expected K=V, found '%s'", v);
    json_object_setn_new(((struct serve_args *)base)->env, v, (size_t)(eq - v),
                         json_string(eq + 1));
    return 0;
}

static const struct cli_flag serve_flags[] = {
    {"replicas", 'r', "MIN..MAX", "replicas: N, or MIN..MAX scaled by load (default 1)",
     CLI_SET(set_replicas), .bits = CLI_ONCE},
    {"gpus", 'g', "N", "GPUs of each replica, on one server (default 1)", CLI_SET(set_num),
     .data = "gpus", .lo = 1},
    {"pool", 0, "POOL", "the servers' pool (inference, the default and only one)",
     CLI_SET(set_text), .data = "pool"},
    {"target-rps", 0, "R",
     "requests/s one replica serves: the load (reported or scraped) over R gives the replicas "
     "wanted",
     CLI_SET(set_num), .data = "target_rps"},
    {"headroom", 0, "F", "plan each replica at R x (1 - F) (default 0.1)", CLI_SET(set_num),
     .data = "headroom"},
    {"cooldown", 0, "S", "seconds the load must stay low before a scale-down (default 30)",
     CLI_SET(set_num), .data = "cooldown_s"},
    {"scrape", 0, "URL",
     "read each replica's load from http://127.0.0.1:$PORT/PATH (or just /PATH): a number, "
     "or Prometheus text; only from a listener the replica's own processes hold",
     CLI_SET(set_text), .data = "scrape"},
    {"scrape-metric", 0, "NAME", "the metric of Prometheus text to read (default load)",
     CLI_SET(set_text), .data = "scrape_metric"},
    {"scrape-interval", 0, "S", "seconds between scrapes (default 1)", CLI_SET(set_num),
     .data = "scrape_interval_s"},
    {"name", 'n', "NAME", "the service's name (default: the program's)", CLI_SET(set_text),
     .data = "name"},
    {"gpu-type", 't', "T", "GPU type", CLI_SET(set_text), .data = "gpu_type"},
    {"signal", 's', "SIG", "stop signal before SIGKILL (default SIGTERM)", CLI_SET(set_text),
     .data = "checkpoint_signal"},
    {"grace", 0, "S", "seconds between that signal and SIGKILL (default 30)", CLI_SET(set_num),
     .data = "grace_s"},
    {"cwd", 0, "DIR", "working directory (default: the current one)", CLI_SET(set_text),
     .data = "cwd"},
    {"env", 'e', "K=V", "add a variable (repeatable)", CLI_SET(add_env)},
    {"no-env", 0, NULL, "do not send the current environment",
     CLI_ON_AT(struct serve_args, no_env)},
    {"shell", 0, NULL, "run COMMAND (one string) with /bin/sh -c", CLI_SET(set_shell)},
    {"show", 0, "ID", "show service ID", CLI_U64_AT(struct serve_args, show), .lo = 1},
    {"delete", 0, "ID", "delete service ID: its replicas are stopped (admin)",
     CLI_U64_AT(struct serve_args, del), .lo = 1},
    {"json", 0, NULL, "print berthd's JSON document", CLI_ON_AT(struct serve_args, json)},
    {0},
};

static const struct cli_section serve_sections[] = {
    {NULL, serve_flags, 0},
    {NULL, cli_client_table, offsetof(struct serve_args, c)},
    {0},
};

static const struct cli_spec serve_spec = {
    .cmd = "serve",
    .usage = "serve [--replicas MIN..MAX] [-g N] [--target-rps R] [--scrape URL] [FLAGS] -- "
             "COMMAND [ARGS...]\nserve [--show ID | --delete ID] [--json]",
    .about = "Runs COMMAND as a service on the cluster's inference pool (an admin's token): "
             "each replica is a berthd job with its own GPUs, BERTH_REPLICA (its index) and PORT "
             "(a port berthd assigns) in its environment, restarted when it exits. Replicas "
             "report their load with POST /v1/jobs/ID/load (their BERTH_JOB_TOKEN), or berthd "
             "scrapes it; with --target-rps the wanted replicas follow the load, and they set "
             "the inference demand a lending policy (aryl) reclaims servers for. Without "
             "COMMAND: lists the services (the replicas' ports only for an admin or the "
             "service's owner).",
    .sections = serve_sections,
    .stop_at_operand = 1, /* the replicas' argv follows */
};

static void print_service(const json_t *s)
{
#define I(o, k) ((long long)json_integer_value(json_object_get(o, k)))
#define S(o, k)                                                                                    \
    (json_string_value(json_object_get(o, k)) ? json_string_value(json_object_get(o, k)) : "")
    printf("service %lld %s (%s): %s, %lld of %lld wanted running (%lld..%lld), load %.2f\n",
           I(s, "id"), S(s, "name"), S(s, "user"), S(s, "state"), I(s, "running"), I(s, "wanted"),
           I(s, "replicas_min"), I(s, "replicas_max"),
           json_number_value(json_object_get(s, "load")));
    const json_t *reps = json_object_get(s, "replicas"), *r;
    size_t i;
    json_array_foreach(reps, i, r)
    {
        const json_t *l = json_object_get(r, "load");
        char port[24] = "-"; /* null: berthd shows ports only to admins and the owner */
        if (json_is_integer(json_object_get(r, "port")))
            snprintf(port, sizeof port, "%lld", I(r, "port"));
        printf("  replica %lld: job %lld on %s port %s, %s, %lld restarts, load %s%.2f\n",
               I(r, "replica"), I(r, "job"), S(r, "server"), port,
               json_is_true(json_object_get(r, "running")) ? "running" : "starting",
               I(r, "restarts"), json_is_number(l) ? "" : "-",
               json_is_number(l) ? json_number_value(l) : 0);
        if (json_is_string(json_object_get(r, "scrape_refused")))
            printf("    %s\n", S(r, "scrape_refused"));
    }
    if (json_is_string(json_object_get(s, "crash_loop")))
        printf("  crash loop: %s\n", S(s, "crash_loop"));
#undef I
#undef S
}

static int call(struct serve_args *a, const char *method, const char *path, const json_t *body)
{
    struct cli_reply r;
    int rc = cli_client_init(&a->c, "serve");
    if (rc || (rc = cli_call(&a->c, method, path, body, &r)))
        return rc;
    if (!(rc = cli_reply_check(&a->c, &r))) {
        const json_t *j = r.json;
        if (a->json) {
            char *s = json_dumps(j, JSON_INDENT(2));
            printf("%s\n", s ? s : "{}");
            free(s);
        } else if (json_is_array(json_object_get(j, "services"))) {
            const json_t *s;
            size_t i;
            json_array_foreach(json_object_get(j, "services"), i, s) print_service(s);
            if (!json_array_size(json_object_get(j, "services")))
                printf("no services\n");
        } else if (!strcmp(method, "POST")) {
            printf("Created service %lld\n",
                   (long long)json_integer_value(json_object_get(j, "id")));
        } else {
            print_service(j);
        }
    }
    cli_reply_free(&r);
    return rc;
}

int cmd_serve(int argc, char **argv)
{
    struct serve_args a = {.body = json_object(), .env = json_object()};
    int nargs, rc = cli_flags_parse(&serve_spec, argc, argv, &a, &nargs);
    char path[64];
    if (rc != CLI_FLAGS_GO)
        goto out;
    rc = 0;
    if ((a.show || a.del) && (nargs || json_object_size(a.body))) {
        rc = cli_usage_error("serve", "--show and --delete take no command and no other flag");
        goto out;
    }
    if (a.show || a.del) {
        snprintf(path, sizeof path, "/v1/services/%llu",
                 (unsigned long long)(a.show ? a.show : a.del));
        rc = call(&a, a.show ? "GET" : "DELETE", path, NULL);
        goto out;
    }
    if (!nargs) {
        if (json_object_size(a.body) || json_object_size(a.env)) {
            rc = cli_usage_error("serve", "expected a command after the flags (berth serve "
                                          "--replicas 1..4 -g 1 -- python server.py)");
            goto out;
        }
        rc = call(&a, "GET", "/v1/services", NULL);
        goto out;
    }
    json_t *av = json_array();
    for (int i = 1; i <= nargs; i++)
        json_array_append_new(av, json_string(argv[i]));
    json_object_set_new(a.body, "argv", av);
    if (!json_object_get(a.body, "name")) {
        const char *base = strrchr(argv[1], '/');
        char name[64];
        size_t k = 0;
        for (const char *p = base ? base + 1 : argv[1]; *p && k + 1 < sizeof name; p++)
            name[k++] =
                strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.", *p)
                    ? *p
                    : '_';
        name[k] = 0;
        json_object_set_new(a.body, "name", json_string(k ? name : "service"));
    }
    if (!json_object_get(a.body, "cwd")) {
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd))
            json_object_set_new(a.body, "cwd", json_string(cwd));
    }
    json_t *env = json_object();
    for (char **e = environ; !a.no_env && e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (eq && eq != *e && strncmp(*e, "BERTH_TOKEN=", 12))
            json_object_setn_new(env, *e, (size_t)(eq - *e), json_string(eq + 1));
    }
    json_object_update(env, a.env);
    json_object_set_new(a.body, "env", env);
    rc = call(&a, "POST", "/v1/services", a.body);
out:
    json_decref(a.body);
    json_decref(a.env);
    return rc;
}
