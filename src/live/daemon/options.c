/* berthd's settings table (see options.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "live/daemon/options.h"
#include "util/mem.h"

/* Strings a setting keeps (values from the config file, which is read into a buffer). */
static char **kept;
static size_t nkept, kept_cap;

static const char *keep(const char *s)
{
    char *c = strdup(s);
    if (!c || BERTH_GROW(kept, kept_cap, nkept + 1)) {
        free(c);
        return NULL;
    }
    kept[nkept++] = c;
    return c;
}

void berth__opts_free(void)
{
    for (size_t i = 0; i < nkept; i++)
        free(kept[i]);
    free(kept);
    kept = NULL;
    nkept = kept_cap = 0;
}

static int number(const char *name, const char *v, double lo, double hi, double *out,
                  struct berth_err *err)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (!*v || *end || errno || !(x >= lo) || !(x <= hi))
        return berth_err_set(err, BERTH_EINPUT, "--%s: expected a number from %g to %g, found '%s'",
                             name, lo, hi, v);
    *out = x;
    return 0;
}

/* A size in bytes, with an optional K, M or G (powers of 1024). */
static int size(const char *name, const char *v, int64_t lo, int64_t *out, struct berth_err *err)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    double unit = 1;
    if (*end == 'K' || *end == 'k')
        unit = 1024.0, end++;
    else if (*end == 'M' || *end == 'm')
        unit = 1024.0 * 1024, end++;
    else if (*end == 'G' || *end == 'g')
        unit = 1024.0 * 1024 * 1024, end++;
    x *= unit;
    if (!*v || *end || errno || !(x >= (double)lo) || x > 1e15)
        return berth_err_set(err, BERTH_EINPUT,
                             "--%s: expected a size of at least %lld bytes (a number with K, M "
                             "or G), found '%s'",
                             name, (long long)lo, v);
    *out = (int64_t)x;
    return 0;
}

#define SETTER(fn) static int fn(struct berth__daemon_opts *o, const char *v, struct berth_err *err)

SETTER(set_tokens)
{
    (void)err;
    o->tokens = v;
    return 0;
}
SETTER(set_queues)
{
    (void)err;
    o->queues = v;
    return 0;
}
SETTER(set_socket_users)
{
    (void)err;
    o->socket_users = v;
    return 0;
}
SETTER(set_socket_requires_token) /* the flag, or a config line "socket-requires-token yes" */
{
    if (v && strcmp(v, "yes") && strcmp(v, "no"))
        return berth_err_set(err, BERTH_EINPUT,
                             "socket-requires-token: expected yes or no (a config line), found "
                             "'%s'",
                             v);
    o->socket_requires_token = !v || !strcmp(v, "yes");
    return 0;
}
SETTER(set_executor)
{
    (void)err;
    o->executor = v;
    return 0;
}
SETTER(set_gpus)
{
    (void)err;
    o->gpus = v;
    return 0;
}
SETTER(set_slurm_conf)
{
    (void)err;
    o->slurm_conf = v;
    return 0;
}
SETTER(set_slurm_partitions)
{
    size_t n = strlen(v);
    if (!n ||
        strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,") != n ||
        v[0] == ',' || v[n - 1] == ',' || strstr(v, ",,"))
        return berth_err_set(err, BERTH_EINPUT,
                             "--slurm-partitions: expected partition names separated by ',', "
                             "found '%s'",
                             v);
    o->slurm_partitions = v;
    return 0;
}
SETTER(set_slurm_failsafe)
{
    double x = 0;
    int rc = number("slurm-failsafe", v, 2, 86400, &x, err);
    o->slurm_failsafe_us = (berth_us)llround(x * 1e6);
    return rc;
}
SETTER(set_slurm_node_poll)
{
    double x = 0;
    int rc = number("slurm-node-poll", v, 1, 86400, &x, err);
    o->slurm_node_poll_us = (berth_us)llround(x * 1e6);
    return rc;
}
SETTER(set_policy)
{
    (void)err;
    o->policy = v;
    return 0;
}
SETTER(set_policy_arg) /* appended: KEY=VALUE,KEY=VALUE (sched/settings.h) */
{
    if (!strchr(v, '='))
        return berth_err_set(err, BERTH_EINPUT, "--policy-arg: expected KEY=VALUE, found '%s'", v);
    size_t n = o->policy_settings ? strlen(o->policy_settings) : 0, len = n + strlen(v) + 2;
    char *j = malloc(len);
    if (!j)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    snprintf(j, len, "%s%s%s", n ? o->policy_settings : "", n ? "," : "", v);
    const char *k = keep(j);
    free(j);
    if (!k)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    o->policy_settings = k;
    return 0;
}
SETTER(set_placement)
{
    (void)err;
    o->placement = v;
    return 0;
}
SETTER(set_throughputs)
{
    (void)err;
    o->throughputs = v;
    return 0;
}
SETTER(set_state_dir)
{
    (void)err;
    o->state_dir = v;
    return 0;
}
SETTER(set_port_file)
{
    (void)err;
    o->port_file = v;
    return 0;
}
SETTER(set_socket)
{
    (void)err;
    o->socket = v;
    return 0;
}
SETTER(set_config)
{
    (void)err;
    o->config = v;
    return 0;
}

