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
    int all, json, me, start;
    const char *state, *user, *queue, *format;
    uint64_t limit; /* UINT64_MAX: not given */
};

#define Q struct queue_args
static const struct cli_flag queue_flags[] = {
    {"all", 'a', NULL, "list finished jobs too (every state)", CLI_ON_AT(Q, all),
     .bits = CLI_QUIET_LETTER},
    {"state", 't', "S[,S...]",
     "only jobs in these states: pending, held, running, completed, failed, cancelled, timeout "
     "(-t as squeue's; -s too)",
     CLI_STR_AT(Q, state), .bits = CLI_QUIET_LETTER | CLI_ONCE},
    {"states", 's', "S[,S...]", NULL, CLI_STR_AT(Q, state),
     .bits = CLI_ONCE}, /* berth's earlier -s: taken, not listed (--state is documented) */
    {"user", 'u', "U", "only the jobs of user U", CLI_STR_AT(Q, user),
     .bits = CLI_QUIET_LETTER | CLI_ONCE},
    {"me", 0, NULL, "only my jobs (the caller's, as berthd knows it)", CLI_ON_AT(Q, me)},
    {"queue", 'q', "Q", "only the jobs of queue Q", CLI_STR_AT(Q, queue),
     .bits = CLI_QUIET_LETTER | CLI_ONCE},
    {"format", 'o', "F[,F...]",
     "the columns, by name (F:WIDTH sets one's width): id, user, queue, name, state, gpus, "
     "type, elapsed, limit, servers, reason, priority, submit, start, end, attempt, start_est, "
     "end_est (default: "
     "id,user,queue,name,state,gpus,elapsed,limit,servers,reason)",
     CLI_STR_AT(Q, format), .bits = CLI_QUIET_LETTER | CLI_ONCE},
    {"start", 0, NULL,
     "pending jobs with berthd's predicted start and end (its queue run forward in a virtual "
     "clock with its policy; columns start_est and end_est; default: "
     "id,user,queue,name,gpus,start_est,end_est,reason)",
     CLI_ON_AT(Q, start)},
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
    .usage = "queue [--all] [--state S[,S...]] [--user U | --me] [--queue Q] [--format F[,F...]] "
             "[--start] [--json] [--limit N] [--server URL] [--token TOKEN] [--socket PATH]",
    .about = "Lists pending, held and running jobs (--all: finished ones too), the oldest "
             "first, in squeue's columns: at most 1000 of them unless --limit N says otherwise "
             "(0: all; --json lists all unless told). REASON is a code like Slurm's: Priority "
             "(jobs ahead of it go first), Resources (it is next, GPUs are too few), "
             "QuotaExceeded (its queue's quota or a limit), Topology (no domain of its required "
             "topology level holds its gang), Dependency, Held, BeginTime, "
             "JobArrayTaskLimit, TimeLimit (it ended at its time limit), None; berth why ID "
             "explains it.",
    .sections = queue_sections,
};

/* "1:02:03" (or "2-01:02:03") of s seconds; "-" below 0. */
static void hms(double s, char *buf, size_t len)
{
    if (s < 0) {
        snprintf(buf, len, "-");
        return;
    }
    long long t = (long long)s, d = t / 86400;
    if (d)
        snprintf(buf, len, "%lld-%02lld:%02lld:%02lld", d, t / 3600 % 24, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60);
}