SETTER(set_listen)
{
    struct in_addr a;
    if (inet_pton(AF_INET, v, &a) != 1)
        return berth_err_set(err, BERTH_EINPUT, "--listen: expected an IPv4 address, found '%s'",
                             v);
    o->addr = v;
    return 0;
}

int berth__parse_listen(const char *spec, char *addr, size_t len, int *port)
{
    const char *colon = strrchr(spec, ':');
    char *end;
    struct in_addr a;
    if (!colon || colon == spec || (size_t)(colon - spec) >= len)
        return -1;
    errno = 0;
    long p = strtol(colon + 1, &end, 10);
    if (!colon[1] || *end || errno || p < 0 || p > 65535)
        return -1;
    memcpy(addr, spec, (size_t)(colon - spec));
    addr[colon - spec] = '\0';
    *port = (int)p;
    return inet_pton(AF_INET, addr, &a) == 1 ? 0 : -1;
}

SETTER(set_metrics_listen)
{
    char addr[64];
    int port;
    if (berth__parse_listen(v, addr, sizeof addr, &port))
        return berth_err_set(err, BERTH_EINPUT,
                             "--metrics-listen: expected ADDR:PORT with an IPv4 address "
                             "(127.0.0.1:9470; port 0 = any free port), found '%s'",
                             v);
    o->metrics_listen = v;
    return 0;
}

SETTER(set_isolation)
{
    if (strcmp(v, "auto") && strcmp(v, "none"))
        return berth_err_set(err, BERTH_EINPUT, "--isolation: expected auto or none, found '%s'",
                             v);
    o->isolation = v;
    return 0;
}

SETTER(set_port)
{
    double x = 0;
    int rc = number("port", v, 0, 65535, &x, err);
    o->port = (int)x;
    return rc;
}

SETTER(set_max_body)
{
    int64_t x = 0;
    int rc = size("max-body", v, 1024, &x, err);
    if (!rc && x > (1 << 30))
        rc = berth_err_set(err, BERTH_EINPUT, "--max-body: at most 1G");
    o->max_body = (size_t)x;
    return rc;
}

SETTER(set_tick)
{
    double x = 0;
    int rc = number("tick", v, 0.001, 10, &x, err);
    o->tick_us = (berth_us)llround(x * 1e6);
    return rc;
}

SETTER(set_quantum)
{
    double x = 0;
    int rc = number("quantum", v, 0.001, 1e6, &x, err);
    o->quantum_us = (berth_us)llround(x * 1e6);
    return rc;
}

SETTER(set_seed)
{
    double x = 0;
    int rc = number("seed", v, 0, 1e18, &x, err);
    o->seed = (uint64_t)x;
    return rc;
}

SETTER(set_log_cap)
{
    return size("log-cap", v, 4096, &o->log_cap, err);
}
SETTER(set_min_free)
{
    return size("min-free", v, 0, &o->min_free, err);
}
SETTER(set_user_limit)
{
    return berth__limits_parse(&o->limits, v, err);
}

SETTER(set_est_overrun)
{
    int rc = number("est-overrun", v, 0, 1000, &o->est_overrun, err);
    if (!rc && o->est_overrun > 0 && o->est_overrun <= 1)
        rc = berth_err_set(err, BERTH_EINPUT, "--est-overrun: expected 0 (off) or a factor > 1");
    return rc;
}

SETTER(set_pids_max)
{
    double x = 0;
    int rc = number("job-pids-max", v, 0, 4194304, &x, err);
    o->job_pids_max = (int64_t)x;
    return rc;
}

SETTER(set_min_job_age)
{
    double x = 0;
    int rc = number("min-job-age", v, 0, 365 * 86400.0, &x, err);
    o->min_job_age_us = (berth_us)llround(x * 1e6);
    return rc;
}

SETTER(set_max_job_count)
{
    double x = 0;
    int rc = number("max-job-count", v, 0, 100000000, &x, err);
    o->max_job_count = (int64_t)x;
    return rc;
}

SETTER(set_max_array)
{
    double x = 0;
    int rc = number("max-array", v, 1, 100000, &x, err);
    o->max_array = (int64_t)x;
    return rc;
}

SETTER(set_est_budget)
{
    double x = 0;
    int rc = number("estimate-budget", v, 0.001, 60, &x, err);
    o->est_budget_us = (berth_us)llround(x * 1e6);
    return rc;
}
SETTER(set_header_timeout)
{
    double x = 0;
    int rc = number("header-timeout", v, 0.1, 3600, &x, err);
    o->header_timeout_us = (berth_us)llround(x * 1e6);
    return rc;
}

SETTER(set_body_timeout)
{
    double x = 0;
    int rc = number("body-timeout", v, 0.1, 3600, &x, err);
    o->body_timeout_us = (berth_us)llround(x * 1e6);
    return rc;
}

SETTER(set_max_connections)
{
    double x = 0;
    int rc = number("max-connections", v, 1, 100000, &x, err);
    o->max_connections = (int)x;
    return rc;
}

SETTER(set_http_workers)
{
    double x = 0;
    int rc = number("http-workers", v, 1, 4096, &x, err);
    o->http_workers = (int)x;
    return rc;
}

SETTER(set_max_conn_per_addr)
{
    double x = 0;
    int rc = number("max-conn-per-addr", v, 1, 100000, &x, err);
    o->max_conn_per_addr = (int)x;
    return rc;
}

enum { ARG = 1, REPEAT = 2, NO_CONFIG = 4, RELOAD = 8 };

struct def {
    const char *name, *arg;
    int (*set)(struct berth__daemon_opts *, const char *, struct berth_err *);
    int flags;
    const char *help;
};