/* A time in microseconds since the epoch as local "2026-12-01 14:03:07"; "-" when 0. */
static void local_time(long long us, char *buf, size_t len)
{
    time_t t = (time_t)(us / 1000000);
    struct tm tm;
    if (us <= 0 || !localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
        snprintf(buf, len, "-");
}

/* One column: its name, header, default width and how it prints a job. */
struct column {
    const char *name, *head;
    int width, left;
    void (*cell)(const json_t *j, char *buf, size_t len);
};

static const char *str_of(const json_t *j, const char *k)
{
    const char *s = json_string_value(json_object_get(j, k));
    return s ? s : "";
}

static void c_id(const json_t *j, char *b, size_t n)
{
    snprintf(b, n, "%lld", (long long)json_integer_value(json_object_get(j, "id")));
}
static void c_user(const json_t *j, char *b, size_t n)
{
    cli_clean(str_of(j, "user"), b, n);
}
static void c_queue(const json_t *j, char *b, size_t n)
{
    const char *q = str_of(j, "queue");
    cli_clean(*q ? q : "-", b, n);
}
static void c_name(const json_t *j, char *b, size_t n)
{
    cli_clean(str_of(j, "name"), b, n);
}
static void c_state(const json_t *j, char *b, size_t n)
{
    cli_clean(str_of(j, "state"), b, n);
}
static void c_gpus(const json_t *j, char *b, size_t n)
{
    double share = json_number_value(json_object_get(j, "gpu_share"));
    if (share > 0 && share < 1)
        snprintf(b, n, "%.2f", share);
    else
        snprintf(b, n, "%lld", (long long)json_integer_value(json_object_get(j, "gpus")));
}
static void c_type(const json_t *j, char *b, size_t n)
{
    const char *t = str_of(j, "gpu_type");
    cli_clean(*t ? t : "any", b, n);
}
/* the run time so far, or in all for a finished job: never a growing age */
static void c_elapsed(const json_t *j, char *b, size_t n)
{
    const json_t *r = json_object_get(j, "run_s");
    hms(json_is_number(r) ? json_number_value(r) : -1, b, n);
}
static void c_limit(const json_t *j, char *b, size_t n)
{
    const json_t *l = json_object_get(j, "time_limit_s");
    if (json_is_number(l))
        hms(json_number_value(l), b, n);
    else
        snprintf(b, n, "UNLIMITED");
}
static void c_servers(const json_t *j, char *b, size_t n)
{
    const json_t *a = json_object_get(j, "servers"), *e;
    size_t i, o = 0;
    b[0] = '\0';
    json_array_foreach(a, i, e)
    {
        char c[128];
        cli_clean(json_string_value(e) ? json_string_value(e) : "", c, sizeof c);
        o += (size_t)snprintf(b + o, o < n ? n - o : 0, "%s%s", i ? "," : "", c);
    }
    if (!json_array_size(a))
        snprintf(b, n, "-");
}
static void c_reason(const json_t *j, char *b, size_t n)
{
    const char *r = str_of(j, "reason");
    cli_clean(*r ? r : "-", b, n);
}
static void c_priority(const json_t *j, char *b, size_t n)
{
    snprintf(b, n, "%lld", (long long)json_integer_value(json_object_get(j, "priority")));
}
static void c_submit(const json_t *j, char *b, size_t n)
{
    local_time((long long)json_integer_value(json_object_get(j, "submit_us")), b, n);
}
static void c_start(const json_t *j, char *b, size_t n)
{
    local_time((long long)json_integer_value(json_object_get(j, "start_us")), b, n);
}
static void c_end(const json_t *j, char *b, size_t n)
{
    local_time((long long)json_integer_value(json_object_get(j, "end_us")), b, n);
}
/* berthd's predicted start / end (berth queue --start), "-" when it has none */
static void c_start_est(const json_t *j, char *b, size_t n)
{
    const json_t *e = json_object_get(j, "estimate");
    local_time((long long)json_integer_value(json_object_get(e, "start_us")), b, n);
}
static void c_end_est(const json_t *j, char *b, size_t n)
{
    const json_t *e = json_object_get(j, "estimate");
    local_time((long long)json_integer_value(json_object_get(e, "end_us")), b, n);
}
static void c_attempt(const json_t *j, char *b, size_t n)
{
    snprintf(b, n, "%lld", (long long)json_integer_value(json_object_get(j, "attempt")));
}
/* queue --start's last line (stderr): how old the estimates are and, when some jobs have
 * none, why (the run's budget ended first, they are newer than the run). */
static void start_note(const json_t *run, const json_t *jobs)
{
    fflush(stdout); /* the table first, then its footer, when both go to one file */
    if (!json_is_object(run)) {
        fprintf(stderr, "(no estimate yet: berthd's first run is under way; ask again)\n");
        return;
    }
    size_t i, none = 0, shown = json_array_size(jobs);
    const json_t *j;
    json_array_foreach(jobs, i, j) none += !json_is_object(json_object_get(j, "estimate"));
    const char *stopped = json_string_value(json_object_get(run, "stopped"));
    fprintf(stderr, "(estimates from berthd's queue run forward %.1f s ago",
            json_number_value(json_object_get(run, "age_s")));
    if (none && stopped && (!strcmp(stopped, "budget") || !strcmp(stopped, "passes")))
        fprintf(stderr,
                "; %zu of %zu jobs have none: the run stopped at its %s (%g s, "
                "berthd --estimate-budget) before they started",
                none, shown, !strcmp(stopped, "budget") ? "budget" : "bound of passes",
                json_number_value(json_object_get(run, "budget_s")));
    else if (none)
        fprintf(stderr, "; %zu of %zu jobs have none (berth why ID says why)", none, shown);
    fprintf(stderr, ")\n");
}

static const struct column columns[] = {
    {"id", "ID", 8, 0, c_id},
    {"user", "USER", 10, 1, c_user},
    {"queue", "QUEUE", 10, 1, c_queue},
    {"name", "NAME", 16, 1, c_name},
    {"state", "STATE", 9, 1, c_state},
    {"gpus", "GPUS", 5, 0, c_gpus},
    {"type", "TYPE", 8, 1, c_type},
    {"elapsed", "ELAPSED", 11, 0, c_elapsed},
    {"limit", "LIMIT", 11, 0, c_limit},
    {"servers", "SERVERS", 12, 1, c_servers},
    {"reason", "REASON", 13, 1, c_reason},
    {"priority", "PRIO", 5, 0, c_priority},
    {"submit", "SUBMIT", 19, 1, c_submit},
    {"start", "START", 19, 1, c_start},
    {"end", "END", 19, 1, c_end},
    {"attempt", "ATTEMPT", 7, 0, c_attempt},
    {"start_est", "START_EST", 19, 1, c_start_est},
    {"end_est", "END_EST", 19, 1, c_end_est},
};
#define NCOLUMNS  (sizeof columns / sizeof *columns)
#define MAX_SHOWN 32

struct shown {
    const struct column *c;
    int width;
};

/* The --format list (or the default) as columns; 2 (bad input) with a message. */
static int parse_format(const char *f, struct shown *out, size_t *n)
{
    char buf[512];
    if (strlen(f) >= sizeof buf)
        return cli_usage_error("queue", "--format: longer than %zu bytes (see berth queue --help)",
                               sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", f);
    *n = 0;
    char *save = NULL;
    for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(w, ':');
        long width = -1;
        if (colon) {
            char *end;
            *colon = '\0';
            width = strtol(colon + 1, &end, 10);
            if (!colon[1] || *end || width < 1 || width > 200)
                return cli_usage_error(
                    "queue",
                    "--format: %s: expected a width from 1 to 200 (see berth queue --help)", w);
        }
        size_t k = 0;
        while (k < NCOLUMNS && strcmp(columns[k].name, w))
            k++;
        if (k == NCOLUMNS)
            return cli_usage_error("queue",
                                   "--format: unknown column '%.32s' (see berth queue --help)", w);
        if (*n == MAX_SHOWN)
            return cli_usage_error("queue", "--format: at most %d columns (see berth queue --help)",
                                   MAX_SHOWN);
        out[(*n)++] = (struct shown){&columns[k], width > 0 ? (int)width : columns[k].width};
    }
    if (!*n)
        return cli_usage_error("queue", "--format: expected column names (see berth queue --help)");
    return 0;
}

/* One cell, cut to its width (the last column is never cut, as squeue's). */
static void put(const struct shown *s, const char *text, int last)
{
    if (last && s->c->left)
        printf("%s", text);
    else if (s->c->left)
        printf("%-*.*s", s->width, s->width, text);
    else
        printf("%*.*s", s->width, s->width, text);
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
    if (qa.me && qa.user)
        return cli_usage_error("queue",
                               "--me and --user: give one of them (see berth queue --help)");
    struct shown cols[MAX_SHOWN];
    size_t ncols = 0;
    const char *fmt = qa.format  ? qa.format
                      : qa.start ? "id,user,queue,name,gpus,start_est,end_est,reason"
                                 : "id,user,queue,name,state,gpus,elapsed,limit,servers,reason";
    if ((rc = parse_format(fmt, cols, &ncols)))
        return rc;
    if (qa.start && qa.state)
        return cli_usage_error(
            "queue", "--start lists pending jobs: it takes no --state (see berth queue --help)");
    /* the table shows 1000 rows unless told; --json everything */
    long limit = qa.limit != UINT64_MAX ? (long)qa.limit : qa.json ? 0 : 1000;
    int as_json = qa.json;
    char path[1024], st[300], us[300], qu[300];
    const char *state = qa.start ? "pending" : qa.state;
    int o =
        cli_query_escape(state, st, sizeof st) || cli_query_escape(qa.user, us, sizeof us) ||
                cli_query_escape(qa.queue, qu, sizeof qu)
            ? -1
            : snprintf(path, sizeof path, "/v1/jobs?x=1%s%s%s%s%s%s%s%s%s&limit=%ld",
                       qa.all ? "&all=1" : "", state ? "&state=" : "", st, qa.user ? "&user=" : "",
                       us, qa.queue ? "&queue=" : "", qu, qa.me ? "&mine=1" : "",
                       qa.start ? "&estimate=1" : "", limit ? limit : 1000000);
    if (o < 0 || (size_t)o >= sizeof path)
        return cli_usage_error("queue", "filters too long (see berth queue --help)");
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
            for (size_t k = 0; k < ncols; k++) {
                printf("%s", k ? " " : "");
                put(&cols[k], cols[k].c->head, k + 1 == ncols);
            }
            printf("\n");
            json_array_foreach(jobs, i, j)
            {
                for (size_t k = 0; k < ncols; k++) {
                    char cell[1024];
                    cols[k].c->cell(j, cell, sizeof cell);
                    printf("%s", k ? " " : "");
                    put(&cols[k], cell, k + 1 == ncols);
                }
                printf("\n");
            }
            json_int_t total = json_integer_value(json_object_get(r.json, "total"));
            if (total > (json_int_t)json_array_size(jobs))
                fprintf(stderr, "(%zu of %lld jobs shown, the oldest first; --limit 0 lists all)\n",
                        json_array_size(jobs), (long long)total);
            if (qa.start)
                start_note(json_object_get(r.json, "estimate"), jobs);
        }
    }
    cli_reply_free(&r);
    return rc;
}