static const struct def defs[] = {
    {"tokens", "FILE", set_tokens, ARG,
     "bearer tokens, lines 'TOKEN USER [admin]' (required); USER is a Unix account "
     "(berthd's own unless berthd runs as root); the file must be mode 600; SIGHUP re-reads "
     "it"},
    {"executor", "E", set_executor, ARG,
     "local: jobs run on this machine (default); slurm: jobs are Slurm jobs berth places on "
     "slurmctld's nodes"},
    {"slurm-conf", "FILE", set_slurm_conf, ARG,
     "slurm: the cluster's slurm.conf (default $SLURM_CONF, then /etc/slurm/slurm.conf)"},
    {"slurm-partitions", "LIST", set_slurm_partitions, ARG,
     "slurm: the partitions berth schedules, comma-separated (default: all); job_submit.lua "
     "holds only their jobs, reading them from berth_scope beside it, which berthd writes"},
    {"slurm-failsafe", "S", set_slurm_failsafe, ARG,
     "slurm: once berthd's heartbeat in berth_scope is this old, job_submit.lua holds no new "
     "job and users may release theirs (default 60)"},
    {"slurm-node-poll", "S", set_slurm_node_poll, ARG,
     "slurm: how often berthd reads slurmctld's nodes (drained, down, gone, back; default 5); "
     "a job Slurm cannot start on its nodes has them read at once"},
    {"throughputs", "FILE", set_throughputs, ARG,
     "Gavel throughput JSON the elastic policies value gang sizes with (default: berth's "
     "built-in catalog)"},
    {"gpus", "SPEC", set_gpus, ARG,
     "local: fake GPU inventory, a cluster shorthand such as 1x4:a100, a cluster file or a "
     "built-in name (default: this machine's GPUs from NVML)"},
    {"policy", "NAME", set_policy, ARG,
     "scheduling policy (berth policies lists them; default fifo)"},
    {"policy-arg", "KEY=VALUE", set_policy_arg, ARG | REPEAT,
     "one of the policy's own settings, repeatable (a list's items separated by ':'), as "
     "berth policies lists them"},
    {"queues", "FILE", set_queues, ARG,
     "a queues file: quotas, borrowing and cohorts, per-queue and per-user limits, fair-share "
     "shares (berth(1), QUEUES); the ordering policies enforce it (default: none)"},
    {"placement", "P", set_placement, ARG,
     "consolidate, spread, best-fit, fgd, blox-scattered, blox-consolidated or topology (default: "
     "the policy's; jobs with a required or preferred topology level or tp > 1 are placed by "
     "topology on a cluster with a topology)"},
    {"listen", "ADDR", set_listen, ARG, "IPv4 address to listen on (default 127.0.0.1)"},
    {"port", "N", set_port, ARG, "TCP port (default 8470; 0 = any free port)"},
    {"metrics-listen", "ADDR:PORT", set_metrics_listen, ARG,
     "serve /metrics (and /healthz) on this address instead of the API's (port 0: any free "
     "port; berthd's log says which)"},
    {"socket", "PATH", set_socket, ARG,
     "Unix socket whose callers are known by their account, no token needed (default "
     "STATE/berthd.sock; 'none': no socket)"},
    {"socket-users", "LIST", set_socket_users, ARG,
     "only these accounts and @groups (comma-separated) may use the Unix socket, besides root, "
     "berthd's own account and the token file's admins; others get 403 (default: every "
     "account)"},
    {"socket-requires-token", NULL, set_socket_requires_token, 0,
     "only accounts a line of the token file names may use the Unix socket (root and berthd's "
     "own account aside): removing a user's tokens and SIGHUP ends their socket access too; "
     "a config line says yes or no"},
    {"state-dir", "DIR", set_state_dir, ARG,
     "journal, job files and the socket (default ./berthd-state)"},
    {"config", "FILE", set_config, ARG | NO_CONFIG,
     "lines 'NAME VALUE' with the flags' names (flags win); SIGHUP re-reads its user-limit "
     "lines"},
    {"port-file", "FILE", set_port_file, ARG, "write the port actually bound here once serving"},
    {"isolation", "MODE", set_isolation, ARG,
     "auto: each attempt in a cgroup of its own where cgroups are writable (default); none: "
     "process groups only"},
    {"log-cap", "SIZE", set_log_cap, ARG,
     "bytes kept of a job's stdout, and of its stderr; beyond it the newest half is kept "
     "(default 256M)"},
    {"min-free", "SIZE", set_min_free, ARG,
     "free space the state dir's disk keeps: below it submissions get 507 (default 512M)"},
    {"user-limit", "[USER:]KEY=VALUE", set_user_limit, ARG | REPEAT | RELOAD,
     "per-user limit, repeatable: max_pending (default 10000), submit_rate (50/s), "
     "submit_burst (500), max_gpus (0 = none); with USER: that user's"},
    {"est-overrun", "F", set_est_overrun, ARG,
     "a job that runs F times its estimate (est_s) is re-estimated at F times its run time, "
     "so a false estimate buys nothing (default 2; 0 = never)"},
    {"estimate-budget", "S", set_est_budget, ARG,
     "wall time one start-time estimate (berth queue --start, berth why) may run, outside the "
     "daemon lock; jobs it did not reach answer 'no estimate (budget)' (default 0.2)"},
    {"job-pids-max", "N", set_pids_max, ARG,
     "processes and threads one attempt may have, where cgroups are (default 4096; 0 = no "
     "limit)"},
    {"min-job-age", "S", set_min_job_age, ARG,
     "an ended job leaves memory S seconds after it ended; GET /v1/jobs/ID and /v1/acct read "
     "it from the journal then (Slurm's MinJobAge; default 300)"},
    {"max-job-count", "N", set_max_job_count, ARG,
     "jobs in memory at most: past it the oldest ended leave first, and when none may, "
     "submissions get 503 (Slurm's MaxJobCount; default 200000, 0 = no bound)"},
    {"max-array", "N", set_max_array, ARG,
     "tasks one array job may have (berth submit --array; default 1000, at most 100000)"},
    {"header-timeout", "S", set_header_timeout, ARG,
     "a request's headers must arrive within S seconds (default 10)"},
    {"body-timeout", "S", set_body_timeout, ARG, "then its body within S seconds (default 60)"},
    {"max-connections", "N", set_max_connections, ARG,
     "connections at once (default 1000); past three quarters of it waiting for their "
     "headers, the oldest of the address holding the most is closed"},
    {"max-conn-per-addr", "N", set_max_conn_per_addr, ARG,
     "connections waiting for their headers from one client address (on the Unix socket, one "
     "account); a newcomer past it closes that address's oldest (default 64)"},
    {"http-workers", "N", set_http_workers, ARG,
     "threads answering requests (a submission holds one until its journal commit); sockets "
     "are read by a pool of their own (default 64)"},
    {"max-body", "SIZE", set_max_body, ARG, "request body limit (default 1M)"},
    {"tick", "S", set_tick, ARG, "scheduler loop period in seconds (default 0.05)"},
    {"quantum", "S", set_quantum, ARG,
     "time slice of time-sliced policies such as las (default 60)"},
    {"seed", "N", set_seed, ARG, "seed of the policies' random draws (default 1)"},
    {"version", NULL, NULL, NO_CONFIG, "print the version and the executors this build has"},
    {"help", NULL, NULL, NO_CONFIG, "print this help"},
};
#define NDEFS (sizeof defs / sizeof *defs)

void berth__opts_usage(FILE *f)
{
    fprintf(f, "usage: berthd --tokens FILE [OPTIONS]\n"
               "       berthd --version | --help\n\n");
    for (size_t i = 0; i < NDEFS; i++) {
        char head[64];
        snprintf(head, sizeof head, "--%s%s%s", defs[i].name, defs[i].arg ? " " : "",
                 defs[i].arg ? defs[i].arg : "");
        /* the help wrapped at 88 columns, indented under a 26-column head */
        const char *h = defs[i].help;
        int col = fprintf(f, "  %-24s", head);
        if (col > 26) {
            fprintf(f, "\n%26s", "");
            col = 26;
        }
        int first = 1;
        while (*h) {
            size_t w = strcspn(h, " ");
            if (!first && col + 1 + (int)w > 88) {
                fprintf(f, "\n%26s", "");
                col = 26;
                first = 1;
            }
            col += fprintf(f, "%s%.*s", first ? "" : " ", (int)w, h);
            first = 0;
            h += w;
            h += strspn(h, " ");
        }
        fprintf(f, "\n");
    }
}

static const struct def *find(const char *name)
{
    for (size_t i = 0; i < NDEFS; i++)
        if (!strcmp(defs[i].name, name))
            return &defs[i];
    return NULL;
}

/* Lines "NAME VALUE" (or NAME=VALUE); only RELOAD settings when reload is set. */
static int read_config(struct berth__daemon_opts *o, const char *path, int reload,
                       struct berth_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return berth_err_set(err, BERTH_EIO, "--config %s: %s", path, strerror(errno));
    char line[4096];
    unsigned no = 0;
    int rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        no++;
        if (!strchr(line, '\n') && !feof(f)) {
            rc = berth_err_set(err, BERTH_EINPUT, "%s:%u: line longer than %zu bytes", path, no,
                               sizeof line - 2);
            break;
        }
        char *l = line + strspn(line, " \t");
        char *end = l + strlen(l);
        while (end > l && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
            *--end = '\0';
        if (!*l || *l == '#')
            continue;
        char *sp = l + strcspn(l, " \t=");
        char *val = sp + strspn(sp, " \t=");
        *sp = '\0';
        const struct def *d = find(l);
        if (!d || (d->flags & NO_CONFIG) || !*val) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s:%u: expected 'NAME VALUE' with a flag's name, found '%s'", path,
                               no, l);
            break;
        }
        if (reload && !(d->flags & RELOAD))
            continue;
        const char *v = keep(val);
        if (!v) {
            rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
            break;
        }
        struct berth_err e = {0};
        if (d->set(o, v, &e))
            rc = berth_err_set(err, BERTH_EINPUT, "%s:%u: %s", path, no, e.msg);
    }
    fclose(f);
    return rc;
}

int berth__opts_reload(struct berth__daemon_opts *o, int argc, char **argv, struct berth_err *err)
{
    berth__limits_init(&o->limits);
    int rc = o->config ? read_config(o, o->config, 1, err) : 0;
    for (int i = 1; !rc && i < argc; i++) { /* the flags win, as at start */
        const char *v = NULL;
        if (!strcmp(argv[i], "--user-limit") && i + 1 < argc)
            v = argv[++i];
        else if (!strncmp(argv[i], "--user-limit=", 13))
            v = argv[i] + 13;
        if (v)
            rc = set_user_limit(o, v, err);
    }
    if (rc)
        berth__limits_free(&o->limits);
    return rc;
}

int berth__opts_parse(struct berth__daemon_opts *o, int argc, char **argv, int *action,
                      struct berth_err *err)
{
    struct option longopts[NDEFS + 1];
    for (size_t i = 0; i < NDEFS; i++)
        longopts[i] = (struct option){defs[i].name, defs[i].arg ? required_argument : no_argument,
                                      NULL, 0x100 + (int)i};
    longopts[NDEFS] = (struct option){NULL, 0, NULL, 0};
    *action = BERTH_OPTS_RUN;
    /* the config file first, so flags win whatever their order; written in full */
    for (int i = 1; i < argc; i++) {
        const char *path = NULL;
        if (!strcmp(argv[i], "--config") && i + 1 < argc)
            path = argv[++i];
        else if (!strncmp(argv[i], "--config=", 9))
            path = argv[i] + 9;
        if (path) {
            o->config = path;
            int rc = read_config(o, path, 0, err);
            if (rc)
                return rc;
        }
    }
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (ch == 'h') {
            *action = BERTH_OPTS_HELP;
            return 0;
        }
        if (ch < 0x100 || ch >= 0x100 + (int)NDEFS)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s: unknown flag or missing value (see "
                                 "berthd --help)",
                                 argv[optind - 1]);
        const struct def *d = &defs[ch - 0x100];
        if (!strcmp(d->name, "help")) {
            *action = BERTH_OPTS_HELP;
            return 0;
        }
        if (!strcmp(d->name, "version")) {
            *action = BERTH_OPTS_VERSION;
            return 0;
        }
        if (!strcmp(d->name, "config")) {
            if (optarg != o->config) /* an abbreviation (--conf) the first look missed */
                return berth_err_set(err, BERTH_EINPUT,
                                     "write --config FILE in full (the file is read before the "
                                     "other flags, so that they win)");
            continue;
        }
        int rc = d->set(o, optarg, err);
        if (rc)
            return rc;
    }
    if (optind < argc)
        return berth_err_set(err, BERTH_EINPUT, "unexpected argument '%s'", argv[optind]);
    return 0;
}
